"""A sample world loaded into memory, indexed the way GitHub's API reaches it: repositories by
name (case-insensitive, renames followed), PRs newest first, timelines, commits, issues, files.

Read-only after loading; the emulator's request threads share it. A `clock` serves the world as it
stood on an earlier day (a later-dated world then shows a month of activity to an incremental run).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from porchlamp.sample.associations import RepoHistory
from porchlamp.sample.world import iter_rows, read_meta


@dataclass
class RepoEntry:
    row: dict[str, Any]
    community: dict[str, Any]
    dependents: dict[str, Any] | None
    pulls: list[dict[str, Any]] = field(default_factory=list)  # newest first
    commits: list[dict[str, Any]] = field(default_factory=list)  # newest first
    issues: list[dict[str, Any]] = field(default_factory=list)  # newest first
    tree: dict[str, Any] = field(default_factory=dict)  # path -> "tree" | blob text
    roles: list[dict[str, Any]] = field(default_factory=list)  # public OWNER / MEMBER / COLLABORATOR


class WorldIndex:
    """Everything the emulator serves, from one world directory."""

    def __init__(self, world: str | Path, clock: date | None = None) -> None:
        self.path = Path(world)
        self.meta = read_meta(world)
        # Everything at or after midnight of the clock's day has not happened yet.
        cut = f"{clock.isoformat()}T00:00:00Z" if clock else None
        # Associations are what GitHub computes when the object is read: at the clock, else the world's end.
        self.read_at = cut or f"{self.meta['as_of']}T00:00:00Z"
        self.repos: dict[str, RepoEntry] = {}
        self.accounts: dict[str, dict[str, Any]] = {r["login"]: r for r in iter_rows(world, "accounts")}
        self.login_of_id: dict[str, str] = {r["node_id"]: r["login"] for r in self.accounts.values() if r.get("node_id")}
        community = {r["repo"]: r for r in iter_rows(world, "community")}
        deps = {r["repo"]: r for r in iter_rows(world, "dependents")}
        for row in iter_rows(world, "repositories"):
            nwo = row["name_with_owner"]
            entry = RepoEntry(row, community.get(nwo) or {"repo": nwo}, deps.get(nwo))
            entry.tree = _tree(row, entry.community)
            self.repos[nwo.lower()] = entry
        self.timeline: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
        for item in iter_rows(world, "timeline"):
            if cut and item["created_at"] >= cut:
                continue
            self.timeline[(item["repo"], item["number"])].append(item)
        for items in self.timeline.values():
            items.sort(key=lambda i: (i["created_at"], i["node_id"]))
        self.pull_by_id: dict[str, tuple[str, int]] = {}
        self.pulls: dict[tuple[str, int], dict[str, Any]] = {}
        for table, attr in (("pulls", "pulls"), ("commits", "commits"), ("issues", "issues")):
            for row in iter_rows(world, table):
                if cut and (row.get("created_at") or row.get("committed_at") or "") >= cut:
                    continue
                if cut and table == "pulls":
                    row = self._rewind_pull(row, cut)
                entry = self.repos[row["repo"].lower()]
                getattr(entry, attr).append(row)
                if table == "pulls":
                    self.pull_by_id[row["node_id"]] = (row["repo"], row["number"])
                    self.pulls[(row["repo"], row["number"])] = row
        if (self.path / "roles.jsonl.gz").exists():
            for role in iter_rows(world, "roles"):
                self.repos[role["repo"].lower()].roles.append(role)
        # Built once: rebuilt for each repository it made loading grow with repositories times accounts.
        types = {login: a.get("type") for login, a in self.accounts.items()}
        for entry in self.repos.values():
            self._associations(entry, types)
            if cut and (entry.row.get("pushed_at") or "") >= cut:
                entry.row = {**entry.row, "pushed_at": max((c["committed_at"] for c in entry.commits), default=entry.row["created_at"])}
            entry.pulls.sort(key=lambda p: (p["created_at"], p["number"]), reverse=True)
            entry.commits.sort(key=lambda c: (c["committed_at"], c["oid"]), reverse=True)
            entry.issues.sort(key=lambda i: (i["created_at"], i["number"]), reverse=True)
        self.repo_by_id = {f"R_{i:x}": e for i, e in enumerate(sorted(self.repos.values(), key=lambda e: e.row["name_with_owner"]))}
        self.id_of_repo = {e.row["name_with_owner"]: rid for rid, e in self.repo_by_id.items()}
        extra = self.path / "api.json"  # renames, blocks and other API-only facts, if the world has them
        api = json.loads(extra.read_text(encoding="utf-8")) if extra.exists() else {}
        self.renamed: dict[str, str] = {k.lower(): v for k, v in api.get("renamed", {}).items()}
        self.blocked: set[str] = {b.lower() for b in api.get("blocked", [])}

    def _rewind_pull(self, row: dict[str, Any], cut: str) -> dict[str, Any]:
        """A PR as it was just before `cut`: later merges and closes undone, `updated_at` its last earlier event."""
        if (row.get("updated_at") or "") < cut:
            return row
        row = dict(row)
        if row.get("merged_at") and row["merged_at"] >= cut:
            row.update(merged_at=None, merged_by=None)
        if row.get("closed_at") and row["closed_at"] >= cut:
            row.update(closed_at=None)
        if row.get("closed_at") is None:
            row["state"] = "OPEN"
        times = [row["created_at"], row.get("closed_at") or ""]
        times += [i["created_at"] for i in self.timeline.get((row["repo"], row["number"]), ())]
        row["updated_at"] = max(times)
        return row

    def _associations(self, entry: RepoEntry, types: Mapping[str, str | None]) -> None:
        """Every authorAssociation of the repository as read at `read_at`: a first-timer whose PR was
        merged since reads CONTRIBUTOR, as on GitHub. `types`: each account's type, by login."""
        history = RepoHistory.of(entry.roles, entry.commits)
        first_pr: dict[str, int] = {}
        for pr in sorted(entry.pulls, key=lambda p: (p["created_at"], p["number"])):
            if pr["author"]:
                first_pr.setdefault(pr["author"].lower(), pr["number"])
        for pr in entry.pulls:
            first = bool(pr["author"]) and first_pr.get(pr["author"].lower()) == pr["number"]
            pr["author_association"] = history.association(pr["author"], pr["author_type"], self.read_at, first)
            for item in self.timeline.get((pr["repo"], pr["number"]), ()):
                if item["kind"] in ("comment", "review"):
                    item["actor_association"] = history.association(item["actor"], item["actor_type"] or types.get(item["actor"] or ""),
                                                                    self.read_at, False)

    def repo(self, owner: str, name: str) -> RepoEntry | None:
        key = f"{owner}/{name}".lower()
        key = self.renamed.get(key, key).lower()
        return self.repos.get(key)


