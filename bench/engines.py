"""Evaluation now against the engine it replaced, in one run on the same world: wall time, CPU and
peak memory of each, the four result tables compared row for row, and each engine's lines of code.

    .venv/bin/python bench/engines.py --repos 11000 --seed 2026 [--old 65abf32] [--work DIR] [--parts 2]

The replaced engine is the commit `--old` (default: the last commit before the switch), its `src`
unpacked under --work and run with this environment's packages: it loads
the world into a store of its own (its store format is older) and evaluates it with its defaults
(`--full`: nothing carried, one worker per core from 1,000 repositories up). This tree's engine loads
the world (text marked then, once) and evaluates it in this process's way (`--workers`, default 1),
then evaluates the next day on a copy, as a daily refresh that found nothing new would. This tree
judges by the method as it stood at the switch (`AT_SWITCH`): rules added since (an account that
acts as one repository's bot, one that opens PRs with one description) are turned off, so that equal
rows mean the same method; where the off-GitHub reader or the tools' PR templates, which no setting
turns off, read anything, the repository is set aside (counted, and ranks compared as the order
among the rest).
Each evaluation runs in a child process of its own; its CPU counts every process it waited for
(Dask's workers too). Prints one JSON object; exits non-zero if any result table differs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import CHILD  # noqa: E402  (the benchmarks' evaluation child: its next_day step)

ROOT = Path(__file__).resolve().parent.parent
REPLACED = "65abf32"  # the last commit whose evaluation judged PRs in Python, one object each
TABLES = ("results", "pr_results", "component_results", "profile_results")
# Configuration that turns off what the method gained after the switch: no account posts one text
# on this many PRs of a repository, nor opens this many PRs with one description.
AT_SWITCH = "[templates]\nown_min_prs = 1000000\nauthor_template_prs = 1000000\n"
# What is compared of each table: every column both engines have, but the wording of the evidence
# (its JSON) and of the reasons, reworded since ("and 1 more PR", "1 outside PR", a stale reason's
# days measured; the status and kind beside each reason are compared), and what a profile says
# against the whole ranking (its explanation against the average ranked project, its move against
# the default rank), which the repositories set aside are part of; its rank is compared as an order.
# A component's inputs (JSON) are kept exact since, where they were rounded (a median to 0.1 h, a
# share to 4 places): the score computed from them is compared.
NOT_COMPARED = {"evidence", "reason", "explain", "delta", "inputs"}
# The evaluation path of each engine: what a newcomer reads to learn how a snapshot is judged.
OLD_PATH = ("src/porchlamp/evaluate", "src/porchlamp/snapshot.py", "src/porchlamp/cluster.py", "src/porchlamp/store/shards.py",
            "src/porchlamp/store/inputs.py", "src/porchlamp/gcpause.py")
NEW_PATH = ("src/porchlamp/evaluate", "src/porchlamp/snapshot.py", "src/porchlamp/cluster.py", "src/porchlamp/store/shards.py",
            "src/porchlamp/store/marks.py")
# Runs the command line given in a child and prints its wall seconds, CPU seconds (every process it
# waited for) and the largest resident size of any of them, in MB.
MEASURE = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": run.returncode, "seconds": round(time.perf_counter() - t, 2), "cpu": round(u.ru_utime + u.ru_stime, 2),
                  "peak_mb": round(u.ru_maxrss / 1024), "out": run.stdout[-2000:], "err": run.stderr[-3000:]}))
"""
CLI = "import sys; sys.argv[0] = 'porchlamp'; from porchlamp.cli import main; main()"


