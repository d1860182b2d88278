"""Requests per second the emulator serves for the standard PR page query (100 PRs, timelines).

    .venv/bin/python bench/emulator_rps.py [--repos 300] [--seconds 10] [--clients 4]

Generates a world, starts the emulator in this process, and has N client threads post the PR
page query (pages through each repository's PRs) for a fixed time; prints JSON with figures.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import threading
import time
from pathlib import Path

import httpx

from porchlamp.emulator import Emulator
from porchlamp.sample import generate_world

QUERY = (Path(__file__).resolve().parent / "pr_page.graphql").read_text()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = generate_world(Path(tmp) / "w", repos=args.repos, seed=99).path
        with Emulator(world) as emu:
            repos = sorted(emu.world.repos.values(), key=lambda e: -len(e.pulls))[:50]
            names = [e.row["name_with_owner"].split("/") for e in repos if e.pulls]
            done, prs, lock = [0], [0], threading.Lock()
            stop = time.perf_counter() + args.seconds

            def client(k: int) -> None:
                with httpx.Client(headers={"Authorization": "bearer bench"}, timeout=60) as c:
                    i = k
                    while time.perf_counter() < stop:
                        o, n = names[i % len(names)]
                        r = c.post(emu.url, json={"query": QUERY, "variables": {"owner": o, "name": n}})
                        nodes = r.json()["data"]["repository"]["pullRequests"]["nodes"]
                        with lock:
                            done[0] += 1
                            prs[0] += len(nodes)
                        i += args.clients

            t0 = time.perf_counter()
            threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - t0
    print(json.dumps({"benchmark": "emulator_rps", "repos": args.repos, "clients": args.clients, "seconds": round(elapsed, 2),
                      "requests": done[0], "requests_per_second": round(done[0] / elapsed, 1),
                      "prs_per_second": round(prs[0] / elapsed, 1), "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}"}))


if __name__ == "__main__":
    main()
