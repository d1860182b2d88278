"""One collection run's shared machinery, which every stage and every forge's adapter works through:
the options and summary, the store's state rows, the queue of writes, and the jobs that fetch.

A response's rows are written in one transaction with the states that mark them done, so a run killed
at any point resumes where it stopped. A job that keeps failing is split or shrunk; one that cannot get
smaller has its repositories recorded as failed at its step, and the run goes on without them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from typing import Any, Protocol

from porchlamp import forges
from porchlamp.collect.errors import RequestFailed
from porchlamp.collect.http import ClientStats
from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.rules import Rules, load_rules
from porchlamp.models import as_of_instant
from porchlamp.store import Store

# Responses are written a few at a time, each write one transaction with the states that mark them
# done: a statement costs DuckDB milliseconds whatever its size, and a crash loses only what was not
# written yet (fetched again on resume).
WRITE_RECORDS, WRITE_RESPONSES = 4_000, 20
FINAL_TRIES = 3  # a request that cannot be split or shrunk further is tried this many more times


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
    second_pass: int = 0  # repositories a request that kept failing stopped, taken through the stages once more
    notices: list[str] = field(default_factory=list)
    unchanged: int = 0  # refresh: repositories confirmed from the listing alone, nothing else fetched
    changed: dict[str, int] = field(default_factory=dict)  # refresh: repositories by what changed (pushed, prs, issues, metadata)
    by_host: dict[str, dict[str, int]] = field(default_factory=dict)  # per forge host: repos, prs, requests, points

    @property
    def points_per_100_prs(self) -> float | None:
        return round(self.points * 100 / self.prs, 3) if self.prs else None

    @property
    def points_per_repo(self) -> float | None:
        return round(self.points / self.repos, 3) if self.repos else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "points_per_100_prs": self.points_per_100_prs, "points_per_repo": self.points_per_repo}


class Adapter(Protocol):
    """One forge host's requests and their mapping to the store's rows, for the shared stages
    (`collect/stages/`): GitHub's in `collect/github/`, GitLab's in `collect/gitlab/`. Each stage's
    module says which of its methods it calls and what it expects back."""

    forge: str
    host: str
    stats: ClientStats


@dataclass(frozen=True)
class Job:
    """One request's worth of work: the items it covers, its page size, and how often it was retried whole."""

    items: tuple[Any, ...]
    size: int | None = None
    tries: int = 0


def chunks(items: Sequence[Any], n: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


def split(job: Job, min_size: int | None = None) -> list[Job]:
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


State = tuple[str, str, date, str, str | None, str | None]  # (repo, stage, as_of, status, cursor, detail)


@dataclass
class Writes:
    """What responses add to the store: their rows and the states that mark them done, written together."""

    records: list[Any] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)
    responses: int = 0

    def take(self, other: "Writes") -> None:
        self.records += other.records
        self.states += other.states
        self.renames += other.renames
        self.responses += 1


