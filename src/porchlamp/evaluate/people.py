"""Who is who (SPEC section 3): bots, maintainers and brand-new accounts.

Bots are found in a fixed order: GraphQL type, `[bot]`/`app/` forms, the known-bots list,
then patterns. Maintainers come from association, from write-level actions in the window,
and from CODEOWNERS; association alone misses private org members.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

from porchlamp.evaluate.rules import Rules
from porchlamp.models import RepoData

MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
# Actions that need write or triage rights; the reason names the first one seen.
WRITE_ACTIONS = {
    "merged": "merged a PR",
    "labeled": "labelled a PR",
    "review_requested": "requested reviewers",
    "assigned": "assigned a PR",
}


def normalise_login(login: str) -> str:
    """One form for a login: lower case, without the REST `[bot]` suffix or the gh `app/` prefix."""
    s = login.strip().lower()
    if s.startswith("app/"):
        s = s[4:]
    if s.endswith("[bot]"):
        s = s[:-5]
    return s


def bot_reason(login: str | None, account_type: str | None, rules: Rules) -> str | None:
    """Why this account is a bot, or None for a human (or an unknown, deleted account)."""
    if account_type == "Bot":
        return "GitHub account of type Bot"
    if not login:
        return None
    raw = login.strip().lower()
    if raw.endswith("[bot]"):
        return "login ends in [bot]"
    if raw.startswith("app/"):
        return "login is an app/ login"
    norm = normalise_login(login)
    if norm in rules.bot_logins:
        return f"on the known-bots list ({rules.bot_sources.get(norm, 'packaged list')})"
    for pattern in rules.bot_patterns:
        if fnmatchcase(norm, pattern):
            return f"login matches the bot pattern {pattern}"
    return None


def is_bot_text(body: str, rules: Rules) -> bool:
    """Text an integration posts (deploy previews, CLA checks), whoever's account posted it."""
    if not body:
        return False
    low = body.lower()
    return any(t in low for t in rules.bot_templates)


@dataclass(frozen=True)
class Maintainers:
    """Maintainers of one repository, each with the first reason found."""

    reasons: dict[str, str]

    def __contains__(self, login: object) -> bool:
        return isinstance(login, str) and login.lower() in self.reasons

    def active(self) -> int:
        """How many showed themselves in the window (association or action, not CODEOWNERS alone)."""
        return sum(1 for r in self.reasons.values() if r != "named in CODEOWNERS")


def find_maintainers(data: RepoData, start: datetime, end: datetime, rules: Rules) -> Maintainers:
    """Maintainers from association, from write-level actions in [start, end), and CODEOWNERS."""
    reasons: dict[str, str] = {}

    def add(login: str | None, type_: str | None, why: str) -> None:
        if login and login.lower() not in reasons and bot_reason(login, type_, rules) is None:
            reasons[login.lower()] = why

    for pr in data.pulls:
        if start <= pr.created_at < end and pr.author_association in MAINTAINER_ASSOCIATIONS:
            add(pr.author, pr.author_type, f"association {pr.author_association}")
        for item in data.timeline.get(pr.number, ()):
            if not (start <= item.created_at < end):
                continue
            if item.actor_association in MAINTAINER_ASSOCIATIONS:
                add(item.actor, item.actor_type, f"association {item.actor_association}")
            elif item.kind in WRITE_ACTIONS:
                add(item.actor, item.actor_type, WRITE_ACTIONS[item.kind])
            elif item.kind == "closed" and item.actor and (pr.author is None or item.actor.lower() != pr.author.lower()):
                add(item.actor, item.actor_type, "closed someone else's PR")
    for login in data.community.codeowners:
        add(login, None, "named in CODEOWNERS")
    return Maintainers(reasons)


def is_brand_new(account_created: datetime | None, pr_created: datetime, days: int) -> bool:
    """Created less than `days` before the PR was opened; unknown age is not brand-new."""
    return account_created is not None and pr_created - account_created < timedelta(days=days)
