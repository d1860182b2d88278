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

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from porchlamp.config import Settings
from porchlamp.models import Commit, PullRequest, RepoData, TimelineItem

if TYPE_CHECKING:
    from porchlamp.evaluate.pulls import PRVerdict


def horizon(data: RepoData, verdicts: Iterable[PRVerdict], start: datetime, end: datetime,
            settings: Settings, sample: Sequence[Commit] | None = None) -> datetime | None:
    """The earliest window end, from `end` on, at which a verdict on `data` may differ from the one
    for [start, end); None when no later end can change it. The window's length stays the same.

    The least of its PR verdicts' own (`valid_until`: `pr_horizon` of this window, or of an earlier
    one it still holds for, which is the same instant since none of its times was crossed between),
    the other PRs' and timeline rows', and its commits': so a PR kept from an earlier day is never read.

    Commits are read only as the window's sample (`gates.commit_sample`, given as `sample`: a prefix
    of the window's commits, newest first, that ends at its first by a person past the newest few, or
    takes them all). The start passing a commit older than every sampled one leaves the sample as it
    was, so only a sampled commit's leaving counts, and any commit's entering at the end. Without
    `sample`, every commit's crossing counts."""
    w = settings.window
    best: datetime | None = None
    judged = set()
    for v in verdicts:
        judged.add(v.number)
        if v.valid_until is not None and (best is None or v.valid_until < best):
            best = v.valid_until
    opened = set()
    for pr in data.pulls:
        opened.add(pr.number)
        if pr.number not in judged:
            best = _least(best, pr_horizon(pr, data.timeline.get(pr.number, ()), start, end, w.response_days))
    span = end - start
    for number in data.timeline:
        if number not in opened:  # a timeline row whose PR row is missing still has its time compared
            for item in data.timeline[number]:
                best = _least(best, _crossed(item.created_at, start, end, span))
    for c in data.commits:  # each commit the end reaches; with no sample, every one the start leaves too
        if sample is None or c.committed_at >= end:
            best = _least(best, _crossed(c.committed_at, start, end, span))
    for c in sample or ():
        best = _least(best, _crossed(c.committed_at, start, end, span))
    return best


def _crossed(t: datetime, start: datetime, end: datetime, span: timedelta) -> datetime | None:
    """When an end first crosses time `t` from `end` on: the end reaches it, or the start does `span` later."""
    return t if t >= end else t + span if t >= start else None


def _least(best: datetime | None, t: datetime | None) -> datetime | None:
    return t if best is None or (t is not None and t < best) else best


def pr_horizon(pr: PullRequest, items: Sequence[TimelineItem], start: datetime, end: datetime,
               response_days: int) -> datetime | None:
    """`horizon` of one PR's verdict alone: the earliest window end, from `end` on, at which one of
    its own times is crossed (what its repository's context says of it is keyed apart: `pulls.standing`)."""
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
