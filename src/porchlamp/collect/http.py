"""What every forge's client shares: how Porchlamp names itself to a server, and the counts a client
keeps of its requests (for the run's summary and the benchmarks)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

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
