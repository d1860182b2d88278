"""Hand-built repositories for table-driven tests: small, explicit, readable."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any

from porchlamp.models import Account, Commit, CommunityFiles, Dependents, Issue, PullRequest, RepoData, Repository, TimelineItem

AS_OF = date(2026, 10, 15)
NOW = datetime(2026, 10, 15)
T0 = datetime(2026, 6, 1, 12, 0, 0)  # a PR's creation time well inside the window
_ids = count()


def repo(name: str = "acme/widget", **kw: Any) -> Repository:
    base: dict[str, Any] = dict(
        owner_type="Organization", stars=1200, forks=80, disk_usage_kb=4000, primary_language="Python",
        languages=(("Python", 3_000_000),), topics=("cli",), license_spdx="MIT", root_files=("pyproject.toml", "README.md"),
    )
    base.update(kw)
    return Repository(name, **base)


def pr(number: int = 1, author: str | None = "outsider", assoc: str = "NONE", created: datetime = T0, **kw: Any) -> PullRequest:
    kw.setdefault("author_type", "User" if author else None)
    return PullRequest(repo=kw.pop("repo", "acme/widget"), number=number, node_id=f"PR_{number}", title=f"PR {number}",
                       author=author, author_association=assoc, created_at=created, **kw)


def item(kind: str, at: datetime, actor: str | None, assoc: str | None = None, body: str = "", number: int = 1,
         actor_type: str | None = "User", **kw: Any) -> TimelineItem:
    if kind in ("comment", "review") and assoc is None:
        assoc = "NONE"
    return TimelineItem(node_id=f"I{next(_ids)}", repo=kw.pop("repo", "acme/widget"), number=number, kind=kind,
                        created_at=at, actor=actor, actor_type=actor_type, actor_association=assoc, body=body, **kw)


def human_commit(at: datetime = NOW - timedelta(days=3), login: str = "maint") -> Commit:
    return Commit("acme/widget", f"{next(_ids):040x}", at, login, login, "User", "Fix")


def data(r: Repository | None = None, pulls: tuple[PullRequest, ...] = (), items: tuple[TimelineItem, ...] = (),
         commits: tuple[Commit, ...] | None = None, community: CommunityFiles | None = None,
         issues: tuple[Issue, ...] = (), dependents: Dependents | None = None) -> RepoData:
    r = r or repo()
    timeline: dict[int, list[TimelineItem]] = {}
    for i in sorted(items, key=lambda i: i.created_at):
        timeline.setdefault(i.number, []).append(i)
    return RepoData(
        repo=r, community=community or CommunityFiles(r.name_with_owner), pulls=pulls,
        timeline={k: tuple(v) for k, v in timeline.items()},
        commits=(human_commit(),) if commits is None else commits, issues=issues, dependents=dependents,
    )


def accounts(*pairs: tuple[str, datetime | None]) -> dict[str, Account]:
    out = {"outsider": Account("outsider", "User", datetime(2020, 1, 1)), "maint": Account("maint", "User", datetime(2015, 1, 1))}
    out.update({login: Account(login, "User", created) for login, created in pairs})
    return out


def post(e: Any, query: str, variables: dict[str, Any] | None = None, token: str | None = "t0k3n") -> Any:
    """One GraphQL request to an emulator over real HTTP."""
    import httpx

    headers = {"Authorization": f"bearer {token}"} if token else {}
    return httpx.post(e.url, json={"query": query, "variables": variables or {}}, headers=headers, timeout=30)


def context(d: RepoData, accts: dict[str, Account] | None = None, templates: Any = None, settings: Any = None) -> Any:
    """The evaluation Context of a hand-built repository, for the window ending at AS_OF."""
    from porchlamp.config import Settings
    from porchlamp.evaluate.engine import window
    from porchlamp.evaluate.pulls import repo_context
    from porchlamp.evaluate.rules import load_rules

    s = settings or Settings()
    start, end = window(AS_OF, s)
    return repo_context(d, accts if accts is not None else accounts(), load_rules(s), s, start, end, templates)


def judged(d: RepoData, accts: dict[str, Account] | None = None, templates: Any = None) -> list[Any]:
    """PR verdicts of a hand-built repository."""
    from porchlamp.evaluate.pulls import judge_pulls

    return judge_pulls(d, context(d, accts, templates))


def verdict_rows(results: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`results` rows without their two bookkeeping columns (until when the verdict holds, the digest
    of its rows): two stores holding different rows (a loaded world keeps PRs from before the
    window, an older store keeps PRs that left it) reach the same verdicts with different bookkeeping."""
    return [r[:-2] for r in results]


def pr_verdict_rows(prs: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`pr_results` rows with only what a verdict says: without whether CI ran (a store keeps what
    earlier days' CI samples saw; the CI component counts only the day's sample), until when the
    verdict holds, its key, its maintainers' acts and its rows' digest (from the PR's rows, which two
    stores may hold differently for the same verdict: an association GitHub computed on another day)."""
    return [r[:-6] + (r[-3],) for r in prs]


def own_verdict(store: Any, as_of: date, repo: str) -> int:
    """The repository verdict snapshot `as_of` lists for `repo`, copied to a verdict that snapshot alone
    lists (another snapshot listing the same verdict keeps it as it was): its id, for a test to change
    its row in `repo_verdicts` (`results` is a view)."""
    conn = store.conn
    old = conn.execute("SELECT s.id FROM snapshot_repos s JOIN repo_verdicts v USING (id) WHERE s.as_of = ? AND v.repo = ?",
                       [as_of, repo]).fetchone()[0]
    new = conn.execute("SELECT max(id) + 1 FROM repo_verdicts").fetchone()[0]
    conn.execute("INSERT INTO repo_verdicts SELECT * REPLACE (? AS id) FROM repo_verdicts WHERE id = ?", [new, old])
    conn.execute("UPDATE snapshot_repos SET id = ? WHERE as_of = ? AND id = ?", [new, as_of, old])
    return int(new)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (a site, say) by its path there, with its bytes: two equal trees are the same site."""
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


def tree_bytes(root: Path) -> int:
    """The bytes of every file under `root`, summed: what a publish says its site holds."""
    return sum(len(data) for data in tree(root).values())
