"""The collected snapshot as Parquet files by repository shard: planned and written from the
store, read back as RepoData by whoever evaluates a shard (this process or a worker elsewhere).

A shard directory needs no database: `<dir>/<table>/shard=<k>/*.parquet` for every repository table,
`<dir>/accounts/shard=<k>/` for the accounts that opened the shard's PRs (all evaluation asks of accounts),
and `<dir>/prs/shard=<k>/` for each PR's digest of its rows, whether its earlier verdict stands, and whether
it was set aside (its pull and timeline rows left out: its number, author and times are written there instead);
on a day that may keep earlier verdicts, `<dir>/verdicts/shard=<k>/` for those of the PRs to judge.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from operator import itemgetter
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from porchlamp.columns import pydict, pylist
from porchlamp.models import KeptPull, RepoData, TimelineItem, builder, is_named_tuple
from porchlamp.store.db import (
    _LIST_COLUMNS,
    _REPO_TABLES,
    MODEL_OF_TABLE,
    ORDER_OF_TABLE,
    REPO_COLUMN,
    TEMPLATE_KINDS,
    Store,
    repo_data,
    _columns,
    _from_db,
    _sql_path,
)

if TYPE_CHECKING:
    from porchlamp.evaluate.templates import CommentRow

_CONVERTED = _LIST_COLUMNS | {"languages"}


def plan_shards(store: Store, repos: Sequence[str], rows_per_shard: int, min_shards: int = 1) -> list[list[str]]:
    """`repos` in name order, cut into contiguous shards of about `rows_per_shard` PR and timeline rows
    each (a repository is never split), and at least `min_shards` of them when there are enough repositories."""
    weight = {r["repo"]: r["n"] for r in store.query(
        "SELECT repo, sum(n) AS n FROM (SELECT repo, count(*) AS n FROM pulls GROUP BY repo "
        "UNION ALL SELECT repo, count(*) AS n FROM timeline GROUP BY repo) GROUP BY repo")}
    names = sorted(repos)
    total = sum(1 + weight.get(n, 0) for n in names)
    count = max(min_shards, -(-total // max(1, rows_per_shard)))
    count = max(1, min(count, len(names)))
    target = total / count
    shards: list[list[str]] = [[]]
    load = 0
    for i, name in enumerate(names):
        # A new shard once this one has its share, or when every one left must start now to make `count`.
        if shards[-1] and len(shards) < count and (load >= target or len(names) - i <= count - len(shards)):
            shards.append([])
            load = 0
        shards[-1].append(name)
        load += 1 + weight.get(name, 0)
    return shards


def export_shards(store: Store, out_dir: str | Path, shards: Sequence[Sequence[str]], prs: str | None = None) -> Path:
    """Write each repository table as Parquet partitioned by shard number, each shard's PR
    authors' accounts, and the table `prs` (`inputs.pr_rows`, made for every repository of `shards`
    if not given: each PR's digest, whether its earlier verdict is held, and whether it is set aside)
    under `out_dir`: one scan per table for every SHARDS_PER_COPY shards. The pull and timeline rows
    of the PRs set aside are not written: `prs` carries their number, author and times (`KeptPull`)."""
    from porchlamp.store.inputs import pr_rows

    prs = prs or pr_rows(store, [r for s in shards for r in s])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # A partitioned write buffers rows per open shard until this many are waiting, and DuckDB keeps
    # what it scanned cached up to its memory limit: both kept small, the export's memory stays
    # about the same whatever the snapshot's size (646 MB at 11,000 repositories, against 3.3 GB).
    store.conn.execute("SET partitioned_write_flush_threshold = 20000")
    try:
        with store.small_budget():
            for first in range(0, len(shards), SHARDS_PER_COPY):
                _export_group(store, out, shards[first:first + SHARDS_PER_COPY], first, prs)
    finally:
        store.conn.execute("RESET partitioned_write_flush_threshold")
    return out


# Shards written by one COPY. A partitioned write slows down with the partitions it has open: the
# timeline of 100,000 repositories in 450 shards took 150 s in one COPY and 99 s in groups of 64
# (unpartitioned, 41 s); below 64 the extra scans cost more than they save (16: 148 s).
SHARDS_PER_COPY = 64


def _export_group(store: Store, out: Path, shards: Sequence[Sequence[str]], first: int, prs: str) -> None:
    names = [r for s in shards for r in s]
    if not names:
        return
    # The group's names bound the scan too: where the store holds rows in name order, DuckDB skips
    # the row groups outside them (the join alone decides which rows are written).
    span = [min(names), max(names)]
    with _shard_of(store, names, [first + k for k, s in enumerate(shards) for _ in s]):
        for table in ("repositories", *_REPO_TABLES):
            cols = ", ".join(f"t.{c}" for c in _columns(MODEL_OF_TABLE[table]))
            key = REPO_COLUMN[table]
            source, aside = f"{table} t", ""
            if table == "timeline":
                # A PR set aside is kept from the earlier day unless its standing changed: its rows are
                # written only then, by a second round (`LeftOut`).
                aside = f" AND NOT EXISTS (SELECT 1 FROM {prs} a WHERE a.aside AND a.repo = t.repo AND a.number = t.number)"
            elif table == "pulls":
                # Nor is its row: judging it asks for its timeline rows first, and so goes to that
                # second round; kept, it is read for its number, author and times alone, which
                # the `prs` file carries (`KeptPull`).
                aside = f" AND NOT EXISTS (SELECT 1 FROM {prs} a WHERE a.aside AND a.repo = t.repo AND a.number = t.number)"
            # Unsorted: a reader sorts its own shard (`_read`), so the export never sorts the whole table.
            store.conn.execute(
                f"COPY (SELECT {cols}, s.shard FROM {source} JOIN _shard_of s ON t.{key} = s.repo WHERE t.{key} BETWEEN ? AND ?{aside}) "
                f"TO '{_sql_path(out / table)}' {_BY_SHARD}", span)
        kept = ", ".join(f"t.{c}" for c in KeptPull._fields[2:])
        store.conn.execute(
            f"COPY (SELECT p.repo, p.number, p.rows, p.held, p.aside, {kept}, s.shard FROM {prs} p JOIN _shard_of s ON p.repo = s.repo "
            f"LEFT JOIN pulls t ON p.aside AND t.repo = p.repo AND t.number = p.number "
            f"WHERE p.repo BETWEEN ? AND ?) TO '{_sql_path(out / 'prs')}' {_BY_SHARD}", span)
        # Only the accounts a shard's PRs were opened by: a worker's memory must not grow with every
        # account of the snapshot (about 18 per repository).
        cols = ", ".join(f"t.{c}" for c in _columns(MODEL_OF_TABLE["accounts"]))
        store.conn.execute(
            f"COPY (SELECT {cols}, x.shard FROM accounts t JOIN (SELECT DISTINCT p.author, s.shard FROM pulls p "
            f"JOIN _shard_of s ON p.repo = s.repo WHERE p.repo BETWEEN ? AND ?) x ON t.login = x.author) "
            f"TO '{_sql_path(out / 'accounts')}' {_BY_SHARD}", span)


# Every export writes `<dir>/<table>/shard=<k>/` from a query with a `shard` column.
_BY_SHARD = "(FORMAT parquet, PARTITION_BY (shard), OVERWRITE_OR_IGNORE, WRITE_PARTITION_COLUMNS false)"


@contextmanager
def _shard_of(store: Store, repos: list[str], shards: list[int]) -> Iterator[None]:
    """Each repository's shard number as the table `_shard_of` (repo, shard) while the block runs."""
    store.conn.register("_shard_of", pa.table({"repo": repos, "shard": shards}))
    try:
        yield
    finally:
        store.conn.unregister("_shard_of")