_DIRECTORIES = frozenset({".github", "src", "docs", "data", "lib", "cmd", "pkg"})


def _tree(row: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
    """The files of a repository's default branch that the collector looks at, from the world."""
    tree: dict[str, Any] = {}
    for name in row["root_files"]:
        tree[name] = "tree" if name in _DIRECTORIES else ""
    if c.get("codeowners"):
        tree[".github/CODEOWNERS"] = "".join(f"* @{login}\n" for login in c["codeowners"])
    if c.get("pr_template"):
        tree[".github/pull_request_template.md"] = c["pr_template"]
    if c.get("contributing_text") is not None:
        tree["CONTRIBUTING.md"] = c["contributing_text"]
    if c.get("readme_text") is not None and "README.md" in row["root_files"]:
        tree["README.md"] = c["readme_text"]
    for path in c.get("ai_policy") or ():
        tree[path] = "Contributions made with AI assistance are welcome; disclose them in the PR.\n"
    return tree


def merged_before(index: WorldIndex, entries: Iterable[RepoEntry]) -> dict[str, list[dict[str, Any]]]:
    """For the REST forges, which have no commit-history filter by account: each contributor's commit
    before the window as a change merged then, numbered after the repository's own PRs and issues
    (repository name -> [{"number", "commit"}], oldest first)."""
    window_start = date.fromisoformat(index.meta["as_of"]).toordinal() - 183
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        nwo = entry.row["name_with_owner"]
        top = max((p["number"] for p in entry.pulls), default=0) + max((i["number"] for i in entry.issues), default=0)
        old = [c for c in entry.commits if c["author_login"] and date.fromisoformat(c["committed_at"][:10]).toordinal() < window_start]
        out[nwo] = [{"number": top + 1 + k, "commit": c} for k, c in enumerate(sorted(old, key=lambda c: (c["committed_at"], c["oid"])))]
    return out


def merged_pr(repo: str, h: dict[str, Any]) -> dict[str, Any]:
    """A change merged before the window, for a contributor's commit then (`merged_before`), as a world PR row."""
    c = h["commit"]
    return {"repo": repo, "number": h["number"], "title": (c.get("message") or "").split("\n", 1)[0],
            "body": "", "state": "MERGED", "created_at": c["committed_at"], "updated_at": c["committed_at"],
            "merged_at": c["committed_at"], "merged_by": c["author_login"], "closed_at": c["committed_at"],
            "author": c["author_login"], "is_draft": False, "merge_commit_sha": c["oid"]}
