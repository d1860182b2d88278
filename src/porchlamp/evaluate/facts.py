"""What the once-per-repository step (gates, components, ranks) reads of the PR relations: one
row of counts per repository, its outside PRs that were pointed elsewhere, its commit sample's
summary, its maintainers and the accounts it set aside as its own bots.

`fact_batches` reads them from a connection on which `relations.judge` has run, a batch of
repositories at a time (memory follows the batch, not the snapshot), as Arrow tables; `facts_of`
makes a batch into Python objects, in whichever process judges it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import duckdb
import pyarrow as pa

from porchlamp.columns import pylist
from porchlamp.evaluate.relations import quote
from porchlamp.models import CommunityFiles, Dependents, Issue, Repository, field_names, stored_maker

BATCH_REPOS = 2000


class Figures(NamedTuple):
    """What a repository's gates and components count of its PR verdicts (`sql/10_figures.sql`)."""

    outside_prs: int
    answered: int
    closed_silently: int
    unanswered: int
    decided: int
    median_hours: float | None
    p90_hours: float | None
    ai_prs: int
    ai_answered: int
    merged: int  # merged PRs but those opened before the window or by bots
    reviewed: int  # of those, reviewed by someone other than the author before the merge
    reviews: int  # of those, reviews before the merge
    ci_checked: int  # of the CI sample, PRs whose CI status is known
    ci_with: int  # of those, PRs with CI checks
    first_timers: int
    first_timers_merged: int
    first_timers_came_back: int
    answered_late: int = 0  # of the unanswered, those a person answered after the deadline (SPEC 7: still unanswered)


