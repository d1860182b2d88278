"""The GitHub emulator: a real HTTP server on 127.0.0.1 answering `POST /graphql` over a world,
with GitHub's authentication, cost model, rate-limit headers, secondary limits, error shapes
and injected faults; `GET /api/v1/packages/lookup` serves dependents as ecosyste.ms does.

`GET /_emulator/stats` reports requests, points and responses by status and by fault.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from graphql import FieldNode, GraphQLError, GraphQLSchema, build_schema, execute, parse, validate

from porchlamp import forges
from porchlamp.emulator import views
from porchlamp.emulator.cost import Cost, CostError, operation, query_cost
from porchlamp.emulator.faults import Faults
from porchlamp.emulator.index import WorldIndex

DOCS = "https://docs.github.com/graphql"
SEARCH_CAP = 1000
ABSTRACT = ("Node", "Actor", "RepositoryOwner", "GitObject", "PullRequestTimelineItems", "SearchResultItem")
ECOSYSTEMS_API = {"PyPI": ("pypi", "pypi.org"), "npm": ("npm", "npmjs.org"), "crates.io": ("cargo", "crates.io"),
                  "Maven": ("maven", "repo1.maven.org"), "Go": ("go", "proxy.golang.org")}


def load_schema() -> GraphQLSchema:
    sdl = resources.files("porchlamp.emulator").joinpath("schema.graphql").read_text(encoding="utf-8")
    schema = build_schema(sdl)
    for name in ABSTRACT:
        t = schema.get_type(name)
        t.resolve_type = lambda obj, info, abstract: obj["gql_type"] if isinstance(obj, dict) else obj.gql_type  # type: ignore[union-attr]
    return schema


@dataclass
class Limits:
    """GitHub's limits, with a compressible clock: `hour_seconds` is how long an 'hour' lasts."""

    points_per_hour: int = 5000
    hour_seconds: float = 3600.0
    max_concurrent: int = 100
    points_per_minute: int = 2000
    valid_tokens: frozenset[str] | None = None  # None: any non-empty token is accepted
    scopeless_tokens: frozenset[str] = frozenset()  # accepted, but lacking the scope GitHub asks for
    # GitHub ends any request it cannot serve within 10 seconds. Here a response whose work (objects
    # returned, plus characters of text / CHARS_PER_WORK) passes this bound times out, every time it is
    # asked for; None turns it off. See docs/EMULATOR.md.
    max_work: int | None = 6_000


CHARS_PER_WORK = 500
TIMEOUT_MESSAGE = ("Something went wrong while executing your query. This may be the result of a timeout, or it could be "
                   "a GitHub bug. Please include `{id}` when reporting this issue.")
NGINX_502 = b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
NO_USER_AGENT = ("Request forbidden by administrative rules. Please make sure your request has a User-Agent header "
                 "(https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api#user-agent).")


def response_work(data: Any) -> int:
    """How much a response costs to produce: objects in it, plus its text by CHARS_PER_WORK characters."""
    objects = chars = 0
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            objects += 1
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, str):
            chars += len(x)
    return objects + chars // CHARS_PER_WORK


def timeout_shape(key: bytes) -> tuple[int, Any, dict[str, str]]:
    """One of GitHub's answers to a query that ran out of time, chosen by the request (the same
    request always gets the same one): HTTP 502 with `data: null` and the timeout message, HTTP 502
    with the gateway's HTML page, or HTTP 200 with `data: null` and the message."""
    digest = hashlib.sha256(key).digest()
    rid = digest[:8].hex().upper()
    rid = f"{rid[:4]}:{rid[4:8]}:{rid[8:12]}:{rid[12:16]}"
    body = {"data": None, "errors": [{"message": TIMEOUT_MESSAGE.format(id=rid)}]}
    return ((502, body, {}), (502, NGINX_502, {"content-type": "text/html"}), (200, body, {}))[digest[8] % 3]


@dataclass
class Stats:
    requests: int = 0
    points: int = 0
    bytes_sent: int = 0
    timeouts: int = 0  # heavy queries that ran out of time
    by_status: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_fault: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_operation: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "points": self.points, "bytes_sent": self.bytes_sent, "timeouts": self.timeouts,
                "by_status": {str(k): v for k, v in sorted(self.by_status.items())},
                "by_fault": dict(sorted(self.by_fault.items())), "by_operation": self.by_operation}


