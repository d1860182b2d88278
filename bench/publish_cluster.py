"""Project pages written on the workers of a Dask scheduler against this machine's process pool, in one run.

    .venv/bin/python bench/publish_cluster.py --store STORE.duckdb [--workers 2] [--runs 2] [--work DIR]

The store's latest snapshot is read once for publishing, its detail files in `--work` (what the
workers read). A local Dask cluster of `--workers` processes is started once, and given to
`publish` by its scheduler's address, as an operator gives one elsewhere (`publish --cluster`). Then
the snapshot is published in full `--runs` times each way, alternating which goes first: on a pool of
`--workers` processes (`publish`'s own) and on the cluster. The first two sites must be equal byte
for byte or the benchmark stops. Reports each publish's seconds by step, the cluster's start, and
each worker's peak memory. The store is opened read-only, never changed. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from distributed import LocalCluster  # noqa: E402
from publish_daily import scratch, settle, tree  # noqa: E402  (beside this file)
from porchlamp.cluster import DaskRunner  # noqa: E402
from porchlamp.publish import load_site_data, publish  # noqa: E402
from porchlamp.store import Store  # noqa: E402


def one(site: Any, out: Path, **how: Any) -> dict[str, Any]:
    waited = settle(out.parent)
    summary = publish(site, out, full=True, **how)
    return {"seconds": summary.seconds, "projects": summary.projects, "pages": summary.pages, "steps": summary.steps,
            "disk_settled_before": waited}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store (opened read-only)")
    ap.add_argument("--workers", type=int, default=2, help="processes in the pool, and workers in the cluster")
    ap.add_argument("--runs", type=int, default=2, help="publishes each way")
    ap.add_argument("--work", type=Path, help="where the sites go (default: a temporary directory, removed after)")
    args = ap.parse_args()
    out: dict[str, Any] = {"benchmark": "publish_cluster", "store": str(args.store), "workers": args.workers,
                           "machine": f"{platform.machine()}, {platform.python_version()}", "pool": [], "cluster": []}
    with scratch(args.work) as work:
        t = time.perf_counter()
        with Store(args.store, read_only=True) as s:
            site = load_site_data(s, beside=work)
        out["load_seconds"] = round(time.perf_counter() - t, 1)
        t = time.perf_counter()
        local = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40)
        out["cluster_start_seconds"] = round(time.perf_counter() - t, 1)
        address = local.scheduler_address  # reached by its address only, as a scheduler elsewhere
        try:
            for i in range(args.runs):
                order = [("pool", {"workers": args.workers}), ("cluster", {"cluster": address})]
                for name, how in order if i % 2 == 0 else order[::-1]:
                    target = work / f"{name}-{i}"
                    out[name].append(one(site, target, **how))
                    print(name, i, out[name][-1]["seconds"], file=sys.stderr)
                if i == 0:
                    if tree(work / "pool-0") != tree(work / "cluster-0"):
                        raise SystemExit("the site written on the cluster differs from the pool's")
                    out["equal"] = True
                for name, _ in order:
                    for path in work.glob(f".{name}-{i}.generations"):
                        shutil.rmtree(path)
            watch = DaskRunner(address=address)
            out["worker_peak_mb"] = watch.peak_memory_mb()
            watch.close()
        finally:
            local.close()
    for name in ("pool", "cluster"):
        out[f"{name}_seconds"] = [r["seconds"] for r in out[name]]
        out[f"{name}_projects_seconds"] = [r["steps"].get("projects") for r in out[name]]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