class Run:
    """A collection run: what every stage and adapter shares (`store`, options, the window, the rule
    data, the summary) and the one way they write, fail and fetch."""

    def __init__(self, store: Store, adapters: Mapping[str, Adapter], options: CollectOptions, settings: Settings,
                 progress: Callable[[str, int, int | None], None], notice: Callable[[str], None]) -> None:
        self.store, self.opt, self.settings = store, options, settings
        self.adapters = dict(adapters)  # by host
        self.rules: Rules = load_rules(settings)
        self.bots = Bots(self.rules.bots)
        self.end = as_of_instant(options.as_of)
        self.start = self.end - timedelta(days=options.window_days)
        self.progress, self._notice = progress, notice
        self.summary = CollectSummary(as_of=options.as_of.isoformat())
        self.errors: dict[str, dict[str, str]] = {}  # repo -> {"step", "error"} of this run
        self._pending = Writes()  # responses received and not yet written

    @property
    def as_of(self) -> date:
        return self.opt.as_of

    def notice(self, text: str) -> None:
        self.summary.notices.append(text)
        self._notice(text)

    def state(self, repo: str, stage: str, status: str, cursor: Any = None, detail: str | None = None) -> State:
        """A state row for this run; a cursor that is not text is kept as JSON."""
        text = cursor if cursor is None or isinstance(cursor, str) else json.dumps(cursor)
        return (repo, stage, self.opt.as_of, status, text, detail)

    # -- forges ----------------------------------------------------------------------------

    def adapter(self, repo: str) -> Adapter | None:
        return self.adapters.get(forges.host_of(repo))

    def by_forge(self, repos: Iterable[str]) -> Iterator[tuple[Adapter, list[str]]]:
        """Repositories grouped by the adapter of their host, in the order each host first appears; one
        whose host has no adapter is recorded as failed (the run was given no client for that host)."""
        groups: dict[str, list[str]] = {}
        for repo in repos:
            groups.setdefault(forges.host_of(repo), []).append(repo)
        for host, group in groups.items():
            found = self.adapters.get(host)
            if found is None:
                self.fail(group, "setup", f"no client for {host}: give its API and token (docs/COLLECTING.md)")
                continue
            yield found, group

    # -- writing ---------------------------------------------------------------------------

    def write(self, out: Writes) -> None:
        """Queue one response's rows and states; write the queue once it is big enough."""
        self._pending.take(out)
        if len(self._pending.records) >= WRITE_RECORDS or self._pending.responses >= WRITE_RESPONSES:
            self.flush()

    def flush(self) -> None:
        """Write every queued response in one transaction: rows and the states that mark them done."""
        out, self._pending = self._pending, Writes()
        if not (out.records or out.states or out.renames):
            return
        with self.store.transaction():
            for requested, actual in out.renames:
                self.store.set_repo_name(requested, actual)
            self.store.upsert(out.records)
            self.store.set_states(out.states)

    def fail(self, repos: Iterable[str], step: str, error: str) -> None:
        """Record repositories whose step could not be collected: the run goes on without them."""
        rows = []
        for repo in dict.fromkeys(repos):
            if repo not in self.errors:
                self.errors[repo] = {"step": step, "error": error}
                rows.append(self.state(repo, "error", "failed", None, json.dumps(self.errors[repo])))
        if rows:
            with self.store.transaction():
                self.store.set_states(rows)

    def forgive(self, repos: Iterable[str]) -> None:
        """Forget this run's failures of `repos`, to try them again: their stages' own states say
        where each stopped."""
        again = [r for r in repos if self.errors.pop(r, None) is not None]
        if again:
            with self.store.transaction():
                self.store.delete_states(again, "error")

    def todo(self, stage: str, repos: Iterable[str]) -> list[str]:
        """The repositories whose `stage` is not done (or failed for good) for this run's as_of."""
        states = self.store.states(stage)
        return [r for r in repos if not ((st := states.get((r, stage))) and st["status"] in ("done", "failed")
                                         and st["as_of"] == self.opt.as_of)]

    def alive(self, repos: Iterable[str]) -> list[str]:
        return [r for r in repos if r not in self.errors]

    # -- fetching --------------------------------------------------------------------------

    def fetch_all(self, jobs: list[Any], fn: Callable[[Any], Any]) -> Iterator[tuple[Any, Any]]:
        """Run fetches a few at a time (forges ask for few concurrent requests); yield in order of jobs.
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

    def each(self, items: Sequence[Any], fetch: Callable[[Any], Any], write: Callable[[Any, Any, Writes], None], step: str,
             label: str | None, repos_of: Callable[[Any], Iterable[str]] = lambda item: [item]) -> None:
        """One request's worth of work an item, as the REST forges ask (a project, a PR, an account):
        fetch each, write what `write` makes of its answer, and move the bar `label` one on."""
        def store(job: Job, got: Any) -> None:
            out = Writes()
            write(job.items[0], got, out)
            self.write(out)
            if label:
                self.progress(label, 1, len(items))

        self.run_jobs([Job((x,)) for x in items], lambda job: fetch(job.items[0]), store, step, lambda j: repos_of(j.items[0]))

    def run_jobs(self, jobs: list[Job], fetch: Callable[[Job], Any], store: Callable[[Job, Any], None],
                 step: str, repos_of: Callable[[Job], Iterable[str]], min_size: int | None = None,
                 shrink: Callable[[Job], list[Job]] | None = None) -> None:
        """Fetch every job and store its answer. A job that keeps failing is split or shrunk and its
        parts go on; one that cannot get smaller has its repositories recorded as failed at `step`."""
        pending = jobs
        while pending:
            current, pending = pending, []
            for job, result in self.fetch_all(current, fetch):
                if isinstance(result, RequestFailed):
                    parts = (shrink or (lambda j: split(j, min_size)))(job)
                    if parts:
                        self.summary.splits += 1
                        pending.extend(parts)
                    else:
                        self.fail(repos_of(job), step, str(result))
                else:
                    store(job, result)
        self.flush()
