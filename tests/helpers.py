"""Hand-built repositories for table-driven tests: small, explicit, readable."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any, NamedTuple

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


class Response(NamedTuple):
    kind: str
    actor: str | None
    at: datetime


class Verdict(NamedTuple):
    """A stored PR verdict, read as the tests ask of it."""

    repo: str
    number: int
    title: str
    author: str | None
    author_association: str
    created_at: datetime
    clock_start: datetime
    excluded: str | None
    outcome: str | None
    response_kind: str | None
    response_actor: str | None
    response_at: datetime | None
    hours_to_response: float | None
    decided: bool
    merged: bool
    reviewed_by_other: bool
    reviews: int
    has_ci: bool | None
    first_timer: bool | None
    ai_assisted: bool
    redirect: str | None
    bot_reason: str | None  # why its author was taken for a bot (SPEC 3), for a bot's PR

    @property
    def response(self) -> Response | None:
        return None if self.response_kind is None else Response(self.response_kind, self.response_actor, self.response_at)  # type: ignore[arg-type]

    @property
    def outside(self) -> bool:
        return self.excluded is None

    @property
    def answered(self) -> bool:
        return self.outcome == "answered"


@dataclass
class Result:
    """A stored repository verdict with its evidence and components."""

    row: dict[str, Any]
    components: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["row"][name]
        except KeyError:
            raise AttributeError(name) from None

    def evidence(self) -> dict[str, Any]:
        return json.loads(self.row["evidence"])


@dataclass
class Evaluated:
    """A snapshot of hand-built repositories, evaluated in a store of their own, as tests read it."""

    prs: list[Verdict]
    results: dict[str, Result]
    found: dict[int, str]  # template fingerprint -> how it was found
    behaviour: dict[str, str]  # login -> why, of accounts that act as bots
    settings: Any
    figures: dict[str, Any]  # repo -> what its gates and components count of its PRs (`facts.Figures`)

    def verdicts(self, repo: str = "acme/widget") -> list[Verdict]:
        return [v for v in self.prs if v.repo == repo]

    def result(self, repo: str = "acme/widget") -> Result:
        return self.results[repo]

    def maintainers(self, repo: str = "acme/widget") -> dict[str, str]:
        return json.loads(self.results[repo].row["maintainers"])

    def kind(self, text: str) -> str | None:
        """How a text is a template in this snapshot ("curated", "automated", "repeated"), or None."""
        from porchlamp.evaluate.marks import mark_text
        from porchlamp.evaluate.rules import load_rules

        m = mark_text(text, load_rules(self.settings))
        if m.curated:
            return "curated"
        t = self.settings.templates
        return self.found.get(m.fp) if m.chars >= t.min_chars and m.words >= t.min_words else None  # type: ignore[arg-type]


def evaluated(*repos: RepoData, accts: dict[str, Account] | None = None, settings: Any = None) -> Evaluated:
    """Hand-built repositories evaluated as a snapshot for AS_OF, by the evaluation a store gets."""
    import tempfile

    from porchlamp.config import Settings
    from porchlamp.evaluate.facts import Figures
    from porchlamp.snapshot import evaluate_store
    from porchlamp.store import Store

    s = settings or Settings()
    people = accts if accts is not None else accounts()
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "hand.duckdb") as store:
        for d in repos:
            store.upsert([d.repo, d.community, *d.pulls, *(i for items in d.timeline.values() for i in items), *d.commits,
                          *d.issues, *([d.dependents] if d.dependents else [])])
        store.upsert(people.values())
        store.mark_collected(AS_OF)
        evaluate_store(store, AS_OF, s)
        prs = [Verdict(*r) for r in store.conn.execute(
            f"SELECT {', '.join(Verdict._fields)} FROM pr_results WHERE as_of = ? ORDER BY repo, number", [AS_OF]).fetchall()]
        comps: dict[str, dict[str, Any]] = {}
        for row in store.query("SELECT * FROM component_results WHERE as_of = ?", [AS_OF]):
            comps.setdefault(row["repo"], {})[row["component"]] = row
        results = {r["repo"]: Result(r, comps.get(r["repo"], {})) for r in store.query("SELECT * FROM results WHERE as_of = ?", [AS_OF])}
        found = dict(store.conn.execute("SELECT fp, how FROM j_found").fetchall())
        behaviour = dict(store.conn.execute("SELECT login, why FROM j_behaviour").fetchall())
        figures = {r[0]: Figures(*r[1:]) for r in store.conn.execute(f"SELECT repo, {', '.join(Figures._fields)} FROM j_figures").fetchall()}
    return Evaluated(prs, results, found, behaviour, s, figures)


def facts(d: RepoData, figures: Any = None) -> Any:
    """A hand-built repository as the once-per-repository step reads it, with these PR figures (none by default)."""
    from porchlamp.evaluate.facts import NO_COMMITS, NO_PRS, RepoFacts

    return RepoFacts(d.repo, d.community, d.issues, d.dependents, NO_COMMITS, (), figures or NO_PRS, {})


def judged(d: RepoData, accts: dict[str, Account] | None = None) -> list[Verdict]:
    """PR verdicts of a hand-built repository, evaluated alone."""
    return evaluated(d, accts=accts).verdicts(d.repo.name_with_owner)


def maintainers(d: RepoData, accts: dict[str, Account] | None = None) -> dict[str, str]:
    """A hand-built repository's maintainers (lower-case login -> the first reason found)."""
    return evaluated(d, accts=accts).maintainers(d.repo.name_with_owner)


def verdict_rows(results: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`results` rows as two stores holding different rows for the same verdicts compare them: whole."""
    return list(results)


def pr_verdict_rows(prs: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`pr_results` rows with only what a verdict says: without whether CI ran (a store keeps what
    earlier days' CI samples saw; the CI component counts only the day's sample)."""
    # has_ci is followed by redirect and bot_reason, the last columns of `pr_results`.
    return [r[:-3] + r[-2:] for r in prs]


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
