"""Bounded retries shared by every forge's client: the decision a response leads to, exponential
backoff with jitter, and pacing so a budget is never spent to zero mid-run. Each forge reads its own
answers into these decisions (`github/ratelimit.py`, `gitlab/ratelimit.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

MAX_ATTEMPTS = 8
BASE_BACKOFF = 1.0
MAX_BACKOFF = 120.0


@dataclass(frozen=True)
class Decision:
    action: str  # "proceed", "retry" or "fail"
    wait: float = 0.0  # seconds to wait before retrying
    reason: str = ""
    timeout: bool = False  # the shape of a query that ran out of time: a smaller one may pass


def header(headers: Mapping[str, str], name: str) -> str | None:
    """A header's value whatever the case of its name (`name` in lower case)."""
    for k, v in headers.items():
        if k.lower() == name:
            return v
    return None


def retry_or_fail(attempt: int, wait: float, reason: str, timeout: bool = False) -> Decision:
    """Retry after `wait` seconds, unless attempt number `attempt` was the last one allowed."""
    if attempt >= MAX_ATTEMPTS:
        return Decision("fail", 0.0, f"{reason}; gave up after {attempt} attempts", timeout)
    return Decision("retry", wait, reason, timeout)


def backoff(attempt: int, jitter: float) -> float:
    """Exponential backoff with jitter in [0.5, 1.5): attempt 1 waits about 1 s, 2 about 2 s, ..."""
    return min(MAX_BACKOFF, BASE_BACKOFF * 2 ** (attempt - 1)) * (0.5 + jitter)


def pace(remaining: int | None, reset_epoch: float | None, now: float, next_cost: int, reserve: int) -> float:
    """Seconds to wait before the next request so the budget is never spent to zero mid-run:
    when what is left would fall below `reserve` after the next one, wait for the reset."""
    if remaining is None or reset_epoch is None:
        return 0.0
    if remaining - next_cost >= reserve:
        return 0.0
    return max(0.0, reset_epoch - now + 1.0)
