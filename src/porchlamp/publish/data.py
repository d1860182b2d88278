"""An evaluated snapshot read back from the store into what the site and the dataset show.

What the listings read of every project (its verdict's numbers, ranks, good first issues) goes to
a listing file read memory-mapped (`listing`); the rest (evidence, explanations, components, PRs)
to Parquet files sorted by project, read back one project at a time (`SiteData.detailed`): what
publishing holds of the snapshot does not grow with it.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, replace
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from porchlamp.columns import pydict
from porchlamp.config import COMPONENTS, Settings
from porchlamp.evaluate.relations import QUOTE_CHARS
from porchlamp.publish.changes import Changes, changes_from_store
from porchlamp.publish.listing import LIST_COLUMNS, ROW_COLUMNS, Listing, View, export_listing
from porchlamp.publish.project import Project, Row, safe_url
from porchlamp.snapshot import report_from_store, stored_as_of
from porchlamp.store import Store

__all__ = ["LIST_COLUMNS", "ROW_COLUMNS", "PR_COLUMNS", "Project", "ProjectFiles", "Row", "SiteData", "load_site_data", "project_files",
           "safe_url", "slug", "start_issues"]


_SLUG_KEPT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
_SLUG_KEEP = frozenset(_SLUG_KEPT.encode())
# A name every byte of which stays: its own slug, found by one match (0.35 µs) rather than a byte at a
# time (2.2 µs), for the hundred thousand names a publish makes paths and links of.
_PLAIN = re.compile(f"[{re.escape(_SLUG_KEPT)}][{re.escape(_SLUG_KEPT + '.')}]*")


def slug(text: str) -> str:
    """A file or path segment safe on any disk and static host, whatever the text held.

    Letters, digits, `_`, `-` and non-leading dots stay (so real GitHub names are unchanged,
    except a leading dot as in `.github`); every other UTF-8 byte becomes `~xx`. No `/`, no `..`,
    nothing a browser or server would decode differently. app.js holds the same function."""
    if _PLAIN.fullmatch(text):
        return text
    raw = text.encode("utf-8")
    out = "".join(chr(b) if b in _SLUG_KEEP or (b == 0x2E and i > 0) else f"~{b:02x}" for i, b in enumerate(raw))
    return out or "_"


class ProjectFiles(NamedTuple):
    """A project's own files, relative to the site root."""
    page: str
    record: str
    shields: str
    badge: str


@lru_cache(maxsize=1 << 13)  # asked of every project many times a publish (pages, links, kept files)
def project_files(repo: str) -> ProjectFiles:
    """Where a project's page, record, Shields endpoint and badge go. Names come from GitHub and are
    untrusted: each part is a slug, never a path of its own (think `..`)."""
    owner, name = (slug(x) for x in repo.split("/", 1))
    return ProjectFiles(f"projects/{owner}/{name}.html", f"data/v1/projects/{owner}/{name}.json",
                        f"data/v1/shields/{owner}/{name}.json", f"badges/{owner}/{name}.svg")


# The folders that hold projects' files, a folder per owner in each (nothing else is written there).
PROJECT_TREES = tuple(rel.rsplit("/", 2)[0] for rel in project_files("owner/name"))

PR_COLUMNS = ("number", "title", "author", "author_association", "created_at", "clock_start", "excluded", "outcome",
              "response_kind", "response_actor", "response_at", "hours_to_response", "first_timer", "merged", "bot_reason")
# Columns that say how a verdict was reached, not what it is: no page or record shows them.
BOOKKEEPING = frozenset({"as_of"})
# The detail files, each sorted by project: rows per Parquet row group and per batch read back, so
# that what is read at once stays a few megabytes whatever the snapshot's size.
DETAIL_ROWS = 4096


