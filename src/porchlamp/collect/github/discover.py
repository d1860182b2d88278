"""Candidate repositories from GitHub search, by star ranges: one search reaches only 1,000
results, so a range with more is cut in two until each slice fits."""

from __future__ import annotations

from collections.abc import Callable

from porchlamp.collect.github.client import GraphQLClient

SEARCH_CAP = 1000
TOP_STARS = 10_000_000


def _search(client: GraphQLClient, lo: int, hi: int, after: str | None = None) -> dict:  # type: ignore[type-arg]
    body = client.query("discover", {"q": f"stars:{lo}..{hi} sort:stars-desc", "after": after})
    return (body.get("data") or {}).get("search") or {"repositoryCount": 0, "nodes": [], "pageInfo": {}}


def discover(client: GraphQLClient, min_stars: int, limit: int, progress: Callable[[int], None] | None = None) -> list[tuple[str, int]]:
    """Up to `limit` (name, stars) with at least `min_stars`, most-starred first."""
    found: dict[str, int] = {}
    ranges = [(min_stars, TOP_STARS)]
    while ranges and len(found) < limit:
        ranges.sort(key=lambda r: -r[1])  # the most-starred slices first
        lo, hi = ranges.pop(0)
        first = _search(client, lo, hi)
        if first["repositoryCount"] > SEARCH_CAP and hi > lo:
            mid = (lo + hi) // 2
            ranges += [(mid + 1, hi), (lo, mid)]
            continue
        page = first
        while True:
            for n in page.get("nodes") or []:
                if n and n.get("nameWithOwner"):
                    found.setdefault(n["nameWithOwner"], int(n.get("stargazerCount") or 0))
            if progress:
                progress(len(page.get("nodes") or []))
            info = page.get("pageInfo") or {}
            if not info.get("hasNextPage") or len(found) >= limit:
                break
            page = _search(client, lo, hi, info.get("endCursor"))
    return sorted(found.items(), key=lambda x: (-x[1], x[0]))[:limit]