class _Root:
    """Resolvers of the Query type."""

    def __init__(self, world: WorldIndex, rate: dict[str, Any]) -> None:
        self._w, self._rate = world, rate

    def repository(self, info: Any, owner: str, name: str) -> views.Repository | None:
        if f"{owner}/{name}".lower() in self._w.blocked:
            raise GraphQLError("Repository access blocked", extensions={"type": "FORBIDDEN"})
        entry = self._w.repo(owner, name)
        if entry is None:
            raise GraphQLError(f"Could not resolve to a Repository with the name '{owner}/{name}'.", extensions={"type": "NOT_FOUND"})
        return views.Repository(self._w, entry)

    def _node(self, node_id: str) -> Any:
        if node_id in self._w.pull_by_id:
            return views.PullRequest(self._w, self._w.pulls[self._w.pull_by_id[node_id]])
        if node_id in self._w.repo_by_id:
            return views.Repository(self._w, self._w.repo_by_id[node_id])
        return None

    def node(self, info: Any, id: str) -> Any:  # noqa: A002 - GitHub's argument name
        found = self._node(id)
        if found is None:
            raise GraphQLError(f"Could not resolve to a node with the global id of '{id}'", extensions={"type": "NOT_FOUND"})
        return found

    def nodes(self, info: Any, ids: list[str]) -> list[Any]:
        return [self._node(i) for i in ids]

    def search(self, info: Any, query: str, type: str, first: int | None = None, after: str | None = None) -> dict[str, Any]:  # noqa: A002
        lo, hi = 0, float("inf")
        for term in query.split():
            if term.startswith("stars:"):
                spec = term[6:]
                if ".." in spec:
                    a, b = spec.split("..", 1)
                    lo = int(a) if a not in ("", "*") else 0
                    hi = int(b) if b not in ("", "*") else float("inf")
                elif spec.startswith(">="):
                    lo = int(spec[2:])
                elif spec.startswith(">"):
                    lo = int(spec[1:]) + 1
                else:
                    lo = hi = int(spec)
        found = sorted((e for e in self._w.repos.values() if lo <= e.row["stars"] <= hi),
                       key=lambda e: (-e.row["stars"], e.row["name_with_owner"]))
        # GitHub's search reaches only the first 1,000 results of any query.
        reachable = [views.Repository(self._w, e) for e in found[:SEARCH_CAP]]
        return views.connection(reachable, first, after, extra={"repositoryCount": len(found)})

    def rateLimit(self, info: Any, dryRun: bool = False) -> dict[str, Any]:
        return dict(self._rate)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a class attribute: the backlog is fixed when the socket binds
    daemon_threads = True