@dataclass
class SiteData:
    as_of: date
    settings: Settings
    report: dict[str, Any]
    # In name order, as the detail files are; only what listings read. The whole snapshot's is a
    # `Listing` (made a batch at a time from a file); a part handed to a writing process, a list.
    projects: Listing | list[Project]
    changes: Changes | None = None
    files: Path | None = None  # the detail files: results, profiles, components, prs and excluded .parquet

    @property
    def history_file(self) -> Path | None:
        """Each project's figures in the stored snapshots of the last HISTORY_DAYS, by repo then date."""
        return None if self.files is None else self.files / "history.parquet"

    @property
    def prs_file(self) -> Path | None:
        """The snapshot's PRs: repo plus PR_COLUMNS, by repo then newest first."""
        return None if self.files is None else self.files / "prs.parquet"

    @property
    def listing(self) -> Listing:
        """The whole snapshot's projects, for the listings that sort them their own way."""
        if not isinstance(self.projects, Listing):
            raise TypeError("only a whole snapshot's projects are listed; this holds a part of them")
        return self.projects

    def detailed(self, only: Collection[str] | None = None) -> Iterator[Project]:
        """Every project in name order (or those in `only`) whole: its full
        result row, goals with their explanations, components, outside PRs and its other PRs counted
        by why they are left out. Each is dropped once the
        caller moves on: at most one project and one batch of each detail file in memory."""
        wanted = None if only is None else set(only)
        if self.files is None:
            return
        keep = None if wanted is None else pa.array(sorted(wanted), pa.string())  # one lookup set for the detail files
        results, goals, parts, excluded, bots = (_ByRepo(self.files / f"{name}.parquet", keep)
                                                 for name in ("results", "profiles", "components", "excluded", "bots"))
        # Of a project's PRs only the outside ones are shown row by row (about a third of them); the
        # others are counted (`excluded`), so their rows never become values here.
        outside = _ByRepo(self.files / "prs.parquet", keep, lambda batch: pc.is_null(batch.column("excluded")))
        for p in self.projects:
            if wanted is not None and p.repo not in wanted:
                continue
            row = results.take(p.repo)
            yield replace(p, row=row[0] if row else p.row, profiles=_explained(p, goals.take(p.repo)),
                          components=_ordered({c.pop("component"): {"score": c["score"], "inputs": json.loads(c["inputs"] or "{}"),
                                                                    "reason": c["reason"]} for c in parts.take(p.repo)}, COMPONENTS),
                          outside_prs=outside.take(p.repo), excluded=_most_first(excluded.take(p.repo)),
                          bot_authors=[{k: v for k, v in b.items() if k != "repo"} for b in bots.take(p.repo)])

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

    def ranked(self, profile: str) -> View:
        return self.listing.ranked(profile)


