"""API cost of collecting a REST forge's projects, full and a day later, through its emulator.

    .venv/bin/python bench/forge_cost.py [--forge gitlab|forgejo] [--repos 300] [--seed 7] [--concurrency 2] [--days 1]

A world whose projects are on gitlab.com, or on codeberg.org (Forgejo) with `--forge forgejo` (the
mirror kinds stay on GitHub, and are left out), dated --days after 2026-10-15, is served by
`porchlamp emulator --gitlab gitlab.com` (or `--forgejo codeberg.org`) in a process of its own: first
as it stood on 2026-10-15, collected in full; then whole, collected again for the later day. Prints
one JSON object: requests per 100 PRs (merge requests) for each run, the day's share of the full
one, requests by endpoint, and the hours one token takes for 2,000 projects there: under gitlab.com's
documented limits (2,000 requests a minute; 300 `/users/:id` in 10 minutes), or at the Forgejo
client's own default pace (Codeberg publishes no limit), from the requests a project took here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx

from porchlamp.collect import CollectOptions, Collector
from porchlamp.collect.forgejo.client import DEFAULT_PER_MINUTE, ForgejoClient
from porchlamp.collect.gitlab.client import GITLAB_COM_PER_MINUTE, USERS_LIMIT, GitLabClient
from porchlamp.sample import generate_world
from porchlamp.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collect_cost import emulator  # noqa: E402  (the benchmarks' one emulator in a process of its own)

EARLIER = date(2026, 10, 15)
MINUTE_SECONDS = 0.2  # the emulator's and the client's 'minute', compressed alike: requests are what is measured
PROJECTS = 2_000


HOSTS = {"gitlab": "gitlab.com", "forgejo": "codeberg.org"}
USERS = {"gitlab": "/users/:id", "forgejo": "/users/{username}"}  # how each emulator names its account look-ups


def collect(forge: str, world: Path, db: Path, as_of: date, repos: list[str], concurrency: int, clock: date | None) -> dict[str, Any]:
    host = HOSTS[forge]
    with emulator(world, clock, extra=(f"--{forge}", host, "--minute-seconds", str(MINUTE_SECONDS))) as base:
        if forge == "gitlab":
            client: Any = GitLabClient(f"{base}/api/v4", "bench", host, wait_scale=0.001, minute_seconds=MINUTE_SECONDS)
        else:  # the client's pace as high as the gitlab.com one, on the compressed minute: requests are what is measured
            client = ForgejoClient(f"{base}/api/v1", "bench", host, wait_scale=0.001, minute_seconds=MINUTE_SECONDS,
                                   per_minute=GITLAB_COM_PER_MINUTE)
        t0 = time.perf_counter()
        with Store(db) as store:
            s = Collector(store, {host: client}, CollectOptions(as_of=as_of, concurrency=concurrency)).run(repos)
            mrs = store.count("pulls")
        client.close()
        stats = httpx.get(f"{base}/_emulator/stats", timeout=10).json()
    return {"projects": s.done, "failed": s.failed, "prs": mrs, "requests": s.requests,
            "requests_per_100_prs": round(s.requests * 100 / max(1, mrs), 1), "users_lookups": stats["by_endpoint"].get(USERS[forge], 0),
            "by_endpoint": stats["by_endpoint"], "seconds": round(time.perf_counter() - t0, 1), "incremental": s.incremental}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--forge", choices=sorted(HOSTS), default="gitlab")
    ap.add_argument("--repos", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--days", type=int, default=1)
    args = ap.parse_args()
    later = EARLIER + timedelta(days=args.days)
    with tempfile.TemporaryDirectory() as tmp:
        host = HOSTS[args.forge]
        world = generate_world(Path(tmp) / "w", repos=args.repos, seed=args.seed, as_of=later, hosts={host: 0.99999}).path
        repos = [r for r in (world / "repos.txt").read_text().split() if r.startswith(host + "/")]
        db = Path(tmp) / "s.duckdb"
        full = collect(args.forge, world, db, EARLIER, repos, args.concurrency, EARLIER)
        day = collect(args.forge, world, db, later, repos, args.concurrency, None)
    per_project = full["requests"] / full["projects"]
    users = full["users_lookups"] / full["projects"]
    if args.forge == "gitlab":
        by_requests, by_users = PROJECTS * per_project / GITLAB_COM_PER_MINUTE, PROJECTS * users / USERS_LIMIT[0] * USERS_LIMIT[1] / 60
    else:
        by_requests, by_users = PROJECTS * per_project / DEFAULT_PER_MINUTE, 0.0
    print(json.dumps({
        "forge": args.forge, "repos": len(repos), "days": args.days, "full": full, "later": day,
        "day_share_of_full": round(day["requests"] / full["requests"], 4),
        "requests_per_project": round(per_project, 1), "users_lookups_per_project": round(users, 1),
        f"hours_for_2000_{host}_projects": round(max(by_requests, by_users) / 60, 1),
        "bound_by": "users" if by_users > by_requests else "requests",
    }, indent=1))


if __name__ == "__main__":
    main()
