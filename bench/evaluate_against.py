"""Evaluation of one store by this checkout and by an earlier commit, alternating, in one run: the
snapshot again whole, or (--next-day) the day after the latest snapshot, as each daily refresh does.

    .venv/bin/python bench/evaluate_against.py --store /tmp/porchlamp-bench/store11000.duckdb --commit 35ddaa3
    .venv/bin/python bench/evaluate_against.py --store STORE --commit 35ddaa3 --next-day   # the daily evaluation

The earlier commit's `src` is unpacked with `git archive` and evaluates its own copy of the store;
this checkout upgrades its copy. So the store must be of the earlier commit's schema (older code
cannot open a newer one): keep the store bench/run.py made before the upgrade. Each evaluation runs in a fresh process; its wall
time, CPU time and peak memory are printed as one JSON line, then the ratios of this checkout to
the earlier commit. These machines drift: only the ratios within one run compare.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from run import CHILD  # noqa: E402  (the benchmarks' one evaluation child)

TIME = "/usr/bin/time"


def evaluate(src: Path, db: Path, step: str = "evaluate") -> dict:  # type: ignore[type-arg]
    """One full evaluation of `db` by the code under `src`, in a fresh process (`step` next_day:
    of the day after its latest snapshot)."""
    cmd = [sys.executable, "-c", CHILD, step, str(db), "1"]
    if Path(TIME).exists():
        cmd = [TIME, "-f", "cpu_seconds=%U+%S", *cmd]
    res = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(src)}, check=False)
    if res.returncode != 0:
        hint = " (the store must be of the earlier commit's schema: see --help)" if "newer Porchlamp" in res.stderr else ""
        raise SystemExit(f"evaluation by {src} failed{hint}:\n{res.stderr[-2000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    cpu = [line.split("=", 1)[1] for line in res.stderr.splitlines() if line.startswith("cpu_seconds=")]
    if cpu:
        out["cpu_seconds"] = round(sum(float(x) for x in cpu[-1].split("+")), 1)
    return out  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store, such as bench/run.py's (left untouched)")
    ap.add_argument("--commit", required=True, help="the earlier commit to compare with")
    ap.add_argument("--rounds", type=int, default=2, help="evaluations of each, alternating")
    ap.add_argument("--next-day", action="store_true", help="evaluate the day after the latest snapshot each round, as a "
                    "daily refresh that found nothing new would (its PR verdicts compared with the day before's)")
    args = ap.parse_args()
    if not args.store.exists():
        raise SystemExit(f"{args.store}: no such store; make one with bench/run.py --sizes N --only evaluate")
    with tempfile.TemporaryDirectory(dir=args.store.parent) as tmp:
        work = Path(tmp)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.commit, "src"], capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(work / "old", filter="data")
        stores = {"old": work / "old.duckdb", "new": work / "new.duckdb"}
        for copy in stores.values():
            shutil.copyfile(args.store, copy)
        sources = {"old": work / "old" / "src", "new": ROOT / "src"}
        runs: dict[str, list[dict]] = {"old": [], "new": []}  # type: ignore[type-arg]
        for k in range(args.rounds):
            for which in ("old", "new"):
                r = evaluate(sources[which], stores[which], "next_day" if args.next_day else "evaluate")
                runs[which].append(r)
                print(json.dumps({"code": args.commit if which == "old" else "checkout", "round": k + 1, **r}), flush=True)
    best = {w: min(r["seconds"] for r in rs) for w, rs in runs.items()}
    cpu = {w: min(r.get("cpu_seconds", 0) for r in rs) for w, rs in runs.items()}
    print(json.dumps({"wall_ratio": round(best["new"] / best["old"], 2),
                      "cpu_ratio": round(cpu["new"] / cpu["old"], 2) if cpu["old"] else None}))


if __name__ == "__main__":
    main()
