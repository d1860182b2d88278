"""What the REST forges' clients share (GitLab's v4, Forgejo's and Gitea's v1): GET requests through
httpx with bounded retries, a pace kept under the host's limits, request counts, and the token secret.

Each forge's client (`collect/gitlab/client.py`, `collect/forgejo/client.py`) adds how its token is
sent, how its lists are paged and what its limits are; `decide` says what to do after each answer.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from porchlamp import killpoints
from porchlamp.collect.errors import AuthError, NetworkError, RequestFailed, redact
from porchlamp.collect.http import USER_AGENT, ClientStats, RestLookup, unreachable
from porchlamp.collect.retries import MAX_ATTEMPTS, Decision, backoff

RESERVE = 20  # requests left in a window below which the client waits for the reset

Decide = Callable[[int | None, Mapping[str, str], int, float, float], Decision]
Budget = Callable[[Mapping[str, str]], tuple[int | None, float | None]]


class Window:
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

    def give_back(self) -> None:
        """Forget the latest event: a try another window held back."""
        self._times.pop()


class RestClient(RestLookup):
    """A client of one forge host's REST API. Thread-safe; `transport` is the seam tests may use.

    `per_minute` requests in any `minute_seconds` (a test compresses the minute as the emulators do);
    `paths` adds a window for requests under a path prefix (`/users/`: gitlab.com's own limit)."""

    def __init__(self, api: str, token: str, host: str, headers: dict[str, str], decide: Decide, budget: Budget, *,
                 per_minute: int, minute_seconds: float = 60.0, paths: dict[str, Window] | None = None,
                 transport: httpx.BaseTransport | None = None, timeout: float = 60.0, wait_scale: float = 1.0,
                 sleep: Callable[[float], None] = time.sleep, seed: int | None = None,
                 rest_transport: httpx.BaseTransport | None = None) -> None:
        self.api, self.host = api.rstrip("/"), host
        self._token = token
        self._decide, self._budget = decide, budget
        self._http = httpx.Client(transport=transport, timeout=timeout,
                                  headers={**headers, "User-Agent": USER_AGENT, "Accept": "application/json"})
        self._rest: httpx.Client | None = None  # the dependents service, opened on first use
        self._rest_transport = rest_transport
        self.wait_scale, self._sleep = wait_scale, sleep
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.per_minute = per_minute
        self._minute = Window(per_minute, minute_seconds)
        self._paths = dict(paths or {})
        self._left: int | None = None
        self._reset: float | None = None
        self.stats = ClientStats()

    def close(self) -> None:
        self._http.close()
        self.close_rest()

    def _pace(self, path: str) -> None:
        """Wait, if need be, so no window's limit is passed and what the server says is left is kept."""
        while True:
            now = time.monotonic()
            with self._lock:
                wait = self._minute.wait(now)
                for prefix, window in self._paths.items():
                    if not wait and path.startswith(prefix):
                        wait = window.wait(now)
                        if wait:  # the general window counted this try: give it back
                            self._minute.give_back()
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
                left, reset = self._budget(headers)
                if left is not None:
                    self._left, self._reset = left, reset
                jitter = self._rng.random()
            d = self._decide(status, headers, attempt, time.time(), jitter)
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

    def _rest_decision(self, status: int | None, headers: dict[str, str], body: Any, attempt: int, now: float,
                       jitter: float) -> Decision:
        return self._decide(status, headers, attempt, now, jitter)
