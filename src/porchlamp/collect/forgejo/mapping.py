"""Forgejo's and Gitea's REST JSON (API v1) to Porchlamp's records. Pure: no network, no store, no clock.

Inputs are the shapes of the pinned Swagger description (`emulator/specs/`, definitions Repository,
PullRequest, TimelineComment, PullReview, User, Commit, Issue). What the API leaves out maps to None,
never to a guess. Forgejo reports no author association and no bot flag: items carry none, and
evaluation reads membership (`Member`), collected history and the behaviour rules instead
(docs/DECISIONS.md, "Forgejo").

Draft is a title prefix (`WORK_IN_PROGRESS_PREFIXES`, default `WIP:` and `[WIP]`,
services/convert/pull.go); a title change that takes the prefix off is the PR made ready, one that
puts it on is the PR made a draft again. Timeline `type`s are Gitea's comment types
(models/issues/comment.go): `comment`, `label` (content "1" when added), `close`, `reopen`,
`merge_pull`, `change_title`, `review_request`, `assignees`; reviews come from `/pulls/{index}/reviews`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from porchlamp import forges
from porchlamp.collect.forgejo.client import WIP_PREFIXES
from porchlamp.collect.community import community as read_community
from porchlamp.collect.http import parse_time as ts
from porchlamp.models import Account, Commit, CommunityFiles, Issue, Member, PullRequest, Repository, TimelineItem

# The account the records of a deleted user are shown under (models/user/user.go, NewGhostUser: id -1),
# and the one Forgejo Actions acts as (models/user/user_system.go: id -2, `forgejo-actions`; Gitea's
# `gitea-actions`): the one account the API marks as a bot, by its id.
GHOST_ID, ACTIONS_ID = -1, -2
# Reviews: Gitea's review types as the API names them (models/issues/review.go, modules/structs/pull_review.go).
REVIEW_STATES = {"APPROVED": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
EVENT_KINDS = {"close": "closed", "reopen": "reopened", "merge_pull": "merged"}
# Levels written for Forgejo's members, read by the maintainers rule as GitLab's access levels are
# (evaluate/sql/05_maintainers.sql): the owner; a user the repository lets be assigned (write access);
# a public member of the owning organisation.
OWNER, WRITE, ORG_MEMBER = 50, 35, 32
# Where Forgejo looks for a PR template, in its order (tests/integration/pull_create_test.go in Forgejo,
# TestPullCreateWithPullTemplate).
TEMPLATES = tuple(f"{d}{n}" for d in (".forgejo/", ".gitea/", ".github/", "docs/")
                  for n in ("PULL_REQUEST_TEMPLATE.md", "pull_request_template.md"))
# Where Forgejo looks for CODEOWNERS, the first found (services/issue/pull.go, PullRequestCodeOwnersReview).
CODEOWNERS = ("CODEOWNERS", "docs/CODEOWNERS", ".gitea/CODEOWNERS", ".forgejo/CODEOWNERS")
_OWNER = re.compile(r"@([A-Za-z0-9_][A-Za-z0-9_.-]*)")

# A licence file's text to its SPDX id: each licence by words of its own official text (its title or
# grant as SPDX publishes it, https://spdx.org/licenses/), checked in order, most specific first.
LICENCE_TEXTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("AGPL-3.0", ("gnu affero general public license", "version 3")),
    ("LGPL-2.1", ("gnu lesser general public license", "version 2.1")),
    ("GPL-3.0", ("gnu general public license", "version 3")),
    ("Apache-2.0", ("apache license", "version 2.0")),
    ("MPL-2.0", ("mozilla public license", "version 2.0")),
    ("BSD-3-Clause", ("redistribution and use in source and binary forms", "neither the name")),
    ("BSD-2-Clause", ("redistribution and use in source and binary forms",)),
    ("ISC", ("permission to use, copy, modify, and/or distribute this software for any purpose",)),
    ("MIT", ("permission is hereby granted, free of charge",)),
    ("Unlicense", ("this is free and unencumbered software released into the public domain",)),
    ("CC0-1.0", ("cc0 1.0 universal",)),
    ("CC-BY-NC-4.0", ("attribution-noncommercial 4.0 international",)),
    ("CC-BY-4.0", ("attribution 4.0 international",)),
    ("BUSL-1.1", ("business source license 1.1",)),
    ("SSPL-1.0", ("server side public license", "version 1")),
    ("WTFPL", ("do what the fuck you want to public license",)),
)
LICENCE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "LICENCE", "LICENCE.md", "COPYING", "COPYING.md", "UNLICENSE")


def licence_spdx(text: str | None) -> str | None:
    """The SPDX id a licence file's text is: None when there is no file, NOASSERTION when its text is
    none of the licences known here (Forgejo's API names no repository's licence)."""
    if text is None:
        return None
    low = " ".join(text.lower().split())
    for spdx, words in LICENCE_TEXTS:
        if all(w in low for w in words):
            return spdx
    return "NOASSERTION"


def person_type(u: Mapping[str, Any] | None) -> str | None:
    """What a user object says of its account: Forgejo's Actions user is a bot; anyone else a user
    until the rules read their login and acts."""
    if not _login(u):
        return None
    return "Bot" if (u or {}).get("id") == ACTIONS_ID else "User"


def _login(u: Mapping[str, Any] | None) -> str | None:
    """A user's login; None for a deleted account (Forgejo's Ghost, id -1) or none."""
    if not u or u.get("id") == GHOST_ID:
        return None
    return u.get("login") or u.get("username") or None


def repository(host: str, r: Mapping[str, Any], languages: Mapping[str, int] | None, root: Iterable[str],
               pushed_at: datetime | None = None, licence: str | None = None, org: bool = False) -> Repository:
    """A repository (`GET /repos/{owner}/{repo}`), its languages in bytes (`/languages`), its root's
    names, the SPDX id of its licence file (`licence_spdx`) and whether its owner is an organisation
    (`GET /orgs/{owner}` answers: the API's User says not)."""
    parent = r.get("parent") or None
    shares = sorted(((name, int(n)) for name, n in (languages or {}).items()), key=lambda x: (-x[1], x[0]))
    return Repository(
        name_with_owner=forges.join(host, r["full_name"]),
        owner_type="Organization" if org else "User",
        description=r.get("description") or None,
        homepage_url=r.get("website") or None,
        is_archived=bool(r.get("archived")),
        is_fork=bool(r.get("fork")),
        is_mirror=bool(r.get("mirror")),
        parent=forges.join(host, parent["full_name"]) if parent and parent.get("full_name") else None,
        parent_stars=parent.get("stars_count") if parent else None,
        parent_archived=parent.get("archived") if parent else None,
        stars=int(r.get("stars_count") or 0),
        forks=int(r.get("forks_count") or 0),
        disk_usage_kb=int(r.get("size") or 0),
        primary_language=shares[0][0] if shares else (r.get("language") or None),
        languages=tuple(shares),
        topics=tuple(sorted(r.get("topics") or [])),
        license_spdx=licence,
        default_branch=r.get("default_branch") or None,
        root_files=tuple(sorted(root)),
        has_issues=bool(r.get("has_issues", True)),
        created_at=ts(r.get("created_at")),
        pushed_at=pushed_at,
        forge="forgejo",
    )


def is_wip(title: str, prefixes: Sequence[str] = WIP_PREFIXES) -> bool:
    """Whether a title marks its PR a draft: it starts with one of the prefixes, in any case
    (models/issues/pull.go, HasWorkInProgressPrefix)."""
    low = title.lstrip().upper()
    return any(low.startswith(p.upper()) for p in prefixes)


def pull_request(repo: str, host: str, pr: Mapping[str, Any], prefixes: Sequence[str] = WIP_PREFIXES) -> tuple[PullRequest, Account | None]:
    """A PR and its author's account (whose age the accounts stage reads). `original_author`, which
    the adapter copies from the issues list, names a migrated PR's author, who has no account here."""
    user = pr.get("user") or {}
    login = _login(user)
    if pr.get("original_author"):  # migrated: its author has no account here (GitHub's mannequin)
        login, user = str(pr["original_author"]), {}
    merged = bool(pr.get("merged")) or pr.get("merged_at") is not None
    state = "MERGED" if merged else ("CLOSED" if pr.get("state") == "closed" else "OPEN")
    title = pr.get("title") or ""
    out = PullRequest(
        repo=repo, number=int(pr["number"]), node_id=f"pr:{host}:{pr['id']}", title=title, author=login,
        author_type="Mannequin" if pr.get("original_author") else person_type(user), author_association=None,  # type: ignore[arg-type]
        created_at=ts(pr["created_at"]), is_draft=bool(pr.get("draft")) or is_wip(title, prefixes),  # type: ignore[arg-type]
        state=state, merged_at=ts(pr.get("merged_at")), merged_by=_login(pr.get("merged_by")),
        closed_at=ts(pr.get("closed_at")), updated_at=ts(pr.get("updated_at")), body=pr.get("body") or "", has_ci=None,
    )
    system = user.get("id") == ACTIONS_ID  # no profile to read: a bot by what it is
    account = Account(login, "Bot" if system else None, None, str(user["id"]), host) if login and user.get("id") is not None else None  # type: ignore[arg-type]
    return out, account


def timeline(repo: str, host: str, number: int, c: Mapping[str, Any], prefixes: Sequence[str] = WIP_PREFIXES) -> TimelineItem | None:
    """A timeline comment: a person's comment, or an act the method reads; None for the rest (reviews
    are read from the reviews list, with their states)."""
    kind = str(c.get("type") or "")
    login = _login(c.get("user"))
    base = dict(node_id=f"tl:{host}:{c['id']}", repo=repo, number=number, created_at=ts(c["created_at"]), actor=login,
                actor_type=person_type(c.get("user")), actor_association=None)
    if kind == "comment":
        return TimelineItem(kind="comment", body=c.get("body") or "", **base)  # type: ignore[arg-type]
    if kind in EVENT_KINDS:
        return TimelineItem(kind=EVENT_KINDS[kind], **base)  # type: ignore[arg-type]
    if kind == "label":
        return TimelineItem(kind="labeled", **base) if (c.get("body") or "") == "1" else None  # type: ignore[arg-type]
    if kind == "assignees":
        return None if c.get("removed_assignee") else TimelineItem(kind="assigned", **base)  # type: ignore[arg-type]
    if kind == "review_request":
        return None if c.get("removed_assignee") else TimelineItem(kind="review_requested", **base)  # type: ignore[arg-type]
    if kind == "change_title":
        was, now = is_wip(c.get("old_title") or "", prefixes), is_wip(c.get("new_title") or "", prefixes)
        if was and not now:
            return TimelineItem(kind="ready_for_review", **base)  # type: ignore[arg-type]
        if now and not was:
            return TimelineItem(kind="converted_to_draft", **base)  # type: ignore[arg-type]
    return None


def review(repo: str, host: str, number: int, rv: Mapping[str, Any]) -> TimelineItem | None:
    """A submitted review with its state; a pending one (not submitted) or a review request is none."""
    state = REVIEW_STATES.get(str(rv.get("state") or ""))
    if state is None or not rv.get("submitted_at"):
        return None
    login = _login(rv.get("user"))
    return TimelineItem(f"review:{host}:{rv['id']}", repo, number, "review", ts(rv["submitted_at"]), login,  # type: ignore[arg-type]
                        person_type(rv.get("user")), None, rv.get("body") or "", "DISMISSED" if rv.get("dismissed") else state)


def commits(repo: str, items: Iterable[Mapping[str, Any]]) -> list[Commit]:
    """Commits (`/repos/{owner}/{repo}/commits`): the account Forgejo links by e-mail, when there is one."""
    out = []
    for c in items:
        git = c.get("commit") or {}
        who = git.get("author") or {}
        out.append(Commit(repo, c["sha"], ts(who.get("date") or c.get("created")), _login(c.get("author")),  # type: ignore[arg-type]
                          who.get("name"), None, git.get("message") or ""))
    return out


def codeowners(text: str | None) -> tuple[str, ...]:
    """Users named in a CODEOWNERS file (Forgejo's: a regular expression, then `@user` or `@org/team`;
    teams left out as GitHub's are)."""
    found: set[str] = set()
    for line in (text or "").splitlines():
        line = line.split("#", 1)[0].strip()
        for token in line.split()[1:]:
            m = _OWNER.fullmatch(token)
            if m and "/" not in token:
                found.add(m.group(1))
    return tuple(sorted(found))


def community(repo: str, trees: Mapping[str, Iterable[str]], texts: Mapping[str, str | None], ai_files: Iterable[str]) -> CommunityFiles:
    """Community files from the listings of the root and the forge folders (by folder: "", "docs",
    ".forgejo", ".gitea", ".github") and the texts read (`contributing`, `codeowners`, `template`, `readme`)."""
    return read_community(repo, trees, texts, ai_files, codeowners)


def member(repo: str, login: str, level: int) -> Member:
    return Member(repo, login, level)


def account(host: str, u: Mapping[str, Any]) -> Account:
    """A user (`GET /users/{username}`): Forgejo has no bot flag, so every account is a person here
    and the bot rules read its login and acts; `created` is when it was made."""
    return Account(u["login"], "Bot" if u.get("id") == ACTIONS_ID else "User", ts(u.get("created")), str(u["id"]), host)


def issue(repo: str, i: Mapping[str, Any], labels: Iterable[str]) -> Issue:
    assigned = i.get("assignees") or ([i["assignee"]] if i.get("assignee") else [])
    return Issue(repo, int(i["number"]), i.get("title") or "", "OPEN" if i.get("state") == "open" else "CLOSED",
                 tuple(labels), len(assigned), ts(i.get("created_at")))
