"""Every project's listed figures (what the whole-snapshot pages and files read) in an Arrow file
read memory-mapped, handed out as `Project`s a batch at a time, in name order or a listing's own.

Held as objects, a project cost publishing 2.3 KB (2.3 GB at a million); here it is columns in a
file whose pages the operating system may drop, and each listing (a goal's ranking, not ranked,
A–Z) is an array of positions, sorted by Arrow: a few bytes a project.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from porchlamp.columns import pydict
from porchlamp.publish.changes import Change
from porchlamp.publish.project import Project, Row
from porchlamp.store import Store

# What the whole-snapshot pages and files read of a project's result row. The rest (its evidence
# above all: 4 KB a project) is read with the project's own files (`SiteData.detailed`).
LIST_COLUMNS = ("repo", "status", "kind", "reason", "ecosystem", "language", "stars", "judged", "borderline", "review_happens",
                "outside_prs", "answered", "closed_silently", "unanswered", "median_hours", "p90_hours", "forge", "review_at",
                "answered_late")
# What a mirror's page says of the project it points to (`Project.home`).
HOME_COLUMNS = ("repo", "status", "kind", "answered", "outside_prs", "forge")
# A goal's row as a project holds it (`Project.profiles`), and the values of it the listing keeps.
GOAL_ROW = ("repo", "profile", "score", "coverage", "tier", "rank", "delta")
GOAL_VALUES = GOAL_ROW[2:]
# Projects made at once from the file (made, with their columns as Python values, about 4 KB each
# until the caller has moved past them); and made projects kept for the next listing that asks
# for them (least recently asked for dropped first): a publish walks every project about a dozen
# times, in five orders, and making one costs about 14 µs. Kept, they hold about 2.3 KB each: at
# most 75 MB, and at 11,000 projects each is made once.
LISTING_ROWS = 1024
KEPT_PROJECTS = 32_768


TREND_DAYS = 30  # the ranking's trend mark compares with the earliest snapshot this many days back
# A row's columns: the result row's, then its answered share's change in points since TREND_DAYS
# ago (null without an earlier snapshot or without outside PRs then or now).
ROW_COLUMNS = (*LIST_COLUMNS, "trend")


def _goal(k: int, column: str) -> str:
    return f"g{k}_{column}"  # by position: a goal's name is the operator's, never part of SQL


def export_listing(store: Store, when: Any, profiles: Sequence[str], digests: str, path: Path) -> Path:
    """Write the snapshot's listing to `path`: a row per project in name order, its result row's
    LIST_COLUMNS, links, good first issues (as JSON text), digests (`digests`: a query over `$1`
    giving repo, own and place) and for each of `profiles` whether it has that goal and its values.
    Streamed from DuckDB batch by batch: nothing of it is held here."""
    goals = ", ".join(
        f"bool_or(profile = ${k + 2}) AS {_goal(k, 'present')}, "
        + ", ".join(f"any_value({c}) FILTER (WHERE profile = ${k + 2}) AS {_goal(k, c)}" for c in GOAL_VALUES)
        for k in range(len(profiles)))
    goal_columns = ", ".join(f"g.{_goal(k, c)}" for k in range(len(profiles)) for c in ("present", *GOAL_VALUES))
    sql = (f"SELECT {', '.join(f'r.{c}' for c in LIST_COLUMNS)}, "
           "CAST(round(100 * (r.answered / nullif(r.outside_prs, 0) - t.then_share)) AS INTEGER) AS trend, "
           "m.homepage_url AS homepage, m.topics, a.issues, "
           # The project a mirror points to, and a project's mirrors, are part of what its page shows.
           f"{', '.join(f'h.{c} AS home_{c}' for c in HOME_COLUMNS)}, l.mirrors, "
           # A project that is no mirror and has none keeps the digest it had before links were kept.
           f"CASE WHEN h.repo IS NULL AND l.mirrors IS NULL THEN d.own ELSE d.own || '+' || "
           f"hash({', '.join(f'h.{c}' for c in HOME_COLUMNS)}, l.mirrors)::VARCHAR END AS own, "
           f"d.place{', ' + goal_columns if profiles else ''} FROM results r "
           "LEFT JOIN repositories m ON m.name_with_owner = r.repo "
           "LEFT JOIN (SELECT repo, json_extract(inputs, '$.good_first_issues')::VARCHAR AS issues FROM component_results "
           "WHERE as_of = $1 AND component = 'accessibility') a USING (repo) "
           f"LEFT JOIN {digests} d USING (repo) "
           "LEFT JOIN (SELECT * FROM results WHERE as_of = $1 AND repo IN (SELECT home FROM mirror_links WHERE as_of = $1)) h "
           "ON h.repo = r.review_at "
           "LEFT JOIN (SELECT home AS repo, list(repo ORDER BY repo) AS mirrors FROM mirror_links WHERE as_of = $1 GROUP BY home) l "
           "USING (repo) "
           "LEFT JOIN (SELECT repo, arg_min(answered / outside_prs, as_of) AS then_share FROM results "
           f"WHERE as_of >= CAST($1 AS DATE) - INTERVAL {TREND_DAYS} DAY AND as_of < $1 AND outside_prs > 0 GROUP BY repo) t USING (repo) "
           + (f"LEFT JOIN (SELECT repo, {goals} FROM profile_results WHERE as_of = $1 GROUP BY repo) g USING (repo) " if profiles else "")
           + "WHERE r.as_of = $1 ORDER BY r.repo")
    with store.small_budget():
        # A relation's reader streams; one over an executed result copies its rows first.
        rows = store.conn.sql(sql, params=[when, *profiles])
        reader = rows.to_arrow_reader(LISTING_ROWS) if hasattr(rows, "to_arrow_reader") else rows.fetch_arrow_reader(LISTING_ROWS)
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, reader.schema) as out:
            for batch in reader:
                out.write_batch(batch)
    return path


class Listing(Sequence[Project]):
    """The listing file (`export_listing`) as a sequence of `Project`s in name order, each made when
    reached (at most KEPT_PROJECTS kept made for the next listing that asks); `ranked`, `by_name`
    and `not_ranked` give the other orders the site lists projects in."""

    def __init__(self, path: Path, profiles: Sequence[str], changes: Mapping[str, Change]) -> None:
        self._table = pa.ipc.open_file(pa.memory_map(str(path))).read_all()  # no copy: the file's pages
        self._batches = self._table.to_batches()
        self._starts = np.cumsum([0] + [b.num_rows for b in self._batches])
        self._kept: OrderedDict[int, Project] = OrderedDict()
        self.profiles = list(profiles)
        self._changes = changes
        self._row_names = {c: i for i, c in enumerate(ROW_COLUMNS)}
        self._goal_names = {c: i for i, c in enumerate(GOAL_ROW)}

    def __len__(self) -> int:
        return self._table.num_rows

    def __iter__(self) -> Iterator[Project]:
        return iter(self.all())

    @overload
    def __getitem__(self, i: int) -> Project: ...

    @overload
    def __getitem__(self, i: slice) -> list[Project]: ...

    def __getitem__(self, i: int | slice) -> Project | list[Project]:
        return self.all()[i]

    def column(self, name: str) -> pa.ChunkedArray:
        return self._table.column(name)

    def view(self, positions: pa.Array) -> View:
        return View(self, positions)

    def all(self) -> View:
        return self.view(self._everyone())

    def _everyone(self) -> pa.Array:
        return pa.array(np.arange(len(self), dtype=np.int64))

    def ranked(self, profile: str) -> View:
        """The projects ranked in `profile`, by their rank there (name order among equals)."""
        if profile not in self.profiles:
            return self.view(pa.array([], pa.int64()))
        rank = self.column(_goal(self.profiles.index(profile), "rank"))
        keep = pc.and_(pc.equal(self.column("status"), "ranked"), pc.not_equal(pc.fill_null(rank, 0), 0))
        return self._sorted(keep, [(rank, "ascending")])

    def by_name(self) -> View:
        """Every project by its own name (its path on its host: gitlab.com/kit/x as kit/x), then its whole
        name, without regard to case (as `str.lower` orders them)."""
        repo = self.column("repo")
        # A first segment with a dot is a host (`forges.HOST_MACRO`): GitHub's owners hold none.
        path = pc.replace_substring_regex(repo, pattern=r"^[^/]*\.[^/]*/", replacement="", max_replacements=1)
        if pc.all(pc.string_is_ascii(repo)).as_py() is not False:  # Arrow lowers ASCII exactly as Python does
            return self._sorted(None, [(pc.ascii_lower(path), "ascending"), (pc.ascii_lower(repo), "ascending")])
        names, paths = repo.to_pylist(), path.to_pylist()
        return self.view(pa.array(sorted(range(len(names)), key=lambda i: (paths[i].lower(), names[i].lower())), pa.int64()))

    def not_ranked(self, order: Sequence[str]) -> View:
        """The projects not ranked, by their status in `order` (others last), most stars first, then name."""
        status = self.column("status")
        first = pc.fill_null(pc.index_in(status, value_set=pa.array(list(order), pa.string())), 99)
        return self._sorted(pc.not_equal(status, "ranked"),
                            [(first, "ascending"), (self.column("stars"), "descending"), (self.column("repo"), "ascending")])

    def _sorted(self, keep: pa.ChunkedArray | None, keys: list[tuple[pa.ChunkedArray, str]]) -> View:
        # Arrow's sort is stable, as Python's is: equal keys stay in name order.
        table = pa.table({f"k{i}": column for i, (column, _) in enumerate(keys)})
        positions = self._everyone()
        if keep is not None:
            mask = pc.fill_null(keep, False)
            table, positions = table.filter(mask), pc.filter(positions, mask)
        order = pc.sort_indices(table, sort_keys=[(f"k{i}", how) for i, (_, how) in enumerate(keys)])
        return self.view(pc.take(positions, order))

    def _made(self, part: pa.Table | pa.RecordBatch) -> Iterator[Project]:
        cols = pydict(part)
        repos = cols["repo"]
        goals = [(name, cols[_goal(k, "present")],
                  list(zip(repos, itertools.repeat(name), *(cols[_goal(k, c)] for c in GOAL_VALUES))))
                 for k, name in enumerate(self.profiles)]
        homepage, topics, issues, own, place, mirrors = (cols[c] for c in ("homepage", "topics", "issues", "own", "place", "mirrors"))
        homes = list(zip(*(cols[f"home_{c}"] for c in HOME_COLUMNS)))
        names, goal_names, changes = self._row_names, self._goal_names, self._changes
        for i, values in enumerate(zip(*(cols[c] for c in ROW_COLUMNS))):
            repo = values[0]
            yield Project(repo, Row(names, values), {name: Row(goal_names, rows[i]) for name, present, rows in goals if present[i]},
                          homepage_url=homepage[i], topics=tuple(topics[i] or ()), change=changes.get(repo),
                          issues_json=issues[i], digest=own[i], place=place[i], mirrors=tuple(mirrors[i] or ()),
                          home=dict(zip(HOME_COLUMNS, homes[i])) if homes[i][0] is not None else None)

    def _holds(self, positions: pa.Array) -> bool:
        """Whether the projects at `positions` are all kept made."""
        return all(i in self._kept for i in positions.to_pylist())

    def _projects(self, positions: pa.Array) -> list[Project]:
        """The projects at `positions` (at most LISTING_ROWS), those kept from before as they are;
        the least recently asked for are dropped past KEPT_PROJECTS."""
        kept, found = self._kept, {}
        at = positions.to_pylist()
        for i in at:
            p = kept.get(i)
            if p is not None:
                kept.move_to_end(i)
                found[i] = p
        missing = [i for i in at if i not in found]
        if missing:
            for i, p in zip(missing, self._made(self._at(pa.array(missing, pa.int64())))):
                kept[i] = found[i] = p
            while len(kept) > KEPT_PROJECTS:
                kept.popitem(last=False)
        return [found[i] for i in at]

    def _at(self, positions: pa.Array) -> pa.Table:
        """The listing's rows at `positions`, in their order. Arrow's own take over the file's many
        batches joins each column whole first (a millisecond a page at 11,000 projects): each batch
        gives its rows here, which are then put back in order."""
        at = positions.to_numpy(zero_copy_only=False)
        batch = np.searchsorted(self._starts, at, side="right") - 1
        firsts = np.unique(batch)
        if not len(firsts):
            return self._table.slice(0, 0)
        if len(firsts) == 1:
            return pa.Table.from_batches([self._batches[firsts[0]].take(pa.array(at - self._starts[firsts[0]]))])
        grouped = np.argsort(batch, kind="stable")
        table = pa.Table.from_batches([self._batches[b].take(pa.array(at[batch == b] - self._starts[b])) for b in firsts])
        back = np.empty_like(grouped)
        back[grouped] = np.arange(len(grouped))
        return table.combine_chunks().take(pa.array(back))


class View(Sequence[Project]):
    """Some of a listing's projects in an order of their own (positions in the listing file)."""

    def __init__(self, listing: Listing, positions: pa.Array | pa.ChunkedArray) -> None:
        self._listing = listing
        self._positions = positions.combine_chunks() if isinstance(positions, pa.ChunkedArray) else positions

    def __len__(self) -> int:
        return len(self._positions)

    def __iter__(self) -> Iterator[Project]:
        for start in range(0, len(self), LISTING_ROWS):
            yield from self._listing._projects(self._positions.slice(start, LISTING_ROWS))

    @overload
    def __getitem__(self, i: int) -> Project: ...

    @overload
    def __getitem__(self, i: slice) -> list[Project]: ...

    def __getitem__(self, i: int | slice) -> Project | list[Project]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return list(View(self._listing, self._positions.take(pa.array(range(len(self))[i], pa.int64()))))
            # A list's pages ask for their rows in turn: the projects after a page are made with it
            # and kept (as many as KEPT_PROJECTS allows), so the next pages find them made.
            ahead = min(LISTING_ROWS, KEPT_PROJECTS // 2)
            out: list[Project] = []
            for first in range(start, stop, LISTING_ROWS):
                last = min(stop, first + LISTING_ROWS)
                page = self._positions.slice(first, last - first)
                if not self._listing._holds(page):
                    page = self._positions.slice(first, max(last - first, ahead))
                out += self._listing._projects(page)[:last - first]
            return out
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return next(iter(View(self._listing, self._positions.slice(i % len(self), 1))))

    def values(self, column: str) -> pa.Array:
        """A column of the listing, in this view's order."""
        return pc.take(self._listing.column(column), self._positions).combine_chunks()

    def where(self, column: str, value: Any) -> View:
        """The projects of this view whose `column` is `value`, in this view's order."""
        return self.subset(pc.equal(self.values(column), value))

    def subset(self, mask: pa.Array) -> View:
        """The projects of this view where `mask` (one per project, in this view's order) is true."""
        return View(self._listing, pc.filter(self._positions, pc.fill_null(mask, False)))
