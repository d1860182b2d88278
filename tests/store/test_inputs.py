"""A repository's digest of its rows moves with any row evaluation reads, and only its own; the
template sightings kept under it count exactly as sightings taken afresh; the digests made from one
scan equal those taken from the rows, and the earlier verdicts the store finds held are judging's."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from porchlamp.config import Settings
from porchlamp.evaluate.engine import window
from porchlamp.evaluate.pulls import Earlier, holding
from porchlamp.snapshot import evaluate_store, kept_verdicts, sightings_key
from porchlamp.store import Store
from porchlamp.store.inputs import EarlierDay, input_digests, pr_digests, pr_rows, sighting_plan

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


def _kept(s: Store) -> dict[str, set[tuple]]:  # type: ignore[type-arg]
    return {t: set(s.conn.execute(f"SELECT * FROM {t}").fetchall())
            for t in ("template_pr_sighted", "template_fingerprints", "template_comments")}


def test_kept_sightings_count_as_fresh_ones(store: Path) -> None:
    """A day later on the same rows every PR's sightings come from the store; with one comment
    edited, that PR's alone are taken again, and a PR that is gone is forgotten. Each day equals a
    full evaluation."""
    seen: list[int] = []
    settings = Settings()
    key = sightings_key(settings.model_dump_json())
    with Store(store) as s:
        evaluate_store(s, None, settings)
        prs = s.conn.execute("SELECT count(*) FROM (SELECT repo, number FROM pulls UNION SELECT repo, number FROM timeline "
                             "WHERE kind IN ('comment', 'review', 'ready_for_review'))").fetchone()[0]
        assert s.count("template_pr_sighted") == prs > 20_000 and s.count("template_fingerprints") > 1000
        names = s.repo_names()
        with sighting_plan(s, names, key) as plan:
            assert plan.known == set(names) and not plan.only
        with sighting_plan(s, names, key, reuse=False) as plan:
            assert not plan.known - {r for r in names if not s.query("SELECT 1 FROM pulls WHERE repo = ?", [r])} and not plan.only
        repo, number, node = s.conn.execute(
            "SELECT repo, number, node_id FROM timeline WHERE kind = 'comment' AND length(body) > 80 ORDER BY node_id LIMIT 1").fetchone()
        s.conn.execute("UPDATE timeline SET body = 'A different message entirely, long enough to count as substantial text.' "
                       "WHERE node_id = ?", [node])
        gone = s.conn.execute("SELECT repo, number FROM pulls WHERE repo = ? AND number <> ? ORDER BY number LIMIT 1",
                              [repo, number]).fetchone()
        s.conn.execute("DELETE FROM timeline WHERE repo = ? AND number = ?", gone)
        s.conn.execute("DELETE FROM pulls WHERE repo = ? AND number = ?", gone)
        with sighting_plan(s, names, key) as plan:
            assert plan.only == {repo: {number}} and plan.known == set(names) - {repo}
        before = _kept(s)
        when = s.snapshot_dates()[-1]
        summary = evaluate_store(s, when, settings, progress=seen.append)
        got = {t: s.rows(t) for t in TABLES}
        basis = (s.snapshot_meta(when) or {})["basis"]  # the template index, among what it rests on
        after = _kept(s)
        with sighting_plan(s, names, key) as plan:
            assert plan.known == set(names) and not plan.only  # what was taken again is kept
        full = evaluate_store(s, when, settings, reuse=False)
        want = {t: s.rows(t) for t in TABLES}
        assert (s.snapshot_meta(when) or {})["basis"] == basis
        assert _kept(s) == after  # taken afresh from every row, the same sightings
    assert sum(seen) == 600 and summary.repos == full.repos == 300
    assert got == want
    # Only the edited PR's rows moved, and the PR that is gone left none.
    for table in after:
        moved = {row[:2] if table == "template_pr_sighted" else (row[0], row[2 if table == "template_fingerprints" else 1])
                 for row in before[table] ^ after[table]}
        assert moved <= {(repo, number), gone}, table
    assert (repo, number) in {row[:2] for row in before["template_pr_sighted"] ^ after["template_pr_sighted"]}
    assert not [row for row in after["template_pr_sighted"] if row[:2] == gone]


def _by_rows(s: Store, sql: str) -> dict[tuple, str]:  # type: ignore[type-arg]
    """Each group's digest straight from its rows' hashes (`sql` yields key columns and `h`)."""
    return {tuple(row[:-1]): row[-1] for row in s.conn.execute(
        f"SELECT * EXCLUDE (n, t), n::VARCHAR || ':' || t::VARCHAR FROM "
        f"(SELECT * EXCLUDE (h), count(*) AS n, sum(h::HUGEINT) AS t FROM ({sql}) GROUP BY ALL)").fetchall()}


def test_digests_from_one_scan_equal_each_taken_from_its_rows(store: Path) -> None:
    """The repositories' digests summed from their PRs' equal those of every row taken at once; each
    PR's digest of its rows and of what its sightings read equal theirs taken alone. A PR whose rows
    are only timeline rows, and one with no row its sightings read, are among them."""
    with Store(store) as s:
        repo, number = s.conn.execute("SELECT repo, number FROM timeline WHERE kind = 'comment' ORDER BY node_id LIMIT 1").fetchone()
        s.conn.execute("DELETE FROM pulls WHERE repo = ? AND number = ?", [repo, number])  # its timeline rows stay
        quiet = s.conn.execute("SELECT repo, number FROM pulls p WHERE NOT EXISTS (SELECT 1 FROM timeline t WHERE "
                               "t.repo = p.repo AND t.number = p.number AND t.kind IN ('comment', 'review', 'ready_for_review')) "
                               "LIMIT 1").fetchone()
        assert s.query("SELECT 1 FROM timeline WHERE repo = ? AND number = ?", [repo, number]) and quiet
        rows = {t: ", ".join(d[0] for d in s.conn.execute(f"SELECT * FROM {t} LIMIT 0").description) for t in
                ("repositories", "community", "pulls", "timeline", "commits", "issues", "dependents", "accounts")}
        key = {"repositories": "name_with_owner"}
        every = " UNION ALL ".join(f"SELECT {key.get(t, 'repo')} AS repo, hash('{t}', {c}) AS h FROM {t}" for t, c in rows.items()
                                   if t != "accounts")
        every += (f" UNION ALL SELECT x.repo, hash('accounts', {', '.join('a.' + c for c in rows['accounts'].split(', '))}) "
                  "FROM accounts a JOIN (SELECT DISTINCT repo, author FROM pulls) x ON a.login = x.author")
        want_repos = {k[0]: v for k, v in _by_rows(s, every).items()}
        want_rows = _by_rows(s, f"SELECT repo, number, hash('pulls', {rows['pulls']}) AS h FROM pulls UNION ALL "
                                f"SELECT repo, number, hash('timeline', {rows['timeline']}) FROM timeline")
        want_inputs = _by_rows(s, "SELECT repo, number, hash('pulls', created_at) AS h FROM pulls UNION ALL "
                                  "SELECT repo, number, hash('timeline', kind, created_at, actor, actor_type, body) FROM timeline "
                                  "WHERE kind IN ('comment', 'review', 'ready_for_review')")
        names = s.repo_names()
        with pr_digests(s) as prs:
            got_repos = input_digests(s, prs)
            got_rows = {(r, n): d for r, n, d, *_ in s.conn.execute(f"SELECT * FROM {pr_rows(s, names, None, prs)}").fetchall()}
            with sighting_plan(s, names, "k", prs=prs):
                got_inputs = {(r, n): d for r, n, d in s.conn.execute("SELECT repo, number, inputs FROM _pr_inputs").fetchall()}
    assert got_repos == want_repos and len(got_repos) == 300
    assert got_rows == want_rows and (repo, number) in got_rows and len(got_rows) > 20_000
    assert got_inputs == want_inputs and (repo, number) in got_inputs and quiet in got_inputs


def test_the_verdicts_the_store_finds_held_are_those_judging_would_find(store: Path) -> None:
    """Which earlier PR verdicts stand for a later day, found by the store as it exports (`held`),
    are exactly those `pulls.holding` finds from the verdicts and the digests: the window's move
    crosses some, and a PR with an edited comment is not held."""
    settings = Settings()
    with Store(store) as s:
        evaluate_store(s, None, settings)
        was = s.snapshot_dates()[-1]
        when = was + timedelta(days=3)
        repo, number, node = s.conn.execute(
            "SELECT repo, number, node_id FROM timeline WHERE kind = 'comment' ORDER BY node_id LIMIT 1").fetchone()
        s.conn.execute("UPDATE timeline SET body = body || ' (edited)' WHERE node_id = ?", [node])
        ends = EarlierDay(was, window(was, settings)[1], window(when, settings)[1])
        names = s.repo_names()
        with pr_digests(s) as prs, sighting_plan(s, names, sightings_key(settings.model_dump_json()), prs=prs) as plan:
            table = plan.pr_rows(names, ends)
            got = {(r, n) for r, n in s.conn.execute(f"SELECT repo, number FROM {table} WHERE held").fetchall()}
            rows: dict[str, dict[int, str]] = {}
            for r, n, d in s.conn.execute(f"SELECT repo, number, rows FROM {table}").fetchall():
                rows.setdefault(r, {})[n] = d
        kept = kept_verdicts(s.conn.sql("SELECT * FROM pr_results WHERE as_of = $1 AND inputs IS NOT NULL", params=[was]).to_arrow_table())
    want = {(r, n) for r, verdicts in kept.items() for n in holding(Earlier(rows.get(r, {}), verdicts, ends.was_end), ends.end)}
    assert got == want
    assert 0 < len(got) < sum(len(v) for v in kept.values()) and (repo, number) in {(r, n) for r in kept for n in kept[r]}
    assert (repo, number) not in got
