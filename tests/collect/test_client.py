"""The GraphQL client's whole-run failures: they stop at once, say what to do, and never show the token."""

import socket

import httpx
import pytest

from porchlamp.collect import AuthError, GraphQLClient, NetworkError
from porchlamp.collect.client import find_token, redact

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


def test_no_token_at_all() -> None:
    with pytest.raises(AuthError, match="no GitHub token"):
        GraphQLClient("https://api.github.invalid/graphql", "")


def test_token_sources_and_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_token({"GITHUB_TOKEN": " abc123 "}) == "abc123"
    monkeypatch.setenv("PATH", "/nonexistent")
    assert find_token({}) is None
    assert redact(f"failed with {TOKEN} in it", TOKEN) == "failed with [REDACTED] in it"
