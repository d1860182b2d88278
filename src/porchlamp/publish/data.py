"""An evaluated snapshot read back from the store into what the site and the dataset show.

What the listings read of every project (its verdict's numbers, ranks, good first issues) is held;
the rest (evidence, explanations, components, PRs) is copied to Parquet files sorted by project and
read back one project at a time (`SiteData.detailed`), so a project costs little while publishing.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from porchlamp.columns import pydict
from porchlamp.config import COMPONENTS, Settings
from porchlamp.evaluate.gates import outcome_counts
from porchlamp.evaluate.pulls import EXCLUSION_REASONS
from porchlamp.publish.changes import Change, Changes, changes_from_store
from porchlamp.publish.words import STATUS_LABELS, kind_label, status_words
from porchlamp.snapshot import report_from_store, stored_as_of
from porchlamp.stats import quantile_or_never
from porchlamp.store import Store



_SLUG_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def slug(text: str) -> str:
    """A file or path segment safe on any disk and static host, whatever the text held.

    Letters, digits, `_`, `-` and non-leading dots stay (so real GitHub names are unchanged,
    except a leading dot as in `.github`); every other UTF-8 byte becomes `~xx`. No `/`, no `..`,
    nothing a browser or server would decode differently. app.js holds the same function."""
    raw = text.encode("utf-8")
    out = "".join(chr(b) if b in _SLUG_KEEP or (b == 0x2E and i > 0) else f"~{b:02x}" for i, b in enumerate(raw))
    return out or "_"


class ProjectFiles(NamedTuple):
    """A project's own files, relative to the site root."""
    page: str
    record: str
    shields: str
    badge: str


@lru_cache(maxsize=1 << 16)  # asked of every project many times a publish (pages, links, kept files)
def project_files(repo: str) -> ProjectFiles:
    """Where a project's page, record, Shields endpoint and badge go. Names come from GitHub and are
    untrusted: each part is a slug, never a path of its own (think `..`)."""
    owner, name = (slug(x) for x in repo.split("/", 1))
    return ProjectFiles(f"projects/{owner}/{name}.html", f"data/v1/projects/{owner}/{name}.json",
                        f"data/v1/shields/{owner}/{name}.json", f"badges/{owner}/{name}.svg")


def safe_url(url: str | None) -> str | None:
    """The URL if it is http(s) with a host, else None: links go nowhere else."""
    if not url or not isinstance(url, str):
        return None
    try:
        parts = urlparse(url.strip())
    except ValueError:
        return None
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None


