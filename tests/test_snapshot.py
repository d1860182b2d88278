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


def test_a_pr_the_export_left_out_but_judged_again_is_judged_from_all_its_rows(store: Path, tmp_path: Path) -> None:
    """A day exports no timeline rows of a PR whose earlier verdict it expects to keep; when its
    author's standing moves (here their account's age), the PR is judged again, and its repository
    is judged a second time from every row: the day still equals a full evaluation."""
    day = date(2026, 10, 16)
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        s.set_meta("collected_as_of", day.isoformat())  # a day on which only the window moves
        authors = [a for a, in s.conn.execute(
            "SELECT DISTINCT author FROM pr_results WHERE as_of = '2026-10-15' AND excluded IS NULL AND acts IS NOT NULL "
            "AND valid_until > ? ORDER BY author LIMIT 6", [day]).fetchall()]
        s.conn.execute("UPDATE accounts SET created_at = created_at - INTERVAL 400 DAY WHERE login IN (SELECT unnest(?))", [authors])
        theirs = s.conn.execute("SELECT count(DISTINCT repo) FROM pulls WHERE author IN (SELECT unnest(?))", [authors]).fetchone()[0]
    whole = tmp_path / "whole.duckdb"
    whole.write_bytes(store.read_bytes())
    with Store(store) as s:
        summary = evaluate_store(s, day, Settings())
        got = {t: [r for r in rows if r[0] == day] for t, rows in _results(s).items()}
    with Store(whole) as s:
        full = evaluate_store(s, day, Settings(), reuse=False)
        want = {t: [r for r in rows if r[0] == day] for t, rows in _results(s).items()}
    assert len(authors) == 6 and 0 < summary.again <= theirs
    assert summary.reused_prs > 10 * summary.judged_prs > 0 and full.reused_prs == 0
    for table, rows in want.items():
        assert got[table] == rows, table


def test_a_day_whose_template_index_moved_judges_the_prs_left_out_from_all_their_rows(
        store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The export leaves out kept PRs' rows before the day's template index is known; when the index
    moves no verdict is kept, and every repository with rows left out is judged a second time from
    all of them: the day equals a full evaluation."""
    import porchlamp.snapshot as snapshot_mod

    day = date(2026, 10, 16)
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        s.set_meta("collected_as_of", day.isoformat())
    whole = tmp_path / "whole.duckdb"
    whole.write_bytes(store.read_bytes())
    basis = snapshot_mod.snapshot_basis
    monkeypatch.setattr(snapshot_mod, "snapshot_basis", lambda text, index: basis(text, index) + "+")  # as if it moved
    with Store(store) as s:
        summary = evaluate_store(s, day, Settings())
        got = {t: [r for r in rows if r[0] == day] for t, rows in _results(s).items()}
    monkeypatch.undo()
    with Store(whole) as s:
        full = evaluate_store(s, day, Settings(), reuse=False)
        want = {t: [r for r in rows if r[0] == day] for t, rows in _results(s).items()}
    assert summary.carried == summary.reused_prs == 0 and summary.judged_prs == full.judged_prs
    assert summary.again > 0  # here 64 of the 67 repositories judged again (the rest would have been carried)
    for table, rows in want.items():
        assert got[table] == rows, table


def test_a_day_on_which_only_the_window_moved_reads_no_comment_for_sightings(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every repository judged again on such a day has its template sightings kept: no shard task
    is sent to read comments that it would skip, and the day still keeps the earlier verdicts."""
    import porchlamp.cluster as cluster_mod

    day = date(2026, 10, 16)
    sighted: list[int] = []
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        first = cluster_mod.shard_sightings
        monkeypatch.setattr(cluster_mod, "shard_sightings", lambda where, k, *rest: sighted.append(k) or first(where, k, *rest))
        s.set_meta("collected_as_of", day.isoformat())
        summary = evaluate_store(s, day, Settings())
        none = list(sighted)
        s.mark_collected(date(2026, 10, 17))
        s.conn.execute("UPDATE timeline SET body = body || ' (edited)' WHERE (repo, number, created_at) = "
                       "(SELECT (repo, number, created_at) FROM timeline WHERE kind = 'comment' ORDER BY ALL LIMIT 1)")
        evaluate_store(s, date(2026, 10, 17), Settings())
    assert summary.reused_prs > 0 and summary.carried > 0 and none == []
    assert sighted  # a comment changed: its repository's shard is read


def test_pr_verdicts_read_back_from_their_rows_are_the_verdicts_judged(store300: Path) -> None:
    """A day keeps earlier verdicts by reading their stored rows (`kept_verdicts`): each read back is
    the verdict judged, field for field (its response too, and none where it had none), of the same
    type, and as read-only."""
    import pyarrow as pa

    from porchlamp.evaluate.engine import Snapshot, evaluate_repo
    from porchlamp.evaluate.pulls import Earlier, PRVerdict, Response
    from porchlamp.evaluate.rules import load_rules
    from porchlamp.snapshot import kept_verdicts, snapshot_rows

    settings = Settings()
    rules = load_rules(settings)
    with Store(store300, read_only=True) as s:
        repos = list(s.iter_repo_data())[::10]
        accounts = s.accounts()
    as_of = date(2026, 10, 15)
    # With a digest of its rows, each verdict carries its key, acts and horizon, as a day stores them.
    results = tuple(evaluate_repo(d, accounts, settings, rules, as_of, None,
                                  Earlier({p.number: f"rows of {p.number}" for p in d.pulls}, {}, None)) for d in repos)
    judged = {r.repo: {v.number: v for v in r.prs} for r in results}
    rows = snapshot_rows(Snapshot(as_of, settings, results))["pr_results"]
    read = kept_verdicts(pa.table(rows))
    assert read == judged
    every = [v for prs in read.values() for v in prs.values()]
    assert len(every) > 2000 and all(type(v) is PRVerdict for v in every)
    answered = [v for v in every if v.response is not None]
    assert answered and all(type(v.response) is Response for v in answered) and len(answered) < len(every)
    with pytest.raises(AttributeError):
        every[0].outcome = "answered"  # type: ignore[misc]
