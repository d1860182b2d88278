"""Stage `timelines`: the PRs a later run queued (`pull#N`), fetched again whole, and then every
timeline page after a PR's first (`timeline#N`), until none is pending. A PR whose pages time out
keeps its smaller page size for the rest of the run.

Adapter: `pulls_by_id(run, pending, known_ci)` fetches the queued PRs, writing each with
`pulls.record` and marking its `pull#N` done (detail "gone" when the forge no longer has it);
`timelines(run, pending, page)` fetches one more page of each pending timeline and hands it to `page`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from porchlamp.collect.run import Run, Writes
from porchlamp.models import Account, TimelineItem


def run(run: Run, repos: list[str]) -> None:
    alive = set(repos)
    _by_id(run, alive)  # before continuations: a PR fetched by id may queue one
    alive -= set(run.errors)
    while True:
        pending = sorted((k, v) for k, v in run.store.states("timeline#").items()
                         if v["status"] == "pending" and k[0] in alive and k[0] not in run.errors)
        if not pending:
            return
        for adapter, group in run.by_forge(dict.fromkeys(k[0] for k, _ in pending)):
            hosts = set(group)
            adapter.timelines(run, [(k, v) for k, v in pending if k[0] in hosts], page)


def _by_id(run: Run, alive: set[str]) -> None:
    pending = sorted((k, v) for k, v in run.store.states("pull#").items() if v["status"] == "pending" and k[0] in alive)
    if not pending:
        return
    known_ci = run.store.known_ci()
    # A PR read before needs only the timeline items since that read; one whose continuation an
    # earlier run left unfinished is read whole, so nothing between is skipped.
    unfinished = {k for k, v in run.store.states("timeline#").items() if v["status"] != "done"}
    pending = [(k, {**st, "cursor": json.dumps({**json.loads(st["cursor"]), "since": None})}
                if (k[0], k[1].replace("pull#", "timeline#", 1)) in unfinished else st) for k, st in pending]
    for adapter, group in run.by_forge(dict.fromkeys(k[0] for k, _ in pending)):
        hosts = set(group)
        adapter.pulls_by_id(run, [(k, v) for k, v in pending if k[0] in hosts], known_ci)


def page(run: Run, repo: str, stage: str, cursor: dict[str, Any], items: list[TimelineItem],
         after: dict[str, Any] | None, out: Writes) -> None:
    """One more page of a PR's timeline: its items, and the PR pending again with the cursor `after`
    to the next page, or done."""
    out.records += items
    run.summary.timeline_items += len(items)
    if after is not None:
        out.states.append(run.state(repo, stage, "pending", {**cursor, **after}))
    else:
        out.states.append(run.state(repo, stage, "done"))


def whole(run: Run, page: Callable[..., None] = page) -> Callable[[Any, tuple[list[TimelineItem], list[Account]], Writes], None]:
    """What a REST forge's adapter writes for a PR's timeline read whole (its items, and the accounts
    seen acting on it), as `Run.each` calls it for each pending (`(repo, stage)`, state) item."""
    def write(item: Any, got: tuple[list[TimelineItem], list[Account]], out: Writes) -> None:
        ((repo, stage), st), (items, accounts) = item, got
        out.records += accounts
        page(run, repo, stage, json.loads(st["cursor"]), items, None, out)

    return write
