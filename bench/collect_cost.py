"""API cost of a full collection, and of an incremental one a month (or `--days`) later, through the emulator.

    .venv/bin/python bench/collect_cost.py [--repos 3000] [--seed 7] [--concurrency 2] [--world DIR] [--later-world DIR]
                                           [--faults SPEC] [--check] [--only full|incremental] [--days 31]
                                           [--evaluate [--publish]] [--workers 2] [--keep DIR]

Full: a world dated 2026-10-15 is served by `porchlamp emulator` in a process of its own (as
GitHub is) and collected over HTTP into a fresh store. Incremental: the same repositories'
world dated a month later is first served as it stood on 2026-10-15 and collected in full, then
served whole and collected again for 2026-11-15; that second run's points over the first's is the
share. `--days 1` measures the daily refresh instead. Prints each half as soon as it is known (stderr), then one JSON object (stdout).

`--faults` serves the full half with the emulator's faults on (heavy queries always time out as
GitHub's would). `--check` compares the full half's store with what a complete collection of the
world holds (porchlamp.sample.collected), table by table, and its evaluation with `load-world`'s.
`--evaluate` also evaluates the incremental half as `porchlamp refresh` does: the earlier day, then
the later day carrying the verdicts that hold, timed against a full evaluation of the same store in
the same run (all four result tables must be equal). `--publish` then publishes the earlier day,
and the later one over it keeping the projects whose files hold, timed against a full publish (every
file must be equal). `--keep DIR` leaves the incremental half's two collections there, as
earlier.duckdb and later.duckdb (before any evaluation), for `bench/evaluate_daily.py`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Iterator

import httpx

from porchlamp.collect import CollectOptions, Collector, GraphQLClient
from porchlamp.sample import generate_world
from porchlamp.sample.world import read_meta
from porchlamp.store import Store

EARLIER, LATER = date(2026, 10, 15), date(2026, 11, 15)
HOUR_SECONDS = 60


@contextmanager
def emulator(world: Path, clock: date | None = None, faults: str | None = None, extra: tuple[str, ...] = ()) -> Iterator[str]:
    """`porchlamp emulator` in its own process (`extra`: more of its options); yields its base URL once it answers.

    Its rate-limit hour is compressed (HOUR_SECONDS): the points are what is measured, and an
    11,000-repository run must not sit out real hours of reset."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "porchlamp", "emulator", "--world", str(world), "--port", str(port), "--hour-seconds", str(HOUR_SECONDS)]
    if clock:
        cmd += ["--clock", clock.isoformat()]
    if faults:
        cmd += ["--faults", faults]
    cmd += list(extra)
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise SystemExit(f"the emulator stopped while loading {world}: {log.read().decode()[-2000:]}")
            try:
                httpx.get(f"{base}/_emulator/stats", timeout=2).raise_for_status()
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        log.close()


def collect(world: Path, db: Path, as_of: date, concurrency: int, clock: date | None = None,
            faults: str | None = None) -> dict[str, Any]:
    with emulator(world, clock, faults) as base:
        client = GraphQLClient(f"{base}/graphql", "bench", wait_scale=0.001)
        t0 = time.perf_counter()
        with Store(db) as store:
            s = Collector(store, client, CollectOptions(as_of=as_of, concurrency=concurrency, dependents_api=base)).run(
                (world / "repos.txt").read_text().split())
        client.close()
        stats = httpx.get(f"{base}/_emulator/stats", timeout=10).json()
    out = {k: v for k, v in s.as_dict().items() if k not in ("renamed",)}
    out["wall_seconds"] = round(time.perf_counter() - t0, 1)
    out["emulator_points"] = stats.get("points")
    out["emulator_timeouts"] = stats.get("timeouts")
    out["emulator_faults"] = stats.get("by_fault")
    return out


