"""The Forgejo emulator: a real HTTP server on 127.0.0.1 answering Forgejo's REST API v1 (the part
Porchlamp reads) for one host's repositories of a sample world, with Forgejo's pagination and page
cap, authentication, error shapes and injected faults. docs/EMULATOR.md cites where Forgejo documents
or its source shows each behaviour copied. Every request's path and query parameters are checked
against the pinned Swagger description (`specs/`): an unknown parameter, a value of the wrong type
or outside its enum answers 400, where Forgejo ignores it or answers 422 (stricter, never gentler).

The world is stored as a perfect collector would store it; this renders it in Forgejo's shapes: a
draft is a `WIP:` title (its draft/ready events are title changes), a comment, close, reopen, merge,
label, assignment and review request a timeline comment of Gitea's types, a review a PullReview. A
contributor's commit before the window was a PR merged then: one is served for each, so their history
shows as it would. `GET /_emulator/stats` reports requests by status, fault and endpoint.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from http.server import BaseHTTPRequestHandler
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlparse

from porchlamp import forges
from porchlamp.emulator.faults import Faults
from porchlamp.emulator.index import RepoEntry, WorldIndex, merged_before, merged_pr
from porchlamp.emulator.server import RestHandler, Served, _Server

API = "/api/v1"
SPEC = "forgejo-11.0.3.swagger.v1.json"
VERSION = {"version": "11.0.3+gitea-1.22.0"}
GHOST = {"id": -1, "login": "Ghost", "login_name": "", "source_id": 0, "full_name": "", "email": "",
         "avatar_url": "", "html_url": "", "language": "", "is_admin": False, "last_login": "0001-01-01T00:00:00Z",
         "created": "0001-01-01T00:00:00Z", "restricted": False, "active": False, "prohibit_login": False, "location": "",
         "pronouns": "", "website": "", "description": "", "visibility": "public", "followers_count": 0,
         "following_count": 0, "starred_repos_count": 0}  # models/user/user.go, NewGhostUser
# The user Forgejo Actions acts as (models/user/user_system.go, NewActionsUser): what the world's GitHub
# Actions bots are on Forgejo (repo-lockdown is an Action too: github.com/dessant/repo-lockdown).
ACTIONS = {**GHOST, "id": -2, "login": "forgejo-actions", "full_name": "forgejo-actions",
           "email": "teabot@forgejo.org"}
ACTIONS_OF = frozenset({"github-actions", "repo-lockdown"})
MERGE_QUEUE = "github-merge-queue"  # GitHub's merge queue, which Forgejo has not
WIP = "WIP: "
# A licence file's first words, from each licence's official text (https://spdx.org/licenses/).
LICENCE_TEXTS = {
    "MIT": "MIT License\n\nCopyright (c) {owner}\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n",
    "Apache-2.0": "                                 Apache License\n                           Version 2.0, January 2004\n",
    "BSD-3-Clause": "BSD 3-Clause License\n\nCopyright (c) {owner}\n\nRedistribution and use in source and binary forms, with or "
                    "without\nmodification, are permitted provided that ...\n\n3. Neither the name of the copyright holder nor the names of its\n",
    "BSD-2-Clause": "BSD 2-Clause License\n\nCopyright (c) {owner}\n\nRedistribution and use in source and binary forms, with or "
                    "without\nmodification, are permitted provided that the following conditions are met:\n",
    "GPL-3.0": "                    GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007\n",
    "AGPL-3.0": "                    GNU AFFERO GENERAL PUBLIC LICENSE\n                       Version 3, 19 November 2007\n",
    "LGPL-2.1": "                  GNU LESSER GENERAL PUBLIC LICENSE\n                       Version 2.1, February 1999\n",
    "MPL-2.0": "Mozilla Public License Version 2.0\n==================================\n",
    "ISC": "ISC License\n\nCopyright (c) {owner}\n\nPermission to use, copy, modify, and/or distribute this software for any\n"
           "purpose with or without fee is hereby granted, provided that the above\n",
    "Unlicense": "This is free and unencumbered software released into the public domain.\n",
    "CC0-1.0": "Creative Commons Legal Code\n\nCC0 1.0 Universal\n",
    "CC-BY-4.0": "Attribution 4.0 International\n\n=======================================================================\n",
    "CC-BY-NC-4.0": "Attribution-NonCommercial 4.0 International\n\n=======================================================================\n",
    "BUSL-1.1": "Business Source License 1.1\n\nParameters\n\nLicensor: {owner}\n",
    "SSPL-1.0": "                     Server Side Public License\n                     VERSION 1, OCTOBER 16, 2018\n",
    "WTFPL": "            DO WHAT THE FUCK YOU WANT TO PUBLIC LICENSE\n                    Version 2, December 2004\n",
    "NOASSERTION": "Copyright (c) {owner}. All rights reserved.\n\nUse of this software is granted only as agreed in writing.\n",
}


@dataclass
class ForgejoLimits:
    """What the instance allows: its page cap (`[api] MAX_RESPONSE_ITEMS`, default 50, and
    `DEFAULT_PAGING_NUM`, default 30: docs/admin/config-cheat-sheet) and a request rate per token that a
    proxy in front enforces with 429 and Retry-After (Codeberg publishes none: this one is ours),
    on a clock a test may compress (`minute_seconds`)."""

    max_items: int = 50
    default_items: int = 30
    per_minute: int = 2_000
    minute_seconds: float = 60.0
    valid_tokens: frozenset[str] | None = None  # None: any non-empty token is accepted


@dataclass
class ForgejoStats:
    requests: int = 0
    by_status: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_fault: Counter = field(default_factory=Counter)  # type: ignore[type-arg]
    by_endpoint: Counter = field(default_factory=Counter)  # type: ignore[type-arg]

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "by_status": {str(k): v for k, v in sorted(self.by_status.items())},
                "by_fault": dict(sorted(self.by_fault.items())), "by_endpoint": dict(sorted(self.by_endpoint.items()))}


class BadRequest(Exception):
    """A request the emulator refuses: a parameter the Swagger description does not list, or a value
    of the wrong type: HTTP 400."""


@lru_cache(maxsize=1)
def spec() -> dict[str, Any]:
    """The pinned Swagger description."""
    return json.loads(resources.files("porchlamp.emulator").joinpath("specs", SPEC).read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def routes() -> list[tuple[re.Pattern[str], str, dict[str, dict[str, Any]]]]:
    """Each GET path of the description as (pattern, template, query parameters by name), literal
    segments before parameters so `/repos/search` is not `/repos/{owner}`."""
    out = []
    for template, ops in spec()["paths"].items():
        get = ops.get("get")
        if not get:
            continue
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", lambda m: "(?P<%s>.+)" % m.group(1) if m.group(1) == "filepath" else "(?P<%s>[^/]+)" % m.group(1),
                               re.escape(template)) + "$"
        params = {p["name"]: p for p in get.get("parameters", []) if p.get("in") == "query"}
        out.append((re.compile(pattern), template, params))
    out.sort(key=lambda r: (r[1].count("{"), -len(r[1])))
    return out


def route(path: str) -> tuple[str, dict[str, str], dict[str, dict[str, Any]]] | None:
    """(template, path parameters, its query parameters) of an API path; None when the description has none."""
    for pattern, template, params in routes():
        m = pattern.match(path)
        if m:
            return template, {k: unquote(v) for k, v in m.groupdict().items()}, params
    return None


def check(params: dict[str, dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
    """The request's query checked against the parameters the description lists for its path."""
    out: dict[str, Any] = {}
    for name, value in query.items():
        p = params.get(name)
        if p is None:
            raise BadRequest(f"{name}: not a parameter of this endpoint")
        kind = p.get("type")
        if kind == "integer":
            if not re.fullmatch(r"-?\d{1,12}", value):
                raise BadRequest(f"{name}: not an integer")
            out[name] = int(value)
        elif kind == "boolean":
            if value not in ("true", "false"):
                raise BadRequest(f"{name}: not a boolean")
            out[name] = value == "true"
        else:
            if p.get("enum") and value not in p["enum"]:
                raise BadRequest(f"{name}: not one of {', '.join(p['enum'])}")
            if p.get("format") == "date-time":
                try:
                    datetime.fromisoformat(value.replace("Z", "+00:00"))
                except ValueError:
                    raise BadRequest(f"{name}: not a date-time") from None
            out[name] = value
    return out


