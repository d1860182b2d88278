"""Collecting a world through the emulator, for tests: one call, real HTTP."""

from datetime import date
from pathlib import Path
from typing import Any

from porchlamp.collect import CollectOptions, Collector, CollectSummary, GraphQLClient
from porchlamp.emulator import Emulator, Faults, Limits, WorldIndex
from porchlamp.store import RAW_TABLES, Store

AS_OF = date(2026, 10, 15)


def collect_world(world: Path | WorldIndex, db: Path, faults: str | None = None, token: str = "t0k3n",
                  limits: Limits | None = None, repos: list[str] | None = None, as_of: date = AS_OF) -> CollectSummary:
    index = world if isinstance(world, WorldIndex) else WorldIndex(world)
    with Emulator(index, faults=Faults.parse(faults), limits=limits) as emu:
        client = GraphQLClient(emu.url, token, wait_scale=0.001, seed=1)
        try:
            with Store(db) as store:
                names = repos if repos is not None else (index.path / "repos.txt").read_text().split()
                return Collector(store, client, CollectOptions(as_of=as_of, dependents_api=emu.base_url)).run(names)
        finally:
            client.close()


def raw_contents(db: Path) -> dict[str, list[Any]]:
    with Store(db, read_only=True) as s:
        out = {t: s.rows(t) for t in RAW_TABLES}
        out["repo_names"] = sorted(s.repo_names_map().items())
    return out


def world_as_collected(world: Path, as_of: date = AS_OF) -> dict[str, list[Any]]:
    """What a complete collection of `world` for `as_of` holds (porchlamp.sample.collected)."""
    from porchlamp.sample.collected import world_as_collected as expected

    return expected(world, as_of)


def store_records(db: Path) -> dict[str, list[Any]]:
    """Every raw table of a store as records."""
    with Store(db, read_only=True) as s:
        return {t: s.records(t) for t in RAW_TABLES}
