"""A GitLab instance's REST API (v4): GET requests through httpx, page after page, with bounded
retries decided by `ratelimit.decide`, a pace kept under the instance's limits, and the token secret.

Limits: gitlab.com documents 2,000 authenticated API requests a minute for a user and 300 requests
to `/users/:id` every 10 minutes (doc/user/gitlab_com/_index.md, "Rate limits on GitLab.com"); a
self-hosted instance sets its own, which its `RateLimit-*` headers say and a 429 enforces. The client
never sends faster than its rates, waits when the headers say little is left, and honours 429.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import httpx

from porchlamp import killpoints
from porchlamp.collect.errors import AuthError, NetworkError, RequestFailed, redact
from porchlamp.collect.gitlab.ratelimit import budget, decide
from porchlamp.collect.http import USER_AGENT, ClientStats, RestLookup, unreachable
from porchlamp.collect.retries import MAX_ATTEMPTS, Decision, backoff

PER_PAGE = 100  # GitLab's most items a page (doc/api/rest/_index.md, "Pagination")
# gitlab.com's documented limits; a host's configuration may set others.
GITLAB_COM_PER_MINUTE = 2_000
USERS_LIMIT = (300, 600.0)  # requests to /users/:id, every so many seconds
RESERVE = 20  # requests left in a window below which the client waits for the reset


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


class _Window:
    """At most `limit` events in any `seconds`: how long to wait before the next one."""

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit, self.seconds = limit, seconds
        self._times: deque[float] = deque()

    def wait(self, now: float) -> float:
        while self._times and now - self._times[0] >= self.seconds:
            self._times.popleft()
        if len(self._times) < self.limit:
            self._times.append(now)
            return 0.0
        return self._times[0] + self.seconds - now


class GitLabClient(RestLookup):
    """A client of one GitLab host's REST API. Thread-safe; `transport` is the seam tests may use."""

    def __init__(self, api: str, token: str, host: str = "gitlab.com", *, transport: httpx.BaseTransport | None = None,
                 timeout: float = 60.0, wait_scale: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 seed: int | None = None, per_minute: int | None = None, rest_transport: httpx.BaseTransport | None = None,
                 minute_seconds: float = 60.0) -> None:
        if not token:
            raise AuthError(no_token(host))
        self.api, self.host = api.rstrip("/"), host
        self._token = token
        self._http = httpx.Client(transport=transport, timeout=timeout,
                                  headers={"PRIVATE-TOKEN": token, "User-Agent": USER_AGENT, "Accept": "application/json"})
        self._rest: httpx.Client | None = None  # the dependents service, opened on first use
        self._rest_transport = rest_transport
        self.wait_scale, self._sleep = wait_scale, sleep
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        # The windows run on a clock a test may compress (`minute_seconds`), as the emulator's does.
        rate = per_minute or GITLAB_COM_PER_MINUTE
        self._minute = _Window(rate, minute_seconds)
        users, ten = USERS_LIMIT  # gitlab.com's; a self-hosted instance says its own in 429s
        self._users = _Window(users, ten * minute_seconds / 60.0) if host == "gitlab.com" else None
        self._left: int | None = None
        self._reset: float | None = None
        self.stats = ClientStats()

    def adapter(self) -> Any:
        from porchlamp.collect.gitlab.adapter import GitLab

        return GitLab(self)

    def close(self) -> None:
        self._http.close()
        self.close_rest()

    def _pace(self, path: str) -> None:
        """Wait, if need be, so no window's limit is passed and what the server says is left is kept."""
        while True:
            now = time.monotonic()
            with self._lock:
                wait = self._minute.wait(now)
                if not wait and self._users is not None and path.startswith("/users/"):
                    wait = self._users.wait(now)
                    if wait:  # the general window counted this try: give it back
                        self._minute._times.pop()
                if not wait and self._left is not None and self._reset is not None and self._left < RESERVE:
                    wait = max(0.0, self._reset - time.time())
                    self._left = None
            if not wait:
                return
            self._wait(wait)

    def get(self, path: str, params: dict[str, Any] | None = None, query: str = "", text: bool = False) -> tuple[int, Any, dict[str, str]]:
        """GET `path` (under the API base) with bounded retries: (status, JSON body, or the text of a
        raw file when `text`, headers). A 404 comes back as it is; a request that keeps failing raises
        RequestFailed (a body cut short counts as failing: it is asked again)."""
        url = self.api + path
        attempt = 0
        while True:
            attempt += 1
            self._pace(path)
            status, headers, body, size, error = None, {}, None, 0, ""
            malformed, failed = False, None
            try:
                resp = self._http.get(url, params=params)
                status, headers, size = resp.status_code, dict(resp.headers), len(resp.content)
                if text:
                    body = resp.text
                else:
                    try:
                        body = resp.json()
                    except ValueError:
                        body, malformed = resp.text, status == 200
            except httpx.HTTPError as err:
                error, failed = redact(f"{type(err).__name__}: {err}", self._token), err
            with self._lock:
                self.stats.requests += 1
                self.stats.points += 1
                self.stats.points_by_query[query or path.split("/")[-1]] += 1
                self.stats.bytes_received += size
                left, reset = budget(headers)
                if left is not None:
                    self._left, self._reset = left, reset
                jitter = self._rng.random()
            d = decide(status, headers, attempt, time.time(), jitter)
            if malformed:  # a body cut short: asked again, a bounded number of times
                d = Decision("fail" if attempt >= MAX_ATTEMPTS else "retry", backoff(attempt, jitter), "malformed JSON in the response")
            if d.action == "proceed":
                killpoints.reach("page_received")
                return status, body, headers  # type: ignore[return-value]
            if d.action == "fail":
                reason = redact(d.reason, self._token)
                if status == 401:
                    raise AuthError(f"{self.host} refused the token ({reason}): check its token; nothing collected so far is lost")
                if status == 403:
                    raise AuthError(f"{self.host} refused access to {path} ({reason})")
                if status is None and unreachable(failed):
                    raise NetworkError(f"cannot reach {self.api}: {error} ({reason}); check the network and run again to resume")
                raise RequestFailed(f"GET {path} on {self.host}: {reason}{f' ({error})' if error else ''}")
            with self._lock:
                self.stats.retries[d.reason.split(" (")[0]] += 1
            self._wait(d.wait)

    def json(self, path: str, params: dict[str, Any] | None = None, query: str = "") -> Any:
        """One resource; None when it is not there (404)."""
        status, body, _ = self.get(path, params, query)
        return None if status == 404 else body

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

    def _rest_decision(self, status: int | None, headers: dict[str, str], body: Any, attempt: int, now: float,
                       jitter: float) -> Decision:
        return decide(status, headers, attempt, now, jitter)
