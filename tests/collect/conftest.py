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
