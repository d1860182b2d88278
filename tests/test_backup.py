"""Importing a real project's complete PR history from a backup: stored as the collector would have,
twice the same as once, bad files refused with their path and nothing lost."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import REAL_PROJECTS
from porchlamp.backup import BackupError, import_backup
from porchlamp.cli import app
from porchlamp.store import Store
from porchlamp.store.schema import RAW_TABLES


def _rows(db: Path) -> dict[str, list[tuple]]:  # type: ignore[type-arg]
    with Store(db, read_only=True) as store:
        return {t: sorted(store.rows(t), key=repr) for t in RAW_TABLES}


@pytest.fixture()
def secp(real_backups: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the secp256k1 backup this test may spoil."""
    return Path(shutil.copytree(real_backups["secp256k1"], tmp_path / "secp"))


def test_a_backup_is_stored_as_the_collector_would_store_it(real_store: Path, real_backups: dict[str, Path]) -> None:
    with Store(real_store, read_only=True) as store:
        files = {n: len(list((real_backups[n] / "pulls").glob("*.json"))) for n in REAL_PROJECTS}
        per_repo = {r["repo"]: r["n"] for r in store.query("SELECT repo, count(*) AS n FROM pulls GROUP BY repo")}
        assert per_repo == {REAL_PROJECTS[n][0]: files[n] for n in REAL_PROJECTS}
        # secp256k1 #1859: closed by its author, reopened 4 seconds later, then merged
        kinds = [r["kind"] for r in store.query(
            "SELECT kind FROM timeline WHERE repo = 'bitcoin-core/secp256k1' AND number = 1859 "
            "AND kind IN ('closed', 'reopened', 'merged') ORDER BY created_at, node_id")]
        assert kinds[:2] == ["closed", "reopened"] and "merged" in kinds
        pr = store.query("SELECT state, author, author_type, merged_by FROM pulls WHERE repo = 'bitcoin-core/secp256k1' AND number = 1859")[0]
        assert pr["state"] == "MERGED" and pr["author"] == "l0rinc" and pr["author_type"] == "User" and pr["merged_by"]
        repo = store.query("SELECT primary_language, license_spdx, languages, root_files FROM repositories "
                           "WHERE name_with_owner = 'bitcoin/bips'")[0]
        # What the backup lacks is missing, never invented: no breakdown by bytes, no files.
        assert repo["primary_language"] == "Wikitext" and repo["license_spdx"] is None
        assert not repo["languages"] and not repo["root_files"]
        ages = store.query("SELECT count(*) AS n, count(created_at) AS known FROM accounts")[0]
        assert ages["n"] > 600 and ages["known"] == 0
        bots = {r["login"] for r in store.query("SELECT login FROM accounts WHERE type = 'Bot'")}
        assert "dependabot[bot]" in bots
        # Each merge into the default branch stands for a commit there, by whoever merged it.
        merges = store.query("SELECT count(*) AS n FROM commits WHERE repo = 'bitcoin-core/gui'")[0]["n"]
        assert merges > 50
        # Reviews keep their state; a pending one was never sent and is not stored.
        states = {r["review_state"] for r in store.query("SELECT DISTINCT review_state FROM timeline WHERE kind = 'review'")}
        assert "APPROVED" in states and "PENDING" not in states


