"""GraphQL JSON from GitHub to Porchlamp's records. Pure: no network, no store, no clock.

Inputs are the shapes the documents in `queries/` ask for; anything GitHub leaves out maps to
None, never to a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from porchlamp.collect.http import parse_time as ts
from porchlamp.models import DOCUMENT_CHARS, Account, Commit, CommunityFiles, PullRequest, Repository, TimelineItem

KIND_OF_TYPE = {
    "IssueComment": "comment",
    "PullRequestReview": "review",
    "ReadyForReviewEvent": "ready_for_review",
    "ConvertToDraftEvent": "converted_to_draft",
    "ClosedEvent": "closed",
    "ReopenedEvent": "reopened",
    "MergedEvent": "merged",
    "LabeledEvent": "labeled",
    "AssignedEvent": "assigned",
    "ReviewRequestedEvent": "review_requested",
}
_OWNER = re.compile(r"@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))(?=\s|$)")


def _login(actor: dict[str, Any] | None) -> tuple[str | None, str | None]:
    if not actor:
        return None, None
    return actor.get("login"), actor.get("__typename")


def _entries(tree: dict[str, Any] | None) -> list[str]:
    return [e["name"] for e in (tree or {}).get("entries") or []]


def repository(node: dict[str, Any]) -> Repository:
    parent = node.get("parent") or None
    lang = node.get("languages") or {}
    return Repository(
        name_with_owner=node["nameWithOwner"],
        owner_type=(node.get("owner") or {}).get("__typename") or "User",
        description=node.get("description"),
        homepage_url=node.get("homepageUrl") or None,
        is_archived=bool(node.get("isArchived")),
        is_fork=bool(node.get("isFork")),
        is_mirror=bool(node.get("isMirror")),
        parent=parent["nameWithOwner"] if parent else None,
        parent_stars=parent.get("stargazerCount") if parent else None,
        parent_archived=parent.get("isArchived") if parent else None,
        stars=int(node.get("stargazerCount") or 0),
        forks=int(node.get("forkCount") or 0),
        disk_usage_kb=int(node.get("diskUsage") or 0),
        primary_language=(node.get("primaryLanguage") or {}).get("name"),
        languages=tuple((e["node"]["name"], int(e["size"])) for e in lang.get("edges") or []),
        topics=tuple(sorted(t["topic"]["name"] for t in (node.get("repositoryTopics") or {}).get("nodes") or [])),
        license_spdx=(node.get("licenseInfo") or {}).get("spdxId"),
        default_branch=(node.get("defaultBranchRef") or {}).get("name"),
        root_files=tuple(sorted(_entries(node.get("root")))),
        has_issues=bool(node.get("hasIssuesEnabled")),
        created_at=ts(node.get("createdAt")),
        pushed_at=ts(node.get("pushedAt")),
    )


def codeowners(text: str | None) -> tuple[str, ...]:
    """Logins named in a CODEOWNERS file (teams `@org/team` and e-mail owners are left out)."""
    found: set[str] = set()
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0]
        for token in line.split()[1:]:
            m = _OWNER.fullmatch(token)
            if m:
                found.add(m.group(1))
    return tuple(sorted(found))


def community(node: dict[str, Any], ai_files: Iterable[str]) -> CommunityFiles:
    """Community files from the trees and blobs of a repository; `ai_files` are the AI-policy paths to look for."""
    root, github, docs = _entries(node.get("root")), _entries(node.get("dotGithub")), _entries(node.get("docs"))
    low = {n.lower() for n in root + github + docs}
    paths = set(root) | {f".github/{n}" for n in github} | {f"docs/{n}" for n in docs}
    owners_text = next((b["text"] for b in (node.get("codeownersGithub"), node.get("codeownersRoot"), node.get("codeownersDocs"))
                        if b and b.get("text") is not None), None)
    template = _first_text(node, "prTemplate", "prTemplateUpper")
    contributing_text = _first_text(node, "contributingRoot", "contributingGithub", "contributingDocs")
    readme = _first_text(node, "readmeMd", "readmeRst", "readmePlain")
    return CommunityFiles(
        repo=node["nameWithOwner"],
        contributing="contributing.md" in low,
        code_of_conduct=node.get("codeOfConduct") is not None,
        security_policy=bool(node.get("isSecurityPolicyEnabled")),
        governance="governance.md" in {n.lower() for n in root},
        codeowners=codeowners(owners_text),
        ai_policy=tuple(p for p in ai_files if p in paths),
        pr_template=template,
        contributing_text=None if contributing_text is None else contributing_text[:DOCUMENT_CHARS],
        readme_text=None if readme is None else readme[:DOCUMENT_CHARS],
    )


def _first_text(node: dict[str, Any], *keys: str) -> str | None:
    """The text of the first of these blobs that exists (a binary or missing one has none)."""
    return next((b["text"] for b in (node.get(k) for k in keys) if b and b.get("text") is not None), None)


def commits(repo: str, history: dict[str, Any] | None) -> list[Commit]:
    out = []
    for c in (history or {}).get("nodes") or []:
        author = c.get("author") or {}
        login, type_ = _login(author.get("user"))
        out.append(Commit(repo, c["oid"], ts(c["committedDate"]), login, author.get("name"), type_, c.get("message") or ""))  # type: ignore[arg-type]
    return out


def history_of(node: dict[str, Any]) -> dict[str, Any] | None:
    return (((node.get("defaultBranchRef") or {}).get("target") or {}).get("history")) or None


def timeline_items(repo: str, number: int, nodes: Iterable[dict[str, Any]]) -> list[TimelineItem]:
    out = []
    for n in nodes:
        kind = KIND_OF_TYPE.get(n.get("__typename", ""))
        if kind is None or "id" not in n:
            continue
        person = n.get("author") if kind in ("comment", "review") else n.get("actor")
        login, type_ = _login(person)
        out.append(TimelineItem(
            node_id=n["id"], repo=repo, number=number, kind=kind, created_at=ts(n["createdAt"]),  # type: ignore[arg-type]
            actor=login, actor_type=type_,
            actor_association=n.get("authorAssociation") if kind in ("comment", "review") else None,
            body=(n.get("body") or "") if kind in ("comment", "review") else "",
            review_state=n.get("state") if kind == "review" else None,
        ))
    return out


def pull_request(repo: str, n: dict[str, Any]) -> tuple[PullRequest, Account | None, list[TimelineItem]]:
    login, type_ = _login(n.get("author"))
    merged_by, _ = _login(n.get("mergedBy"))
    pr = PullRequest(
        repo=repo, number=n["number"], node_id=n["id"], title=n.get("title") or "", author=login, author_type=type_,
        author_association=n.get("authorAssociation") or "NONE", created_at=ts(n["createdAt"]),  # type: ignore[arg-type]
        is_draft=bool(n.get("isDraft")), state=n.get("state") or "OPEN", merged_at=ts(n.get("mergedAt")), merged_by=merged_by,
        closed_at=ts(n.get("closedAt")), updated_at=ts(n.get("updatedAt")), body=n.get("body") or "", has_ci=None,
    )
    author = n.get("author") or {}
    account = Account(login, type_ or "User", ts(author.get("createdAt")), author.get("id")) if login else None
    items = timeline_items(repo, n["number"], ((n.get("timelineItems") or {}).get("nodes")) or [])
    return pr, account, items