class Served:
    """A server on 127.0.0.1 in a thread of its own: every emulator's start, stop and addresses."""

    _httpd: ThreadingHTTPServer
    _thread: threading.Thread | None = None
    PATH = ""  # the API's path under the server

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        return f"{self.base_url}{self.PATH}"

    def start(self) -> Any:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=type(self).__name__, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Emulator(Served):
    """Start with `start()`, stop with `stop()`; `url` is the GraphQL endpoint."""

    PATH = "/graphql"

    def __init__(self, world: str | Path | WorldIndex, port: int = 0, faults: Faults | None = None,
                 limits: Limits | None = None, clock: date | None = None) -> None:
        self.world = world if isinstance(world, WorldIndex) else WorldIndex(world, clock=clock)
        self.schema = load_schema()
        self.faults = faults or Faults()
        self.limits = limits or Limits()
        self.stats = Stats()
        self._lock = threading.Lock()
        self._used: dict[str, tuple[float, int]] = {}  # token -> (window start, points used)
        self._minute: dict[str, tuple[float, int]] = {}
        self._inflight = 0
        self._documents: dict[str, tuple[Any, list[GraphQLError]]] = {}
        self._httpd = _Server(("127.0.0.1", port), _handler(self))

    # -- rate limits -----------------------------------------------------------------------

    def _window(self, token: str, now: float) -> tuple[float, int]:
        start, used = self._used.get(token, (now, 0))
        if now - start >= self.limits.hour_seconds:
            start, used = now, 0
        return start, used

    def rate_state(self, token: str, now: float, cost: int = 0) -> dict[str, Any]:
        start, used = self._window(token, now)
        reset = start + self.limits.hour_seconds
        return {"limit": self.limits.points_per_hour, "cost": cost, "used": used,
                "remaining": max(0, self.limits.points_per_hour - used),
                "resetAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(_wall(reset))), "reset_epoch": int(_wall(reset))}

    def charge(self, token: str, now: float, points: int) -> bool:
        """Take points from the token's hour; False when there are not enough left."""
        with self._lock:
            start, used = self._window(token, now)
            if used + points > self.limits.points_per_hour:
                self._used[token] = (start, used)
                return False
            self._used[token] = (start, used + points)
            self.stats.points += points
            return True

    def secondary_wait(self, token: str, now: float, points: int) -> float:
        """Seconds to wait when the points-per-minute limit would be passed, else 0."""
        minute = 60.0 * self.limits.hour_seconds / 3600.0
        with self._lock:
            start, used = self._minute.get(token, (now, 0))
            if now - start >= minute:
                start, used = now, 0
            if used + points > self.limits.points_per_minute:
                return max(0.001, start + minute - now)
            self._minute[token] = (start, used + points)
            return 0.0

    # -- one request -----------------------------------------------------------------------

    def graphql(self, token: str, body: dict[str, Any], raw: bytes = b"") -> tuple[int, Any, dict[str, str]]:
        """Answer one GraphQL request: (status, JSON body or raw bytes, extra headers)."""
        now = time.monotonic()
        query = body.get("query")
        variables = body.get("variables") or {}
        op_name = body.get("operationName")
        if not isinstance(query, str) or not isinstance(variables, dict):
            return 400, {"message": "Problems parsing JSON", "documentation_url": DOCS}, {}
        try:
            doc, errors = self._document(query)
        except GraphQLError as err:
            loc = err.locations[0] if err.locations else None
            return 200, {"errors": [{"message": f"Parse error: {err.message}",
                                     "locations": [{"line": loc.line, "column": loc.column}] if loc else []}]}, {}
        if errors:
            return 200, {"errors": [_github_validation_error(e) for e in errors]}, {}
        try:
            cost = query_cost(self.schema, doc, op_name, variables)
        except CostError as err:
            return 200, {"errors": [{"message": str(err), "type": err.kind}]}, {}
        asks = [f.name.value for f in operation(doc, op_name).selection_set.selections
                if isinstance(f, FieldNode) and f.name.value != "rateLimit"]
        if token in self.limits.scopeless_tokens and asks:  # the budget alone needs no scope
            field = asks[0]
            return 200, {"errors": [{"type": "INSUFFICIENT_SCOPES", "locations": [{"line": 1, "column": 1}], "message":
                                     f"Your token has not been granted the required scopes to execute this query. The '{field}' field "
                                     "requires one of the following scopes: ['public_repo'], but your token has only been granted the: "
                                     "[''] scopes. Please modify your token's scopes at: https://github.com/settings/tokens."}]}, {}
        dry = _dry_run(doc, op_name, variables)
        if dry is not None:  # the cost alone: nothing runs and nothing is charged
            alias, wanted = dry
            rate = {**self.rate_state(token, now, cost.points), "nodeCount": cost.nodes}
            return 200, {"data": {alias: {k: rate[k] for k in wanted if k in rate}}}, _rate_headers(rate)
        wait = self.secondary_wait(token, now, cost.points)
        if wait:
            return 403, {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                         "documentation_url": "https://docs.github.com/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api"
                         "#secondary-rate-limits"}, {"retry-after": str(max(1, round(wait)))}
        if not self.charge(token, now, cost.points):
            rate = self.rate_state(token, now)
            rate["remaining"] = 0
            return 200, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for user ID 1."}]}, \
                _rate_headers(rate)
        rate = self.rate_state(token, now, cost.points)
        rate["nodeCount"] = cost.nodes
        result = execute(self.schema, doc, root_value=_Root(self.world, {k: v for k, v in rate.items() if k != "reset_epoch"}),
                         variable_values=variables, operation_name=op_name)
        self._count_operation(op_name or "anonymous", cost)
        if self.limits.max_work is not None and response_work(result.data) > self.limits.max_work:
            # Ran out of time: the points are spent all the same (GitHub counts timeouts against the
            # primary limit since 2025-07-21), and nothing comes back.
            with self._lock:
                self.stats.timeouts += 1
            status, data, extra = timeout_shape(raw or json.dumps(body, sort_keys=True).encode())
            return status, data, {**_rate_headers(rate), **extra}
        out: dict[str, Any] = {}
        if result.errors:
            out["errors"] = [_github_error(e) for e in result.errors]
        out["data"] = result.data
        return 200, out, _rate_headers(rate)

    def _document(self, query: str) -> tuple[Any, list[GraphQLError]]:
        """The parsed document and its validation errors. A document's validity does not depend on
        its variables, and a collector sends the same few documents again and again: kept once each."""
        with self._lock:
            known = self._documents.get(query)
        if known is None:
            doc = parse(query)
            known = (doc, validate(self.schema, doc))
            with self._lock:
                if len(self._documents) >= 64:
                    self._documents.clear()
                self._documents[query] = known
        return known

    def _count_operation(self, name: str, cost: Cost) -> None:
        with self._lock:
            s = self.stats.by_operation.setdefault(name, {"requests": 0, "points": 0})
            s["requests"] += 1
            s["points"] += cost.points

    def touches_pinned(self, raw: bytes) -> bool:
        """Does this request name a repository pinned to fail (by owner and name, or by one of its PRs' ids)?"""
        try:
            variables = (json.loads(raw or b"{}") or {}).get("variables") or {}
        except ValueError:
            return False
        pinned = self.faults.pinned
        for k, v in variables.items():
            if k.startswith("o") and k[1:].isdigit() and f"{v}/{variables.get('n' + k[1:])}".lower() in pinned:
                return True
            if k == "owner" and f"{v}/{variables.get('name')}".lower() in pinned:
                return True
            ids = v if isinstance(v, list) else [v] if isinstance(v, str) else []
            for i in ids:
                hit = self.world.pull_by_id.get(i) if isinstance(i, str) else None
                if hit and hit[0].lower() in pinned:
                    return True
        return False

    def authenticate(self, header: str | None) -> tuple[str | None, dict[str, Any] | None]:
        """(token, None) when accepted, else (None, GitHub's 401 body)."""
        if not header:
            return None, {"message": "This endpoint requires you to be authenticated.",
                          "documentation_url": f"{DOCS}/guides/forming-calls-with-graphql#authenticating-with-graphql"}
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() not in ("bearer", "token") or not token or (
                self.limits.valid_tokens is not None and token not in self.limits.valid_tokens):
            return None, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
        return token, None

    def dependents_lookup(self, repository_url: str) -> list[dict[str, Any]]:
        """Packages published from a repository, in ecosyste.ms' packages-lookup shape."""
        url = urlparse(repository_url)
        path = url.path.strip("/")
        owner, _, name = path.partition("/")
        # A project on another forge is looked up by its host and path (the service knows GitLab's too).
        entry = (self.world.repo(owner, name) if name else None) if url.netloc in ("", "github.com") \
            else self.world.repos.get(forges.join(url.netloc, path).lower())
        d = entry.dependents if entry else None
        if not d or not d.get("package"):
            return []
        eco, registry = ECOSYSTEMS_API.get(d["ecosystem"], (d["ecosystem"].lower(), d["ecosystem"]))
        return [{"name": d["package"], "ecosystem": eco, "registry": {"name": registry, "ecosystem": eco},
                 "repository_url": forges.web_url(entry.row["name_with_owner"]),  # type: ignore[union-attr]
                 "dependent_packages_count": d["dependent_packages"], "dependent_repos_count": d["dependent_repos"]}]


def _dry_run(doc: Any, op_name: str | None, variables: dict[str, Any]) -> tuple[str, list[str]] | None:
    """(response key, fields asked) of a top-level `rateLimit(dryRun: true)`, if the query has one."""
    from graphql import value_from_ast_untyped

    for sel in operation(doc, op_name).selection_set.selections:
        if isinstance(sel, FieldNode) and sel.name.value == "rateLimit":
            for a in sel.arguments or ():
                if a.name.value == "dryRun" and value_from_ast_untyped(a.value, variables) is True:
                    asked = [f.name.value for f in (sel.selection_set.selections if sel.selection_set else ()) if isinstance(f, FieldNode)]
                    return (sel.alias.value if sel.alias else "rateLimit"), asked
    return None


def _wall(monotonic_t: float) -> float:
    return time.time() + (monotonic_t - time.monotonic())


def _rate_headers(rate: dict[str, Any]) -> dict[str, str]:
    return {"x-ratelimit-limit": str(rate["limit"]), "x-ratelimit-remaining": str(rate["remaining"]),
            "x-ratelimit-used": str(rate["used"]), "x-ratelimit-reset": str(rate["reset_epoch"]),
            "x-ratelimit-resource": "graphql"}


def _github_error(e: GraphQLError) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ext = dict(e.extensions or {})
    if "type" in ext:
        out["type"] = ext.pop("type")
    if e.path:
        out["path"] = list(e.path)
    if e.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in e.locations]
    out["message"] = e.message
    return out


