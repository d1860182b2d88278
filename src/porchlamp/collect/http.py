"""What every forge's client shares: how Porchlamp names itself to a server, the counts a client keeps
of its requests (for the run's summary and the benchmarks), and how it waits."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import httpx

from porchlamp.collect.errors import NetworkError
from porchlamp.collect.retries import Decision

USER_AGENT = "porchlamp/0.1 (which open-source projects answer a stranger's pull request; https://github.com/porchlamp/porchlamp)"


@dataclass
class ClientStats:
    requests: int = 0
    points: int = 0  # a budget's units spent: GitHub's points; one a request where a forge counts requests
    bytes_received: int = 0
    retries: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    points_by_query: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    waited_seconds: float = 0.0
    timeouts: int = 0  # requests given up as too heavy (then split or shrunk by the collector)


def api_time(t: datetime) -> str:
    """An instant as the forges' time parameters take it (ISO 8601, UTC, to the second)."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str | None) -> datetime | None:
    """A forge's ISO-8601 time (`2026-05-01T12:00:00Z`, GitLab's `…00.000Z` or with an offset) as
    naive UTC, as the store keeps times."""
    if not text:
        return None
    t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (t.astimezone(timezone.utc) if t.tzinfo else t).replace(tzinfo=None)


def unreachable(err: BaseException | None) -> bool:
    """Whether a failed request found no server to answer it (no connection made, or no answer in
    time): the network or the server is down, and the run stops. A connection cut mid-answer
    reached a server that answered, and is that request's failure alone."""
    return isinstance(err, (httpx.ConnectError, httpx.TimeoutException))


class Waits:
    """What a client does when told to wait: sleep `wait_scale` of it (all of it against a real forge;
    a little against an emulator's compressed clock) and count it."""

    wait_scale: float
    stats: ClientStats
    _sleep: Callable[[float], None]
    _lock: threading.Lock

    def _wait(self, seconds: float) -> None:
        scaled = seconds * self.wait_scale
        with self._lock:
            self.stats.waited_seconds += scaled
        if scaled > 0:
            self._sleep(scaled)


class RestLookup(Waits):
    """A GET to a public REST service (the dependents lookup) on one connection pool, opened on
    first use, with a few bounded retries decided as the client's forge decides its own
    (`_rest_decision`): 429 and 5xx wait and try again."""

    _rest: httpx.Client | None
    _rest_transport: httpx.BaseTransport | None
    _rng: Any

    def _rest_decision(self, status: int | None, headers: dict[str, str], body: Any, attempt: int, now: float,
                       jitter: float) -> Decision:
        raise NotImplementedError

    def close_rest(self) -> None:
        if self._rest is not None:
            self._rest.close()

    def get_json(self, url: str, params: dict[str, str], max_attempts: int = 3) -> Any:
        """The service's JSON answer; None when it has nothing there (404); NetworkError when it
        keeps failing."""
        with self._lock:
            if self._rest is None:
                self._rest = httpx.Client(timeout=30, headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
                                          transport=self._rest_transport)
            http = self._rest
        attempt = 0
        while True:
            attempt += 1
            status, headers, body, error = None, {}, None, ""
            try:
                resp = http.get(url, params=params)
                status, headers = resp.status_code, dict(resp.headers)
                body = resp.json() if resp.status_code == 200 else None
            except (httpx.HTTPError, ValueError) as err:
                error = f"{type(err).__name__}: {err}"
            if status == 404:
                return None
            d = self._rest_decision(status, headers, body, attempt, time.time(), self._rng.random())
            if d.action == "proceed":
                return body
            if d.action == "fail" or attempt >= max_attempts:
                raise NetworkError(f"dependents service {url}: {d.reason}{f' ({error})' if error else ''}")
            self._wait(d.wait)
