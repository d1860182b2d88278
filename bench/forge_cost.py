"""API cost of collecting GitLab projects, full and a day later, through the GitLab emulator.

    .venv/bin/python bench/gitlab_cost.py [--repos 300] [--seed 7] [--concurrency 2] [--days 1]

A world whose projects are on gitlab.com (the mirror kind stays on GitHub, and is left out), dated
--days after 2026-10-15, is served by `porchlamp emulator --gitlab gitlab.com` in a process of its
own: first as it stood on 2026-10-15, collected in full; then whole, collected again for the later
day. Prints one JSON object: requests per 100 merge requests for each run, the day's share of the
full one, requests by endpoint, and the hours one token takes for 2,000 gitlab.com projects under
gitlab.com's documented limits (2,000 requests a minute; 300 `/users/:id` in 10 minutes), from the
requests a project took here.
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
from porchlamp.collect.gitlab.client import GITLAB_COM_PER_MINUTE, USERS_LIMIT, GitLabClient
from porchlamp.sample import generate_world
from porchlamp.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collect_cost import emulator  # noqa: E402  (the benchmarks' one emulator in a process of its own)

EARLIER = date(2026, 10, 15)
MINUTE_SECONDS = 0.2  # the emulator's and the client's 'minute', compressed alike: requests are what is measured
PROJECTS = 2_000


def collect(world: Path, db: Path, as_of: date, repos: list[str], concurrency: int, clock: date | None) -> dict[str, Any]:
    with emulator(world, clock, extra=("--gitlab", "gitlab.com", "--minute-seconds", str(MINUTE_SECONDS))) as base:
        client = GitLabClient(f"{base}/api/v4", "bench", "gitlab.com", wait_scale=0.001, minute_seconds=MINUTE_SECONDS)
        t0 = time.perf_counter()
        with Store(db) as store:
            s = Collector(store, {"gitlab.com": client}, CollectOptions(as_of=as_of, concurrency=concurrency)).run(repos)
            mrs = store.count("pulls")
        client.close()
        stats = httpx.get(f"{base}/_emulator/stats", timeout=10).json()
    return {"projects": s.done, "failed": s.failed, "merge_requests": mrs, "requests": s.requests,
            "requests_per_100_mrs": round(s.requests * 100 / max(1, mrs), 1), "users_lookups": stats["by_endpoint"].get("/users/:id", 0),
            "by_endpoint": stats["by_endpoint"], "seconds": round(time.perf_counter() - t0, 1), "incremental": s.incremental}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--days", type=int, default=1)
    args = ap.parse_args()
    later = EARLIER + timedelta(days=args.days)
    with tempfile.TemporaryDirectory() as tmp:
        world = generate_world(Path(tmp) / "w", repos=args.repos, seed=args.seed, as_of=later, hosts={"gitlab.com": 0.99999}).path
        repos = [r for r in (world / "repos.txt").read_text().split() if r.startswith("gitlab.com/")]
        db = Path(tmp) / "s.duckdb"
        full = collect(world, db, EARLIER, repos, args.concurrency, EARLIER)
        day = collect(world, db, later, repos, args.concurrency, None)
    per_project = full["requests"] / full["projects"]
    users = full["users_lookups"] / full["projects"]
    minutes = max(PROJECTS * per_project / GITLAB_COM_PER_MINUTE, PROJECTS * users / USERS_LIMIT[0] * USERS_LIMIT[1] / 60)
    print(json.dumps({
        "repos": len(repos), "days": args.days, "full": full, "later": day,
        "day_share_of_full": round(day["requests"] / full["requests"], 4),
        "requests_per_project": round(per_project, 1), "users_lookups_per_project": round(users, 1),
        "hours_for_2000_gitlab_com_projects": round(minutes / 60, 1),
        "bound_by": "users" if PROJECTS * users / USERS_LIMIT[0] * USERS_LIMIT[1] / 60 > PROJECTS * per_project / GITLAB_COM_PER_MINUTE
                    else "requests",
    }, indent=1))


if __name__ == "__main__":
    main()
