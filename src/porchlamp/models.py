"""The records every stage shares: repositories, accounts, pull requests and their timelines.

Read-only and typed. All datetimes are naive UTC (the store keeps TIMESTAMP in UTC); a snapshot's
`as_of` date means the instant `as_of 00:00 UTC`, the end of its window.

The records of which there are many (pull requests, timeline items, commits) are named tuples,
made from a row of values in C; the rest are frozen dataclasses with slots. Both are read-only and
compared field by field; `field_names` takes either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date, datetime, time
from typing import Any, NamedTuple

from porchlamp import forges

ACCOUNT_TYPES = ("User", "Bot", "Mannequin", "Organization")
ASSOCIATIONS = (
    "OWNER",
    "MEMBER",
    "COLLABORATOR",
    "CONTRIBUTOR",
    "FIRST_TIME_CONTRIBUTOR",
    "FIRST_TIMER",
    "MANNEQUIN",
    "NONE",
)
PR_STATES = ("OPEN", "CLOSED", "MERGED")
# Timeline item kinds kept from GitHub's PR timeline; the GraphQL type of each is in collect/mapping.
TIMELINE_KINDS = (
    "comment",  # IssueComment
    "review",  # PullRequestReview (any state; its review comments ride with it)
    "ready_for_review",  # ReadyForReviewEvent
    "converted_to_draft",  # ConvertToDraftEvent
    "closed",  # ClosedEvent
    "reopened",  # ReopenedEvent
    "merged",  # MergedEvent
    "labeled",  # LabeledEvent
    "assigned",  # AssignedEvent
    "review_requested",  # ReviewRequestedEvent
)


DOCUMENT_CHARS = 65_536  # how much of a project document is kept: enough for any "how to contribute"


def as_of_instant(as_of: date) -> datetime:
    """The instant a snapshot is taken: midnight UTC at the start of `as_of`."""
    return datetime.combine(as_of, time(0, 0))


@dataclass(frozen=True, slots=True)
class Account:
    login: str
    type: str  # one of ACCOUNT_TYPES
    created_at: datetime | None = None
    node_id: str | None = None  # GitHub's global id (a commit-history filter by author needs it); a forge's user id elsewhere
    host: str = forges.GITHUB_HOST  # a login names an account on one host only


@dataclass(frozen=True, slots=True)
class Repository:
    name_with_owner: str
    owner_type: str = "User"  # "User" or "Organization"
    description: str | None = None
    homepage_url: str | None = None
    is_archived: bool = False
    is_fork: bool = False
    is_mirror: bool = False
    parent: str | None = None  # name_with_owner of the fork's parent; None when gone or not a fork
    parent_stars: int | None = None
    parent_archived: bool | None = None
    stars: int = 0
    forks: int = 0
    disk_usage_kb: int = 0
    primary_language: str | None = None
    languages: tuple[tuple[str, int], ...] = ()  # (language, bytes), as GitHub's Linguist reports
    topics: tuple[str, ...] = ()
    license_spdx: str | None = None  # SPDX id, "NOASSERTION", or None when there is no license
    default_branch: str | None = "main"
    root_files: tuple[str, ...] = ()
    has_issues: bool = True
    created_at: datetime | None = None
    pushed_at: datetime | None = None
    forge: str = "github"  # the software its host runs (forges.FORGES); the host is in the name

    @property
    def owner(self) -> str:
        """Everything before the last part of the path (GitLab's groups nest)."""
        return forges.path_of(self.name_with_owner).rsplit("/", 1)[0]

    @property
    def name(self) -> str:
        return self.name_with_owner.rsplit("/", 1)[1]

    @property
    def url(self) -> str:
        return forges.web_url(self.name_with_owner)


@dataclass(frozen=True, slots=True)
class CommunityFiles:
    repo: str
    contributing: bool = False
    code_of_conduct: bool = False
    security_policy: bool = False
    governance: bool = False
    codeowners: tuple[str, ...] = ()  # logins named in CODEOWNERS (teams are left out)
    ai_policy: tuple[str, ...] = ()  # paths of AI contribution policy files found
    pr_template: str | None = None
    contributing_text: str | None = None  # CONTRIBUTING (root, .github/ or docs/), first DOCUMENT_CHARS
    readme_text: str | None = None  # the root README, first DOCUMENT_CHARS


class PullRequest(NamedTuple):
    repo: str
    number: int
    node_id: str
    title: str
    author: str | None  # None: the account was deleted ("ghost")
    author_type: str | None
    author_association: str
    created_at: datetime
    is_draft: bool = False
    state: str = "OPEN"
    merged_at: datetime | None = None
    merged_by: str | None = None
    closed_at: datetime | None = None
    updated_at: datetime | None = None
    body: str = ""
    has_ci: bool | None = False  # None: not checked (the collector samples recent merged PRs)

    def url(self, forge: str | None = None) -> str:
        return forges.change_url(self.repo, self.number, forge)


class TimelineItem(NamedTuple):
    node_id: str
    repo: str
    number: int
    kind: str  # one of TIMELINE_KINDS
    created_at: datetime
    actor: str | None
    actor_type: str | None = None
    actor_association: str | None = None  # comments and reviews carry one; events do not
    body: str = ""
    review_state: str | None = None


class Commit(NamedTuple):
    repo: str
    oid: str
    committed_at: datetime
    author_login: str | None
    author_name: str | None = None
    author_type: str | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class Issue:
    repo: str
    number: int
    title: str
    state: str  # OPEN or CLOSED
    labels: tuple[str, ...] = ()
    assignees: int = 0
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Member:
    """A person with access to a project, at the level the forge reports (GitLab: 10 Guest, 15 Planner,
    20 Reporter, 30 Developer, 40 Maintainer, 50 Owner). GitHub reports roles through associations instead."""

    repo: str
    login: str
    access_level: int


@dataclass(frozen=True, slots=True)
class Dependents:
    repo: str
    ecosystem: str | None  # registry the project publishes to (PyPI, npm, ...), None if none found
    package: str | None
    dependent_packages: int | None = None  # None: the service has no data for this package
    dependent_repos: int | None = None


@dataclass(frozen=True, slots=True)
class RepoData:
    """Everything stored about one repository: what a hand-built case or the sample world holds."""

    repo: Repository
    community: CommunityFiles
    pulls: tuple[PullRequest, ...] = ()  # in number order
    timeline: Mapping[int, tuple[TimelineItem, ...]] = field(default_factory=dict)  # by PR number
    commits: tuple[Commit, ...] = ()
    issues: tuple[Issue, ...] = ()
    dependents: Dependents | None = None


def is_named_tuple(model: type) -> bool:
    """Whether a model is one of the named tuples (the others are frozen dataclasses)."""
    return issubclass(model, tuple) and hasattr(model, "_fields")


def field_names(model: type) -> list[str]:
    """A model's fields, in order: a named tuple's or a dataclass's."""
    return list(model._fields) if is_named_tuple(model) else [f.name for f in fields(model)]  # type: ignore[attr-defined]


def record_to_dict(obj: Any) -> dict[str, Any]:
    """A model as a plain dict of its fields (tuples kept)."""
    return {name: getattr(obj, name) for name in field_names(type(obj))}


# Fields stored as lists (read back as tuples); `languages` is a list of structs besides.
LIST_FIELDS = frozenset({"topics", "root_files", "codeowners", "ai_policy", "labels"})


def stored_maker(model: type) -> Callable[[Sequence[Any]], Any]:
    """What makes `model` records from stored rows of its fields in order: only the list and struct
    columns are converted (a call per value cost a second at 11,000 repositories)."""
    cols = field_names(model)
    lists = [k for k, c in enumerate(cols) if c in LIST_FIELDS or c == "languages"]
    if not lists:
        return lambda row: model(*row)

    def make(row: Sequence[Any]) -> Any:
        values = list(row)
        for k in lists:
            values[k] = from_stored(cols[k], values[k])
        return model(*values)

    return make


def from_stored(name: str, value: Any) -> Any:
    """A stored column's value as the models hold it: lists as tuples, languages as (name, bytes) pairs."""
    if name == "languages":
        return tuple((d["name"], d["bytes"]) for d in (value or ()))
    if isinstance(value, list):
        return tuple(value)
    return value
