"""The sample world: a deterministic stand-in for GitHub with the planted answer for every case.

`generate_world` writes one; `load_world` puts one straight into a store (no emulator needed).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from porchlamp.sample.world import TABLES, WorldSummary, generate_world, iter_rows, read_meta, read_truth
from porchlamp.config import Settings
from porchlamp.evaluate.rules import load_rules
from porchlamp.store import Store
from porchlamp.store.marks import ensure_marks

__all__ = ["TABLES", "WorldSummary", "generate_world", "iter_rows", "load_world", "read_meta", "read_truth"]


def load_world(world: str | Path, store: Store) -> dict[str, int]:
    """Upsert every table of a world into the store; returns rows per table."""
    meta = read_meta(world)
    counts = {t: store.load_jsonl(t, Path(world) / f"{t}.jsonl.gz") for t in TABLES}
    ensure_marks(store, load_rules(Settings()))
    store.mark_collected(date.fromisoformat(meta["as_of"]))
    return counts
