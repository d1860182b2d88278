"""The benchmarks still run (at 100 repositories, the upgrade and the publish on a cluster at 300): they are
measured by hand, never timed here."""

import json
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from porchlamp.config import Settings
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_bench_redirects_cv_small() -> None:
    """The cross-validation reads only the tune split and prints both models' out-of-fold figures."""
    res = subprocess.run([sys.executable, str(BENCH / "redirects_cv.py"), "--folds", "2"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    found = [tuple(map(int, re.findall(r"(\d+)/(\d+)", line)[0])) for line in res.stdout.splitlines()]
    assert len(found) == 2 and all(0 < got <= of for got, of in found) and found[0][1] > 100


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
    # The same store evaluated by an earlier commit (here HEAD itself) and by this checkout, alternating.
    against = subprocess.run([sys.executable, str(BENCH / "evaluate_against.py"), "--store", str(tmp_path / "store100.duckdb"),
                              "--commit", "HEAD", "--rounds", "1"], capture_output=True, text=True, timeout=600)
    assert against.returncode == 0, against.stderr[-2000:]
    *runs, ratios = map(json.loads, against.stdout.strip().splitlines())
    assert [r["code"] for r in runs] == ["HEAD", "checkout"] and all(r["repos"] == 100 for r in runs) and ratios["wall_ratio"] > 0


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
    assert (tmp_path / "earlier.duckdb").is_file() and (tmp_path / "later.duckdb").is_file()  # kept for evaluating by hand


@pytest.mark.slow
def test_bench_upgrade_store_small(store300: Path, tmp_path: Path) -> None:
    """An evaluated store made into one schema 11 left, with three days, upgrades and reads the same."""
    figures = _on_evaluated(store300, tmp_path, "upgrade_store.py", "--schema", "11", "--days", "3")
    assert figures["reads_the_same"] and figures["rows"]["results"] == 3 * 300 and figures["rows"]["pr_results"] > 3 * 300


def test_bench_store_verdicts_small(store300: Path, tmp_path: Path) -> None:
    """The latest snapshot's PR verdicts stored with every column, without the PR's own, and keys only."""
    db = tmp_path / "s.duckdb"
    shutil.copyfile(store300, db)
    with Store(db) as s:
        evaluate_store(s, date.fromisoformat(s.get_meta("collected_as_of")), Settings())
        listed = s.count("snapshot_prs")
    res = subprocess.run([sys.executable, str(BENCH / "store_verdicts.py"), "--store", str(db), "--rounds", "1"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    runs = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["columns"] for r in runs] == ["every column", "without the PR's own columns", "keys only"]
    assert all(r["rows"] == listed > 1000 for r in runs) and runs[0]["count"] - runs[1]["count"] == 5 and runs[2]["count"] == 3
    assert not list(tmp_path.glob("tmp*"))  # the copy is removed


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
def test_bench_engines_small(tmp_path: Path) -> None:
    """The engine it replaced and this one, on the same 100-repository world: every result row equal."""
    res = subprocess.run([sys.executable, str(BENCH / "engines.py"), "--repos", "100", "--seed", "5", "--work", str(tmp_path)],
                         capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    figures = json.loads(res.stdout)
    assert figures["tables"]["results"]["rows"] == 100 and figures["tables"]["pr_results"]["rows"] > 1000
    assert all(t["old_only"] == t["new_only"] == 0 for t in figures["tables"].values())
    assert figures["old"]["evaluate_seconds"] > 0 and figures["new"]["evaluate_peak_mb"] > 0
    assert figures["lines"]["old"] > 0 and figures["lines"]["new"] > 0  # both counted; RESULTS compares them
    day = figures["new_next_day"]  # only the window moved: most verdicts are listed again, few stored
    assert day["pr_verdicts_listed"] == figures["tables"]["pr_results"]["rows"] > 10 * day["pr_verdicts_stored"] > 0


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
