"""What every forge's client shares: how Porchlamp names itself to a server, the counts a client keeps
of its requests (for the run's summary and the benchmarks), and how it waits."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

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

