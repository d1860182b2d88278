"""A project as the site shows it: its result row, its goals' rows and what its page reads besides;
a `Row` is a stored row as a read-only mapping, made from a listing or a query.
"""

from __future__ import annotations

from porchlamp import forges
from porchlamp.figures import number

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from porchlamp.evaluate.gates import outcome_counts
from porchlamp.evaluate.relations import EXCLUSION_REASONS
from porchlamp.publish.changes import Change
from porchlamp.publish.words import kind_label, status_words
from porchlamp.stats import quantile_or_never


class Row(Mapping[str, Any]):
    """A stored row as a read-only mapping over a tuple, its column names shared by every row of its
    query or listing: cheaper to make and hold than a dict for each project and each of its goals."""

    __slots__ = ("_names", "_values")

    def __init__(self, names: Mapping[str, int], values: Sequence[Any]) -> None:
        self._names, self._values = names, values

    def __getitem__(self, key: str) -> Any:
        return self._values[self._names[key]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Row({dict(self)!r})"


@dataclass
class Project:
    repo: str
    row: Mapping[str, Any]
    profiles: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    outside_prs: list[dict[str, Any]] = field(default_factory=list)  # their rows, newest first
    excluded: dict[str, int] = field(default_factory=dict)  # its other PRs by why they are left out, most first
    # the accounts whose PRs were set aside as a bot's: login, prs, reason, number, quote (most PRs first)
    bot_authors: list[dict[str, Any]] = field(default_factory=list)
    homepage_url: str | None = None  # as GitHub gave it: untrusted (`homepage`)
    topics: tuple[str, ...] = ()
    change: Change | None = None
    issues_json: str | None = None  # good first issues, as the accessibility component found them (`issues`)
    digest: str | None = None  # its stored rows in the four result tables but its place, as one digest
    place: str | None = None  # its goals' ranks, moves and explanations, as one digest
    # The project of the same snapshot where its review happens (a mirror's: repo, status, kind,
    # answered, outside_prs, forge), and the repositories that point here as their project.
    home: dict[str, Any] | None = None
    mirrors: tuple[str, ...] = ()

    @property
    def homepage(self) -> str | None:
        """Its homepage if that is a link a page may hold (`safe_url`)."""
        return safe_url(self.homepage_url)

    @property
    def issues(self) -> list[dict[str, Any]]:
        """Its good first issues, read from their JSON only when asked: most listings never do."""
        found: list[dict[str, Any]] | None = json.loads(self.issues_json) if self.issues_json else None
        return found or []

    @property
    def status(self) -> str:
        return str(self.row["status"])

    @property
    def forge(self) -> str:
        """The software its host runs (GitHub's for a snapshot from before forges were told apart)."""
        return str(self.row.get("forge") or "github")

    @property
    def forge_name(self) -> str:
        """Its forge's name as people write it: "GitHub", "GitLab", "Forgejo"."""
        return forges.FORGE_NAMES.get(self.forge, self.forge)

    @property
    def web_url(self) -> str:
        return forges.web_url(self.repo)

    def change_url(self, number: int) -> str:
        return forges.change_url(self.repo, number, self.forge)

    def issue_url(self, number: int) -> str:
        return forges.issue_url(self.repo, number, self.forge)

    @property
    def change_noun(self) -> str:
        """What its forge calls a change: "merge request" on GitLab, "pull request" elsewhere."""
        return forges.change_words(self.forge)[0]

    @property
    def pr_word(self) -> str:
        """What its forge calls a change, short: "MR" on GitLab, "PR" elsewhere."""
        return forges.change_words(self.forge)[1]

    @property
    def change_mark(self) -> str:
        return forges.change_mark(self.forge)

    @property
    def forge_words(self) -> str:
        """Where it lives, said on its page: "on GitLab (gitlab.example.org)", with what stands in for what
        its forge does not show; nothing for GitHub's."""
        host = forges.host_of(self.repo)
        name = forges.FORGE_NAMES.get(self.forge, self.forge)
        if host == forges.GITHUB_HOST:
            return ""
        if self.forge == "forgejo":  # what stands in for the signals Forgejo lacks (SPEC section 13, DECISIONS)
            return (f"on {name} ({host}). {name} does not say who is a project's member on a pull request, or which "
                    "accounts are bots (but its own Actions account): here the people who can write to it (its owner, "
                    "those it lets be assigned, the owning organisation's public members) count as its maintainers, "
                    "a draft is a pull request whose title starts WIP:, and bots are known by their names, "
                    "their texts and what they do")
        if self.forge != "gitlab":
            return f"on {name} ({host})"
        return (f"on {name} ({host}), where a pull request is a merge request. {name} does not say who is a "
                "project's member on a merge request: here its members with the Developer role or above count as its "
                "maintainers, and bots are the accounts it marks as bot users or known by their names, texts and acts")

    def home_verdict(self, days: int) -> str:
        """What became of outside changes at the project its review happens on: "ranked; it answered
        61 of 68 outside merge requests within 14 days"."""
        h = self.home
        if h is None:
            return ""
        said = status_words(h["status"], h["kind"], h["forge"] or "github")
        said = said[:1].lower() + said[1:]  # it follows a dash in the page's sentence
        n = h["outside_prs"] or 0
        if not n or h["status"] == "undecided":
            return said
        noun = forges.change_words(h["forge"] or "github")[0]
        return f"{said}; it answered {h['answered']} of {n} outside {noun}{'' if n == 1 else 's'} within {days} days"

    @property
    def owner(self) -> str:
        return self.repo.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.repo.split("/", 1)[1]

    def outside(self) -> list[dict[str, Any]]:
        return self.outside_prs

    @property
    def words(self) -> str:
        """Status and kind in plain words."""
        return status_words(self.status, self.row["kind"], self.forge)

    @property
    def kind_words(self) -> str:
        return kind_label(self.status, self.row["kind"], self.forge)

    def counts(self, days: int = 14) -> str:
        """"61 of 68 answered within 14 days; 3 closed without an answer; 1 answered late; 3 with no response"."""
        r = self.row
        return outcome_counts(r["answered"], r["closed_silently"], r["unanswered"], days, r.get("answered_late")) if r["outside_prs"] else f"no outside {self.pr_word}s"

    @property
    def answered_of(self) -> str:
        """"61 of 68": answered within 14 days, of all judged outside PRs."""
        return f"{number(self.row['answered'])} of {number(self.row['outside_prs'])}" if self.row["outside_prs"] else "–"

    @property
    def flags(self) -> list[str]:
        """What a reader should know before trusting the score: borderline, or few PRs behind it."""
        out = []
        if self.row["borderline"]:
            out.append("borderline")
        if self.status == "ranked" and not self.row["judged"]:  # too few outside PRs for the black-hole verdict
            out.append(f"few {self.pr_word}s")
        return out

    def excluded_counts(self) -> list[tuple[str, int]]:
        return [(EXCLUSION_REASONS.get(k, k), n) for k, n in self.excluded.items()]

    def response_times(self) -> dict[str, dict[str, Any]]:
        """Median time to first response for first-timers and for everyone else, over all their
        outside PRs as everywhere else (one not answered in time counts as never: SPEC section 7)."""
        out = {}
        for label, group in (("first-timers", [p for p in self.outside() if p["first_timer"]]),
                             ("others", [p for p in self.outside() if not p["first_timer"]])):
            answered = sum(1 for p in group if p["outcome"] == "answered")
            median = quantile_or_never([p["hours_to_response"] if p["outcome"] == "answered" else None for p in group], 0.5)
            out[label] = {"prs": len(group), "answered": answered, "median_hours": median}
        return out

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = json.loads(self.row["evidence"] or "{}")
        return ev

    def good_first_issues(self) -> list[dict[str, Any]]:
        return self.issues


def safe_url(url: str | None) -> str | None:
    """The URL if it is http(s) with a host, else None: links go nowhere else."""
    if not url or not isinstance(url, str):
        return None
    try:
        parts = urlparse(url.strip())
    except ValueError:
        return None
    return url.strip() if parts.scheme in ("http", "https") and parts.netloc else None