def export_verdicts(store: Store, out_dir: str | Path, shards: Sequence[Sequence[str]], as_of: Any,
                    skip: frozenset[str] = frozenset()) -> None:
    """The PR verdicts of snapshot `as_of` that have a key, of every shard's repositories but those of
    `skip`, under `<out_dir>/verdicts/shard=<k>/`: what a shard task may reuse of an earlier day."""
    names = [(r, k) for k, s in enumerate(shards) for r in s if r not in skip]
    if not names:
        return
    with _shard_of(store, [r for r, _ in names], [k for _, k in names]), store.small_budget():
        store.conn.execute(
            f"COPY (SELECT t.*, s.shard FROM pr_results t JOIN _shard_of s ON t.repo = s.repo "
            f"WHERE t.as_of = ? AND t.inputs IS NOT NULL) TO '{_sql_path(Path(out_dir) / 'verdicts')}' {_BY_SHARD}", [as_of])


def read_verdict_rows(shard_dir: str | Path, shard: int) -> pa.Table | None:
    """The earlier PR verdicts `export_verdicts` wrote for one shard (none if it wrote none)."""
    files = sorted((Path(shard_dir) / "verdicts" / f"shard={shard}").glob("*.parquet"))
    return pq.read_table(files, partitioning=None) if files else None


