"""Collecting a world through the emulator, for tests: one call, real HTTP."""

from datetime import date
from pathlib import Path
from typing import Any

from porchlamp.collect import CollectOptions, Collector, CollectSummary, GraphQLClient
from porchlamp.config import Settings
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


def collect_forges(world: Path | WorldIndex, db: Path, faults: str | None = None, repos: list[str] | None = None,
                   as_of: date = AS_OF, concurrency: int = 2) -> tuple[CollectSummary, dict[str, Any]]:
    """Collect a world whose projects live on GitHub and on GitLab hosts, each through its own emulator
    over real HTTP (GitLab's on a compressed clock); returns the summary and each GitLab emulator's stats."""
    from contextlib import ExitStack

    from porchlamp.collect.gitlab.client import GitLabClient
    from porchlamp.emulator.gitlab import GitLabEmulator, GitLabLimits

    index = world if isinstance(world, WorldIndex) else WorldIndex(world)
    hosts = sorted(index.meta.get("hosts") or {})
    minute = 0.05
    with ExitStack() as stack:
        gh = stack.enter_context(Emulator(index, faults=Faults.parse(faults)))
        clients: dict[str, Any] = {"github.com": GraphQLClient(gh.url, "t0k3n", wait_scale=0.001, seed=1)}
        labs = {}
        for host in hosts:
            # gitlab.com's documented limits; a self-hosted instance sets its own (here: none on /users).
            limits = GitLabLimits(minute_seconds=minute) if host == "gitlab.com" else \
                GitLabLimits(minute_seconds=minute, users_per_ten_minutes=100_000)
            lab = stack.enter_context(GitLabEmulator(index, host, faults=Faults.parse(faults), limits=limits))
            labs[host] = lab
            clients[host] = GitLabClient(lab.url, "gl-t0k3n", host, wait_scale=0.001, seed=1, minute_seconds=minute)
        settings = Settings(hosts={h: {"forge": "gitlab"} for h in hosts if h != "gitlab.com"})
        try:
            with Store(db) as store:
                names = repos if repos is not None else (index.path / "repos.txt").read_text().split()
                summary = Collector(store, clients, CollectOptions(as_of=as_of, dependents_api=gh.base_url, concurrency=concurrency),
                                    settings).run(names)
        finally:
            for c in clients.values():
                c.close()
        return summary, {h: lab.stats.as_dict() for h, lab in labs.items()}


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
