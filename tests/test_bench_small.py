"""The benchmarks still run (at 100 repositories, the upgrade and the publish on a cluster at 300): they are
measured by hand, never timed here."""

import json
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from porchlamp.config import Settings
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.mark.slow
def test_bench_run_small(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, str(BENCH / "run.py"), "--small", "--work", str(tmp_path)], capture_output=True, text=True,
                         timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    records = {r["benchmark"]: r for r in map(json.loads, res.stdout.strip().splitlines())}
    assert set(records) >= {"generate_world", "load_world", "evaluate", "rerank", "publish", "page"}
    assert records["evaluate"]["repos"] == 100 and records["page"]["home_bytes"] > 0
    assert records["page"]["index_bytes"] > 0 and records["page"]["first_change_of_view_ms"] > 0  # the index came on the first change
    rest = subprocess.run([sys.executable, str(BENCH / "rest_equivalent.py"), str(tmp_path / "world100")], capture_output=True,
                          text=True, timeout=300)
    assert rest.returncode == 0, rest.stderr[-2000:]
    assert json.loads(rest.stdout)["requests"] > json.loads(rest.stdout)["prs_in_window"]


@pytest.mark.slow
def test_bench_emulator_rps_small() -> None:
    res = subprocess.run([sys.executable, str(BENCH / "emulator_rps.py"), "--repos", "50", "--seconds", "2", "--clients", "2"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert json.loads(res.stdout)["requests"] > 0


@pytest.mark.slow
def test_bench_collect_cost_small(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, str(BENCH / "collect_cost.py"), "--repos", "100", "--days", "1", "--keep", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads(res.stdout)
    assert data["full"]["prs"] > 0 and data["full"]["failed"] == {} and data["earlier"]["failed"] == {} and data["days"] == 1
    assert data["incremental"]["unchanged"] > 0
    assert data["incremental"]["prs"] > 0 and 0 < data["incremental_share_of_full"] < 1
    # The two collections it kept, evaluated as a day after the other.
    day = subprocess.run([sys.executable, str(BENCH / "evaluate_daily.py"), "--earlier", str(tmp_path / "earlier.duckdb"),
                          "--later", str(tmp_path / "later.duckdb"), "--workers", "1", "--work", str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=600)
    assert day.returncode == 0, day.stderr[-2000:]
    figures = json.loads(day.stdout)
    assert figures["equal_rows"] and figures["first"]["as_of"] == "2026-10-15" and figures["daily"]["as_of"] == "2026-10-16"
    assert 0 < figures["daily"]["carried"] < figures["daily"]["repos"] == 100


@pytest.mark.slow
def test_bench_upgrade_store_small(store300: Path, tmp_path: Path) -> None:
    """An evaluated store made into one schema 11 left, with three days, upgrades and reads the same."""
    figures = _on_evaluated(store300, tmp_path, "upgrade_store.py", "--schema", "11", "--days", "3")
    assert figures["reads_the_same"] and figures["rows"]["results"] == 3 * 300 and figures["rows"]["pr_results"] > 3 * 300


@pytest.mark.slow
def test_bench_publish_cluster_small(store300: Path, tmp_path: Path) -> None:
    """The pool's site and the cluster's, one publish each, equal byte for byte."""
    figures = _on_evaluated(store300, tmp_path, "publish_cluster.py", "--runs", "1")
    assert figures["equal"] and figures["pool"][0]["projects"] == figures["cluster"][0]["projects"] == 300
    assert figures["pool"][0]["pages"] == figures["cluster"][0]["pages"] and len(figures["worker_peak_mb"]) == 2


def _on_evaluated(store: Path, tmp_path: Path, script: str, *args: str) -> dict:  # type: ignore[type-arg]
    """A benchmark's figures, run on a copy of `store` evaluated for its collection day."""
    db = tmp_path / "s.duckdb"
    shutil.copyfile(store, db)
    with Store(db) as s:
        evaluate_store(s, date.fromisoformat(s.get_meta("collected_as_of")), Settings())
    res = subprocess.run([sys.executable, str(BENCH / script), "--store", str(db), "--work", str(tmp_path / "work"), *args],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_bench_judge_day_small(store300: Path, tmp_path: Path) -> None:
    """A window-only day's judging, run again from the inputs it had: the same outcomes each time."""
    res = subprocess.run([sys.executable, str(BENCH / "judge_day.py"), "--store", str(store300), "--runs", "2", "--workers", "1",
                          "--work", str(tmp_path), "--profile", str(tmp_path / "day.prof")], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    figures = json.loads(res.stdout)
    with Store(store300, read_only=True) as s:
        collected = date.fromisoformat(s.get_meta("collected_as_of"))
    day = figures["day"]
    assert day["as_of"] == (collected + timedelta(days=2)).isoformat() and day["repos"] == 300
    assert day["reused_prs"] > day["judged_prs"] > 0 and 0 < day["carried"] < 300
    assert figures["tasks"] >= 1 and len(figures["runs"]) == 2 and (tmp_path / "day.prof").stat().st_size > 0
    assert not list(tmp_path.glob("*/day.duckdb"))  # the copy and the shards are removed


@pytest.mark.slow
def test_bench_day_cpu_small(store300: Path, tmp_path: Path) -> None:
    """A day after an evaluated one, on two workers: its CPU by step, the workers' apart, and no more
    CPU than the machine's cores could give in its wall time."""
    db = tmp_path / "s.duckdb"
    shutil.copyfile(store300, db)
    with Store(db) as s:
        first = evaluate_store(s, None, Settings()).as_of
        s.mark_collected(first + timedelta(days=1))  # only the window moves
    res = subprocess.run([sys.executable, str(BENCH / "day_cpu.py"), "--store", str(db), "--day", str(first + timedelta(days=1)),
                          "--runs", "1", "--workers", "2", "--work", str(tmp_path / "w")], capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    (run,) = json.loads(res.stdout)["runs"]
    assert run["kept_prs"] > run["judged_prs"] > 0 and run["carried"] > 0
    assert run["workers_cpu"] > 0 and run["caller_cpu"] == pytest.approx(sum(v["cpu"] for v in run["steps"].values()), abs=0.05)
    assert run["steps"]["judge"]["seconds"] > 0 and "export" in run["steps"]
    assert 0 < run["least_seconds"] <= run["seconds"] + 0.05
    assert not list((tmp_path / "w").glob("*/day.duckdb"))  # the copy is removed
    bad = subprocess.run([sys.executable, str(BENCH / "day_cpu.py"), "--store", str(tmp_path / "none.duckdb"), "--day", "2026-10-16"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "is not a store file" in bad.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind counts the instructions (.ci/run installs it)")
def test_bench_judge_instructions_small(store300: Path, tmp_path: Path) -> None:
    """A full evaluation's first judging task, its instructions counted: judging takes most of them."""
    res = subprocess.run([sys.executable, str(BENCH / "judge_instructions.py"), "--store", str(store300),
                          "--code", str(BENCH.parent), "--tasks", "0", "--work", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    figures = json.loads(res.stdout)
    (count,) = figures["counts"]
    assert figures["kind"] == "full evaluation" and figures["of_tasks"] >= 1 and count["ratio"] == 1.0
    assert count["instructions"] > count["judging"] > count["without_judging"] > 0
    assert not list(tmp_path.glob("*/s.duckdb"))  # the copy and the shards are removed


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind counts the instructions (.ci/run installs it)")
def test_bench_publish_instructions_small(store300: Path, tmp_path: Path) -> None:
    """Thirty projects' files written again, their instructions counted: the store is evaluated first."""
    res = subprocess.run([sys.executable, str(BENCH / "publish_instructions.py"), "--store", str(store300),
                          "--code", str(BENCH.parent), "--projects", "30", "--work", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    figures = json.loads(res.stdout)
    (count,) = figures["counts"]
    assert figures["projects"] == 30 and figures["files"] == 4 * 30 and count["ratio"] == 1.0
    assert count["instructions"] > count["without_writing_again"] > count["writing"] > 0
    assert not list(tmp_path.glob("*/s.duckdb"))  # the copy and the parts are removed