class PRs(NamedTuple):
    """One shard's PRs as `read_prs` gives them, each by repository: the digest of its rows by number
    (of every PR but those `held`: a held PR's rows are its earlier verdict's); the PRs whose earlier
    verdict is held (`inputs.pr_rows`); those the export set aside (their pull and timeline rows
    left out), in number order, as what judging reads of a PR whose verdict it keeps."""

    digests: dict[str, dict[int, str]]
    held: dict[str, frozenset[int]]
    aside: dict[str, list[KeptPull]]


def read_prs(shard_dir: str | Path, shard: int, earlier: bool = True) -> PRs:
    """One shard's PRs (see PRs). Of nearly every PR a day keeps, only its number, author and times
    become values. Without `earlier` (the task has no earlier verdicts to keep), none is held: every
    digest is read."""
    data = _read(Path(shard_dir), "prs", shard, ["repo", "number", "rows", "held", "aside", *KeptPull._fields[2:]], ordered=False)
    if data is None:
        return PRs({}, {}, {})
    judged = data.filter(pc.invert(data["held"])) if earlier else data
    digests: dict[str, dict[int, str]] = {}
    for repo, number, rows in zip(*(pylist(judged.column(c)) for c in ("repo", "number", "rows"))):
        digests.setdefault(repo, {})[number] = rows
    held = _numbers_by_repo(data.filter(data["held"])) if earlier else {}
    aside: dict[str, list[KeptPull]] = {}
    set_aside = data.filter(data["aside"]).select(list(KeptPull._fields)).sort_by([("repo", "ascending"), ("number", "ascending")])
    new = tuple.__new__  # made from its row in C
    for row in zip(*(pylist(set_aside.column(c)) for c in KeptPull._fields)):
        aside.setdefault(row[0], []).append(new(KeptPull, row))
    return PRs(digests, held, aside)


def _numbers_by_repo(rows: pa.Table) -> dict[str, frozenset[int]]:
    grouped = rows.group_by("repo").aggregate([("number", "list")])
    return {repo: frozenset(numbers) for repo, numbers in zip(pylist(grouped["repo"]), grouped["number_list"].to_pylist())}


def _read(shard_dir: Path, table: str, shard: int, columns: list[str], kinds: Sequence[str] | None = None,
          skip: pa.Array | None = None, ordered: bool = True) -> pa.Table | None:
    folder = shard_dir / table / f"shard={shard}"
    files = sorted(folder.glob("*.parquet"))
    if not files:
        return None
    filters = [("kind", "in", list(kinds))] if kinds else None
    data = pq.read_table(files, columns=columns, filters=filters, partitioning=None)
    if skip is not None and len(skip):
        key = REPO_COLUMN.get(table, "repo")
        data = data.filter(pc.invert(pc.is_in(data[key], value_set=skip)))
    return _in_order(data, table) if ordered else data


def _in_order(data: pa.Table, table: str) -> pa.Table:
    """Rows of `table` sorted as the store reads them (a partitioned write need not keep the order it was given)."""
    keys = []
    for part in ORDER_OF_TABLE[table].split(","):
        name, _, direction = part.strip().partition(" ")
        keys.append((name, "descending" if direction.upper() == "DESC" else "ascending"))
    return data.sort_by(keys)


def _records(table: pa.Table | None, model: type, columns: list[str]) -> list[Any]:
    """Rows of an Arrow table as models, built positionally (`columns`: every field, in order)."""
    if table is None or table.num_rows == 0:
        return []
    data = pydict(table)
    cols = [[_from_db(c, v) for v in data[c]] if c == "languages"
            else [v if v is None else tuple(v) for v in data[c]] if c in _CONVERTED else data[c] for c in columns]
    if is_named_tuple(model):  # made from its row in C
        new = tuple.__new__
        return [new(model, row) for row in zip(*cols)]
    build = builder(model)
    return [build(*row) for row in zip(*cols)]