def porchlamp(src: Path, *args: str, code: str = CLI) -> dict[str, Any]:
    """`porchlamp ARGS` (or the Python `code` with ARGS) with the package from `src`, measured."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "200"}
    run = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.exit(f"engines: measuring `porchlamp {' '.join(args)}` failed:\n{run.stderr[-3000:]}")
    out = json.loads(run.stdout)
    if out["rc"] != 0:
        sys.exit(f"engines: `porchlamp {' '.join(args)}` with {src} failed:\n{out['err']}")
    return out


def lines(tree: Path, paths: tuple[str, ...]) -> int:
    """Lines of the Python and SQL files under `paths` in `tree`."""
    total = 0
    for p in paths:
        f = tree / p
        files = [f] if f.is_file() else [g for g in f.rglob("*") if g.suffix in (".py", ".sql")] if f.is_dir() else []
        total += sum(len(g.read_text(encoding="utf-8").splitlines()) for g in files)
    return total


def compare(old: Path, new: Path) -> tuple[dict[str, dict[str, int]], int]:
    """Each table's rows found in only one store, over the columns both have; and how many
    repositories were set aside."""
    import duckdb

    conn = duckdb.connect()
    conn.execute(f"ATTACH '{old}' AS o (READ_ONLY)")
    conn.execute(f"ATTACH '{new}' AS n (READ_ONLY)")
    # Off-GitHub review is read from what people write since the switch (`evaluate/redirect.py`), which
    # no setting turns off: the repositories where it reads anything, or that either engine calls
    # undecided, are set aside and counted.
    # So is a tool's PR template in a PR's text (SPEC 3, read since): the repositories with one are set aside too.
    conn.execute("CREATE TEMP TABLE aside AS SELECT DISTINCT repo FROM n.timeline WHERE m_redirect IS NOT NULL OR m_welcome "
                 "UNION SELECT repo FROM n.pulls WHERE m_bot_tool IS NOT NULL "
                 "UNION SELECT repo FROM n.results WHERE status = 'undecided' UNION SELECT repo FROM o.results WHERE status = 'undecided'")
    out: dict[str, dict[str, int]] = {}
    for t in TABLES:
        cols = [r[0] for r in conn.execute(f"DESCRIBE n.{t}").fetchall()]
        theirs = {r[0] for r in conn.execute(f"DESCRIBE o.{t}").fetchall()}
        # A rank is compared as the order among the repositories compared (those set aside held ranks too).
        shared = ", ".join('rank() OVER (PARTITION BY as_of, profile ORDER BY "rank") AS "rank"' if c == "rank" else f'"{c}"'
                           for c in cols if c in theirs and c not in NOT_COMPARED)
        kept = "WHERE repo NOT IN (SELECT repo FROM aside)"
        only = [conn.execute(f"SELECT count(*) FROM (SELECT {shared} FROM {a}.{t} {kept} EXCEPT ALL "
                             f"SELECT {shared} FROM {b}.{t} {kept})").fetchone()[0] for a, b in (("o", "n"), ("n", "o"))]
        out[t] = {"rows": conn.execute(f"SELECT count(*) FROM n.{t}").fetchone()[0], "old_only": only[0], "new_only": only[1]}
    return out, conn.execute("SELECT count(*) FROM aside").fetchone()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repos", type=int, default=300, help="repositories in the sample world (default 300)")
    ap.add_argument("--seed", type=int, default=2026, help="the world's seed (default 2026)")
    ap.add_argument("--old", default=REPLACED, help=f"the commit of the replaced engine (default {REPLACED})")
    ap.add_argument("--workers", type=int, default=1, help="worker processes for this tree's evaluation (default 1)")
    ap.add_argument("--parts", type=int, default=1, help="generate the world in this many parts side by side (one per core)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/porchlamp-engines"), help="where the world, stores and checkout go "
                    "(kept between runs: the world and the checkout are reused)")
    args = ap.parse_args()
    if args.repos < 1 or args.parts < 1:
        ap.error("--repos and --parts must be at least 1")
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    old_tree = work / f"old-{args.old}"
    if not (old_tree / "src" / "porchlamp").is_dir():
        # Its `src` as of that commit, unpacked: no worktree is registered in this repository.
        old_tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.old, "src"], capture_output=True)
        if archive.returncode:
            sys.exit(f"engines: no commit {args.old} in {ROOT}: {archive.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive.stdout, check=True)
    worlds = [work / f"world{args.repos}-{args.seed}-{k}" for k in range(1, args.parts + 1)]
    todo = [(w, k) for k, w in enumerate(worlds, 1) if not (w / "world.json").exists()]
    gens = [subprocess.Popen([sys.executable, "-c", CLI, "sample-world", "--repos", str(args.repos), "--seed", str(args.seed),
                              "--out", str(w), *(["--part", f"{k}/{args.parts}"] if args.parts > 1 else [])],
                             env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, stdout=subprocess.DEVNULL) for w, k in todo]
    if any(g.wait() for g in gens):
        sys.exit("engines: generating the world failed")
    report: dict[str, Any] = {"benchmark": "engines", "repos": args.repos, "seed": args.seed, "old": args.old,
                              "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"}
    stores = {}
    switch = work / "at-switch.toml"
    switch.write_text(AT_SWITCH, encoding="utf-8")
    for name, src, extra in (("old", old_tree / "src", ["--full"]),
                             ("new", ROOT / "src", ["--workers", str(args.workers), "--config", str(switch)])):
        db = work / f"{name}.duckdb"
        for leftover in (db, Path(f"{db}.wal")):
            leftover.unlink(missing_ok=True)
        t = time.perf_counter()
        for w in worlds:
            porchlamp(src, "load-world", str(w), "--db", str(db))
        loaded = round(time.perf_counter() - t, 1)
        ran = porchlamp(src, "evaluate", "--db", str(db), *extra)
        report[name] = {"load_seconds": loaded, "evaluate_seconds": ran["seconds"], "evaluate_cpu": ran["cpu"],
                        "evaluate_peak_mb": ran["peak_mb"]}
        stores[name] = db
    report["new_over_old_seconds"] = round(report["new"]["evaluate_seconds"] / report["old"]["evaluate_seconds"], 3)
    report["new_over_old_cpu"] = round(report["new"]["evaluate_cpu"] / report["old"]["evaluate_cpu"], 3)
    # The next day on a copy of this tree's evaluated store, as a daily refresh whose collection found
    # nothing new evaluates it: the verdicts it stores and those it lists again.
    day = work / "day.duckdb"
    day.unlink(missing_ok=True)
    shutil.copyfile(stores["new"], day)
    ran = porchlamp(ROOT / "src", "next_day", str(day), "", code=CHILD)
    report["new_next_day"] = {"evaluate_seconds": ran["seconds"], "evaluate_cpu": ran["cpu"], "evaluate_peak_mb": ran["peak_mb"],
                              **json.loads(ran["out"].strip().splitlines()[-1])}
    report["tables"], report["repos_set_aside"] = compare(stores["old"], stores["new"])
    report["lines"] = {"old": lines(old_tree, OLD_PATH), "new": lines(ROOT, NEW_PATH)}
    print(json.dumps(report, indent=1))
    if any(v["old_only"] or v["new_only"] for v in report["tables"].values()):
        sys.exit("engines: the result tables differ")


if __name__ == "__main__":
    main()
