"""The GitLab emulator: a real HTTP server on 127.0.0.1 answering GitLab's REST API v4 (the part
Porchlamp reads) for one host's projects of a sample world, with GitLab's pagination, rate limits,
authentication and error shapes, and injected faults. docs/EMULATOR.md cites where GitLab documents
or its source shows each behaviour copied; where unsure, it is stricter than GitLab (unknown query
parameters and bad values are refused with 400, a token is always required).

The world is stored as a perfect collector would store it; this renders it in GitLab's shapes: a PR
is a merge request, a comment a note, a review a diff note or an approval's system note, a close,
reopen or merge a resource state event, a label a resource label event. A contributor's commit
before the window was a merge request merged then: one is served for each, so their history shows
as it would on GitLab. `GET /_emulator/stats` reports requests by status, fault and endpoint.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlparse

from porchlamp import forges
from porchlamp.emulator.faults import Faults
from porchlamp.emulator.index import RepoEntry, WorldIndex, merged_before, merged_pr
from porchlamp.emulator.server import RestHandler, Served, _Server
from porchlamp.sample.associations import ACCESS_LEVELS

API = "/api/v4"
MAX_PER_PAGE, DEFAULT_PER_PAGE = 100, 20  # doc/api/rest/_index.md, "Pagination"
TOTAL_CAP = 10_000  # past this many items GitLab leaves out x-total, x-total-pages and rel="last"
# Offset pagination of the project list ends at 50,000 projects; past it only keyset pagination,
# ordered by id, goes on (doc/api/projects.md, "Pagination limits"; doc/api/rest/_index.md).
PROJECTS_OFFSET_CAP = 50_000
GHOST = {"id": 1, "username": "ghost", "name": "Ghost User", "state": "active", "locked": False,
         "avatar_url": None, "web_url": ""}  # who deleted users' records move to (doc/user/profile/account/delete_account.md)
VERSION = {"version": "17.5.0", "revision": "porchlamp-emulator"}


@dataclass
class GitLabLimits:
    """gitlab.com's limits (doc/user/gitlab_com/_index.md, "Rate limits on GitLab.com"), on a clock
    that can be compressed: `minute_seconds` is how long a 'minute' lasts."""

    per_minute: int = 2_000  # authenticated API traffic for a user
    users_per_ten_minutes: int = 300  # requests to /api/v4/users/:id
    minute_seconds: float = 60.0
    valid_tokens: frozenset[str] | None = None  # None: any non-empty token is accepted


@dataclass
class GitLabStats:
    requests: int = 0
    by_status: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_fault: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_endpoint: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    params: dict[str, set[str]] = field(default_factory=dict)  # endpoint -> the query parameters asked of it

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "by_status": {str(k): v for k, v in sorted(self.by_status.items())},
                "by_fault": dict(sorted(self.by_fault.items())), "by_endpoint": dict(sorted(self.by_endpoint.items())),
                "params": {k: sorted(v) for k, v in sorted(self.params.items())}}


class BadRequest(Exception):
    """A request GitLab would refuse (an unknown parameter, a value of the wrong kind): HTTP 400."""


def number(text: str) -> int:
    """A stable positive id for a world key (GitLab's ids are integers)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=6).digest(), "big") + 2


def _t(iso: str | None) -> str | None:
    """A world time as GitLab writes it: ISO 8601 with milliseconds, UTC."""
    return None if not iso else iso.replace("Z", ".000Z")


def _parse_time(name: str, value: str) -> str:
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadRequest(f"{name} is invalid") from None
    t = t.astimezone(timezone.utc) if t.tzinfo else t
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


# Each endpoint's query parameters and their kinds, from GitLab's API docs (docs/EMULATOR.md).
PAGED = {"page": "int", "per_page": "int"}
PARAMS: dict[str, dict[str, Any]] = {
    "project": {"license": "bool", "statistics": "bool", "with_custom_attributes": "bool"},
    "languages": {},
    "tree": {**PAGED, "ref": "str", "path": "str", "recursive": "bool"},
    "file_raw": {"ref": "str", "lfs": "bool"},
    "commits": {**PAGED, "ref_name": "str", "since": "time", "until": "time", "path": "str", "all": "bool",
                "with_stats": "bool", "first_parent": "bool", "order": ("default", "topo"), "trailers": "bool", "author": "str"},
    "merge_requests": {**PAGED, "state": ("opened", "closed", "locked", "merged", "all"), "order_by": ("created_at", "updated_at",
                       "title", "merged_at", "label_priority", "milestone_due", "popularity", "priority"),
                       "sort": ("asc", "desc"), "created_after": "time", "created_before": "time", "updated_after": "time",
                       "updated_before": "time", "author_username": "str", "author_id": "int", "view": ("simple",),
                       "labels": "str", "wip": ("yes", "no"), "scope": ("created_by_me", "assigned_to_me", "all")},
    "merge_request": {"render_html": "bool", "include_diverged_commits_count": "bool", "include_rebase_in_progress": "bool"},
    "notes": {**PAGED, "sort": ("asc", "desc"), "order_by": ("created_at", "updated_at"), "activity_filter": ("all_notes", "only_comments", "only_activity")},
    "events": {**PAGED},
    "pipelines": {**PAGED},
    "members": {**PAGED, "query": "str", "user_ids": "str", "state": ("awaiting", "active"), "show_seat_info": "bool"},
    "member": {},
    "user": {"with_custom_attributes": "bool"},
    "issues": {**PAGED, "state": ("opened", "closed", "all"), "labels": "str", "assignee_id": "str", "created_after": "time",
               "created_before": "time", "updated_after": "time", "updated_before": "time", "order_by": ("created_at", "updated_at"),
               "sort": ("asc", "desc")},
    "labels": {**PAGED, "with_counts": "bool", "include_ancestor_groups": "bool", "search": "str"},
    "version": {},
    "projects": {**PAGED, "order_by": ("id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity",
                                       "star_count", "storage_size", "repository_size", "wiki_size", "packages_size"),
                 "sort": ("asc", "desc"), "visibility": ("public", "internal", "private"), "archived": "bool", "simple": "bool",
                 "search": "str", "min_access_level": "int", "membership": "bool", "starred": "bool", "topic": "str",
                 "last_activity_after": "time", "last_activity_before": "time", "pagination": ("keyset", "offset"),
                 "id_after": "int", "id_before": "int"},
}


def _check(kind: str, query: dict[str, str]) -> dict[str, Any]:
    """The request's parameters checked against the endpoint's, as values of their kinds."""
    spec = PARAMS[kind]
    out: dict[str, Any] = {}
    for name, value in query.items():
        if name not in spec:
            raise BadRequest(f"{name} does not have a valid value")  # stricter than GitLab, which ignores it
        want = spec[name]
        if want == "int":
            if not re.fullmatch(r"\d{1,9}", value):
                raise BadRequest(f"{name} is invalid")
            out[name] = int(value)
        elif want == "bool":
            if value not in ("true", "false", "1", "0"):
                raise BadRequest(f"{name} is invalid")
            out[name] = value in ("true", "1")
        elif want == "time":
            out[name] = _parse_time(name, value)
        elif isinstance(want, tuple):
            if value not in want:
                raise BadRequest(f"{name} does not have a valid value")
            out[name] = value
        else:
            out[name] = value
    return out


class GitLabWorld:
    """One host's projects of a world, rendered in GitLab's shapes."""

    def __init__(self, index: WorldIndex, host: str) -> None:
        self.index, self.host = index, host
        self.projects: dict[int, RepoEntry] = {}
        self.by_path: dict[str, RepoEntry] = {}
        for key, entry in index.repos.items():
            if forges.host_of(entry.row["name_with_owner"]) == host:
                pid = number(f"project:{entry.row['name_with_owner']}")
                entry.row.setdefault("_gitlab_id", pid)
                self.projects[pid] = entry
                self.by_path[forges.path_of(entry.row["name_with_owner"]).lower()] = entry
        self.user_by_id: dict[int, dict[str, Any]] = {number(f"user:{login}"): a for login, a in index.accounts.items()}
        self.history = merged_before(index, self.projects.values())  # repo -> merged MRs served from commits before the window

    # -- lookups ---------------------------------------------------------------------------

    def project(self, ref: str) -> RepoEntry | None:
        """A project by numeric id or URL-encoded path (renames followed)."""
        if ref.isdigit():
            return self.projects.get(int(ref))
        path = unquote(ref).lower()
        renamed = self.index.renamed.get(forges.join(self.host, path).lower())
        if renamed:
            path = forges.path_of(renamed).lower()
        return self.by_path.get(path)

    def user(self, login: str | None) -> dict[str, Any]:
        """A user as GitLab's UserBasic shows one (`lib/api/entities/user_basic.rb`); an imported record's
        author nobody took over is a placeholder user named after the source's (gitlab-org/gitlab!147488)."""
        if not login:
            return dict(GHOST)
        if (self.index.accounts.get(login) or {}).get("type") == "Mannequin":
            login = f"{login}_placeholder_user_1"
        return {"id": number(f"user:{login}"), "username": login, "name": login.replace("-", " ").title(), "state": "active",
                "locked": False, "avatar_url": f"https://{self.host}/uploads/-/system/user/avatar/{number('user:' + login)}/a.png",
                "web_url": f"https://{self.host}/{login}"}

    # -- shapes ----------------------------------------------------------------------------

    def project_json(self, e: RepoEntry, license_: bool) -> dict[str, Any]:
        r = e.row
        path = forges.path_of(r["name_with_owner"])
        group, _, name = path.rpartition("/")
        web = f"https://{self.host}/{path}"
        out: dict[str, Any] = {
            "id": r["_gitlab_id"], "description": r.get("description"), "name": name, "name_with_namespace": path.replace("/", " / "),
            "path": name, "path_with_namespace": path, "created_at": _t(r.get("created_at")), "default_branch": r.get("default_branch"),
            "tag_list": list(r.get("topics") or []), "topics": list(r.get("topics") or []), "ssh_url_to_repo": f"git@{self.host}:{path}.git",
            "http_url_to_repo": f"{web}.git", "web_url": web, "readme_url": f"{web}/-/blob/{r.get('default_branch')}/README.md",
            "forks_count": r.get("forks", 0), "avatar_url": None, "star_count": r.get("stars", 0),
            "last_activity_at": _t(r.get("pushed_at") or r.get("created_at")),
            "namespace": {"id": number(f"namespace:{group}"), "name": group.rsplit("/", 1)[-1], "path": group.rsplit("/", 1)[-1],
                          "kind": "group" if r.get("owner_type") == "Organization" else "user", "full_path": group,
                          "parent_id": None, "avatar_url": None, "web_url": f"https://{self.host}/{group}"},
            "archived": bool(r.get("is_archived")), "visibility": "public",
            "empty_repo": not r.get("root_files") and not r.get("languages"), "issues_enabled": bool(r.get("has_issues", True)),
            "merge_requests_enabled": True, "open_issues_count": sum(1 for i in e.issues if i["state"] == "OPEN"),
            "license_url": f"{web}/-/blob/{r.get('default_branch')}/LICENSE" if r.get("license_spdx") else None,
        }
        if r.get("is_fork") and r.get("parent"):
            ppath = forges.path_of(r["parent"])
            out["forked_from_project"] = {"id": number(f"project:{r['parent']}"), "name": ppath.rsplit("/", 1)[-1],
                                          "path_with_namespace": ppath, "star_count": r.get("parent_stars") or 0,
                                          "archived": bool(r.get("parent_archived")), "web_url": f"https://{self.host}/{ppath}"}
        if license_:
            spdx = r.get("license_spdx")
            out["license"] = None if spdx is None else (
                {"key": "other", "name": "Other", "nickname": None, "html_url": None, "source_url": None} if spdx == "NOASSERTION"
                else {"key": spdx.lower(), "name": spdx, "nickname": None, "html_url": f"https://choosealicense.com/licenses/{spdx.lower()}/",
                      "source_url": None})
        return out

    def languages(self, e: RepoEntry) -> dict[str, float]:
        langs = e.row.get("languages") or []
        total = sum(x["bytes"] for x in langs)
        return {x["name"]: round(x["bytes"] * 100 / total, 2) for x in langs} if total else {}

    def tree(self, e: RepoEntry) -> dict[str, str]:
        """The files the collector reads, where GitLab keeps them: the forge's folder is `.gitlab`, a
        CODEOWNERS there and merge request templates under `.gitlab/merge_request_templates/`."""
        out: dict[str, str] = {}
        for path, value in e.tree.items():
            if path == ".github/CODEOWNERS":
                path = ".gitlab/CODEOWNERS"
            elif path == ".github/pull_request_template.md":
                path = ".gitlab/merge_request_templates/Default.md"
            out[path] = value
        if any(p.startswith(".gitlab/") for p in out):
            out[".gitlab"] = "tree"
            out[".gitlab/merge_request_templates"] = "tree" if ".gitlab/merge_request_templates/Default.md" in out else out.get(".gitlab/merge_request_templates", "")
            if ".gitlab/merge_request_templates/Default.md" not in out:
                out.pop(".gitlab/merge_request_templates", None)
        if ".github" in out and not any(p.startswith(".github/") for p in out):
            out.pop(".github")
        return out

    def entries(self, e: RepoEntry, folder: str) -> list[dict[str, Any]]:
        tree = self.tree(e)
        names: dict[str, str] = {}
        for path, value in tree.items():
            parent, _, name = path.rpartition("/")
            if parent == folder:
                names[name] = "tree" if value == "tree" or any(p.startswith(path + "/") for p in tree) else "blob"
        return [{"id": hashlib.sha1(f"{folder}/{n}".encode()).hexdigest(), "name": n, "type": t,
                 "path": f"{folder}/{n}".lstrip("/"), "mode": "040000" if t == "tree" else "100644"} for n, t in sorted(names.items())]

    def commit_json(self, c: dict[str, Any]) -> dict[str, Any]:
        name = c.get("author_name") or c.get("author_login") or "unknown"
        email = f"{(c.get('author_login') or re.sub(r'[^a-z0-9]+', '.', name.lower())).lower()}@users.noreply.{self.host}"
        return {"id": c["oid"], "short_id": c["oid"][:8], "created_at": _t(c["committed_at"]), "parent_ids": [],
                "title": (c.get("message") or "").split("\n", 1)[0], "message": c.get("message") or "", "author_name": name,
                "author_email": email, "authored_date": _t(c["committed_at"]), "committer_name": name, "committer_email": email,
                "committed_date": _t(c["committed_at"]), "web_url": ""}

    def mr_json(self, e: RepoEntry, pr: dict[str, Any]) -> dict[str, Any]:
        items = self.index.timeline.get((pr["repo"], pr["number"]), [])
        closer = next((i["actor"] for i in reversed(items) if i["kind"] == "closed"), None)
        state = {"OPEN": "opened", "CLOSED": "closed", "MERGED": "merged"}[pr["state"]]
        path = forges.path_of(pr["repo"])
        merger = self.user(pr["merged_by"]) if pr.get("merged_by") else None
        return {
            "id": number(f"mr:{pr['repo']}#{pr['number']}"), "iid": pr["number"], "project_id": e.row["_gitlab_id"],
            "title": pr.get("title") or "", "description": pr.get("body") or "", "state": state,
            "created_at": _t(pr["created_at"]), "updated_at": _t(pr.get("updated_at") or pr["created_at"]),
            "merged_by": merger, "merge_user": merger, "merged_at": _t(pr.get("merged_at")),
            "closed_by": self.user(closer) if state == "closed" and closer else None,
            "closed_at": _t(pr.get("closed_at")) if state == "closed" else None,
            "target_branch": e.row.get("default_branch") or "main", "source_branch": f"change-{pr['number']}",
            "user_notes_count": sum(1 for i in items if i["kind"] in ("comment", "review")), "upvotes": 0, "downvotes": 0,
            "author": self.user(pr.get("author")), "assignees": [], "assignee": None, "reviewers": [],
            "source_project_id": e.row["_gitlab_id"], "target_project_id": e.row["_gitlab_id"], "labels": [],
            "draft": bool(pr.get("is_draft")), "work_in_progress": bool(pr.get("is_draft")), "milestone": None,
            "merge_when_pipeline_succeeds": False, "merge_status": "can_be_merged", "detailed_merge_status": "mergeable",
            "sha": hashlib.sha1(f"{pr['repo']}#{pr['number']}".encode()).hexdigest(),
            "merge_commit_sha": pr.get("merge_commit_sha") or (hashlib.sha1(f"merge {pr['repo']}#{pr['number']}".encode()).hexdigest()
                                                               if pr.get("merged_at") else None),
            "squash_commit_sha": None, "discussion_locked": None, "should_remove_source_branch": None,
            "force_remove_source_branch": True, "prepared_at": _t(pr["created_at"]),
            "references": {"short": f"!{pr['number']}", "relative": f"!{pr['number']}",
                                                            "full": f"{path}!{pr['number']}"},
            "web_url": f"https://{self.host}/{path}/-/merge_requests/{pr['number']}",
            "time_stats": {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None, "human_total_time_spent": None},
            "squash": False, "task_completion_status": {"count": 0, "completed_count": 0},
            "has_conflicts": False, "blocking_discussions_resolved": True,
        }

    def history_pr(self, e: RepoEntry, h: dict[str, Any]) -> dict[str, Any]:
        """A merge request merged before the window, for a contributor's commit then, as a world PR row."""
        return merged_pr(e.row["name_with_owner"], h)

    def notes(self, e: RepoEntry, pr: dict[str, Any]) -> list[dict[str, Any]]:
        """A merge request's notes: people's comments and diff notes, and the system notes of the acts
        GitLab records in words (`app/services/system_notes/`)."""
        out = []
        for i in self.index.timeline.get((pr["repo"], pr["number"]), []):
            kind, body, system, ntype = i["kind"], i.get("body") or "", True, None
            if kind == "comment":
                system = False
            elif kind == "review":
                if body:
                    system, ntype = False, "DiffNote"
                else:
                    body = {"APPROVED": "approved this merge request", "CHANGES_REQUESTED": "requested changes"}.get(
                        i.get("review_state") or "", "")
                    if not body:
                        system, ntype = False, "DiffNote"
            elif kind == "ready_for_review":
                body = "marked this merge request as **ready**"
            elif kind == "converted_to_draft":
                body = "marked this merge request as **draft**"
            elif kind == "assigned":
                body = f"assigned to @{i['actor'] or 'ghost'}"
            elif kind == "review_requested":
                body = f"requested review from @{i['actor'] or 'ghost'}"
            else:
                continue
            out.append({"id": number(f"note:{i['node_id']}"), "type": ntype, "body": body, "attachment": None,
                        "author": self.user(i["actor"]), "created_at": _t(i["created_at"]), "updated_at": _t(i["created_at"]),
                        "system": system, "noteable_id": number(f"mr:{pr['repo']}#{pr['number']}"), "noteable_type": "MergeRequest",
                        "project_id": e.row["_gitlab_id"], "resolvable": ntype == "DiffNote", "confidential": False,
                        "internal": False, "imported": False, "imported_from": "none", "noteable_iid": pr["number"]})
        return out

    def events(self, pr: dict[str, Any], labels: bool) -> list[dict[str, Any]]:
        """Resource state events (close, reopen, merge) or resource label events (labels added)."""
        out = []
        for i in self.index.timeline.get((pr["repo"], pr["number"]), []):
            base = {"id": number(f"event:{i['node_id']}"), "user": self.user(i["actor"]), "created_at": _t(i["created_at"]),
                    "resource_type": "MergeRequest", "resource_id": number(f"mr:{pr['repo']}#{pr['number']}")}
            if labels and i["kind"] == "labeled":
                out.append({**base, "label": {"id": number("label:needs-review"), "name": "needs-review", "color": "#428BCA",
                                              "description": None}, "action": "add"})
            elif not labels and i["kind"] in ("closed", "reopened", "merged"):
                out.append({**base, "state": i["kind"]})
        return out

    def members(self, e: RepoEntry) -> list[dict[str, Any]]:
        """Members with their access level: the world's roles, its members GitHub shows no one too."""
        out = []
        for role in e.roles:
            u = self.user(role["login"])
            out.append({**{k: v for k, v in u.items() if k != "locked"}, "access_level": ACCESS_LEVELS[role["role"]],
                        "created_at": _t(e.row.get("created_at")), "expires_at": None})
        return sorted(out, key=lambda m: m["id"])

    def user_json(self, a: dict[str, Any]) -> dict[str, Any]:
        """A user as `GET /users/:id` shows one (`lib/api/entities/user.rb`): `bot` for bot users,
        `created_at` for a public profile."""
        u = self.user(a["login"])
        return {**u, "created_at": _t(a.get("created_at")), "bio": "", "location": None, "public_email": None, "skype": "",
                "linkedin": "", "twitter": "", "discord": "", "website_url": "", "organization": None, "job_title": "",
                "pronouns": None, "bot": a.get("type") == "Bot", "work_information": None, "followers": 0, "following": 0,
                "is_followed": False, "local_time": None}

    def issue_json(self, e: RepoEntry, i: dict[str, Any]) -> dict[str, Any]:
        assignees = [self.user(f"assignee-{i['number']}")] if i.get("assignees") else []
        return {"id": number(f"issue:{i['repo']}#{i['number']}"), "iid": i["number"], "project_id": e.row["_gitlab_id"],
                "title": i.get("title") or "", "description": "", "state": "opened" if i["state"] == "OPEN" else "closed",
                "created_at": _t(i.get("created_at")), "updated_at": _t(i.get("created_at")), "closed_at": None,
                "labels": list(i.get("labels") or []), "assignees": assignees, "assignee": assignees[0] if assignees else None,
                "author": self.user(None), "user_notes_count": 0, "web_url": f"https://{self.host}/{forges.path_of(i['repo'])}/-/issues/{i['number']}"}


class GitLabEmulator(Served):
    """Start with `start()`, stop with `stop()`; `url` is the API base (`.../api/v4`)."""

    PATH = API

    def __init__(self, world: str | Path | WorldIndex, host: str = "gitlab.com", port: int = 0, faults: Faults | None = None,
                 limits: GitLabLimits | None = None, clock: date | None = None) -> None:
        index = world if isinstance(world, WorldIndex) else WorldIndex(world, clock=clock)
        self.world = GitLabWorld(index, host)
        self.host = host
        self.faults = faults or Faults()
        self.limits = limits or GitLabLimits()
        self.stats = GitLabStats()
        self._lock = threading.Lock()
        self._windows: dict[tuple[str, str], tuple[float, int]] = {}
        self._httpd = _Server(("127.0.0.1", port), _handler(self))

    # -- limits ----------------------------------------------------------------------------

    def take(self, token: str, bucket: str, limit: int, seconds: float) -> tuple[bool, int, float]:
        """One request from `token`'s window of `bucket`: (allowed, left, reset as Unix time)."""
        now = time.monotonic()
        with self._lock:
            start, used = self._windows.get((token, bucket), (now, 0))
            if now - start >= seconds:
                start, used = now, 0
            allowed = used < limit
            if allowed:
                used += 1
            self._windows[(token, bucket)] = (start, used)
        return allowed, max(0, limit - used), time.time() + (start + seconds - now)

    # -- one request -----------------------------------------------------------------------

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        """(status, JSON body, extra headers) of GET `path` (under /api/v4)."""
        w = self.world
        if path == "/version":
            _check("version", query)
            return 200, VERSION, {}
        if um := re.fullmatch(r"/users/(\d+)", path):
            _check("user", query)
            a = w.user_by_id.get(int(um.group(1)))
            return (200, w.user_json(a), {}) if a else (404, {"message": "404 User Not Found"}, {})
        if path == "/projects":
            return self._projects(_check("projects", query))
        m = re.fullmatch(r"/projects/([^/]+)(/.*)?", path)
        if not m:
            return 404, {"error": "404 Not Found"}, {}
        e = w.project(m.group(1))
        if e is None:
            return 404, {"message": "404 Project Not Found"}, {}
        rest = m.group(2) or ""
        if rest == "":
            q = _check("project", query)
            return 200, w.project_json(e, bool(q.get("license"))), {}
        if rest == "/languages":
            _check("languages", query)
            return 200, w.languages(e), {}
        if rest == "/repository/tree":
            q = _check("tree", query)
            folder = (q.get("path") or "").strip("/")
            tree = w.tree(e)
            if folder and tree.get(folder) != "tree" and not any(p.startswith(folder + "/") for p in tree):
                return 404, {"message": "404 Tree Not Found"}, {}
            return self.page(w.entries(e, folder), q)
        if fm := re.fullmatch(r"/repository/files/([^/]+)/raw", rest):
            _check("file_raw", query)
            text = w.tree(e).get(unquote(fm.group(1)))
            if text is None or text == "tree":
                return 404, {"message": "404 File Not Found"}, {}
            return 200, text.encode("utf-8"), {"content-type": "text/plain; charset=utf-8"}
        if rest == "/repository/commits":
            q = _check("commits", query)
            rows = [c for c in e.commits if (not q.get("since") or c["committed_at"] >= q["since"])
                    and (not q.get("until") or c["committed_at"] <= q["until"])]
            return self.page([w.commit_json(c) for c in rows], q)
        if rest == "/merge_requests":
            q = _check("merge_requests", query)
            rows, _ = self._merge_requests(e, q)
            return self.page(rows, q, lambda pr: w.mr_json(e, pr))
        if mm := re.fullmatch(r"/merge_requests/(\d+)(/[a-z_]+)?", rest):
            pr = w.index.pulls.get((e.row["name_with_owner"], int(mm.group(1))))
            if pr is None:  # one merged before the window, which lists serve too: nothing said on it
                pr = next((w.history_pr(e, h) for h in w.history.get(e.row["name_with_owner"], [])
                           if h["number"] == int(mm.group(1))), None)
            if pr is None:
                return 404, {"message": "404 Not found"}, {}
            sub = mm.group(2) or ""
            if sub == "":
                _check("merge_request", query)
                return 200, w.mr_json(e, pr), {}
            if sub == "/notes":
                q = _check("notes", query)
                notes = sorted(w.notes(e, pr), key=lambda n: (n["created_at"], n["id"]), reverse=q.get("sort", "desc") == "desc")
                return self.page(notes, q)
            if sub in ("/resource_state_events", "/resource_label_events"):
                q = _check("events", query)
                return self.page(w.events(pr, sub == "/resource_label_events"), q)
            if sub == "/pipelines":
                q = _check("pipelines", query)
                ran = [{"id": number(f"pipeline:{pr['repo']}#{pr['number']}"), "sha": w.mr_json(e, pr)["sha"], "ref": f"refs/merge-requests/{pr['number']}/head",
                        "status": "success", "source": "merge_request_event", "created_at": _t(pr["created_at"]),
                        "updated_at": _t(pr["created_at"]), "web_url": ""}] if pr.get("has_ci") else []
                return self.page(ran, q)
            return 404, {"error": "404 Not Found"}, {}
        if rest == "/members/all":
            q = _check("members", query)
            return self.page(w.members(e), q)
        if mm := re.fullmatch(r"/members/all/(\d+)", rest):
            _check("member", query)
            found = next((x for x in w.members(e) if x["id"] == int(mm.group(1))), None)
            return (200, found, {}) if found else (404, {"message": "404 Member Not Found"}, {})
        if rest == "/issues":
            q = _check("issues", query)
            want = [x for x in (q.get("labels") or "").split(",") if x]
            rows = [i for i in e.issues if (q.get("state", "all") == "all" or (i["state"] == "OPEN") == (q["state"] == "opened"))
                    and all(lb in i["labels"] for lb in want)
                    and (q.get("assignee_id") != "None" or not i.get("assignees"))
                    and (not q.get("updated_after") or (i.get("created_at") or "") >= q["updated_after"])]
            return self.page([w.issue_json(e, i) for i in rows], q)
        if rest == "/labels":
            q = _check("labels", query)
            names = sorted({lb for i in e.issues for lb in i["labels"]})
            return self.page([{"id": number(f"label:{n}"), "name": n, "color": "#428BCA", "text_color": "#FFFFFF",
                               "description": None, "priority": None, "is_project_label": True} for n in names], q)
        return 404, {"error": "404 Not Found"}, {}

    def _projects(self, q: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """The instance's projects a stranger may see (all public here), ordered as asked; ties by
        id, as GitLab breaks them (`ProjectsFinder`). Past the offset cap, 405 as GitLab answers."""
        per = min(MAX_PER_PAGE, max(1, int(q.get("per_page") or DEFAULT_PER_PAGE)))
        if q.get("pagination") != "keyset" and max(1, int(q.get("page") or 1)) * per > PROJECTS_OFFSET_CAP:
            return 405, {"error": f"Offset pagination has a maximum allowed offset of {PROJECTS_OFFSET_CAP} for requests that "
                                  "return objects of type Project. Remaining records can be retrieved using keyset pagination."}, {}
        w = self.world
        order = q.get("order_by", "created_at")
        rows = [e for e in w.projects.values() if q.get("archived") is None or bool(e.row.get("is_archived")) == q["archived"]]
        key = {"star_count": lambda e: e.row.get("stars") or 0, "id": lambda e: e.row["_gitlab_id"],
               "name": lambda e: forges.path_of(e.row["name_with_owner"]).rsplit("/", 1)[-1].lower(),
               "path": lambda e: forges.path_of(e.row["name_with_owner"]).rsplit("/", 1)[-1].lower()}.get(
                   order, lambda e: e.row.get("created_at") or "")
        rows.sort(key=lambda e: (key(e), e.row["_gitlab_id"]), reverse=q.get("sort", "desc") == "desc")
        simple = ("id", "description", "name", "name_with_namespace", "path", "path_with_namespace", "created_at",
                  "default_branch", "tag_list", "topics", "ssh_url_to_repo", "http_url_to_repo", "web_url", "readme_url",
                  "forks_count", "avatar_url", "star_count", "last_activity_at", "namespace")
        def render(e: RepoEntry) -> dict[str, Any]:
            full = w.project_json(e, False)
            return {k: full[k] for k in simple} if q.get("simple") else full
        return self.page(rows, q, render)

    def _merge_requests(self, e: RepoEntry, q: dict[str, Any]) -> tuple[list[Any], int]:
        """The merge requests a list asks for, filtered and ordered on the world's rows, and rendered
        only for the page asked (a project lists hundreds)."""
        w = self.world
        history = [w.history_pr(e, h) for h in w.history.get(e.row["name_with_owner"], [])]
        state = {"opened": "OPEN", "closed": "CLOSED", "merged": "MERGED"}.get(q.get("state", "all"))
        order = q.get("order_by", "created_at")
        lo_c, hi_c = q.get("created_after"), q.get("created_before")
        lo_u, hi_u = q.get("updated_after"), q.get("updated_before")
        author = q.get("author_username")
        rows = [pr for pr in [*e.pulls, *history] if (state is None or pr["state"] == state)
                and (not lo_c or pr["created_at"] >= lo_c) and (not hi_c or pr["created_at"] <= hi_c)
                and (not lo_u or (pr.get("updated_at") or pr["created_at"]) >= lo_u)
                and (not hi_u or (pr.get("updated_at") or pr["created_at"]) <= hi_u)
                and (not author or pr.get("author") == author)]
        rows.sort(key=lambda pr: ((pr.get(order) if order != "updated_at" else pr.get("updated_at") or pr["created_at"]) or "",
                                  pr["number"]), reverse=q.get("sort", "desc") == "desc")
        return rows, len(rows)

    def page(self, items: list[Any], q: dict[str, Any], render: Any = None) -> tuple[int, Any, dict[str, str]]:
        """A page of a list with GitLab's headers (doc/api/rest/_index.md, "Pagination response headers");
        `render` makes the page's items into what is served."""
        per = min(MAX_PER_PAGE, max(1, int(q.get("per_page") or DEFAULT_PER_PAGE)))
        page = max(1, int(q.get("page") or 1))
        total = len(items)
        pages = max(1, -(-total // per))
        body = items[(page - 1) * per: page * per]
        if render is not None:
            body = [render(x) for x in body]
        headers = {"x-page": str(page), "x-per-page": str(per), "x-next-page": str(page + 1) if page < pages else "",
                   "x-prev-page": str(page - 1) if page > 1 else ""}
        if total <= TOTAL_CAP:
            headers.update({"x-total": str(total), "x-total-pages": str(pages)})
        return 200, body, headers


def _handler(emu: GitLabEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(RestHandler):
        server_version = "nginx"

        def server_error(self, status: int) -> dict[str, Any]:
            return {"message": "500 Internal Server Error"} if status == 500 else {"message": "504 Gateway Timeout"}

        def do_GET(self) -> None:  # noqa: N802
            url = urlparse(self.path)
            if self._stats(url.path):
                return
            if not url.path.startswith(API + "/"):
                self._json(404, {"error": "404 Not Found"})
                return
            path = url.path[len(API):]
            endpoint = re.sub(r"/\d+", "/:id", re.sub(r"^/projects/[^/]+", "/projects/:id", path))
            endpoint = re.sub(r"/repository/files/[^/]+/raw$", "/repository/files/:file_path/raw", endpoint)
            with emu._lock:
                emu.stats.params.setdefault(endpoint, set()).update(parse_qs(url.query, keep_blank_values=True))
            token = (self.headers.get("PRIVATE-TOKEN") or "").strip()
            auth = self.headers.get("Authorization") or ""
            if not token and auth.lower().startswith("bearer "):
                token = auth[7:].strip()
            if not token or (emu.limits.valid_tokens is not None and token not in emu.limits.valid_tokens):
                self._json(401, {"message": "401 Unauthorized"}, endpoint=endpoint)
                return
            minute = emu.limits.minute_seconds
            ok, left, reset = emu.take(token, "api", emu.limits.per_minute, minute)
            if ok and path.startswith("/users/"):
                ok, left, reset = emu.take(token, "users", emu.limits.users_per_ten_minutes, 10 * minute)
            rate = {"RateLimit-Name": "throttle_authenticated_api", "RateLimit-Limit": str(emu.limits.per_minute),
                    "RateLimit-Observed": str(emu.limits.per_minute - left), "RateLimit-Remaining": str(left),
                    "RateLimit-Reset": str(int(reset))}
            if not ok:
                self._limited(reset, rate, None, endpoint)
                return
            fault = emu.faults.draw()
            pinned = emu.faults.pinned
            if pinned and any(p in unquote(url.path).lower() for p in (forges.path_of(x) for x in pinned)):
                self._json(500, {"message": "500 Internal Server Error"}, rate, "pinned", endpoint)
                return
            if fault in ("rate_limited", "secondary"):
                # A throttled request: with the throttle's headers, or (an application limit) none.
                self._limited(time.time() + 1, rate if fault == "rate_limited" else {}, fault, endpoint)
                return
            if self._server_fault(fault, endpoint):
                return
            if fault == "slow":
                time.sleep(emu.faults.slow_seconds)
            query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            try:
                status, data, headers = emu.answer(path, query)
            except BadRequest as err:
                self._json(400, {"error": str(err)}, rate, fault, endpoint)
                return
            except Exception as err:  # noqa: BLE001 - a bug in the emulator answers 500, as a server would
                self._json(500, {"message": f"emulator error: {type(err).__name__}: {err}"}, rate, endpoint=endpoint)
                return
            headers = {**rate, **headers}
            if status == 200 and "x-page" in headers:
                headers["Link"] = self._links(url, headers)
            self._answer(status, data, headers, fault, endpoint)

        def _limited(self, reset: float, rate: dict[str, str], fault: str | None, endpoint: str) -> None:
            """429 with a plain-text body (doc/administration/settings/user_and_ip_rate_limits.md)."""
            wait = max(1, int(reset - time.time() + 0.999))
            headers = {"content-type": "text/plain"}
            if rate:
                headers.update({**rate, "RateLimit-Remaining": "0",
                                "RateLimit-ResetTime": format_datetime(datetime.fromtimestamp(reset, timezone.utc), usegmt=True),
                                "Retry-After": str(wait)})
            self._send(429, b"Retry later\n", headers, fault or "limited", endpoint)

        def _links(self, url: Any, headers: dict[str, str]) -> str:
            q = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            base = f"{emu.base_url}{url.path}"
            rels = []
            for rel, page in (("prev", headers.get("x-prev-page")), ("next", headers.get("x-next-page")), ("first", "1"),
                              ("last", headers.get("x-total-pages"))):
                if page:
                    rels.append(f'<{base}?{urlencode({**q, "page": page})}>; rel="{rel}"')
            return ", ".join(rels)

    Handler.emu = emu
    return Handler

