"""Instructions judging takes, counted by valgrind's cachegrind: within a quarter of a percent run to
run, where seconds on a shared 2-core machine drift by a tenth between runs minutes apart.

    .venv/bin/python bench/judge_instructions.py --store STORE.duckdb --code DIR [--code DIR ...]
        [--day] [--tasks 0,7] [--work DIR]

The store (collected, as `load-world` leaves one; never changed) is copied and evaluated in this
process by the code this runs from, its shards kept: in full for the day it was collected for, or
with `--day` the window-only day `judge_day.py` times (two days evaluated before it, only the window
moving). Then, for each `--code` (a copy of one version's tree: its `src` is what is imported), the
chosen judging tasks run in a child process under `valgrind --tool=cachegrind --cache-sim=no`, and so
does a child that does everything but judge (starting, importing, loading the tasks' arguments): the
difference is what judging took, reading the shards included. Every code's outcomes must equal the
first code's, or the benchmark stops. Prints one JSON object: each code's count and its ratio to the
first's. Needs valgrind (Debian's `valgrind`); a task runs about 50 times slower than without it, so
choose a few (`--tasks`).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from judge_day import day_tasks, noted_tasks  # noqa: E402  (beside this file; imports the `src` above)
from publish_daily import scratch  # noqa: E402
from porchlamp.store import Store  # noqa: E402

# Run in the child with the code under test first on its path: argv = code dir, tasks file, task
# indices ("" to judge none), where to write the outcomes.
CHILD = """
import dataclasses, json, pickle, sys
sys.path.insert(0, sys.argv[1] + "/src")
import pyarrow
pyarrow.set_cpu_count(1)  # Arrow's pools wait and wake by the clock: one thread each counts steadier
pyarrow.set_io_thread_count(1)
import porchlamp.cluster as cluster
tasks = pickle.loads(open(sys.argv[2], "rb").read())
picks = [int(k) for k in sys.argv[3].split(",") if k]
out = [dataclasses.astuple(cluster.judge_shard(*tasks[k])) for k in picks]
open(sys.argv[4], "w").write(json.dumps(out, default=str, sort_keys=True))
"""


def counted(child: str, args: list[str], what: str) -> int:
    """Instructions a Python child (`child`, run with `args`) took, as cachegrind's `I refs`; its strings
    hashed alike in every run, so that its sets and dicts are walked in one order. Exits saying `what`
    did not run if it failed."""
    run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", child, *args],
                         capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if run.returncode != 0 or found is None:
        sys.exit(f"{Path(sys.argv[0]).stem}: {what} did not run:\n{run.stderr[-3000:]}")
    return int(found.group(1).replace(",", ""))


def instructions(code: Path, tasks: Path, picks: str, outcomes: Path) -> int:
    """Instructions the child took running `picks` of the tasks with `code`."""
    return counted(CHILD, [str(code), str(tasks), picks, str(outcomes)], f"the tasks with {code}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="a collected store (copied, never changed)")
    ap.add_argument("--code", type=Path, action="append", required=True,
                    help="a version's tree (holding src/porchlamp); give it again for each version to compare")
    ap.add_argument("--day", action="store_true", help="count a window-only day's tasks, not a full evaluation's")
    ap.add_argument("--tasks", default="0", help="which judging tasks to run, by index, comma-separated (default 0)")
    ap.add_argument("--work", type=Path, help="where the copy and the shards go (default: a temporary directory, removed after)")
    args = ap.parse_args()
    if not args.store.is_file():
        ap.error(f"{args.store} is not a store file: give one `porchlamp load-world` or `collect` made")
    for code in args.code:
        if not (code / "src" / "porchlamp").is_dir():
            ap.error(f"--code {code}: no src/porchlamp there; give a copy of a version's tree")
    if shutil.which("valgrind") is None:
        sys.exit("judge_instructions: valgrind is not installed (Debian: apt-get install valgrind)")
    if not re.fullmatch(r"\d+(,\d+)*", args.tasks):
        ap.error(f"--tasks {args.tasks!r}: give task indices such as 0,7")
    with scratch(args.work) as work:
        db = work / "s.duckdb"
        shutil.copyfile(args.store, db)
        if args.day:
            _, tasks = day_tasks(db, work / "shards", 1)
        else:
            with Store(db, read_only=True) as s:
                day = date.fromisoformat(s.get_meta("collected_as_of") or "")
            _, tasks = noted_tasks(db, day, work / "shards", reuse=False)
        if max(int(k) for k in args.tasks.split(",")) >= len(tasks):
            sys.exit(f"judge_instructions: the evaluation ran {len(tasks)} judging tasks; --tasks names one past them")
        kept = work / "tasks.pkl"
        kept.write_bytes(pickle.dumps(tasks))
        counts: list[dict[str, Any]] = []
        first = None
        for code in args.code:
            judged = instructions(code, kept, args.tasks, work / "outcomes.json")
            outcomes = (work / "outcomes.json").read_text()
            if first is None:
                first = outcomes
            elif outcomes != first:
                sys.exit(f"judge_instructions: the outcomes with {code} differ from those with {args.code[0]}")
            base = instructions(code, kept, "", work / "none.json")
            counts.append({"code": str(code), "instructions": judged, "without_judging": base, "judging": judged - base})
        for c in counts:
            c["ratio"] = round(c["judging"] / counts[0]["judging"], 4)
        print(json.dumps({"kind": "window-only day" if args.day else "full evaluation", "tasks": args.tasks,
                          "of_tasks": len(tasks), "counts": counts,
                          "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "arch": platform.machine()}}))


if __name__ == "__main__":
    main()
