"""Candidate projects from a Forgejo or Gitea instance's repository search, most-starred first
(`GET /repos/search?sort=stars&order=desc`: public, non-archived, not forks kept)."""

from __future__ import annotations

from collections.abc import Callable

from porchlamp import forges
from porchlamp.collect.forgejo.client import ForgejoClient


def discover(client: ForgejoClient, min_stars: int, limit: int, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
    """Up to `limit` (name, stars) of the host's public, unarchived repositories with at least
    `min_stars`, most-starred first; names as the repos file takes them (`host/owner/name`)."""
    found: dict[str, int] = {}
    params = {"sort": "stars", "order": "desc", "archived": "false", "private": "false", "mode": "source"}
    size, page = client.max_items, 1
    while True:
        status, body, headers = client.get("/repos/search", {**params, "page": page, "limit": size}, "search")
        # The search wraps its page: {"ok": true, "data": [...]} (the SearchResults response).
        items = (body or {}).get("data") or [] if status == 200 and isinstance(body, dict) else []
        total = {k.lower(): v for k, v in headers.items()}.get("x-total-count", "")
        below = False
        for r in items:
            stars, name = int(r.get("stars_count") or 0), r.get("full_name")
            if stars < min_stars:
                below = True  # in star order: every later one has fewer
                break
            if name and len(found) < limit:
                found.setdefault(forges.join(client.host, name), stars)
        if progress:
            progress(len(items))
        if below or len(found) >= limit or not items or (total.isdigit() and page * size >= int(total)):
            break
        page += 1
    return sorted(found.items(), key=lambda x: (-x[1], x[0].lower()))[:limit]
