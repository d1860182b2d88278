"""Collection's errors, shared by every forge's client, drawn in one place:

    CollectError            anything that stops collection
    ├── AuthError           the forge refused the token (401) or it lacks access: fix the token
    ├── NetworkError        the forge could not be reached after bounded retries
    ├── QueryError          the forge rejected a request as malformed (a bug in Porchlamp's requests)
    └── RequestFailed       one request kept failing while the forge was reachable: record its repositories
        └── QueryTimeout    the same request ran out of time on each of its few tries: ask for less

A token never reaches a message: `redact` takes it out of any text that may be shown or logged.
"""

from __future__ import annotations

from porchlamp.errors import PorchlampError


class CollectError(PorchlampError):
    """Collection cannot go on; the message says what to do."""


class AuthError(CollectError):
    pass


class NetworkError(CollectError):
    pass


class QueryError(CollectError):
    pass


class RequestFailed(CollectError):
    """A forge answered one request with errors on every bounded try (the API itself is reachable):
    the request's repositories can be recorded as failed while the run goes on."""


class QueryTimeout(RequestFailed):
    """A query timed out TIMEOUT_ATTEMPTS times in a row; the caller should split it or ask for smaller pages."""


def redact(text: str, secret: str | None) -> str:
    """The text with the token (if any) replaced, so it can be logged or shown."""
    if secret and len(secret) >= 4:
        return text.replace(secret, "[REDACTED]")
    return text
