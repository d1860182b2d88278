"""Joins evaluation to the store: reads rows, evaluates a snapshot, writes its results back,
re-ranks a stored snapshot under new profiles, and builds the report from stored results.

The only module that knows both the store and evaluation; evaluation itself stays pure.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa

from porchlamp import __version__
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.columns import pydict
from porchlamp.laps import Laps
from porchlamp.evaluate import Snapshot
from porchlamp.evaluate.components import response_times
from porchlamp.evaluate.engine import window
from porchlamp.evaluate.horizon import holds
from porchlamp.evaluate.pulls import PRVerdict, Response
from porchlamp.evaluate.ranking import ProfileScore, Scored, profile_rows
from porchlamp.evaluate.report import build_report
from porchlamp.evaluate.rules import load_rules
from porchlamp.evaluate.templates import COMMENT_SCHEMA, FINGERPRINT_SCHEMA, SightingTables, TemplateCounter, TemplateIndex
from porchlamp.store import Store
from porchlamp.store.inputs import EarlierDay, SightingPlan


class SnapshotError(PorchlampError):
    """A snapshot that cannot be evaluated or read as asked; the message says what to do."""


@dataclass(frozen=True)
class EvaluateSummary:
    as_of: date
    repos: int
    statuses: dict[str, int]
    outside_prs: int
    worker_peak_mb: tuple[float, ...] = ()  # each worker process's peak memory (none when run in this process)
    carried: int = 0  # verdicts carried from `carried_from` (same rows, no boundary crossed) instead of judged again
    carried_from: date | None = None
    reused_prs: int = 0  # PR verdicts kept from `carried_from` in repositories judged again (same rows and standing, no boundary crossed)
    judged_prs: int = 0  # PR verdicts judged
    # repositories judged a second time, from every row: one of them asked for a PR's timeline rows
    # that the export left out, expecting its earlier verdict to be kept
    again: int = 0
    steps: dict[str, float] = field(default_factory=dict)  # seconds by step, in order


def resolve_as_of(store: Store, as_of: date | None) -> date:
    """The snapshot date: the one given, else the date the store's data was collected for."""
    collected = store.get_meta("collected_as_of")
    if as_of is None:
        if collected is None:
            raise SnapshotError(f"{store.path}: no data collected yet; run `porchlamp collect` first, or pass --as-of")
        return date.fromisoformat(collected)
    if collected is not None and as_of > date.fromisoformat(collected):
        raise SnapshotError(
            f"as_of {as_of} is after the data in {store.path}, collected for {collected}; "
            f"collect again with --as-of {as_of}, or evaluate an earlier date"
        )
    first = store.get_meta("first_collected_as_of")
    if first is not None and as_of < date.fromisoformat(first):
        # Collection starts at the first snapshot's window: an earlier window was never fetched,
        # and judging it would call active projects stale and answered PRs unanswered.
        raise SnapshotError(
            f"as_of {as_of} is before the first collection in {store.path} ({first}); its window was not collected. "
            f"Evaluate a date from {first} to {collected}, or collect into a new store with --as-of {as_of}"
        )
    return as_of


