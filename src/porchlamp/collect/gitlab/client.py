"""A GitLab instance's REST API (v4) over the shared REST client (`collect/rest.py`): page after page,
retries decided by `ratelimit.decide`, a pace kept under the instance's limits, and the token secret.

Limits: gitlab.com documents 2,000 authenticated API requests a minute for a user and 300 requests
to `/users/:id` every 10 minutes (doc/user/gitlab_com/_index.md, "Rate limits on GitLab.com"); a
self-hosted instance sets its own, which its `RateLimit-*` headers say and a 429 enforces. The client
never sends faster than its rates, waits when the headers say little is left, and honours 429.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import httpx

from porchlamp.collect.errors import AuthError
from porchlamp.collect.gitlab.ratelimit import budget, decide
from porchlamp.collect.rest import RestClient, Window

PER_PAGE = 100  # GitLab's most items a page (doc/api/rest/_index.md, "Pagination")
# gitlab.com's documented limits; a host's configuration may set others.
GITLAB_COM_PER_MINUTE = 2_000
USERS_LIMIT = (300, 600.0)  # requests to /users/:id, every so many seconds


def project_path(repo_path: str) -> str:
    """A project's path as GitLab's `:id` takes it: URL-encoded, slashes too."""
    return quote(repo_path, safe="")


def token_variable(host: str) -> str:
    """Where the token of a GitLab host is read from: PORCHLAMP_TOKEN_<HOST>, dots and dashes as
    underscores, upper case."""
    return "PORCHLAMP_TOKEN_" + "".join(c if c.isalnum() else "_" for c in host).upper()


def no_token(host: str) -> str:
    """What to set when a GitLab host has no token."""
    return f"no token for {host}: set {'GITLAB_TOKEN or ' if host == 'gitlab.com' else ''}{token_variable(host)}"


def find_token(host: str, env: dict[str, str] | None = None) -> str | None:
    """The token for a GitLab host: PORCHLAMP_TOKEN_<HOST> (dots and dashes as underscores, upper
    case), else GITLAB_TOKEN for gitlab.com; None when there is none."""
    env = dict(os.environ) if env is None else env
    token = (env.get(token_variable(host)) or "").strip()
    if not token and host == "gitlab.com":
        token = (env.get("GITLAB_TOKEN") or "").strip()
    return token or None


class GitLabClient(RestClient):
    """A client of one GitLab host's REST API. Thread-safe; `transport` is the seam tests may use."""

    def __init__(self, api: str, token: str, host: str = "gitlab.com", *, transport: httpx.BaseTransport | None = None,
                 timeout: float = 60.0, wait_scale: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 seed: int | None = None, per_minute: int | None = None, rest_transport: httpx.BaseTransport | None = None,
                 minute_seconds: float = 60.0) -> None:
        if not token:
            raise AuthError(no_token(host))
        users, ten = USERS_LIMIT  # gitlab.com's; a self-hosted instance says its own in 429s
        paths = {"/users/": Window(users, ten * minute_seconds / 60.0)} if host == "gitlab.com" else {}
        super().__init__(api, token, host, {"PRIVATE-TOKEN": token}, decide, budget, per_minute=per_minute or GITLAB_COM_PER_MINUTE,
                         minute_seconds=minute_seconds, paths=paths, transport=transport, timeout=timeout,
                         wait_scale=wait_scale, sleep=sleep, seed=seed, rest_transport=rest_transport)

    def adapter(self) -> Any:
        from porchlamp.collect.gitlab.adapter import GitLab

        return GitLab(self)

    def pages(self, path: str, params: dict[str, Any] | None = None, query: str = "",
              per_page: int = PER_PAGE, start: int = 1) -> Iterator[tuple[int, list[Any], int | None]]:
        """Every page of a list, as (page, its items, the next page or None), following `x-next-page`
        (GitLab leaves out `x-total` past 10,000 items, so the count is never relied on). A list
        that is not there (404) is no pages."""
        page = start
        while True:
            status, body, headers = self.get(path, {**(params or {}), "per_page": per_page, "page": page}, query)
            if status == 404:
                return
            items = body if isinstance(body, list) else []
            nxt = {k.lower(): v for k, v in headers.items()}.get("x-next-page") or ""
            following = int(nxt) if nxt.strip().isdigit() else None
            yield page, items, following
            if following is None or not items:
                return
            page = following

    def total(self, path: str, params: dict[str, Any] | None = None, query: str = "") -> tuple[list[Any], int | None, int | None]:
        """The first page of a list with what its headers say of the rest: (items, total, pages)."""
        status, body, headers = self.get(path, {**(params or {}), "per_page": PER_PAGE, "page": 1}, query)
        if status == 404:
            return [], 0, 0
        low = {k.lower(): v for k, v in headers.items()}
        def number(key: str) -> int | None:
            v = low.get(key, "")
            return int(v) if v.strip().isdigit() else None
        return (body if isinstance(body, list) else []), number("x-total"), number("x-total-pages")

    def version(self) -> dict[str, Any]:
        """The instance's version: proves the token works, spending one request."""
        status, body, _ = self.get("/version", query="version")
        return body if isinstance(body, dict) else {}
