"""A day with real activity evaluated carrying what holds, against a full evaluation, from two collections.

    .venv/bin/python bench/evaluate_daily.py --earlier EARLIER.duckdb --later LATER.duckdb [--workers 2] [--work DIR]

`--earlier` holds a collection for one day and `--later` the same repositories refreshed days
later (what `bench/collect_cost.py --days 1 --keep DIR` leaves as earlier.duckdb and later.duckdb).
A new store, made by the code this runs from, is given the earlier collection's rows and evaluated
in full for its day; then every collected table is replaced by the later collection's, and the
later day is evaluated carrying what holds, against a full evaluation of a copy. The two must be
equal (the four result tables) or the benchmark stops. Neither given store is changed, and the
stores made need not be of this code's schema version: run it from a copy of an older revision
(its `src` is what is imported) to compare two versions on the same day. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
from datetime import date
from pathlib import Path
from typing import Any

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from collect_cost import evaluate  # noqa: E402  (beside this file; imports the `src` above)
from publish_daily import scratch  # noqa: E402
from porchlamp.store import RAW_TABLES, Store  # noqa: E402

# What a collection writes, besides the raw rows: its progress per repository and the names it resolved.
COLLECTED = (*RAW_TABLES, "collect_state", "repo_names")


def take_rows(db: Path, source: Path) -> date:
    """Replace every collected table of `db` by `source`'s, and return the day `source` was collected for.
    `source` is read as plain tables: an older revision of this code refuses to open a newer store."""
    with duckdb.connect(str(source), read_only=True) as conn:
        when = date.fromisoformat(conn.execute("SELECT value FROM store_meta WHERE key = 'collected_as_of'").fetchone()[0])
    with Store(db) as s:
        s.conn.execute(f"ATTACH '{source}' AS src (READ_ONLY)")
        try:
            with s.transaction():
                for table in COLLECTED:
                    cols = ", ".join(c for (c, *_) in s.conn.execute(f"DESCRIBE {table}").fetchall())
                    s.conn.execute(f"DELETE FROM {table}")
                    s.conn.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM src.{table}")
            s.set_meta("collected_as_of", when.isoformat())
        finally:
            s.conn.execute("DETACH src")
    return when


def tables(db: Path, when: date) -> dict[str, str]:
    """Each result table's rows of `when` as one order-free digest."""
    out = {}
    with Store(db, read_only=True) as s:
        for t in ("results", "pr_results", "component_results", "profile_results"):
            cols = ", ".join(c for (c, *_) in s.conn.execute(f"DESCRIBE {t}").fetchall())
            out[t] = str(s.conn.execute(f"SELECT count(*), sum(hash({cols})::HUGEINT) FROM {t} WHERE as_of = ?", [when]).fetchone())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--earlier", type=Path, required=True, help="a store collected for the first day (never changed)")
    ap.add_argument("--later", type=Path, required=True, help="the same repositories collected for a later day (never changed)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes for evaluation (1: in this process)")
    ap.add_argument("--work", type=Path, help="where the stores are made (default: a temporary directory, removed after)")
    args = ap.parse_args()
    for given in (args.earlier, args.later):
        if not given.is_file():
            ap.error(f"{given} is not a store file: give the stores a collection left (earlier.duckdb, later.duckdb)")
    with scratch(args.work) as work:
        db = work / "day.duckdb"
        with Store(db):
            pass  # made by this code, at its schema version
        first = take_rows(db, args.earlier)
        report: dict[str, Any] = {"benchmark": "evaluate_daily", "machine": f"{os.cpu_count()} cores, {platform.machine()}",
                                  "date": date.today().isoformat(), "workers": args.workers}
        report["first"] = evaluate(db, first, args.workers, reuse=False)
        second = take_rows(db, args.later)
        whole = work / "whole.duckdb"
        shutil.copyfile(db, whole)
        report["full"] = evaluate(whole, second, args.workers, reuse=False)
        report["daily"] = evaluate(db, second, args.workers, reuse=True)
        if tables(db, second) != tables(whole, second):
            raise SystemExit("the day carried differs from the full evaluation: a bug, not a figure")
        report["equal_rows"] = True
        report["daily_over_full_time"] = round(report["daily"]["seconds"] / report["full"]["seconds"], 3)
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
