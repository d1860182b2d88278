"""What publishing holds in memory: a snapshot loaded for publishing (`load_site_data`), then a full
publish of it (`publish`, on 2 writing processes), with Python's own allocations traced in the
publishing process (`tracemalloc`: what is held once loaded, and the most held at once during the
publish), its peak resident size, and the most Arrow's memory pool held (its buffers are not
Python's, so tracemalloc does not see them: the listing's positions, the plan's columns, manifests).
`--kept N` keeps at most N projects made from the listing file (`publish.listing.KEPT_PROJECTS`):
run it at two sizes of world with the same N to see what still grows with the snapshot. `--over N`
publishes N times first (untraced), so that the traced publish plans over a live site and prunes a
standby that keeps every project (`--over 2`). Tracing slows the publish about twofold: its times
are not the publish's own. Prints one JSON object.

    .venv/bin/python bench/publish_memory.py --store STORE --out DIR [--kept N] [--over N] [--no-trace]
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import pyarrow as pa  # noqa: E402

from porchlamp.publish import load_site_data, publish  # noqa: E402
from porchlamp.store import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store (opened read-only)")
    ap.add_argument("--out", type=Path, required=True, help="where to publish (replaced)")
    ap.add_argument("--kept", type=int, help="projects kept made from the listing (default: the code's own)")
    ap.add_argument("--over", type=int, default=0, help="publishes before the measured one (0: into an empty folder)")
    ap.add_argument("--no-trace", action="store_true", help="no tracemalloc: the publish's own times, and its peak size only")
    args = ap.parse_args()
    try:
        from porchlamp.publish import listing
        if args.kept is not None:
            listing.KEPT_PROJECTS = args.kept
        kept = listing.KEPT_PROJECTS
    except ImportError:  # a revision from before the listing file
        kept = None
    for old in (args.out, args.out.parent / f".{args.out.name}.generations"):
        if old.is_symlink() or old.is_file():
            old.unlink()
        elif old.exists():
            shutil.rmtree(old)
    for _ in range(args.over):
        with Store(args.store, read_only=True) as s:
            publish(load_site_data(s), args.out, workers=2)
    trace = not args.no_trace
    if trace:
        tracemalloc.start()
    t = time.perf_counter()
    with Store(args.store, read_only=True) as s:
        site = load_site_data(s)
    load = time.perf_counter() - t
    held = tracemalloc.get_traced_memory()[0] if trace else None
    if trace:
        tracemalloc.reset_peak()
    t = time.perf_counter()
    summary = publish(site, args.out, workers=2)
    wall = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    n = len(site.projects)
    print(json.dumps({
        "machine": f"{platform.machine()}, {platform.processor() or '?'}, python {platform.python_version()}",
        "projects": n, "kept_projects": kept, "over": args.over, "reused": summary.reused, "traced": trace,
        "held_once_loaded_bytes": held, "held_per_project": None if held is None else round(held / n),
        "publish_peak_bytes": peak, "publish_peak_per_project": None if peak is None else round(peak / n),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "arrow_pool_peak_bytes": pa.default_memory_pool().max_memory(),
        "load_s": round(load, 2), "publish_s": round(wall, 2), "steps": summary.steps, "pages": summary.pages}))


if __name__ == "__main__":
    main()
