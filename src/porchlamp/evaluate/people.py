"""Who is who (SPEC section 3): maintainers, first-timers and brand-new accounts (bots are in bots.py).

Maintainers come from association, from write-level actions in the window, and from CODEOWNERS;
association alone misses private org members. An action on a PR by that PR's own author proves
nothing (GitHub files CODEOWNERS' automatic review requests under the author), and bots never count.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from porchlamp.evaluate.bots import Bots
from porchlamp.models import PullRequest, RepoData, TimelineItem

MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
# Actions that need write or triage rights; the reason names the first one seen.
WRITE_ACTIONS = {
    "merged": "merged a PR",
    "labeled": "labelled a PR",
    "review_requested": "requested reviewers",
    "assigned": "assigned a PR",
    "closed": "closed someone else's PR",
}


@dataclass(frozen=True)
class Maintainers:
    """Maintainers of one repository, each with the first reason found; `acts`: each PR's acts that
    showed one in the window (`acts_text`, by number), which its verdict keeps for a later day."""

    reasons: dict[str, str]
    acts: Mapping[int, str] = field(default_factory=dict, compare=False)

    def __contains__(self, login: object) -> bool:
        return isinstance(login, str) and login.lower() in self.reasons

    def active(self) -> int:
        """How many showed themselves in the window (association or action, not CODEOWNERS alone)."""
        return sum(1 for r in self.reasons.values() if r != "named in CODEOWNERS")


Act = tuple[str, "str | None", str]  # (login, account type, why)


def maintainer_acts(pr: PullRequest, items: Sequence[TimelineItem], start: datetime, end: datetime) -> list[Act]:
    """What one PR shows of maintainers in [start, end), in the order met: its author's association,
    its merger, and each item's actor by association or by a write-level action on someone else's PR.
    One act for each login and account type (a later one would add nothing)."""
    acts: list[Act] = []
    seen: set[tuple[str, str | None]] = set()

    def act(login: str | None, type_: str | None, why: str) -> None:
        if login and (login, type_) not in seen:
            seen.add((login, type_))
            acts.append((login, type_, why))

    author = (pr.author or "").lower()
    if start <= pr.created_at < end and pr.author_association in MAINTAINER_ASSOCIATIONS:
        act(pr.author, pr.author_type, f"association {pr.author_association}")
    # The merge event carries the merger's type; the PR's mergedBy stands in when no page with it was read.
    if pr.merged_by and pr.merged_at and start <= pr.merged_at < end and pr.merged_by.lower() != author \
            and not any(i.kind == "merged" for i in items):
        act(pr.merged_by, None, WRITE_ACTIONS["merged"])
    for item in items:
        if not (start <= item.created_at < end):
            continue
        if item.actor_association in MAINTAINER_ASSOCIATIONS:
            act(item.actor, item.actor_type, f"association {item.actor_association}")
        elif item.kind in WRITE_ACTIONS and item.actor and item.actor.lower() != author:
            act(item.actor, item.actor_type, WRITE_ACTIONS[item.kind])
    return acts


def acts_text(acts: Sequence[Act]) -> str:
    """A PR's acts as stored with its verdict ("" for none)."""
    return json.dumps(acts, ensure_ascii=False) if acts else ""


def find_maintainers(data: RepoData, start: datetime, end: datetime, bots: Bots,
                     kept: Mapping[int, str] | None = None) -> Maintainers:
    """Maintainers from association, from write-level actions in [start, end), and CODEOWNERS.
    `kept`: the stored acts (`acts_text`) of PRs whose rows and whose own times' place in the window
    are those they were found for: those PRs' timeline rows are not read."""
    reasons: dict[str, str] = {}
    texts: dict[int, str] = {}
    # The same maintainers act on PR after PR in the same ways: a list of acts met again adds nothing
    # (each login in it is a maintainer already, or a bot), so it is written and read once.
    text_of: dict[tuple[Act, ...], str] = {}
    met: set[str] = set()

    def add(login: str | None, type_: str | None, why: str) -> None:
        if login and login.lower() not in reasons and not bots.is_bot(login, type_):
            reasons[login.lower()] = why

    for pr in data.pulls:
        text = kept.get(pr.number) if kept else None
        acts: Sequence[Act] | None = None
        if text is None:
            acts = tuple(maintainer_acts(pr, data.timeline.get(pr.number, ()), start, end))
            text = text_of.get(acts)
            if text is None:
                text = text_of[acts] = acts_text(acts)
        texts[pr.number] = text
        if text in met:
            continue
        met.add(text)
        for login, type_, why in acts if acts is not None else json.loads(text) if text else ():
            add(login, type_, why)
    for login in data.community.codeowners:
        add(login, None, "named in CODEOWNERS")
    return Maintainers(reasons, texts)


def first_contributions(data: RepoData) -> dict[str, datetime]:
    """When each author first had a PR merged or a commit on the default branch, as far as the
    collected history shows: a PR's author is a first-timer when this is not before the PR."""
    first: dict[str, datetime] = {}

    def note(login: str | None, at: datetime | None) -> None:
        if login and at is not None:
            key = login.lower()
            if key not in first or at < first[key]:
                first[key] = at

    for pr in data.pulls:
        note(pr.author, pr.merged_at)
    for c in data.commits:
        note(c.author_login, c.committed_at)
    return first


def is_brand_new(account_created: datetime | None, pr_created: datetime, days: int) -> bool:
    """Created less than `days` before the PR was opened; unknown age is not brand-new."""
    return account_created is not None and pr_created - account_created < timedelta(days=days)
