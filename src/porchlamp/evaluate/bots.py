"""Which accounts are bots (SPEC section 3), each verdict with its reason: GitHub's Bot type, the
`[bot]`/`app/` forms, a sourced list of user accounts that act as bots, patterns and words (with an
allow-list of humans whose logins only look like bots), the project's own name, and behaviour.

Pure and cached per repository: `Bots(rules, repo, behaviour)` answers for one repository's accounts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase, translate
from functools import lru_cache

_SEPARATORS = re.compile(r"[-_.]")
_UNSEEN = object()


# A repository's maintainers and bots act on PR after PR, and each of their comments asks for
# their login's form (the bridge bots): each is normalised once while it is in use.
@lru_cache(maxsize=1 << 16)
def normalise_login(login: str) -> str:
    """One form for a login: lower case, without the REST `[bot]` suffix or the gh `app/` prefix."""
    s = login.strip().lower()
    if s.startswith("app/"):
        s = s[4:]
    if s.endswith("[bot]"):
        s = s[:-5]
    return s


@dataclass(frozen=True)
class BotRules:
    """The reviewed bot data (data/bots.toml, known_bots.csv, bot_like_humans.csv) plus configuration."""

    known: Mapping[str, str]  # normalised login -> where it is known from
    humans: Mapping[str, str]  # normalised login -> where it is known to be a person
    patterns: tuple[str, ...]
    words: re.Pattern[str]  # "<word>bot" at the end of a login
    project_suffixes: tuple[str, ...]
    any_pattern: re.Pattern[str] | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Most logins match no pattern: one compiled expression says so in one pass, where matching
        # the patterns one by one cost millions of calls on a snapshot.
        any_pattern = re.compile("|".join(f"(?:{translate(p)})" for p in self.patterns)) if self.patterns else None
        object.__setattr__(self, "any_pattern", any_pattern)

    @staticmethod
    def words_pattern(long: list[str], short: list[str], suffixes: list[str]) -> re.Pattern[str]:
        ends = "|".join(map(re.escape, suffixes))
        longs = "|".join(sorted(map(re.escape, long), key=len, reverse=True))
        shorts = "|".join(sorted(map(re.escape, short), key=len, reverse=True))
        return re.compile(rf"(?:(?:{longs})|(?:^|[-_.])(?:{shorts}))[-_.]?(?:{ends})\d*$")


def login_rules_reason(login: str, rules: BotRules) -> str | None:
    """What the login alone says (patterns and words; no lists): why it looks like a bot, or None."""
    norm = normalise_login(login)
    if rules.any_pattern is not None and rules.any_pattern.match(norm):
        pattern = next(p for p in rules.patterns if fnmatchcase(norm, p))  # the first, as the reason names it
        return f"login matches the bot pattern {pattern}"
    m = rules.words.search(norm)
    if m:
        return f"login ends in '{m.group(0)}', a word for automation"
    return None


class Bots:
    """Bot verdicts for one repository's accounts. `repo` (owner/name) lets a login built from the
    project's own name count; `behaviour` maps logins the snapshot saw acting as bots to why."""

    def __init__(self, rules: BotRules, repo: str | None = None, behaviour: Mapping[str, str] | None = None) -> None:
        self._rules = rules
        self._behaviour = behaviour or {}
        keys: set[str] = set()
        for part in (repo or "").lower().split("/"):
            key = _SEPARATORS.sub("", part)
            if len(key) >= 3:
                keys.add(key)
        self._project = tuple(sorted(keys, key=len, reverse=True))
        self._cache: dict[tuple[str | None, str | None], str | None] = {}

    def reason(self, login: str | None, account_type: str | None) -> str | None:
        """Why this account is a bot, or None for a person (or a deleted account)."""
        key = (login, account_type)
        found = self._cache.get(key, _UNSEEN)
        if found is _UNSEEN:
            found = self._cache[key] = self._reason(login, account_type)
        return found  # type: ignore[return-value]

    def is_bot(self, login: str | None, account_type: str | None) -> bool:
        # Asked millions of times a snapshot, nearly always of an account asked about before: one lookup.
        found = self._cache.get((login, account_type), _UNSEEN)
        return (self.reason(login, account_type) if found is _UNSEEN else found) is not None

    def _reason(self, login: str | None, account_type: str | None) -> str | None:
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
        r = self._rules
        if norm in r.humans:
            return None
        if norm in r.known:
            return f"on the known-bots list ({r.known[norm]})"
        if norm in self._behaviour:
            return self._behaviour[norm]
        by_login = login_rules_reason(login, r)
        if by_login:
            return by_login
        flat = _SEPARATORS.sub("", norm)
        for key in self._project:
            rest = flat[len(key):] if flat.startswith(key) else None
            if rest and any(rest.rstrip("0123456789").endswith(s) and len(rest) <= 16 for s in r.project_suffixes):
                return f"login is the project's name with '{rest}'"
        return None
