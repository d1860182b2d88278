"""Each fault kind of the emulator alone at a high rate, then all together: the collection ends
with exactly the rows of a fault-free run. Prints faults injected and survived per kind."""

from pathlib import Path

import pytest
from collecting import collect_world, raw_contents

from porchlamp.emulator import WorldIndex
from porchlamp.emulator.faults import KINDS
from porchlamp.sample import generate_world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> WorldIndex:
    return WorldIndex(generate_world(tmp_path_factory.mktemp("faults") / "w", repos=40, seed=404).path)


@pytest.fixture(scope="module")
def clean(world: WorldIndex, tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    db = tmp_path_factory.mktemp("clean") / "c.duckdb"
    collect_world(world, db)
    return raw_contents(db)


@pytest.mark.slow
@pytest.mark.parametrize("spec", [f"{k}=0.25" for k in KINDS] + ["all=0.05"], ids=[*KINDS, "all"])
def test_fault_survived_with_identical_rows(spec: str, world: WorldIndex, clean: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    rate_spec = f"{spec},slow_seconds=0.01,seed=11"
    summary = collect_world(world, tmp_path / "f.duckdb", faults=rate_spec)
    injected = sum(summary.retries.values())
    print(f"\n{spec}: {summary.requests} requests, {injected} retried after a fault, {summary.done} repositories collected")
    if not spec.startswith(("slow", "all")):
        assert injected > 0
    assert raw_contents(tmp_path / "f.duckdb") == clean
