"""The sample world: a deterministic stand-in for GitHub with the planted answer for every case.

`generate_world` writes one; `load_world` puts one straight into a store (no emulator needed).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from porchlamp import forges
from porchlamp.collect.forgejo.mapping import OWNER as FORGEJO_OWNER
from porchlamp.collect.forgejo.mapping import WRITE as FORGEJO_WRITE
from porchlamp.models import Member
from porchlamp.sample.associations import ACCESS_LEVELS
from porchlamp.sample.world import TABLES, WorldSummary, generate_world, iter_rows, read_meta, read_truth
from porchlamp.config import Settings
from porchlamp.evaluate.rules import load_rules
from porchlamp.store import Store
from porchlamp.store.marks import ensure_marks

__all__ = ["TABLES", "WorldSummary", "generate_world", "iter_rows", "load_world", "read_meta", "read_truth"]


def load_world(world: str | Path, store: Store) -> dict[str, int]:
    """Upsert every table of a world into the store; returns rows per table. A project on a GitLab or
    Forgejo host is stored as its forge shows it: no association on anything, its members (roles, those
    GitHub hides too) with their access levels (Forgejo's: the owner, else write access), and its people
    as accounts of that host. Account types are the world's: what the Forgejo emulator shows of bots
    (no flag) comes only through collection."""
    meta = read_meta(world)
    counts = {t: store.load_jsonl(t, Path(world) / f"{t}.jsonl.gz") for t in TABLES}
    forge_of: dict[str, str] = meta.get("hosts") or {}
    hosts = sorted(forge_of)
    if hosts:
        def level(host: str, role: str) -> int:
            if forge_of[host] == "forgejo":
                return FORGEJO_OWNER if role == "OWNER" else FORGEJO_WRITE
            return ACCESS_LEVELS[role]
        members = [Member(r["repo"], r["login"], level(forges.host_of(r["repo"]), r["role"])) for r in iter_rows(world, "roles")
                   if forges.host_of(r["repo"]) in forge_of]
        with store.transaction():
            counts["members"] = store.upsert(members)
            store.gitlab_as_shown(hosts)
    else:
        counts["members"] = 0
    ensure_marks(store, load_rules(Settings()))
    store.mark_collected(date.fromisoformat(meta["as_of"]))
    return counts