def _explained(p: Project, goals: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A project's goals, each with its explanation from its rows of the profiles detail file."""
    explain = {g["profile"]: json.loads(g["explain"] or "[]") for g in goals}
    return {name: {**goal, "explain": explain.get(name, [])} for name, goal in p.profiles.items()}


def _most_first(rows: list[dict[str, Any]]) -> dict[str, int]:
    """A project's PRs left out of its count, by reason: the most common first, and of as common
    ones, the one with the newest PR first (as counting its rows newest first would order them)."""
    return {r["excluded"]: r["n"] for r in sorted(rows, key=lambda r: (-r["n"], -r["newest"]))}


class _ByRepo:
    """A detail file's rows (sorted by repo) handed out one project at a time, in the same order;
    with `where`, only the rows of each batch it picks (an Arrow mask)."""

    def __init__(self, path: Path, keep: pa.Array | None, where: Callable[[pa.RecordBatch], Any] | None = None) -> None:
        self._rows = _parquet_rows(path, keep, where)
        self._head = next(self._rows, None)

    def take(self, repo: str) -> list[dict[str, Any]]:
        while self._head is not None and self._head[0] < repo:  # a row of a project not asked for
            self._head = next(self._rows, None)
        out = []
        while self._head is not None and self._head[0] == repo:
            out.append(self._head[1])
            self._head = next(self._rows, None)
        return out


def _parquet_rows(path: Path, keep: pa.Array | None, where: Callable[[pa.RecordBatch], Any] | None = None
                  ) -> Iterator[tuple[str, dict[str, Any]]]:
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
        if where is not None:
            batch = batch.filter(where(batch))
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


def load_site_data(store: Store, as_of: date | None = None, beside: Path | None = None) -> SiteData:
    """The snapshot of `as_of` (default the latest) as the site shows it. DuckDB works in a small
    budget throughout: what is held is what listings read of each project; the rest goes to files,
    in a temporary folder made in `beside` (default: the system's), removed when this process exits:
    for a publish on a cluster, a folder its workers read."""
    with store.small_budget():
        return _load_site_data(store, as_of, beside)


def _load_site_data(store: Store, as_of: date | None, beside: Path | None) -> SiteData:
    when = stored_as_of(store, as_of)
    meta = store.snapshot_meta(when) or {}
    settings = Settings.model_validate_json(meta["settings"]) if meta.get("settings") else Settings()
    changes = changes_from_store(store, when)
    stored = [r["profile"] for r in store.query("SELECT DISTINCT profile FROM profile_results WHERE as_of = ?", [when])]
    profiles = list(_ordered(dict.fromkeys(stored), settings.profiles))
    folder = _export_details(store, when, beside)
    export_listing(store, when, profiles, _digests_sql(store), folder / "listing.arrow")
    # The report's list of every project is written from the listing (`api.write_report`).
    return SiteData(when, settings, report_from_store(store, when, per_project=False),
                    Listing(folder / "listing.arrow", profiles, changes.for_repo()), changes, folder)


def _digests_sql(store: Store) -> str:
    """A query over the snapshot `$1` of each project's stored rows in the four result tables,
    bookkeeping aside, as row hashes summed per table (order is moot: pages sort their rows), as
    `own`; its goals' ranks, moves and explanations apart as `place` (`Project.place`), which move
    when other projects' scores do."""
    shown = [c for c in store.columns("results") if c not in BOOKKEEPING]

    def per_repo(table: str, cols: str) -> str:
        return (f"(SELECT repo, count(*)::VARCHAR || ':' || sum(hash({cols})::HUGEINT)::VARCHAR AS d FROM {table} "
                "WHERE as_of = $1 GROUP BY repo)")
    return (f"(SELECT r.repo, hash({', '.join(f'r.{c}' for c in shown)})::VARCHAR || '/' || coalesce(g.d, '') || '/' || "
            f"coalesce(c.d, '') || '/' || coalesce(x.d, '') AS own, coalesce(k.d, '') AS place FROM results r "
            f"LEFT JOIN {per_repo('profile_results', 'profile, score, coverage, tier')} g USING (repo) "
            f"LEFT JOIN {per_repo('profile_results', 'profile, rank, delta, explain')} k USING (repo) "
            f"LEFT JOIN {per_repo('component_results', 'component, score, inputs, reason')} c USING (repo) "
            f"LEFT JOIN {per_repo('pr_results', ', '.join(PR_COLUMNS))} x USING (repo) WHERE r.as_of = $1)")


HISTORY_DAYS = 90  # how far back a project's history chart reaches
# SPEC section 3: each account whose PRs were set aside as a bot's, with how many, why (as its newest
# PR's verdict says) and that PR's description quoted on one line (its title when it has none).
BOT_AUTHORS_SQL = (
    "SELECT v.repo, v.author AS login, count(*) AS prs, arg_max(v.bot_reason, v.number) AS reason, "
    "max(CAST(v.number AS BIGINT)) AS number, "
    f"arg_max(left(trim(regexp_replace(coalesce(nullif(trim(p.body), ''), p.title, ''), '\\s+', ' ', 'g')), {QUOTE_CHARS}), v.number) AS quote "
    "FROM pr_results v LEFT JOIN pulls p ON p.repo = v.repo AND p.number = v.number "
    "WHERE v.as_of = ? AND v.excluded = 'bot' GROUP BY v.repo, v.author ORDER BY v.repo, prs DESC, login")


def _export_details(store: Store, when: date, beside: Path | None) -> Path:
    """The snapshot's detail files in a temporary directory in `beside`, removed when the process exits."""
    folder = Path(tempfile.mkdtemp(prefix=".porchlamp-site-" if beside else "porchlamp-site-", dir=beside))
    atexit.register(shutil.rmtree, folder, True)
    number = ", ".join("CAST(number AS BIGINT) AS number" if c == "number" else c for c in PR_COLUMNS)
    for name, sql in (
            ("results", "SELECT * FROM results WHERE as_of = ? ORDER BY repo"),
            ("profiles", "SELECT repo, profile, explain FROM profile_results WHERE as_of = ? ORDER BY repo"),
            ("components", "SELECT repo, component, score, inputs, reason FROM component_results WHERE as_of = ? ORDER BY repo"),
            ("prs", f"SELECT repo, {number} FROM pr_results WHERE as_of = ? ORDER BY repo, number DESC"),
            ("excluded", "SELECT repo, excluded, count(*) AS n, max(CAST(number AS BIGINT)) AS newest FROM pr_results "
                         "WHERE as_of = ? AND excluded <> '' GROUP BY repo, excluded ORDER BY repo"),
            ("bots", BOT_AUTHORS_SQL)):
        store.export_query(sql, [when], folder / f"{name}.parquet", row_group_rows=DETAIL_ROWS)
    # Each project's answered share and median over the stored snapshots of the last HISTORY_DAYS.
    store.export_query(f"SELECT repo, as_of, answered, outside_prs, median_hours FROM results WHERE outside_prs > 0 "
                       f"AND as_of <= CAST(? AS DATE) AND as_of > CAST(? AS DATE) - INTERVAL {HISTORY_DAYS} DAY "
                       "AND status <> 'undecided' ORDER BY repo, as_of", [when, when], folder / "history.parquet",
                       row_group_rows=DETAIL_ROWS)
    return folder


def start_issues(site: SiteData, ecosystem: str | None = None) -> list[dict[str, Any]]:
    """Good first issues that are really open (unassigned, opened recently) in projects that answer
    most outside PRs (ranked ones, never borderline, more than half answered in time: never a black
    hole, an undecided or an unrated project), by the project's default rank, a few per project."""
    cfg = site.settings.site
    since = site.as_of.toordinal() - cfg.start_max_age_days
    out: list[dict[str, Any]] = []
    ranked = site.ranked("default")
    for p in ranked if ecosystem is None else ranked.where("ecosystem", ecosystem):
        r = p.row
        if r["borderline"] or not 2 * r["answered"] > r["outside_prs"]:
            continue
        fresh = [i for i in p.good_first_issues() if i.get("created") and date.fromisoformat(i["created"]).toordinal() >= since]
        for i in fresh[:cfg.start_per_project]:
            out.append({"project": p, "number": i["number"], "title": i["title"], "created": i["created"]})
            if len(out) >= cfg.start_max_rows:
                return out
    return out
