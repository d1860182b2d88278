"""The snapshot as Parquet shards: planned contiguous and complete, and opened again as the store's
own tables, row for row."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from porchlamp.store import Store
from porchlamp.store.shards import _SHARD_TABLES, export_shards, open_shard, plan_shards


def test_shards_cover_every_repository_once_in_order(store300: Path) -> None:
    with Store(store300, read_only=True) as s:
        names = s.repo_names()
        shards = plan_shards(s, names, rows_per_shard=5_000)
        rows = {r["repo"]: r["n"] for r in s.query(
            "SELECT repo, sum(n) AS n FROM (SELECT repo, count(*) AS n FROM pulls GROUP BY repo "
            "UNION ALL SELECT repo, count(*) AS n FROM timeline GROUP BY repo) GROUP BY repo")}
    assert [r for sh in shards for r in sh] == sorted(names)
    total = sum(1 + rows.get(r, 0) for r in names)
    most = -(-total // 5_000)  # a shard holds its share of rows; whole repositories make a few hold more
    assert most - 6 <= len(shards) <= most
    # Balanced by rows, not repositories: a shard closes once it holds its share (a repository is never split).
    share = total / len(shards)
    assert all(sum(1 + rows.get(r, 0) for r in sh[:-1]) < share for sh in shards)
    assert len({len(sh) for sh in shards}) > 3  # so shards hold different numbers of repositories


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.integers(1, 400_000), least=st.integers(1, 40), take=st.integers(0, 300))
def test_plan_is_contiguous_and_never_empty(store300: Path, rows: int, least: int, take: int) -> None:
    with Store(store300, read_only=True) as s:
        names = s.repo_names()[:take]
        shards = plan_shards(s, names, rows_per_shard=rows, min_shards=least)
    assert [r for sh in shards for r in sh] == sorted(names)
    assert all(shards) or names == []
    assert len(shards) <= max(1, len(names))
    if len(names) >= least:
        assert len(shards) >= least


def test_shards_open_as_the_stores_tables(store300: Path, tmp_path: Path) -> None:
    """Each table's rows over all shards are the store's (the accounts: those the shard's PRs were
    opened by), and a shard's tables have the store's columns, text marks included."""
    with Store(store300, read_only=True) as s:
        shards = plan_shards(s, s.repo_names(), rows_per_shard=20_000, min_shards=3)
        assert len(shards) >= 3
        export_shards(s, tmp_path, shards)
        stored = {t: sorted(s.conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in _SHARD_TABLES if t != "accounts"}
        stored["accounts"] = sorted(s.conn.execute("SELECT * FROM accounts WHERE login IN (SELECT author FROM pulls)").fetchall(), key=repr)
        columns = {t: [c for c in s.columns(t)] for t in _SHARD_TABLES}
    read: dict[str, list] = {t: [] for t in _SHARD_TABLES}  # type: ignore[type-arg]
    for k in range(len(shards)):
        with open_shard(tmp_path, k) as conn:
            for t in _SHARD_TABLES:
                assert [r[0] for r in conn.execute(f"DESCRIBE {t}").fetchall()] == columns[t], t
                read[t] += conn.execute(f"SELECT * FROM {t}").fetchall()
    assert {t: sorted(set(rows), key=repr) if t == "accounts" else sorted(rows, key=repr) for t, rows in read.items()} == stored


def test_a_shard_without_rows_of_a_table_has_it_empty(store300: Path, tmp_path: Path) -> None:
    with Store(store300, read_only=True) as s:
        name = s.query("SELECT name_with_owner FROM repositories WHERE name_with_owner NOT IN (SELECT repo FROM dependents) LIMIT 1")[0]
        export_shards(s, tmp_path, [[name["name_with_owner"]]])
    with open_shard(tmp_path, 0) as conn:
        assert conn.execute("SELECT count(*) FROM dependents").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM repositories").fetchone() == (1,)
