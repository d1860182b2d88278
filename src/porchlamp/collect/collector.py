"""Resumable, incremental collection of everything SPEC.md needs, into the store: the pipeline.

Each stage (`collect/stages/`) decides what to ask for and writes what comes back; each repository's
forge adapter (`collect/github/`, `collect/gitlab/`, `collect/forgejo/`) asks its API and reads the
answers. Every write goes with the state that marks it done (`collect/run.py`), so a run killed at any point resumes where
it stopped; a repository that keeps failing is recorded with the step and the error, the run goes
on, and the next run tries it first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from porchlamp.collect.errors import CollectError
from porchlamp.collect.github.adapter import GitHub
from porchlamp.collect.github.client import GraphQLClient
from porchlamp.collect.run import Adapter, CollectOptions, CollectSummary, Run
from porchlamp.collect.stages import accounts, authors, changed, ci, dependents, issues, meta, pulls, timelines
from porchlamp.config import Settings
from porchlamp.forges import GITHUB_HOST
from porchlamp.store import Store
from porchlamp.store.marks import ensure_marks

STAGES = ("changed", "meta", "pulls", "timeline", "accounts", "authors", "ci", "issues", "dependents")


def adapters_of(clients: GraphQLClient | Mapping[str, Any]) -> dict[str, Adapter]:
    """Each host's adapter: a GraphQL client is GitHub's; a mapping gives clients or adapters by host."""
    if isinstance(clients, GraphQLClient):
        return {GITHUB_HOST: GitHub(clients)}
    out: dict[str, Adapter] = {}
    for host, c in clients.items():
        out[host] = GitHub(c) if isinstance(c, GraphQLClient) else c.adapter() if hasattr(c, "adapter") else c
    return out


# Passes through the stages a repository stopped by a failing request gets besides the first.
AGAIN = 1


class Collector:
    """`Collector(store, clients, options).run(repos)`: `clients` is GitHub's GraphQL client, or the
    clients (or adapters) of each host the repositories live on."""

    def __init__(self, store: Store, clients: GraphQLClient | Mapping[str, Any], options: CollectOptions,
                 settings: Settings | None = None, progress: Callable[[str, int, int | None], None] | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        self.adapters = adapters_of(clients)
        self.run_ = Run(store, self.adapters, options, settings or Settings(),
                        progress or (lambda label, n, total: None), notice or (lambda text: None))

    @property
    def summary(self) -> CollectSummary:
        return self.run_.summary

    def run(self, requested: Sequence[str]) -> CollectSummary:
        run = self.run_
        store, opt, summary = run.store, run.opt, run.summary
        t0 = time.perf_counter()
        last = store.get_meta("collected_as_of")
        if last and date.fromisoformat(last) > opt.as_of:
            raise CollectError(f"the store already holds data collected for {last}, later than {opt.as_of}; "
                               "collect into a new store to go back in time")
        names = store.repo_names_map()
        repos = list(dict.fromkeys(names.get(r.lower(), r) for r in requested))
        # Repositories that failed last time are tried first.
        earlier = {r for r, _ in store.states("error").keys()}
        repos.sort(key=lambda r: r not in earlier)
        summary.repos = len(repos)
        if last and date.fromisoformat(last) < opt.as_of:
            summary.incremental = True
            changed.run(run, repos)
        todo, alive = repos, []
        for attempt in range(1 + AGAIN):
            live = meta.run(run, todo)
            seen = set(alive)
            alive += [r for r in live if r not in seen]
            for stage in (pulls.run, timelines.run, accounts.run, authors.run, ci.run, issues.run):
                stage(run, run.alive(live))
            dependents.run(run, run.alive(live), self._lookup())
            # A request given up after every retry was most often a passing fault (a 5xx, a cut
            # answer): the repositories it stopped go once more through the stages, from where they stopped.
            todo = list(run.errors)
            if not todo or attempt == AGAIN:
                break
            run.notice(f"{len(todo):,} {'repository' if len(todo) == 1 else 'repositories'} stopped by a request that kept "
                       "failing: trying once more")
            run.forgive(todo)
            summary.second_pass += len(todo)
        self._close_errors(earlier, alive)
        self._tally(repos, alive, t0)
        # Text is read once, when stored: what evaluation reads of each new or edited comment.
        ensure_marks(store, run.rules)
        store.mark_collected(opt.as_of)
        return summary

    def _lookup(self) -> Any:
        """The client that asks the dependents service: the first that can make a plain REST request."""
        return next((a.client for a in self.adapters.values() if hasattr(getattr(a, "client", None), "get_json")), None)

    def _close_errors(self, earlier: set[str], alive: list[str]) -> None:
        """Repositories that failed before and went through every stage this time are failed no more."""
        healed = [r for r in earlier if r in alive and r not in self.run_.errors]
        if healed:
            with self.run_.store.transaction():
                self.run_.store.delete_states(healed, "error")

    def _tally(self, repos: list[str], alive: list[str], t0: float) -> None:
        run, summary, store = self.run_, self.run_.summary, self.run_.store
        gone = store.states("meta")
        for repo in repos:
            st = gone.get((repo, "meta"))
            if st and st["status"] == "failed":
                summary.failed[st["detail"]] = summary.failed.get(st["detail"], 0) + 1
                summary.failures.append({"repo": repo, "step": "meta", "reason": st["detail"]})
        for repo, err in run.errors.items():
            summary.failed["error"] = summary.failed.get("error", 0) + 1
            summary.failures.append({"repo": repo, "step": err["step"], "reason": err["error"]})
        summary.done = len(run.alive(alive))
        summary.retries, summary.points_by_query = {}, {}
        for host, adapter in self.adapters.items():
            cs = adapter.stats
            summary.points += cs.points
            summary.requests += cs.requests
            summary.bytes_received += cs.bytes_received
            for k, v in cs.retries.items():
                summary.retries[k] = summary.retries.get(k, 0) + v
            for k, v in cs.points_by_query.items():
                summary.points_by_query[k] = summary.points_by_query.get(k, 0) + v
            if len(self.adapters) > 1:
                summary.by_host[host] = {"requests": cs.requests, "points": cs.points}
        summary.seconds = round(time.perf_counter() - t0, 2)
        full_before = store.get_meta("full_collection_points")
        if summary.incremental and full_before:
            summary.points_saved = int(full_before) - summary.points
        elif not summary.incremental:
            store.set_meta("full_collection_points", str(summary.points))
