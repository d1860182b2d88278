import json
from datetime import date
from pathlib import Path

import pytest

from porchlamp.config import Settings, settings_from_dict
from porchlamp.snapshot import SnapshotError, evaluate_store, report_from_store, rerank_store, resolve_as_of
from porchlamp.store import RAW_TABLES, Store

REPORT_KEYS = {"as_of", "funnel", "judged_for_black_hole", "outside_prs", "outside_authors", "black_hole_by_ecosystem",
               "black_hole_by_stars", "top100_overlap", "projects"}
PROJECT_KEYS = {"repo", "status", "kind", "reason", "tier", "score", "coverage", "ranks", "delta"}


@pytest.fixture()
def store(store300: Path, tmp_path: Path) -> Path:
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    return db


def _results(s: Store) -> dict[str, list]:  # type: ignore[type-arg]
    return {t: s.rows(t) for t in ("results", "pr_results", "component_results", "profile_results")}


def test_evaluate_is_repeatable_and_leaves_raw_rows_alone(store: Path) -> None:
    with Store(store) as s:
        raw = {t: s.count(t) for t in RAW_TABLES}
        first = evaluate_store(s, None, Settings())
        rows1 = _results(s)
        evaluate_store(s, None, Settings())
        assert _results(s) == rows1
        assert {t: s.count(t) for t in RAW_TABLES} == raw
    assert first.as_of == date(2026, 10, 15) and first.repos == 300
    assert sum(first.statuses.values()) == 300 and first.outside_prs > 1000


def test_report_json_contract(store: Path) -> None:
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        rep = report_from_store(s)
    assert REPORT_KEYS <= set(rep)
    assert set(rep["funnel"]) == {"not_software", "not_real_project", "no_license", "stale", "black_hole", "undecided", "unrated", "ranked"}
    assert sum(rep["funnel"].values()) == len(rep["projects"]) == 300
    assert all(PROJECT_KEYS <= set(p) for p in rep["projects"])
    judged = rep["judged_for_black_hole"]
    assert sum(v["judged"] for v in rep["black_hole_by_ecosystem"].values()) == judged
    assert sum(v["black_holes"] for v in rep["black_hole_by_stars"].values()) == rep["funnel"]["black_hole"]
    assert 0 <= rep["top100_overlap"] <= 100
    ranked = [p for p in rep["projects"] if p["status"] == "ranked"]
    assert sorted(p["ranks"]["default"] for p in ranked) == list(range(1, len(ranked) + 1))
    json.dumps(rep)  # serialisable as is


def test_rerank_uses_stored_components_only(store: Path) -> None:
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        before = {r[1]: r for r in s.rows("profile_results") if r[2] == "default"}
        prs_before = s.rows("pr_results")
        weights = settings_from_dict({"profiles": {"default": {"governance": 90, "responsiveness": 10}}})
        n = rerank_store(s, None, weights)
        after = {r[1]: r for r in s.rows("profile_results") if r[2] == "default"}
        assert s.rows("pr_results") == prs_before
    assert n == sum(1 for r in before.values() if r[6] is not None)
    assert any(before[k][6] != after[k][6] for k in before)  # ranks moved
    assert {k for k, r in before.items() if r[6] is not None} == {k for k, r in after.items() if r[6] is not None}


def test_as_of_outside_the_collected_data_is_refused(store: Path) -> None:
    with Store(store) as s:
        with pytest.raises(SnapshotError, match="after the data"):
            resolve_as_of(s, date(2026, 12, 1))
        with pytest.raises(SnapshotError, match="before the first collection"):
            resolve_as_of(s, date(2026, 9, 1))
        assert resolve_as_of(s, date(2026, 10, 15)) == date(2026, 10, 15)
        with pytest.raises(SnapshotError, match="no evaluated snapshot"):
            report_from_store(s)


def test_two_snapshots_side_by_side(store: Path) -> None:
    with Store(store) as s:
        evaluate_store(s, date(2026, 10, 15), Settings())
        s.mark_collected(date(2026, 11, 15))  # as an incremental collection a month later would
        evaluate_store(s, date(2026, 11, 15), Settings())
        assert s.snapshot_dates() == [date(2026, 10, 15), date(2026, 11, 15)]
        octo, nov = report_from_store(s, date(2026, 10, 15)), report_from_store(s, date(2026, 11, 15))
    assert nov["as_of"] == "2026-11-15" and octo["outside_prs"] != nov["outside_prs"]


def test_a_verdict_the_next_day_leaves_unchanged_is_stored_once(store: Path, tmp_path: Path) -> None:
    """Each day is judged whole; a verdict equal to the one the day before holds is listed again,
    not stored twice: the next day's four tables are those of the day evaluated in a store of its own."""
    day = date(2026, 10, 16)
    alone = tmp_path / "alone.duckdb"
    alone.write_bytes(store.read_bytes())
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        stored = s.count("pr_verdicts")
        s.mark_collected(day)
        evaluate_store(s, day, Settings())
        new = s.count("pr_verdicts") - stored
        listed = s.query("SELECT count(*) AS n FROM pr_results WHERE as_of = ?", [day])[0]["n"]
        rows = {t: [r for r in s.rows(t) if r[0] == day] for t in ("results", "pr_results", "component_results", "profile_results")}
    assert 0 < new < listed / 5  # the window moved a day: few verdicts changed
    with Store(alone) as s:
        s.mark_collected(day)
        evaluate_store(s, day, Settings())
        assert {t: s.rows(t) for t in rows} == rows


def test_a_budget_too_small_for_the_snapshot_says_so_and_writes_nothing(store: Path) -> None:
    """What the operator of a larger store meets first: DuckDB cannot spill every step, so a budget
    too small fails; it must fail with what to do, and leave the store as it was."""
    with Store(store) as s:
        raw = {t: s.count(t) for t in RAW_TABLES}
        with pytest.raises(SnapshotError, match=r"more than DuckDB's 4MB memory budget .*nothing was written.*--memory 6GB"):
            evaluate_store(s, None, Settings(), memory="4MB")
        assert s.snapshot_dates() == [] and {t: s.count(t) for t in RAW_TABLES} == raw
        assert evaluate_store(s, None, Settings(), memory="2 GiB").repos == 300
        for bad in ("lots", "6", "GB", "-1GB"):
            with pytest.raises(SnapshotError, match="not an amount of memory"):
                evaluate_store(s, None, Settings(), memory=bad)
