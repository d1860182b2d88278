"""What a collection will cost, checked before it starts: the token's budget and an estimate from
this store's own last collection, or from the cost measured per repository (bench/RESULTS.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from typing import Any

from porchlamp.collect.github.client import GraphQLClient
from porchlamp.collect.forgejo.client import ForgejoClient
from porchlamp.collect.gitlab.client import GITLAB_COM_PER_MINUTE, USERS_LIMIT, GitLabClient
from porchlamp.store import Store

# Measured on 11,000 repositories (bench/RESULTS.md): what a first full collection costs a repository.
POINTS_PER_REPO_FULL = 1.06
# Measured on the sample world's GitLab projects (bench/RESULTS.md): requests a project takes in a full
# collection, and of them `/users/:id` look-ups (limited apart on gitlab.com).
GITLAB_REQUESTS_PER_PROJECT, GITLAB_USERS_PER_PROJECT = 349, 17
# Measured on the sample world's Codeberg projects (bench/RESULTS.md): requests a project takes in a full collection.
FORGEJO_REQUESTS_PER_PROJECT = 268


@dataclass(frozen=True)
class CollectPlan:
    """What a run will cost, checked before it starts: the token's budget and the estimate."""

    repos: int
    limit: int | None
    remaining: int | None
    reset_at: str | None
    estimated_points: int
    basis: str

    @property
    def hours(self) -> float | None:
        return round(self.estimated_points / self.limit, 2) if self.limit else None

    def lines(self) -> list[str]:
        budget = (f"token accepted: {self.remaining:,} of {self.limit:,} points left this hour (resets {self.reset_at})"
                  if self.limit is not None and self.remaining is not None else "token accepted")
        hours = f", about {self.hours:.2f} hours of one token" if self.hours is not None else ""
        return [budget, f"estimate for {self.repos:,} repositories: about {self.estimated_points:,} points{hours} ({self.basis})"]


# Measured shares of a full collection (bench/RESULTS.md): a run one day after the last, and one a
# month after; in between the cost grows with the PRs that moved, roughly linearly.
DAILY_SHARE, MONTHLY_SHARE = 0.021, 0.238


def incremental_share(days: int) -> float:
    """The estimated cost of an incremental run `days` after the last, as a share of a full one."""
    return min(1.0, DAILY_SHARE + (MONTHLY_SHARE - DAILY_SHARE) * (days - 1) / 30)


def plan_collection(client: GraphQLClient, store: Store, repos: int, as_of: date) -> CollectPlan:
    """Check the token and its budget (spending nothing), and estimate the run's points: from this
    store's own last collection when it has one, else from the measured cost per repository."""
    budget = client.budget()
    last = store.get_meta("collected_as_of")
    full = store.get_meta("full_collection_points")
    per_repo, basis = POINTS_PER_REPO_FULL, "1.06 points a repository, measured on 11,000 (bench/RESULTS.md)"
    if last and full and store.count("repositories"):
        per_repo = int(full) / store.count("repositories")
        basis = f"this store's last full collection: {per_repo:.2f} points a repository"
        days = (as_of - date.fromisoformat(last)).days
        if days > 0:
            share = incremental_share(days)
            per_repo *= share
            basis += f"; a run {days} day{'s' if days > 1 else ''} after the last costs about {share:.0%} of that"
    return CollectPlan(repos, budget.get("limit"), budget.get("remaining"), budget.get("resetAt"),
                       max(1, round(repos * per_repo)), basis)


def plan_gitlab(client: GitLabClient, projects: int, per_minute: int | None = None) -> list[str]:
    """Check a GitLab host's token (one request) and estimate a full collection of `projects` there: its
    requests, and the hours its limits allow them in (gitlab.com's documented ones unless configured)."""
    version = client.version().get("version", "unknown")
    requests = projects * GITLAB_REQUESTS_PER_PROJECT
    users = projects * GITLAB_USERS_PER_PROJECT
    rate = per_minute or GITLAB_COM_PER_MINUTE
    minutes = requests / rate
    if client.host == "gitlab.com":
        minutes = max(minutes, users / USERS_LIMIT[0] * USERS_LIMIT[1] / 60)
    return [f"{client.host}: token accepted (GitLab {version})",
            f"estimate for {projects:,} projects on {client.host}: about {requests:,} requests, {minutes / 60:.1f} hours of one token "
            f"at {rate:,} a minute" + (" and 300 account look-ups every 10 minutes" if client.host == "gitlab.com" else "")
            + f" ({GITLAB_REQUESTS_PER_PROJECT} requests a project, measured on the sample world)"]


def plan_forgejo(client: ForgejoClient, projects: int) -> list[str]:
    """Check a Forgejo host's token (one request) and estimate a full collection of `projects` there:
    its requests, and the hours the client's own pace takes over them (the host publishes no limit)."""
    version = client.version().get("version", "unknown")
    requests = projects * FORGEJO_REQUESTS_PER_PROJECT
    rate = client.per_minute
    return [f"{client.host}: token accepted (Forgejo {version})",
            f"estimate for {projects:,} projects on {client.host}: about {requests:,} requests, {requests / rate / 60:.1f} hours "
            f"of one token at {rate:,} a minute ({FORGEJO_REQUESTS_PER_PROJECT} requests a project, measured on the sample world)"]


def plan_lines(clients: dict[str, Any], store: Store, repos: list[str], as_of: date) -> list[str]:
    """What a run on these clients will cost, each host checked first (spending nothing on GitHub)."""
    from porchlamp import forges

    lines: list[str] = []
    for host, client in clients.items():
        count = sum(1 for r in repos if forges.host_of(r) == host)
        if isinstance(client, GraphQLClient):
            lines += plan_collection(client, store, count, as_of).lines()
        elif isinstance(client, ForgejoClient):
            lines += plan_forgejo(client, count)
        else:
            lines += plan_gitlab(client, count)
    return lines
