"""The GraphQL client's whole-run failures: they stop at once, say what to do, and never show the token."""

import socket

import httpx
import pytest

from porchlamp.collect import AuthError, GraphQLClient, NetworkError
from porchlamp.collect.github.client import RequestFailed, find_token, redact

TOKEN = "tok_" + "s3cr3t" * 6


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_unreachable_api_gives_up_after_bounded_retries() -> None:
    client = GraphQLClient(f"http://127.0.0.1:{_closed_port()}/graphql", TOKEN, wait_scale=0.0)
    with pytest.raises(NetworkError, match="cannot reach") as err:
        client.query("discover", {"q": "stars:1..2", "after": None})
    assert client.stats.requests == 8 and TOKEN not in str(err.value)


def test_token_without_access_is_an_auth_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == f"bearer {TOKEN}"
        return httpx.Response(403, json={"message": "Resource not accessible by personal access token"},
                              headers={"x-ratelimit-remaining": "4999"})

    client = GraphQLClient("https://api.github.invalid/graphql", TOKEN, transport=httpx.MockTransport(handler), wait_scale=0.0)
    with pytest.raises(AuthError, match="lack the needed scope") as err:
        client.query("discover", {"q": "stars:1..2", "after": None})
    assert TOKEN not in str(err.value)


def test_a_secondary_limit_that_outlasts_the_retries_is_a_failed_request_not_a_scope() -> None:
    """With every fault kind at 5%, four in ten requests fail: some request meets eight failures in a
    row, and when the last is a secondary limit (403) it must be split or recorded like any other,
    not stop the run as a token without access."""
    answers = iter([500, 500, 500, 500, 500, 500, 500, 403])

    def handler(request: httpx.Request) -> httpx.Response:
        status = next(answers)
        if status == 403:
            return httpx.Response(403, json={"message": "You have exceeded a secondary rate limit."}, headers={"retry-after": "1"})
        return httpx.Response(status, json={"message": "Server Error"})

    client = GraphQLClient("https://api.github.invalid/graphql", TOKEN, transport=httpx.MockTransport(handler), wait_scale=0.0)
    with pytest.raises(RequestFailed, match="secondary rate limit") as err:
        client.query("discover", {"q": "stars:1..2", "after": None})
    assert not isinstance(err.value, AuthError) and client.stats.requests == 8


def test_no_token_at_all() -> None:
    with pytest.raises(AuthError, match="no GitHub token"):
        GraphQLClient("https://api.github.invalid/graphql", "")


def test_token_sources_and_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_token({"GITHUB_TOKEN": " abc123 "}) == "abc123"
    monkeypatch.setenv("PATH", "/nonexistent")
    assert find_token({}) is None
    assert redact(f"failed with {TOKEN} in it", TOKEN) == "failed with [REDACTED] in it"