def check(world: Path, db: Path, tmp: Path) -> dict[str, Any]:
    """Rows table by table against what a complete collection holds, and evaluation against load-world's."""
    from porchlamp.config import Settings
    from porchlamp.sample import load_world
    from porchlamp.sample.collected import world_as_collected
    from porchlamp.snapshot import evaluate_store
    from porchlamp.store import RAW_TABLES

    expected = world_as_collected(world, EARLIER)
    with Store(db, read_only=True) as s:
        rows = {t: sorted(map(repr, s.records(t))) == sorted(map(repr, expected[t])) for t in RAW_TABLES}
    results = {}
    loaded = tmp / "loaded.duckdb"
    with Store(loaded) as s:
        load_world(world, s)
    for name, path in (("loaded", loaded), ("collected", db)):
        with Store(path) as s:
            evaluate_store(s, EARLIER, Settings())
            results[name] = {t: s.rows(t) for t in ("results", "pr_results", "component_results", "profile_results")}
    results["loaded"]["pr_results"] = [r for r in results["loaded"]["pr_results"] if r[8] != "before_window"]
    evaluation = {t: results["collected"][t] == results["loaded"][t] for t in results["collected"]}
    return {"rows_equal": rows, "evaluation_equal": evaluation,
            "result_rows": {t: len(v) for t, v in results["collected"].items()}}


def evaluate(db: Path, as_of: date, workers: int) -> dict[str, Any]:
    from porchlamp.config import Settings
    from porchlamp.snapshot import evaluate_store
    from porchlamp.store import Store

    t0 = time.perf_counter()
    with Store(db) as s:
        summary = evaluate_store(s, as_of, Settings(), workers=workers)
    return {"as_of": as_of.isoformat(), "seconds": round(time.perf_counter() - t0, 1), "repos": summary.repos,
            "worker_peak_mb": list(summary.worker_peak_mb), "steps": summary.steps}


def daily_evaluation(db: Path, when: date, workers: int, tmp: Path) -> dict[str, Any]:
    """The later day evaluated after the earlier one (listing the verdicts that held), and on a copy
    without earlier snapshots: times, and equal rows."""
    import hashlib

    from porchlamp.store import Store

    whole = tmp / "whole.duckdb"
    shutil.copy(db, whole)
    with Store(whole) as s:
        s.delete_snapshots(s.snapshot_dates())
    full = evaluate(whole, when, workers)
    carried = evaluate(db, when, workers)

    def digest(path: Path) -> dict[str, str]:
        with Store(path, read_only=True) as s:
            return {t: hashlib.sha256(repr([r for r in s.rows(t) if r[0] == when]).encode()).hexdigest()
                    for t in ("results", "pr_results", "component_results", "profile_results")}

    same = digest(db) == digest(whole)
    if not same:
        raise SystemExit("the day's evaluation differs from the one in a store without earlier snapshots: a bug, not a figure")
    return {"full": full, "carried": carried, "carried_over_full_time": round(carried["seconds"] / full["seconds"], 3),
            "equal_rows": same}


def daily_publish(db: Path, when: date, tmp: Path) -> dict[str, Any]:
    """The earlier day published, then the later one over it (keeping the projects whose files hold)
    and, over a copy, in full: times, and every file equal."""
    from publish_daily import publish_day, tree

    first = publish_day(db, EARLIER, tmp / "site", full=True)
    shutil.copytree(tmp / "site", tmp / "site-full")
    full = publish_day(db, when, tmp / "site-full", full=True)
    daily = publish_day(db, when, tmp / "site", full=False)
    if tree(tmp / "site") != tree(tmp / "site-full"):
        raise SystemExit("the day's site differs from the full publish: a bug, not a figure")
    return {"first": first, "full": full, "daily": daily, "daily_over_full_time": round(daily["seconds"] / full["seconds"], 3),
            "equal_files": True}


