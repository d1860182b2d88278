import json
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from porchlamp.cli import app
from porchlamp.emulator import Emulator, WorldIndex
from porchlamp.store import Store

from helpers import tree

runner = CliRunner()
COMMANDS = ["sample-world", "load-world", "collect", "refresh", "merge", "evaluate", "rerank", "report", "publish", "prune", "demo"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_explains_itself(cmd: str) -> None:
    res = runner.invoke(app, [cmd, "--help"])
    assert res.exit_code == 0 and "Usage" in res.output and len(res.output) > 200


def test_sample_world_in_parts(tmp_path: Path) -> None:
    res = runner.invoke(app, ["sample-world", "--repos", "43", "--seed", "4", "--part", "2/2", "--out", str(tmp_path / "p2")])
    assert res.exit_code == 0 and "21 repositories" in res.output
    res = runner.invoke(app, ["sample-world", "--repos", "43", "--part", "0/2", "--out", str(tmp_path / "p0")])
    assert res.exit_code == 2 and "--part '0/2': expected i/n" in res.output and not (tmp_path / "p0").exists()


def test_world_to_report(tmp_path: Path) -> None:
    world, db = tmp_path / "w", tmp_path / "s.duckdb"
    assert runner.invoke(app, ["sample-world", "--repos", "43", "--seed", "4", "--out", str(world)]).exit_code == 0
    res = runner.invoke(app, ["load-world", str(world), "--db", str(db)])
    assert res.exit_code == 0 and "pulls" in res.output
    res = runner.invoke(app, ["evaluate", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "evaluated 43 repositories for 2026-10-15" in res.output
    res = runner.invoke(app, ["report", "--db", str(db), "--format", "json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["as_of"] == "2026-10-15" and sum(data["funnel"].values()) == 43
    table = runner.invoke(app, ["report", "--db", str(db)])
    assert table.exit_code == 0 and "The funnel" in table.output and "Black holes" in table.output
    res = runner.invoke(app, ["evaluate", "--db", str(db), "--workers", "2"])  # a local cluster: the same report
    assert res.exit_code == 0, res.output
    assert "on 2 worker processes, each at most" in res.output
    assert json.loads(runner.invoke(app, ["report", "--db", str(db), "--format", "json"]).stdout) == data
    res = runner.invoke(app, ["evaluate", "--db", str(db), "--full"])  # every evaluation is whole: no such option
    assert res.exit_code == 2 and "--full" in res.output
    res = runner.invoke(app, ["evaluate", "--db", str(db), "--memory", "4MB"])  # too little: one line saying what to do
    assert res.exit_code == 2 and "memory budget" in res.output and "--memory 6GB" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["evaluate", "--db", str(db), "--memory", "plenty"])
    assert res.exit_code == 2 and "not an amount of memory" in res.output
    assert json.loads(runner.invoke(app, ["report", "--db", str(db), "--format", "json"]).stdout) == data  # the stored snapshot stands


def test_publish_on_the_workers_of_a_scheduler_writes_the_same_site(tmp_path: Path) -> None:
    from distributed import LocalCluster

    world, db = tmp_path / "w", tmp_path / "s.duckdb"
    assert runner.invoke(app, ["sample-world", "--repos", "43", "--seed", "5", "--out", str(world)]).exit_code == 0
    assert runner.invoke(app, ["load-world", str(world), "--db", str(db)]).exit_code == 0
    assert runner.invoke(app, ["evaluate", "--db", str(db)]).exit_code == 0
    here, shared = tmp_path / "here", tmp_path / "shared"
    assert runner.invoke(app, ["publish", "--db", str(db), "--out", str(here)]).exit_code == 0
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40) as cluster:
        res = runner.invoke(app, ["publish", "--db", str(db), "--out", str(shared / "site"), "--cluster", cluster.scheduler_address])
    assert res.exit_code == 0, res.output
    assert "published 43 projects" in res.output
    assert tree(shared / "site") == tree(here)
    # The detail files the workers read went beside the site (removed when this process exits).
    beside = sorted(d.name for d in shared.iterdir())
    assert beside[0].startswith(".porchlamp-site-") and beside[1:] == [".site.generations", "site"]
    res = runner.invoke(app, ["publish", "--db", str(db), "--out", str(tmp_path / "none"), "--cluster", "tcp://127.0.0.1:9"])
    assert res.exit_code != 0 and "could not reach the scheduler at tcp://127.0.0.1:9" in res.output
    assert not (tmp_path / "none").exists() and not list(tmp_path.glob(".porchlamp-site-*"))  # failed before reading


def test_errors_are_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "porchlamp.toml"
    bad.write_text("[tiers]\ncap_coverage = 2\n")
    res = runner.invoke(app, ["evaluate", "--db", str(tmp_path / "x.duckdb"), "--config", str(bad)])
    assert res.exit_code == 2 and "tiers.cap_coverage" in res.output and "<= 1.0" in res.output
    res = runner.invoke(app, ["evaluate", "--db", str(tmp_path / "missing.duckdb")])
    assert res.exit_code == 2 and "no store here" in res.output
    res = runner.invoke(app, ["report", "--db", str(tmp_path / "missing.duckdb")])
    assert res.exit_code == 2 and "no store here" in res.output
    res = runner.invoke(app, ["report", "--db", str(tmp_path / "missing.duckdb"), "--format", "xml"])
    assert res.exit_code == 2 and "table or json" in res.output
    res = runner.invoke(app, ["evaluate", "--db", str(tmp_path / "x.duckdb"), "--as-of", "last tuesday"])
    assert res.exit_code == 2 and "date like 2026-10-15" in res.output
    assert "Traceback" not in res.output


def test_refresh_moves_a_store_forward_one_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cron job: a first refresh collects in full, the next day's touches only what moved, and
    running the same day again spends nothing and changes nothing."""
    world, db, site = tmp_path / "w", tmp_path / "s.duckdb", tmp_path / "site"
    assert runner.invoke(app, ["sample-world", "--repos", "43", "--seed", "4", "--out", str(world)]).exit_code == 0
    monkeypatch.setenv("GITHUB_TOKEN", "t0k3n-secret")
    day0, day1 = date(2026, 10, 14), date(2026, 10, 15)

    def refresh(index: WorldIndex, day: date) -> dict:
        stats = tmp_path / f"{day}.json"
        with Emulator(index) as emu:
            res = runner.invoke(app, ["refresh", "--repos-file", str(world / "repos.txt"), "--api", emu.url, "--db", str(db),
                                      "--as-of", day.isoformat(), "--out", str(site), "--stats-json", str(stats)])
        assert res.exit_code == 0, res.output
        assert "t0k3n-secret" not in res.output and "Traceback" not in res.output
        return {"out": " ".join(res.output.split()), **json.loads(stats.read_text())}  # as read, not as wrapped

    first = refresh(WorldIndex(world, clock=day0), day0)
    assert f"refresh for {day0}: first run: all 43 repositories collected in full" in first["out"]
    second = refresh(WorldIndex(world), day1)
    c = second["collected"]
    assert f"refresh for {day1}: since {day0}: {43 - c['unchanged']} of 43 repositories touched" in second["out"]
    assert 0 < c["unchanged"] < 43 and c["points"] < first["collected"]["points"] / 2
    assert "a run 1 day after the last costs about" in second["out"]  # the plan, before anything is spent
    assert "verdicts that moved:" in second["out"] and second["previous"] == day0.isoformat()
    # The day is judged whole; its evaluation says how long each step took.
    assert second["evaluated_repos"] == 43 and "evaluated 43 repositories; verdicts that moved:" in second["out"]
    assert second["evaluate_steps"]["judge"] > 0
    assert json.loads((site / "data" / "v1" / "index.json").read_text())["as_of"] == day1.isoformat()
    # The projects whose verdict and figures hold keep yesterday's files, and the site says so.
    kept = second["published"]["projects_kept"]
    assert 0 < kept < 43 and f"; {kept} of 43 projects' files unchanged, kept from the previous site" in second["out"]
    pages = pq.read_table(site / "data" / "v1" / "pages.parquet").column("since").to_pylist()  # as a reader of the dataset would
    assert sum(since == day0 for since in pages) == kept
    # Those whose own rows held but whose ranks moved are given only their new ranks, and it says how many.
    placed = second["published"]["projects_placed"]
    assert (f"; {placed} given only their new ranks" in second["out"]) == (placed > 0) and kept + placed <= 43
    assert set(second["evaluate_steps"]) >= {"marks", "judge", "write_snapshot"}
    assert set(second["published"]["steps"]) == {"plan", "prune", "site_pages", "projects", "dataset", "audit", "swap"}
    with Store(db, read_only=True) as s:
        assert s.snapshot_dates() == [day0, day1] and s.get_meta("collected_as_of") == day1.isoformat()
    res = runner.invoke(app, ["prune", "--db", str(db), "--keep-days", "1"])
    assert res.exit_code == 0 and "kept all 2 snapshots; nothing to prune" in res.output  # the two latest always stay
    again = refresh(WorldIndex(world), day1)
    assert again["collected"]["points"] == 0 and again["verdicts_moved"] == second["verdicts_moved"]
    assert f"refresh for {day1}: already collected for this day; 43 repositories checked, nothing fetched again" in again["out"]


def test_an_older_store_is_upgraded_with_a_notice_first(tmp_path: Path) -> None:
    from unittest.mock import patch

    from porchlamp.store.schema import LATEST_VERSION, MIGRATIONS

    world, db = tmp_path / "w", tmp_path / "s.duckdb"
    assert runner.invoke(app, ["sample-world", "--repos", "43", "--seed", "4", "--out", str(world)]).exit_code == 0
    with patch("porchlamp.store.db.MIGRATIONS", MIGRATIONS[:7]):
        assert runner.invoke(app, ["load-world", str(world), "--db", str(db)]).exit_code == 0
    res = runner.invoke(app, ["evaluate", "--db", str(db)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert f"upgrading the store to schema version 8 of {LATEST_VERSION}" in said and "stopping it loses nothing" in said
    assert said.index("upgrading the store") < said.index("evaluated 43 repositories")
    again = runner.invoke(app, ["evaluate", "--db", str(db)])
    assert again.exit_code == 0 and "upgrading" not in again.output
