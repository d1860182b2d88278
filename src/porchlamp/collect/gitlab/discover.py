"""Candidate projects from a GitLab instance's own list of public projects, most-starred first
(`GET /projects?order_by=star_count`, GitLab 17.4 and later)."""

from __future__ import annotations

from collections.abc import Callable

from porchlamp import forges
from porchlamp.collect.errors import CollectError, RequestFailed
from porchlamp.collect.gitlab.client import PER_PAGE, GitLabClient

# Offset pagination of the project list stops at 50,000 projects, and keyset pagination orders by
# id only (doc/api/projects.md, "Pagination limits"): a list by stars cannot go deeper.
OFFSET_CAP = 50_000


def discover(client: GitLabClient, min_stars: int, limit: int, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
    """Up to `limit` (name, stars) of the host's public, unarchived projects with at least
    `min_stars`, most-starred first; names as the repos file takes them (`host/group/project`)."""
    if limit > OFFSET_CAP:
        raise CollectError(f"{client.host} lists at most {OFFSET_CAP:,} projects by stars (offset pagination); "
                           f"ask for --limit {OFFSET_CAP:,} or fewer")
    params = {"order_by": "star_count", "sort": "desc", "visibility": "public", "archived": "false", "simple": "true"}
    try:
        return _listed(client, params, min_stars, limit, progress)
    except RequestFailed as err:
        if "HTTP 400" in str(err):
            raise CollectError(f"{client.host} refused its project list by stars ({err}): ordering by stars needs GitLab "
                               "17.4 or later") from None
        raise


def _listed(client: GitLabClient, params: dict[str, str], min_stars: int, limit: int,
            progress: Callable[[int], None] | None) -> list[tuple[str, int]]:
    found: dict[str, int] = {}
    for _, items, _ in client.pages("/projects", params, query="projects", per_page=PER_PAGE):
        below = False
        for p in items:
            stars, path = int(p.get("star_count") or 0), p.get("path_with_namespace")
            if stars < min_stars:
                below = True  # in star order: every later one has fewer
                break
            if path and len(found) < limit:
                found.setdefault(forges.join(client.host, path), stars)
        if progress:
            progress(len(items))
        if below or len(found) >= limit:
            break
    return sorted(found.items(), key=lambda x: (-x[1], x[0].lower()))[:limit]
