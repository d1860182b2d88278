import os
import subprocess
import sys
from datetime import date, datetime, timedelta
from pathlib import Path
from unittest.mock import patch

import duckdb
import pytest

from porchlamp.models import PullRequest, Repository, TimelineItem
from porchlamp.sample import load_world
from porchlamp.store import LATEST_VERSION, RAW_TABLES, Store, StoreError
from porchlamp.store.schema import MIGRATIONS, RESULT_TABLES, STORED_ONCE, Migration


def _pr(number: int = 1, title: str = "Fix") -> PullRequest:
    return PullRequest(repo="o/r", number=number, node_id=f"PR_{number}", title=title, author="a", author_type="User",
                       author_association="NONE", created_at=datetime(2026, 5, 1, 12))


def test_migrations_are_recorded(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as s:
        assert s.schema_version() == LATEST_VERSION
        versions = [r[0] for r in s.conn.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()]
        assert versions == list(range(1, LATEST_VERSION + 1))
    with Store(tmp_path / "s.duckdb") as s:  # reopening applies nothing twice
        assert s.count("schema_migrations") == LATEST_VERSION


def test_upsert_is_idempotent(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as s:
        s.upsert([_pr(1), _pr(2)])
        s.upsert([_pr(1), _pr(2)])
        assert s.count("pulls") == 2
        s.upsert([_pr(1, "Fix, retitled"), _pr(1, "Fix, retitled twice")])  # duplicates in one batch: last wins
        assert s.count("pulls") == 2
        assert s.records("pulls", "o/r")[0].title == "Fix, retitled twice"


def test_records_round_trip_lists_and_structs(tmp_path: Path) -> None:
    repo = Repository("o/r", languages=(("Python", 1200), ("C", 30)), topics=("cli", "kernel"), root_files=("go.mod",))
    item = TimelineItem("IC_1", "o/r", 1, "comment", datetime(2026, 5, 2), "m", "User", "MEMBER", "hi")
    with Store(tmp_path / "s.duckdb") as s:
        s.upsert([repo, item, _pr()])
        assert s.records("repositories") == [repo]
        assert s.records("timeline") == [item]
        data = next(s.iter_repo_data())
        assert data.repo == repo and data.timeline == {1: (item,)} and data.pulls == (_pr(),)


def test_world_store_parquet_round_trip(world300: Path, tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as s:
        counts = load_world(world300, s)
        assert counts["pulls"] > 5000 and counts["timeline"] > 5000
        assert load_world(world300, s) == {t: 0 for t in RAW_TABLES}  # loading twice adds nothing
        files = s.export_parquet(tmp_path / "parquet")
        assert {f.stem for f in files} >= set(RAW_TABLES)
        for table in RAW_TABLES:
            rows = s.rows(table)
            cols = ", ".join(d[0] for d in s.conn.execute(f"SELECT * FROM {table} LIMIT 0").description)
            from_parquet = duckdb.connect().execute(f"SELECT {cols} FROM '{tmp_path / 'parquet' / (table + '.parquet')}'").fetchall()
            assert len(from_parquet) == len(rows) == s.count(table)
            assert sorted(map(repr, from_parquet)) == sorted(map(repr, s.conn.execute(f"SELECT {cols} FROM {table}").fetchall()))


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db) as s:
        s.conn.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', now()::TIMESTAMP)")
    with pytest.raises(StoreError, match="schema version 999.*newer Porchlamp"):
        Store(db)


def test_corrupt_file_is_refused_clearly(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    db.write_bytes(os.urandom(4096))
    with pytest.raises(StoreError, match="not a readable Porchlamp store"):
        Store(db)
    assert db.stat().st_size == 4096  # left as it was, for the operator to inspect


def test_second_writer_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db):
        code = (
            "import sys\nfrom porchlamp.store import Store, StoreError\n"
            f"try:\n    Store({str(db)!r})\nexcept StoreError as e:\n    print(e); sys.exit(3)\n"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert "in use by another Porchlamp process" in proc.stdout


def test_read_only_without_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store here"):
        Store(tmp_path / "missing.duckdb", read_only=True)


def test_replace_keeps_one_row_per_key(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as s:
        pr = _pr()
        s.upsert([pr])
        s.upsert([pr._replace(state="MERGED", merged_at=datetime(2026, 5, 3))])
        (got,) = s.records("pulls")
        assert got.state == "MERGED" and s.count("pulls") == 1


def test_small_budget_bounds_duckdb_then_gives_it_back(tmp_path: Path) -> None:
    """A whole-table sort or export runs in 512 MB (spilling past it), nested uses keep the outer
    budget, and afterwards DuckDB has its default again, even after an error inside."""
    def limit(s: Store) -> str:
        return str(s.conn.execute("SELECT current_setting('memory_limit')").fetchone()[0])

    with Store(tmp_path / "s.duckdb") as s:
        default = limit(s)
        with s.small_budget():
            assert limit(s) == "488.2 MiB" != default  # DuckDB's way of saying 512 MB
            with s.small_budget("64MB"):
                assert limit(s) == "488.2 MiB"
            assert limit(s) == "488.2 MiB"
        assert limit(s) == default
        with pytest.raises(ZeroDivisionError), s.small_budget():
            1 / 0
        assert limit(s) == default
        s.conn.execute("CREATE TABLE t AS SELECT range AS n, md5(range::VARCHAR) AS h FROM range(300000)")
        target = s.export_query("SELECT * FROM t ORDER BY h", [], tmp_path / "t.parquet")
        assert limit(s) == default
        assert duckdb.connect().execute(f"SELECT count(*), min(h) FROM '{target}'").fetchone() == \
            s.conn.execute("SELECT count(*), min(h) FROM t").fetchone()


def test_values_stream_one_column_beside_other_queries(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as s:
        s.conn.execute("CREATE TABLE n AS SELECT range AS i, CASE WHEN range % 7 = 0 THEN NULL ELSE range / 2 END AS h FROM range(2500)")
        stream = s.values("SELECT h FROM n ORDER BY i", batch=300)
        first = [next(stream) for _ in range(10)]
        assert s.query("SELECT count(*) AS c FROM n")[0]["c"] == 2500  # the store stays usable mid-stream
        rest = list(stream)
    assert first + rest == [None if i % 7 == 0 else i / 2 for i in range(2500)]


def _write_rows(s: Store, day: date, tables: dict[str, dict[str, list[object]]]) -> None:
    """A snapshot's rows written as a store of an older schema held them: straight into its tables."""
    s.conn.execute("INSERT INTO snapshots (as_of, settings, porchlamp_version, repos) VALUES (?, '{}', 'test', 2)", [day])
    for table, data in tables.items():
        s._insert_columns(table, data, replace=False)


def test_result_tables_lose_their_keys_and_keep_their_rows(tmp_path: Path) -> None:
    """A store evaluated before result tables lost their primary keys keeps every row and type, and
    writing the same snapshot again replaces it rather than adding to it."""
    path, day = tmp_path / "s.duckdb", date(2026, 10, 15)
    meta = {"settings": "{}", "porchlamp_version": "test", "repos": 2}
    tables = {"results": {"as_of": [day, day], "repo": ["o/a", "o/b"], "status": ["ranked", "stale"], "stars": [3, 4]},
              "pr_results": {"as_of": [day], "repo": ["o/a"], "number": [7], "created_at": [datetime(2026, 9, 1, 12)]}}
    def shape(s: Store) -> dict[str, object]:
        return {t: ([r[:2] for r in s.conn.execute(f"DESCRIBE {t}").fetchall()],
                    sorted(map(str, s.conn.execute(f"SELECT * FROM {t}").fetchall()))) for t in RESULT_TABLES}

    with patch("porchlamp.store.db.MIGRATIONS", MIGRATIONS[:7]), Store(path) as s:
        _write_rows(s, day, tables)
        keyed = s.conn.execute("SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' "
                               "AND table_name IN (SELECT unnest(?))", [list(RESULT_TABLES)]).fetchone()
        assert keyed == (4,)
        before = shape(s)
    heard: list[str] = []
    with patch("porchlamp.store.db.MIGRATIONS", MIGRATIONS[:8]), Store(path, notice=heard.append) as s:
        assert s.schema_version() == 8
        assert shape(s) == before
        assert s.conn.execute("SELECT count(*) FROM duckdb_constraints() WHERE table_name IN (SELECT unnest(?))",
                              [list(RESULT_TABLES)]).fetchone() == (0,)
    with Store(path, notice=heard.append) as s:
        assert s.schema_version() == LATEST_VERSION
        # PR verdicts stored before later columns came keep their rows, the new columns empty.
        assert s.query("SELECT number, reviews FROM pr_results") == [{"number": 7, "reviews": None}]
        upgraded = shape(s)
        s.write_snapshot(day, meta, tables)
        assert shape(s) == upgraded
    # The operator hears of the upgrade before it runs, once per step, and of nothing on the next open.
    assert len(heard) == LATEST_VERSION - 7 and f"schema version 8 of {LATEST_VERSION}" in heard[0]
    assert MIGRATIONS[7].description in heard[0] and str(path) in heard[0]
    with Store(path, notice=heard.append):
        pass
    assert len(heard) == LATEST_VERSION - 7


D1, D2 = date(2026, 10, 15), date(2026, 10, 16)


def _verdicts(day: date, prs: list[tuple[str, int]], title: str = "t") -> dict[str, list[object]]:
    """`pr_results` columns of a few PR verdicts, each (repo, number)."""
    return {"as_of": [day] * len(prs), "repo": [r for r, _ in prs], "number": [n for _, n in prs],
            "title": [f"{title} {n}" for _, n in prs], "created_at": [datetime(2026, 9, 1, 12)] * len(prs)}


def test_a_table_given_as_a_function_is_made_after_the_pr_verdicts_and_its_error_writes_nothing(tmp_path: Path) -> None:
    """Evaluation makes the ranks while DuckDB stores the PR verdicts: a table given as a function is
    asked for only once the PR verdicts are in, and if making it fails, the snapshot is not written."""
    meta = {"settings": "{}", "porchlamp_version": "test", "repos": 1}
    with Store(tmp_path / "s.duckdb") as s:
        s.conn.execute("CREATE TEMP TABLE day_prs AS SELECT * FROM (VALUES ('o/a', 1, 't 1')) v(repo, number, title)")
        asked: list[int] = []

        def ranks() -> dict[str, list[object]]:
            asked.append(s.conn.execute("SELECT count(*) FROM pr_verdicts").fetchone()[0])
            return {"as_of": [D1], "repo": ["o/a"], "profile": ["default"], "score": [71.5]}

        s.write_snapshot(D1, meta, {"profile_results": ranks}, prs="day_prs")
        assert asked == [1]
        assert s.query("SELECT repo, score FROM profile_results") == [{"repo": "o/a", "score": 71.5}]

        def broken() -> dict[str, list[object]]:
            raise RuntimeError("ranks failed")

        with pytest.raises(RuntimeError, match="ranks failed"):
            s.write_snapshot(D2, meta, {"profile_results": broken}, prs="day_prs")
        assert s.snapshot_dates() == [D1] and s.count("snapshot_prs") == 1


def test_a_verdict_unchanged_since_the_day_before_is_listed_again_not_copied(tmp_path: Path) -> None:
    """A snapshot whose PR verdict equals the one the latest earlier snapshot holds lists it; writing
    it again, or dropping a snapshot, forgets only the verdicts no snapshot lists any more."""
    meta = {"settings": "{}", "porchlamp_version": "test", "repos": 2}
    first = {"pr_results": _verdicts(D1, [("o/a", 1), ("o/a", 2), ("o/b", 3)])}
    with Store(tmp_path / "s.duckdb") as s:
        s.write_snapshot(D1, meta, first)
        s.write_snapshot(D1, meta, first)  # again: replaced, its first verdicts forgotten
        assert (s.count("pr_verdicts"), s.count("snapshot_prs")) == (3, 3)
        second = _verdicts(D2, [("o/a", 1), ("o/a", 2), ("o/b", 3)])
        second["title"][0] = "new 1"
        s.write_snapshot(D2, meta, {"pr_results": second})
        day2 = s.query("SELECT repo, number, title FROM pr_results WHERE as_of = ? ORDER BY repo, number", [D2])
        assert day2 == [{"repo": "o/a", "number": 1, "title": "new 1"}, {"repo": "o/a", "number": 2, "title": "t 2"},
                        {"repo": "o/b", "number": 3, "title": "t 3"}]
        assert (s.count("pr_verdicts"), s.count("snapshot_prs")) == (4, 6)
        # The first day dropped: its verdict no later day lists is forgotten, the two the second keeps stay.
        assert s.delete_snapshots([D1]) == 3
        assert s.query("SELECT repo, number, title FROM pr_results ORDER BY repo, number") == day2
        assert (s.count("pr_verdicts"), s.count("snapshot_prs")) == (3, 3)


def _results(repos: list[str], evidence: str = "{}") -> dict[str, list[object]]:
    """`results` columns of a few repositories' verdicts."""
    return {"repo": repos, "status": ["ranked"] * len(repos), "evidence": [evidence] * len(repos)}


@pytest.mark.parametrize("table, version, days, stored", [
    # PR verdicts stored once from schema 12
    ("pr_results", 11, [_verdicts(D1, [("o/a", 1), ("o/a", 2)]),
                        {**_verdicts(D2, [("o/a", 1), ("o/a", 2), ("o/a", 3)]), "acts": [None, "[]", None]}], 5),
    # repository verdicts from schema 13
    ("results", 12, [{"as_of": [D1, D1], **_results(["o/a", "o/b"]), "inputs": ["1:2", None]},
                     {"as_of": [D2], **_results(["o/a"], '{"x": 1}')}], 3),
], ids=["pr_results", "results"])
def test_verdicts_move_to_one_row_each_and_read_as_before(tmp_path: Path, table: str, version: int,
                                                          days: list[dict[str, list[object]]], stored: int) -> None:
    """A store whose snapshots each held their own rows of `table` reads the same through it (a view)
    after the upgrade, every row a verdict of its own, listed by its snapshot; rows deleted before
    (a pruned day) leave no verdict behind."""
    path = tmp_path / "s.duckdb"
    verdicts, listing = STORED_ONCE[table]
    with patch("porchlamp.store.db.MIGRATIONS", MIGRATIONS[:version]), Store(path) as s:
        for day, rows in zip((D1 - timedelta(days=1), D1, D2), (days[0], *days)):
            _write_rows(s, day, {table: {**rows, "as_of": [day] * len(rows["as_of"])}})
        s.conn.execute(f"DELETE FROM {table} WHERE as_of < ?", [D1])
        before = s.conn.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
        columns = s.conn.execute(f"DESCRIBE {table}").fetchall()
    with patch("porchlamp.store.db.MIGRATIONS", MIGRATIONS[:version + 1]), Store(path) as s:
        assert s.conn.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall() == before
        assert s.conn.execute(f"DESCRIBE {table}").fetchall() == columns
        assert (s.count(verdicts), s.count(listing)) == (stored, stored)
        assert s.conn.execute(f"SELECT count(DISTINCT id) FROM {listing}").fetchone()[0] == stored
        assert verdicts not in s.all_tables() and table in s.all_tables()


def test_an_upgrade_runs_in_the_small_budget(tmp_path: Path) -> None:
    """A migration may copy a table the size of the store: it runs in the small budget (DuckDB spills
    past it), then DuckDB has its default again."""
    probe = Migration(LATEST_VERSION + 1, "probe", "CREATE TABLE probe AS SELECT current_setting('memory_limit') AS m")
    with patch("porchlamp.store.db.MIGRATIONS", (*MIGRATIONS, probe)), \
            patch("porchlamp.store.db.LATEST_VERSION", probe.version), Store(tmp_path / "s.duckdb") as s:
        assert s.conn.execute("SELECT m FROM probe").fetchone()[0] == "488.2 MiB"  # 512 MB
        assert s.conn.execute("SELECT current_setting('memory_limit')").fetchone()[0] != "488.2 MiB"


def test_an_unchanged_repository_verdict_is_listed_again_not_copied(tmp_path: Path) -> None:
    """A day whose repository verdicts equal the day before's lists them; dropping the earlier day
    forgets only the verdict no snapshot lists any more."""
    meta = {"settings": "{}", "porchlamp_version": "test", "repos": 3}
    with Store(tmp_path / "s.duckdb") as s:
        s.write_snapshot(D1, meta, {"results": _results(["o/a", "o/b", "o/c"], '{"day": 1}')})
        second = _results(["o/a", "o/b", "o/c"], '{"day": 1}')
        second["evidence"][2] = '{"day": 2}'
        s.write_snapshot(D2, meta, {"results": second})
        rows = s.query("SELECT as_of, repo, evidence FROM results ORDER BY as_of, repo")
        assert [(r["as_of"], r["repo"], r["evidence"]) for r in rows] == [
            (D1, "o/a", '{"day": 1}'), (D1, "o/b", '{"day": 1}'), (D1, "o/c", '{"day": 1}'),
            (D2, "o/a", '{"day": 1}'), (D2, "o/b", '{"day": 1}'), (D2, "o/c", '{"day": 2}')]
        assert (s.count("repo_verdicts"), s.count("snapshot_repos")) == (4, 6)
        assert s.delete_snapshots([D1]) == 3
        assert [(r["repo"], r["evidence"]) for r in s.query("SELECT repo, evidence FROM results ORDER BY repo")] == [
            ("o/a", '{"day": 1}'), ("o/b", '{"day": 1}'), ("o/c", '{"day": 2}')]
        assert (s.count("repo_verdicts"), s.count("snapshot_repos")) == (3, 3)


def test_a_new_store_is_made_without_an_upgrade_notice(tmp_path: Path) -> None:
    heard: list[str] = []
    with Store(tmp_path / "new.duckdb", notice=heard.append) as s:
        assert s.schema_version() == LATEST_VERSION
    assert heard == []
