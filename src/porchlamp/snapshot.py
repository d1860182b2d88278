"""Joins evaluation to the store: reads rows, evaluates a snapshot, writes its results back,
re-ranks a stored snapshot under new profiles, and builds the report from stored results.

The only module that knows both the store and evaluation; evaluation itself stays pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from porchlamp import __version__
from porchlamp.columns import Columns
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.cluster import Judged
from porchlamp.evaluate import mirrors, relations
from porchlamp.evaluate.engine import window
from porchlamp.evaluate.ranking import Scored, profile_rows
from porchlamp.evaluate.report import build_report
from porchlamp.evaluate.rows import profile_columns
from porchlamp.evaluate.rules import Rules, load_rules
from porchlamp.forks import cores
from porchlamp.laps import Laps
from porchlamp.store import Store
from porchlamp.store.marks import ensure_marks


# DuckDB's memory while a snapshot is judged: at its default (80% of the machine) the relations held
# 3.9 GB at 11,000 repositories; in this budget 2.0 GB, 1.05 of the time (1 GB: 1.5 GB, 1.35 of it).
# It is enough at 100,000 repositories too (217 s, peak 2.7 GB); 6 GB was faster there (172 s, `evaluate --memory`).
EVALUATE_BUDGET = "1500MB"
_BUDGET = re.compile(r"\d+(?:\.\d+)?\s*(?:[KMGT]i?B)", re.IGNORECASE)


class SnapshotError(PorchlampError):
    """A snapshot that cannot be evaluated or read as asked; the message says what to do."""


@dataclass(frozen=True)
class EvaluateSummary:
    as_of: date
    repos: int
    statuses: dict[str, int]
    outside_prs: int
    worker_peak_mb: tuple[float, ...] = ()  # each worker process's peak memory (none when run in this process)
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


def memory_budget(text: str) -> str:
    """A DuckDB memory budget as given (`1500MB`, `6GB`, `8 GiB`), or an error saying how to write one."""
    if not _BUDGET.fullmatch(text.strip()):
        raise SnapshotError(f"--memory {text!r} is not an amount of memory: write a number and a unit, such as 1500MB or 6GB")
    return text.strip()


def evaluate_store(store: Store, as_of: date | None, settings: Settings, progress: Callable[[int], None] | None = None,
                   workers: int = 1, cluster: str | None = None, shard_dir: Path | None = None,
                   memory: str = EVALUATE_BUDGET) -> EvaluateSummary:
    """Evaluate every repository in the store for `as_of` and store the snapshot (replacing it).

    Every snapshot is evaluated whole, the daily one too: each PR is judged by the SQL relations of
    `evaluate.relations` (text was marked once, when stored), then each repository goes through the
    gates and components over what those relations counted (`cluster.judge_repos`). With `workers`
    1 and no `cluster`, over the store itself; else the template index is found in the store, the
    snapshot is exported as Parquet by repository shard, and the same step runs per shard on a
    local cluster of `workers` processes or on the Dask scheduler at `cluster` (whose workers must
    read `shard_dir`). Every way gives the same rows. `progress(n)` hears of repositories evaluated.
    DuckDB works in `memory` throughout, spilling to disk beyond it; where a step cannot spill and
    the budget is too small, nothing is written and the error says to give it more."""
    budget = memory_budget(memory)
    lap = Laps()
    when = resolve_as_of(store, as_of)
    # A repository whose collection failed at some step holds part of its data: it is not judged on
    # that, and the report names it.
    failed = sorted({e["repo"] for e in store.collection_errors()})
    wanted = [r for r in store.repo_names() if r not in set(failed)]
    rules = load_rules(settings)
    ensure_marks(store, rules)
    lap("marks")
    meta = {"settings": settings.model_dump_json(), "porchlamp_version": __version__, "repos": len(wanted)}
    try:
        with store.small_budget(budget):
            return _judge(store, when, settings, rules, wanted, failed, meta, lap, progress, workers, cluster, shard_dir)
    except duckdb.OutOfMemoryException as err:
        done = ", ".join(lap.steps) or "none"
        raise SnapshotError(
            f"evaluating {len(wanted):,} repositories for {when} needed more than DuckDB's {budget} memory budget (steps "
            f"done: {done}); nothing was written and the collected data is untouched. Run it again with more, such as "
            "--memory 6GB (6GB judged 100,000 repositories on a machine of 24 GiB)") from err


def _judge(store: Store, when: date, settings: Settings, rules: Rules, wanted: list[str], failed: list[str], meta: dict[str, Any],
           lap: Laps, progress: Callable[[int], None] | None, workers: int, cluster: str | None,
           shard_dir: Path | None) -> EvaluateSummary:
    from porchlamp.cluster import PARTIAL_TABLES, ROWS_PER_SHARD, judge_repos, judge_shard, runner_for, shard_space
    from porchlamp.store.shards import export_shards, plan_shards

    conn = store.conn
    if workers <= 1 and cluster is None:
        judged, res, comps = judge_repos(conn, wanted, settings, rules, when, progress=progress, processes=cores())
        lap("judge")
        conn.register("_failed", pa.table({"repo": pa.array(failed, pa.string())}))
        try:
            conn.execute("CREATE OR REPLACE TEMP VIEW j_pr_rows AS SELECT * FROM j_prs WHERE repo NOT IN (SELECT repo FROM _failed)")
            with _ranking(when, judged.scored, settings) as ranked:
                store.write_snapshot(when, meta, {"results": res, "component_results": comps, "profile_results": ranked,
                                                  "mirror_links": lambda: _mirror_links(store, when)}, prs="j_pr_rows")
        finally:
            conn.unregister("_failed")
        lap("write_snapshot")
        return EvaluateSummary(when, judged.repos, judged.statuses, judged.outside_prs, steps=lap.steps)
    start, end = window(when, settings)
    index = relations.template_index(conn, start, end, settings, rules)
    lap("template_index")
    runner = runner_for(workers, cluster)
    lap("start_workers")
    try:
        with shard_space(Path(store.path).parent, shard_dir) as space:
            shards = plan_shards(store, wanted, ROWS_PER_SHARD, min_shards=2 * runner.workers)
            export_shards(store, space, shards)
            lap("export")
            judged = Judged()
            for part in runner.map(judge_shard, str(space), list(range(len(shards))), settings.model_dump_json(), when,
                                   runner.share(index)):
                judged.add(part)
                if progress:
                    progress(part.repos)
            lap("judge")
            files = {t: sorted((space / "results" / t).glob("*.parquet")) for t in PARTIAL_TABLES}
            with _ranking(when, judged.scored, settings) as ranked:
                store.write_snapshot(when, meta, {"profile_results": ranked, "mirror_links": lambda: _mirror_links(store, when)},
                                     files)
            lap("write_snapshot")
            peaks = tuple(runner.peak_memory_mb())
    finally:
        runner.close()
    lap("stop_workers")
    return EvaluateSummary(when, judged.repos, judged.statuses, judged.outside_prs, peaks, lap.steps)


def _mirror_links(store: Store, when: date) -> Columns:
    """`mirror_links`' columns for snapshot `when`, from its results as stored a moment before in the
    same transaction: each repository that mirrors, or sends its PRs to, a project of the snapshot."""
    # On the store's own connection: another cursor would not see the transaction's rows.
    index = mirrors.names_index(r["repo"] for r in store.query("SELECT repo FROM results WHERE as_of = ?", [when]))
    rows = store.query("SELECT repo, status, kind, review_happens, description FROM results WHERE as_of = ? "
                       f"AND status IN ({', '.join('?' for _ in mirrors.LINKED_FROM)})", [when, *mirrors.LINKED_FROM])
    links = mirrors.follow(rows, index)
    return {"as_of": [when] * len(links), "repo": [x.repo for x in links], "home": [x.home for x in links],
            "how": [x.how for x in links]}


@contextmanager
def _ranking(when: date, scored: list[Scored], settings: Settings) -> Iterator[Callable[[], Columns]]:
    """The ranks and their explanations (`profile_results`' columns), made in a thread while DuckDB
    stores the PR verdicts (it lets go of the GIL while it works, and the ranks are Python on one
    core): a function that waits for them, for `Store.write_snapshot`."""
    with ThreadPoolExecutor(1, thread_name_prefix="ranks") as pool:
        ranks = pool.submit(lambda: profile_columns(when, profile_rows(scored, settings)))
        yield ranks.result


def _stored_scored(store: Store, as_of: date) -> list[Scored]:
    """(repo, status, outside PRs, component scores) of a stored snapshot's repositories, as the
    ranks are reduced from."""
    comps: dict[str, dict[str, float | None]] = {}
    for row in store.query("SELECT repo, component, score FROM component_results WHERE as_of = ?", [as_of]):
        comps.setdefault(row["repo"], {})[row["component"]] = row["score"]
    rows = store.query("SELECT repo, status, outside_prs FROM results WHERE as_of = ?", [as_of])
    return [(r["repo"], r["status"], r["outside_prs"], comps.get(r["repo"], {})) for r in rows
            if r["repo"] in comps or r["status"] == "ranked"]


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
    store.replace_profiles(when, profile_columns(when, profile_rows(scored, settings)))
    return sum(1 for r in scored if r[1] == "ranked")


JUDGED_STATUSES = "('ranked', 'unrated', 'black_hole')"  # the verdicts a project's PRs were judged for


def report_from_store(store: Store, as_of: date | None = None, per_project: bool = True) -> dict[str, Any]:
    """The report of SPEC section 11 for a stored snapshot, as data (with its list of every project
    unless not `per_project`)."""
    when = stored_as_of(store, as_of)
    projects = store.query(
        "SELECT repo, status, kind, reason, ecosystem, star_bucket, stars, judged, borderline, outside_prs, answered, "
        "closed_silently, unanswered, review_happens, review_at, forge FROM results WHERE as_of = ? ORDER BY repo", [when])
    profiles = store.query("SELECT repo, profile, score, coverage, tier, rank, delta FROM profile_results WHERE as_of = ?", [when])
    outside = store.query(
        "SELECT count(*) AS prs, count(DISTINCT lower(author)) AS authors FROM pr_results "
        "WHERE as_of = ? AND excluded IS NULL", [when])[0]
    # Judged PRs only: those of projects that reached the black-hole check. An undecided project's
    # PRs are followed and listed, not judged, so they stay out of the times the report shows.
    hours = store.values("SELECT p.hours_to_response FROM pr_results p JOIN results r ON r.as_of = p.as_of AND r.repo = p.repo "
                         f"WHERE p.as_of = ? AND p.excluded IS NULL AND r.status IN {JUDGED_STATUSES}", [when])
    report = build_report(when, projects, profiles, outside["prs"], outside["authors"], hours, per_project)
    report["collection_failures"] = [{"repo": e["repo"], "step": e["step"], "error": e["error"]} for e in store.collection_errors()]
    return report
