"""Evaluation and a full publish of a world whose projects live on GitHub and GitLab, against the
world of the same size and seed on GitHub alone, alternating in one run.

    .venv/bin/python bench/forges_mixed.py --work /tmp/porchlamp-bench [--repos 11000] [--gitlab 0.2] [--self-hosted 0.1] [--rounds 2]

Both worlds are generated in two parts side by side and loaded as `load-world` does (a GitLab project
as GitLab shows it: members, no associations). Each evaluation and publish runs in a fresh process
(bench/run.py's child); prints each as a JSON line, then the mixed world's times over the GitHub
world's.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import child, emit  # noqa: E402  (the benchmarks' one child process)

SEED = 2026


def _generate(world: Path, n: int, part: tuple[int, int], hosts: dict[str, float] | None) -> int:
    from porchlamp.sample import generate_world

    return generate_world(world, repos=n, seed=SEED, part=part, hosts=hosts).pulls


def build(work: Path, name: str, n: int, hosts: dict[str, float] | None) -> Path:
    worlds = [work / f"{name}-p{i}" for i in (1, 2)]
    db = work / f"{name}.duckdb"
    if not db.exists():
        t0 = time.perf_counter()
        with ProcessPoolExecutor(2) as pool:
            prs = sum(pool.map(_generate, worlds, [n, n], [(1, 2), (2, 2)], [hosts, hosts]))
        emit({"benchmark": "generate_world", "world": name, "repos": n, "prs": prs, "seconds": round(time.perf_counter() - t0, 1)})
        for w in worlds:
            emit({"benchmark": "load_world", "world": name, **child("load", db, f"{w}|4GB")})
    return db


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--repos", type=int, default=11_000)
    ap.add_argument("--gitlab", type=float, default=0.2, help="share of the mixed world on gitlab.com")
    ap.add_argument("--self-hosted", type=float, default=0.1, help="share on a self-hosted GitLab instance")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    stores = {"github": build(args.work, f"github{args.repos}", args.repos, None),
              "mixed": build(args.work, f"mixed{args.repos}", args.repos,
                             {"gitlab.com": args.gitlab, "gitlab.example.org": args.self_hosted})}
    times: dict[str, dict[str, list[float]]] = {k: {"evaluate": [], "publish": []} for k in stores}
    for r in range(args.rounds):
        for name, db in stores.items():
            rec = child("evaluate", db, "1")
            times[name]["evaluate"].append(rec["seconds"])
            emit({"benchmark": "evaluate", "world": name, "round": r + 1, **{k: rec[k] for k in ("repos", "seconds", "peak_rss_mb")}})
    for r in range(args.rounds):
        for name, db in stores.items():
            out = args.work / f"site-{name}"  # a fresh site each time: the link and its two generations go
            if out.is_symlink():
                out.unlink()
            shutil.rmtree(out.parent / f".{out.name}.generations", ignore_errors=True)
            rec = child("publish", db, str(out))
            times[name]["publish"].append(rec["seconds"])
            emit({"benchmark": "publish", "world": name, "round": r + 1, **{k: rec[k] for k in ("pages", "files", "seconds", "peak_rss_mb")}})
    print(json.dumps({"benchmark": "mixed_over_github", **{step: round(min(times["mixed"][step]) / min(times["github"][step]), 3)
                                                           for step in ("evaluate", "publish")}}), flush=True)


if __name__ == "__main__":
    main()
