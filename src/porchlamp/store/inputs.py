"""What each repository's verdict is computed from, as one digest of its rows per repository: equal
digests on two days mean evaluation read the same rows, so an earlier verdict may be carried, and
the repository's template sightings, kept under that digest, need not be taken again.

The digest covers every column evaluation reads of the repository's rows in every table, and the
accounts that opened its PRs (all evaluation asks of accounts), summed over rows so order is moot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from porchlamp.store.db import _REPO_TABLES, MODEL_OF_TABLE, REPO_COLUMN, Store, _columns


def input_digests(store: Store) -> dict[str, str]:
    """Each stored repository's digest of its rows (`rows:sum of row hashes`), by name."""
    parts = []
    for table in ("repositories", *_REPO_TABLES):
        cols = ", ".join(f"t.{c}" for c in _columns(MODEL_OF_TABLE[table]))
        parts.append(f"SELECT t.{REPO_COLUMN[table]} AS repo, hash('{table}', {cols}) AS h FROM {table} t")
    cols = ", ".join(f"a.{c}" for c in _columns(MODEL_OF_TABLE["accounts"]))
    parts.append(f"SELECT x.repo, hash('accounts', {cols}) AS h FROM accounts a "
                 "JOIN (SELECT DISTINCT repo, author FROM pulls) x ON a.login = x.author")
    sql = (f"SELECT repo, count(*)::VARCHAR || ':' || sum(h::HUGEINT)::VARCHAR AS digest "
           f"FROM ({' UNION ALL '.join(parts)}) GROUP BY repo")
    # A streaming aggregate over every row: kept in a small budget like the shard export.
    with store.small_budget():
        return dict(store.conn.execute(sql).fetchall())


def sighted(store: Store, digests: Mapping[str, str], settings_key: str) -> set[str]:
    """The repositories whose kept template sightings were taken from the rows they hold now
    (same digest) under the same settings."""
    return {r for r, inputs, key in store.conn.execute("SELECT repo, inputs, settings FROM template_sighted").fetchall()
            if key == settings_key and digests.get(r) == inputs}


def load_sightings(store: Store, repos: Sequence[str]) -> tuple[pa.Table, pa.Table]:
    """The kept sightings of `repos`: (fingerprints, comments) tables."""
    store.conn.register("_sighted", pa.table({"repo": pa.array(list(repos), pa.string())}))
    try:
        fps = store.conn.sql("SELECT repo, fp, number, fast, actor FROM template_fingerprints "
                             "WHERE repo IN (SELECT repo FROM _sighted)").to_arrow_table()
        com = store.conn.sql("SELECT repo, login, n FROM template_comments "
                             "WHERE repo IN (SELECT repo FROM _sighted)").to_arrow_table()
    finally:
        store.conn.unregister("_sighted")
    return fps, com


def keep_sightings(store: Store, repos: Sequence[str], fingerprints: pa.Table, comments: pa.Table,
                   digests: Mapping[str, str], settings_key: str) -> None:
    """Replace the kept sightings of `repos` (taken from the rows whose digests are given)."""
    if not repos:
        return
    names = pa.table({"repo": pa.array(list(repos), pa.string()),
                      "inputs": pa.array([digests.get(r) for r in repos], pa.string()),
                      "settings": pa.array([settings_key] * len(repos), pa.string())})
    with store.transaction():
        store.conn.register("_sighted", names)
        store.conn.register("_fps", fingerprints)
        store.conn.register("_comments", comments)
        try:
            for table in ("template_sighted", "template_fingerprints", "template_comments"):
                store.conn.execute(f"DELETE FROM {table} WHERE repo IN (SELECT repo FROM _sighted)")
            store.conn.execute("INSERT INTO template_sighted SELECT repo, inputs, settings FROM _sighted")
            store.conn.execute("INSERT INTO template_fingerprints SELECT repo, fp, number, fast, actor FROM _fps")
            store.conn.execute("INSERT INTO template_comments SELECT repo, login, n FROM _comments")
        finally:
            for name in ("_sighted", "_fps", "_comments"):
                store.conn.unregister(name)
