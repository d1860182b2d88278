"""Shared fixtures: sample worlds generated once per session, and stores loaded from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from porchlamp.emulator import WorldIndex
from porchlamp.sample import generate_world, load_world
from porchlamp.store import Store

WORLD_SEED = 11  # the seed most tests share; agreement tests use seeds of their own


@pytest.fixture(scope="session")
def world300(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("world") / "w300"
    generate_world(out, repos=300, seed=WORLD_SEED)
    return out


@pytest.fixture(scope="session")
def store300(world300: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("store") / "w300.duckdb"
    with Store(db) as store:
        load_world(world300, store)
    return db


@pytest.fixture(scope="session")
def index300(world300: Path) -> WorldIndex:
    """The 300-repository world as the emulator serves it."""
    return WorldIndex(world300)
