"""What the audit adds to a full publish, against the publish itself and the floor (reading every file
of the site once), alternating in one run.

    .venv/bin/python bench/audit_cost.py --store STORE.duckdb [--rounds 2] [--work DIR]

STORE must be evaluated by this checkout (its results hold what the audit counts). Each round
publishes the snapshot from nothing with the audit off (`publish(full=True, audit=False)`), then
audits that site as `publish` does (every core), then reads each of its files once: the cheapest
honest version of any check that reads the pages. Prints one JSON object; only the ratios within one
run compare (these machines drift).
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
from pathlib import Path

from porchlamp.forks import cores
from porchlamp.publish import load_site_data, publish
from porchlamp.publish.audit import audit_site
from porchlamp.store import Store


def read_all(root: Path) -> int:
    n = 0
    for folder, _, files in os.walk(root):
        for f in files:
            with open(os.path.join(folder, f), "rb") as fh:
                n += len(fh.read())
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="a store evaluated by this checkout (read, never changed)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of publish, audit and the floor")
    ap.add_argument("--work", type=Path, help="where the site goes (default: a temporary directory, removed after)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="audit-cost-"))
    rounds = []
    try:
        with Store(args.store, read_only=True) as s:
            site = load_site_data(s)
        for r in range(args.rounds):
            out = work / f"site{r}"
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(work / f".site{r}.generations", ignore_errors=True)
            t = time.perf_counter()
            summary = publish(site, out, full=True, audit=False)
            published = time.perf_counter() - t
            t = time.perf_counter()
            audited = audit_site(out, site, workers=cores())
            audit = time.perf_counter() - t
            t = time.perf_counter()
            size = read_all(out.resolve())
            floor = time.perf_counter() - t
            rounds.append({"publish_s": round(published, 1), "audit_s": round(audit, 1), "read_every_file_s": round(floor, 1),
                           "pages": summary.pages, "bytes": size, "claims": audited.claims, "audited_pages": audited.pages,
                           "contradictions": len(audited.contradictions)})
            print(json.dumps({"round": r + 1, **rounds[-1]}), file=sys.stderr, flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    best = min(rounds, key=lambda x: x["publish_s"])
    print(json.dumps({"machine": f"{platform.machine()}, {cores()} cores", "projects": len(site.projects), "rounds": rounds,
                      "audit_of_publish": round(min(x["audit_s"] for x in rounds) / best["publish_s"], 3),
                      "floor_of_publish": round(min(x["read_every_file_s"] for x in rounds) / best["publish_s"], 3)}, indent=1))


if __name__ == "__main__":
    main()