def number(text: str) -> int:
    """A stable positive id for a world key."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=6).digest(), "big") + 2


def _t(iso: str | None) -> str | None:
    """A world time as Forgejo writes it: RFC 3339, UTC."""
    return None if not iso else iso.replace(".000Z", "Z")


def _after(iso: str, since: str) -> bool:
    return iso >= since.replace("+00:00", "Z")


class ForgejoWorld:
    """One host's repositories of a world, rendered in Forgejo's shapes."""

    def __init__(self, index: WorldIndex, host: str) -> None:
        self.index, self.host = index, host
        self.by_path: dict[str, RepoEntry] = {}
        for entry in index.repos.values():
            if forges.host_of(entry.row["name_with_owner"]) == host:
                self.by_path[forges.path_of(entry.row["name_with_owner"]).lower()] = entry
        self.orgs = {forges.path_of(e.row["name_with_owner"]).split("/")[0].lower(): forges.path_of(e.row["name_with_owner"]).split("/")[0]
                     for e in self.by_path.values() if e.row.get("owner_type") == "Organization"}
        self.history = merged_before(index, self.by_path.values())  # repo -> PRs merged before the window

    def repo(self, owner: str, name: str) -> RepoEntry | None:
        path = f"{owner}/{name}".lower()
        renamed = self.index.renamed.get(forges.join(self.host, path).lower())
        if renamed:
            path = forges.path_of(renamed).lower()
        return self.by_path.get(path)

    def user(self, login: str | None) -> dict[str, Any]:
        """A user as the API's User shows one (services/convert/user.go: the e-mail hidden from others)."""
        if not login:
            return dict(GHOST)
        if login in ACTIONS_OF:
            return dict(ACTIONS)
        a = self.index.accounts.get(login) or {}
        uid = number(f"user:{login}")
        return {"id": uid, "login": login, "login_name": "", "source_id": 0, "full_name": login.replace("-", " ").title(),
                "email": f"{login.lower()}@noreply.{self.host}", "avatar_url": f"https://{self.host}/avatars/{uid:x}",
                "html_url": f"https://{self.host}/{login}", "language": "", "is_admin": False, "last_login": "0001-01-01T00:00:00Z",
                "created": _t(a.get("created_at")) or "2015-01-01T00:00:00Z", "restricted": False, "active": False,
                "prohibit_login": False, "location": "", "pronouns": "", "website": "", "description": "", "visibility": "public",
                "followers_count": 0, "following_count": 0, "starred_repos_count": 0}

    def doer(self, e: RepoEntry) -> str:
        """Someone with the right to act for the repository: its owner, else a member, else a collaborator."""
        return next((r["login"] for role in ("OWNER", "MEMBER", "COLLABORATOR") for r in e.roles if r["role"] == role),
                    forges.path_of(e.row["name_with_owner"]).split("/")[0])

    def actor(self, e: RepoEntry, login: str | None) -> dict[str, Any]:
        """Who an act shows as its doer. Forgejo has no merge queue: a merge GitHub's queue made is an
        auto-merge here, done as the account that scheduled it (services/automerge: the scheduler is
        the merge's doer)."""
        return self.user(self.doer(e) if login == MERGE_QUEUE else login)

    def poster(self, e: RepoEntry, login: str | None) -> tuple[dict[str, Any], str]:
        """Who a record shows as its poster, and its `original_author`: a migrated record whose author
        has no account here is posted as the account that ran the migration, its author's name kept
        aside (services/migrations/gitea_uploader.go, remapUser: the doer, with OriginalAuthor set)."""
        if login and (self.index.accounts.get(login) or {}).get("type") == "Mannequin":
            return self.user(self.doer(e)), login  # migrating needs the right to create the repository
        return self.user(login), ""

    def history_pr(self, e: RepoEntry, h: dict[str, Any]) -> dict[str, Any]:
        """A PR merged before the window, for a contributor's commit then, as a world PR row."""
        return merged_pr(e.row["name_with_owner"], h)

    def pulls(self, e: RepoEntry) -> list[dict[str, Any]]:
        return [*e.pulls, *(self.history_pr(e, h) for h in self.history.get(e.row["name_with_owner"], []))]

    def pull(self, e: RepoEntry, n: int) -> dict[str, Any] | None:
        pr = self.index.pulls.get((e.row["name_with_owner"], n))
        if pr is None:
            pr = next((self.history_pr(e, h) for h in self.history.get(e.row["name_with_owner"], []) if h["number"] == n), None)
        return pr

    # -- shapes ----------------------------------------------------------------------------

    def repo_json(self, e: RepoEntry, parent: bool = True) -> dict[str, Any]:
        r = e.row
        path = forges.path_of(r["name_with_owner"])
        owner, name = path.split("/", 1)
        web = f"https://{self.host}/{path}"
        out: dict[str, Any] = {
            "id": number(f"repo:{r['name_with_owner']}"), "owner": self.user(owner), "name": name, "full_name": path,
            "description": r.get("description") or "", "empty": not r.get("root_files") and not r.get("languages"),
            "private": False, "fork": bool(r.get("is_fork")), "template": False, "parent": None,
            "mirror": bool(r.get("is_mirror")), "size": int(r.get("disk_usage_kb") or 0), "language": r.get("primary_language") or "",
            "languages_url": f"https://{self.host}/api/v1/repos/{path}/languages", "html_url": web, "url": f"https://{self.host}/api/v1/repos/{path}",
            "link": "", "ssh_url": f"git@{self.host}:{path}.git", "clone_url": f"{web}.git", "original_url": "",
            "website": r.get("homepage_url") or "", "stars_count": r.get("stars", 0), "forks_count": r.get("forks", 0),
            "watchers_count": 1, "open_issues_count": sum(1 for i in e.issues if i["state"] == "OPEN"),
            "open_pr_counter": sum(1 for p in e.pulls if p["state"] == "OPEN"), "release_counter": 0,
            "default_branch": r.get("default_branch") or "main", "archived": bool(r.get("is_archived")),
            "created_at": _t(r.get("created_at")), "updated_at": _t(r.get("pushed_at") or r.get("created_at")),
            "archived_at": "1970-01-01T00:00:00Z", "permissions": {"admin": False, "push": False, "pull": True},
            "has_issues": bool(r.get("has_issues", True)), "internal_tracker": {"enable_time_tracker": False,
                                                                              "allow_only_contributors_to_track_time": True,
                                                                              "enable_issue_dependencies": True},
            "has_wiki": False, "has_pull_requests": True, "has_projects": False, "has_releases": True, "has_packages": False,
            "has_actions": False, "ignore_whitespace_conflicts": False, "allow_merge_commits": True, "allow_rebase": True,
            "allow_rebase_explicit": True, "allow_squash_merge": True, "allow_fast_forward_only_merge": True,
            "allow_rebase_update": True, "default_delete_branch_after_merge": False, "default_merge_style": "merge",
            "default_allow_maintainer_edit": False, "default_update_style": "merge", "avatar_url": "", "internal": False,
            "mirror_interval": "", "object_format_name": "sha1", "mirror_updated": "0001-01-01T00:00:00Z", "repo_transfer": None,
            "topics": list(r.get("topics") or []), "globally_editable_wiki": False, "wiki_branch": "",
        }
        if r.get("is_fork") and r.get("parent") and parent:
            ppath = forges.path_of(r["parent"])
            pe = self.by_path.get(ppath.lower())
            out["parent"] = self.repo_json(pe, False) if pe else {
                **{k: out[k] for k in ("private", "mirror", "permissions", "default_branch", "empty", "size")},
                "id": number(f"repo:{r['parent']}"), "owner": self.user(ppath.split("/")[0]), "name": ppath.split("/", 1)[1],
                "full_name": ppath, "description": "", "fork": False, "template": False, "parent": None,
                "html_url": f"https://{self.host}/{ppath}", "stars_count": r.get("parent_stars") or 0, "forks_count": 0,
                "archived": bool(r.get("parent_archived")), "created_at": out["created_at"], "updated_at": out["updated_at"],
                "topics": []}
        return out

    def org_json(self, login: str) -> dict[str, Any]:
        return {"id": number(f"user:{login}"), "name": login, "full_name": login.title(), "email": "", "avatar_url": "",
                "description": "", "website": "", "location": "", "visibility": "public", "repo_admin_change_team_access": False}

    def tree(self, e: RepoEntry) -> dict[str, str]:
        """The files the collector reads, where Forgejo keeps them: CODEOWNERS and the PR template in
        `.forgejo/` (Forgejo reads no CODEOWNERS under `.github/`), and a licence file whose text is
        the licence's own; a project with no licence has no licence file."""
        out: dict[str, str] = {}
        for path, value in e.tree.items():
            if path == ".github/CODEOWNERS":
                path = ".forgejo/CODEOWNERS"
            elif path == ".github/pull_request_template.md":
                path = ".forgejo/pull_request_template.md"
            out[path] = value
        spdx = e.row.get("license_spdx")
        out.pop("LICENSE", None)
        if spdx is not None:
            owner = forges.path_of(e.row["name_with_owner"]).split("/")[0]
            out["LICENSE"] = LICENCE_TEXTS.get(spdx, LICENCE_TEXTS["NOASSERTION"]).format(owner=owner)
        if any(p.startswith(".forgejo/") for p in out):
            out[".forgejo"] = "tree"
        if ".github" in out and not any(p.startswith(".github/") for p in out):
            out.pop(".github")
        return out

    def contents(self, e: RepoEntry, folder: str) -> list[dict[str, Any]] | None:
        tree = self.tree(e)
        if folder and tree.get(folder) != "tree" and not any(p.startswith(folder + "/") for p in tree):
            return None
        names: dict[str, str] = {}
        for path, value in tree.items():
            parent, _, name = path.rpartition("/")
            if parent == folder:
                names[name] = "dir" if value == "tree" or any(p.startswith(path + "/") for p in tree) else "file"
        base = f"https://{self.host}/api/v1/repos/{forges.path_of(e.row['name_with_owner'])}"
        out = []
        for n, kind in sorted(names.items()):
            path = f"{folder}/{n}".lstrip("/")
            sha = hashlib.sha1(path.encode()).hexdigest()
            out.append({"name": n, "path": path, "sha": sha, "last_commit_sha": sha, "type": kind,
                        "size": len(tree.get(path) or "") if kind == "file" else 0, "encoding": None, "content": None,
                        "target": None, "url": f"{base}/contents/{path}", "html_url": "", "git_url": "",
                        "download_url": f"{base}/raw/{path}" if kind == "file" else None, "submodule_git_url": None,
                        "_links": {"self": f"{base}/contents/{path}", "git": "", "html": ""}})
        return out

    def commit_json(self, c: dict[str, Any]) -> dict[str, Any]:
        name = c.get("author_name") or c.get("author_login") or "unknown"
        email = f"{(c.get('author_login') or re.sub(r'[^a-z0-9]+', '.', name.lower())).lower()}@noreply.{self.host}"
        who = {"name": name, "email": email, "date": _t(c["committed_at"])}
        return {"url": "", "sha": c["oid"], "created": _t(c["committed_at"]), "html_url": "",
                "commit": {"url": "", "author": who, "committer": who, "message": c.get("message") or "",
                           "tree": {"url": "", "sha": hashlib.sha1(c["oid"].encode()).hexdigest(), "created": _t(c["committed_at"])},
                           "verification": None},
                "author": self.user(c["author_login"]) if c.get("author_login") else None,
                "committer": self.user(c["author_login"]) if c.get("author_login") else None, "parents": [], "files": None, "stats": None}

    def title(self, pr: dict[str, Any]) -> str:
        """A PR's title now: a draft's carries the instance's first work-in-progress prefix."""
        t = pr.get("title") or ""
        return f"{WIP}{t}" if pr.get("is_draft") else t

    def pr_json(self, e: RepoEntry, pr: dict[str, Any]) -> dict[str, Any]:
        path = forges.path_of(pr["repo"])
        web = f"https://{self.host}/{path}/pulls/{pr['number']}"
        merged = pr["state"] == "MERGED"
        sha = hashlib.sha1(f"{pr['repo']}#{pr['number']}".encode()).hexdigest()
        branch = e.row.get("default_branch") or "main"
        ref = {"label": branch, "ref": branch, "sha": sha, "repo_id": number(f"repo:{pr['repo']}"), "repo": None}
        title = self.title(pr)
        return {
            "id": number(f"pr:{pr['repo']}#{pr['number']}"), "url": web, "number": pr["number"], "user": self.poster(e, pr.get("author"))[0],
            "title": title, "body": pr.get("body") or "", "labels": [], "milestone": None, "assignee": None, "assignees": None,
            "requested_reviewers": None, "requested_reviewers_teams": None,
            "state": "open" if pr["state"] == "OPEN" else "closed", "draft": title.upper().startswith(("WIP:", "[WIP]")),
            "is_locked": False, "comments": 0, "review_comments": 0, "additions": 1, "deletions": 0, "changed_files": 1,
            "html_url": web, "diff_url": f"{web}.diff", "patch_url": f"{web}.patch", "mergeable": pr["state"] == "OPEN",
            "merged": merged, "merged_at": _t(pr.get("merged_at")) if merged else None,
            "merge_commit_sha": (pr.get("merge_commit_sha") or hashlib.sha1(f"merge {pr['repo']}#{pr['number']}".encode()).hexdigest())
            if merged else None,
            "merged_by": self.actor(e, pr.get("merged_by")) if merged and pr.get("merged_by") else None,
            "allow_maintainer_edit": False, "base": {**ref, "sha": hashlib.sha1(branch.encode()).hexdigest()},
            "head": {**ref, "label": f"change-{pr['number']}", "ref": f"change-{pr['number']}"},
            "merge_base": hashlib.sha1(branch.encode()).hexdigest(), "due_date": None, "created_at": _t(pr["created_at"]),
            "updated_at": _t(pr.get("updated_at") or pr["created_at"]),
            "closed_at": _t(pr.get("closed_at")) if pr["state"] != "OPEN" else None, "pin_order": 0, "flow": 0,
        }

    def issue_json(self, e: RepoEntry, i: dict[str, Any], pr: dict[str, Any] | None = None) -> dict[str, Any]:
        """An issue, or a PR as the issues list shows it (with `pull_request`)."""
        path = forges.path_of(e.row["name_with_owner"])
        src = pr or i
        n = src["number"]
        assignees = [self.user(f"assignee-{n}")] if i.get("assignees") else None
        state = "open" if src["state"] == "OPEN" else "closed"
        poster, original = self.poster(e, src.get("author"))
        out = {"id": number(f"issue:{e.row['name_with_owner']}#{n}"), "url": "", "html_url": f"https://{self.host}/{path}/{'pulls' if pr else 'issues'}/{n}",
               "number": n, "user": poster, "original_author": original,
               "original_author_id": number(f"user:{original}") if original else 0,
               "title": self.title(pr) if pr else (i.get("title") or ""), "body": (pr or {}).get("body") or "", "ref": "",
               "assets": [], "labels": [{"id": number(f"label:{lb}"), "name": lb, "exclusive": False, "is_archived": False,
                                         "color": "e11d21", "description": "", "url": ""} for lb in (i.get("labels") or [])],
               "milestone": None, "assignee": assignees[0] if assignees else None, "assignees": assignees, "state": state,
               "is_locked": False, "comments": 0, "created_at": _t(src.get("created_at")),
               "updated_at": _t(src.get("updated_at") or src.get("created_at")), "closed_at": _t(src.get("closed_at")) if state == "closed" else None,
               "due_date": None, "pull_request": None, "repository": {"id": number(f"repo:{e.row['name_with_owner']}"),
                                                                      "name": path.split("/", 1)[1], "owner": path.split("/")[0], "full_name": path},
               "pin_order": 0}
        if pr:
            merged = pr["state"] == "MERGED"
            out["pull_request"] = {"merged": merged, "merged_at": _t(pr.get("merged_at")) if merged else None,
                                   "draft": self.title(pr).startswith(WIP), "html_url": out["html_url"]}
        return out

    def timeline(self, e: RepoEntry, pr: dict[str, Any]) -> list[dict[str, Any]]:
        """A PR's timeline as Gitea's comment types (models/issues/comment.go)."""
        out = []
        title = pr.get("title") or ""
        for i in self.index.timeline.get((pr["repo"], pr["number"]), []):
            kind = i["kind"]
            c: dict[str, Any] = {"id": number(f"tl:{i['node_id']}"), "type": "", "body": "", "user": self.actor(e, i["actor"]),
                                 "created_at": _t(i["created_at"]), "updated_at": _t(i["created_at"]), "html_url": "",
                                 "pull_request_url": f"https://{self.host}/{forges.path_of(pr['repo'])}/pulls/{pr['number']}",
                                 "issue_url": "", "label": None, "assignee": None, "assignee_team": None, "removed_assignee": False,
                                 "old_title": "", "new_title": "", "old_ref": "", "new_ref": "", "ref_action": "",
                                 "ref_commit_sha": "", "review_id": 0, "resolve_doer": None, "tracked_time": None,
                                 "milestone": None, "old_milestone": None, "project_id": 0, "old_project_id": 0,
                                 "ref_issue": None, "ref_comment": None, "dependent_issue": None}
            if kind == "comment":
                c.update(type="comment", body=i.get("body") or "")
            elif kind == "review":
                c.update(type="review", body=i.get("body") or "", review_id=number(f"review:{i['node_id']}"))
            elif kind in ("closed", "reopened", "merged"):
                c["type"] = {"closed": "close", "reopened": "reopen", "merged": "merge_pull"}[kind]
            elif kind == "labeled":
                c.update(type="label", body="1", label={"id": number("label:needs-review"), "name": "needs-review", "exclusive": False,
                                                         "is_archived": False, "color": "0075ca", "description": "", "url": ""})
            elif kind == "assigned":
                c.update(type="assignees", assignee=self.user(i["actor"]))
            elif kind == "review_requested":
                c.update(type="review_request", assignee=self.user(i["actor"]))
            elif kind == "ready_for_review":
                c.update(type="change_title", old_title=f"{WIP}{title}", new_title=title)
            elif kind == "converted_to_draft":
                c.update(type="change_title", old_title=title, new_title=f"{WIP}{title}")
            else:
                continue
            out.append(c)
        return out

    def reviews(self, pr: dict[str, Any]) -> list[dict[str, Any]]:
        state = {"APPROVED": "APPROVED", "CHANGES_REQUESTED": "REQUEST_CHANGES", "COMMENTED": "COMMENT", "DISMISSED": "COMMENT"}
        out = []
        for i in self.index.timeline.get((pr["repo"], pr["number"]), []):
            if i["kind"] != "review":
                continue
            out.append({"id": number(f"review:{i['node_id']}"), "user": self.user(i["actor"]), "team": None,
                        "state": state.get(i.get("review_state") or "COMMENTED", "COMMENT"), "body": i.get("body") or "",
                        "commit_id": hashlib.sha1(f"{pr['repo']}#{pr['number']}".encode()).hexdigest(), "stale": False,
                        "official": True, "dismissed": i.get("review_state") == "DISMISSED", "comments_count": 0,
                        "submitted_at": _t(i["created_at"]), "updated_at": _t(i["created_at"]), "html_url": "", "pull_request_url": ""})
        return out


