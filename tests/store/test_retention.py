"""Pruning old snapshots: which days are kept, that only their results go, and that a day's
evaluation still carries from the latest afterwards."""

from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porchlamp.config import Settings
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store
from porchlamp.store.retention import kept_snapshots, prune_snapshots
from porchlamp.store.schema import RAW_TABLES, RESULT_TABLES, STORED_ONCE


@given(st.sets(st.dates(date(2025, 1, 1), date(2027, 12, 31)), max_size=60), st.integers(1, 90))
def test_kept_days(dates: set[date], keep_days: int) -> None:
    kept = kept_snapshots(dates, keep_days)
    assert kept <= dates
    if not dates:
        return
    ordered = sorted(dates)
    assert set(ordered[-2:]) <= kept  # the day's evaluation carries from, and compares with, the one before
    assert {d for d in dates if (ordered[-1] - d).days < keep_days} <= kept
    months = {(d.year, d.month) for d in dates}
    assert {min(d for d in dates if (d.year, d.month) == m) for m in months} <= kept
    # Nothing else, and pruning again keeps the same.
    assert len(kept) <= keep_days + len(months) + 2
    assert kept_snapshots(kept, keep_days) == kept


def test_keep_days_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        kept_snapshots([date(2026, 1, 1)], 0)


def test_prune_deletes_only_old_results(store300: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        last = date.fromisoformat(s.get_meta("collected_as_of"))
        evaluate_store(s, last, Settings())
        # Sixty earlier days of the same results, as sixty days of refreshes would leave.
        days = [last - timedelta(days=n) for n in range(1, 61)]
        # Each earlier day lists the same PR and repository verdicts (`pr_results` and `results` read them),
        # as a day that keeps them does.
        for table in ("snapshots", *(STORED_ONCE[t][1] if t in STORED_ONCE else t for t in RESULT_TABLES)):
            for d in days:
                s.conn.execute(f"INSERT INTO {table} SELECT * REPLACE (CAST(? AS DATE) AS as_of) FROM {table} WHERE as_of = ?", [d, last])
        verdicts = {t: s.count(t) for t, _ in STORED_ONCE.values()}
        raw = {t: s.count(t) for t in RAW_TABLES}
        per_day = sum(s.conn.execute(f"SELECT count(*) FROM {t} WHERE as_of = ?", [last]).fetchone()[0] for t in RESULT_TABLES)
        dry = prune_snapshots(s, 14, dry_run=True)
        assert len(s.snapshot_dates()) == 61 and dry.rows_deleted == 0
        summary = prune_snapshots(s, 14)
        assert summary.dropped == dry.dropped
        kept = s.snapshot_dates()
        # 14 recent days (10-02 to 10-15), and the first of each month the sixty days touch (08-16, 09-01, 10-01).
        assert kept == sorted(kept_snapshots([last, *days], 14)) and len(kept) == 17 and last == date(2026, 10, 15)
        assert summary.rows_deleted == per_day * len(summary.dropped)
        for t in RESULT_TABLES:
            assert {r[0] for r in s.conn.execute(f"SELECT DISTINCT as_of FROM {t}").fetchall()} == set(kept)
        assert {t: s.count(t) for t in RAW_TABLES} == raw  # collected rows are never touched
        assert {t: s.count(t) for t, _ in STORED_ONCE.values()} == verdicts  # the kept days still list every verdict
        # The next day still lists the verdicts the latest holds unchanged, rather than storing them again.
        nxt = last + timedelta(days=1)
        s.set_meta("collected_as_of", nxt.isoformat())
        stored = s.count("pr_verdicts")
        evaluate_store(s, nxt, Settings())
        assert 0 < s.count("pr_verdicts") - stored < s.query("SELECT count(*) AS n FROM pr_results WHERE as_of = ?", [nxt])[0]["n"] / 5
        assert f"dropped {len(summary.dropped)}: 2026-08-17, " in summary.lines()[0]
        assert prune_snapshots(s, 14).dropped == (date(2026, 10, 2),)  # the window of recent days moved on
        assert prune_snapshots(s, 14).lines() == ["kept all 17 snapshots; nothing to prune"]
