"""Fault injection for the emulator, by a spec like `secondary=0.05,bad_gateway=0.02,seed=7`.

Each request draws from one seeded sequence, so the same seed gives the same faults in the same
order of requests. Kinds mirror what GitHub's API does under load or trouble.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

from porchlamp.errors import PorchlampError

KINDS = {
    "rate_limited": "HTTP 200 with a RATE_LIMITED error and no points left",
    "secondary": "HTTP 403 secondary rate limit with retry-after",
    "bad_gateway": "HTTP 502 from the front end",
    "gateway_timeout": "HTTP 504: the query took too long",
    "reset": "connection reset in the middle of the body",
    "malformed": "HTTP 200 with a truncated JSON body",
    "partial": "HTTP 200 with partial data and an error",
    "slow": "a correct answer after a delay",
}


class FaultSpecError(PorchlampError):
    """A fault spec that cannot be read; the message lists what is allowed."""


@dataclass
class Faults:
    rates: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    slow_seconds: float = 0.2
    pinned: frozenset[str] = frozenset()  # owner/name (lower case): every request touching one gets a 502

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, spec: str | None) -> "Faults":
        if not spec:
            return cls()
        rates: dict[str, float] = {}
        seed, slow = 0, 0.2
        pinned: set[str] = set()
        for part in spec.split(","):
            key, sep, value = part.strip().partition("=")
            if not sep:
                raise FaultSpecError(f"fault spec part {part!r} is not key=value")
            try:
                if key == "pin":
                    if value.count("/") != 1:
                        raise FaultSpecError(f"fault spec {part!r}: pin takes owner/name, the repository every request about fails")
                    pinned.add(value.lower())
                elif key == "seed":
                    seed = int(value)
                elif key == "slow_seconds":
                    slow = float(value)
                elif key in KINDS:
                    rate = float(value)
                    if not 0 <= rate <= 1:
                        raise FaultSpecError(f"fault rate {key}={value} must be between 0 and 1")
                    rates[key] = rate
                elif key == "all":
                    rates.update({k: float(value) for k in KINDS})
                else:
                    raise FaultSpecError(f"unknown fault {key!r}; known: {', '.join(KINDS)}, all, seed, slow_seconds, pin")
            except ValueError as err:
                if isinstance(err, FaultSpecError):
                    raise
                raise FaultSpecError(f"fault spec {part!r}: {value!r} is not a number") from None
        if sum(rates.values()) > 1:
            raise FaultSpecError(f"fault rates add up to {sum(rates.values()):.2f}; they must not exceed 1")
        return cls(rates, seed, slow, frozenset(pinned))

    def draw(self) -> str | None:
        """The fault for the next request, or None."""
        if not self.rates:
            return None
        with self._lock:
            u = self._rng.random()
        acc = 0.0
        for kind in KINDS:
            acc += self.rates.get(kind, 0.0)
            if u < acc:
                return kind
        return None
