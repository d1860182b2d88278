"""Whole real projects, judged snapshot by snapshot: every PR as the reference reading of SPEC
(tests/reference.py) reads it, each repository's status and reason, and the real behaviour that once
fooled the engine (a project's own report bot, an editor pasting one explanation, a close undone, a
repository of documents, a batching notice)."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

import reference
from conftest import REAL_DATES
from porchlamp.config import Settings
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store


def _engine(db: Path, day: str) -> dict[tuple[str, int], tuple[str | None, str | None]]:
    with Store(db, read_only=True) as store:
        return {(r["repo"], r["number"]): (r["excluded"], r["outcome"])
                for r in store.query("SELECT repo, number, excluded, outcome FROM pr_results WHERE as_of = ?", [day])}


def _verdict(db: Path, day: str, repo: str, number: int) -> dict:  # type: ignore[type-arg]
    with Store(db, read_only=True) as store:
        return store.query("SELECT * FROM pr_results WHERE as_of = ? AND repo = ? AND number = ?", [day, repo, number])[0]


def _status(db: Path, day: str) -> dict[str, tuple[str, str]]:
    with Store(db, read_only=True) as store:
        return {r["repo"]: (r["status"], r["reason"]) for r in store.query("SELECT repo, status, reason FROM results WHERE as_of = ?", [day])}


@pytest.mark.parametrize("day", REAL_DATES)
def test_the_engine_reads_every_real_pr_as_the_reference_reading_does(real_store: Path, day: str) -> None:
    ref = reference.read_store(real_store, date.fromisoformat(day))
    engine = _engine(real_store, day)
    assert set(ref) == set(engine)
    differ = {k: (engine[k], (v.excluded, v.outcome)) for k, v in ref.items() if engine[k] != (v.excluded, v.outcome)}
    assert differ == {}
    judged = [k for k, v in ref.items() if v.excluded != "before_window"]
    outside = [k for k, v in ref.items() if v.excluded is None]
    assert len(judged) > 150 and len(outside) > 90


# Each project's status and reason at each date (secp256k1 and gui are licensed MIT by their COPYING files,
# given on import; bips holds documents under one licence each, and GitHub shows none).
STATUS = {
    "2025-06-01": {"bitcoin-core/secp256k1": ("ranked", "7 outside PRs, fewer than"), "bitcoin-core/gui": ("ranked", "8 outside PRs, fewer than")},
    "2025-10-01": {"bitcoin-core/secp256k1": ("ranked", "25 of 25 answered"), "bitcoin-core/gui": ("ranked", "7 outside PRs, fewer than")},
    "2026-01-15": {"bitcoin-core/secp256k1": ("ranked", "29 of 31 answered"), "bitcoin-core/gui": ("ranked", "12 of 15 answered")},
    "2026-04-01": {"bitcoin-core/secp256k1": ("ranked", "29 of 31 answered"), "bitcoin-core/gui": ("ranked", "11 of 14 answered")},
    "2026-08-01": {"bitcoin-core/secp256k1": ("ranked", "20 of 23 answered"), "bitcoin-core/gui": ("ranked", "7 of 12 answered")},
}


@pytest.mark.parametrize("day", REAL_DATES)
def test_each_real_project_gets_its_status_and_reason(real_store: Path, day: str) -> None:
    got = _status(real_store, day)
    for repo, (status, reason) in STATUS[day].items():
        assert got[repo][0] == status and reason in got[repo][1], (repo, got[repo])
    # bips is documents in Wikitext, prose to Linguist: not software, whatever its licence.
    assert got["bitcoin/bips"][0] == "not_software"
    assert "Wikitext" in got["bitcoin/bips"][1] and "prose" in got["bitcoin/bips"][1]


def test_an_editor_pasting_one_explanation_on_a_batch_is_a_person(real_store: Path) -> None:
    """gap-editor opened 6 PRs in 9 minutes with one explanation and writes in its own words elsewhere."""
    for repo, number in (("bitcoin/bips", 1836), ("bitcoin/bips", 1878), ("bitcoin-core/secp256k1", 1720)):
        v = _verdict(real_store, "2025-10-01", repo, number)
        assert v["excluded"] is None and v["bot_reason"] is None, (repo, number, v["excluded"])


def test_a_close_the_author_undid_is_not_a_withdrawal(real_store: Path) -> None:
    """Closed by its author and reopened (4 seconds later, or by a maintainer), then answered or merged."""
    assert _verdict(real_store, "2026-08-01", "bitcoin-core/secp256k1", 1859)["outcome"] == "answered"
    assert _verdict(real_store, "2026-01-15", "bitcoin/bips", 1989)["outcome"] == "answered"


def test_a_batching_notice_is_not_a_redirect(real_store: Path) -> None:
    """"We no longer directly merge PRs of this type ... we'll instead be batching these kinds of changes"."""
    for day in ("2025-06-01", "2025-10-01"):
        with Store(real_store, read_only=True) as store:
            pointed = store.query("SELECT number FROM pr_results WHERE as_of = ? AND repo = 'bitcoin/bips' AND redirect IS NOT NULL", [day])
        assert pointed == []
    assert _verdict(real_store, "2025-06-01", "bitcoin/bips", 1829)["redirect"] is None


def test_a_projects_report_bot_is_known_by_its_skeleton_whatever_its_name(real_store: Path, tmp_path: Path) -> None:
    """DrahtBot's first comment on every gui PR, within seconds, is a report filled in per PR: no two
    are equal. Under a login that says nothing (no list or pattern knows it) it still answers nothing."""
    db = tmp_path / "renamed.duckdb"
    shutil.copy(real_store, db)
    with Store(db) as store:
        store.conn.execute("UPDATE timeline SET actor = 'hannelore-k' WHERE actor = 'DrahtBot'")
        store.conn.execute("UPDATE accounts SET login = 'hannelore-k' WHERE login = 'DrahtBot'")
        evaluate_store(store, date(2026, 8, 1), Settings())
    status, reason = _status(db, "2026-08-01")["bitcoin-core/gui"]
    assert "7 of 12 answered" in reason  # as with its own name; taken for a person it was 12 of 12
    with Store(db, read_only=True) as store:
        said = store.query("SELECT count(*) AS n FROM pr_results WHERE as_of = DATE '2026-08-01' AND response_actor = 'hannelore-k'")
    assert said[0]["n"] == 0
    ref = reference.read_store(db, date(2026, 8, 1))
    engine = _engine(db, "2026-08-01")
    assert all(engine[k] == (v.excluded, v.outcome) for k, v in ref.items())


def test_the_reference_reading_agrees_on_a_sample_world(store300: Path, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    shutil.copy(store300, db)
    with Store(db) as store:
        evaluate_store(store, date(2026, 10, 15), Settings())
    ref = reference.read_store(db, date(2026, 10, 15))
    engine = _engine(db, "2026-10-15")
    differ = {k: (engine.get(k), (v.excluded, v.outcome)) for k, v in ref.items() if engine.get(k) != (v.excluded, v.outcome)}
    assert differ == {} and len(ref) > 20_000