def world_at(path: Path | None, tmp: Path, name: str, repos: int, seed: int, as_of: date) -> tuple[Path, float]:
    if path:
        meta = read_meta(path)
        if meta["as_of"] != as_of.isoformat():
            raise SystemExit(f"{path} is dated {meta['as_of']}; this half needs a world dated {as_of}")
        return path, 0.0
    t0 = time.perf_counter()
    w = generate_world(tmp / name, repos=repos, seed=seed, as_of=as_of)
    return w.path, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", type=int, default=3000, help="repositories in the generated worlds")
    ap.add_argument("--seed", type=int, default=7, help="world seed (the same for both dates)")
    ap.add_argument("--concurrency", type=int, default=2, help="requests in flight, as `porchlamp collect --concurrency`")
    ap.add_argument("--world", type=Path, help="reuse a world dated 2026-10-15 instead of generating one")
    ap.add_argument("--later-world", type=Path, help="reuse a world dated --days after 2026-10-15 (same seed and size) for the incremental half")
    ap.add_argument("--days", type=int, default=(LATER - EARLIER).days, help="how much later the incremental run is (1: a daily refresh)")
    ap.add_argument("--only", choices=("full", "incremental"), help="run one half")
    ap.add_argument("--faults", help="emulator faults for the full half, e.g. 'all=0.05,seed=5'")
    ap.add_argument("--check", action="store_true", help="compare the full half with the world, rows and evaluation")
    ap.add_argument("--evaluate", action="store_true", help="evaluate the incremental half's two days, the later one "
                    "carrying verdicts and again in full, and time both")
    ap.add_argument("--workers", type=int, default=2, help="worker processes for --evaluate (1: in this process)")
    ap.add_argument("--publish", action="store_true", help="with --evaluate: publish the earlier day, then the later one over "
                    "it keeping what holds and again in full, and time both")
    ap.add_argument("--keep", type=Path, help="leave the incremental half's two collections here (earlier.duckdb, "
                    "later.duckdb) for bench/evaluate_daily.py")
    args = ap.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        report: dict[str, Any] = {"benchmark": "collect_cost", "repos": args.repos, "seed": args.seed}
        if args.only != "incremental":
            world, gen = world_at(args.world, tmp, "w", args.repos, args.seed, EARLIER)
            full = collect(world, tmp / "full.duckdb", EARLIER, args.concurrency, faults=args.faults)
            report.update(world_prs=read_meta(world)["counts"]["pulls"], generate_seconds=round(gen, 1), full=full,
                          hours_of_one_token_at_5000_points=round(full["points"] / 5000, 2))
            # Each half as soon as it is known: a long run that is stopped still leaves its figures.
            print(json.dumps({"partial": "full", **full}), file=sys.stderr, flush=True)
            if args.check:
                report["check"] = check(world, tmp / "full.duckdb", tmp)
                print(json.dumps({"partial": "check", **report["check"]}), file=sys.stderr, flush=True)
        if args.only != "full":
            when = EARLIER + timedelta(days=args.days)
            later, _ = world_at(args.later_world, tmp, "later", args.repos, args.seed, when)
            db = tmp / "later.duckdb"
            base = collect(later, db, EARLIER, args.concurrency, clock=EARLIER)
            print(json.dumps({"partial": "earlier", **base}), file=sys.stderr, flush=True)
            if args.keep is not None:
                shutil.copyfile(db, args.keep / "earlier.duckdb")
            if args.evaluate:
                report["evaluate_earlier"] = evaluate(db, EARLIER, args.workers)
            inc = collect(later, db, when, args.concurrency)
            print(json.dumps({"partial": "incremental", **inc}), file=sys.stderr, flush=True)
            if args.keep is not None:
                shutil.copyfile(db, args.keep / "later.duckdb")
            if args.evaluate:
                report["evaluate_daily"] = daily_evaluation(db, when, args.workers, tmp)
                print(json.dumps({"partial": "evaluate_daily", **report["evaluate_daily"]}), file=sys.stderr, flush=True)
            if args.evaluate and args.publish:
                report["publish_daily"] = daily_publish(db, when, tmp)
                print(json.dumps({"partial": "publish_daily", **report["publish_daily"]}), file=sys.stderr, flush=True)
            report.update(later_world_prs=read_meta(later)["counts"]["pulls"], days=args.days, earlier=base, incremental=inc,
                          incremental_share_of_full=round(inc["points"] / base["points"], 4))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
