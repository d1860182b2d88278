"""How long a repository's verdict holds as the window moves forward over the same rows: the first
window end at which some comparison of a stored time with the window's start or end could turn.

Evaluation compares few times with the window (SPEC section 3): when a PR was opened or merged, when
a timeline item or a commit happened (in or out of the window, before or after its end), and when a
PR's response period runs out (its clock start plus the response days, against the end). While
neither end crosses one of them, the same rows give the same verdict, so a later day carries it
instead of judging again (`snapshot.evaluate_store`). A rule that compares another time with the
window must add it here; the daily-refresh test fails until it does.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from datetime import datetime, timedelta

from porchlamp.config import Settings
from porchlamp.models import PullRequest, RepoData, TimelineItem


def window_times(data: RepoData) -> tuple[list[datetime], list[datetime]]:
    """(times compared with both ends of the window, clock starts whose response period is compared
    with its end) of one repository's rows."""
    both: list[datetime] = []
    clocks: list[datetime] = []
    for pr in data.pulls:
        both.append(pr.created_at)
        clocks.append(pr.created_at)
        if pr.merged_at is not None:
            both.append(pr.merged_at)
    for items in data.timeline.values():
        for item in items:
            both.append(item.created_at)
            if item.kind == "ready_for_review":
                clocks.append(item.created_at)
    both.extend(c.committed_at for c in data.commits)
    return both, clocks


def _first_from(times: list[datetime], since: datetime, offset: timedelta) -> datetime | None:
    """The least t + offset not before `since`, of sorted `times`."""
    i = bisect_left(times, since - offset)
    return times[i] + offset if i < len(times) else None


def horizon(data: RepoData, start: datetime, end: datetime, settings: Settings) -> datetime | None:
    """The earliest window end, from `end` on, at which a verdict on `data` may differ from the one
    for [start, end); None when no later end can change it. The window's length stays the same."""
    both, clocks = window_times(data)
    both.sort()
    clocks.sort()
    span = end - start
    # The end crosses a time when it reaches it, the start `span` later; a response period runs out
    # against the end only.
    found = [_first_from(both, end, timedelta(0)), _first_from(both, end, span),
             _first_from(clocks, end, timedelta(days=settings.window.response_days))]
    return min((t for t in found if t is not None), default=None)


def pr_horizon(pr: PullRequest, items: Sequence[TimelineItem], start: datetime, end: datetime,
               response_days: int) -> datetime | None:
    """`horizon` of one PR's verdict alone: the earliest window end, from `end` on, at which one of
    its own times is crossed (what its repository's context says of it is keyed apart: `pulls.pr_key`)."""
    span = end - start
    resp = timedelta(days=response_days)
    limit = end - resp  # a clock from here on has its response period run out at `end` or later
    best: datetime | None = None
    # One pass, in whatever order the items come (a PR's every item, for each verdict judged).
    for t, clock in ((pr.created_at, True), (pr.merged_at, False), *((i.created_at, i.kind == "ready_for_review") for i in items)):
        if t is None:
            continue
        if t >= start:  # the end crosses it when it reaches it; the start, `span` later
            c = t if t >= end else t + span
            if best is None or c < best:
                best = c
        if clock and t >= limit:
            c = t + resp
            if best is None or c < best:
                best = c
    return best


def holds(valid_until: datetime | None, was_end: datetime, end: datetime) -> bool:
    """Whether a verdict computed for the window ending `was_end`, good until `valid_until`, is the
    verdict for the window ending `end` on the same rows."""
    return was_end == end or (was_end < end and (valid_until is None or end < valid_until))