def test_importing_twice_changes_nothing(secp: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        import_backup(store, secp, "bitcoin-core/secp256k1", "MIT")
    once = _rows(db)
    with Store(db) as store:
        import_backup(store, secp, "bitcoin-core/secp256k1", "MIT")
    assert _rows(db) == once and len(once["pulls"]) > 800


@pytest.mark.parametrize(("spoil", "said"), [
    (lambda d: "{not json", "is not JSON"),
    (lambda d: json.dumps({**d, "pull": {**d["pull"], "base": {"repo": {"full_name": "someone/else"}}}}), "not of bitcoin-core/secp256k1"),
    (lambda d: json.dumps({**d, "pull": {**d["pull"], "user": {"login": "<script>alert(1)</script>", "type": "User"}}}),
     "no valid GitHub login"),
    (lambda d: json.dumps({**d, "pull": {**d["pull"], "created_at": "yesterday"}}), "not an ISO 8601 time"),
    (lambda d: json.dumps({**d, "events": "nothing"}), "must be lists"),
    (lambda d: json.dumps({**d, "pull": {**d["pull"], "number": 1}}), "holds PR 1, not PR"),
    (lambda d: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_a_bad_file_is_refused_with_its_path_and_nothing_already_imported_is_lost(secp: Path, tmp_path: Path, spoil, said: str) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        import_backup(store, secp, "bitcoin-core/secp256k1", "MIT")
    before = _rows(db)
    victim = secp / "pulls" / "1859.json"
    victim.write_text(spoil(json.loads(victim.read_text())))
    with Store(db) as store, pytest.raises(BackupError) as err:
        import_backup(store, secp, "bitcoin-core/secp256k1", "MIT")
    assert str(victim) in str(err.value) and said in str(err.value) and "nothing written" in str(err.value)
    assert _rows(db) == before


def test_the_command_imports_and_evaluate_judges_any_date_the_history_covers(secp: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    runner = CliRunner()
    done = runner.invoke(app, ["import", str(secp), "--repo", "bitcoin-core/secp256k1", "--license", "MIT", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert "it covers 20" in done.output and "to 2026-08-2" in done.output and "left missing" in done.output
    judged = runner.invoke(app, ["evaluate", "--db", str(db), "--as-of", "2025-10-01"])
    assert judged.exit_code == 0, judged.output
    with Store(db, read_only=True) as store:
        assert store.query("SELECT status FROM results WHERE as_of = DATE '2025-10-01'")[0]["status"] == "ranked"
    # One bad file: refused by name, the rest kept with --skip-bad, and the exit says something was refused.
    (secp / "pulls" / "1720.json").write_text("{}")
    refused = runner.invoke(app, ["import", str(secp), "--repo", "bitcoin-core/secp256k1", "--db", str(db)])
    assert refused.exit_code == 2 and "1720.json" in refused.output
    kept = runner.invoke(app, ["import", str(secp), "--repo", "bitcoin-core/secp256k1", "--db", str(db), "--skip-bad"])
    assert kept.exit_code == 1 and "refused" in kept.output
    wrong = runner.invoke(app, ["import", str(tmp_path / "nowhere"), "--repo", "a/b", "--db", str(db)])
    assert wrong.exit_code == 2 and "no such folder" in wrong.output


def test_review_comments_stand_for_a_review_the_timeline_lacks(tmp_path: Path, secp: Path) -> None:
    doc = json.loads((secp / "pulls" / "1859.json").read_text())
    doc["events"] = [e for e in doc["events"] if e.get("event") != "reviewed"]
    doc["comments"] = [{"id": 1, "pull_request_review_id": 77, "created_at": "2026-05-01T10:00:00Z", "body": "nit",
                        "user": {"login": "reviewer-x", "type": "User"}, "author_association": "CONTRIBUTOR"}]
    (secp / "pulls" / "1859.json").write_text(json.dumps(doc))
    db = tmp_path / "r.duckdb"
    with Store(db) as store:
        import_backup(store, secp, "bitcoin-core/secp256k1")
        got = store.query("SELECT actor, created_at, review_state FROM timeline WHERE node_id = 'review:77'")
    assert got == [{"actor": "reviewer-x", "created_at": datetime(2026, 5, 1, 10), "review_state": "COMMENTED"}]


def test_a_projects_page_says_what_its_backup_could_not_show(real_store: Path, tmp_path: Path) -> None:
    """Its verdict, its page and its record name what the backup lacks, until the collector reads it."""
    from porchlamp.publish import load_site_data, publish
    from porchlamp.publish.data import project_files

    db = tmp_path / "r.duckdb"
    db.write_bytes(real_store.read_bytes())
    with Store(db) as store:
        publish(load_site_data(store), tmp_path / "site")
    for repo, licence in REAL_PROJECTS.values():
        files = project_files(repo)
        page = (tmp_path / "site" / files.page).read_text()
        said = page.split('class="note unseen">', 1)[1].split("</p>", 1)[0]
        assert said.startswith("Read from a metadata backup of its pull requests, not collected from GitHub, so it could not see ")
        assert "languages by bytes" in said and "account ages" in said
        assert ("its licence" in said) == (licence is None)
        assert ("named when it was imported" in said) == (licence is not None)
        record = json.loads((tmp_path / "site" / files.record).read_text())
        assert "community files" in record["evidence"]["unseen"]["missing"]
    # Once collected from GitHub, the project is no longer said to come from a backup.
    from datetime import date

    from porchlamp.config import Settings
    from porchlamp.snapshot import evaluate_store
    with Store(db) as store:
        imported = store.states("import")[("bitcoin/bips", "import")]["as_of"]
        with store.transaction():
            store.set_states([("bitcoin/bips", "meta", imported, "done", None, None)])
        evaluate_store(store, date(2026, 8, 2), Settings())
        unseen = {r["repo"]: "unseen" in json.loads(r["evidence"])
                  for r in store.query("SELECT repo, evidence FROM results WHERE as_of = DATE '2026-08-02'")}
    assert unseen == {"bitcoin/bips": False, "bitcoin-core/secp256k1": True, "bitcoin-core/gui": True}