NO_PRS = Figures(0, 0, 0, 0, 0, None, None, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


class Redirected(NamedTuple):
    """An outside PR pointed elsewhere, as the off-GitHub gate reads it: its number, and where it
    was pointed instead (JSON: kind, who, quote)."""

    number: int
    redirect: str


class Commits(NamedTuple):
    """What the gates read of a repository's commit sample (`sql/09_commits.sql`): the newest
    commits of the window, and past a run of bots down to the first by a person."""

    read: int
    by_people: int
    last_oid: str | None  # the newest commit by a person: when, by whom, what it says
    last_at: datetime | None
    last_author: str | None
    last_message: str | None
    with_trailers: int  # commits by people whose message carries a review trailer


NO_COMMITS = Commits(0, 0, None, None, None, None, 0)


class OwnBot(NamedTuple):
    """An account set aside as this repository's bot (`sql/04_bots.sql`): it posts one message on
    `prs` of the `of_prs` PRs it spoke on here; `quote` is one of them, on one line."""

    login: str
    prs: int
    of_prs: int
    quote: str


@dataclass(frozen=True)
class RepoFacts:
    repo: Repository
    community: CommunityFiles
    issues: tuple[Issue, ...]  # open, unassigned and labelled: all a good first issue can be
    dependents: Dependents | None
    commits: Commits
    redirected: tuple[Redirected, ...]  # the outside PRs pointed elsewhere (the rest are counted in figures)
    figures: Figures
    maintainers: dict[str, str]  # login (lower case) -> the first reason found
    own_bots: tuple[OwnBot, ...] = ()
    # (venue, document, passage): where its own documents say review happens (`marks.document_marks`)
    documents: tuple[tuple[str, str, str], ...] = ()
    # Where its rows came from and what they lack, when not collected from its forge (`backup.unseen`)
    unseen: dict[str, Any] | None = None

    def active_maintainers(self) -> int:
        """How many showed themselves in the window (association or action, not CODEOWNERS alone)."""
        return sum(1 for r in self.maintainers.values() if r != "named in CODEOWNERS")


# The models a batch's facts hold, each with where its rows are: (key, model, table, its repository
# column, which rows, their order).
_MODELS: tuple[tuple[str, type, str, str, str, str], ...] = (
    ("meta", Repository, "repositories", "name_with_owner", "true", "name_with_owner"),
    ("community", CommunityFiles, "community", "repo", "true", "repo"),
    # Only issues that could be good first issues: the rest (three in four at 11,000 repositories)
    # cost a second to make into objects nobody reads.
    ("issues", Issue, "issues", "repo", "state = 'OPEN' AND assignees = 0 AND len(labels) > 0", "repo, number"),
    ("dependents", Dependents, "dependents", "repo", "true", "repo"),
)
# Every query of a batch's rows: its first column is the repository, the rest a model's fields or a row.
_SQL = {
    **{key: f"SELECT {col}, {', '.join(field_names(model))} FROM {table} WHERE {col} BETWEEN ? AND ? AND {where} ORDER BY {order}"
       for key, model, table, col, where, order in _MODELS},
    "commits": "SELECT repo, commits_read, human_commits, last_human_oid, last_human_at, last_human_author, "
               "last_human_message, human_trailers FROM j_commits WHERE repo BETWEEN ? AND ?",
    # Only the PRs pointed elsewhere: the gates count the rest from `figures` (reading every outside
    # PR into Python cost 2 s at 11,000 repositories).
    "redirected": "SELECT repo, number, redirect FROM j_outside WHERE repo BETWEEN ? AND ? AND redirect IS NOT NULL "
                  "ORDER BY repo, number",
    # Counts as BIGINT: DuckDB counts in HUGEINT, which Arrow carries as decimals.
    "figures": f"SELECT repo, {', '.join(f if f.endswith('_hours') else f'{f}::BIGINT' for f in Figures._fields)} "
               "FROM j_figures WHERE repo BETWEEN ? AND ?",
    "maintainers": "SELECT repo, login, why FROM j_maintainers WHERE repo BETWEEN ? AND ? ORDER BY repo, login",
    "own": "SELECT o.repo, o.login, o.prs, o.of_prs, t.body FROM j_own_bots o JOIN timeline t ON t.node_id = o.node "
           "WHERE o.repo BETWEEN ? AND ? ORDER BY o.repo, o.prs DESC, o.login",
    "documents": "SELECT repo, m_docs FROM community WHERE repo BETWEEN ? AND ? AND m_docs IS NOT NULL",
    # Rows imported from a backup, until the collector reads the repository from its forge.
    "unseen": "SELECT i.repo, i.detail FROM collect_state i WHERE i.stage = 'import' AND i.repo BETWEEN ? AND ? "
              "AND NOT EXISTS (SELECT 1 FROM collect_state m WHERE m.repo = i.repo AND m.stage = 'meta' "
              "AND m.status = 'done' AND m.as_of >= i.as_of)",
}


class Batch(NamedTuple):
    """A batch of repositories (names in order) and the rows of their facts as Arrow tables, read in
    C: made into Python objects by `facts_of`, which may run in another process."""

    names: list[str]
    tables: dict[str, pa.Table]


def fact_batches(conn: duckdb.DuckDBPyConnection, repos: Sequence[str], size: int = BATCH_REPOS) -> Iterator[Batch]:
    """`repos` in name order with the rows their gates and components read, `size` at a time."""
    names = sorted(repos)
    for first in range(0, len(names), size):
        batch = names[first:first + size]
        span = [batch[0], batch[-1]]
        yield Batch(batch, {key: conn.sql(sql, params=span).to_arrow_table() for key, sql in _SQL.items()})


def _by_repo(table: pa.Table) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of `table` (its first column the repository) by repository, the rest of each row a tuple."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for row in zip(*(pylist(c) for c in table.columns)):
        out.setdefault(row[0], []).append(row[1:])
    return out


def _models(table: pa.Table, model: type) -> dict[str, list[Any]]:
    """`model` records from the rows of `table` (the repository, then the model's fields) by repository."""
    make = stored_maker(model)
    return {repo: [make(r) for r in rows] for repo, rows in _by_repo(table).items()}


def facts_of(batch: Batch) -> list[RepoFacts]:
    """The batch's repositories (those the store holds) with what their gates and components read."""
    t = batch.tables
    meta, community, issues, dependents = (_models(t[key], model) for key, model, *_ in _MODELS)
    commits, redirected, figures, maintainers, own, documents, unseen = (
        _by_repo(t[key]) for key in ("commits", "redirected", "figures", "maintainers", "own", "documents", "unseen"))
    out = []
    for name in batch.names:
        if name not in meta:
            continue
        fig = figures.get(name)
        out.append(RepoFacts(
            repo=meta[name][0],
            community=community[name][0] if name in community else CommunityFiles(repo=name),
            issues=tuple(issues.get(name, ())),
            dependents=dependents[name][0] if name in dependents else None,
            commits=Commits(*commits[name][0]) if name in commits else NO_COMMITS,
            redirected=tuple(Redirected(*o) for o in redirected.get(name, ())),
            figures=Figures(*fig[0]) if fig else NO_PRS,
            maintainers=dict(maintainers.get(name, ())),
            own_bots=tuple(OwnBot(login, prs, of, quote(body or "")) for login, prs, of, body in own.get(name, ())),
            documents=tuple(tuple(d) for d in json.loads(documents[name][0][0])) if name in documents else (),
            unseen=json.loads(unseen[name][0][0]) if name in unseen else None,
        ))
    return out