def read_shard(shard_dir: str | Path, shard: int, skip: frozenset[str] = frozenset(),
               later: Mapping[str, Collection[int]] | None = None,
               kept: Mapping[str, Sequence[KeptPull]] | None = None) -> Iterator[RepoData]:
    """The repositories of one shard with their rows, in name order, as `Store.iter_repo_data` gives
    them; `skip`: repositories left out (their rows never become objects); `later`: by repository,
    PRs whose timeline rows become items only if evaluation asks for them (`LazyTimeline`);
    `kept`: by repository, the PRs the export set aside (`read_prs`), among its pulls as given there
    (asking for their timeline rows raises `LeftOut`)."""
    root = Path(shard_dir)
    names_out = _names(skip)
    rows: dict[str, dict[str, list[Any]]] = {}
    aside: _Aside | None = None
    for table in _REPO_TABLES:
        model = MODEL_OF_TABLE[table]
        cols = _columns(model)
        by_repo: dict[str, list[Any]] = {}
        key = REPO_COLUMN[table]
        if table == "timeline" and later:
            # Only the rows not set aside are sorted whole; a PR's set-aside rows are sorted when asked for.
            data = _read(root, table, shard, cols, skip=names_out, ordered=False)
            if data is not None:
                aside = _Aside(data, later, cols)
                data = _in_order(aside.rest, table)
        else:
            data = _read(root, table, shard, cols, skip=names_out)
        for rec in _records(data, model, cols):
            by_repo.setdefault(getattr(rec, key), []).append(rec)
        rows[table] = by_repo
    model = MODEL_OF_TABLE["repositories"]
    cols = _columns(model)
    none: frozenset[int] = frozenset()
    for repo in _records(_read(root, "repositories", shard, cols, skip=names_out), model, cols):
        name = repo.name_with_owner
        parts = {t: by_repo.get(name, []) for t, by_repo in rows.items()}
        gone = none
        if kept and (set_aside := kept.get(name)):
            # Both kinds in the store's order, by number: judging walks a repository's PRs in it.
            parts["pulls"] = sorted([*parts["pulls"], *set_aside], key=_NUMBER)
            gone = frozenset(p.number for p in set_aside)
        data = repo_data(repo, parts)
        lazy = frozenset(later.get(name, ())) if later else none
        if lazy or gone:
            data = replace(data, timeline=LazyTimeline(dict(data.timeline), lazy | gone, partial(_load, aside, name, gone)))
        yield data


_NUMBER = itemgetter(1)  # a PullRequest's number and a KeptPull's


class LeftOut(Exception):
    """Evaluation asked for a PR's timeline rows that the export left out (the PR is judged again,
    though the caller expected its earlier verdict to be kept): its repository is judged in a second
    round from all its rows. Not a LookupError: a mapping's `in` must not read it as "no such PR"."""

    def __init__(self, repo: str, number: int) -> None:
        super().__init__(f"{repo}: the timeline rows of PR #{number} were left out of this shard")
        self.repo, self.number = repo, number


def _load(aside: _Aside | None, repo: str, gone: frozenset[int], number: int) -> tuple[TimelineItem, ...]:
    if number in gone:
        raise LeftOut(repo, number)
    return aside.items(repo, number) if aside is not None and repo in aside.repos else ()


class LazyTimeline(Mapping[int, tuple[TimelineItem, ...]]):
    """A repository's timeline by PR number, whose rows for the PRs in `later` become items the
    first time they are asked for (`load(number)`, then kept): a PR kept from an earlier day is
    never asked. A PR in `later` is in the mapping, with no items if it has no rows."""

    __slots__ = ("_built", "_later", "_load")

    def __init__(self, built: dict[int, tuple[TimelineItem, ...]], later: frozenset[int],
                 load: Callable[[int], tuple[TimelineItem, ...]]) -> None:
        self._built, self._later, self._load = built, later, load

    def __getitem__(self, number: int) -> tuple[TimelineItem, ...]:
        found = self.get(number)
        if found is None:
            raise KeyError(number)
        return found

    def get(self, number: int, default: Any = None) -> Any:  # type: ignore[override]
        found = self._built.get(number)
        if found is None and number in self._later:
            found = self._built[number] = self._load(number)
        return default if found is None else found

    def __iter__(self) -> Iterator[int]:
        return iter(self._built.keys() | self._later)

    def __len__(self) -> int:
        return len(self._built.keys() | self._later)


