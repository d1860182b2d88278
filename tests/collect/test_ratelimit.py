"""Rate-limit decisions for each case GitHub documents, as pure functions."""

import pytest

from porchlamp.collect.github.ratelimit import MAX_ATTEMPTS, SECONDARY_MIN_WAIT, backoff, decide, pace

NOW = 1_800_000_000.0
OK = {"data": {"repository": {"name": "x"}}}


def test_success_proceeds() -> None:
    assert decide(200, {"x-ratelimit-remaining": "4000"}, OK, 1, NOW).action == "proceed"


def test_missing_repository_is_data_not_a_retry() -> None:
    body = {"data": {"r0": None, "r1": {"name": "y"}}, "errors": [{"type": "NOT_FOUND", "path": ["r0"], "message": "Could not resolve"}]}
    assert decide(200, {}, body, 1, NOW).action == "proceed"


def test_rate_limited_waits_until_reset() -> None:
    body = {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for user ID 1."}]}
    d = decide(200, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 600)}, body, 1, NOW)
    assert (d.action, d.wait) == ("retry", 601.0)


@pytest.mark.parametrize("status", [403, 429])
def test_primary_exhausted_on_403_or_429_waits_for_reset(status: int) -> None:
    d = decide(status, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 90)}, {"message": "rate limit"}, 1, NOW)
    assert (d.action, d.wait) == ("retry", 91.0)


def test_retry_after_is_obeyed() -> None:
    d = decide(403, {"retry-after": "37"}, {"message": "You have exceeded a secondary rate limit"}, 1, NOW)
    assert (d.action, d.wait) == ("retry", 37.0)


def test_secondary_without_retry_after_waits_a_minute() -> None:
    d = decide(403, {}, {"message": "You have exceeded a secondary rate limit."}, 1, NOW)
    assert d.action == "retry" and d.wait >= SECONDARY_MIN_WAIT


def test_plain_403_is_an_access_problem() -> None:
    d = decide(403, {"x-ratelimit-remaining": "4000"}, {"message": "Resource not accessible by integration"}, 1, NOW)
    assert d.action == "fail" and "access" in d.reason.lower() or "not accessible" in d.reason


def test_bad_credentials_fail_at_once() -> None:
    assert decide(401, {}, {"message": "Bad credentials"}, 1, NOW).action == "fail"


@pytest.mark.parametrize(("status", "body"), [(502, {"message": "Server Error"}), (504, {}), (None, None), (200, None),
                                               (200, {"data": {"r0": None}, "errors": [{"message": "Something went wrong", "path": ["r0"]}]})])
def test_transient_troubles_back_off_and_give_up(status: int | None, body: object) -> None:
    waits = [decide(status, {}, body, attempt, NOW, jitter=0.5).wait for attempt in range(1, MAX_ATTEMPTS)]
    assert waits == sorted(waits) and waits[0] == 1.0 and waits[3] == 8.0  # doubling, from 1 s
    assert decide(status, {}, body, MAX_ATTEMPTS, NOW).action == "fail"


def test_query_errors_are_not_retried() -> None:
    body = {"errors": [{"message": "Field 'nope' doesn't exist on type 'Repository'", "locations": [{"line": 1, "column": 3}]}]}
    assert decide(200, {}, body, 1, NOW).action == "fail"
    body = {"errors": [{"type": "EXCESSIVE_PAGINATION", "message": "Requesting 101 records"}]}
    assert decide(200, {}, body, 1, NOW).action == "fail"


def test_backoff_is_bounded_and_jittered() -> None:
    assert backoff(1, 0.0) == 0.5 and backoff(1, 0.999) < 1.5
    assert backoff(30, 0.5) == 120.0


def test_pacing_keeps_a_reserve() -> None:
    assert pace(4000, NOW + 100, NOW, next_cost=1, reserve=50) == 0.0
    assert pace(50, NOW + 100, NOW, next_cost=1, reserve=50) == 101.0
    assert pace(None, None, NOW, 1, 50) == 0.0
