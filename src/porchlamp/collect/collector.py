"""Resumable, incremental collection of everything SPEC.md needs, into the store.

Stages per repository: meta (metadata, project documents, the window's newest commits) -> pulls
(PRs with their first timeline page) -> timeline (every further page) -> authors (had each
returning author committed before the window?) -> ci (CI of the latest merged PRs) -> issues
(good first issues) -> dependents. Each response's rows are written in one transaction with the
state that says they are done, so a run killed at any point resumes where it stopped. A query that
keeps timing out is split, then asked with smaller pages; a repository that still fails is
recorded with the step and the error, the run goes on, and the next run tries it first.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from porchlamp.collect import mapping
from porchlamp.collect.client import CollectError, GraphQLClient, NetworkError, RequestFailed
from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.gates import is_bot_commit
from porchlamp.evaluate.rules import Rules, load_rules, norm_label
from porchlamp.store.marks import ensure_marks
from porchlamp.models import Issue, as_of_instant
from porchlamp.store import Store

META_SLOTS, PR_SLOTS, TIMELINE_SLOTS, GFI_SLOTS, CI_BATCH, LIST_SLOTS, BY_ID_BATCH, AUTHOR_SLOTS = 16, 12, 25, 50, 149, 50, 149, 100
CHANGED_SLOTS, CHANGED_PRS = 70, 10  # the refresh listing: two connections a slot, 140 requests = one point
# A PR updated this long before the last run is listed again: an event stamped just before the
# run may be indexed just after it.
UPDATED_MARGIN = timedelta(hours=1)
# Stages a repository that did not change keeps from its last run, confirmed for this one.
CONFIRMABLE = ("meta", "pulls", "ci", "issues", "dependents")
DEPENDENTS_CHUNK = 10  # lookups between checks of the dependents service's health
# Responses are written a few at a time, each write one transaction with the states that mark them
# done: a statement costs DuckDB milliseconds whatever its size, and a crash loses only what was not
# written yet (fetched again on resume).
WRITE_RECORDS, WRITE_RESPONSES = 4_000, 20
DEPENDENTS_BREAKER = 3  # consecutive failed lookups after which the service is taken for down
TIMELINE_PAGE, MIN_TIMELINE_PAGE, MIN_PR_PAGE = 100, 5, 1
FINAL_TRIES = 3  # a request that cannot be split or shrunk further is tried this many more times
# GitHub takes at most this many ids in one `nodes` field; queries by id use two fields.
MAX_IDS = 100
# GitHub rounds requests / 100 to the nearest point: up to 149 requests cost one point.
POINT_REQUESTS = 149
STAGES = ("meta", "pulls", "timeline", "authors", "ci", "issues", "dependents")
DUMMY = ("porchlamp", "unused-slot")  # fills skipped alias slots; @include(if: false) keeps it unread
# Measured on 11,000 repositories (bench/RESULTS.md): what a first full collection costs a repository.
POINTS_PER_REPO_FULL = 1.06


@dataclass(frozen=True)
class CollectOptions:
    as_of: date
    window_days: int = 183
    concurrency: int = 2
    dependents_api: str | None = None  # base URL of the ecosyste.ms packages service; None skips dependents


@dataclass
class CollectSummary:
    as_of: str
    repos: int = 0
    done: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    prs: int = 0
    timeline_items: int = 0
    points: int = 0
    requests: int = 0
    bytes_received: int = 0
    retries: dict[str, int] = field(default_factory=dict)
    points_by_query: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    incremental: bool = False
    points_saved: int | None = None
    splits: int = 0  # requests split or shrunk after timing out
    dependents_missing: int = 0  # repositories whose dependents could not be looked up this run
    notices: list[str] = field(default_factory=list)
    unchanged: int = 0  # refresh: repositories confirmed from the listing alone, nothing else fetched
    changed: dict[str, int] = field(default_factory=dict)  # refresh: repositories by what changed (pushed, prs, issues, metadata)

    @property
    def points_per_100_prs(self) -> float | None:
        return round(self.points * 100 / self.prs, 3) if self.prs else None

    @property
    def points_per_repo(self) -> float | None:
        return round(self.points / self.repos, 3) if self.repos else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "points_per_100_prs": self.points_per_100_prs, "points_per_repo": self.points_per_repo}


@dataclass(frozen=True)
class CollectPlan:
    """What a run will cost, checked before it starts: the token's budget and the estimate."""

    repos: int
    limit: int | None
    remaining: int | None
    reset_at: str | None
    estimated_points: int
    basis: str

    @property
    def hours(self) -> float | None:
        return round(self.estimated_points / self.limit, 2) if self.limit else None

    def lines(self) -> list[str]:
        budget = (f"token accepted: {self.remaining:,} of {self.limit:,} points left this hour (resets {self.reset_at})"
                  if self.limit is not None and self.remaining is not None else "token accepted")
        hours = f", about {self.hours:.2f} hours of one token" if self.hours is not None else ""
        return [budget, f"estimate for {self.repos:,} repositories: about {self.estimated_points:,} points{hours} ({self.basis})"]


# Measured shares of a full collection (bench/RESULTS.md): a run one day after the last, and one a
# month after; in between the cost grows with the PRs that moved, roughly linearly.
DAILY_SHARE, MONTHLY_SHARE = 0.021, 0.238


def incremental_share(days: int) -> float:
    """The estimated cost of an incremental run `days` after the last, as a share of a full one."""
    return min(1.0, DAILY_SHARE + (MONTHLY_SHARE - DAILY_SHARE) * (days - 1) / 30)


