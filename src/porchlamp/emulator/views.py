"""Resolvers: the world's rows seen through GitHub's GraphQL types.

Each view is a small object whose attributes and methods are the fields of one GraphQL type;
graphql-core's default resolver calls them. Connections page with opaque cursors.
"""

from __future__ import annotations

import base64
from typing import Any

from graphql import GraphQLError

from porchlamp.emulator.index import RepoEntry, WorldIndex
from porchlamp.sample.associations import user_node_id

ITEM_TYPES = {
    "comment": ("IssueComment", "ISSUE_COMMENT"),
    "review": ("PullRequestReview", "PULL_REQUEST_REVIEW"),
    "ready_for_review": ("ReadyForReviewEvent", "READY_FOR_REVIEW_EVENT"),
    "converted_to_draft": ("ConvertToDraftEvent", "CONVERT_TO_DRAFT_EVENT"),
    "closed": ("ClosedEvent", "CLOSED_EVENT"),
    "reopened": ("ReopenedEvent", "REOPENED_EVENT"),
    "merged": ("MergedEvent", "MERGED_EVENT"),
    "labeled": ("LabeledEvent", "LABELED_EVENT"),
    "assigned": ("AssignedEvent", "ASSIGNED_EVENT"),
    "review_requested": ("ReviewRequestedEvent", "REVIEW_REQUESTED_EVENT"),
}
LICENSE_NAMES = {"NOASSERTION": "Other"}


def cursor(i: int) -> str:
    return base64.b64encode(f"cursor:v2:{i}".encode()).decode()


def offset(after: str | None) -> int:
    if after is None:
        return 0
    try:
        text = base64.b64decode(after.encode(), validate=True).decode()
        if not text.startswith("cursor:v2:"):
            raise ValueError
        return int(text.split(":")[2]) + 1
    except (ValueError, UnicodeDecodeError, IndexError):
        raise GraphQLError(f"`{after}` does not appear to be a valid cursor.") from None


def connection(items: list[Any], first: int | None, after: str | None = None, last: int | None = None,
               extra: dict[str, Any] | None = None) -> dict[str, Any]:
    start = offset(after)
    if last is not None and first is None:
        start = max(start, len(items) - last)
        page = items[start:]
    else:
        page = items[start:start + (first or 0)]
    end = start + len(page)
    return {
        "nodes": page,
        "edges": [{"node": n, "cursor": cursor(start + i)} for i, n in enumerate(page)],
        "totalCount": len(items),
        "pageInfo": {"hasNextPage": end < len(items), "endCursor": cursor(end - 1) if page else None},
        **(extra or {}),
    }


class Actor:
    def __init__(self, world: WorldIndex, login: str, type_: str | None = None) -> None:
        acct = world.accounts.get(login) or {}
        self.gql_type = type_ or acct.get("type") or "User"
        self.login = login
        self.id = acct.get("node_id") or user_node_id(login)
        self.createdAt = acct.get("created_at")


def actor(world: WorldIndex, login: str | None, type_: str | None = None) -> Actor | None:
    return Actor(world, login, type_) if login else None


class TimelineItem:
    def __init__(self, world: WorldIndex, row: dict[str, Any]) -> None:
        self.gql_type = ITEM_TYPES[row["kind"]][0]
        self.id = row["node_id"]
        self.createdAt = row["created_at"]
        person = actor(world, row["actor"], row["actor_type"])
        self.author = self.actor = person
        self.authorAssociation = row["actor_association"] or "NONE"
        self.body = row["body"] or ""
        self.state = row["review_state"]


class PullRequest:
    gql_type = "PullRequest"

    def __init__(self, world: WorldIndex, row: dict[str, Any]) -> None:
        self._w, self._row = world, row
        self.id = row["node_id"]
        self.number = row["number"]
        self.title = row["title"]
        self.body = row["body"] or ""
        self.url = f"https://github.com/{row['repo']}/pull/{row['number']}"
        self.createdAt = row["created_at"]
        self.updatedAt = row["updated_at"]
        self.isDraft = row["is_draft"]
        self.state = row["state"]
        self.mergedAt = row["merged_at"]
        self.closedAt = row["closed_at"]
        self.author = actor(world, row["author"], row["author_type"])
        self.authorAssociation = row["author_association"]
        self.mergedBy = actor(world, row["merged_by"])

    def repository(self, info: Any) -> "Repository":
        entry = self._w.repos[self._row["repo"].lower()]
        return Repository(self._w, entry)

    def timelineItems(self, info: Any, first: int | None = None, after: str | None = None,
                      itemTypes: list[str] | None = None, since: str | None = None) -> dict[str, Any]:
        rows = self._w.timeline.get((self._row["repo"], self._row["number"]), [])
        wanted = set(itemTypes) if itemTypes else None
        items = [TimelineItem(self._w, r) for r in rows
                 if (wanted is None or ITEM_TYPES[r["kind"]][1] in wanted) and (since is None or r["created_at"] >= since)]
        return connection(items, first, after)

    def commits(self, info: Any, last: int | None = None) -> dict[str, Any]:
        state = "SUCCESS" if self._row["has_ci"] else None
        node = {"id": f"PRC_{self.id}", "commit": {"id": f"C_{self.id}", "oid": "0" * 40,
                                                    "statusCheckRollup": {"id": f"SCR_{self.id}", "state": state} if state else None}}
        return {"nodes": [node], "totalCount": 1}


