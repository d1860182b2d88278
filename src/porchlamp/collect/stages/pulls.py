"""Stage `pulls`: every PR opened in the window, each with its first page of timeline; a PR whose
timeline has more pages is queued (`timeline#N`) for the timelines stage.

A repository collected before lists only its PRs updated since its last run, each queued (`pull#N`)
to be fetched again whole: any new comment, review, merge or close moves a PR's update time, so the
listed PRs are exactly those whose verdict can have changed. A listing cut short resumes from the
plan kept in the repository's state (`partial`).

Adapter: `pulls(run, plans, totals, known_ci)` pages through each repository's plan, writing PRs with
`record` and updated ones with `queue`, and the state of each listing (`done`, or `partial` with the
plan to resume it).
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from porchlamp.collect.run import Run, Writes
from porchlamp.collect.stages import meta as meta_stage
from porchlamp.models import Account, PullRequest, TimelineItem, as_of_instant


def run(run: Run, repos: list[str]) -> None:
    todo = run.todo("pulls", repos)
    states = run.store.states("pulls")
    details = meta_stage.details(run, todo)
    plans: dict[str, dict[str, Any]] = {}
    for repo in todo:
        st = states.get((repo, "pulls"))
        prior = st["as_of"] if st and st["status"] == "done" and st["as_of"] < run.as_of else None
        if st and st["status"] == "partial" and st["as_of"] == run.as_of:
            plans[repo] = json.loads(st["cursor"])
        elif prior is not None:
            # Listed by update, newest first, down to a day before the last run.
            plans[repo] = {"order": "UPDATED_AT", "after": None, "stop": (as_of_instant(prior) - timedelta(days=1)).isoformat()}
            run.summary.incremental = True
        else:
            plans[repo] = {"order": "CREATED_AT", "after": None, "stop": run.start.isoformat()}
    totals = {r: int(details[r].get("total_prs", 100)) for r in todo}
    known_ci = run.store.known_ci() if any(p["order"] == "CREATED_AT" for p in plans.values()) else {}
    for adapter, group in run.by_forge(todo):
        adapter.pulls(run, {r: plans[r] for r in group}, totals, known_ci, len(todo))


def record(run: Run, repo: str, pr: PullRequest, account: Account | None, items: list[TimelineItem],
           more: dict[str, Any] | None, known_ci: dict[tuple[str, int], bool], out: Writes, since: str | None = None) -> None:
    """One PR as rows; `more`: the adapter's cursor to the rest of its timeline, queued for the timelines
    stage. Every page is read: who answered, who acted as a maintainer and which texts are templates
    depend on the whole window, so no page can be known to be irrelevant while collecting."""
    if (repo, pr.number) in known_ci:  # keep what the ci stage learnt in an earlier run
        pr = pr._replace(has_ci=known_ci[(repo, pr.number)])
    out.records += [pr, *items] + ([account] if account else [])
    run.summary.prs += 1
    run.summary.timeline_items += len(items)
    if more is not None:
        out.states.append(run.state(repo, f"timeline#{pr.number}", "pending", {**more, "since": since}))


def refetched(run: Run, repo: str, stage: str, found: tuple[PullRequest, Account | None] | None, more: dict[str, Any],
              known_ci: dict[tuple[str, int], bool], out: Writes) -> None:
    """A queued PR (`pull#N`) read again whole: done, or gone when the forge no longer shows it; its
    timeline queued whole (`more`: the adapter's cursor to it)."""
    out.states.append(run.state(repo, stage, "done", None, None if found else "gone"))
    if found:
        record(run, repo, found[0], found[1], [], more, known_ci, out, None)


def queue(run: Run, repo: str, number: int, cursor: dict[str, Any], out: Writes) -> None:
    """A PR updated since the last run, to be fetched again whole by the timelines stage."""
    out.states.append(run.state(repo, f"pull#{number}", "pending", cursor))


def listed(run: Run, repo: str, plan: dict[str, Any], more: bool, out: Writes) -> None:
    """The state of a repository's listing: done, or partial with the plan that resumes it."""
    out.states.append(run.state(repo, "pulls", "partial" if more else "done", plan if more else None))


def unavailable(run: Run, repo: str, out: Writes) -> None:
    out.states.append(run.state(repo, "pulls", "failed", None, "pull requests unavailable"))
