"""A window-only day's judging, timed apart from what surrounds it: in this process, the same inputs, again and again.

    .venv/bin/python bench/judge_day.py --store STORE.duckdb [--runs 5] [--workers 2] [--work DIR] [--profile FILE]

The store (collected, as `load-world` leaves one; never changed) is copied and evaluated by the code
this runs from for the day it was collected for, then for the day after with no new rows (only the
window moves), on `--workers`. The day after that is evaluated once in this process with its shards
kept, and each shard's judging task (`cluster.judge_shard`, the second round's too) is then run
again `--runs` times with the inputs it had: a day's judging without the export, the store's writes
or the workers' start around it. Every run must give the same
outcomes as the first, or the benchmark stops. With `--profile`, one more run is profiled into FILE
(`python -m pstats FILE`). To compare two versions, run each from a copy of its code (its `src` is
what is imported), alternating. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import shutil
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import porchlamp.cluster as cluster  # noqa: E402
from publish_daily import evaluate, scratch  # noqa: E402  (beside this file; imports the `src` above)
from porchlamp.config import Settings  # noqa: E402
from porchlamp.snapshot import evaluate_store  # noqa: E402
from porchlamp.store import Store  # noqa: E402


def day_tasks(db: Path, shards: Path, workers: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """Evaluate `db`'s collection day and the two after it (only the window moving); the third in this
    process, its shards kept under `shards`. Returns that day's summary and its judging tasks' arguments."""
    with Store(db, read_only=True) as s:
        first = date.fromisoformat(s.get_meta("collected_as_of") or "")
    for k in (0, 1):
        evaluate(db, first + timedelta(days=k), workers, reuse=True)
    day = first + timedelta(days=2)
    summary, tasks = noted_tasks(db, day, shards, reuse=True)
    return {"as_of": day.isoformat(), "repos": summary.repos, "carried": summary.carried, "reused_prs": summary.reused_prs,
            "judged_prs": summary.judged_prs, "again": summary.again, "steps": summary.steps}, tasks


def noted_tasks(db: Path, day: date, shards: Path, reuse: bool) -> tuple[Any, list[tuple[Any, ...]]]:
    """Evaluate `db` for `day` in this process, its shards kept under `shards` (`reuse`: keep what
    stands of the day before; without it, judge everything). Returns the evaluation's summary and
    each judging task's arguments, to be run again with the inputs it had."""
    with Store(db) as s:
        s.set_meta("collected_as_of", day.isoformat())
        tasks: list[tuple[Any, ...]] = []
        judge = cluster.judge_shard

        def kept(*args: Any) -> cluster.ShardOutcome:
            tasks.append(args)
            return judge(*args)

        # The evaluation takes its task from the module when it runs: this one notes each call's inputs.
        cluster.judge_shard = kept  # type: ignore[assignment]
        try:
            summary = evaluate_store(s, day, Settings(), workers=1, shard_dir=shards, reuse=reuse)
        finally:
            cluster.judge_shard = judge  # type: ignore[assignment]
    if not tasks:
        sys.exit("judge_day: the evaluation ran no judging task through `cluster.judge_shard`; nothing to time")
    return summary, tasks


def judge_all(tasks: list[tuple[Any, ...]]) -> tuple[float, float, list[cluster.ShardOutcome]]:
    """(seconds, CPU seconds, outcomes) of every task run once, in order, in this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    outcomes = [cluster.judge_shard(*args) for args in tasks]
    return round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2), outcomes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="a collected store (copied, never changed)")
    ap.add_argument("--runs", type=int, default=5, help="how many times every shard is judged again (default 5)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes for the two days before (1: in this process)")
    ap.add_argument("--work", type=Path, help="where the copy and the shards go (default: a temporary directory, removed after)")
    ap.add_argument("--profile", type=Path, help="profile one more run into this file")
    args = ap.parse_args()
    if not args.store.is_file():
        ap.error(f"{args.store} is not a store file: give one `porchlamp load-world` or `collect` made")
    if args.runs < 1:
        ap.error("--runs must be 1 or more")
    with scratch(args.work) as work:
        db = work / "day.duckdb"
        shutil.copyfile(args.store, db)
        day, tasks = day_tasks(db, work / "shards", args.workers)
        runs = []
        first = None
        for _ in range(args.runs):
            wall, cpu, outcomes = judge_all(tasks)
            if first is None:
                first = outcomes
            elif outcomes != first:
                sys.exit("judge_day: a run's outcomes differ from the first run's; judging is not repeatable")
            runs.append({"seconds": wall, "cpu_seconds": cpu})
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(judge_all, tasks)
            prof.dump_stats(str(args.profile))
        mean = round(sum(r["seconds"] for r in runs) / len(runs), 2)
        print(json.dumps({"day": day, "tasks": len(tasks), "runs": runs, "mean_seconds": mean,
                          "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "arch": platform.machine()}}))


if __name__ == "__main__":
    main()
