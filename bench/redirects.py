"""How the redirect reader (`porchlamp.evaluate.redirect`, SPEC section 6) does on real comments it
was not built from, and how fast it reads.

    python bench/redirects.py [--split tune|held_out|all] [--world DIR] [--misses]

Prints, for each split, redirects recognised, near misses taken and venues named right, from
tests/data/redirect_comments.csv. Then comments read per second on one core: the corpus itself
(every text names a PR, a mirror or a venue, so every one is read sentence by sentence) and the
comments of a sample world (`--world`, made with 300 repositories when not given), which is what a
store holds. Rules are tuned on the tune split only; `--misses` lists misses of that split alone.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src")]

from porchlamp.evaluate.redirect import read  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "redirect_comments.csv"


def figures(rows: list[dict[str, str]]) -> dict[str, int]:
    """Counts of one split: redirects, recognised, near misses, taken, venues right."""
    out = {"redirects": 0, "recognised": 0, "near_misses": 0, "taken": 0, "venue_right": 0}
    for r in rows:
        got = read(r["text"]).redirect
        if r["label"] == "redirect":
            out["redirects"] += 1
            if got is not None:
                out["recognised"] += 1
                out["venue_right"] += got.venue == (r["venue"] or "other")
        else:
            out["near_misses"] += 1
            out["taken"] += got is not None
    return out


def rate(texts: list[str], at_least: float = 2.0) -> float:
    """Texts read per second, over at least `at_least` seconds of reading."""
    n, start = 0, time.perf_counter()
    while True:
        for t in texts:
            read(t)
        n += len(texts)
        took = time.perf_counter() - start
        if took >= at_least:
            return n / took


def world_comments(world: Path | None) -> list[str]:
    if world is None:
        from porchlamp.sample.world import generate_world
        world = Path(tempfile.mkdtemp(prefix="redirect-bench-")) / "world"
        generate_world(world, repos=300, seed=1)
    with gzip.open(world / "timeline.jsonl.gz", "rt", encoding="utf-8") as fh:
        return [b for b in (json.loads(line).get("body") for line in fh) if b]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("tune", "held_out", "all"), default=None, help="one split (default: each)")
    ap.add_argument("--world", type=Path, default=None, help="a sample world directory to read comments from")
    ap.add_argument("--misses", action="store_true", help="list the tune split's misses and near misses taken")
    args = ap.parse_args()
    rows = list(csv.DictReader(CORPUS.open(encoding="utf-8")))
    for split in ([args.split] if args.split else ["tune", "held_out", "all"]):
        f = figures([r for r in rows if split == "all" or r["split"] == split])
        print(f"{split:8}  recognised {f['recognised']}/{f['redirects']} ({f['recognised'] / f['redirects']:.1%})  "
              f"near misses taken {f['taken']}/{f['near_misses']} ({f['taken'] / f['near_misses']:.1%})  "
              f"venue right {f['venue_right']}/{f['recognised']}")
    if args.misses:
        for r in rows:
            got = read(r["text"]).redirect
            if r["split"] == "tune" and (got is None) == (r["label"] == "redirect"):
                print(" miss " if got is None else " taken", r["url"], (got.sentence if got else r["text"])[:160])
    corpus = [r["text"] for r in rows]
    comments = world_comments(args.world)
    print(f"corpus    {rate(corpus):>9,.0f} comments/s  ({len(corpus)} texts, all read sentence by sentence)")
    print(f"world     {rate(comments):>9,.0f} comments/s  ({len(comments):,} sample-world comments)")


if __name__ == "__main__":
    main()