class ForgejoEmulator(Served):
    """Start with `start()`, stop with `stop()`; `url` is the API base (`.../api/v1`)."""

    PATH = API

    def __init__(self, world: str | Path | WorldIndex, host: str = "codeberg.org", port: int = 0, faults: Faults | None = None,
                 limits: ForgejoLimits | None = None, clock: date | None = None) -> None:
        index = world if isinstance(world, WorldIndex) else WorldIndex(world, clock=clock)
        self.world = ForgejoWorld(index, host)
        self.host = host
        self.faults = faults or Faults()
        self.limits = limits or ForgejoLimits()
        self.stats = ForgejoStats()
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}
        self._httpd = _Server(("127.0.0.1", port), _handler(self))

    def take(self, token: str) -> tuple[bool, float]:
        """One request from `token`'s window: (allowed, seconds until the window resets)."""
        now, seconds = time.monotonic(), self.limits.minute_seconds
        with self._lock:
            start, used = self._windows.get(token, (now, 0))
            if now - start >= seconds:
                start, used = now, 0
            allowed = used < self.limits.per_minute
            self._windows[token] = (start, used + 1 if allowed else used)
        return allowed, start + seconds - now

    def not_found(self) -> tuple[int, Any, dict[str, str]]:
        """Forgejo's 404 (the APINotFound response)."""
        return 404, {"errors": [], "message": "The target couldn't be found.", "url": f"https://{self.host}/api/swagger"}, {}

    def answer(self, path: str, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        """(status, body, extra headers) of GET `path` (under /api/v1); BadRequest for what the
        description does not allow."""
        found = route(path)
        if found is None:
            return self.not_found()
        template, args, params = found
        q = check(params, query)
        w = self.world
        if template == "/settings/api":
            return 200, {"max_response_items": self.limits.max_items, "default_paging_num": self.limits.default_items,
                         "default_git_trees_per_page": 1000, "default_max_blob_size": 10485760}, {}
        if template == "/version":
            return 200, VERSION, {}
        if template == "/users/{username}":
            a = w.index.accounts.get(args["username"])
            return (200, w.user(args["username"]), {}) if a else self.not_found()
        if template == "/orgs/{org}":
            org = w.orgs.get(args["org"].lower())
            return (200, w.org_json(org), {}) if org else self.not_found()
        if template == "/orgs/{org}/public_members":
            org = w.orgs.get(args["org"].lower())
            if not org:
                return self.not_found()
            logins = sorted({r["login"] for e in w.by_path.values() if forges.path_of(e.row["name_with_owner"]).split("/")[0] == org
                             for r in e.roles if r["role"] in ("OWNER", "MEMBER")})
            return self.page([w.user(x) for x in logins], q)
        if template == "/repos/search":
            return self._search(q)
        if "owner" not in args:
            return self.not_found()
        e = w.repo(args["owner"], args["repo"])
        if e is None:
            return self.not_found()
        nwo = e.row["name_with_owner"]
        if template == "/repos/{owner}/{repo}":
            return 200, w.repo_json(e), {}
        if template == "/repos/{owner}/{repo}/languages":
            return 200, {x["name"]: x["bytes"] for x in e.row.get("languages") or []}, {}
        if template in ("/repos/{owner}/{repo}/contents", "/repos/{owner}/{repo}/contents/{filepath}"):
            listing = w.contents(e, args.get("filepath", "").strip("/"))
            return (200, listing, {}) if listing is not None else self.not_found()
        if template == "/repos/{owner}/{repo}/raw/{filepath}":
            text = w.tree(e).get(args["filepath"])
            if text is None or text == "tree":
                return self.not_found()
            return 200, text.encode("utf-8"), {"content-type": "text/plain; charset=utf-8"}
        if template == "/repos/{owner}/{repo}/labels":
            names = sorted({lb for i in e.issues for lb in i["labels"]})
            return self.page([{"id": number(f"label:{n}"), "name": n, "exclusive": False, "is_archived": False, "color": "e11d21",
                               "description": "", "url": ""} for n in names], q)
        if template == "/repos/{owner}/{repo}/commits":
            rows = sorted(e.commits, key=lambda c: (c["committed_at"], c["oid"]), reverse=True)
            return self.page(rows, q, w.commit_json)
        if template == "/repos/{owner}/{repo}/pulls":
            rows = w.pulls(e)
            rows = [p for p in rows if q.get("state", "open") == "all" or (p["state"] == "OPEN") == (q.get("state", "open") == "open")]
            if q.get("poster"):
                rows = [p for p in rows if p.get("author") == q["poster"]]
            sort = q.get("sort", "recentupdate")
            key = (lambda p: (p.get("updated_at") or p["created_at"], p["number"])) if "update" in sort else (lambda p: (p["created_at"], p["number"]))
            rows.sort(key=key, reverse=sort in ("recentupdate",))
            return self.page(rows, q, lambda p: w.pr_json(e, p))
        if template == "/repos/{owner}/{repo}/issues":
            return self._issues(e, q)
        if m := re.fullmatch(r"/repos/\{owner\}/\{repo\}/(pulls|issues)/\{index\}(/timeline|/reviews)?", template):
            if not args["index"].isdigit():
                raise BadRequest("index: not an integer")
            pr = w.pull(e, int(args["index"]))
            if pr is None:
                return self.not_found()
            sub = m.group(2) or ""
            if m.group(1) == "pulls" and sub == "":
                return 200, w.pr_json(e, pr), {}
            if m.group(1) == "issues" and sub == "/timeline":
                rows = w.timeline(e, pr)
                if q.get("since"):
                    rows = [c for c in rows if _after(c["created_at"], q["since"])]
                return self.page(rows, q)
            if m.group(1) == "pulls" and sub == "/reviews":
                return self.page(w.reviews(pr), q)
            return self.not_found()
        if template == "/repos/{owner}/{repo}/assignees":
            logins = sorted({r["login"] for r in e.roles})
            return 200, [w.user(x) for x in logins], {}
        if template == "/repos/{owner}/{repo}/commits/{ref}/status":
            pr = next((p for p in e.pulls if hashlib.sha1(f"{nwo}#{p['number']}".encode()).hexdigest() == args["ref"]), None)
            ran = bool(pr and pr.get("has_ci"))
            statuses = [{"id": number(f"status:{nwo}#{pr['number']}"), "status": "success", "target_url": "", "description": "",
                         "url": "", "context": "ci/woodpecker/pr/test", "creator": w.user(None),
                         "created_at": _t(pr["created_at"]), "updated_at": _t(pr["created_at"])}] if pr and ran else []
            return 200, {"state": "success" if ran else "", "sha": args["ref"], "total_count": len(statuses), "statuses": statuses,
                         "repository": None, "commit_url": "", "url": ""}, {}
        return self.not_found()

    def _issues(self, e: RepoEntry, q: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        w = self.world
        state = q.get("state", "open")
        if q.get("type") == "pulls":
            rows = [(p, p) for p in w.pulls(e)]
        else:
            rows = [(i, None) for i in e.issues]
        def keep(src: dict[str, Any]) -> bool:
            if state != "all" and (src["state"] == "OPEN") != (state == "open"):
                return False
            if q.get("since") and not _after(src.get("updated_at") or src.get("created_at") or "", q["since"]):
                return False
            if q.get("created_by") and src.get("author") != q["created_by"]:
                return False
            want = [x for x in (q.get("labels") or "").split(",") if x]
            return all(lb in (src.get("labels") or []) for lb in want)
        rows = [(s, pr) for s, pr in rows if keep(s)]
        sort = q.get("sort", "latest")
        if sort in ("recentupdate", "leastupdate"):
            rows.sort(key=lambda x: (x[0].get("updated_at") or x[0].get("created_at") or "", x[0]["number"]), reverse=sort == "recentupdate")
        else:
            rows.sort(key=lambda x: (x[0].get("created_at") or "", x[0]["number"]), reverse=sort != "oldest")
        return self.page(rows, q, lambda x: w.issue_json(e, x[0] if x[1] is None else {}, x[1]))

    def _search(self, q: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        """`/repos/search`: public repositories, ordered as asked (`sort` and `order`), wrapped as SearchResults."""
        w = self.world
        mode = q.get("mode")
        rows = [e for e in w.by_path.values() if (q.get("archived") is None or bool(e.row.get("is_archived")) == q["archived"])
                and (mode != "source" or not (e.row.get("is_fork") or e.row.get("is_mirror")))
                and (mode != "fork" or e.row.get("is_fork")) and (mode != "mirror" or e.row.get("is_mirror"))]
        key = {"stars": lambda e: (e.row.get("stars") or 0), "created": lambda e: e.row.get("created_at") or "",
               "alpha": lambda e: e.row["name_with_owner"].lower()}.get(q.get("sort", "alpha"), lambda e: e.row["name_with_owner"].lower())
        rows.sort(key=lambda e: (key(e), e.row["name_with_owner"]), reverse=q.get("order", "asc") == "desc")
        status, items, headers = self.page(rows, q, w.repo_json)
        return status, {"ok": True, "data": items}, headers

    def page(self, items: list[Any], q: dict[str, Any], render: Any = None) -> tuple[int, Any, dict[str, str]]:
        """A page of a list with Forgejo's headers: `X-Total-Count` and a `Link` with next, last, first
        and prev (services/context/api.go, SetLinkHeader and SetTotalCountHeader); `limit` past the cap
        is the cap (routers/api/v1/utils/page.go, GetListOptions)."""
        per = min(self.limits.max_items, max(1, int(q.get("limit") or self.limits.default_items)))
        page = max(1, int(q.get("page") or 1))
        total = len(items)
        pages = max(1, -(-total // per))
        body = items[(page - 1) * per: page * per]
        if render is not None:
            body = [render(x) for x in body]
        return 200, body, {"X-Total-Count": str(total), "_page": str(page), "_pages": str(pages), "_per": str(per)}


def _handler(emu: ForgejoEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(RestHandler):
        server_version = "Forgejo"
        content_type = "application/json;charset=utf-8"

        def server_error(self, status: int) -> dict[str, Any]:
            return {"message": "Internal Server Error" if status == 500 else "Gateway Timeout", "url": ""}

        def do_GET(self) -> None:  # noqa: N802
            url = urlparse(self.path)
            if self._stats(url.path):
                return
            if not url.path.startswith(API + "/"):
                self._json(404, {"message": "Not Found"})
                return
            path = url.path[len(API):]
            found = route(path)
            endpoint = found[0] if found else "unknown"
            auth = self.headers.get("Authorization") or ""
            token = auth[6:].strip() if auth.lower().startswith("token ") else auth[7:].strip() if auth.lower().startswith("bearer ") else ""
            if not token or (emu.limits.valid_tokens is not None and token not in emu.limits.valid_tokens):
                # routers/api/v1/api.go: a token that does not resolve answers 401 with the API's error shape.
                self._json(401, {"message": "user does not exist", "url": f"https://{emu.host}/api/swagger"}, endpoint=endpoint)
                return
            ok, wait = emu.take(token)
            if not ok:
                self._limited(wait, None, endpoint)
                return
            fault = emu.faults.draw()
            pinned = emu.faults.pinned
            if pinned and any(p in unquote(url.path).lower() for p in (forges.path_of(x).lower() for x in pinned)):
                self._json(500, {"message": "Internal Server Error", "url": ""}, {}, "pinned", endpoint)
                return
            if fault in ("rate_limited", "secondary"):
                self._limited(1.0, fault, endpoint)
                return
            if self._server_fault(fault, endpoint):
                return
            if fault == "slow":
                time.sleep(emu.faults.slow_seconds)
            query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            try:
                status, data, headers = emu.answer(path, query)
            except BadRequest as err:
                self._json(400, {"message": str(err), "url": f"https://{emu.host}/api/swagger"}, {}, fault, endpoint)
                return
            except Exception as err:  # noqa: BLE001 - a bug in the emulator answers 500, as a server would
                self._json(500, {"message": f"emulator error: {type(err).__name__}: {err}", "url": ""}, endpoint=endpoint)
                return
            if "_page" in headers:
                headers = self._links(url, headers)
            self._answer(status, data, headers, fault, endpoint)

        def _limited(self, wait: float, fault: str | None, endpoint: str) -> None:
            """429 from the proxy in front, with `Retry-After` in seconds (RFC 9110, 10.2.3)."""
            self._send(429, b"Too Many Requests\n", {"content-type": "text/plain", "Retry-After": str(max(1, int(wait + 0.999)))},
                       fault or "limited", endpoint)

        def _links(self, url: Any, headers: dict[str, str]) -> dict[str, str]:
            page, pages = int(headers.pop("_page")), int(headers.pop("_pages"))
            headers.pop("_per")
            q = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
            base = f"https://{emu.host}{url.path}"
            rels = []
            if page < pages:
                rels += [f'<{base}?{urlencode({**q, "page": page + 1})}>; rel="next"', f'<{base}?{urlencode({**q, "page": pages})}>; rel="last"']
            if page > 1:
                rels += [f'<{base}?{urlencode({**q, "page": 1})}>; rel="first"', f'<{base}?{urlencode({**q, "page": page - 1})}>; rel="prev"']
            if rels:
                headers["Link"] = ", ".join(rels)
            return headers

    Handler.emu = emu
    return Handler


__all__ = ["ForgejoEmulator", "ForgejoLimits", "ForgejoWorld", "check", "route", "spec"]
