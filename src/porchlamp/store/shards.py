"""The collected snapshot as Parquet files by repository shard: planned and written from the
store, and opened again as the same tables on any DuckDB connection (`open_shard`), so a worker
elsewhere runs the same relations over its shard as the store runs over everything.

A shard directory needs no database: `<dir>/<table>/shard=<k>/*.parquet` for every table the
relations read: the repository tables, the text marks, the accounts that opened the shard's PRs,
and the collection states that say where a repository's rows came from.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import duckdb
import pyarrow as pa

from porchlamp.store.db import _REPO_TABLES, MODEL_OF_TABLE, REPO_COLUMN, Store, _columns, _sql_path

# Each shard table and the query (over `t`, joined to `_shard_of` as `s`) that selects its rows.
_SHARD_TABLES: dict[str, str] = {
    **{table: f"SELECT t.*, s.shard FROM {table} t JOIN _shard_of s ON t.{REPO_COLUMN[table]} = s.repo"
       for table in ("repositories", *_REPO_TABLES, "members")},
    # Only the accounts a shard's PRs were opened by: all evaluation asks of accounts.
    "accounts": f"SELECT {', '.join(f't.{c}' for c in _columns(MODEL_OF_TABLE['accounts']))}, x.shard FROM accounts t "
                "JOIN (SELECT DISTINCT p.author, repo_host(p.repo) AS host, s.shard FROM pulls p JOIN _shard_of s ON p.repo = s.repo) x "
                "ON t.login = x.author AND t.host = x.host",
    # Only the states that say where a repository's rows came from: an import, and a later collection.
    "collect_state": "SELECT t.*, s.shard FROM collect_state t JOIN _shard_of s ON t.repo = s.repo "
                     "WHERE t.stage IN ('import', 'meta')",
}
_BY_SHARD = "(FORMAT parquet, PARTITION_BY (shard), OVERWRITE_OR_IGNORE, WRITE_PARTITION_COLUMNS false)"
SHARD_BUDGET = "1GB"  # DuckDB's memory in a worker judging one shard (a few hundred thousand rows)


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


def export_shards(store: Store, out_dir: str | Path, shards: Sequence[Sequence[str]]) -> Path:
    """Write every table of `_SHARD_TABLES` as Parquet partitioned by shard under `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = [r for s in shards for r in s]
    store.conn.register("_shard_of", pa.table({"repo": names, "shard": [k for k, s in enumerate(shards) for _ in s]}))
    try:
        with store.small_budget():
            for table, select in _SHARD_TABLES.items():
                store.conn.execute(f"COPY ({select}) TO '{_sql_path(out / table)}' {_BY_SHARD}")
    finally:
        store.conn.unregister("_shard_of")
    return out


@lru_cache(maxsize=1)
def _stored_columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each shard table's columns and types, as a new store has them."""
    with Store(":memory:") as store:
        rows = store.conn.execute("SELECT table_name, column_name, data_type FROM information_schema.columns "
                                  "ORDER BY table_name, ordinal_position").fetchall()
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, kind in rows:
        out.setdefault(table, []).append((column, kind))
    return {t: tuple(cs) for t, cs in out.items()}


@contextmanager
def open_shard(shard_dir: str | Path, shard: int) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB connection on which shard `shard`'s files are the store's tables of the same
    names (an empty one where the shard has no rows)."""
    conn = duckdb.connect(config={"memory_limit": SHARD_BUDGET})
    try:
        for table in _SHARD_TABLES:
            files = sorted((Path(shard_dir) / table / f"shard={shard}").glob("*.parquet"))
            if files:
                listed = ", ".join(f"'{_sql_path(p)}'" for p in files)
                conn.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}], hive_partitioning = false)")
            else:
                cols = ", ".join(f'"{c}" {t}' for c, t in _stored_columns()[table])
                conn.execute(f"CREATE TABLE {table} ({cols})")
        yield conn
    finally:
        conn.close()
