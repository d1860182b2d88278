"""GitHub's GraphQL API: one query at a time through httpx, with bounded retries decided by
`ratelimit.decide`, pacing by the budget left, point accounting, and the token kept secret.
The errors it raises are collection's own (`collect.errors`).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

import httpx

from porchlamp import killpoints
from porchlamp.collect.errors import AuthError, CollectError, NetworkError, QueryError, QueryTimeout, RequestFailed, redact
from porchlamp.collect.github.ratelimit import decide, pace
from porchlamp.collect.http import USER_AGENT, ClientStats, RestLookup, unreachable
from porchlamp.collect.retries import Decision

DEFAULT_API = "https://api.github.com/graphql"
DEFAULT_DEPENDENTS_API = "https://packages.ecosyste.ms"
# A query that times out this many times running is not tried again as it is: it is split or shrunk.
TIMEOUT_ATTEMPTS = 2


def find_token(env: dict[str, str] | None = None) -> str | None:
    """The token from GITHUB_TOKEN, else from `gh auth token`; None when neither has one."""
    env = dict(os.environ) if env is None else env
    token = (env.get("GITHUB_TOKEN") or "").strip()
    if token:
        return token
    gh = shutil.which("gh")
    if gh:
        try:
            out = subprocess.run([gh, "auth", "token"], capture_output=True, text=True, timeout=10, check=False)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return None
    return None


def load_query(name: str) -> str:
    return resources.files("porchlamp.collect.github.queries").joinpath(f"{name}.graphql").read_text(encoding="utf-8")


class GraphQLClient(RestLookup):
    """A GraphQL client for GitHub's API. Thread-safe; `transport` is the seam tests may use."""

    def __init__(self, api: str, token: str, *, transport: httpx.BaseTransport | None = None, timeout: float = 60.0,
                 wait_scale: float = 1.0, reserve: int = 50, sleep: Callable[[float], None] = time.sleep,
                 seed: int | None = None, rest_transport: httpx.BaseTransport | None = None) -> None:
        if not token:
            raise AuthError("no GitHub token: set GITHUB_TOKEN or log in with `gh auth login`")
        self.api = api
        self._token = token
        self._http = httpx.Client(transport=transport, timeout=timeout,
                                  headers={"Authorization": f"bearer {token}", "User-Agent": USER_AGENT,
                                           "Accept": "application/json"})
        self.wait_scale = wait_scale
        self.reserve = reserve
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.stats = ClientStats()
        self.remaining: int | None = None
        self.reset_epoch: float | None = None
        self._docs: dict[str, str] = {}
        self._rest: httpx.Client | None = None  # the dependents service, opened on first use
        self._rest_transport = rest_transport

    def close(self) -> None:
        self._http.close()
        self.close_rest()

    def query(self, name: str, variables: dict[str, Any], expected_cost: int = 1, charged: bool = True) -> dict[str, Any]:
        """Run the named query; returns the whole JSON body (data and any per-repository errors)."""
        doc = self._docs.get(name) or self._docs.setdefault(name, load_query(name))
        with self._lock:
            remaining, reset = self.remaining, self.reset_epoch
        wait = pace(remaining, reset, time.time(), expected_cost, self.reserve)
        if wait:
            self._wait(wait)
        attempt = timeouts = 0
        while True:
            attempt += 1
            status, headers, body, size = None, {}, None, 0
            last_error, failed = "", None
            try:
                resp = self._http.post(self.api, json={"query": doc, "variables": variables, "operationName": None})
                status, headers = resp.status_code, dict(resp.headers)
                size = len(resp.content)
                try:
                    body = resp.json()
                except (ValueError, json.JSONDecodeError):
                    body = None
            except httpx.HTTPError as err:
                last_error, failed = redact(f"{type(err).__name__}: {err}", self._token), err
            with self._lock:
                self.stats.requests += 1
                self.stats.bytes_received += size
                self._note_limits(headers)
            with self._lock:
                jitter = self._rng.random()
            d = decide(status, headers, body, attempt, time.time(), jitter)
            if d.action == "proceed":
                killpoints.reach("page_received")  # the page is in memory, nothing of it committed yet
                cost = int(((body or {}).get("data") or {}).get("rateLimit", {}).get("cost") or expected_cost) \
                    if isinstance((body or {}).get("data"), dict) else expected_cost
                if charged:  # a dry run reports a cost it does not spend
                    with self._lock:
                        self.stats.points += cost
                        self.stats.points_by_query[name] += cost
                return body  # type: ignore[return-value]
            if d.action == "fail":
                reason = redact(d.reason, self._token)
                if d.timeout:
                    raise QueryTimeout(f"query {name}: {reason}") from None
                if status == 401:
                    raise AuthError(f"GitHub refused the token ({reason}): check GITHUB_TOKEN or `gh auth status`; "
                                    "nothing collected so far is lost") from None
                if status == 403 and "rate limit" not in reason:
                    # A rate limit that outlasted the retries is a failed request, split or recorded
                    # like any other, never a missing scope.
                    raise AuthError(f"GitHub refused access ({reason}): the token may lack the needed scope") from None
                if reason.startswith("insufficient scopes"):
                    raise AuthError(f"GitHub refused query {name}: the token lacks a scope it needs ({reason}). Give it read "
                                    "access to public repositories and run again; nothing collected so far is lost") from None
                if status is None and unreachable(failed):
                    raise NetworkError(f"cannot reach {self.api}: {last_error} ({reason}); check the network and run again "
                                       "to resume") from None
                if "rejected the query" in reason:
                    raise QueryError(f"query {name}: {reason}") from None
                raise RequestFailed(f"query {name} to {self.api}: {reason}") from None
            with self._lock:
                self.stats.retries[d.reason.split(" (")[0].split(":")[0]] += 1
            timeouts = timeouts + 1 if d.timeout else 0
            if timeouts >= TIMEOUT_ATTEMPTS:
                with self._lock:
                    self.stats.timeouts += 1
                raise QueryTimeout(f"query {name} timed out {timeouts} times running ({redact(d.reason, self._token)})")
            self._wait(d.wait)

    def budget(self) -> dict[str, Any]:
        """The token's budget (limit, remaining, resetAt), asked without spending any: also proves the token works."""
        body = self.query("rate_limit", {}, charged=False)
        rate = ((body.get("data") or {}).get("rateLimit")) or {}
        return {k: rate.get(k) for k in ("limit", "remaining", "resetAt")}

    def _note_limits(self, headers: dict[str, str]) -> None:
        low = {k.lower(): v for k, v in headers.items()}
        try:
            if "x-ratelimit-remaining" in low:
                self.remaining = int(low["x-ratelimit-remaining"])
            if "x-ratelimit-reset" in low:
                self.reset_epoch = float(low["x-ratelimit-reset"])
        except ValueError:
            pass

    def _rest_decision(self, status: int | None, headers: dict[str, str], body: Any, attempt: int, now: float,
                       jitter: float) -> Decision:
        return decide(status, headers, {"data": body} if status == 200 and body is not None else body, attempt, now, jitter)
