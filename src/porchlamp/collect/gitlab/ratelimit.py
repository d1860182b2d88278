"""What to do after a response from a GitLab instance, as pure decisions from (status, headers,
attempt, now): proceed, retry after a wait, or fail; and how long to wait before the next request.

Follows GitLab's documented behaviour (doc/administration/settings/user_and_ip_rate_limits.md,
"Response headers"): a request over a limit answers 429, with `Retry-After` (seconds) and
`RateLimit-ResetTime` added; every response may carry `RateLimit-Limit`, `-Remaining` and `-Reset`
(Unix time). Some 429s (application limits) carry none of these: then back off. A 5xx or a broken
connection is retried with backoff, a bounded number of times; 401 and 403 fail at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from email.utils import parsedate_to_datetime

from porchlamp.collect.retries import MAX_ATTEMPTS, Decision, backoff, header, retry_or_fail

MIN_LIMIT_WAIT = 1.0  # a 429 with no hint waits at least this, then backs off


def decide(status: int | None, headers: Mapping[str, str], attempt: int, now: float, jitter: float = 0.5) -> Decision:
    """The decision after attempt number `attempt` (1-based); `status` None: the connection failed."""
    def retry(wait: float, reason: str, timeout: bool = False) -> Decision:
        return retry_or_fail(attempt, wait, reason, timeout)

    if status is None:
        return retry(backoff(attempt, jitter), "connection failed")
    if status == 401:
        return Decision("fail", 0.0, "bad credentials (401)")
    if status == 403:
        return Decision("fail", 0.0, "forbidden (403): the token lacks access")
    if status == 429:
        wait = until_allowed(headers, now)
        if wait is not None:
            return retry(max(MIN_LIMIT_WAIT, wait), f"rate limited (429), retry after {wait:.0f}s")
        return retry(max(MIN_LIMIT_WAIT, backoff(attempt, jitter)), "rate limited (429) without a hint")
    if status in (502, 503, 504):
        return retry(backoff(attempt, jitter), f"server error ({status})", timeout=status == 504)
    if status >= 500:
        return retry(backoff(attempt, jitter), f"server error ({status})")
    if status in (200, 404):
        return Decision("proceed")
    return Decision("fail", 0.0, f"unexpected HTTP {status}")


def until_allowed(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds until a limit lets requests through again, from `Retry-After`, `RateLimit-Reset` or
    `RateLimit-ResetTime`, in that order; None when the response says nothing of it."""
    after = header(headers, "retry-after")
    if after is not None:
        try:
            return max(0.0, float(after))
        except ValueError:
            try:
                return max(0.0, parsedate_to_datetime(after).timestamp() - now)
            except (TypeError, ValueError):
                pass
    reset = header(headers, "ratelimit-reset")
    if reset is not None:
        try:
            return max(0.0, float(reset) - now)
        except ValueError:
            pass
    when = header(headers, "ratelimit-resettime")
    if when is not None:
        try:
            return max(0.0, parsedate_to_datetime(when).timestamp() - now)
        except (TypeError, ValueError):
            return None
    return None


def budget(headers: Mapping[str, str]) -> tuple[int | None, float | None]:
    """(requests left, reset as Unix time) from a response's `RateLimit-Remaining` and `-Reset`."""
    try:
        left = header(headers, "ratelimit-remaining")
        reset = header(headers, "ratelimit-reset")
        return (int(left) if left is not None else None, float(reset) if reset is not None else None)
    except ValueError:
        return None, None


__all__ = ["MAX_ATTEMPTS", "budget", "decide", "until_allowed"]
