"""Daily refresh: a week of one-day collections ends where a full collection on the last day does,
and each day costs a small share of a full run."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from collecting import AS_OF, collect_world
from helpers import pr_verdict_rows, verdict_rows

from porchlamp.collect import CollectSummary
from porchlamp.config import Settings
from porchlamp.emulator import WorldIndex
from porchlamp.snapshot import EvaluateSummary, evaluate_store
from porchlamp.store import Store

TABLES = ("results", "pr_results", "component_results", "profile_results")


def _evaluated(db: Path, as_of: date) -> dict[str, list[Any]]:
    with Store(db) as s:
        evaluate_store(s, as_of, Settings())
        rows = {t: [r for r in s.rows(t) if r[0] == as_of] for t in TABLES}
    # A refreshed store also keeps PRs that have left the window since its first day (its earlier
    # snapshots need them): they are listed as before the window and counted nowhere.
    start = datetime.combine(as_of, datetime.min.time()) - timedelta(days=183)
    old = [r for r in rows["pr_results"] if r[6] < start]
    assert {r[8] for r in old} <= {"before_window"}
    rows["pr_results"] = [r for r in rows["pr_results"] if r[6] >= start]
    # authorAssociation is what GitHub said when it last read the PR, so a PR unchanged since an
    # earlier day keeps that day's word; every verdict is the same.
    rows["pr_results"] = [r[:5] + r[6:] for r in rows["pr_results"]]
    rows["pr_results"] = pr_verdict_rows(rows["pr_results"])
    rows["results"] = verdict_rows(rows["results"])
    return rows


@dataclass(frozen=True)
class Week:
    db: Path  # the store after the last day
    start: CollectSummary  # the first, full collection, a week before AS_OF
    days: list[CollectSummary]  # the seven daily refreshes
    stores: list[Path]  # a copy of the store after each day's refresh, before that day's evaluation
    evaluated: list[tuple[EvaluateSummary, dict[str, list[Any]]]]  # each day evaluated as a refresh does, after the day before
    stored: list[int]  # PR verdicts stored (not listed again from the day before) by each day


@pytest.fixture(scope="module")
def week(world300: Path, index300: WorldIndex, tmp_path_factory: pytest.TempPathFactory) -> Week:
    first = AS_OF - timedelta(days=7)
    root = tmp_path_factory.mktemp("week")
    db = root / "daily.duckdb"
    start = collect_world(WorldIndex(world300, clock=first), db, as_of=first)
    with Store(db) as s:
        evaluate_store(s, first, Settings())
    days: list[CollectSummary] = []
    stores: list[Path] = []
    evaluated = []
    stored = []
    for d in range(1, 8):
        day = first + timedelta(days=d)
        days.append(collect_world(WorldIndex(world300, clock=day) if day < AS_OF else index300, db, as_of=day))
        stores.append(root / f"day{d}.duckdb")
        shutil.copy(db, stores[-1])
        with Store(db) as s:
            before = s.count("pr_verdicts")
            summary = evaluate_store(s, day, Settings())
            evaluated.append((summary, {t: [r for r in s.rows(t) if r[0] == day] for t in TABLES}))
            stored.append(s.count("pr_verdicts") - before)
    return Week(db, start, days, stores, evaluated, stored)


def test_seven_daily_refreshes_equal_a_full_collection(week: Week, collected300: tuple[Path, CollectSummary],
                                                      tmp_path: Path) -> None:
    db, start, days = week.db, week.start, week.days
    full_db = tmp_path / "full.duckdb"
    shutil.copy(collected300[0], full_db)
    full = collected300[1]

    for s in days:
        assert s.incremental and not s.failed and "pull_requests" not in s.points_by_query
        # Most repositories have a quiet day: the listing alone confirms them.
        assert s.unchanged > s.repos // 3 and s.changed.get("prs", 0) > 0
        assert s.points_by_query["repos_changed"] == -(-300 // 70)
        assert s.points <= full.points * 0.12
    assert start.points >= full.points * 0.9  # the first day is a full run; the week is a fraction of it
    assert sum(s.points for s in days) < start.points * 0.6

    with Store(db, read_only=True) as s:
        changed = s.states("changed")
    assert len(changed) == 300 and {v["as_of"] for v in changed.values()} == {AS_OF}
    flags = [json.loads(v["detail"]) for v in changed.values()]
    assert all(f["since"] == (AS_OF - timedelta(days=1)).isoformat() for f in flags)

    last = tmp_path / "last.duckdb"
    shutil.copy(week.stores[-1], last)
    got, want = _evaluated(last, AS_OF), _evaluated(full_db, AS_OF)
    for table in TABLES:
        assert got[table] == want[table], table
    assert len(want["pr_results"]) > 5000


def test_each_day_is_judged_whole_and_stores_only_the_verdicts_that_moved(week: Week, tmp_path: Path) -> None:
    """Evaluated day after day, a store lists again each verdict that equals the day before's; every
    day's four tables equal those of the same day evaluated in a store without earlier snapshots."""
    for d, (stored, (summary, got)) in enumerate(zip(week.stores, week.evaluated), start=1):
        day = AS_OF - timedelta(days=7 - d)
        alone = tmp_path / f"alone{d}.duckdb"
        shutil.copy(stored, alone)
        with Store(alone) as s:
            s.delete_snapshots(s.snapshot_dates())
            whole = evaluate_store(s, day, Settings())
            want = {t: [r for r in s.rows(t) if r[0] == day] for t in TABLES}
        alone.unlink()
        assert summary.repos == whole.repos == 300
        assert summary.statuses == whole.statuses and summary.outside_prs == whole.outside_prs
        for table in TABLES:
            assert got[table] == want[table], (day, table)
    # Most PR verdicts hold from one day to the next: each day stores few of its more than 20,000.
    listed = [len(got["pr_results"]) for _, got in week.evaluated]
    assert all(0 < n < total / 10 for n, total in zip(week.stored, listed)), (week.stored, listed)


def test_the_plan_estimates_a_refresh_by_the_days_since_the_last_run() -> None:
    from porchlamp.collect.plan import DAILY_SHARE, MONTHLY_SHARE, incremental_share

    assert incremental_share(1) == DAILY_SHARE and incremental_share(31) == MONTHLY_SHARE
    shares = [incremental_share(d) for d in range(1, 400)]
    assert shares == sorted(shares) and shares[-1] == 1.0
