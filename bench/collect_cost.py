"""API cost of a full collection (and an incremental one a month later) through the emulator.

    .venv/bin/python bench/collect_cost.py [--repos 3000] [--seed 7] [--concurrency 2]

Generates a world, serves it with the emulator on 127.0.0.1, collects it over HTTP into a
fresh store, then collects again for a month later; prints one JSON object with points in total,
per 100 PRs and per repository, by query kind, requests, bytes and the time taken.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from porchlamp.collect import CollectOptions, Collector, GraphQLClient
from porchlamp.emulator import Emulator
from porchlamp.sample import generate_world
from porchlamp.store import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--concurrency", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        world = generate_world(Path(tmp) / "w", repos=args.repos, seed=args.seed)
        gen = time.perf_counter() - t0
        results = {}
        with Emulator(world.path) as emu:
            for label, as_of in (("full", date(2026, 10, 15)), ("incremental", date(2026, 11, 15))):
                client = GraphQLClient(emu.url, "bench", wait_scale=0.001)
                with Store(Path(tmp) / "s.duckdb") as store:
                    s = Collector(store, client, CollectOptions(as_of=as_of, concurrency=args.concurrency,
                                                                dependents_api=emu.base_url)).run((world.path / "repos.txt").read_text().split())
                client.close()
                results[label] = {k: v for k, v in s.as_dict().items() if k not in ("failures", "renamed")}
                # Each half as soon as it is known: a long run that is stopped still leaves its figures.
                print(json.dumps({"partial": label, **results[label]}), file=sys.stderr, flush=True)
    full = results["full"]
    hours = full["points"] / 5000
    print(json.dumps({"benchmark": "collect_cost", "repos": args.repos, "world_prs": world.pulls, "generate_seconds": round(gen, 1),
                      "full": full, "incremental": results["incremental"],
                      "incremental_share_of_full": round(results["incremental"]["points"] / full["points"], 4),
                      "hours_of_one_token_at_5000_points": round(hours, 2)}, indent=1))


if __name__ == "__main__":
    main()