def _github_validation_error(e: GraphQLError) -> dict[str, Any]:
    """graphql-core's validation messages in the words and codes GitHub uses."""
    msg = e.message
    out: dict[str, Any] = {}
    if msg.startswith("Cannot query field"):
        parts = msg.split("'")
        field_name, type_name = parts[1], parts[3]
        out = {"message": f"Field '{field_name}' doesn't exist on type '{type_name}'",
               "extensions": {"code": "undefinedField", "typeName": type_name, "fieldName": field_name}}
    elif msg.startswith("Unknown argument"):
        parts = msg.split("'")
        arg_name, field_path = parts[1], parts[3]
        out = {"message": f"Field '{field_path.split('.')[-1]}' doesn't accept argument '{arg_name}'",
               "extensions": {"code": "argumentNotAccepted", "name": field_path.split(".")[-1], "typeName": "Field",
                              "argumentName": arg_name}}
    else:
        out = {"message": msg}
    if e.locations:
        out["locations"] = [{"line": loc.line, "column": loc.column} for loc in e.locations]
    return out


class RestHandler(BaseHTTPRequestHandler):
    """What the REST forges' emulators answer alike (GitLab's, Forgejo's): the connection, the counts
    in `emu.stats`, JSON bodies, `/_emulator/stats`, and the server faults and a body cut short, each
    in the forge's own error shape (`server_error`)."""

    protocol_version = "HTTP/1.1"
    sys_version = ""
    # Headers and body go out as two writes; with Nagle's algorithm on, each small answer waited for
    # the client's delayed acknowledgement (about 40 ms a request on loopback).
    disable_nagle_algorithm = True
    emu: Any  # the emulator, set by each forge's handler class
    content_type = "application/json"

    def server_error(self, status: int) -> dict[str, Any]:
        raise NotImplementedError

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def _send(self, status: int, body: bytes, headers: dict[str, str], fault: str | None = None, endpoint: str = "") -> None:
        emu = self.emu
        with emu._lock:
            emu.stats.requests += 1
            emu.stats.by_status[status] += 1
            if endpoint:
                emu.stats.by_endpoint[endpoint] += 1
            if fault:
                emu.stats.by_fault[fault] += 1
        write_answer(self, status, body, headers, fault, self.content_type)

    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None, fault: str | None = None,
              endpoint: str = "") -> None:
        body = data if isinstance(data, bytes) else json.dumps(data, ensure_ascii=False).encode("utf-8")
        self._send(status, body, headers or {}, fault, endpoint)

    def _stats(self, path: str) -> bool:
        """Answer `/_emulator/stats`; whether it was that."""
        if path != "/_emulator/stats":
            return False
        with self.emu._lock:
            data = self.emu.stats.as_dict()
        self._json(200, data)
        return True

    def _server_fault(self, fault: str | None, endpoint: str) -> bool:
        """Answer a drawn 502 (an HTML page, as a proxy sends), 504 or 500; whether it was one."""
        if fault not in ("bad_gateway", "gateway_timeout", "partial"):
            return False
        status = {"bad_gateway": 502, "gateway_timeout": 504, "partial": 500}[fault]
        body = b"<html><body><h1>502 Bad Gateway</h1></body></html>" if status == 502 else json.dumps(self.server_error(status)).encode()
        self._send(status, body, {"content-type": "text/html" if status == 502 else "application/json"}, fault, endpoint)
        return True

    def _answer(self, status: int, data: Any, headers: dict[str, str], fault: str | None, endpoint: str) -> None:
        """Send an answer, cut in half for the fault `malformed`; `slow` and `reset` are the sending's own."""
        if fault == "malformed" and not isinstance(data, bytes):
            text = json.dumps(data).encode()
            self._send(status, text[: max(1, len(text) // 2)], headers, fault, endpoint)
            return
        self._json(status, data, headers, fault if fault in ("slow", "reset") else None, endpoint)


def write_answer(handler: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str], fault: str | None,
                 content_type: str) -> None:
    """Send an answer; with the fault `reset`, a third of its body and then the connection cut for
    good (SO_LINGER 0: the handler's own files keep the socket open past close())."""
    headers = dict(headers)
    handler.send_response(status)
    handler.send_header("Content-Type", headers.pop("content-type", content_type))
    handler.send_header("Content-Length", str(len(body)))
    for k, v in headers.items():
        handler.send_header(k, v)
    handler.end_headers()
    if fault == "reset":
        handler.wfile.write(body[: max(1, len(body) // 3)])
        handler.wfile.flush()
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        handler.connection.shutdown(socket.SHUT_RDWR)
        handler.connection.close()
        handler.close_connection = True
        return
    handler.wfile.write(body)


def _handler(emu: Emulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "GitHub.com"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet: tests and demos read stdout
            return

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None, fault: str | None = None) -> None:
            with emu._lock:
                emu.stats.requests += 1
                emu.stats.by_status[status] += 1
                if fault:
                    emu.stats.by_fault[fault] += 1
                emu.stats.bytes_sent += len(body)
            write_answer(self, status, body, headers or {}, fault, "application/json; charset=utf-8")

        def _json(self, status: int, data: Any, headers: dict[str, str] | None = None, fault: str | None = None) -> None:
            if isinstance(data, bytes):  # a gateway's page, not JSON
                self._send(status, data, headers, fault)
                return
            self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), headers, fault)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlparse(self.path)
            if url.path == "/_emulator/stats":
                with emu._lock:
                    data = emu.stats.as_dict()
                self._json(200, data)
            elif url.path == "/api/v1/packages/lookup":
                repo_url = (parse_qs(url.query).get("repository_url") or [""])[0]
                self._json(200, emu.dependents_lookup(repo_url))
            else:
                self._json(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})

        def do_POST(self) -> None:  # noqa: N802
            if urlparse(self.path).path != "/graphql":
                self._json(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not (self.headers.get("User-Agent") or "").strip():  # GitHub refuses requests without one
                self._json(403, {"message": NO_USER_AGENT})
                return
            token, denied = emu.authenticate(self.headers.get("Authorization"))
            if denied:
                self._json(401, denied)
                return
            with emu._lock:
                emu._inflight += 1
                busy = emu._inflight > emu.limits.max_concurrent
            try:
                if busy:
                    self._json(403, {"message": "You have exceeded a secondary rate limit: too many concurrent requests.",
                                     "documentation_url": DOCS}, {"retry-after": "1"}, fault="concurrency")
                    return
                self._answer(token or "", raw)
            except Exception as err:  # noqa: BLE001 - a bug in the emulator answers 500, as a server would
                self._json(500, {"message": f"emulator error: {type(err).__name__}: {err}"})
            finally:
                with emu._lock:
                    emu._inflight -= 1

        def _answer(self, token: str, raw: bytes) -> None:
            if emu.faults.pinned and emu.touches_pinned(raw):
                self._json(502, {"message": "Server Error"}, fault="pinned")
                return
            fault = emu.faults.draw()
            now = time.monotonic()
            if fault == "secondary":
                self._json(403, {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                                 "documentation_url": DOCS}, {"retry-after": "1"}, fault)
                return
            if fault == "rate_limited":
                rate = emu.rate_state(token, now)
                rate["remaining"], rate["reset_epoch"] = 0, int(time.time()) + 1
                self._json(200, {"errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for user ID 1."}]},
                           _rate_headers(rate), fault)
                return
            if fault in ("bad_gateway", "gateway_timeout"):
                status = 502 if fault == "bad_gateway" else 504
                msg = "Server Error" if status == 502 else ("We couldn't respond to your request in time. Sorry about that. "
                                                            "Please try resubmitting your request and contact us if the problem persists.")
                self._json(status, {"message": msg}, fault=fault)
                return
            if fault == "slow":
                time.sleep(emu.faults.slow_seconds)
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._json(400, {"message": "Problems parsing JSON", "documentation_url": DOCS})
                return
            status, data, headers = emu.graphql(token, body if isinstance(body, dict) else {}, raw)
            if fault == "partial" and status == 200 and isinstance(data, dict) and isinstance(data.get("data"), dict):
                key = next((k for k in data["data"] if k != "rateLimit"), None)
                if key is not None:
                    data["data"][key] = None
                    data.setdefault("errors", []).append({
                        "path": [key], "message": "Something went wrong while executing your query. This may be the result "
                        "of a timeout, or it could be a GitHub bug. Please include `0000:0000:0000` when reporting this issue."})
            if fault == "malformed" and not isinstance(data, bytes):
                text = json.dumps(data).encode()
                self._send(status, text[: max(1, len(text) // 2)], headers, fault)
                return
            self._json(status, data, headers, fault if fault in ("slow", "partial", "reset") else None)

    return Handler
