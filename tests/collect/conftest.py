from pathlib import Path

import pytest
from collecting import collect_world

from porchlamp.collect import CollectSummary
from porchlamp.emulator import WorldIndex


@pytest.fixture(scope="session")
def collected300(world300: Path, index300: WorldIndex, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CollectSummary]:
    db = tmp_path_factory.mktemp("collected") / "c300.duckdb"
    summary = collect_world(index300, db)
    return db, summary


@pytest.fixture(scope="session")
def world100(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A smaller world for tests that collect it many times (each fault kind alone)."""
    from porchlamp.sample import generate_world

    return generate_world(tmp_path_factory.mktemp("world") / "w100", repos=100, seed=12).path


@pytest.fixture(scope="session")
def collected100(world100: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CollectSummary]:
    db = tmp_path_factory.mktemp("collected") / "c100.duckdb"
    return db, collect_world(WorldIndex(world100), db)
