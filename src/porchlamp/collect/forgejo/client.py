"""A Forgejo or Gitea instance's REST API (v1) over the shared REST client (`collect/rest.py`): the
token in `Authorization: token …`, lists paged with `page` and `limit`, the page size the instance
allows read from `/settings/api` once, and a pace per host.

Limits: Forgejo has no API rate limiter of its own and Codeberg publishes none, so the client never
sends more than `per_minute` requests a minute to a host (porchlamp.toml `[hosts."…"]
requests_per_minute`, else `DEFAULT_PER_MINUTE`) and, when a proxy in front answers 429, waits as its
`Retry-After` says (the GitLab decisions, `gitlab/ratelimit.decide`, read the same headers).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import quote

import httpx

from porchlamp.collect.errors import AuthError
from porchlamp.collect.gitlab.ratelimit import budget, decide
from porchlamp.collect.rest import RestClient

WIP_PREFIXES = ("WIP:", "[WIP]")  # Forgejo's default [repository.pull-request] WORK_IN_PROGRESS_PREFIXES

# Forgejo's MAX_RESPONSE_ITEMS default (docs: administration/config-cheat-sheet, [api]); the instance's
# own value, from /settings/api, replaces it on the first list asked for.
DEFAULT_MAX_ITEMS = 50
# About one request every half second: a tenth of the 4,000 requests in 30 minutes one Codeberg user
# was allowed before 429s (luanti-org/contentdb#607), as Codeberg publishes no figure.
DEFAULT_PER_MINUTE = 120


def token_variable(host: str) -> str:
    """Where a Forgejo host's token is read from: PORCHLAMP_TOKEN_<HOST>, dots and dashes as underscores."""
    return "PORCHLAMP_TOKEN_" + "".join(c if c.isalnum() else "_" for c in host).upper()


def no_token(host: str) -> str:
    return f"no token for {host}: set {token_variable(host)}"


def find_token(host: str, env: dict[str, str] | None = None) -> str | None:
    env = dict(os.environ) if env is None else env
    return (env.get(token_variable(host)) or "").strip() or None


def repo_path(path: str) -> str:
    """`owner/name` as the API's path takes it, each part URL-encoded."""
    owner, _, name = path.partition("/")
    return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"


class ForgejoClient(RestClient):
    """A client of one Forgejo or Gitea host's REST API. Thread-safe."""

    def __init__(self, api: str, token: str, host: str = "codeberg.org", *, transport: httpx.BaseTransport | None = None,
                 timeout: float = 60.0, wait_scale: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 seed: int | None = None, per_minute: int | None = None, rest_transport: httpx.BaseTransport | None = None,
                 minute_seconds: float = 60.0, wip_prefixes: Sequence[str] | None = None) -> None:
        if not token:
            raise AuthError(no_token(host))
        super().__init__(api, token, host, {"Authorization": f"token {token}"}, decide, budget,
                         per_minute=per_minute or DEFAULT_PER_MINUTE, minute_seconds=minute_seconds, transport=transport,
                         timeout=timeout, wait_scale=wait_scale, sleep=sleep, seed=seed, rest_transport=rest_transport)
        self.wip_prefixes = tuple(wip_prefixes or WIP_PREFIXES)
        self._max_items: int | None = None
        self._settings_lock = threading.Lock()

    def adapter(self) -> Any:
        from porchlamp.collect.forgejo.adapter import Forgejo

        return Forgejo(self, self.wip_prefixes)

    @property
    def max_items(self) -> int:
        """The most items a page of this instance holds (`/settings/api` `max_response_items`), asked once."""
        with self._settings_lock:
            if self._max_items is None:
                s = self.json("/settings/api", query="settings") or {}
                n = s.get("max_response_items") if isinstance(s, dict) else None
                self._max_items = int(n) if isinstance(n, int) and n > 0 else DEFAULT_MAX_ITEMS
            return self._max_items

    def pages(self, path: str, params: dict[str, Any] | None = None, query: str = "", start: int = 1,
              limit: int | None = None) -> Iterator[tuple[int, list[Any], int | None]]:
        """Every page of a list, as (page, its items, the next page or None): there is a next page while
        `X-Total-Count` says more items remain (else while the `Link` header has rel="next", else
        while a page comes back full).
        A list that is not there (404) is no pages."""
        size = min(limit or self.max_items, self.max_items)
        page = start
        while True:
            status, body, headers = self.get(path, {**(params or {}), "page": page, "limit": size}, query)
            if status == 404:
                return
            items = body if isinstance(body, list) else []
            low = {k.lower(): v for k, v in headers.items()}
            total = low.get("x-total-count", "")
            if total.strip().isdigit():
                following = page + 1 if page * size < int(total) else None
            elif "link" in low:
                following = page + 1 if 'rel="next"' in low["link"] else None
            else:
                following = page + 1 if len(items) >= size else None
            yield page, items, following
            if following is None or not items:
                return
            page = following

    def version(self) -> dict[str, Any]:
        """The instance's version: proves the token works, spending one request."""
        body = self.json("/version", query="version")
        return body if isinstance(body, dict) else {}
