"""A repository's digest of its rows moves with any row evaluation reads, and only its own; the
template sightings kept under it count exactly as sightings taken afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from porchlamp.config import Settings
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store
from porchlamp.store.inputs import input_digests

TABLES = ("results", "pr_results", "component_results", "profile_results")


@pytest.fixture()
def store(store300: Path, tmp_path: Path) -> Path:
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    return db


def _first_with(s: Store, sql: str) -> str:
    return s.conn.execute(sql).fetchone()[0]


@pytest.mark.parametrize("change", [
    "UPDATE pulls SET title = title || '!' WHERE repo = ? AND number = (SELECT min(number) FROM pulls WHERE repo = ?)",
    "UPDATE timeline SET body = 'edited' WHERE node_id = (SELECT min(node_id) FROM timeline WHERE repo = ? AND repo = ?)",
    "UPDATE repositories SET stars = stars + 1 WHERE name_with_owner = ? AND name_with_owner = ?",
    "UPDATE accounts SET created_at = created_at - INTERVAL 1 DAY WHERE login = "
    "(SELECT min(author) FROM pulls WHERE repo = ? AND repo = ? AND author IS NOT NULL)",
])
def test_a_changed_row_moves_its_repository_digest_only(store: Path, change: str) -> None:
    with Store(store) as s:
        repo = _first_with(s, "SELECT min(repo) FROM pulls")
        before = input_digests(s)
        s.conn.execute(change, [repo, repo])
        after = input_digests(s)
    assert len(before) == 300 and before[repo] != after[repo]
    # An account can open PRs in several repositories: each of them moves, no other.
    moved = {r for r in before if before[r] != after[r]}
    assert repo in moved and (len(moved) == 1 or "accounts" in change)


def test_kept_sightings_count_as_fresh_ones(store: Path) -> None:
    """A day later on the same rows every repository's sightings come from the store; with one
    repository's comment edited, its sightings are taken again. Both equal a full evaluation."""
    seen: list[int] = []
    with Store(store) as s:
        evaluate_store(s, None, Settings())
        assert s.count("template_sighted") == 300 and s.count("template_fingerprints") > 1000
        repo = _first_with(s, "SELECT min(repo) FROM timeline WHERE kind = 'comment' AND length(body) > 80")
        s.conn.execute("UPDATE timeline SET body = 'A different message entirely, long enough to count as substantial text.' "
                       "WHERE node_id = (SELECT min(node_id) FROM timeline WHERE repo = ? AND kind = 'comment' AND length(body) > 80)",
                       [repo])
        when = s.snapshot_dates()[-1]
        summary = evaluate_store(s, when, Settings(), progress=seen.append)
        got = {t: s.rows(t) for t in TABLES}
        digest = s.conn.execute("SELECT inputs FROM template_sighted WHERE repo = ?", [repo]).fetchone()[0]
        assert digest == input_digests(s)[repo]  # the edited repository's sightings were taken again
        full = evaluate_store(s, when, Settings(), reuse=False)
        want = {t: s.rows(t) for t in TABLES}
    assert sum(seen) == 600 and summary.repos == full.repos == 300
    assert got == want
