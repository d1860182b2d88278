"""The store: one DuckDB file holding every collected row and every evaluated snapshot.

The only place with SQL. Opening it applies pending migrations; upserts are keyed by each
table's primary key, so writing the same row twice leaves one row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from porchlamp.models import (
    Account,
    Commit,
    CommunityFiles,
    Dependents,
    Issue,
    Member,
    PullRequest,
    RepoData,
    Repository,
    TimelineItem,
    field_names,
    stored_maker,
)
from porchlamp import forges, killpoints
from porchlamp.columns import Columns
from porchlamp.errors import PorchlampError
from porchlamp.store.schema import LATEST_VERSION, MIGRATIONS, RAW_TABLES, SNAPSHOT_TABLES, STORED_ONCE

# DuckDB's memory for a scan or export that streams over a whole table (`Store.small_budget`).
SMALL_BUDGET = "512MB"


class StoreError(PorchlampError):
    """The store file cannot be opened or used; the message says what to do."""


MODEL_OF_TABLE: dict[str, type] = {
    "repositories": Repository,
    "accounts": Account,
    "community": CommunityFiles,
    "pulls": PullRequest,
    "timeline": TimelineItem,
    "commits": Commit,
    "issues": Issue,
    "dependents": Dependents,
    "members": Member,
}
TABLE_OF_MODEL: dict[type, str] = {v: k for k, v in MODEL_OF_TABLE.items()}
REPO_COLUMN: dict[str, str] = {
    "repositories": "name_with_owner",
    "community": "repo",
    "pulls": "repo",
    "timeline": "repo",
    "commits": "repo",
    "issues": "repo",
    "dependents": "repo",
    "members": "repo",
}
KEY_OF_TABLE: dict[str, tuple[str, ...]] = {
    "repositories": ("name_with_owner",),
    "accounts": ("host", "login"),
    "community": ("repo",),
    "pulls": ("repo", "number"),
    "timeline": ("node_id",),
    "commits": ("repo", "oid"),
    "issues": ("repo", "number"),
    "dependents": ("repo",),
    "members": ("repo", "login"),
}

# What a world's row may leave out, written in its place when it is loaded (`Store.load_jsonl`): a
# world's accounts and repositories are GitHub's unless they say otherwise.
_LOAD_DEFAULTS: dict[str, dict[str, str]] = {"accounts": {"host": "'github.com'"}, "repositories": {"forge": "'github'"}}

# A row that carries marks of its text (`m_*` of `timeline` and `pulls`, `store.marks`) has its marks'
# version cleared when written, since INSERT OR REPLACE keeps the columns it is not given.
_CLEAR_MARKS = (", m_version", ", NULL::VARCHAR")

ORDER_OF_TABLE: dict[str, str] = {
    "snapshots": "as_of",
    "results": "as_of, repo",
    "pr_results": "as_of, repo, number",
    "component_results": "as_of, repo, component",
    "profile_results": "as_of, repo, profile",
    "mirror_links": "as_of, repo",
    "repositories": "name_with_owner",
    "accounts": "host, login",
    "community": "repo",
    "pulls": "repo, number",
    "timeline": "repo, number, created_at, node_id",
    "commits": "repo, committed_at DESC, oid",
    "issues": "repo, number",
    "dependents": "repo",
    "members": "repo, login",
}
# A later write of an account never forgets what an earlier one learnt: GitLab's merge requests name
# their authors with no age and no type, which only the accounts stage reads.
_KEEP_KNOWN = {"accounts": ("type", "created_at", "node_id")}


def _columns(model: type) -> list[str]:
    return field_names(model)


def _to_db(name: str, value: Any) -> Any:
    if name == "languages":
        return [{"name": n, "bytes": b} for n, b in value]
    if isinstance(value, tuple):
        return list(value)
    return value


class Store:
    """A DuckDB store file. Use as a context manager; `read_only` opens without migrating.
    `notice` hears of an upgrade of an older store before it starts (minutes on a large one)."""

    def __init__(self, path: str | Path, read_only: bool = False, notice: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self._notice = notice
        self._budgeted = False
        if read_only and not self.path.exists():
            raise StoreError(f"{self.path}: no store here; run `porchlamp collect` (or the demo) first")
        try:
            self.conn = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as err:
            text = str(err)
            if "lock" in text.lower():
                raise StoreError(
                    f"{self.path}: the store is in use by another Porchlamp process "
                    "(a collector or evaluation is running); wait for it to finish or stop it"
                ) from None
            raise StoreError(
                f"{self.path}: not a readable Porchlamp store ({text.splitlines()[0]}); "
                "move it aside and collect again, or restore it from a backup"
            ) from None
        except duckdb.Error as err:
            raise StoreError(f"{self.path}: cannot open the store: {str(err).splitlines()[0]}") from None
        self.read_only = read_only
        self._types: dict[str, dict[str, str]] = {}
        self._migrate()
        self._run(forges.HOST_MACRO)

    # -- lifecycle -------------------------------------------------------------------------

    def _one(self, sql: str, params: Sequence[Any] | None = None) -> tuple[Any, ...] | None:
        """The first row of a query, draining the rest (a half-read result blocks the connection)."""
        rows = self.conn.execute(sql, list(params) if params is not None else None).fetchall()
        return rows[0] if rows else None

    def _run(self, sql: str, params: Sequence[Any] | None = None) -> None:
        """Execute a statement and drain its result (DuckDB refuses new work while one is pending)."""
        self.conn.execute(sql, list(params) if params is not None else None).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything inside commits together or not at all."""
        self._run("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self._run("ROLLBACK")
            raise
        killpoints.reach("before_commit")
        self._run("COMMIT")

    @contextmanager
    def small_budget(self, memory: str = SMALL_BUDGET) -> Iterator[None]:
        """DuckDB kept to `memory` for one streaming scan, sort or export, then back to its default.

        Its default is to cache up to 80% of the machine; a big scan or sort then grows with the
        snapshot. In a small budget it spills to its temporary directory instead. Nested uses keep
        the outer budget."""
        if self._budgeted:
            yield
            return
        self.conn.execute(f"SET memory_limit = '{memory}'")
        self._budgeted = True
        try:
            yield
        finally:
            self._budgeted = False
            self.conn.execute("RESET memory_limit")

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.conn.close()

    def schema_version(self) -> int:
        exists = self._one("SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'")
        if not exists or not exists[0]:
            return 0
        row = self._one("SELECT coalesce(max(version), 0) FROM schema_migrations")
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > LATEST_VERSION:
            raise StoreError(
                f"{self.path}: this store has schema version {version}, written by a newer Porchlamp; "
                f"this one knows up to version {LATEST_VERSION}. Upgrade Porchlamp to read it."
            )
        if version == LATEST_VERSION:
            return
        if self.read_only:
            raise StoreError(
                f"{self.path}: store schema version {version} is older than {LATEST_VERSION}; "
                "open it once without read-only (any collect or evaluate does) to upgrade it"
            )
        self._run(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, description VARCHAR, applied_at TIMESTAMP)"
        )
        for mig in MIGRATIONS:
            if mig.version <= version:
                continue
            # A new store's tables are made at once; an older one's rows may be copied, for minutes.
            if self._notice is not None and version > 0:
                self._notice(f"{self.path}: upgrading the store to schema version {mig.version} of {LATEST_VERSION} "
                             f"({mig.description}); on a large store this can take minutes, and stopping it loses "
                             "nothing (the next run starts this step again)")
            # Each migration and its record commit together: a crash leaves the store at the old version.
            # In a small budget: a migration that copies a table spills what it holds, whatever the store's size.
            with self.small_budget(), self.transaction():
                self._run(mig.sql)
                killpoints.reach("migration")
                self._run(
                    "INSERT INTO schema_migrations VALUES (?, ?, now()::TIMESTAMP)", [mig.version, mig.description]
                )

    # -- writing ---------------------------------------------------------------------------

    def upsert(self, records: Iterable[Any]) -> int:
        """Insert or replace records (models, any mix of tables); returns how many were written."""
        by_table: dict[str, list[Any]] = {}
        for rec in records:
            by_table.setdefault(TABLE_OF_MODEL[type(rec)], []).append(rec)
        total = 0
        for table, recs in by_table.items():
            cols = _columns(MODEL_OF_TABLE[table])
            keys = KEY_OF_TABLE[table]
            # Duplicate keys inside one batch would make DuckDB refuse the statement; keep the last.
            latest = {tuple(getattr(r, k) for k in keys): r for r in recs}
            data = {c: [_to_db(c, getattr(r, c)) for r in latest.values()] for c in cols}
            total += self.upsert_columns(table, data)
        return total

    def upsert_columns(self, table: str, data: dict[str, list[Any]]) -> int:
        """Insert or replace rows given column by column (each list one column, same length).

        Goes through an Arrow table: DuckDB ingests it in bulk, where row-by-row inserts crawl.
        """
        return self._insert_columns(table, data, replace=True)

    def _insert_columns(self, table: str, data: dict[str, list[Any]], replace: bool) -> int:
        """Rows given column by column into `table`, replacing those with the same key (`replace`), or
        only added: result tables have no key (a snapshot is deleted, then written whole)."""
        cols = list(data)
        n = len(data[cols[0]]) if cols else 0
        if n == 0:
            return 0
        types = self._column_types(table)
        arrow = pa.table({c: pa.array(data[c]) for c in cols})
        name = f"_upsert_{table}"
        self.conn.register(name, arrow)
        try:
            select = ", ".join(f"CAST({_q(c)} AS {types[c]})" for c in cols)
            marks = _CLEAR_MARKS if "m_version" in types else ("", "")
            keep = [c for c in _KEEP_KNOWN.get(table, ()) if c in cols]
            if replace and keep:
                keys = ", ".join(KEY_OF_TABLE[table])
                sets = ", ".join(f"{_q(c)} = coalesce(excluded.{_q(c)}, {table}.{_q(c)})" for c in keep)
                self._run(f"INSERT INTO {table} ({', '.join(_q(c) for c in cols)}) SELECT {select} FROM {name} "
                          f"ON CONFLICT ({keys}) DO UPDATE SET {sets}")
            else:
                self._run(f"INSERT {'OR REPLACE ' if replace else ''}INTO {table} ({', '.join(_q(c) for c in cols)}{marks[0]}) "
                          f"SELECT {select}{marks[1]} FROM {name}")
        finally:
            self.conn.unregister(name)
        return n

    def _column_types(self, table: str) -> dict[str, str]:
        if table not in self._types:
            self._types[table] = dict(
                self.conn.execute(
                    "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' "
                    "AND table_name = ? ORDER BY ordinal_position", [table]
                ).fetchall()
            )
        return self._types[table]

    def load_jsonl(self, table: str, path: str | Path) -> int:
        """Bulk upsert a (gzipped) JSON Lines file whose keys are the table's columns."""
        if table not in RAW_TABLES:
            raise StoreError(f"unknown table {table!r}")
        types = self._column_types(table)
        cols = [c for c in _columns(MODEL_OF_TABLE[table]) if c in types]  # an older schema may lack some
        spec = "{" + ", ".join(f"'{c}': '{types[c]}'" for c in cols) + "}"
        before = self.count(table)
        marks = _CLEAR_MARKS if "m_version" in types else ("", "")
        defaults = _LOAD_DEFAULTS.get(table, {})
        select = ", ".join(f"coalesce({c}, {defaults[c]})" if c in defaults else c for c in cols)
        self._run(
            f"INSERT OR REPLACE INTO {table} ({', '.join(cols)}{marks[0]}) "
            f"SELECT {select}{marks[1]} FROM read_json(?, format='newline_delimited', columns={spec}, "
            "timestampformat='%Y-%m-%dT%H:%M:%SZ')",
            [str(path)],
        )
        return self.count(table) - before

    def set_meta(self, key: str, value: str) -> None:
        self._run("INSERT OR REPLACE INTO store_meta VALUES (?, ?)", [key, value])

    def mark_collected(self, as_of: date) -> None:
        """Record a completed collection for `as_of`: the first such date and the latest."""
        if self.get_meta("first_collected_as_of") is None:
            self.set_meta("first_collected_as_of", as_of.isoformat())
        self.set_meta("collected_as_of", as_of.isoformat())

    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM store_meta WHERE key = ?", [key])
        return None if row is None else str(row[0])

    def merge_from(self, other: str | Path) -> dict[str, int]:
        """Fold the collected rows of another store (a shard collected elsewhere) into this one, in one
        transaction; a repository in both takes the other's rows. Evaluated snapshots are not merged:
        evaluate the merged store. Returns rows read per table, and `overlap` (repositories in both)."""
        src = Path(other)
        if not src.exists():
            raise StoreError(f"{src}: no store here to merge; give the path of a store `porchlamp collect` wrote")
        if src.resolve() == self.path.resolve():
            raise StoreError(f"{src}: cannot merge a store into itself")
        with Store(src, notice=self._notice) as probe:  # brings an older store up to this version's schema first
            theirs = {k: probe.get_meta(k) for k in ("collected_as_of", "first_collected_as_of", "full_collection_points")}
        ours = {k: self.get_meta(k) for k in theirs}
        if ours["collected_as_of"] and theirs["collected_as_of"] and ours["collected_as_of"] != theirs["collected_as_of"]:
            raise StoreError(
                f"{src} was collected for {theirs['collected_as_of']} and {self.path} for {ours['collected_as_of']}: "
                "shards merge only when collected for the same --as-of; collect the late one again for that date")
        self._run(f"ATTACH '{_sql_path(src)}' AS merge_src (READ_ONLY)")
        try:
            counts: dict[str, int] = {}
            row = self._one("SELECT count(*) FROM merge_src.repositories WHERE name_with_owner IN "
                            "(SELECT name_with_owner FROM repositories)")
            counts["overlap"] = int(row[0]) if row else 0
            with self.transaction():
                # Rows come with their text marks (`m_*`), made from their text.
                for table in (*(t for t in RAW_TABLES if t != "store_meta"), "collect_state", "repo_names"):
                    row = self._one(f"SELECT count(*) FROM merge_src.{table}")
                    counts[table] = int(row[0]) if row else 0
                    self._run(f"INSERT OR REPLACE INTO {table} BY NAME SELECT * FROM merge_src.{table}")
                if theirs["collected_as_of"]:
                    self.set_meta("collected_as_of", theirs["collected_as_of"])
                # The merged store reaches back only as far as every part does.
                firsts = [d for d in (ours["first_collected_as_of"], theirs["first_collected_as_of"]) if d]
                if firsts:
                    self.set_meta("first_collected_as_of", max(firsts))
                points = [int(p) for p in (ours["full_collection_points"], theirs["full_collection_points"]) if p]
                if points:
                    self.set_meta("full_collection_points", str(sum(points)))
        finally:
            self._run("DETACH merge_src")
        return counts

    # -- reading ---------------------------------------------------------------------------

    def count(self, table: str) -> int:
        row = self._one(f"SELECT count(*) FROM {table}")
        return int(row[0]) if row else 0

    def repo_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name_with_owner FROM repositories ORDER BY 1").fetchall()]

    def rows(self, table: str) -> list[tuple[Any, ...]]:
        """Every row of a table, all columns (a raw table's: its model's), in a stable order (for comparisons and exports)."""
        cols = ", ".join(_columns(MODEL_OF_TABLE[table])) if table in MODEL_OF_TABLE else "*"
        return self.conn.execute(f"SELECT {cols} FROM {table} ORDER BY {ORDER_OF_TABLE[table]}").fetchall()

    def records(self, table: str, repo: str | None = None) -> list[Any]:
        model = MODEL_OF_TABLE[table]
        cols = _columns(model)
        sql = f"SELECT {', '.join(cols)} FROM {table}"
        params: list[Any] = []
        if repo is not None:
            sql += f" WHERE {REPO_COLUMN[table]} = ?"
            params.append(repo)
        sql += f" ORDER BY {ORDER_OF_TABLE[table]}"
        make = stored_maker(model)
        return [make(row) for row in self.conn.execute(sql, params).fetchall()]

    def accounts(self, host: str = "github.com") -> dict[str, Account]:
        """The accounts of one host, by login."""
        return {a.login: a for a in self.records("accounts") if a.host == host}

    def iter_repo_data(self, repos: Sequence[str] | None = None) -> Iterator[RepoData]:
        """Every repository with its rows, in name order, streamed table by table (one pass each)."""
        wanted = set(repos) if repos is not None else None
        streams = {t: self._stream(t) for t in _REPO_TABLES}
        heads: dict[str, Any] = {t: next(s, None) for t, s in streams.items()}

        def take(table: str, name: str) -> list[Any]:
            out = []
            while heads[table] is not None and heads[table][0] < name:
                heads[table] = next(streams[table], None)
            while heads[table] is not None and heads[table][0] == name:
                out.append(heads[table][1])
                heads[table] = next(streams[table], None)
            return out

        for repo in self._stream("repositories"):
            name = repo[0]
            parts = {t: take(t, name) for t in _REPO_TABLES}
            if wanted is not None and name not in wanted:
                continue
            yield repo_data(repo[1], parts)

    def _stream(self, table: str) -> Iterator[tuple[str, Any]]:
        model = MODEL_OF_TABLE[table]
        cols = _columns(model)
        key = REPO_COLUMN[table]
        # A cursor of its own, so several tables can be streamed side by side.
        cur = self.conn.cursor()
        cur.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY {ORDER_OF_TABLE[table]}")
        idx = cols.index(key)
        make = stored_maker(model)
        while True:
            batch = cur.fetchmany(10000)
            if not batch:
                break
            for row in batch:
                yield row[idx], make(row)
        cur.close()

    # -- collection state ------------------------------------------------------------------

    def states(self, stage_prefix: str) -> dict[tuple[str, str], dict[str, Any]]:
        """Collection state rows whose stage starts with the prefix, keyed by (repo, stage)."""
        rows = self.query("SELECT repo, stage, as_of, status, cursor, detail FROM collect_state WHERE stage LIKE ?",
                          [stage_prefix.replace("%", "") + "%"])
        return {(r["repo"], r["stage"]): r for r in rows}

    def set_states(self, rows: Iterable[tuple[str, str, date, str, str | None, str | None]]) -> None:
        """Upsert (repo, stage, as_of, status, cursor, detail) rows; call inside the data's transaction."""
        data: dict[str, list[Any]] = {k: [] for k in ("repo", "stage", "as_of", "status", "cursor", "detail")}
        latest = {(row[0], row[1]): row for row in rows}  # one row per key, the last: DuckDB refuses duplicates
        for row in latest.values():
            for k, v in zip(data, row):
                data[k].append(v)
        self.upsert_columns("collect_state", data)

    def delete_states(self, repos: Sequence[str], stage: str) -> None:
        """Drop one stage's state rows of these repositories (a failure that healed)."""
        if repos:
            self._run("DELETE FROM collect_state WHERE stage = ? AND repo IN (SELECT unnest(?::VARCHAR[]))", [stage, list(repos)])

    def returning_authors(self, repos: Sequence[str], start: datetime, end: datetime) -> list[tuple[str, str, str | None, datetime]]:
        """(repo, login, account id, first act in [start, end)) for the people whose earlier contribution
        may count: authors whose PRs read CONTRIBUTOR, and, on a forge that reports no association,
        every author of a PR and of a comment or review, members with write access left out."""
        return [tuple(r) for r in self.conn.execute(  # type: ignore[misc]
            "WITH acts AS ("
            "  SELECT repo, author AS login, created_at AS at FROM pulls WHERE (author_association = 'CONTRIBUTOR' "
            "    OR author_association IS NULL) AND nullif(author, '') IS NOT NULL AND created_at >= ? AND created_at < ? "
            "  UNION ALL SELECT repo, actor, created_at FROM timeline WHERE kind IN ('comment', 'review') "
            "    AND actor_association IS NULL AND nullif(actor, '') IS NOT NULL AND created_at >= ? AND created_at < ?)"
            "SELECT x.repo, x.login, any_value(a.node_id), min(x.at) FROM acts x "
            "LEFT JOIN accounts a ON a.login = x.login AND a.host = repo_host(x.repo) "
            "WHERE x.repo IN (SELECT unnest(?::VARCHAR[])) AND NOT EXISTS (SELECT 1 FROM members m WHERE m.repo = x.repo "
            "  AND lower(m.login) = lower(x.login) AND m.access_level >= 30) "
            "GROUP BY x.repo, x.login ORDER BY x.repo, x.login",
            [start, end, start, end, list(repos)]).fetchall()]

    def actors(self, repos: Sequence[str], start: datetime, end: datetime) -> dict[str, dict[str, str | None]]:
        """Who acts on each repository's PRs of the window (authors, mergers, everyone on a timeline),
        with the account id the store knows for each."""
        out: dict[str, dict[str, str | None]] = {}
        for repo, login, uid in self.conn.execute(
                "WITH acts AS (SELECT repo, author AS login FROM pulls WHERE created_at >= ? AND created_at < ? "
                "  UNION SELECT repo, merged_by FROM pulls WHERE created_at >= ? AND created_at < ? "
                "  UNION SELECT t.repo, t.actor FROM timeline t JOIN pulls p ON p.repo = t.repo AND p.number = t.number "
                "    WHERE p.created_at >= ? AND p.created_at < ?) "
                "SELECT x.repo, x.login, a.node_id FROM acts x LEFT JOIN accounts a ON a.login = x.login AND a.host = repo_host(x.repo) "
                "WHERE nullif(x.login, '') IS NOT NULL AND x.repo IN (SELECT unnest(?::VARCHAR[])) ORDER BY 1, 2",
                [start, end, start, end, start, end, list(repos)]).fetchall():
            out.setdefault(repo, {})[login] = uid
        return out

    def accounts_to_read(self, host: str, repos: Sequence[str], start: datetime, end: datetime) -> list[tuple[str, str]]:
        """(login, account id) of the accounts of `host` never read (no type known) that a verdict turns on:
        the authors of the window's PRs (a bot's PR or a brand-new account's is no outside PR), and whoever
        would count as a maintainer, a bot never being one: members with write access who act, and those
        who merge, close, label, assign or ask for reviews on someone else's PR."""
        return [(r[0], r[1]) for r in self.conn.execute(
            "WITH people AS ("
            "  SELECT p.repo, p.author AS login FROM pulls p WHERE p.created_at >= ? AND p.created_at < ? "
            "  UNION SELECT t.repo, t.actor FROM timeline t JOIN members m ON m.repo = t.repo AND lower(m.login) = lower(t.actor) "
            "    AND m.access_level >= 30 WHERE t.created_at >= ? AND t.created_at < ? "
            "  UNION SELECT t.repo, t.actor FROM timeline t JOIN pulls p ON p.repo = t.repo AND p.number = t.number "
            "    WHERE t.kind IN ('merged', 'closed', 'labeled', 'assigned', 'review_requested') "
            "    AND lower(t.actor) <> lower(coalesce(p.author, '')) AND t.created_at >= ? AND t.created_at < ?) "
            "SELECT DISTINCT a.login, a.node_id FROM people x JOIN accounts a ON a.host = ? AND a.login = x.login "
            "WHERE a.type IS NULL AND a.node_id IS NOT NULL AND x.repo IN (SELECT unnest(?::VARCHAR[])) ORDER BY 1",
            [start, end, start, end, start, end, host, list(repos)]).fetchall()]

    def gitlab_as_shown(self, hosts: Sequence[str]) -> None:
        """Rows loaded straight from a world, for projects on GitLab `hosts`, as GitLab shows them: no
        association, and each person an account of the host (inside the caller's transaction)."""
        for host in hosts:
            self._run("UPDATE pulls SET author_association = NULL WHERE repo_host(repo) = ?", [host])
            self._run("UPDATE timeline SET actor_association = NULL WHERE repo_host(repo) = ?", [host])
            self._run("INSERT INTO accounts SELECT login, type, created_at, node_id, ? FROM accounts WHERE host = 'github.com' "
                      "ON CONFLICT DO NOTHING", [host])

    def replace_members(self, repo: str, members: Sequence[Member]) -> None:
        """A repository's members as the forge lists them now (inside the caller's transaction)."""
        self._run("DELETE FROM members WHERE repo = ?", [repo])
        self.upsert(members)

    def apply_account_types(self, host: str) -> None:
        """What the accounts of `host` turned out to be, written onto the rows that name them: a bot's
        PRs, comments and acts carry its type as GitHub's carry `Bot` (inside the caller's transaction)."""
        bots = "(SELECT login FROM accounts WHERE host = ? AND type = 'Bot')"
        self._run(f"UPDATE pulls SET author_type = 'Bot' WHERE repo_host(repo) = ? AND author IN {bots} "
                  "AND author_type IS DISTINCT FROM 'Bot'", [host, host])
        self._run(f"UPDATE timeline SET actor_type = 'Bot' WHERE repo_host(repo) = ? AND actor IN {bots} "
                  "AND actor_type IS DISTINCT FROM 'Bot'", [host, host])

    def collection_errors(self) -> list[dict[str, Any]]:
        """Repositories whose collection failed at a step, with the step and the error (latest run)."""
        out = []
        for r in self.query("SELECT repo, as_of, detail FROM collect_state WHERE stage = 'error' ORDER BY repo"):
            d = json.loads(r["detail"] or "{}")
            out.append({"repo": r["repo"], "as_of": r["as_of"], "step": d.get("step"), "error": d.get("error")})
        return out

    def set_repo_name(self, requested: str, actual: str) -> None:
        self._run("INSERT OR REPLACE INTO repo_names VALUES (?, ?)", [requested.lower(), actual])

    def repo_names_map(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self.conn.execute("SELECT requested, name_with_owner FROM repo_names").fetchall()}

    def delete_repo_rows(self, table: str, repos: Sequence[str]) -> None:
        """Drop repositories' rows of one table (before writing a fresh full listing of them)."""
        if table not in ("issues", "dependents", "commits"):
            raise StoreError(f"refusing to delete rows of {table!r}")
        repos = list(repos)
        if repos:  # one statement per batch: each is a scan of the table
            self._run(f"DELETE FROM {table} WHERE {REPO_COLUMN[table]} IN (SELECT unnest(?::VARCHAR[]))", [repos])

    def set_has_ci(self, repo: str, checks: dict[int, bool]) -> None:
        for number, state in checks.items():
            self._run("UPDATE pulls SET has_ci = ? WHERE repo = ? AND number = ?", [state, repo, number])

    def merged_without_ci(self, repo: str, since: datetime, limit: int) -> list[tuple[int, str]]:
        """(number, node id) among the latest `limit` merged PRs whose CI status is not known yet."""
        rows = self.conn.execute(
            "SELECT number, node_id, has_ci FROM pulls WHERE repo = ? AND merged_at IS NOT NULL AND created_at >= ? "
            "ORDER BY merged_at DESC, number DESC LIMIT ?", [repo, since, max(0, limit)]).fetchall()
        return [(r[0], r[1]) for r in rows if r[2] is None]

    def known_ci(self) -> dict[tuple[str, int], bool]:
        """CI status already learnt, by (repo, PR number), all at once: one scan, not one per repository."""
        return {(r[0], r[1]): r[2] for r in self.conn.execute(
            "SELECT repo, number, has_ci FROM pulls WHERE has_ci IS NOT NULL").fetchall()}

    # -- evaluated snapshots ---------------------------------------------------------------

    def write_snapshot(self, as_of: date, meta: dict[str, Any], tables: Mapping[str, Columns | Callable[[], Columns]],
                       files: dict[str, Sequence[Path]] | None = None, prs: str | None = None) -> None:
        """Replace one snapshot's results (all tables at once, in one transaction): rows given as
        columns in `tables`, or as Parquet files with the table's columns in `files`; `prs` names a
        relation on this connection holding the PR verdicts (`pr_results`' columns). A PR verdict the
        latest earlier snapshot holds unchanged is listed again, not stored twice (`STORED_ONCE`).
        The files and `prs` are stored first; a table of `tables` given as a function is called only
        then, so the caller may still be making it in another thread while DuckDB stores the rest."""
        with self.transaction():
            self._delete_snapshots([as_of])
            self._run(
                "INSERT INTO snapshots (as_of, settings, porchlamp_version, repos) VALUES (?, ?, ?, ?)",
                [as_of, meta["settings"], meta["porchlamp_version"], meta["repos"]],
            )
            for table, paths in (files or {}).items():
                self._result_table(table)
                if paths:
                    present = set().union(*(pq.read_schema(p).names for p in paths))
                    listed = ", ".join(f"'{_sql_path(Path(p))}'" for p in paths)
                    source = f"read_parquet([{listed}], union_by_name = true)"
                    if table in STORED_ONCE:
                        self._add_verdicts(table, as_of, source, present)
                        continue
                    types = self._column_types(table)
                    cols = [c for c in types if c in present]
                    self._run(f"INSERT INTO {table} ({', '.join(_q(c) for c in cols)}) SELECT "
                              f"{', '.join(f'CAST({_q(c)} AS {types[c]})' for c in cols)} FROM {source}")
            if prs is not None:
                present = [r[0] for r in self.conn.execute(f"DESCRIBE {prs}").fetchall()]
                self._add_verdicts("pr_results", as_of, prs, present)
            for table, given in tables.items():
                data = given() if callable(given) else given
                self._result_table(table)
                if table not in STORED_ONCE:
                    self._insert_columns(table, data, replace=False)
                elif data and len(next(iter(data.values()))):
                    self.conn.register("_verdict_columns", pa.table({c: pa.array(v) for c, v in data.items()}))
                    try:
                        self._add_verdicts(table, as_of, "_verdict_columns", list(data))
                    finally:
                        self.conn.unregister("_verdict_columns")

    def _last_id(self, verdicts: str) -> int:
        row = self._one(f"SELECT coalesce(max(id), 0) FROM {verdicts}")
        return int(row[0]) if row else 0

    def _add_verdicts(self, table: str, as_of: date, source: str, present: Collection[str]) -> None:
        """The rows of `source` (a table or a table function, with the columns `present` of `table`, a
        table stored once) listed in snapshot `as_of`: a row equal to the verdict the latest earlier
        snapshot lists for the same repository (and PR) is listed again, the others are stored. A
        day whose activity touched few PRs stores few new verdicts."""
        verdicts, listing = STORED_ONCE[table]
        types = self._column_types(verdicts)
        cols = [c for c in types if c in present and c != "id" and c != "as_of"]
        row = self._one("SELECT max(as_of) FROM snapshots WHERE as_of < ?", [as_of])
        was = row[0] if row else None
        casts = ", ".join(f"CAST({_q(c)} AS {types[c]}) AS {_q(c)}" for c in cols)
        if was is None:
            same = "NULL::BIGINT AS same"
            earlier = ""
        else:
            same = "e.id AS same"
            match = " AND ".join(f"e.{_q(c)} IS NOT DISTINCT FROM n.{_q(c)}" for c in cols)
            earlier = (f" LEFT JOIN (SELECT v.* FROM {listing} l JOIN {verdicts} v ON v.id = l.id WHERE l.as_of = ?) e ON {match}")
        base = self._last_id(verdicts)
        # Staged even with no earlier snapshot: numbering rows straight from the relation as they are
        # inserted took twice as long (2.1 s against 1.1 s for 980,000 PRs).
        self._run(f"CREATE OR REPLACE TEMP TABLE _staged AS SELECT n.*, {same} FROM (SELECT {casts} FROM {source}) n{earlier}",
                  [was] if was is not None else None)
        try:
            self._run(f"INSERT INTO {verdicts} (id, {', '.join(_q(c) for c in cols)}) SELECT ? + row_number() OVER (), "
                      f"{', '.join(_q(c) for c in cols)} FROM _staged WHERE same IS NULL", [base])
            self._run(f"INSERT INTO {listing} SELECT CAST(? AS DATE), id FROM {verdicts} WHERE id > ?", [as_of, base])
            self._run(f"INSERT INTO {listing} SELECT DISTINCT CAST(? AS DATE), same FROM _staged WHERE same IS NOT NULL", [as_of])
        finally:
            self._run("DROP TABLE IF EXISTS _staged")

    def _delete_snapshots(self, dates: Sequence[date]) -> int:
        """Every result row of these snapshots, and their record, deleted (inside the caller's
        transaction); a verdict (a repository's or a PR's) no snapshot lists any more goes too.
        Returns the result rows."""
        deleted = 0
        for table in (*SNAPSHOT_TABLES, "snapshots"):
            listed = 0
            for d in dates:
                row = self._one(f"DELETE FROM {STORED_ONCE[table][1] if table in STORED_ONCE else table} WHERE as_of = ?", [d])
                n = int(row[0]) if row else 0
                deleted += n if table != "snapshots" else 0
                listed += n
            if listed and table in STORED_ONCE:
                verdicts, listing = STORED_ONCE[table]
                self._run(f"DELETE FROM {verdicts} v WHERE NOT EXISTS (SELECT 1 FROM {listing} s WHERE s.id = v.id)")
        return deleted

    def delete_snapshots(self, dates: Sequence[date]) -> int:
        """Delete these snapshots' results in one transaction (`_delete_snapshots`); returns the rows."""
        with self.transaction():
            return self._delete_snapshots(dates)

    @staticmethod
    def _result_table(table: str) -> None:
        if table not in SNAPSHOT_TABLES:
            raise StoreError(f"unknown result table {table!r}")

    def replace_profiles(self, as_of: date, data: dict[str, list[Any]]) -> None:
        """Replace one snapshot's profile scores (a re-rank) in one transaction."""
        with self.transaction():
            self._run("DELETE FROM profile_results WHERE as_of = ?", [as_of])
            self._insert_columns("profile_results", data, replace=False)

    def snapshot_dates(self) -> list[date]:
        return [r[0] for r in self.conn.execute("SELECT as_of FROM snapshots ORDER BY as_of").fetchall()]

    def latest_snapshot(self) -> date | None:
        dates = self.snapshot_dates()
        return dates[-1] if dates else None

    def snapshot_meta(self, as_of: date) -> dict[str, Any] | None:
        row = self._one("SELECT settings, porchlamp_version, repos FROM snapshots WHERE as_of = ?", [as_of])
        return None if row is None else {"settings": row[0], "porchlamp_version": row[1], "repos": row[2]}

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Rows of a read-only query as dicts (for report and publish)."""
        cur = self.conn.execute(sql, list(params))
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]

    def values(self, sql: str, params: Sequence[Any] = (), batch: int = 100_000) -> Iterator[Any]:
        """A read-only query's one column, streamed: millions of values, never a list of them (as dicts,
        3.1 million PRs' hours held 0.86 GB)."""
        cur = self.conn.cursor()  # its own cursor: other queries may run while this one is read
        try:
            cur.execute(sql, list(params))
            while rows := cur.fetchmany(batch):
                for row in rows:
                    yield row[0]
        finally:
            cur.close()

    # -- export ----------------------------------------------------------------------------

    def export_parquet(self, out_dir: str | Path, tables: Sequence[str] | None = None) -> list[Path]:
        """Write every table (or those named) as `<table>.parquet` under out_dir, rows in stable order."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for table in tables or self.all_tables():
            target = out / f"{table}.parquet"
            order = ORDER_OF_TABLE.get(table)
            select = f"SELECT * FROM {table}" + (f" ORDER BY {order}" if order else "")
            self._run(f"COPY ({select}) TO '{_sql_path(target)}' (FORMAT parquet)")
            written.append(target)
        return written

    def export_query(self, sql: str, params: Sequence[Any], target: str | Path, row_group_rows: int | None = None) -> Path:
        """A read-only query's rows written as one Parquet file, streamed in a small budget: an ORDER BY
        over a million rows spills rather than holding them (0.5 GB more at 11,000 repositories).
        `row_group_rows`: smaller row groups for a reader that must not hold large ones."""
        out = Path(target)
        out.parent.mkdir(parents=True, exist_ok=True)
        groups = "" if row_group_rows is None else f", ROW_GROUP_SIZE {int(row_group_rows)}"
        with self.small_budget():
            self.conn.execute(f"COPY ({sql}) TO '{_sql_path(out)}' (FORMAT parquet{groups})", list(params))
        return out

    def columns(self, table: str) -> list[str]:
        """A table's columns in their order."""
        return list(self._column_types(table))

    def all_tables(self) -> list[str]:
        """Every table and view by name; `pr_results` and `results` stand for the two tables each reads."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1"
            ).fetchall()
            if r[0] not in {t for pair in STORED_ONCE.values() for t in pair}
        ]


# The tables whose rows belong to one repository, as a RepoData gathers them.
_REPO_TABLES = ("community", "pulls", "timeline", "commits", "issues", "dependents")


def repo_data(repo: Repository, parts: Mapping[str, Sequence[Any]]) -> RepoData:
    """One repository's RepoData from its rows by table, in the store's order (a table not given is empty)."""
    timeline: dict[int, list[TimelineItem]] = {}
    for item in parts.get("timeline", ()):
        timeline.setdefault(item.number, []).append(item)
    community, dependents = parts.get("community"), parts.get("dependents")
    return RepoData(
        repo=repo,
        community=community[0] if community else CommunityFiles(repo=repo.name_with_owner),
        pulls=tuple(parts.get("pulls", ())),
        timeline={k: tuple(v) for k, v in timeline.items()},
        commits=tuple(parts.get("commits", ())),
        issues=tuple(parts.get("issues", ())),
        dependents=dependents[0] if dependents else None,
    )


def _q(ident: str) -> str:
    return '"' + ident.replace('"', '""') + '"'


def _sql_path(p: Path) -> str:
    return str(p).replace("'", "''")


def parse_ts(text: str | None) -> datetime | None:
    """GitHub's ISO-8601 timestamps ('2026-05-01T12:00:00Z') as naive UTC."""
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
