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


# Real projects' complete PR histories (tests/data/backups/README.md), imported and judged at these dates.
REAL_PROJECTS = {"secp256k1": ("bitcoin-core/secp256k1", "MIT"), "bips": ("bitcoin/bips", None), "gui": ("bitcoin-core/gui", "MIT")}
REAL_DATES = ("2025-06-01", "2025-10-01", "2026-01-15", "2026-04-01", "2026-08-01")


@pytest.fixture(scope="session")
def real_backups(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each real project's backup, unpacked as its backup tool laid it out (state.json, pulls/N.json)."""
    import tarfile

    out = {}
    for name in REAL_PROJECTS:
        folder = tmp_path_factory.mktemp(f"backup-{name}")
        with tarfile.open(Path(__file__).parent / "data" / "backups" / f"{name}.tar.xz") as tar:
            tar.extractall(folder, filter="data")
        out[name] = folder
    return out


@pytest.fixture(scope="session")
def real_store(real_backups: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three real projects imported into one store and evaluated at every date of REAL_DATES."""
    from datetime import date

    from porchlamp.backup import import_backup
    from porchlamp.config import Settings
    from porchlamp.snapshot import evaluate_store

    db = tmp_path_factory.mktemp("real") / "real.duckdb"
    with Store(db) as store:
        for name, (repo, licence) in REAL_PROJECTS.items():
            import_backup(store, real_backups[name], repo, licence)
        for day in REAL_DATES:
            evaluate_store(store, date.fromisoformat(day), Settings())
    return db
