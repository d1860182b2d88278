"""An evaluated snapshot read back from the store into what the site and the dataset show.

One pass over each result table. Projects, their components and profiles are held in memory; their
PRs (the bulk: a million rows at 11,000 repositories) are copied to a Parquet file and streamed
back one project at a time (`SiteData.with_prs`), so publishing stays within bounded memory.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

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


@dataclass
class Project:
    repo: str
    row: dict[str, Any]
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    prs: list[dict[str, Any]] = field(default_factory=list)
    homepage: str | None = None
    topics: tuple[str, ...] = ()
    change: Change | None = None

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
        issues: list[dict[str, Any]] = (self.components.get("accessibility") or {}).get("inputs", {}).get("good_first_issues", [])
        return issues


PR_COLUMNS = ("number", "title", "author", "author_association", "created_at", "clock_start", "excluded", "outcome",
              "response_kind", "response_actor", "response_at", "hours_to_response", "first_timer", "merged")


@dataclass
class SiteData:
    as_of: date
    settings: Settings
    report: dict[str, Any]
    projects: list[Project]  # in name order, as the PR file is
    changes: Changes | None = None
    prs_file: Path | None = None  # the snapshot's PRs: repo plus PR_COLUMNS, by repo then newest first
    pr_digests: dict[str, str] = field(default_factory=dict)  # each project's PR rows, as one digest

    def with_prs(self, batch_rows: int = 50_000, only: Collection[str] | None = None) -> Iterator[Project]:
        """Every project in name order (or those in `only`) with its PRs loaded, which are dropped
        again once the caller moves on to the next: at most one project's PRs and one batch in memory."""
        wanted = None if only is None else set(only)
        rows = self._pr_rows(batch_rows, wanted)
        head = next(rows, None)
        for p in self.projects:
            if wanted is not None and p.repo not in wanted:
                continue
            prs = []
            while head is not None and head[0] < p.repo:  # a PR of a project not in this snapshot's results
                head = next(rows, None)
            while head is not None and head[0] == p.repo:
                prs.append(head[1])
                head = next(rows, None)
            p.prs = prs
            yield p
            p.prs = []

    def _pr_rows(self, batch_rows: int, wanted: set[str] | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        if self.prs_file is None:
            return
        keep = None if wanted is None else pa.array(sorted(wanted), pa.string())
        for batch in pq.ParquetFile(self.prs_file).iter_batches(batch_size=batch_rows):
            if keep is not None:
                batch = batch.filter(pc.is_in(batch.column("repo"), value_set=keep))
            cols = {c: _pylist(batch.column(c)) for c in batch.schema.names}  # column by column: faster than per row
            repos = cols.pop("repo")
            names = list(cols)
            for repo, values in zip(repos, zip(*cols.values())):
                yield repo, dict(zip(names, values))

    def by_repo(self) -> dict[str, Project]:
        return {p.repo: p for p in self.projects}

    def ranked(self, profile: str) -> list[Project]:
        ranked = [p for p in self.projects if p.status == "ranked" and p.profiles.get(profile, {}).get("rank")]
        return sorted(ranked, key=lambda p: p.profiles[profile]["rank"])


_EPOCH = datetime(1970, 1, 1)


def _pylist(column: pa.Array) -> list[Any]:
    """A column as Python values; timestamps through integers, twice as fast as Arrow's own."""
    if pa.types.is_timestamp(column.type) and column.type.tz is None and column.type.unit == "us":
        return [None if v is None else _EPOCH + timedelta(microseconds=v) for v in column.cast(pa.int64()).to_pylist()]
    return column.to_pylist()


def load_site_data(store: Store, as_of: date | None = None) -> SiteData:
    """The snapshot of `as_of` (default the latest) as the site shows it. DuckDB works in a small
    budget throughout: what is held is the projects; the PRs go to a file."""
    with store.small_budget():
        return _load_site_data(store, as_of)


def _load_site_data(store: Store, as_of: date | None) -> SiteData:
    when = stored_as_of(store, as_of)
    meta = store.snapshot_meta(when) or {}
    settings = Settings.model_validate_json(meta["settings"]) if meta.get("settings") else Settings()
    rows = store.query("SELECT * FROM results WHERE as_of = ? ORDER BY repo", [when])
    projects = {r["repo"]: Project(r["repo"], r) for r in rows}
    for r in store.query("SELECT repo, profile, score, coverage, tier, rank, delta, explain FROM profile_results WHERE as_of = ?", [when]):
        r["explain"] = json.loads(r["explain"] or "[]")
        projects[r["repo"]].profiles[r["profile"]] = r
    for r in store.query("SELECT repo, component, score, inputs, reason FROM component_results WHERE as_of = ?", [when]):
        projects[r["repo"]].components[r["component"]] = {"score": r["score"], "inputs": json.loads(r["inputs"] or "{}"), "reason": r["reason"]}
    # In the settings' order of goals and the fixed order of components, whatever order the rows came
    # in: the record of a project that did not change must come out the same bytes.
    goal_order = {name: i for i, name in enumerate(settings.profiles)}
    part_order = {name: i for i, name in enumerate(COMPONENTS)}
    for p in projects.values():
        p.profiles = dict(sorted(p.profiles.items(), key=lambda kv: (goal_order.get(kv[0], len(goal_order)), kv[0])))
        p.components = dict(sorted(p.components.items(), key=lambda kv: (part_order.get(kv[0], len(part_order)), kv[0])))
    prs_file = _export_prs(store, when)
    for r in store.query("SELECT name_with_owner AS repo, homepage_url, topics FROM repositories"):
        if r["repo"] in projects:
            projects[r["repo"]].homepage = safe_url(r["homepage_url"])
            projects[r["repo"]].topics = tuple(r["topics"] or ())
    changes = changes_from_store(store, when)
    for c in changes.items:
        if c.repo in projects:
            projects[c.repo].change = c
    return SiteData(when, settings, report_from_store(store, when), list(projects.values()), changes, prs_file,
                    _pr_digests(store, when))


def _pr_digests(store: Store, when: date) -> dict[str, str]:
    """Each project's shown PR columns summed as row hashes (order is moot: pages sort by number)."""
    cols = ", ".join(PR_COLUMNS)
    return {r["repo"]: r["digest"] for r in store.query(
        f"SELECT repo, count(*)::VARCHAR || ':' || sum(hash({cols})::HUGEINT)::VARCHAR AS digest FROM pr_results "
        "WHERE as_of = ? GROUP BY repo", [when])}


def _export_prs(store: Store, when: date) -> Path:
    """The snapshot's PRs as a Parquet file in a temporary directory, removed when the process exits."""
    folder = Path(tempfile.mkdtemp(prefix="porchlamp-prs-"))
    atexit.register(shutil.rmtree, folder, True)
    target = folder / "prs.parquet"
    store.export_query(
        f"SELECT repo, {', '.join('CAST(number AS BIGINT) AS number' if c == 'number' else c for c in PR_COLUMNS)} FROM pr_results WHERE as_of = ? ORDER BY repo, number DESC", [when], target)
    return target


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
