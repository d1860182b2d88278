"""Mirrors followed (SPEC section 13): a repository that mirrors, or sends its PRs to, a project
collected in the same snapshot is linked to that project, so a contributor reaches its verdict.

Pure: it reads result rows and the snapshot's names; `snapshot.py` stores what it finds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from porchlamp import forges

# A link in what a repository says of where review happens; bare `host/path` forms too, as
# descriptions write them ("Mirror of gitlab.gnome.org/GNOME/gtk").
_LINK = re.compile(r"(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d{1,5})?)/([^\s<>\"'()\[\]{}]+)", re.IGNORECASE)
# Where a project's own address ends: a page under it (GitLab's `/-/`, GitHub's and Forgejo's own
# pages), a query, a fragment or the `.git` of a clone address.
_PAGES = re.compile(r"/-/|[?#]|\.git(?:/|$)|/(?:pulls?|merge_requests|issues|tree|blob|wiki|releases|commits?)(?:/|$)")

# The statuses a link is followed from: a repository that is not where its project takes changes.
LINKED_FROM = ("undecided", "not_real_project")


class Link(NamedTuple):
    repo: str  # the repository whose review happens elsewhere
    home: str  # the project in the same snapshot where it happens
    how: str  # "review_happens" (where its verdict says review happens) or "description"


def names_index(names: Iterable[str]) -> dict[str, str]:
    """Each project's web address without its scheme, lower-cased (`gitlab.com/group/sub/p`),
    mapped to its name in the snapshot."""
    return {forges.web_url(n).split("://", 1)[1].lower(): n for n in names}


def project_in(text: str | None, index: Mapping[str, str], itself: str) -> str | None:
    """The first project of `index` that a link in `text` names, by the longest path that is one
    (`.../group/project/-/merge_requests/3` names `group/project`); never `itself`."""
    if not text:
        return None
    for m in _LINK.finditer(text):
        host = m.group(1).lower()
        path = _PAGES.split(m.group(2), maxsplit=1)[0].rstrip("/.,;:!")
        parts = [p for p in path.split("/") if p]
        for end in range(len(parts), 1, -1):  # the longest path first: a subgroup is not its parent
            found = index.get(f"{host}/{'/'.join(parts[:end])}".lower())
            if found is not None and found != itself:
                return found
            if found == itself:
                break
    return None


def follow(rows: Iterable[Mapping[str, object]], index: Mapping[str, str]) -> list[Link]:
    """Links from each repository of `rows` (result rows: repo, status, kind, review_happens,
    description) that is undecided or a mirror to the project of `index` its verdict names as where
    review happens, else its description. A ranked, unrated or black-hole repository is never
    linked: it is where its project takes changes, and each project is ranked once."""
    out = []
    for r in rows:
        status, repo = r["status"], str(r["repo"])
        if status not in LINKED_FROM or (status == "not_real_project" and r["kind"] != "mirror"):
            continue
        for how in ("review_happens", "description"):
            home = project_in(r.get(how) if isinstance(r.get(how), str) else None, index, repo)  # type: ignore[arg-type]
            if home is not None:
                out.append(Link(repo, home, how))
                break
    return out
