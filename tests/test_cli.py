import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from porchlamp.cli import app

runner = CliRunner()
COMMANDS = ["sample-world", "load-world", "evaluate", "rerank", "report", "demo"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_explains_itself(cmd: str) -> None:
    res = runner.invoke(app, [cmd, "--help"])
    assert res.exit_code == 0 and "Usage" in res.output and len(res.output) > 200


def test_world_to_report(tmp_path: Path) -> None:
    world, db = tmp_path / "w", tmp_path / "s.duckdb"
    assert runner.invoke(app, ["sample-world", "--repos", "40", "--seed", "4", "--out", str(world)]).exit_code == 0
    res = runner.invoke(app, ["load-world", str(world), "--db", str(db)])
    assert res.exit_code == 0 and "pulls" in res.output
    res = runner.invoke(app, ["evaluate", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "evaluated 40 repositories for 2026-10-15" in res.output
    res = runner.invoke(app, ["report", "--db", str(db), "--format", "json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["as_of"] == "2026-10-15" and sum(data["funnel"].values()) == 40
    table = runner.invoke(app, ["report", "--db", str(db)])
    assert table.exit_code == 0 and "The funnel" in table.output and "Black holes" in table.output


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
