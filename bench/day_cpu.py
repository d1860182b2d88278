"""Where an evaluation spends the machine: wall and CPU seconds by step, of the calling process and of its workers.

    .venv/bin/python bench/day_cpu.py --store STORE.duckdb --day 2026-10-17 [--runs 3] [--workers 2] [--full] [--work DIR]

The store (never changed) must hold the snapshot of the day before `--day` if the day is to keep its
verdicts, as `bench/publish_daily.py --evaluate-only --keep` leaves one: evaluated by the code this
runs from, or nothing holds (the code is part of what a kept verdict rests on). Each run evaluates
`--day` on a fresh copy, on `--workers` (`--full`: keeping nothing, as a first day does), and reports
each step's wall seconds and the calling process's CPU seconds in it (DuckDB's threads included), and
the CPU seconds of the worker processes over the whole evaluation. CPU seconds over the cores are the
least wall time any overlap of the steps could reach. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import porchlamp.snapshot as snapshot  # noqa: E402
from publish_daily import scratch  # noqa: E402  (beside this file; imports the `src` above)
from porchlamp.config import Settings  # noqa: E402
from porchlamp.laps import Laps  # noqa: E402
from porchlamp.store import Store  # noqa: E402


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class CpuLaps(Laps):
    """`Laps` that also keeps this process's CPU seconds by step (`cpu`)."""

    def __init__(self) -> None:
        super().__init__()
        self._cpu = _cpu(resource.RUSAGE_SELF)
        self.cpu: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = _cpu(resource.RUSAGE_SELF)
        self.cpu[name] = round(self.cpu.get(name, 0.0) + now - self._cpu, 2)
        self._cpu = now
        super().__call__(name)


def run_once(store: Path, copy: Path, day: date, workers: int, full: bool) -> dict[str, Any]:
    shutil.copyfile(store, copy)
    made: list[CpuLaps] = []

    def laps() -> CpuLaps:
        made.append(CpuLaps())
        return made[-1]

    snapshot.Laps = laps  # type: ignore[misc, assignment]  # the evaluation's own steps, with their CPU
    try:
        with Store(copy) as s:
            kids, wall = _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
            summary = snapshot.evaluate_store(s, day, Settings(), workers=workers, reuse=not full)
            wall, kids = time.perf_counter() - wall, _cpu(resource.RUSAGE_CHILDREN) - kids
    finally:
        snapshot.Laps = Laps  # type: ignore[misc]
    lap = made[-1]
    caller = sum(lap.cpu.values())
    return {"seconds": round(wall, 2), "caller_cpu": round(caller, 2), "workers_cpu": round(kids, 2),
            "cpu": round(caller + kids, 2), "least_seconds": round((caller + kids) / (os.cpu_count() or 1), 2),
            "carried": summary.carried, "kept_prs": summary.reused_prs, "judged_prs": summary.judged_prs,
            "steps": {k: {"seconds": v, "cpu": lap.cpu.get(k, 0.0)} for k, v in summary.steps.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="a store holding the day before's snapshot (never changed)")
    ap.add_argument("--day", type=date.fromisoformat, required=True, help="the day to evaluate, YYYY-MM-DD")
    ap.add_argument("--runs", type=int, default=3, help="evaluations, each on a fresh copy (default 3)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (1: in this process; default 2)")
    ap.add_argument("--full", action="store_true", help="keep nothing of earlier days: a full evaluation")
    ap.add_argument("--work", type=Path, help="where the copies go (default: a temporary directory, removed after)")
    args = ap.parse_args()
    if not args.store.is_file():
        ap.error(f"{args.store} is not a store file: give one that `bench/publish_daily.py --evaluate-only --keep` left")
    if args.runs < 1:
        ap.error("--runs must be 1 or more")
    with scratch(args.work) as work:
        runs = []
        for k in range(args.runs):
            runs.append(run_once(args.store, work / "day.duckdb", args.day, args.workers, args.full))
            print(json.dumps({"run": k + 1, **runs[-1]}), file=sys.stderr, flush=True)
    print(json.dumps({"benchmark": "day_cpu", "store": str(args.store), "day": args.day.isoformat(), "workers": args.workers,
                      "full": args.full, "runs": runs, "date": time.strftime("%Y-%m-%d"),
                      "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "arch": platform.machine()}}))


if __name__ == "__main__":
    main()
