"""A day's evaluation and publish on an evaluated store, against doing both in full, in one run.

    .venv/bin/python bench/publish_daily.py --store STORE.duckdb [--days 1] [--workers 2] [--work DIR]
        [--keep] [--evaluated | --evaluate-only] [--cold]

The store is copied (never changed). Day one is evaluated and published in full. Then the store is
moved `--days` later with no new rows (a day on which nobody pushed, commented or opened a PR: only
the window moves), twice: the second day is evaluated carrying the verdicts that hold and published
over day one's site (its second generation); the third, timed, is what every later day is: evaluated
carrying what holds and published over the two generations, against a full evaluation of a copy and a
full publish over a copy of the second day's site. Both outputs must be equal (the four result
tables, and every file of the site byte for byte) or the benchmark stops. Last, the same day is
published again over itself: what is left when nothing changed. The daily figures with
real activity come from `bench/collect_cost.py --days 1 --evaluate --publish`. With `--cold`, the
kernel's caches are dropped before each of the third day's publishes (as root), as a daily run finds
its site after the evaluation has used the memory: the snapshot is read, and the site met, from the disk.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from porchlamp.config import Settings  # noqa: E402
from porchlamp.publish import generations, load_site_data, publish  # noqa: E402
from porchlamp.publish.data import BOOKKEEPING  # noqa: E402
from porchlamp.snapshot import evaluate_store  # noqa: E402
from porchlamp.store import Store  # noqa: E402

TABLES = ("results", "pr_results", "component_results", "profile_results")


@contextmanager
def scratch(parent: Path | None, keep: bool = False) -> Iterator[Path]:
    """A new folder for a benchmark's copies and outputs: under `parent` (made if missing) or the
    system's temporary directory; removed when the benchmark ends, unless `keep`."""
    if parent is not None:
        parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=parent))
    try:
        yield work
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def tables(db: Path, when: date) -> dict[str, str]:
    """Each result table's rows of `when` as one order-free digest."""
    out = {}
    with Store(db, read_only=True) as s:
        for t in TABLES:
            cols = ", ".join(c for (c, *_) in s.conn.execute(f"DESCRIBE {t}").fetchall() if c not in BOOKKEEPING)
            out[t] = str(s.conn.execute(f"SELECT count(*), sum(hash({cols})::HUGEINT) FROM {t} WHERE as_of = ?", [when]).fetchone())
    return out


def evaluate(db: Path, when: date, workers: int) -> dict[str, Any]:
    t = time.perf_counter()
    with Store(db) as s:
        s.set_meta("collected_as_of", max(when, date.fromisoformat(s.get_meta("collected_as_of") or when.isoformat())).isoformat())
        summary = evaluate_store(s, when, Settings(), workers=workers)
    return {"seconds": round(time.perf_counter() - t, 1), "steps": summary.steps, "worker_peak_mb": list(summary.worker_peak_mb)}


def io_ticks(path: Path) -> int | None:
    """Milliseconds the disk holding `path` has spent doing I/O since boot (/proc/diskstats), or
    None where that cannot be read."""
    dev = os.stat(path).st_dev
    try:
        for line in Path("/proc/diskstats").read_text().splitlines():
            f = line.split()
            if int(f[0]) == os.major(dev) and int(f[1]) == os.minor(dev):
                return int(f[12])
    except (OSError, ValueError, IndexError):
        pass
    return None


def settle(path: Path, quiet: float = 1.0, limit: float = 120.0) -> float:
    """Wait until the disk holding `path` has done no I/O for `quiet` seconds (at most `limit`), and
    return the seconds waited. A copy or a deletion just before leaves write-back and block discards
    behind it that `sync` does not wait for, and they would land in the next timed step."""
    t0 = time.perf_counter()
    last, since = io_ticks(path), time.perf_counter()
    while last is not None and time.perf_counter() - t0 < limit:
        time.sleep(0.1)
        now = io_ticks(path)
        if now != last:
            last, since = now, time.perf_counter()
        elif time.perf_counter() - since >= quiet:
            break
    return round(time.perf_counter() - t0, 1)


