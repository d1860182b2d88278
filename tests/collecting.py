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
    """Collect a world whose projects live on GitHub, GitLab and Forgejo hosts, each through its own
    emulator over real HTTP (GitLab's and Forgejo's on a compressed clock); returns the summary and each
    other host's emulator's stats."""
    from contextlib import ExitStack

    from porchlamp.collect.forgejo.client import ForgejoClient
    from porchlamp.collect.gitlab.client import GitLabClient
    from porchlamp.emulator.forgejo import ForgejoEmulator, ForgejoLimits
    from porchlamp.emulator.gitlab import GitLabEmulator, GitLabLimits

    index = world if isinstance(world, WorldIndex) else WorldIndex(world)
    hosts = sorted(index.meta.get("hosts") or {})
    minute = 0.05
    with ExitStack() as stack:
        gh = stack.enter_context(Emulator(index, faults=Faults.parse(faults)))
        clients: dict[str, Any] = {"github.com": GraphQLClient(gh.url, "t0k3n", wait_scale=0.001, seed=1)}
        labs = {}
        forge_of = index.meta.get("hosts") or {}
        for host in hosts:
            if forge_of[host] == "forgejo":
                # The emulator's proxy allows 2,000 a minute; the client keeps its own, lower, pace per host.
                fj = stack.enter_context(ForgejoEmulator(index, host, faults=Faults.parse(faults),
                                                         limits=ForgejoLimits(minute_seconds=minute)))
                labs[host] = fj
                clients[host] = ForgejoClient(fj.url, "fj-t0k3n", host, wait_scale=0.001, seed=1, minute_seconds=minute,
                                              per_minute=1_500)
                continue
            # gitlab.com's documented limits; a self-hosted instance sets its own (here: none on /users).
            limits = GitLabLimits(minute_seconds=minute) if host == "gitlab.com" else \
                GitLabLimits(minute_seconds=minute, users_per_ten_minutes=100_000)
            lab = stack.enter_context(GitLabEmulator(index, host, faults=Faults.parse(faults), limits=limits))
            labs[host] = lab
            clients[host] = GitLabClient(lab.url, "gl-t0k3n", host, wait_scale=0.001, seed=1, minute_seconds=minute)
        settings = Settings(hosts={h: {"forge": forge_of[h]} for h in hosts if h not in ("gitlab.com", "codeberg.org")})
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


def collect_killed_and_resumed(tmp: Path, host: str, url: str, token_variable: str, secret: str, config: str,
                               emulated: Any, seed: int, points: int = 3) -> None:
    """`porchlamp collect` on `tmp/repos.txt` of one forge host (its emulator at `url`, counting requests
    in `emulated.stats.requests`), as an operator runs it: once whole, then `points` times killed with
    -9 after a random share of those requests and run again; each ends with the rows of the unbroken
    run, and the token is in nothing any of them wrote or said."""
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    (tmp / "porchlamp.toml").write_text(config)
    env = {**os.environ, token_variable: secret, "PORCHLAMP_WAIT_SCALE": "0.001", "COLUMNS": "200"}

    def run(db: Path) -> subprocess.Popen:  # type: ignore[type-arg]
        return subprocess.Popen([sys.executable, "-m", "porchlamp", "collect", "--repos-file", str(tmp / "repos.txt"), "--db", str(db),
                                 "--as-of", "2026-10-15", "--dependents-api", "", "--config", str(tmp / "porchlamp.toml"),
                                 "--host-api", f"{host}={url}"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    whole = run(tmp / "whole.duckdb")
    out, err = whole.communicate(timeout=600)
    assert whole.returncode == 0, err
    assert f"{host}: token accepted" in out + err and secret not in out + err
    requests = emulated.stats.requests
    rng = random.Random(seed)
    for point in range(points):
        db = tmp / f"killed{point}.duckdb"
        at, before = rng.randint(5, requests - 5), emulated.stats.requests
        killed = run(db)
        while killed.poll() is None and emulated.stats.requests - before < at:
            time.sleep(0.002)
        if killed.poll() is None:
            killed.send_signal(signal.SIGKILL)
        killed.wait(60)
        again = run(db)
        out, err = again.communicate(timeout=600)
        assert again.returncode == 0, err
        assert secret not in out + err
        assert raw_contents(db) == raw_contents(tmp / "whole.duckdb"), f"kill point {point} (after {at} requests)"
    for path in tmp.rglob("*.duckdb"):
        assert secret.encode() not in path.read_bytes()


def every_fault_leaves_the_same_rows(tmp: Path, hosts: dict[str, float]) -> None:
    """A 45-repository world with these shares off GitHub, collected clean and then with every fault
    kind at 5%: each run finishes every repository, the faults and retries are many, the rows identical."""
    from porchlamp.sample import generate_world

    world = generate_world(tmp / "w", repos=45, seed=919, hosts=hosts).path
    clean, _ = collect_forges(world, tmp / "clean.duckdb")
    faults = ",".join(f"{k}=0.05" for k in ("rate_limited", "secondary", "bad_gateway", "gateway_timeout", "reset", "malformed",
                                              "partial")) + ",seed=4"
    faulty, labs = collect_forges(world, tmp / "faulty.duckdb", faults=faults)
    assert clean.done == faulty.done == 45 and not faulty.failures
    assert sum(sum(s["by_fault"].values()) for s in labs.values()) > 300
    assert sum(faulty.retries.values()) > 300
    assert raw_contents(tmp / "faulty.duckdb") == raw_contents(tmp / "clean.duckdb")
