"""The collector through the emulator, over real HTTP: it gets what the world holds, survives
faults, follows renames, stops cleanly on a bad token, and costs few points."""

import collections
import json
import shutil
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from collecting import AS_OF, collect_world, raw_contents, store_records, world_as_collected
from helpers import pr_verdict_rows, verdict_rows

from porchlamp.collect import AuthError
from porchlamp.config import Settings
from porchlamp.emulator import Limits, WorldIndex
from porchlamp.sample import generate_world, read_truth
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

START = datetime(2026, 10, 15) - timedelta(days=183)


def _ts(s: str | None) -> datetime | None:
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ") if s else None


def test_collection_equals_the_world(collected300, world300: Path, store300: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Collected through the emulator, a world is what `load-world` puts in a store, row for row within
    what the method asks GitHub for, and it evaluates the same: every result table, every row."""
    db, summary = collected300
    expected, got = world_as_collected(world300), store_records(db)
    for table in expected:
        assert sorted(map(repr, got[table])) == sorted(map(repr, expected[table])), table
    assert summary.done == 300 and summary.prs == len(expected["pulls"]) and summary.timeline_items == len(expected["timeline"])
    # What the world plants so that every continuation runs: timelines past their first pages.
    longest = max(collections.Counter((i.repo, i.number) for i in expected["timeline"]).values())
    assert longest >= 150 and summary.points_by_query["timeline_more"] > 0 and summary.points_by_query["author_history"] > 0
    results = {}
    for name, source in (("loaded", store300), ("collected", db)):
        copy = tmp_path / f"{name}.duckdb"
        shutil.copy(source, copy)
        with Store(copy) as s:
            evaluate_store(s, AS_OF, Settings())
            results[name] = {t: s.rows(t) for t in ("results", "pr_results", "component_results", "profile_results")}
    # load-world also holds the PRs opened before the window, which a collection never fetches.
    results["loaded"]["pr_results"] = [r for r in results["loaded"]["pr_results"] if r[8] != "before_window"]
    for rows in results.values():
        rows["results"] = verdict_rows(rows["results"])
        rows["pr_results"] = pr_verdict_rows(rows["pr_results"])
    for table, rows in results["collected"].items():
        assert rows == results["loaded"][table], table


def test_collected_store_evaluates_to_the_truth(collected300, world300: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db, _ = collected300
    truth = read_truth(world300)
    shutil.copy(db, tmp_path / "copy.duckdb")
    with Store(tmp_path / "copy.duckdb") as s:
        evaluate_store(s, AS_OF, Settings())
        results = s.query("SELECT repo, status, kind FROM results WHERE as_of = ?", [AS_OF])
        prs = s.query("SELECT repo, number, excluded, outcome FROM pr_results WHERE as_of = ?", [AS_OF])
    wrong = [(r["repo"], r["status"], r["kind"]) for r in results
             if (r["status"], r["kind"]) != (truth["repos"][r["repo"]]["status"], truth["repos"][r["repo"]]["kind"])]
    assert wrong == []
    assert prs and all((v["excluded"], v["outcome"]) == (truth["prs"][f"{v['repo']}#{v['number']}"]["excluded"],
                                                          truth["prs"][f"{v['repo']}#{v['number']}"]["outcome"]) for v in prs)


def test_cost_is_reported_and_low(collected300) -> None:  # type: ignore[no-untyped-def]
    _, summary = collected300
    data = summary.as_dict()
    assert data["points"] == sum(data["points_by_query"].values()) > 0
    assert data["points_per_100_prs"] < 1.5 and data["points_per_repo"] < 2
    assert set(data["points_by_query"]) >= {"repo_meta", "pull_requests", "ci_checks"}


def test_faults_leave_identical_contents(collected300, index300: WorldIndex, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db, _ = collected300
    spec = "all=0.05,slow_seconds=0.01,seed=5"  # every kind at 5%, and heavy queries timing out as they always do
    summary = collect_world(index300, tmp_path / "faulty.duckdb", faults=spec)
    print(f"\nall faults at 5%: {summary.requests} requests, {sum(summary.retries.values())} retries, {summary.splits} splits")
    assert sum(summary.retries.values()) > 10 and summary.failures == [] and summary.done == 300
    assert raw_contents(tmp_path / "faulty.duckdb") == raw_contents(db)


def test_missing_renamed_and_blocked_repositories(world300: Path, tmp_path: Path) -> None:
    world = tmp_path / "w"
    shutil.copytree(world300, world)
    names = (world / "repos.txt").read_text().split()[:20]
    (world / "api.json").write_text(json.dumps({"renamed": {"old-home/old-name": names[0]}, "blocked": ["dmca/blocked"]}))
    listing = ["old-home/old-name", *names, "nobody/nothing", "dmca/blocked"]
    summary = collect_world(world, tmp_path / "s.duckdb", repos=listing)
    assert summary.failed == {"not_found": 1, "blocked": 1}
    assert {f["repo"] for f in summary.failures} == {"nobody/nothing", "dmca/blocked"}
    assert summary.renamed == {"old-home/old-name": names[0]} and summary.done == 20
    with Store(tmp_path / "s.duckdb", read_only=True) as s:
        assert s.count("repositories") == 20  # the renamed one is kept once, under its new name
        assert s.repo_names_map() == {"old-home/old-name": names[0]}


def test_bad_token_stops_and_keeps_what_was_collected(world300: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    names = (world300 / "repos.txt").read_text().split()[:5]
    collect_world(world300, db, repos=names, token="good", limits=Limits(valid_tokens=frozenset({"good"})))
    before = raw_contents(db)
    with pytest.raises(AuthError, match="refused the token") as err:
        collect_world(world300, db, repos=names, token="expired-token-value", limits=Limits(valid_tokens=frozenset({"good"})),
                      as_of=date(2026, 10, 20))
    assert "expired-token-value" not in str(err.value)
    assert raw_contents(db) == before


def test_incremental_collection_costs_a_fraction(collected300, tmp_path: Path, index300: WorldIndex) -> None:  # type: ignore[no-untyped-def]
    db, full = collected300
    later = tmp_path / "later.duckdb"
    shutil.copy(db, later)
    summary = collect_world(index300, later, as_of=date(2026, 11, 15))
    assert summary.incremental and summary.points < full.points / 4
    assert summary.points_saved == full.points - summary.points
    with Store(later) as s:
        ev = evaluate_store(s, None, Settings())
        assert ev.as_of == date(2026, 11, 15) and s.get_meta("collected_as_of") == "2026-11-15"
        evaluate_store(s, date(2026, 10, 15), Settings())  # the earlier snapshot sits beside it
        assert s.snapshot_dates() == [date(2026, 10, 15), date(2026, 11, 15)]


def test_incremental_after_a_month_of_activity_equals_a_full_collection(tmp_path: Path) -> None:
    """A world dated a month later, served first as it stood on the earlier date: the incremental run
    must leave a store whose evaluation matches a full collection made on the later date."""
    later, earlier = date(2026, 11, 15), date(2026, 10, 15)
    world = generate_world(tmp_path / "w", repos=80, seed=4404, as_of=later).path
    past = WorldIndex(world, clock=earlier)
    now = WorldIndex(world)
    assert sum(len(e.pulls) for e in past.repos.values()) < sum(len(e.pulls) for e in now.repos.values())
    assert all(p["updated_at"] < "2026-10-15" for e in past.repos.values() for p in e.pulls)
    inc_db, full_db = tmp_path / "inc.duckdb", tmp_path / "full.duckdb"
    first = collect_world(past, inc_db, as_of=earlier)
    inc = collect_world(now, inc_db, as_of=later)
    full = collect_world(now, full_db, as_of=later)
    assert inc.incremental and not full.incremental
    assert set(inc.points_by_query) >= {"pulls_updated", "pulls_by_id"} and "pull_requests" not in inc.points_by_query
    # A month's activity is a fraction of the window's: the listing plus fetches by id stay well under a full run.
    assert inc.points < first.points / 2 and 0 < inc.prs < full.prs / 2
    results = {}
    for db in (inc_db, full_db):
        with Store(db) as s:
            evaluate_store(s, later, Settings())
            results[db] = {t: [r for r in s.rows(t) if r[0] == later] for t in ("results", "pr_results", "component_results", "profile_results")}
    # The incremental store also keeps the earlier window's oldest PRs (its own snapshot needs them);
    # the later evaluation lists them as before the window and counts them nowhere.
    start = datetime(2026, 11, 15) - timedelta(days=183)
    old = [r for r in results[inc_db]["pr_results"] if r[6] < start]
    assert old and {r[8] for r in old} == {"before_window"}
    results[inc_db]["pr_results"] = [r for r in results[inc_db]["pr_results"] if r[6] >= start]
    # GitHub computes authorAssociation when a PR is read: a PR unchanged since the earlier run still
    # says FIRST_TIME_CONTRIBUTOR (or NONE) where a fresh read says CONTRIBUTOR (its author was merged
    # since). The column records what GitHub said; every verdict is the same.
    drifted = [(a, b) for a, b in zip(results[inc_db]["pr_results"], results[full_db]["pr_results"]) if a[5] != b[5]]
    assert drifted and {(a[5], b[5]) for a, b in drifted} <= {("FIRST_TIME_CONTRIBUTOR", "CONTRIBUTOR"), ("NONE", "CONTRIBUTOR")}
    for rows in (results[inc_db], results[full_db]):
        rows["pr_results"] = pr_verdict_rows([r[:5] + r[6:] for r in rows["pr_results"]])
        rows["results"] = verdict_rows(rows["results"])
    for table in ("results", "pr_results", "component_results", "profile_results"):
        assert results[inc_db][table] == results[full_db][table], table
    assert len(results[full_db]["pr_results"]) > 1000
