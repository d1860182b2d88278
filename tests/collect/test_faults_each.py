"""Each fault kind of the emulator alone at a high rate, then all together: the collection ends
with exactly the rows of a fault-free run. Prints faults injected and survived per kind."""

from pathlib import Path

import pytest
from collecting import collect_world, raw_contents

from porchlamp.emulator.faults import KINDS


@pytest.fixture(scope="module")
def clean(collected100) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return raw_contents(collected100[0])


@pytest.mark.slow
@pytest.mark.parametrize("spec", [f"{k}=0.2" for k in KINDS] + ["all=0.04"], ids=[*KINDS, "all"])
def test_fault_survived_with_identical_rows(spec: str, world100: Path, clean: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    """On a 100-repository world: one kind at 20% of requests, or all eight at 4% each."""
    rate_spec = f"{spec},slow_seconds=0.01,seed=11"
    summary = collect_world(world100, tmp_path / "f.duckdb", faults=rate_spec)
    injected = sum(summary.retries.values())
    print(f"\n{spec}: {summary.requests} requests, {injected} retried after a fault, {summary.done} repositories collected")
    if not spec.startswith(("slow", "all")):
        assert injected > 0
    assert raw_contents(tmp_path / "f.duckdb") == clean