def drop_caches() -> None:
    """Empty the kernel's page, folder and file caches (root only): what comes next reads the disk."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError as e:
        raise SystemExit(f"--cold: cannot drop the kernel's caches ({e}); run as root, or without --cold") from e


def publish_day(db: Path, when: date, out: Path, full: bool, cold: bool = False) -> dict[str, Any]:
    # The writes of the steps before are flushed and the disk left to go quiet first: on a slow
    # disk their write-back otherwise lands in whichever publish runs next.
    os.sync()
    waited = settle(out.parent)
    if cold:
        drop_caches()
    t = time.perf_counter()
    with Store(db, read_only=True) as s:
        site = load_site_data(s, when)
    loaded = time.perf_counter() - t
    summary = publish(site, out, full=full)
    done = time.perf_counter()
    # What the standby no longer held is deleted by a process of its own once the site is live; it is
    # waited for here, so that its disk work lands in no other measurement, and reported apart.
    while list(generations.home_of(out).glob(f"{generations.TRASH}*")):
        time.sleep(0.05)
    return {"seconds": round(done - t, 1), "load_seconds": round(loaded, 1), "pages": summary.pages,
            "projects_kept": summary.reused, "projects_placed": summary.placed, "steps": summary.steps, "trash_deleted_after": round(time.perf_counter() - done, 1),
            "disk_settled_before": waited}


def tree(root: Path) -> dict[str, bytes]:
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated or collected store (copied, never changed)")
    ap.add_argument("--days", type=int, default=1, help="how much later the second day is")
    ap.add_argument("--workers", type=int, default=1, help="worker processes for evaluation (1: in this process)")
    ap.add_argument("--work", type=Path, help="where the copies go (default: a temporary directory, removed after)")
    ap.add_argument("--keep", action="store_true", help="keep the copies (day.duckdb then holds all three days evaluated)")
    ap.add_argument("--evaluated", action="store_true", help="--store already holds the three days evaluated (a day.duckdb "
                    "kept by --keep): publish only")
    ap.add_argument("--evaluate-only", action="store_true", help="evaluate the three days (and the third in full), publish nothing")
    ap.add_argument("--cold", action="store_true", help="drop the kernel's caches before each of the third day's publishes "
                    "(needs root): the site and the snapshot read from the disk")
    args = ap.parse_args()
    if args.evaluated and args.evaluate_only:
        ap.error("--evaluated publishes only and --evaluate-only evaluates only: give one of them")
    with scratch(args.work, keep=args.keep) as work:
        db = work / "day.duckdb"
        shutil.copyfile(args.store, db)
        with Store(db) as s:  # not read-only: an older store is upgraded first
            # A kept store's collection date has moved on with its days: its first day is its first snapshot.
            first = (s.conn.execute("SELECT min(as_of) FROM results").fetchone()[0] if args.evaluated
                     else date.fromisoformat(s.get_meta("collected_as_of") or ""))
        second = first + timedelta(days=args.days)
        third = second + timedelta(days=args.days)
        report: dict[str, Any] = {"benchmark": "publish_daily", "store": str(args.store), "days": [str(d) for d in (first, second, third)],
                                  "machine": f"{platform.machine()}, {platform.python_version()}"}
        if not args.evaluated:
            report["evaluate_first"] = evaluate(db, first, args.workers)
        publishing = not args.evaluate_only
        if publishing:
            report["publish_first"] = publish_day(db, first, work / "site", full=True)
        # The second day makes the site's second generation; the third is a publish as every later day is.
        if not args.evaluated:
            report["evaluate_second"] = evaluate(db, second, args.workers)
        if publishing:
            report["publish_second"] = publish_day(db, second, work / "site", full=False)
            shutil.copytree(work / "site", work / "site-full")  # a plain folder: written whole below
        print(json.dumps({"partial": "second", **report}), file=sys.stderr, flush=True)
        if not args.evaluated:
            shutil.copyfile(db, work / "whole.duckdb")
            with Store(work / "whole.duckdb") as s:  # the same rows, no earlier snapshot to list verdicts from
                s.delete_snapshots(s.snapshot_dates())
            report["evaluate_full"] = evaluate(work / "whole.duckdb", third, args.workers)
            report["evaluate_daily"] = evaluate(db, third, args.workers)
            if tables(db, third) != tables(work / "whole.duckdb", third):
                raise SystemExit("the day's evaluation differs from the one in a store without earlier snapshots")
            report["evaluate_ratio"] = round(report["evaluate_daily"]["seconds"] / report["evaluate_full"]["seconds"], 2)
        if not publishing:
            print(json.dumps(report, indent=1))
            return
        report["publish_full"] = publish_day(db, third, work / "site-full", full=True, cold=args.cold)
        report["publish_daily"] = publish_day(db, third, work / "site", full=False, cold=args.cold)
        if tree(work / "site") != tree(work / "site-full"):
            raise SystemExit("the day's site differs from the full publish")
        # The same day again: what is left when nothing changed.
        report["publish_again"] = publish_day(db, third, work / "site", full=False, cold=args.cold)
        report["publish_ratio"] = round(report["publish_daily"]["seconds"] / report["publish_full"]["seconds"], 2)
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
