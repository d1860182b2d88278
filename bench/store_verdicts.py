"""What storing a snapshot's PR verdicts costs by the columns stored: every column `pr_verdicts` has,
then without those it copies from the PR's own row in `pulls`, then the keys alone, each inserted
into a table of the store's file and committed, alternating, in one run.

    .venv/bin/python bench/store_verdicts.py --store /tmp/porchlamp-bench/store11000.duckdb --rounds 3

The figure a change of schema needs: how much of the full evaluation's write would go if a verdict
kept only what was judged and the PR results read the rest from `pulls`. The store is copied first
(left untouched); its latest snapshot's verdicts are the rows inserted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import duckdb

# What a verdict repeats of its PR's row in `pulls` (`sql/08_verdicts.sql`).
COPIED = ("title", "author", "author_association", "created_at", "has_ci")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store, such as bench/run.py's (left untouched)")
    ap.add_argument("--rounds", type=int, default=3, help="times each set of columns is stored (default 3)")
    args = ap.parse_args()
    if not args.store.exists():
        raise SystemExit(f"{args.store}: no such store; make one with bench/run.py --sizes N --only evaluate")
    with tempfile.TemporaryDirectory(dir=args.store.parent) as tmp:
        db = Path(tmp) / "copy.duckdb"
        shutil.copyfile(args.store, db)
        conn = duckdb.connect(str(db))
        conn.execute("SET memory_limit = '1500MB'")  # evaluation's budget (`snapshot.EVALUATE_BUDGET`)
        conn.execute("CREATE TEMP TABLE src AS SELECT v.* FROM pr_verdicts v JOIN snapshot_prs s ON s.id = v.id "
                     "WHERE s.as_of = (SELECT max(as_of) FROM snapshots)")
        cols = [r[0] for r in conn.execute("DESCRIBE src").fetchall()]
        sets = {"every column": cols, "without the PR's own columns": [c for c in cols if c not in COPIED],
                "keys only": ["id", "repo", "number"]}
        rows = conn.execute("SELECT count(*) FROM src").fetchone()[0]  # type: ignore[index]
        for k in range(args.rounds):
            for name, chosen in sets.items():
                listed = ", ".join(chosen)
                conn.execute(f"CREATE TABLE stored AS SELECT {listed} FROM src LIMIT 0")
                wall, cpu = time.perf_counter(), time.process_time()
                conn.execute("BEGIN")
                conn.execute(f"INSERT INTO stored SELECT {listed} FROM src")
                conn.execute("COMMIT")
                print(json.dumps({"round": k + 1, "columns": name, "count": len(chosen), "rows": rows,
                                  "seconds": round(time.perf_counter() - wall, 2), "cpu_seconds": round(time.process_time() - cpu, 2)}),
                      flush=True)
                conn.execute("DROP TABLE stored")
        conn.close()


if __name__ == "__main__":
    main()
