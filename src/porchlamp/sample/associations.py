"""`authorAssociation` as GitHub computes it: when the object is read, from who the account is to
the repository at that moment. Used by the generator (read at the world's `as_of`) and by the
emulator (read at its clock), so both give the same answer for the same instant.

GitHub documents the values (CommentAuthorAssociation): OWNER, MEMBER (of the owning
organisation, when public), COLLABORATOR, CONTRIBUTOR ("has previously committed to the
repository"), FIRST_TIME_CONTRIBUTOR ("has not previously committed to the repository"),
FIRST_TIMER ("has not previously committed to GitHub"), MANNEQUIN and NONE. In practice a new
contributor's PRs read NONE as often as FIRST_TIME_CONTRIBUTOR (envoyproxy/envoy#13937,
vmware/govmomi#2412): here only an author's first PR reads FIRST_TIME_CONTRIBUTOR, later ones NONE.
"""

from __future__ import annotations

import base64
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

ROLES = ("OWNER", "MEMBER", "COLLABORATOR")
# The same roles as GitLab's access levels (doc/api/members.md: 30 Developer, 40 Maintainer, 50 Owner),
# for the world's projects on GitLab.
ACCESS_LEVELS = {"OWNER": 50, "MEMBER": 40, "COLLABORATOR": 30}


def user_node_id(login: str) -> str:
    """The global id the world gives an account (GitHub's are opaque; any stable string serves)."""
    return f"U_{base64.b64encode(login.encode('utf-8')).decode('ascii')}"


@dataclass
class RepoHistory:
    """Who an account is to one repository: its public role, and when it committed there."""

    roles: dict[str, str] = field(default_factory=dict)  # lower login -> OWNER | MEMBER | COLLABORATOR
    commits: dict[str, list[str]] = field(default_factory=dict)  # lower login -> sorted ISO commit times

    @classmethod
    def of(cls, roles: Iterable[Mapping[str, str]], commits: Iterable[Mapping[str, object]]) -> "RepoHistory":
        # A role GitHub does not show (private organisation membership) makes no association.
        h = cls({r["login"].lower(): r["role"] for r in roles if r.get("public", True)})
        for c in commits:
            login = c.get("author_login")
            if isinstance(login, str) and login:
                h.commits.setdefault(login.lower(), []).append(str(c["committed_at"]))
        for times in h.commits.values():
            times.sort()
        return h

    def association(self, login: str | None, account_type: str | None, at: str, first_pr: bool) -> str:
        """The association GitHub reports for `login` on an object read at instant `at` (ISO, UTC);
        `first_pr` when the object is the author's first PR in the repository."""
        if not login:
            return "NONE"
        if account_type == "Mannequin":
            return "MANNEQUIN"
        key = login.lower()
        if key in self.roles:
            return self.roles[key]
        times = self.commits.get(key)
        if times and bisect_left(times, at) > 0:  # a commit strictly before the instant of reading
            return "CONTRIBUTOR"
        return "FIRST_TIME_CONTRIBUTOR" if first_pr else "NONE"