class Row(Mapping[str, Any]):
    """A stored row as a read-only mapping over a tuple, its column names shared by every row of its
    query: publishing holds one per project and one per project and goal, and as dicts they were
    most of what it held (2.8 of 4.8 KB a project at 11,000)."""

    __slots__ = ("_names", "_values")

    def __init__(self, names: Mapping[str, int], values: Sequence[Any]) -> None:
        self._names, self._values = names, values

    def __getitem__(self, key: str) -> Any:
        return self._values[self._names[key]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Row({dict(self)!r})"


def _rows(store: Store, sql: str, params: Sequence[Any], strings: dict[str, str]) -> list[Row]:
    """A query's rows as `Row`s sharing one map of names, each text one object with its equals in
    `strings` (a status, an ecosystem, a tier, the project's name in each of its goals' rows)."""
    cur = store.conn.execute(sql, list(params))
    names = {d[0]: i for i, d in enumerate(cur.description)}
    return [Row(names, tuple(strings.setdefault(v, v) if type(v) is str else v for v in values)) for values in cur.fetchall()]


@dataclass
class Project:
    repo: str
    row: Mapping[str, Any]
    profiles: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    prs: list[dict[str, Any]] = field(default_factory=list)
    homepage: str | None = None
    topics: tuple[str, ...] = ()
    change: Change | None = None
    issues: list[dict[str, Any]] = field(default_factory=list)  # good first issues, as the accessibility component found them

    @property
    def status(self) -> str:
        return str(self.row["status"])

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repo.split("/", 1)[1]

    def outside(self) -> list[dict[str, Any]]:
        return [p for p in self.prs if p["excluded"] is None]

    @property
    def words(self) -> str:
        """Status and kind in plain words."""
        return status_words(self.status, self.row["kind"])

    @property
    def kind_words(self) -> str:
        return kind_label(self.status, self.row["kind"])

    def counts(self, days: int = 14) -> str:
        """"61 of 68 answered within 14 days; 3 closed without an answer; 4 with no response"."""
        r = self.row
        return outcome_counts(r["answered"], r["closed_silently"], r["unanswered"], days) if r["outside_prs"] else "no outside PRs"

    @property
    def answered_of(self) -> str:
        """"61 of 68": answered within 14 days, of all judged outside PRs."""
        return f"{self.row['answered']} of {self.row['outside_prs']}" if self.row["outside_prs"] else "–"

    @property
    def flags(self) -> list[str]:
        """What a reader should know before trusting the score: borderline, or few PRs behind it."""
        out = []
        if self.row["borderline"]:
            out.append("borderline")
        if self.status == "ranked" and not self.row["judged"]:  # too few outside PRs for the black-hole verdict
            out.append("few PRs")
        return out

    def excluded_counts(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = defaultdict(int)
        for p in self.prs:
            if p["excluded"]:
                counts[p["excluded"]] += 1
        return [(EXCLUSION_REASONS.get(k, k), n) for k, n in sorted(counts.items(), key=lambda x: -x[1])]

    def response_times(self) -> dict[str, dict[str, Any]]:
        """Median time to first response for first-timers and for everyone else, over all their
        outside PRs as everywhere else (one not answered in time counts as never: SPEC section 7)."""
        out = {}
        for label, group in (("first-timers", [p for p in self.outside() if p["first_timer"]]),
                             ("others", [p for p in self.outside() if not p["first_timer"]])):
            answered = sum(1 for p in group if p["outcome"] == "answered")
            median = quantile_or_never([p["hours_to_response"] if p["outcome"] == "answered" else None for p in group], 0.5)
            out[label] = {"prs": len(group), "answered": answered, "median_hours": median}
        return out

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = json.loads(self.row["evidence"] or "{}")
        return ev

    def good_first_issues(self) -> list[dict[str, Any]]:
        return self.issues


PR_COLUMNS = ("number", "title", "author", "author_association", "created_at", "clock_start", "excluded", "outcome",
              "response_kind", "response_actor", "response_at", "hours_to_response", "first_timer", "merged")
# What the whole-snapshot pages and files read of a project's result row. The rest (its evidence
# above all: 4 KB a project) is read with the project's own files (`SiteData.detailed`).
LIST_COLUMNS = ("repo", "status", "kind", "reason", "ecosystem", "language", "stars", "judged", "borderline", "review_happens",
                "outside_prs", "answered", "closed_silently", "unanswered", "median_hours", "p90_hours")
# Columns that say how a verdict was reached, not what it is: no page or record shows them.
BOOKKEEPING = frozenset({"as_of", "valid_until", "inputs"})
# The detail files, each sorted by project: rows per Parquet row group and per batch read back, so
# that what is read at once stays a few megabytes whatever the snapshot's size.
DETAIL_ROWS = 4096


@dataclass
class SiteData:
    as_of: date
    settings: Settings
    report: dict[str, Any]
    projects: list[Project]  # in name order, as the detail files are; only what listings read
    changes: Changes | None = None
    files: Path | None = None  # the detail files: results, profiles, components and prs .parquet
    digests: dict[str, str] = field(default_factory=dict)  # each project's stored rows (all four tables), as one digest, but for
    places: dict[str, str] = field(default_factory=dict)  # its goals' ranks, moves and explanations, as one digest

    @property
    def prs_file(self) -> Path | None:
        """The snapshot's PRs: repo plus PR_COLUMNS, by repo then newest first."""
        return None if self.files is None else self.files / "prs.parquet"

    def detailed(self, only: Collection[str] | None = None) -> Iterator[Project]:
        """Every project in name order (or those in `only`) whole: its full result row, goals with
        their explanations, components and PRs. Each is dropped once the caller moves on: at most
        one project and one batch of each detail file in memory."""
        wanted = None if only is None else set(only)
        if self.files is None:
            return
        keep = None if wanted is None else pa.array(sorted(wanted), pa.string())  # one lookup set for the four files
        results, goals, parts, prs = (_ByRepo(self.files / f"{name}.parquet", keep)
                                      for name in ("results", "profiles", "components", "prs"))
        for p in self.projects:
            if wanted is not None and p.repo not in wanted:
                continue
            row = results.take(p.repo)
            yield Project(p.repo, row[0] if row else p.row, _explained(p, goals.take(p.repo)),
                          _ordered({c.pop("component"): {"score": c["score"], "inputs": json.loads(c["inputs"] or "{}"),
                                                         "reason": c["reason"]} for c in parts.take(p.repo)}, COMPONENTS),
                          prs.take(p.repo), p.homepage, p.topics, p.change, p.issues)

    def placed(self, only: Collection[str]) -> Iterator[Project]:
        """The projects in `only`, in name order, with their goals' explanations: all a page's place
        (`publish.place`) reads that listings do not, without their PRs."""
        if self.files is None:
            return
        wanted = set(only)
        keep = pa.array(sorted(wanted), pa.string())
        goals = _ByRepo(self.files / "profiles.parquet", keep)
        for p in self.projects:
            if p.repo in wanted:
                yield replace(p, profiles=_explained(p, goals.take(p.repo)))

    def by_repo(self) -> dict[str, Project]:
        return {p.repo: p for p in self.projects}

    def ranked(self, profile: str) -> list[Project]:
        ranked = [p for p in self.projects if p.status == "ranked" and p.profiles.get(profile, {}).get("rank")]
        return sorted(ranked, key=lambda p: p.profiles[profile]["rank"])


def _explained(p: Project, goals: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A project's goals, each with its explanation from its rows of the profiles detail file."""
    explain = {g["profile"]: json.loads(g["explain"] or "[]") for g in goals}
    return {name: {**goal, "explain": explain.get(name, [])} for name, goal in p.profiles.items()}


class _ByRepo:
    """A detail file's rows (sorted by repo) handed out one project at a time, in the same order."""

    def __init__(self, path: Path, keep: pa.Array | None) -> None:
        self._rows = _parquet_rows(path, keep)
        self._head = next(self._rows, None)

    def take(self, repo: str) -> list[dict[str, Any]]:
        while self._head is not None and self._head[0] < repo:  # a row of a project not asked for
            self._head = next(self._rows, None)
        out = []
        while self._head is not None and self._head[0] == repo:
            out.append(self._head[1])
            self._head = next(self._rows, None)
        return out


def _parquet_rows(path: Path, keep: pa.Array | None) -> Iterator[tuple[str, dict[str, Any]]]:
    # Without pre-buffering: Arrow would otherwise keep every row group it has read until the file
    # is done (a file's whole compressed size: 0.4 GB at 100,000 repositories), not one at a time.
    f = pq.ParquetFile(path, pre_buffer=False)
    groups = list(range(f.metadata.num_row_groups))
    if keep is not None:
        if not len(keep):
            return
        # The file is sorted by repo: a row group whose names all fall outside the wanted ones' range is
        # never read, so a part of the projects costs a part of the file.
        lo, hi = keep[0].as_py(), keep[-1].as_py()
        col = next(i for i in range(f.metadata.num_columns) if f.metadata.schema.column(i).path == "repo")
        groups = [g for g in groups if _may_hold(f.metadata.row_group(g).column(col).statistics, lo, hi)]
    for batch in f.iter_batches(batch_size=DETAIL_ROWS, row_groups=groups):
        if keep is not None:
            batch = batch.filter(pc.is_in(batch.column("repo"), value_set=keep))
        cols = pydict(batch)  # column by column: faster than per row
        repos, names = cols["repo"], list(cols)
        for repo, values in zip(repos, zip(*cols.values())):
            yield repo, dict(zip(names, values))


def _may_hold(stats: Any, lo: str, hi: str) -> bool:
    if stats is None or not stats.has_min_max:
        return True
    return not (stats.max < lo or stats.min > hi)


def _ordered(items: dict[str, Any], order: Collection[str]) -> dict[str, Any]:
    """`items` in the given order of names, the others after it by name: a record of a project that
    did not change must come out the same bytes, whatever order the rows came in."""
    rank = {name: i for i, name in enumerate(order)}
    return dict(sorted(items.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def load_site_data(store: Store, as_of: date | None = None) -> SiteData:
    """The snapshot of `as_of` (default the latest) as the site shows it. DuckDB works in a small
    budget throughout: what is held is what listings read of each project; the rest goes to files."""
    with store.small_budget():
        return _load_site_data(store, as_of)


def _load_site_data(store: Store, as_of: date | None) -> SiteData:
    when = stored_as_of(store, as_of)
    meta = store.snapshot_meta(when) or {}
    settings = Settings.model_validate_json(meta["settings"]) if meta.get("settings") else Settings()
    strings: dict[str, str] = {}
    rows = _rows(store, f"SELECT {', '.join(LIST_COLUMNS)} FROM results WHERE as_of = ? ORDER BY repo", [when], strings)
    projects = {r["repo"]: Project(r["repo"], r) for r in rows}
    for r in _rows(store, "SELECT repo, profile, score, coverage, tier, rank, delta FROM profile_results WHERE as_of = ?", [when],
                   strings):
        projects[r["repo"]].profiles[r["profile"]] = r
    for p in projects.values():
        p.profiles = _ordered(p.profiles, settings.profiles)
    for r in store.query("SELECT repo, json_extract(inputs, '$.good_first_issues')::VARCHAR AS issues FROM component_results "
                         "WHERE as_of = ? AND component = 'accessibility'", [when]):
        projects[r["repo"]].issues = json.loads(r["issues"]) if r["issues"] else []
    for r in store.query("SELECT name_with_owner AS repo, homepage_url, topics FROM repositories"):
        if r["repo"] in projects:
            projects[r["repo"]].homepage = safe_url(r["homepage_url"])
            projects[r["repo"]].topics = tuple(r["topics"] or ())
    changes = changes_from_store(store, when)
    for c in changes.items:
        if c.repo in projects:
            projects[c.repo].change = c
    own, places = _row_digests(store, when)
    # The report's list of every project is written from the rows held here (`api.write_report`).
    return SiteData(when, settings, report_from_store(store, when, per_project=False), list(projects.values()), changes,
                    _export_details(store, when),
                    own, places)


def _row_digests(store: Store, when: date) -> tuple[dict[str, str], dict[str, str]]:
    """Each project's stored rows in the four result tables, bookkeeping aside, as row hashes summed
    per table (order is moot: pages sort their rows); its goals' ranks, moves and explanations apart
    (its place: `SiteData.places`), which move when other projects' scores do."""
    shown = [c for c in store.columns("results") if c not in BOOKKEEPING]

    def per_repo(table: str, cols: str) -> str:
        return (f"(SELECT repo, count(*)::VARCHAR || ':' || sum(hash({cols})::HUGEINT)::VARCHAR AS d FROM {table} "
                "WHERE as_of = $1 GROUP BY repo)")
    own, places = {}, {}
    for repo, digest, place in store.conn.execute(
            f"SELECT r.repo, hash({', '.join(f'r.{c}' for c in shown)})::VARCHAR || '/' || coalesce(g.d, '') || '/' || "
            f"coalesce(c.d, '') || '/' || coalesce(x.d, ''), coalesce(k.d, '') FROM results r "
            f"LEFT JOIN {per_repo('profile_results', 'profile, score, coverage, tier')} g USING (repo) "
            f"LEFT JOIN {per_repo('profile_results', 'profile, rank, delta, explain')} k USING (repo) "
            f"LEFT JOIN {per_repo('component_results', 'component, score, inputs, reason')} c USING (repo) "
            f"LEFT JOIN {per_repo('pr_results', ', '.join(PR_COLUMNS))} x USING (repo) WHERE r.as_of = $1", [when]).fetchall():
        own[repo], places[repo] = digest, place
    return own, places


def _export_details(store: Store, when: date) -> Path:
    """The snapshot's detail files in a temporary directory, removed when the process exits."""
    folder = Path(tempfile.mkdtemp(prefix="porchlamp-site-"))
    atexit.register(shutil.rmtree, folder, True)
    number = ", ".join("CAST(number AS BIGINT) AS number" if c == "number" else c for c in PR_COLUMNS)
    for name, sql in (
            ("results", "SELECT * FROM results WHERE as_of = ? ORDER BY repo"),
            ("profiles", "SELECT repo, profile, explain FROM profile_results WHERE as_of = ? ORDER BY repo"),
            ("components", "SELECT repo, component, score, inputs, reason FROM component_results WHERE as_of = ? ORDER BY repo"),
            ("prs", f"SELECT repo, {number} FROM pr_results WHERE as_of = ? ORDER BY repo, number DESC")):
        store.export_query(sql, [when], folder / f"{name}.parquet", row_group_rows=DETAIL_ROWS)
    return folder


def start_issues(site: SiteData, ecosystem: str | None = None) -> list[dict[str, Any]]:
    """Good first issues that are really open (unassigned, opened recently) in projects that answer
    outside PRs (ranked ones: never a black hole, an undecided or an unrated project), by the
    project's default rank, a few per project."""
    cfg = site.settings.site
    since = site.as_of.toordinal() - cfg.start_max_age_days
    out: list[dict[str, Any]] = []
    for p in site.ranked("default"):
        if ecosystem is not None and p.row["ecosystem"] != ecosystem:
            continue
        fresh = [i for i in p.good_first_issues() if i.get("created") and date.fromisoformat(i["created"]).toordinal() >= since]
        for i in fresh[:cfg.start_per_project]:
            out.append({"project": p, "number": i["number"], "title": i["title"], "created": i["created"]})
            if len(out) >= cfg.start_max_rows:
                return out
    return out
