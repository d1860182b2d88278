"""What each repository's verdict is computed from, as one digest of its rows per repository: equal
digests on two days mean evaluation read the same rows, so an earlier verdict may be carried.

The digest covers every column evaluation reads of the repository's rows in every table, and the
accounts that opened its PRs (all evaluation asks of accounts), summed over rows so order is moot.
"""

from __future__ import annotations

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
    store.conn.execute("SET memory_limit = '512MB'")
    try:
        return dict(store.conn.execute(sql).fetchall())
    finally:
        store.conn.execute("RESET memory_limit")