class _Aside:
    """The timeline rows of the PRs in `later` set apart from `rows` (in any order), made into items
    one PR at a time, in the store's order; `rest`, the other rows (in the order given)."""

    def __init__(self, rows: pa.Table, later: Mapping[str, Collection[int]], columns: list[str]) -> None:
        self.repos = later
        names = sorted(later)
        self._place = {name: i for i, name in enumerate(names)}
        keys = _pr_keys(rows, names)
        mask = pc.fill_null(pc.is_in(keys, value_set=_keys_of(names, later)), False)
        self.rest = rows.filter(pc.invert(mask))
        # Where each set-aside row is, grouped by its PR's key: a PR's rows are found by bisection,
        # and taken (and sorted) only when it is asked for.
        picked = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
        found = keys.filter(mask).to_numpy()
        order = np.argsort(found, kind="stable")
        self._keys, self._at = found[order], picked[order]
        self._rows, self._columns = rows, columns

    def items(self, repo: str, number: int) -> tuple[TimelineItem, ...]:
        key = _key(self._place[repo], number)
        lo, hi = (int(np.searchsorted(self._keys, key, side)) for side in ("left", "right"))
        if hi == lo:
            return ()
        return tuple(_records(_in_order(self._rows.take(pa.array(self._at[lo:hi])), "timeline"), TimelineItem, self._columns))


def read_comments(shard_dir: str | Path, shard: int, skip: frozenset[str] = frozenset(),
                  only: Mapping[str, frozenset[int]] | None = None
                  ) -> Iterator[tuple[str, dict[int, datetime], list[CommentRow]]]:
    """What template sightings read of one shard, as plain values: each repository's name (in name
    order, those without rows too), when each of its PRs was opened, and its comment, review and
    ready-for-review rows (`templates.CommentRow`); `skip`: repositories left out; `only`: of the
    repositories named there, the rows of those PRs alone."""
    root = Path(shard_dir)
    left_out = _names(skip)
    opened: dict[str, dict[int, datetime]] = {}
    pulls = _read(root, "pulls", shard, ["repo", "number", "created_at"], skip=left_out, ordered=False)  # into a dict
    if pulls is not None:
        for repo, number, at in zip(*(pylist(pulls.column(c)) for c in ("repo", "number", "created_at"))):
            opened.setdefault(repo, {})[number] = at
    said: dict[str, list[CommentRow]] = {}
    cols = ["repo", "number", "kind", "created_at", "actor", "actor_type", "body"]
    # In the order written: sightings are counted, so the order of a repository's rows is moot.
    timeline = _read(root, "timeline", shard, cols, TEMPLATE_KINDS, left_out, ordered=False)
    if timeline is not None and only:
        timeline = _of_prs(timeline, only)
    if timeline is not None:
        for repo, number, kind, at, actor, actor_type, body in zip(*(pylist(timeline.column(c)) for c in cols)):
            said.setdefault(repo, []).append((number, kind, at, actor, actor_type, body))
    names = _read(root, "repositories", shard, ["name_with_owner"], skip=left_out)
    for repo in [] if names is None else pylist(names.column("name_with_owner")):
        yield repo, opened.get(repo, {}), said.get(repo, [])


def _of_prs(rows: pa.Table, only: Mapping[str, frozenset[int]]) -> pa.Table:
    """`rows` but those of `only`'s repositories whose PR is not among the numbers it gives them:
    filtered as columns, so the rows left out never become Python values."""
    names = sorted(only)
    key = _pr_keys(rows, names)
    return rows.filter(pc.or_kleene(pc.is_null(key), pc.is_in(key, value_set=_keys_of(names, only))))


def _pr_keys(rows: pa.Table, names: list[str]) -> pa.ChunkedArray:
    """Each row's (repository's place in sorted `names`, PR number) as one integer, ordered as the
    pairs are; null for a repository not named."""
    at = pc.index_in(rows["repo"], value_set=pa.array(names, pa.string()))
    return pc.add(pc.shift_left(pc.cast(at, pa.int64()), 32), pc.cast(rows["number"], pa.int64()))


def _keys_of(names: list[str], numbers: Mapping[str, Collection[int]]) -> pa.Array:
    """`_pr_keys` of the PRs `numbers` gives each of sorted `names`."""
    return pa.array([_key(i, n) for i, name in enumerate(names) for n in numbers[name]], pa.int64())


def _key(place: int, number: int) -> int:
    return (place << 32) + number


def _names(repos: frozenset[str]) -> pa.Array | None:
    return pa.array(sorted(repos), pa.string()) if repos else None


def read_accounts(shard_dir: str | Path, shard: int) -> dict[str, Any]:
    """The accounts that opened one shard's PRs, by login."""
    model = MODEL_OF_TABLE["accounts"]
    cols = _columns(model)
    return {a.login: a for a in _records(_read(Path(shard_dir), "accounts", shard, cols), model, cols)}
