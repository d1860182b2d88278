"""The collector as an operator runs it (a separate process): killed with -9 at random points and
started again, it ends with the same rows; a second one on the same store is refused; the token
never shows up in anything it writes."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from collecting import raw_contents

from porchlamp.emulator import Emulator, Limits, WorldIndex
from porchlamp.sample import generate_world
from porchlamp.store import Store, StoreError
from porchlamp.store.schema import LATEST_VERSION

SECRET = "ghp_" + "Zq7" * 12  # looks like a real token; built here so no token-shaped string is committed


def _cli(args: list[str], token: str = SECRET, env_extra: dict[str, str] | None = None, **kw) -> subprocess.Popen:  # type: ignore[no-untyped-def, type-arg]
    env = {**os.environ, "GITHUB_TOKEN": token, "PORCHLAMP_WAIT_SCALE": "0.001", "COLUMNS": "200", **(env_extra or {})}
    return subprocess.Popen([sys.executable, "-m", "porchlamp", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def _collect_args(world: Path, db: Path, emu: Emulator, *extra: str) -> list[str]:
    return ["collect", "--repos-file", str(world / "repos.txt"), "--api", emu.url, "--db", str(db), "--as-of", "2026-10-15",
            "--dependents-api", emu.base_url, *extra]


@pytest.fixture(scope="module")
def small_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_world(tmp_path_factory.mktemp("small") / "w", repos=60, seed=808).path


def _served(emu: Emulator) -> int:
    with emu._lock:
        return emu.stats.requests


@pytest.mark.slow
def test_kill_nine_at_ten_points_then_resume(small_world: Path, tmp_path: Path) -> None:
    """Killed after a random number of the whole run's requests were answered: by progress, not by
    wall time, so a busy or idle machine kills at the same points."""
    index = WorldIndex(small_world)
    with Emulator(index) as emu:
        before = _served(emu)
        whole = _cli(_collect_args(small_world, tmp_path / "whole.duckdb", emu))
        assert whole.wait(600) == 0, whole.stderr.read()  # type: ignore[union-attr]
        requests = _served(emu) - before
        expected = raw_contents(tmp_path / "whole.duckdb")
        rng = random.Random(2026)
        kills = 0
        for point in range(10):
            db = tmp_path / f"killed{point}.duckdb"
            at = rng.randint(2, requests - 2)  # past the token check, before the last answer
            before = _served(emu)
            run = _cli(_collect_args(small_world, db, emu))
            while run.poll() is None and _served(emu) - before < at:
                time.sleep(0.002)
            if run.poll() is None:
                run.send_signal(signal.SIGKILL)
                kills += 1
            run.wait(60)
            resumed = _cli(_collect_args(small_world, db, emu))
            out, err = resumed.communicate(timeout=600)
            assert resumed.returncode == 0, err
            assert raw_contents(db) == expected, f"kill point {point}"
        assert kills == 10 and requests > 20


NAMED_POINTS = ["migration:1", "migration:2", "migration:3", "migration:4", "migration:5", "page_received:1", "page_received:9", "page_received:40",
                "before_commit:1", "before_commit:8", "before_commit:20", "before_commit:38"]  # of 43 in this run


@pytest.mark.slow
def test_kill_nine_at_named_points_then_resume(small_world: Path, tmp_path: Path) -> None:
    """Exactly where a crash hurts most: inside each migration (before its version is recorded),
    with a page received but nothing of it written, and inside a transaction just before COMMIT."""
    with Emulator(WorldIndex(small_world)) as emu:
        whole = _cli(_collect_args(small_world, tmp_path / "whole.duckdb", emu))
        assert whole.wait(600) == 0, whole.stderr.read()  # type: ignore[union-attr]
        expected = raw_contents(tmp_path / "whole.duckdb")
        for point in NAMED_POINTS:
            db = tmp_path / f"{point.replace(':', '-')}.duckdb"
            killed = _cli(_collect_args(small_world, db, emu), env_extra={"PORCHLAMP_KILL_AT": point})
            killed.communicate(timeout=600)
            assert killed.returncode == -signal.SIGKILL, f"{point} was never reached"
            if point.startswith("migration:"):  # the store is left at the version before, and says so
                with pytest.raises(StoreError, match=f"schema version {int(point.split(':')[1]) - 1} is older than {LATEST_VERSION}"):
                    Store(db, read_only=True)
            resumed = _cli(_collect_args(small_world, db, emu))
            out, err = resumed.communicate(timeout=600)
            assert resumed.returncode == 0, err
            assert raw_contents(db) == expected, f"kill point {point}"


def test_second_collector_is_refused(small_world: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Emulator(WorldIndex(small_world)) as emu, Store(db):
        run = _cli(_collect_args(small_world, db, emu))
        out, err = run.communicate(timeout=120)
    assert run.returncode == 2 and "in use by another Porchlamp process" in err


def test_token_never_leaks(small_world: Path, tmp_path: Path) -> None:
    db, stats = tmp_path / "s.duckdb", tmp_path / "stats.json"
    outputs = []
    with Emulator(WorldIndex(small_world)) as emu:
        run = _cli(_collect_args(small_world, db, emu, "--stats-json", str(stats)))
        outputs += list(run.communicate(timeout=300))
        assert run.returncode == 0, outputs[-1]
    for args in (["evaluate", "--db", str(db)], ["report", "--db", str(db), "--format", "json"], ["report", "--db", str(db)]):
        run = _cli(args)
        outputs += list(run.communicate(timeout=300))
        assert run.returncode == 0
    # A refused token: the error names the problem, never the token.
    with Emulator(WorldIndex(small_world), limits=Limits(valid_tokens=frozenset({"another"}))) as emu:
        run = _cli(_collect_args(small_world, tmp_path / "refused.duckdb", emu))
        outputs += list(run.communicate(timeout=120))
        assert run.returncode == 2 and "refused the token" in outputs[-1]
    assert json.loads(stats.read_text())["prs"] > 0
    everything = "\n".join(outputs) + stats.read_text()
    assert SECRET not in everything and SECRET[:12] not in everything
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f


def test_token_without_scope_stops_with_a_clear_error(small_world: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    with Emulator(WorldIndex(small_world), limits=Limits(scopeless_tokens=frozenset({SECRET}))) as emu:
        run = _cli(_collect_args(small_world, db, emu))
        out, err = run.communicate(timeout=120)
    assert run.returncode == 2
    assert "lacks a scope" in err and "repo_meta" in err and "nothing collected so far is lost" in err
    assert SECRET not in out + err
    assert "Traceback" not in err


def test_missing_token_is_a_clear_error(small_world: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
    env["PATH"] = "/nonexistent"  # no `gh` to ask either
    run = subprocess.run([sys.executable, "-m", "porchlamp", "collect", "--repos-file", str(small_world / "repos.txt"),
                          "--db", str(tmp_path / "s.duckdb"), "--api", "http://127.0.0.1:9/graphql"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "no GitHub token" in run.stderr