def _js(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _profile_rows(as_of: date, items: Iterable[tuple[str, Mapping[str, ProfileScore]]]) -> dict[str, list[Any]]:
    """Columns of `profile_results` from (repo, {profile: score}) pairs."""
    cols: dict[str, list[Any]] = {k: [] for k in ("as_of", "repo", "profile", "score", "coverage", "tier", "rank", "delta", "explain")}
    for repo, profiles in items:
        for name, p in profiles.items():
            for k, v in (("as_of", as_of), ("repo", repo), ("profile", name), ("score", p.score), ("coverage", p.coverage),
                         ("tier", p.tier), ("rank", p.rank), ("delta", p.delta), ("explain", _js(list(p.explain)))):
                cols[k].append(v)
    return cols


def snapshot_rows(snap: Snapshot, left_out: Mapping[str, Collection[int]] | None = None) -> dict[str, dict[str, list[Any]]]:
    """A snapshot as columns of the store's result tables; `left_out`: PR verdicts (numbers, by
    repository) whose rows are not written (kept from an earlier snapshot, whose rows the store copies)."""
    a = snap.as_of
    res: dict[str, list[Any]] = {}
    prs: dict[str, list[Any]] = {}
    comps: dict[str, list[Any]] = {}

    def put(cols: dict[str, list[Any]], row: dict[str, Any]) -> None:
        for k, v in row.items():
            cols.setdefault(k, []).append(v)

    for r in snap.results:
        outside = r.outside
        put(res, {
            "as_of": a, "repo": r.repo, "status": r.status, "kind": r.kind, "reason": r.reason, "ecosystem": r.ecosystem,
            "ecosystem_why": r.ecosystem_why, "star_bucket": r.star_bucket, "stars": r.stars, "forks": r.forks,
            "language": r.language, "description": r.description, "judged": r.judged, "borderline": r.borderline,
            "fork_note": r.fork_note, "review_happens": r.review_happens, "outside_prs": len(outside),
            "answered": sum(1 for v in outside if v.outcome == "answered"),
            "closed_silently": sum(1 for v in outside if v.outcome == "closed_silently"),
            "unanswered": sum(1 for v in outside if v.outcome == "unanswered"),
            "median_hours": response_times(outside, 0.5), "p90_hours": response_times(outside, 0.9),
            "evidence": _js(r.evidence()), "maintainers": _js(r.maintainers), "valid_until": r.valid_until,
        })
        for name, c in r.components.items():
            put(comps, {"as_of": a, "repo": r.repo, "component": name, "score": c.score, "inputs": _js(c.inputs), "reason": c.reason})
    written: list[tuple[str, Sequence[PRVerdict]]] = []
    for r in snap.results:
        skip = frozenset(left_out.get(r.repo, ())) if left_out else frozenset()
        written.append((r.repo, [v for v in r.prs if v.number not in skip] if skip else r.prs))
    verdicts = [v for _, prs_ in written for v in prs_]
    if verdicts:
        # A column at a time (a million PRs a snapshot): each field read by `map` in C, not row by row.
        prs["as_of"] = [a] * len(verdicts)
        prs["repo"] = [repo for repo, prs_ in written for _ in prs_]
        prs.update((c, list(map(attrgetter(c), verdicts))) for c in _PR_FIELDS)
        responses = [v.response for v in verdicts]
        for c, field_ in _RESPONSE_COLUMNS:
            prs[c] = [None if x is None else getattr(x, field_) for x in responses]
    return {"results": res, "pr_results": prs, "component_results": comps, "profile_results": _profile_rows(a, ((r.repo, r.profiles) for r in snap.results))}


# The fields of a PR verdict that are `pr_results` columns of the same name; its response is three.
_PR_FIELDS = tuple(f for f in PRVerdict._fields if f not in ("repo", "response"))
_RESPONSE_COLUMNS = (("response_kind", "kind"), ("response_actor", "actor"), ("response_at", "at"))
_KEPT_COLUMNS = ["repo", *_PR_FIELDS, *(c for c, _ in _RESPONSE_COLUMNS)]


def kept_verdicts(rows: pa.Table | None) -> dict[str, dict[int, PRVerdict]]:
    """Stored `pr_results` rows (every column) as the verdicts `snapshot_rows` wrote them from, by
    repository and number: what a later day's judging may reuse (`pulls.Earlier`)."""
    if rows is None or rows.num_rows == 0:
        return {}
    c = pydict(rows.select(_KEPT_COLUMNS))  # what a verdict is made of: not its snapshot's date
    new = tuple.__new__  # a named tuple from its values, without a call through its keyword parameters
    c["response"] = [None if row[0] is None else new(Response, row) for row in zip(*(c[col] for col, _ in _RESPONSE_COLUMNS))]
    out: dict[str, dict[int, PRVerdict]] = {}
    for row in zip(*(c[f] for f in PRVerdict._fields)):
        out.setdefault(row[0], {})[row[1]] = new(PRVerdict, row)  # (repo, number, ...)
    return out


def evaluate_store(store: Store, as_of: date | None, settings: Settings,
                   progress: Callable[[int], None] | None = None, workers: int = 1, cluster: str | None = None,
                   shard_dir: Path | None = None, reuse: bool = True) -> EvaluateSummary:
    """Evaluate every repository in the store for `as_of` and store the snapshot (replacing it).

    The snapshot is exported as Parquet by repository shard and evaluated shard by shard: in this
    process (`workers` 1), on a local cluster of `workers` processes, or on the Dask scheduler at
    `cluster` (whose workers must read `shard_dir`). Every way gives the same rows. With `reuse`, a
    repository whose rows are those of the latest earlier snapshot, under the same code, settings
    and templates (`snapshot_basis`), and whose window moved across none of its times (`horizon`),
    keeps that snapshot's verdict, and each PR whose rows are unchanged is counted for templates
    from the sightings the store kept: the same rows a full evaluation gives. `progress(n)` hears of
    repositories as they pass each of the two passes.

    DuckDB is kept to a small budget throughout, spilling to disk beyond it: at its default it may
    take most of the machine, and the calling process grew with the snapshot (2.7 GB at 100,000
    repositories, 0.94 GB at 11,000, 0.73 in the budget)."""
    from porchlamp.store.inputs import pr_digests

    # Each PR's digests, made from one scan of its rows, serve the repositories' digests, the
    # sighting plan and every export's `pr_rows`.
    lap = Laps()
    with store.small_budget(), pr_digests(store) as prs:
        return _evaluate_store(store, as_of, settings, progress, workers, cluster, shard_dir, reuse, prs, lap)


def _evaluate_store(store: Store, as_of: date | None, settings: Settings, progress: Callable[[int], None] | None,
                    workers: int, cluster: str | None, shard_dir: Path | None, reuse: bool, prs: str,
                    lap: Laps) -> EvaluateSummary:
    from porchlamp.cluster import KEPT_PRS, PARTIAL_TABLES, judge_shard, runner_for, shard_sightings, shard_space
    from porchlamp.store.inputs import input_digests, sighting_plan
    from porchlamp.store.shards import export_verdicts

    when = resolve_as_of(store, as_of)
    # A repository whose collection failed at some step holds part of its data: it is not judged on
    # that, and the report names it.
    failed = {e["repo"] for e in store.collection_errors()}
    wanted = [r for r in store.repo_names() if r not in failed]
    text = settings.model_dump_json()
    key = sightings_key(text)
    digests = input_digests(store, prs)
    lap("digests")
    was = _carry_from(store, when) if reuse else None
    # The verdicts that hold if the template index turns out the day before's too.
    holding = set(_holding(store, was, when, wanted, digests, settings))
    lap("holding")
    runner = runner_for(workers, cluster)
    lap("start_workers")
    try:
        with shard_space(Path(store.path).parent, shard_dir) as space, sighting_plan(store, wanted, key, reuse, prs) as plan:
            known = plan.known
            first = [r for r in wanted if r not in holding or r not in known]  # to judge, or to sight
            lap("sighting_plan")
            # Templates are a property of the whole snapshot: every repository's sightings, reduced here.
            counter = TemplateCounter(settings.templates, load_rules(settings).bot_templates)
            fps, said = plan.load()
            counter.add_tables(SightingTables(tuple(sorted(known)), fps.cast(FINGERPRINT_SCHEMA), said.cast(COMMENT_SCHEMA)))
            if progress and known:
                progress(len(known))
            lap("kept_sightings")
            # A PR whose verdict of `was` is likely kept is exported without its timeline rows.
            ends = EarlierDay(was, window(was, settings)[1], window(when, settings)[1]) if was is not None else None
            where, ks, plan_of = _export(store, space, first, runner.workers, plan, ends)
            lap("export")
            fresh: list[SightingTables] = []
            # A task reads its shard's comments but those of known repositories: a shard whose every
            # one is known (all of them, on a day on which only the window moved) is not read.
            sighted = [k for k, names in zip(ks, plan_of) if any(r not in known for r in names)]
            tasks: Iterable[SightingTables] = ()
            if sighted:
                tasks = runner.map(shard_sightings, where, sighted, text, runner.share(known), runner.share(plan.only))
            for part in tasks:
                counter.add_tables(part)
                fresh.append(part)
                if progress:
                    progress(len(part.repos))
            lap("sightings")
            found = counter.index()
            basis = snapshot_basis(text, found)
            same = was is not None and (store.snapshot_meta(was) or {}).get("basis") == basis
            carried = sorted(holding) if same else []
            index = runner.share(found)
            lap("template_index")
            statuses, scored, outside = _carried_outcome(store, was, carried)
            lap("carried_outcome")
            repos = len(carried)
            if progress and carried:
                progress(len(carried))
            # The template index moved: what would have been carried is judged too.
            late = [] if same else sorted(holding - set(first))
            jobs = [(where, ks)] + ([_export(store, space / "late", late, runner.workers, plan)[:2]] if late else [])
            if same and was is not None:
                # The earlier verdicts of the PRs to judge: each kept where its key and horizon allow.
                export_verdicts(store, where, plan_of, was, frozenset(carried))
            lap("export")
            skip = runner.share(frozenset(carried))
            reused = judged = twice = 0
            again: list[str] = []
            for at, shards in jobs:
                for outcome in runner.map(judge_shard, at, shards, text, when, index, skip, was if same else None):
                    for k, v in outcome.statuses.items():
                        statuses[k] = statuses.get(k, 0) + v
                    scored.extend(outcome.scored)
                    repos += outcome.repos
                    outside += outcome.outside_prs
                    reused += outcome.reused_prs
                    judged += outcome.judged_prs
                    again.extend(outcome.again)
                    if progress:
                        progress(outcome.repos)
                if again:
                    # A PR kept by the export's guess was judged again (its author's standing or the
                    # maintainers changed, or the template index moved and no verdict is kept): its
                    # repository, exported with every row, is judged once more.
                    at_again, shards_again, plan_again = _export(store, space / "again", sorted(again), runner.workers, plan,
                                                                 ends, aside=False)
                    if same and was is not None:
                        export_verdicts(store, at_again, plan_again, was)
                    jobs.append((at_again, shards_again))
                    twice += len(again)
                    again = []
            lap("judge")
            files = {t: sorted(p for at, _ in jobs for p in (Path(at) / "results" / t).glob("*.parquet")) for t in (*PARTIAL_TABLES, KEPT_PRS)}
            kept_prs = files.pop(KEPT_PRS)
            store.write_snapshot(
                when, {"settings": text, "porchlamp_version": __version__, "repos": repos, "basis": basis},
                {"profile_results": _profile_rows(when, profile_rows(scored, settings))}, files,
                carry=(was, carried) if was and carried else None, inputs={r: digests[r] for r in wanted if r in digests},
                kept_prs=(was, kept_prs) if was and kept_prs else None)
            lap("write_snapshot")
            plan.keep(pa.concat_tables([t.fingerprints for t in fresh] or [FINGERPRINT_SCHEMA.empty_table()]),
                      pa.concat_tables([t.comments for t in fresh] or [COMMENT_SCHEMA.empty_table()]))
            lap("keep_sightings")
            peaks = tuple(runner.peak_memory_mb())
    finally:
        runner.close()
    lap("stop_workers")
    return EvaluateSummary(when, repos, statuses, outside, peaks, len(carried), was if carried or reused else None,
                           reused, judged, twice, lap.steps)


def _export(store: Store, space: Path, repos: list[str], workers: int, plan: SightingPlan,
            earlier: EarlierDay | None = None, aside: bool = True) -> tuple[str, list[int], list[list[str]]]:
    """`repos` as Parquet shards under `space`: (the directory, the shard numbers, each shard's
    repositories); none for no repositories. With `earlier`, which PRs' verdicts of that day stand
    is written beside them, and the timeline rows of those likely kept are left out unless not
    `aside` (`SightingPlan.pr_rows`)."""
    from porchlamp.cluster import ROWS_PER_SHARD
    from porchlamp.store.shards import export_shards, plan_shards

    if not repos:
        return str(space), [], []
    shards = plan_shards(store, repos, ROWS_PER_SHARD, min_shards=4 * workers if workers > 1 else 1)
    export_shards(store, space, shards, plan.pr_rows(repos, earlier, aside))
    return str(space), list(range(len(shards))), shards


def _carry_from(store: Store, when: date) -> date | None:
    """The latest snapshot before `when`: the only one whose verdicts a later day may carry (if
    its basis, known once templates are counted, is the day's too)."""
    earlier = [d for d in store.snapshot_dates() if d < when]
    return earlier[-1] if earlier else None


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\x00".join(parts).encode("utf-8"), digest_size=16).hexdigest()


def sightings_key(settings_text: str) -> str:
    """What a repository's template sightings depend on besides its rows: the code and the settings."""
    return _digest(evaluation_code(), settings_text)


def snapshot_basis(settings_text: str, index: TemplateIndex) -> str:
    """What every verdict of a snapshot rests on besides its repository's rows: the code, the
    settings and the snapshot's template index."""
    return _digest(sightings_key(settings_text), index.digest())


@lru_cache(maxsize=1)
def evaluation_code() -> str:
    """A digest of the code and packaged rules that turn rows into verdicts: a carried verdict must
    come from the same ones, whatever the version string says (a development install keeps one)."""
    root = Path(__file__).parent
    h = hashlib.blake2b(digest_size=16)
    files = [*sorted((root / "evaluate").glob("*.py")), *sorted((root / "data").glob("*")),
             *(root / name for name in ("snapshot.py", "cluster.py", "models.py", "config.py"))]
    for path in files:
        h.update(path.name.encode("utf-8") + b"\x00" + path.read_bytes())
    return h.hexdigest()


def _holding(store: Store, was: date | None, when: date, wanted: list[str], digests: Mapping[str, str],
             settings: Settings) -> list[str]:
    """The repositories whose verdict of snapshot `was` is theirs for `when` too if the template
    index is the same: same rows (digest), and no time of theirs crossed by the window's move."""
    if was is None:
        return []
    _, was_end = window(was, settings)
    _, end = window(when, settings)
    keep = set(wanted)
    return sorted(r["repo"] for r in store.query(
        "SELECT repo, inputs, valid_until FROM results WHERE as_of = ? AND inputs IS NOT NULL", [was])
        if r["repo"] in keep and digests.get(r["repo"]) == r["inputs"] and holds(r["valid_until"], was_end, end))


def _stored_scored(store: Store, as_of: date, repos: Iterable[str] | None = None) -> list[Scored]:
    """(repo, status, outside PRs, component scores) of a stored snapshot's repositories (those
    named), as the ranks are reduced from."""
    comps: dict[str, dict[str, float | None]] = {}
    only = "" if repos is None else " AND repo IN (SELECT unnest(?))"
    args: list[Any] = [as_of] if repos is None else [as_of, list(repos)]
    for row in store.query(f"SELECT repo, component, score FROM component_results WHERE as_of = ?{only}", args):
        comps.setdefault(row["repo"], {})[row["component"]] = row["score"]
    rows = store.query(f"SELECT repo, status, outside_prs FROM results WHERE as_of = ?{only}", args)
    return [(r["repo"], r["status"], r["outside_prs"], comps.get(r["repo"], {})) for r in rows
            if r["repo"] in comps or r["status"] == "ranked"]


def _carried_outcome(store: Store, was: date | None, carried: list[str]) -> tuple[dict[str, int], list[Scored], int]:
    """What the reduce needs of the carried repositories: statuses, scored rows, outside PRs."""
    if was is None or not carried:
        return {}, [], 0
    statuses: dict[str, int] = {}
    outside = 0
    for r in store.query("SELECT status, count(*) AS n, sum(outside_prs) AS o FROM results "
                         "WHERE as_of = ? AND repo IN (SELECT unnest(?)) GROUP BY status", [was, carried]):
        statuses[r["status"]] = int(r["n"])
        outside += int(r["o"] or 0)
    return statuses, _stored_scored(store, was, carried), outside


def stored_as_of(store: Store, as_of: date | None) -> date:
    """An evaluated snapshot's date: the one given (it must exist), else the latest."""
    dates = store.snapshot_dates()
    if not dates:
        raise SnapshotError(f"{store.path}: no evaluated snapshot; run `porchlamp evaluate` first")
    if as_of is None:
        return dates[-1]
    if as_of not in dates:
        raise SnapshotError(f"{store.path}: no snapshot for {as_of}; evaluated: {', '.join(str(d) for d in dates)}")
    return as_of


def rerank_store(store: Store, as_of: date | None, settings: Settings) -> int:
    """Re-score and re-rank a stored snapshot under `settings`' profiles from its stored
    components: no PR is judged again and nothing is collected. Returns projects ranked."""
    when = stored_as_of(store, as_of)
    scored = _stored_scored(store, when)
    store.replace_profiles(when, _profile_rows(when, profile_rows(scored, settings)))
    return sum(1 for r in scored if r[1] == "ranked")


def report_from_store(store: Store, as_of: date | None = None, per_project: bool = True) -> dict[str, Any]:
    """The report of SPEC section 11 for a stored snapshot, as data (with its list of every project
    unless not `per_project`)."""
    when = stored_as_of(store, as_of)
    projects = store.query(
        "SELECT repo, status, kind, reason, ecosystem, star_bucket, stars, judged, borderline, outside_prs, answered, "
        "closed_silently, unanswered, review_happens FROM results WHERE as_of = ? ORDER BY repo", [when])
    profiles = store.query("SELECT repo, profile, score, coverage, tier, rank, delta FROM profile_results WHERE as_of = ?", [when])
    outside = store.query(
        "SELECT count(*) AS prs, count(DISTINCT lower(author)) AS authors FROM pr_results "
        "WHERE as_of = ? AND excluded IS NULL", [when])[0]
    hours = store.values("SELECT hours_to_response FROM pr_results WHERE as_of = ? AND excluded IS NULL", [when])
    report = build_report(when, projects, profiles, outside["prs"], outside["authors"], hours, per_project)
    report["collection_failures"] = [{"repo": e["repo"], "step": e["step"], "error": e["error"]} for e in store.collection_errors()]
    return report