class Commit:
    gql_type = "Commit"

    def __init__(self, world: WorldIndex, entry: RepoEntry, index: int) -> None:
        self._w, self._e, self._i = world, entry, index
        row = entry.commits[index]
        self.id = f"C_{row['oid']}"
        self.oid = row["oid"]
        self.committedDate = row["committed_at"]
        self.message = row["message"]
        # GitActor.user is a User: commits by apps and bots carry only their name, like "dependabot[bot]".
        user = actor(world, row["author_login"], row["author_type"]) if row["author_type"] in (None, "User") else None
        self.author = {"name": row["author_name"], "user": user}

    def history(self, info: Any, first: int | None = None, after: str | None = None, since: str | None = None,
                until: str | None = None, author: dict[str, Any] | None = None) -> dict[str, Any]:
        """Commits newest first; `since`/`until` bound the time and `author: {id}` keeps one user's (GitHub:
        "only commits authored by this user will be returned")."""
        rows = self._e.commits[self._i:]
        login = self._w.login_of_id.get((author or {}).get("id") or "") if author and author.get("id") else None
        if author and author.get("id") and login is None:
            raise GraphQLError(f"Could not resolve to a User with the global id of '{author['id']}'", extensions={"type": "NOT_FOUND"})
        picked = [Commit(self._w, self._e, self._i + k) for k, c in enumerate(rows)
                  if (since is None or c["committed_at"] >= since) and (until is None or c["committed_at"] <= until)
                  and (login is None or (c["author_login"] or "").lower() == login.lower())]
        return connection(picked, first, after)


class Tree:
    gql_type = "Tree"

    def __init__(self, entry: RepoEntry, path: str) -> None:
        self.id = f"T_{entry.row['name_with_owner']}:{path}"
        self.oid = "1" * 40
        prefix = f"{path}/" if path else ""
        names = sorted({p[len(prefix):].split("/")[0] for p in entry.tree if p.startswith(prefix) and p != path})
        self.entries = [{"name": n, "path": prefix + n, "type": "tree" if _is_tree(entry, prefix + n) else "blob"} for n in names]


def _is_tree(entry: RepoEntry, path: str) -> bool:
    return entry.tree.get(path) == "tree" or any(p.startswith(path + "/") for p in entry.tree)


class Blob:
    gql_type = "Blob"

    def __init__(self, entry: RepoEntry, path: str) -> None:
        self.id = f"B_{entry.row['name_with_owner']}:{path}"
        self.oid = "2" * 40
        self.text = entry.tree[path]
        self.byteSize = len(self.text.encode())


