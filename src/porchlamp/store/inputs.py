"""What each repository's verdict is computed from, as one digest of its rows per repository: equal
digests on two days mean evaluation read the same rows, so an earlier verdict may be carried. Template
sightings are kept per PR under a digest of that PR's rows, so a day takes again only those that changed;
each PR's digest of all its rows keys its verdict, and says which PRs' rows a day need not export.

The digest covers every column evaluation reads of the repository's rows in every table, and the
accounts that opened its PRs (all evaluation asks of accounts), summed over rows so order is moot.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from itertools import count

import pyarrow as pa

from porchlamp.store.db import _REPO_TABLES, MODEL_OF_TABLE, REPO_COLUMN, TEMPLATE_KINDS, Store, _columns


def _digest(rows: str, total: str) -> str:
    """SQL for a digest of some rows: how many (`rows`), and their hashes summed (`total`), so order is moot."""
    return f"{rows}::VARCHAR || ':' || {total}::VARCHAR"


# The temporary tables `pr_digests` makes, (repo, number, n, s, inputs), are named this and a
# number: one scope's never replaces another's.
PR_DIGESTS = "_pr_digests"
_SCOPES = count()

# The tables whose rows are a PR's: digested per PR once (`pr_digests`), summed per repository from there.
_PR_TABLES = ("pulls", "timeline")


@contextmanager
def pr_digests(store: Store) -> Iterator[str]:
    """Every stored PR's digests as a temporary table (its name yielded) while the block runs, all from
    one scan of the PRs' rows (the largest tables, read once where three scans read them before):
    - `n`, `s`: the count and sum of the hashes of its pull row and every timeline row of it, every
      column (all that judging a PR reads of them): its `rows` digest (`pr_rows`; with its author's
      standing, its verdict's key: `pulls.standing`), and its part of its repository's (`input_digests`);
    - `inputs`: the digest of what its template sightings read (SPEC section 5): when it was opened
      and its comment, review and ready-for-review rows; none if it has no such row."""
    kinds = ", ".join(f"'{k}'" for k in TEMPLATE_KINDS)
    pulls, timeline = (", ".join(_columns(MODEL_OF_TABLE[t])) for t in _PR_TABLES)
    name = f"{PR_DIGESTS}_{next(_SCOPES)}"
    with store.small_budget():
        store.conn.execute(f"""
            CREATE OR REPLACE TEMP TABLE {name} AS
            SELECT repo, number, count(*) AS n, sum(h::HUGEINT) AS s,
                   CASE WHEN count(g) > 0 THEN {_digest("count(g)", "sum(g::HUGEINT)")} END AS inputs
            FROM (SELECT repo, number, hash('pulls', {pulls}) AS h, hash('pulls', created_at) AS g FROM pulls
                  UNION ALL
                  SELECT repo, number, hash('timeline', {timeline}),
                         CASE WHEN kind IN ({kinds}) THEN hash('timeline', kind, created_at, actor, actor_type, body) END
                  FROM timeline)
            GROUP BY repo, number""")
    try:
        yield name
    finally:
        store.conn.execute(f"DROP TABLE IF EXISTS {name}")


def input_digests(store: Store, prs: str | None = None) -> dict[str, str]:
    """Each stored repository's digest of its rows (`rows:sum of row hashes`), by name;
    its PRs' rows summed from `prs` (a `pr_digests` table, made for this call if not given)."""
    if prs is None:
        with pr_digests(store) as made:
            return input_digests(store, made)
    parts = []
    for table in ("repositories", *_REPO_TABLES):
        if table in _PR_TABLES:
            continue
        cols = ", ".join(f"t.{c}" for c in _columns(MODEL_OF_TABLE[table]))
        parts.append(f"SELECT t.{REPO_COLUMN[table]} AS repo, hash('{table}', {cols}) AS h FROM {table} t")
    cols = ", ".join(f"a.{c}" for c in _columns(MODEL_OF_TABLE["accounts"]))
    parts.append(f"SELECT x.repo, hash('accounts', {cols}) AS h FROM accounts a "
                 "JOIN (SELECT DISTINCT repo, author FROM pulls) x ON a.login = x.author")
    # The count and sum of every row's hash, taken in two steps: counts and sums add exactly.
    sql = f"""SELECT repo, {_digest("sum(n)", "sum(s)")} AS digest FROM (
                  SELECT repo, count(*) AS n, sum(h::HUGEINT) AS s FROM ({' UNION ALL '.join(parts)}) GROUP BY repo
                  UNION ALL SELECT repo, n, s FROM {prs})
              GROUP BY repo"""
    # A streaming aggregate over every row: kept in a small budget like the shard export.
    with store.small_budget():
        return dict(store.conn.execute(sql).fetchall())


# The temporary table `pr_rows` makes: (repo, number, rows, held, aside).
PR_ROWS = "_pr_rows"


@dataclass(frozen=True)
class EarlierDay:
    """The snapshot a day may keep PR verdicts of (`was`), and the ends of its window and the day's."""

    was: date
    was_end: datetime
    end: datetime


@dataclass(frozen=True)
class SightingPlan:
    """Which template sightings a day takes again: those of PRs whose rows changed (or that are new),
    and of every PR when the code or settings changed. `known`: repositories whose every PR's
    sightings are kept; `only`: repositories with some kept, mapped to the PRs to take again;
    any other repository is sighted whole. Open while `sighting_plan` is: it reads the kept
    sightings and keeps the new ones, and says which PRs' timeline rows a day need not export."""

    store: Store
    settings_key: str
    known: frozenset[str]
    only: Mapping[str, frozenset[int]]
    prs: str  # the `pr_digests` table it was made from

    def load(self) -> tuple[pa.Table, pa.Table]:
        """The kept sightings of the PRs whose rows did not change: (fingerprints, comments) tables."""
        conn = self.store.conn
        fps = conn.sql("SELECT f.repo, f.fp, f.number, f.fast, f.actor FROM template_fingerprints f "
                       "JOIN _pr_inputs d ON f.repo = d.repo AND f.number = d.number WHERE d.kept").to_arrow_table()
        com = conn.sql("SELECT c.repo, c.number, c.login, c.n FROM template_comments c "
                       "JOIN _pr_inputs d ON c.repo = d.repo AND c.number = d.number WHERE d.kept").to_arrow_table()
        return fps, com

    def pr_rows(self, repos: Sequence[str], earlier: EarlierDay | None = None, aside: bool = True) -> str:
        """`pr_rows` of `repos`; with `earlier`, a PR is set aside only if its sightings are kept too."""
        return pr_rows(self.store, repos, earlier, self.prs, aside)

    def keep(self, fingerprints: pa.Table, comments: pa.Table) -> None:
        """The sightings of every PR not kept replaced by those just taken (the plan's repositories'
        PRs that are gone are forgotten)."""
        conn = self.store.conn
        with self.store.transaction():
            conn.register("_fps", fingerprints)
            conn.register("_comments", comments)
            try:
                for table in ("template_pr_sighted", "template_fingerprints", "template_comments"):
                    conn.execute(f"DELETE FROM {table} t WHERE t.repo IN (SELECT repo FROM _wanted) AND NOT EXISTS "
                                 "(SELECT 1 FROM _pr_inputs d WHERE d.kept AND d.repo = t.repo AND d.number = t.number)")
                conn.execute("INSERT INTO template_pr_sighted SELECT repo, number, inputs, ? FROM _pr_inputs WHERE NOT kept",
                             [self.settings_key])
                conn.execute("INSERT INTO template_fingerprints SELECT repo, fp, number, fast, actor FROM _fps")
                conn.execute("INSERT INTO template_comments SELECT repo, number, login, n FROM _comments")
            finally:
                for name in ("_fps", "_comments"):
                    conn.unregister(name)


def pr_rows(store: Store, repos: Sequence[str], earlier: EarlierDay | None = None, prs: str | None = None,
            aside: bool = True) -> str:
    """The table `PR_ROWS` (replaced if made before) of every PR of `repos`: its rows' digest;
    whether its verdict of snapshot `earlier.was` stands for the day if its author's standing and
    the maintainers are the same (`held`, as `pulls.holding` finds it: a keyed verdict from the same
    rows, whose horizon the window's move to `earlier.end` did not reach, `horizon.holds`); and
    whether its timeline rows may stay out of the export (`aside`, unless not `aside`): it is held,
    its verdict has the maintainers' acts it showed, and its template sightings are kept
    (`_pr_inputs`: with `earlier`, call it inside `sighting_plan`). Such a PR's verdict is kept
    unless its author's standing or the maintainers changed; then its repository is judged again
    from all its rows. The digests are read from `prs` (`pr_digests`, made for this call if not given)."""
    if prs is None:
        with pr_digests(store) as made:
            return pr_rows(store, repos, earlier, made, aside)
    conn = store.conn
    if earlier is None or earlier.was_end > earlier.end:
        held, keeps, joins, args = "false", "false", "", []
    else:
        ahead = "true" if earlier.was_end == earlier.end else "(v.valid_until IS NULL OR v.valid_until > ?)"
        held = f"coalesce(v.inputs IS NOT NULL AND v.rows = d.rows AND {ahead}, false)"
        keeps = "(v.acts IS NOT NULL AND coalesce(s.kept, false))" if aside else "false"
        joins = "LEFT JOIN pr_results v ON v.as_of = ? AND v.repo = d.repo AND v.number = d.number" + (
            " LEFT JOIN _pr_inputs s ON s.repo = d.repo AND s.number = d.number" if aside else "")
        args = ([] if earlier.was_end == earlier.end else [earlier.end]) + [earlier.was]  # in the order they appear
    conn.register("_rows_of", pa.table({"repo": pa.array(list(repos), pa.string())}))
    try:
        with store.small_budget():
            conn.execute(f"CREATE OR REPLACE TEMP TABLE {PR_ROWS} AS SELECT repo, number, rows, held, held AND keeps AS aside "
                         f"FROM (SELECT d.repo, d.number, d.rows, {held} AS held, {keeps} AS keeps FROM (SELECT repo, number, "
                         f"{_digest('n', 's')} AS rows FROM {prs} WHERE repo IN (SELECT repo FROM _rows_of)) d {joins})", args)
    finally:
        conn.unregister("_rows_of")
    return PR_ROWS


@contextmanager
def sighting_plan(store: Store, repos: Sequence[str], settings_key: str, reuse: bool = True,
                  prs: str | None = None) -> Iterator[SightingPlan]:
    """The plan for `repos` (see SightingPlan), comparing each PR's digest now (`inputs` of `prs`, a
    `pr_digests` table made for the plan if not given) with the one its kept sightings were taken
    from under `settings_key`; none is kept without `reuse`."""
    with ExitStack() as scope:
        prs = prs or scope.enter_context(pr_digests(store))
        with _plan(store, repos, settings_key, reuse, prs) as plan:
            yield plan


@contextmanager
def _plan(store: Store, repos: Sequence[str], settings_key: str, reuse: bool, prs: str) -> Iterator[SightingPlan]:
    store.conn.register("_wanted", pa.table({"repo": pa.array(list(repos), pa.string())}))
    try:
        store.conn.execute(f"""
            CREATE OR REPLACE TEMP TABLE _pr_inputs AS
            SELECT d.repo, d.number, d.inputs, coalesce(k.inputs = d.inputs AND k.settings = ? AND ?, false) AS kept
            FROM {prs} d LEFT JOIN template_pr_sighted k ON k.repo = d.repo AND k.number = d.number
            WHERE d.inputs IS NOT NULL AND d.repo IN (SELECT repo FROM _wanted)""",
            [settings_key, reuse])
        changed = {r for r, in store.conn.execute("SELECT DISTINCT repo FROM _pr_inputs WHERE NOT kept").fetchall()}
        # The PRs to take again are listed only for repositories with some kept: on a first day, none.
        only = {r: frozenset(numbers) for r, numbers in store.conn.execute(
            "SELECT repo, list(number) FROM _pr_inputs WHERE NOT kept AND repo IN "
            "(SELECT repo FROM _pr_inputs WHERE kept) GROUP BY repo").fetchall()}
        yield SightingPlan(store, settings_key, frozenset(r for r in repos if r not in changed), only, prs)
    finally:
        store.conn.execute(f"DROP TABLE IF EXISTS _pr_inputs; DROP TABLE IF EXISTS {PR_ROWS}")
        store.conn.unregister("_wanted")
