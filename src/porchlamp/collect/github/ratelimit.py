"""What to do after a response from GitHub, as pure decisions from (status, headers, body, attempt,
now): proceed, retry after a wait, or fail. And how to pace so the budget never runs dry mid-run.

Follows GitHub's documented behaviour: wait until `x-ratelimit-reset` when no points are left or
a `RATE_LIMITED` error comes back; obey `retry-after`; wait at least a minute on a secondary limit
without one; otherwise back off exponentially with jitter, a bounded number of times.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from porchlamp.collect.retries import MAX_ATTEMPTS, Decision, backoff, pace, retry_or_fail
from porchlamp.collect.retries import header as _header

SECONDARY_MIN_WAIT = 60.0
__all__ = ["MAX_ATTEMPTS", "SECONDARY_MIN_WAIT", "Decision", "backoff", "decide", "pace"]


def _is_timeout(status: int | None, body: Any) -> bool:
    """GitHub's answers to a query it could not finish in time: HTTP 502 or 504 (with a JSON or an
    HTML body), or HTTP 200 with `data: null` and "...may be the result of a timeout..."."""
    if status in (502, 504):
        return True
    if status == 200 and isinstance(body, dict) and body.get("data") is None:
        return any("timeout" in str(e.get("message", "")).lower() for e in body.get("errors") or [] if isinstance(e, dict))
    return False


def _until_reset(headers: Mapping[str, str], now: float) -> float | None:
    reset = _header(headers, "x-ratelimit-reset")
    if reset is None:
        return None
    try:
        return max(1.0, float(reset) - now + 1.0)
    except ValueError:
        return None


def decide(status: int | None, headers: Mapping[str, str], body: Any, attempt: int, now: float, jitter: float = 0.5) -> Decision:
    """The decision after attempt number `attempt` (1-based). `status` None means the connection
    failed; `body` is the parsed JSON, or None when it could not be parsed."""
    timeout = _is_timeout(status, body)

    def retry(wait: float, reason: str) -> Decision:
        return retry_or_fail(attempt, wait, reason, timeout)

    if status is None:
        return retry(backoff(attempt, jitter), "connection failed")
    if status == 401:
        return Decision("fail", 0.0, "bad credentials (401)")
    retry_after = _header(headers, "retry-after")
    remaining = _header(headers, "x-ratelimit-remaining")
    if status in (403, 429):
        if retry_after is not None:
            try:
                return retry(max(1.0, float(retry_after)), f"secondary rate limit ({status}), retry-after {retry_after}s")
            except ValueError:
                pass
        if remaining == "0":
            wait = _until_reset(headers, now)
            return retry(wait if wait is not None else SECONDARY_MIN_WAIT, f"primary rate limit exhausted ({status})")
        text = str((body or {}).get("message", "")).lower() if isinstance(body, dict) else ""
        if "secondary rate limit" in text or "abuse" in text:
            return retry(max(SECONDARY_MIN_WAIT, backoff(attempt, jitter)), f"secondary rate limit ({status}) without retry-after")
        if status == 403:
            return Decision("fail", 0.0, f"forbidden (403): {text or 'the token lacks access'}")
        return retry(backoff(attempt, jitter), f"too many requests ({status})")
    if status >= 500:
        return retry(backoff(attempt, jitter), f"server error ({status})")
    if status != 200:
        return Decision("fail", 0.0, f"unexpected HTTP {status}")
    if body is None:
        return retry(backoff(attempt, jitter), "malformed JSON in the response")
    errors = body.get("errors") or [] if isinstance(body, dict) else []
    if any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors):
        wait = _until_reset(headers, now)
        return retry(wait if wait is not None else SECONDARY_MIN_WAIT, "RATE_LIMITED: no points left until the reset")
    scopes = [e for e in errors if isinstance(e, dict) and e.get("type") == "INSUFFICIENT_SCOPES"]
    if scopes:
        return Decision("fail", 0.0, f"insufficient scopes: {scopes[0].get('message', '')}")
    query_faults = [e for e in errors if isinstance(e, dict) and e.get("type") in ("MAX_NODE_LIMIT_EXCEEDED", "EXCESSIVE_PAGINATION", "ARGUMENT_LIMIT")]
    if query_faults:
        return Decision("fail", 0.0, f"GitHub rejected the query: {query_faults[0].get('message', '')}")
    if errors and body.get("data") is None:
        messages = "; ".join(str(e.get("message", "")) for e in errors if isinstance(e, dict))
        if timeout:
            return retry(backoff(attempt, jitter), f"timed out: {messages}")
        if all(isinstance(e, dict) and "type" not in e and "path" not in e for e in errors):
            # Errors about the query itself (validation, pagination limits): retrying cannot help.
            return Decision("fail", 0.0, f"GitHub rejected the query: {messages}")
        return retry(backoff(attempt, jitter), f"errors without data: {messages}")
    if any(isinstance(e, dict) and e.get("type") not in ("NOT_FOUND", "FORBIDDEN") for e in errors):
        # Partial data with an error that is not about a missing or blocked repository: try again.
        return retry(backoff(attempt, jitter), "partial data with errors")
    return Decision("proceed")
