"""The main job on the embedded default, offline: sample world -> emulator -> collect over HTTP ->
evaluate -> publish. The command line's `demo` is a thin layer over `run_demo`.

Each step reports through `step(label, total)`, which returns the function that advances its bar.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from contextlib import ExitStack

from porchlamp.collect import CollectOptions, Collector, CollectSummary, GraphQLClient
from porchlamp.collect.forgejo.client import ForgejoClient
from porchlamp.collect.gitlab.client import GitLabClient
from porchlamp.config import Settings
from porchlamp.emulator import Emulator, WorldIndex
from porchlamp.emulator.forgejo import ForgejoEmulator, ForgejoLimits
from porchlamp.emulator.gitlab import GitLabEmulator, GitLabLimits
from porchlamp.publish import PublishSummary, load_site_data, publish
from porchlamp.sample import WorldSummary, generate_world, read_meta
from porchlamp.snapshot import EvaluateSummary, evaluate_store, report_from_store
from porchlamp.store import Store

Step = Callable[[str, int | None], Any]  # (label, total) -> a context manager yielding advance(n)
# The demo world's projects beyond GitHub: on gitlab.com and a self-hosted GitLab, on Codeberg
# (Forgejo) and a self-hosted Forgejo.
DEMO_HOSTS = {"gitlab.com": 0.06, "gitlab.example.org": 0.03, "codeberg.org": 0.05, "forgejo.example.net": 0.03}
# The emulators' rate-limit minute, and the clients' alike: the demo meets the limits in seconds.
DEMO_MINUTE = 1.0
# What the demo's Forgejo clients send a "minute" (a compressed one): Codeberg publishes no limit.
DEMO_FORGEJO_RATE = 600


@dataclass(frozen=True)
class DemoSummary:
    world: WorldSummary
    emulator_url: str
    collected: CollectSummary
    evaluated: EvaluateSummary
    report: dict[str, Any]
    published: PublishSummary
    db: Path


def run_demo(out_dir: Path, repos: int, seed: int, settings: Settings, step: Step,
             say: Callable[[str], None] = lambda text: None) -> DemoSummary:
    """Run every stage on a generated world under `out_dir` (world/, porchlamp.duckdb, site/)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    world, db = out_dir / "world", out_dir / "porchlamp.duckdb"
    with step("1/5 generating the sample world", repos) as advance:
        ws = generate_world(world, repos=repos, seed=seed, progress=advance, hosts=DEMO_HOSTS)
    say(f"1/5 sample world: {ws.repos:,} repositories, {ws.pulls:,} PRs in {world}")
    if db.exists():
        db.unlink()
    meta = read_meta(world)
    as_of = date.fromisoformat(meta["as_of"])
    forge_of: dict[str, str] = meta.get("hosts") or {}
    hosts = sorted(forge_of)
    # The world's self-hosted instances are named in the settings, as an operator names theirs in porchlamp.toml.
    named = {h: {"forge": forge_of[h]} for h in hosts if h not in ("gitlab.com", "codeberg.org")}
    settings = Settings.model_validate({**settings.model_dump(), "hosts": {**named, **settings.model_dump()["hosts"]}})
    index = WorldIndex(world)
    with ExitStack() as stack:
        emu = stack.enter_context(Emulator(index))
        clients: dict[str, Any] = {"github.com": GraphQLClient(emu.url, "demo-token")}
        for host in hosts:
            if forge_of[host] == "forgejo":
                fj = stack.enter_context(ForgejoEmulator(index, host, limits=ForgejoLimits(minute_seconds=DEMO_MINUTE)))
                clients[host] = ForgejoClient(fj.url, "demo-token", host, minute_seconds=DEMO_MINUTE, per_minute=DEMO_FORGEJO_RATE)
                say(f"2/5 Forgejo emulator for {host} at {fj.url}")
                continue
            lab = stack.enter_context(GitLabEmulator(index, host, limits=GitLabLimits(minute_seconds=DEMO_MINUTE)))
            clients[host] = GitLabClient(lab.url, "demo-token", host, minute_seconds=DEMO_MINUTE)
            say(f"2/5 GitLab emulator for {host} at {lab.url}")
        say(f"2/5 GitHub emulator serving the world at {emu.url}")
        try:
            with Store(db) as store, step("3/5 collecting over HTTP", repos * 3) as advance:
                collector = Collector(store, clients, CollectOptions(as_of=as_of, window_days=settings.window.days,
                                                                     dependents_api=emu.base_url),
                                      settings, progress=lambda label, n, total: advance(n))
                collected = collector.run((world / "repos.txt").read_text(encoding="utf-8").split())
        finally:
            for client in clients.values():
                client.close()
        url = emu.url
    on_github = collected.by_host.get("github.com", {}).get("points", collected.points)
    say(f"3/5 collected {collected.done:,} repositories, {collected.prs:,} PRs into {db}: {on_github:,} GitHub points"
        + "".join(f", {h['requests']:,} requests to {host}" for host, h in collected.by_host.items() if host != "github.com"))
    with Store(db) as store:
        with step("4/5 evaluating", repos) as advance:
            evaluated = evaluate_store(store, as_of, settings, advance)
        report = report_from_store(store)
        site = load_site_data(store)
    say(f"4/5 evaluated {evaluated.repos:,} repositories for {evaluated.as_of}")
    with step("5/5 publishing", repos) as advance:
        published = publish(site, out_dir / "site", progress=advance)
    say(f"5/5 published {published.pages:,} pages ({published.bytes / 1e6:.1f} MB) to {published.out}")
    return DemoSummary(ws, url, collected, evaluated, report, published, db)