def plan_collection(client: GraphQLClient, store: Store, repos: int, as_of: date) -> CollectPlan:
    """Check the token and its budget (spending nothing), and estimate the run's points: from this
    store's own last collection when it has one, else from the measured cost per repository."""
    budget = client.budget()
    last = store.get_meta("collected_as_of")
    full = store.get_meta("full_collection_points")
    per_repo, basis = POINTS_PER_REPO_FULL, "1.06 points a repository, measured on 11,000 (bench/RESULTS.md)"
    if last and full and store.count("repositories"):
        per_repo = int(full) / store.count("repositories")
        basis = f"this store's last full collection: {per_repo:.2f} points a repository"
        days = (as_of - date.fromisoformat(last)).days
        if days > 0:
            share = incremental_share(days)
            per_repo *= share
            basis += f"; a run {days} day{'s' if days > 1 else ''} after the last costs about {share:.0%} of that"
    return CollectPlan(repos, budget.get("limit"), budget.get("remaining"), budget.get("resetAt"),
                       max(1, round(repos * per_repo)), basis)


@dataclass(frozen=True)
class Job:
    """One request's worth of work: the items it covers, its page size, and how often it was retried whole."""

    items: tuple[Any, ...]
    size: int | None = None
    tries: int = 0


def _chunks(items: Sequence[Any], n: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


def _slot_vars(prefix_pairs: Sequence[tuple[str, str]], slots: int, extra: Callable[[int, int], dict[str, Any]] | None = None) -> dict[str, Any]:
    variables: dict[str, Any] = {}
    for i in range(slots):
        owner, name = prefix_pairs[i] if i < len(prefix_pairs) else DUMMY
        variables[f"o{i}"], variables[f"n{i}"] = owner, name
        if i:
            variables[f"use{i}"] = i < len(prefix_pairs)
        if extra:
            variables.update(extra(i, len(prefix_pairs)))
    return variables


def _pairs(repos: Iterable[str]) -> list[tuple[str, str]]:
    return [tuple(r.split("/", 1)) for r in repos]  # type: ignore[misc]


def _id_vars(ids: Sequence[str]) -> dict[str, Any]:
    return {"ids": list(ids[:MAX_IDS]), "more": list(ids[MAX_IDS:])}


def _gh_time(t: datetime) -> str:
    """An instant as GitHub's DateTime arguments take it."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _by_since(pending: list[Any]) -> list[list[Any]]:
    """Pending (key, state) pairs grouped by the `since` in their cursors: one query asks with one."""
    groups: dict[str, list[Any]] = {}
    for item in pending:
        groups.setdefault(json.loads(item[1]["cursor"]).get("since") or "", []).append(item)
    return [groups[k] for k in sorted(groups)]


def _id_nodes(body: dict[str, Any]) -> list[Any]:
    """The nodes of a query by id, in the order asked, across its two `nodes` fields."""
    data = body.get("data") or {}
    return [*(data.get("a") or []), *(data.get("b") or [])]


def _split(job: Job, min_size: int | None = None) -> list[Job]:
    """A request that timed out, made smaller: halved when it covers several items, else with half its
    page size, else tried again whole a bounded number of times; [] when nothing is left to try."""
    if len(job.items) > 1:
        h = len(job.items) // 2
        return [Job(job.items[:h], job.size), Job(job.items[h:], job.size)]
    if job.size is not None and min_size is not None and job.size > min_size:
        return [Job(job.items, max(min_size, job.size // 2))]
    if job.tries < FINAL_TRIES:
        return [replace(job, tries=job.tries + 1)]
    return []


@dataclass
class _Writes:
    """What responses add to the store: their rows and the states that mark them done, written together."""

    records: list[Any] = field(default_factory=list)
    states: list[tuple[str, str, date, str, str | None, str | None]] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)
    responses: int = 0

    def take(self, other: "_Writes") -> None:
        self.records += other.records
        self.states += other.states
        self.renames += other.renames
        self.responses += 1


def _slot_error(body: dict[str, Any], alias: str) -> dict[str, Any] | None:
    for e in body.get("errors") or []:
        if isinstance(e, dict) and (e.get("path") or [None])[0] == alias:
            return e
    return None


class Collector:
    def __init__(self, store: Store, client: GraphQLClient, options: CollectOptions, settings: Settings | None = None,
                 progress: Callable[[str, int, int | None], None] | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        self.store, self.client, self.opt = store, client, options
        settings = settings or Settings()
        self.rules: Rules = load_rules(settings)
        self.bots = Bots(self.rules.bots)
        self.ci_sample = settings.components.ci_sample  # the evaluation scores CI on the same sample
        self.commit_sample = settings.window.commit_sample  # and judges activity on the same commits
        self.end = as_of_instant(options.as_of)
        self.start = self.end - timedelta(days=options.window_days)
        self.progress = progress or (lambda label, n, total: None)
        self._notice = notice or (lambda text: None)
        self.summary = CollectSummary(as_of=options.as_of.isoformat())
        self._gfi = frozenset(self.rules.gfi_labels)
        self._errors: dict[str, dict[str, str]] = {}  # repo -> {"step", "error"} of this run
        self._pending = _Writes()  # responses received and not yet written

    # -- orchestration ---------------------------------------------------------------------

    def run(self, requested: Sequence[str]) -> CollectSummary:
        t0 = time.perf_counter()
        last = self.store.get_meta("collected_as_of")
        if last and date.fromisoformat(last) > self.opt.as_of:
            raise CollectError(f"the store already holds data collected for {last}, later than {self.opt.as_of}; "
                               "collect into a new store to go back in time")
        names = self.store.repo_names_map()
        repos = list(dict.fromkeys(names.get(r.lower(), r) for r in requested))
        # Repositories that failed last time are tried first.
        earlier = {r for r, _ in self.store.states("error").keys()}
        repos.sort(key=lambda r: r not in earlier)
        self.summary.repos = len(repos)
        if last and date.fromisoformat(last) < self.opt.as_of:
            self.summary.incremental = True
            self._changed(repos)
        alive = self._meta(repos)
        for stage in (self._pulls, self._timelines, self._authors, self._ci, self._issues, self._dependents):
            stage([r for r in alive if r not in self._errors])
        self._close_errors(earlier, alive)
        gone = self.store.states("meta")
        for repo in repos:
            st = gone.get((repo, "meta"))
            if st and st["status"] == "failed":
                self.summary.failed[st["detail"]] = self.summary.failed.get(st["detail"], 0) + 1
                self.summary.failures.append({"repo": repo, "step": "meta", "reason": st["detail"]})
        for repo, err in self._errors.items():
            self.summary.failed["error"] = self.summary.failed.get("error", 0) + 1
            self.summary.failures.append({"repo": repo, "step": err["step"], "reason": err["error"]})
        self.summary.done = len([r for r in alive if r not in self._errors])
        cs = self.client.stats
        self.summary.points, self.summary.requests, self.summary.bytes_received = cs.points, cs.requests, cs.bytes_received
        self.summary.retries = dict(cs.retries)
        self.summary.points_by_query = dict(cs.points_by_query)
        self.summary.seconds = round(time.perf_counter() - t0, 2)
        full_before = self.store.get_meta("full_collection_points")
        if self.summary.incremental and full_before:
            self.summary.points_saved = int(full_before) - self.summary.points
        elif not self.summary.incremental:
            self.store.set_meta("full_collection_points", str(self.summary.points))
        # Text is read once, when stored: what evaluation reads of each new or edited comment.
        ensure_marks(self.store, self.rules)
        self.store.mark_collected(self.opt.as_of)
        return self.summary

    def _write(self, out: _Writes) -> None:
        """Queue one response's rows and states; write the queue once it is big enough."""
        self._pending.take(out)
        if len(self._pending.records) >= WRITE_RECORDS or self._pending.responses >= WRITE_RESPONSES:
            self._flush()

    def _flush(self) -> None:
        """Write every queued response in one transaction: rows and the states that mark them done."""
        out, self._pending = self._pending, _Writes()
        if not (out.records or out.states or out.renames):
            return
        with self.store.transaction():
            for requested, actual in out.renames:
                self.store.set_repo_name(requested, actual)
            self.store.upsert(out.records)
            self.store.set_states(out.states)

    def _fail(self, repos: Iterable[str], step: str, error: str) -> None:
        """Record repositories whose step could not be collected: the run goes on without them."""
        rows = []
        for repo in dict.fromkeys(repos):
            if repo not in self._errors:
                self._errors[repo] = {"step": step, "error": error}
                rows.append((repo, "error", self.opt.as_of, "failed", None, json.dumps(self._errors[repo])))
        if rows:
            with self.store.transaction():
                self.store.set_states(rows)

    def _close_errors(self, earlier: set[str], alive: list[str]) -> None:
        """Repositories that failed before and went through every stage this time are failed no more."""
        healed = [r for r in earlier if r in alive and r not in self._errors]
        if healed:
            with self.store.transaction():
                self.store.delete_states(healed, "error")

    def _todo(self, stage: str, repos: Iterable[str]) -> list[str]:
        states = self.store.states(stage)
        return [r for r in repos if not ((st := states.get((r, stage))) and st["status"] in ("done", "failed")
                                         and st["as_of"] == self.opt.as_of)]

    def _fetch_all(self, jobs: list[Any], fn: Callable[[Any], Any]) -> Iterator[tuple[Any, Any]]:
        """Run fetches a few at a time (GitHub asks for few concurrent requests); yield in order of jobs.
        A request that kept failing comes back as its RequestFailed, for the caller to split or record."""
        def guarded(job: Any) -> Any:
            try:
                return fn(job)
            except RequestFailed as err:
                return err

        if self.opt.concurrency <= 1 or len(jobs) <= 1:
            for job in jobs:
                yield job, guarded(job)
            return
        with ThreadPoolExecutor(max_workers=self.opt.concurrency) as pool:
            futures = [(job, pool.submit(guarded, job)) for job in jobs]
            for job, fut in futures:
                yield job, fut.result()

    def _run_jobs(self, jobs: list[Job], fetch: Callable[[Job], Any], store: Callable[[Job, Any], None],
                  step: str, repos_of: Callable[[Job], Iterable[str]], min_size: int | None = None,
                  split: Callable[[Job], list[Job]] | None = None) -> None:
        """Fetch every job and store its answer. A job that keeps failing is split or shrunk and its
        parts go on; one that cannot get smaller has its repositories recorded as failed at `step`."""
        pending = jobs
        while pending:
            current, pending = pending, []
            for job, result in self._fetch_all(current, fetch):
                if isinstance(result, RequestFailed):
                    parts = (split or (lambda j: _split(j, min_size)))(job)
                    if parts:
                        self.summary.splits += 1
                        pending.extend(parts)
                    else:
                        self._fail(repos_of(job), step, str(result))
                else:
                    store(job, result)
        self._flush()

    # -- refresh: what changed since the last run? -----------------------------------------

    def _changed(self, repos: list[str]) -> None:
        """One listing of every repository that has been collected before: its scalars, its latest
        push, its PRs and issues by update time. A repository where nothing moved keeps every stage
        of its last run, confirmed for this one at no further cost; one that moved is fetched only
        where it moved (a push: metadata and documents; PR updates: those PRs by id; issue updates:
        its good first issues). Scalars such as stars are updated from the listing itself."""
        todo = self._todo("changed", repos)
        if not todo:
            return
        stored = {r.name_with_owner: r for r in self.store.records("repositories")}
        states = {stage: self.store.states(stage) for stage in CONFIRMABLE}
        errors = self.store.states("error")
        prior: dict[str, date] = {}
        for repo in todo:
            st = states["pulls"].get((repo, "pulls"))
            if repo in stored and st and st["status"] == "done" and st["as_of"] < self.opt.as_of and (repo, "error") not in errors:
                prior[repo] = st["as_of"]
        listed = [r for r in todo if r in prior]

        def fetch(job: Job) -> dict[str, Any]:
            return self.client.query("repos_changed", {**_slot_vars(_pairs(job.items), CHANGED_SLOTS), "prs": CHANGED_PRS})

        def store(job: Job, body: dict[str, Any]) -> None:
            out = _Writes()
            for i, repo in enumerate(job.items):
                self._store_changed(repo, (body.get("data") or {}).get(f"r{i}"), stored[repo], prior[repo], states, out)
            self._write(out)
            self.progress("what changed", len(job.items), len(listed))

        self._run_jobs([Job(tuple(b)) for b in _chunks(listed, CHANGED_SLOTS)], fetch, store, "changed", lambda j: j.items)

    def _store_changed(self, repo: str, node: dict[str, Any] | None, was: Any, prior: date,
                       states: dict[str, dict[tuple[str, str], dict[str, Any]]], out: _Writes) -> None:
        flags: dict[str, Any] = {"since": prior.isoformat()}
        if node is None or node["nameWithOwner"] != repo:
            # Gone, blocked or renamed: the full metadata step finds out which, as on a first run.
            flags["gone"] = True
            out.states.append((repo, "changed", self.opt.as_of, "done", None, json.dumps(flags)))
            self.summary.changed["gone or renamed"] = self.summary.changed.get("gone or renamed", 0) + 1
            return
        since = as_of_instant(prior) - UPDATED_MARGIN
        keep = set(CONFIRMABLE)
        if mapping.ts(node.get("pushedAt")) != was.pushed_at:
            keep -= {"meta", "dependents"}  # commits, files and packages may have changed
            flags["pushed"] = True
        now = replace(mapping.repository({**node, "owner": {"__typename": was.owner_type}}), languages=was.languages,
                      topics=was.topics, default_branch=was.default_branch, root_files=was.root_files,
                      created_at=was.created_at, pushed_at=was.pushed_at)
        if now != was and "meta" in keep:
            out.records.append(now)  # stars, description, license...: the listing carries them all
            flags["metadata"] = True
        conn = node.get("pullRequests") or {}
        updated = [n for n in conn.get("nodes") or [] if mapping.ts(n["updatedAt"]) >= since]  # type: ignore[operator]
        for n in updated:
            if mapping.ts(n["createdAt"]) >= self.start:  # type: ignore[operator]
                cursor = {"id": n["id"], "since": _gh_time(since)}
                out.states.append((repo, f"pull#{n['number']}", self.opt.as_of, "pending", json.dumps(cursor), None))
        if updated:
            keep.discard("ci")  # a merge may have entered the CI sample
            flags["prs"] = len(updated)
            if (conn.get("pageInfo") or {}).get("hasNextPage") and len(updated) == len(conn.get("nodes") or []):
                keep.discard("pulls")  # more than the listing showed: the PR listing pages through them
        issues = (node.get("issues") or {}).get("nodes") or []
        if issues and mapping.ts(issues[0]["updatedAt"]) >= since:  # type: ignore[operator]
            # A new issue may carry a label made since: the label list the issue query filters by
            # comes with the metadata.
            keep -= {"issues", "meta"}
            flags["issues"] = True
        confirmed = []
        for stage in sorted(keep):
            st = states[stage].get((repo, stage))
            if st and st["status"] == "done":
                confirmed.append((repo, stage, self.opt.as_of, "done", st["cursor"], st["detail"]))
        out.states += [*confirmed, (repo, "changed", self.opt.as_of, "done", None, json.dumps(flags))]
        if len(flags) == 1:
            self.summary.unchanged += 1
        for key in ("pushed", "prs", "issues", "metadata"):
            if key in flags:
                self.summary.changed[key] = self.summary.changed.get(key, 0) + 1

    # -- meta ------------------------------------------------------------------------------

    def _meta(self, repos: list[str]) -> list[str]:
        todo = self._todo("meta", repos)
        since = _gh_time(self.start)

        def fetch(job: Job) -> dict[str, Any]:
            return self.client.query("repo_meta", {**_slot_vars(_pairs(job.items), META_SLOTS), "since": since,
                                                   "commits": self.commit_sample})

        def store(job: Job, body: dict[str, Any]) -> None:
            # A whole response in one transaction: its rows and the states that mark them done.
            out = _Writes()
            for i, requested in enumerate(job.items):
                try:
                    self._store_meta(requested, body, f"r{i}", out)
                except RequestFailed as err:  # the older history of one repository would not come
                    self._fail([requested], "meta", str(err))
            self._write(out)
            self.progress("metadata", len(job.items), len(todo))

        self._run_jobs([Job(tuple(b)) for b in _chunks(todo, META_SLOTS)], fetch, store, "meta", lambda j: j.items)
        states = self.store.states("meta")
        names = self.store.repo_names_map()
        alive = []
        for r in repos:
            actual = names.get(r.lower(), r)
            st = states.get((actual, "meta"))
            if st and st["status"] == "done" and actual not in alive and r not in self._errors:
                alive.append(actual)
        return alive

    def _store_meta(self, requested: str, body: dict[str, Any], alias: str, out: _Writes) -> None:
        node = (body.get("data") or {}).get(alias)
        err = _slot_error(body, alias)
        if node is None:
            reason = {"NOT_FOUND": "not_found", "FORBIDDEN": "blocked"}.get((err or {}).get("type", ""), "not_found")
            out.states.append((requested, "meta", self.opt.as_of, "failed", None, reason))
            return
        repo = mapping.repository(node)
        actual = repo.name_with_owner
        history = mapping.history_of(node) or {}
        commits = mapping.commits(actual, history)
        if history.get("pageInfo", {}).get("hasNextPage") and all(is_bot_commit(c, self.bots) for c in commits):
            commits += self._more_history(actual, history["pageInfo"]["endCursor"])
        labels = sorted({n["name"] for key in ("labelsFirst", "labelsBeginner", "labelsEasy", "labelsStarter", "labelsNewcomer")
                         for n in (node.get(key) or {}).get("nodes") or [] if norm_label(n["name"]) in self._gfi})
        detail = json.dumps({"total_prs": (node.get("pullRequests") or {}).get("totalCount", 0), "gfi_labels": labels,
                             "empty": bool(node.get("isEmpty"))})
        if actual.lower() != requested.lower():
            out.renames.append((requested, actual))
            self.summary.renamed[requested] = actual
        out.records += [repo, mapping.community(node, self.rules.ai_files), *commits]
        out.states.append((actual, "meta", self.opt.as_of, "done", None, detail))

    def _more_history(self, repo: str, after: str) -> list[Any]:
        """Older commits in the window, only as far as the first human one (evaluate.gates.commit_sample)."""
        owner, name = repo.split("/", 1)
        out: list[Any] = []
        cursor: str | None = after
        while cursor:
            body = self.client.query("history_more", {"owner": owner, "name": name, "after": cursor,
                                                      "since": _gh_time(self.start)})
            node = (body.get("data") or {}).get("repository") or {}
            history = mapping.history_of(node) or {}
            page = mapping.commits(repo, history)
            out += page
            if not all(is_bot_commit(c, self.bots) for c in page):
                break
            info = history.get("pageInfo") or {}
            cursor = info.get("endCursor") if info.get("hasNextPage") else None
        return out

    # -- pulls -----------------------------------------------------------------------------

    def _pulls(self, repos: list[str]) -> None:
        todo = self._todo("pulls", repos)
        states = self.store.states("pulls")
        meta = self.store.states("meta")
        plans: dict[str, dict[str, Any]] = {}
        for repo in todo:
            st = states.get((repo, "pulls"))
            prior = st["as_of"] if st and st["status"] == "done" and st["as_of"] < self.opt.as_of else None
            if st and st["status"] == "partial" and st["as_of"] == self.opt.as_of:
                plans[repo] = json.loads(st["cursor"])
                continue
            total = json.loads(meta[(repo, "meta")]["detail"] or "{}").get("total_prs", 100)
            if prior is not None:
                since = as_of_instant(prior) - timedelta(days=1)
                plans[repo] = {"order": "UPDATED_AT", "after": None, "stop": since.isoformat()}
                self.summary.incremental = True
            else:
                plans[repo] = {"order": "CREATED_AT", "after": None, "stop": self.start.isoformat(), "first": max(1, min(100, total))}
        self._list_updated([r for r in todo if plans[r]["order"] == "UPDATED_AT"], plans, len(todo))
        pending = [r for r in todo if plans[r]["order"] == "CREATED_AT"]
        known_ci = self.store.known_ci() if pending else {}
        while pending:
            more: list[str] = []

            def fetch(job: Job) -> dict[str, Any]:
                return self._pull_page(list(job.items), plans)

            def store(job: Job, body: dict[str, Any]) -> None:
                out = _Writes()
                for i, repo in enumerate(job.items):
                    if self._store_pulls(repo, body, f"r{i}", plans[repo], known_ci, out):
                        more.append(repo)
                self._write(out)
                self.progress("pull requests", sum(1 for r in job.items if r not in more), len(todo))

            def shrink(job: Job) -> list[Job]:
                """Split the batch; a single repository asks for fewer PRs a page from now on."""
                if len(job.items) > 1:
                    return _split(job)
                plan = plans[job.items[0]]
                if plan["first"] > MIN_PR_PAGE:
                    plan["cap"] = plan["first"] = max(MIN_PR_PAGE, plan["first"] // 2)
                    return [Job(job.items)]
                return _split(job)

            self._run_jobs([Job(tuple(b)) for b in self._pack(pending, plans)], fetch, store, "pulls", lambda j: j.items,
                           split=shrink)
            pending = [r for r in more if r not in self._errors]

    def _list_updated(self, repos: list[str], plans: dict[str, dict[str, Any]], total: int) -> None:
        """Incremental: list each repository's PRs updated since the last snapshot, fifty repositories a point.

        Any new comment, review, merge or close moves a PR's `updatedAt`, so the listed PRs are exactly
        those whose verdict can have changed; each is queued (`pull#N`) for `_pulls_by_id`."""
        pending = repos
        while pending:
            more: list[str] = []

            def fetch(job: Job) -> dict[str, Any]:
                batch = job.items
                return self.client.query("pulls_updated", _slot_vars(
                    _pairs(batch), LIST_SLOTS, lambda i, n: {f"a{i}": plans[batch[i]]["after"] if i < n else None}))

            def store(job: Job, body: dict[str, Any]) -> None:
                out = _Writes()
                for i, repo in enumerate(job.items):
                    if self._store_updated(repo, body, f"r{i}", plans[repo], out):
                        more.append(repo)
                self._write(out)
                self.progress("pull requests", sum(1 for r in job.items if r not in more), total)

            self._run_jobs([Job(tuple(b)) for b in _chunks(pending, LIST_SLOTS)], fetch, store, "pulls", lambda j: j.items)
            pending = [r for r in more if r not in self._errors]

    def _pulls_of(self, repo: str, body: dict[str, Any], alias: str, out: _Writes) -> dict[str, Any] | None:
        """A slot's PR connection, or None with the repository's pulls stage marked failed."""
        node = (body.get("data") or {}).get(alias)
        if node is None:
            out.states.append((repo, "pulls", self.opt.as_of, "failed", None, "pull requests unavailable"))
            return None
        return node["pullRequests"]  # type: ignore[no-any-return]

    def _store_updated(self, repo: str, body: dict[str, Any], alias: str, plan: dict[str, Any], out: _Writes) -> bool:
        conn = self._pulls_of(repo, body, alias, out)
        if conn is None:
            return False
        stop = datetime.fromisoformat(plan["stop"])
        queued = []
        reached_stop = False
        for n in conn["nodes"]:
            if mapping.ts(n["updatedAt"]) < stop:  # type: ignore[operator]
                reached_stop = True
                break
            if mapping.ts(n["createdAt"]) >= self.start:  # type: ignore[operator]
                cursor = {"id": n["id"], "since": _gh_time(stop)}
                queued.append((repo, f"pull#{n['number']}", self.opt.as_of, "pending", json.dumps(cursor), None))
        more = conn["pageInfo"]["hasNextPage"] and not reached_stop
        plan["after"] = conn["pageInfo"]["endCursor"]
        state = (repo, "pulls", self.opt.as_of, "partial" if more else "done", json.dumps(plan) if more else None, None)
        out.states += [state, *queued]
        return more

    def _pulls_by_id(self, alive: set[str]) -> None:
        """Fetch whole the PRs an incremental listing queued, up to 149 a point; resumable per query."""
        pending = sorted((k, v) for k, v in self.store.states("pull#").items() if v["status"] == "pending" and k[0] in alive)
        if not pending:
            return
        known_ci = self.store.known_ci()
        # A PR read before needs only the timeline items since that read; one whose continuation an
        # earlier run left unfinished is read whole, so nothing between is skipped.
        unfinished = {k for k, v in self.store.states("timeline#").items() if v["status"] != "done"}
        pending = [(k, {**st, "cursor": json.dumps({**json.loads(st["cursor"]), "since": None})}
                    if (k[0], k[1].replace("pull#", "timeline#", 1)) in unfinished else st) for k, st in pending]

        def fetch(job: Job) -> dict[str, Any]:
            cursors = [json.loads(st["cursor"]) for _, st in job.items]
            return self.client.query("pulls_by_id", {**_id_vars([c["id"] for c in cursors]), "since": cursors[0].get("since")})

        def store(job: Job, body: dict[str, Any]) -> None:
            out = _Writes()
            for ((repo, stage), st), n in zip(job.items, _id_nodes(body)):
                out.states.append((repo, stage, self.opt.as_of, "done", None, None if n else "gone"))
                if n:
                    self._pull_records(repo, n, known_ci, out, json.loads(st["cursor"]).get("since"))
            self._write(out)
            self.progress("updated pull requests", len(job.items), len(pending))

        jobs = [Job(tuple(b)) for group in _by_since(pending) for b in _chunks(group, BY_ID_BATCH)]
        self._run_jobs(jobs, fetch, store, "pulls", lambda j: [k[0] for k, _ in j.items])

    def _pack(self, repos: list[str], plans: dict[str, dict[str, Any]]) -> list[list[str]]:
        """Group repositories so each query stays within one point's worth of requests."""
        groups: list[list[str]] = []
        current: list[str] = []
        load = 0
        for repo in sorted(repos, key=lambda r: (plans[r]["first"], r)):
            need = 1 + plans[repo]["first"]
            if current and (len(current) == PR_SLOTS or load + need > POINT_REQUESTS):
                groups.append(current)
                current, load = [], 0
            current.append(repo)
            load += need
        if current:
            groups.append(current)
        return groups

    def _pull_page(self, batch: list[str], plans: dict[str, dict[str, Any]]) -> dict[str, Any]:
        def extra(i: int, n: int) -> dict[str, Any]:
            plan = plans[batch[i]] if i < n else {"first": 1, "after": None}
            return {f"f{i}": plan["first"], f"a{i}": plan["after"]}

        variables = _slot_vars(_pairs(batch), PR_SLOTS, extra)
        variables["order"] = {"field": "CREATED_AT", "direction": "DESC"}  # incremental runs list by update instead
        # Unused slots are charged too (@include(if: false) is not documented to be free): one PR each.
        requests = sum(1 + plans[r]["first"] for r in batch) + 2 * (PR_SLOTS - len(batch))
        return self.client.query("pull_requests", variables, expected_cost=max(1, int(requests / 100 + 0.5)))

    def _store_pulls(self, repo: str, body: dict[str, Any], alias: str, plan: dict[str, Any],
                     known_ci: dict[tuple[str, int], bool], out: _Writes) -> bool:
        """One page of a repository's PRs and its state, into `out`; True when more pages are needed."""
        conn = self._pulls_of(repo, body, alias, out)
        if conn is None:
            return False
        stop = datetime.fromisoformat(plan["stop"])
        reached_stop = False
        for n in conn["nodes"]:
            created = mapping.ts(n["createdAt"])
            if created < stop:  # type: ignore[operator]  # newest first: the window starts here
                reached_stop = True
                continue
            self._pull_records(repo, n, known_ci, out)
        more = conn["pageInfo"]["hasNextPage"] and not reached_stop
        # Size the next page to what is left, so a short remainder shares a point with others; never above
        # a cap learnt from a timeout.
        plan["fetched"] = plan.get("fetched", 0) + len(conn["nodes"])
        left = conn["totalCount"] - plan["fetched"]
        plan.update({"after": conn["pageInfo"]["endCursor"], "first": max(1, min(100, left, plan.get("cap", 100)))})
        out.states.append((repo, "pulls", self.opt.as_of, "partial" if more else "done", json.dumps(plan) if more else None, None))
        return more

    def _pull_records(self, repo: str, n: dict[str, Any], known_ci: dict[tuple[str, int], bool], out: _Writes,
                      since: str | None = None) -> None:
        """One PR node as rows; a timeline longer than its first page is queued for the rest.

        Every page is read: who answered, who acted as a maintainer and which texts are templates
        depend on the whole window, so no page can be known to be irrelevant while collecting."""
        pr, account, items = mapping.pull_request(repo, n)
        if (repo, pr.number) in known_ci:  # keep what the ci stage learnt in an earlier run
            pr = pr._replace(has_ci=known_ci[(repo, pr.number)])
        out.records += [pr, *items] + ([account] if account else [])
        self.summary.prs += 1
        self.summary.timeline_items += len(items)
        tl = n.get("timelineItems") or {}
        if (tl.get("pageInfo") or {}).get("hasNextPage"):
            out.states.append((repo, f"timeline#{pr.number}", self.opt.as_of, "pending",
                               json.dumps({"id": pr.node_id, "after": tl["pageInfo"]["endCursor"], "since": since}), None))

    # -- timeline continuations ------------------------------------------------------------

    def _timelines(self, repos: list[str]) -> None:
        alive = set(repos)
        self._pulls_by_id(alive)  # before continuations: a PR fetched by id may queue one
        alive -= set(self._errors)
        page: dict[tuple[str, str], int] = {}  # a PR whose pages timed out keeps its smaller size
        while True:
            pending = [(k, v) for k, v in self.store.states("timeline#").items()
                       if v["status"] == "pending" and k[0] in alive and k[0] not in self._errors]
            if not pending:
                return
            pending.sort()
            jobs = [Job(tuple(b), min(page.get(k, TIMELINE_PAGE) for k, _ in b))
                    for group in _by_since(pending) for b in _chunks(group, TIMELINE_SLOTS)]

            def fetch(job: Job) -> dict[str, Any]:
                variables: dict[str, Any] = {"first": job.size}
                for i in range(TIMELINE_SLOTS):
                    cur = json.loads(job.items[i][1]["cursor"]) if i < len(job.items) else {"id": "unused", "after": None}
                    variables[f"id{i}"], variables[f"a{i}"], variables[f"s{i}"] = cur["id"], cur["after"], cur.get("since")
                    if i:
                        variables[f"use{i}"] = i < len(job.items)
                return self.client.query("timeline_more", variables)

            def store(job: Job, body: dict[str, Any]) -> None:
                records: list[Any] = []
                states = []
                for i, ((repo, stage), st) in enumerate(job.items):
                    page[(repo, stage)] = job.size or TIMELINE_PAGE
                    node = (body.get("data") or {}).get(f"p{i}") or {}
                    conn = node.get("timelineItems") or {"nodes": [], "pageInfo": {}}
                    number = int(stage.split("#", 1)[1])
                    items = mapping.timeline_items(repo, number, conn["nodes"])
                    records += items
                    self.summary.timeline_items += len(items)
                    info = conn.get("pageInfo") or {}
                    cur = json.loads(st["cursor"])
                    if info.get("hasNextPage"):
                        states.append((repo, stage, self.opt.as_of, "pending", json.dumps({**cur, "after": info["endCursor"]}), None))
                    else:
                        states.append((repo, stage, self.opt.as_of, "done", None, None))
                self._write(_Writes(records, states))

            self._run_jobs(jobs, fetch, store, "timeline", lambda j: [k[0] for k, _ in j.items], MIN_TIMELINE_PAGE)

    # -- authors: had a returning author committed before? ----------------------------------

    def _authors(self, repos: list[str]) -> None:
        """For each author whose PRs in the window read CONTRIBUTOR (an association GitHub computes
        when read, so a first-timer merged since reads it too), fetch their latest commit before their
        first PR of the window: present, they are no first-timer (SPEC section 3). One point a 100."""
        states = self.store.states("author#")
        wanted: list[tuple[str, str, str, str]] = []  # (repo, login, node id, until)
        bots: dict[str, Bots] = {}
        for repo, login, node_id, first in self.store.returning_authors(repos, self.start, self.end):
            if not node_id or bots.setdefault(repo, Bots(self.rules.bots, repo)).is_bot(login, "User"):
                continue
            until = _gh_time(first - timedelta(seconds=1))
            st = states.get((repo, f"author#{login.lower()}"))
            if st and st["status"] == "done":
                found, asked = st["detail"], json.loads(st["cursor"])["until"]
                # Known already: a commit before this instant, or none up to a later one.
                if (found is not None and found <= until) or (found is None and asked >= until):
                    continue
            wanted.append((repo, login, node_id, until))

        def fetch(job: Job) -> dict[str, Any]:
            items = job.items

            def extra(i: int, n: int) -> dict[str, Any]:
                _, _, node_id, until = items[i] if i < n else ("", "", "unused", "2000-01-01T00:00:00Z")
                return {f"u{i}": node_id, f"t{i}": until}

            return self.client.query("author_history", _slot_vars(_pairs(x[0] for x in items), AUTHOR_SLOTS, extra))

        def store(job: Job, body: dict[str, Any]) -> None:
            records, rows = [], []
            for i, (repo, login, _, until) in enumerate(job.items):
                node = (body.get("data") or {}).get(f"c{i}") or {}
                found = mapping.commits(repo, mapping.history_of(node))
                records += found
                at = _gh_time(found[0].committed_at) if found else None
                rows.append((repo, f"author#{login.lower()}", self.opt.as_of, "done", json.dumps({"until": until}), at))
            self._write(_Writes(records, rows))
            self.progress("returning authors", len(job.items), len(wanted))

        self._run_jobs([Job(tuple(b)) for b in _chunks(wanted, AUTHOR_SLOTS)], fetch, store, "authors",
                       lambda j: [x[0] for x in j.items])

    # -- CI on recent merged PRs -----------------------------------------------------------

    def _ci(self, repos: list[str]) -> None:
        todo = self._todo("ci", repos)
        wanted: list[tuple[str, int, str]] = []
        for repo in todo:
            wanted += [(repo, number, node_id) for number, node_id in self.store.merged_without_ci(repo, self.start, self.ci_sample)]

        def fetch(job: Job) -> dict[str, Any]:
            return self.client.query("ci_checks", _id_vars([x[2] for x in job.items]))

        def store(job: Job, body: dict[str, Any]) -> None:
            checks: dict[str, dict[int, bool]] = {}
            for (repo, number, _), node in zip(job.items, _id_nodes(body)):
                commits = ((node or {}).get("commits") or {}).get("nodes") or []
                rollup = (commits[0].get("commit") or {}).get("statusCheckRollup") if commits else None
                checks.setdefault(repo, {})[number] = rollup is not None
            with self.store.transaction():
                for repo, found in checks.items():
                    self.store.set_has_ci(repo, found)

        self._run_jobs([Job(tuple(b)) for b in _chunks(wanted, CI_BATCH)], fetch, store, "ci", lambda j: [x[0] for x in j.items])
        with self.store.transaction():
            self.store.set_states([(r, "ci", self.opt.as_of, "done", None, None) for r in todo if r not in self._errors])

    # -- good first issues -----------------------------------------------------------------

    def _issues(self, repos: list[str]) -> None:
        todo = self._todo("issues", repos)
        meta = self.store.states("meta")
        labels = {r: json.loads(meta[(r, "meta")]["detail"] or "{}").get("gfi_labels", []) for r in todo}
        with_labels = [r for r in todo if labels[r]]
        with self.store.transaction():
            self.store.delete_repo_rows("issues", [r for r in todo if not labels[r]])
            self.store.set_states([(r, "issues", self.opt.as_of, "done", None, None) for r in todo if not labels[r]])

        def fetch(job: Job) -> dict[str, Any]:
            batch = job.items
            return self.client.query("good_first_issues", _slot_vars(
                _pairs(batch), GFI_SLOTS, lambda i, n: {f"l{i}": labels[batch[i]] if i < n else ["none"]}))

        def store(job: Job, body: dict[str, Any]) -> None:
            with self.store.transaction():
                self.store.delete_repo_rows("issues", job.items)
                for i, repo in enumerate(job.items):
                    node = (body.get("data") or {}).get(f"r{i}") or {}
                    issues = [Issue(repo, n["number"], n.get("title") or "", "OPEN", tuple(labels[repo]), 0, mapping.ts(n.get("createdAt")))
                              for n in ((node.get("issues") or {}).get("nodes") or [])]
                    self.store.upsert(issues)
                self.store.set_states([(r, "issues", self.opt.as_of, "done", None, None) for r in job.items])

        self._run_jobs([Job(tuple(b)) for b in _chunks(with_labels, GFI_SLOTS)], fetch, store, "issues", lambda j: j.items)

    # -- dependents ------------------------------------------------------------------------

    def _dependents(self, repos: list[str]) -> None:
        """One lookup a repository on the dependents service. When it cannot be reached or keeps
        failing, say so once, stop asking, and leave the rest missing (never zero) for the next run."""
        if not self.opt.dependents_api:
            return
        todo = self._todo("dependents", repos)
        url = self.opt.dependents_api.rstrip("/") + "/api/v1/packages/lookup"
        failures_running = 0

        def fetch(repo: str) -> Any:
            try:
                return self.client.get_json(url, {"repository_url": f"https://github.com/{repo}"})
            except NetworkError as err:
                return err

        for n, chunk in enumerate(_chunks(todo, DEPENDENTS_CHUNK)):
            if failures_running >= DEPENDENTS_BREAKER:
                left = len(todo) - n * DEPENDENTS_CHUNK
                self.summary.dependents_missing += left
                text = (f"the dependents service at {self.opt.dependents_api} kept failing ({failures_running} lookups in a row); "
                        f"stopped asking: dependents are missing for {left:,} repositories this run, and the next run asks again")
                self.summary.notices.append(text)
                self._notice(text)
                return
            found, done = [], []
            for repo, packages in self._fetch_all(list(chunk), fetch):
                if isinstance(packages, NetworkError):
                    failures_running += 1
                    self.summary.dependents_missing += 1
                    continue
                failures_running = 0
                done.append(repo)
                found.append(mapping.dependents(repo, packages if isinstance(packages, list) else None))
            with self.store.transaction():  # written a chunk at a time: one transaction per lookup crawls
                self.store.delete_repo_rows("dependents", done)
                self.store.upsert([dep for dep in found if dep])
                self.store.set_states([(repo, "dependents", self.opt.as_of, "done", None, None) for repo in done])
            self.progress("dependents", len(chunk), len(todo))
