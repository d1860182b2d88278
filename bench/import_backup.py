"""How fast `porchlamp import` reads a real project's backup into a store: PRs a second, read and checked
against stored and marked, each round into a fresh store; the floor is reading and parsing the files alone.

    .venv/bin/python bench/import_backup.py --backup DIR --repo bitcoin/bips --rounds 3

DIR is a metadata backup's folder (state.json, pulls/N.json): fetch one and check it out file by file.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from porchlamp.backup import files_of, read_backup, write_backup
from porchlamp.store import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backup", required=True, type=Path, help="the backup's folder (holds pulls/)")
    ap.add_argument("--repo", required=True, help="owner/name of the project it is a backup of")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    files = files_of(args.backup)
    for k in range(args.rounds):
        t0 = time.perf_counter()
        for f in files:  # the floor: the files read and parsed, nothing else
            json.loads(f.read_bytes())
        floor = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "b.duckdb") as store:
            t0 = time.perf_counter()
            backup = read_backup(args.backup, args.repo)
            read = time.perf_counter() - t0
            counts = write_backup(store, backup)
            total = time.perf_counter() - t0
        n = len(backup.pulls)
        print(json.dumps({"round": k + 1, "prs": n, "timeline_items": counts["timeline"], "files_bytes": sum(f.stat().st_size for f in files),
                          "parse_only_s": round(floor, 2), "read_and_check_s": round(read, 2), "total_s": round(total, 2),
                          "prs_per_second": round(n / total, 1), "refused": len(backup.refused)}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