class Repository:
    gql_type = "Repository"

    def __init__(self, world: WorldIndex, entry: RepoEntry) -> None:
        self._w, self._e = world, entry
        r = entry.row
        self.id = world.id_of_repo[r["name_with_owner"]]
        self.nameWithOwner = r["name_with_owner"]
        self.name = r["name_with_owner"].split("/", 1)[1]
        self.url = f"https://github.com/{r['name_with_owner']}"
        self.owner = Actor(world, r["name_with_owner"].split("/", 1)[0], r["owner_type"])
        self.description = r["description"]
        self.homepageUrl = r["homepage_url"]
        self.isArchived = r["is_archived"]
        self.isFork = r["is_fork"]
        self.isMirror = r["is_mirror"]
        self.isEmpty = not entry.commits
        self.hasIssuesEnabled = r["has_issues"]
        self.stargazerCount = r["stars"]
        self.forkCount = r["forks"]
        self.diskUsage = r["disk_usage_kb"]
        self.createdAt = r["created_at"]
        self.pushedAt = r["pushed_at"]
        self.primaryLanguage = {"id": f"L_{r['primary_language']}", "name": r["primary_language"]} if r["primary_language"] else None
        self.licenseInfo = ({"id": f"MDc6TGljZW5zZ{r['license_spdx']}", "spdxId": r["license_spdx"],
                             "name": LICENSE_NAMES.get(r["license_spdx"], r["license_spdx"])} if r["license_spdx"] else None)
        c = entry.community
        self.codeOfConduct = {"id": "CoC_1", "key": "contributor_covenant", "name": "Contributor Covenant"} if c.get("code_of_conduct") else None
        self.isSecurityPolicyEnabled = bool(c.get("security_policy"))

    def parent(self, info: Any) -> dict[str, Any] | None:
        r = self._e.row
        if not r["parent"]:
            return None
        return {"id": f"R_parent_{r['parent']}", "nameWithOwner": r["parent"], "name": r["parent"].split("/")[1],
                "stargazerCount": r["parent_stars"], "isArchived": bool(r["parent_archived"]), "gql_type": "Repository"}

    def defaultBranchRef(self, info: Any) -> dict[str, Any] | None:
        if not self._e.commits:
            return None
        return {"id": f"REF_{self.id}", "name": self._e.row["default_branch"], "target": Commit(self._w, self._e, 0)}

    def languages(self, info: Any, first: int | None = None, after: str | None = None, orderBy: Any = None) -> dict[str, Any]:
        langs = sorted(self._e.row["languages"], key=lambda x: -x["bytes"])
        edges_src = [{"name": x["name"], "size": x["bytes"]} for x in langs]
        conn = connection(edges_src, first, after, extra={"totalSize": sum(x["bytes"] for x in langs)})
        conn["edges"] = [{"cursor": e["cursor"], "size": e["node"]["size"], "node": {"id": f"L_{e['node']['name']}", "name": e["node"]["name"]}}
                         for e in conn["edges"]]
        conn["nodes"] = [e["node"] for e in conn["edges"]]
        return conn

    def repositoryTopics(self, info: Any, first: int | None = None, after: str | None = None) -> dict[str, Any]:
        topics = [{"id": f"RT_{t}", "topic": {"id": f"T_{t}", "name": t}} for t in self._e.row["topics"]]
        return connection(topics, first, after)

    def object(self, info: Any, expression: str | None = None) -> Tree | Blob | None:
        if not expression or ":" not in expression or not self._e.commits:
            return None
        ref, _, path = expression.partition(":")
        if ref not in ("HEAD", self._e.row["default_branch"]):
            return None
        path = path.strip("/")
        if path == "" or _is_tree(self._e, path):
            return Tree(self._e, path)
        if path in self._e.tree:
            return Blob(self._e, path)
        return None

    def _labels(self) -> list[str]:
        return sorted({lb for i in self._e.issues for lb in i["labels"]}, key=str.lower)

    def labels(self, info: Any, first: int | None = None, after: str | None = None, query: str | None = None) -> dict[str, Any]:
        names = [n for n in self._labels() if query is None or query.lower() in n.lower()]
        return connection([{"id": f"LA_{n}", "name": n} for n in names], first, after)

    def issues(self, info: Any, first: int | None = None, after: str | None = None, states: list[str] | None = None,
               labels: list[str] | None = None, filterBy: dict[str, Any] | None = None, orderBy: Any = None) -> dict[str, Any]:
        rows = self._e.issues
        if states:
            rows = [i for i in rows if i["state"] in states]
        if labels:
            wanted = {x.lower() for x in labels}
            rows = [i for i in rows if wanted & {lb.lower() for lb in i["labels"]}]
        if filterBy and "assignee" in filterBy:
            who = filterBy["assignee"]
            rows = [i for i in rows if (i["assignees"] == 0 if who is None else i["assignees"] > 0)]
        if orderBy and orderBy.get("field") == "UPDATED_AT":
            # A world's issues are never edited after they open: their last update is their creation.
            rows = sorted(rows, key=lambda i: (i["created_at"], i["number"]), reverse=orderBy.get("direction") == "DESC")
        nodes = [{"id": f"I_{self.id}_{i['number']}", "number": i["number"], "title": i["title"], "state": i["state"],
                  "createdAt": i["created_at"], "updatedAt": i["created_at"],
                  "labels": lambda info, first=None, _i=i: connection([{"id": f"LA_{n}", "name": n} for n in _i["labels"]], first),
                  "assignees": lambda info, first=None, _i=i: {"totalCount": _i["assignees"], "nodes": []}} for i in rows]
        return connection(nodes, first, after)

    def pullRequests(self, info: Any, first: int | None = None, after: str | None = None, orderBy: Any = None,
                     states: list[str] | None = None) -> dict[str, Any]:
        rows = self._e.pulls  # newest first
        if orderBy and (orderBy.get("field"), orderBy.get("direction")) != ("CREATED_AT", "DESC"):
            key = {"CREATED_AT": "created_at", "UPDATED_AT": "updated_at"}[orderBy["field"]]
            rows = sorted(rows, key=lambda p: (p[key], p["number"]), reverse=orderBy.get("direction") == "DESC")
        if states:
            rows = [p for p in rows if p["state"] in states]
        start = offset(after)
        window = rows[start:start + (first or 0)]
        conn = connection(rows, first, after)
        conn["nodes"] = [PullRequest(self._w, p) for p in window]
        conn["edges"] = [{"node": n, "cursor": cursor(start + k)} for k, n in enumerate(conn["nodes"])]
        return conn
