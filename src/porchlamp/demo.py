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

from porchlamp.collect import CollectOptions, Collector, CollectSummary, GraphQLClient
from porchlamp.config import Settings
from porchlamp.emulator import Emulator
from porchlamp.publish import PublishSummary, load_site_data, publish
from porchlamp.sample import WorldSummary, generate_world, read_meta
from porchlamp.snapshot import EvaluateSummary, evaluate_store, report_from_store
from porchlamp.store import Store

Step = Callable[[str, int | None], Any]  # (label, total) -> a context manager yielding advance(n)


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
        ws = generate_world(world, repos=repos, seed=seed, progress=advance)
    say(f"1/5 sample world: {ws.repos:,} repositories, {ws.pulls:,} PRs in {world}")
    if db.exists():
        db.unlink()
    as_of = date.fromisoformat(read_meta(world)["as_of"])
    with Emulator(world) as emu:
        say(f"2/5 GitHub emulator serving the world at {emu.url}")
        client = GraphQLClient(emu.url, "demo-token")
        try:
            with Store(db) as store, step("3/5 collecting over HTTP", repos * 3) as advance:
                collector = Collector(store, client, CollectOptions(as_of=as_of, window_days=settings.window.days,
                                                                    dependents_api=emu.base_url),
                                      settings, progress=lambda label, n, total: advance(n))
                collected = collector.run((world / "repos.txt").read_text(encoding="utf-8").split())
        finally:
            client.close()
        url = emu.url
    say(f"3/5 collected {collected.done:,} repositories, {collected.prs:,} PRs for {collected.points:,} points "
        f"({collected.points_per_100_prs or 0:.2f} per 100 PRs) into {db}")
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
