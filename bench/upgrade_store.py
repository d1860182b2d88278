"""What upgrading an operator's store costs: an evaluated store turned back into one an older
Porchlamp left (`--schema 12`: each day's repository verdicts copied whole into `results`;
`--schema 11`: its PR verdicts too, into `pr_results`), holding `--days` days of them (the latest
day's rows copied to each earlier day, as a daily refresh before those schemas wrote them), then
opened by the code under `--code` (a `src` folder; this checkout's by default) in a child process,
which upgrades it. Reports the upgrade's time, the child's peak resident size (Linux's VmHWM), and
whether the result tables read the same (an order-free digest of every row) before and after.

    .venv/bin/python bench/upgrade_store.py --store STORE --work DIR [--schema 12] [--days 60] [--code SRC]

The store given is copied, never changed. Prints one JSON object.
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

import duckdb

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "src"))

from porchlamp.store.schema import STORED_ONCE  # noqa: E402

# In the child: open (and so upgrade) the store, then say how long that took and the most it held
# resident (VmHWM: its own, where the resource module would count the parent's pages it forked from).
OPEN = """
import re, sys, time
from pathlib import Path
from porchlamp.store import Store
t = time.perf_counter()
with Store(sys.argv[1]):
    pass
print(time.perf_counter() - t, re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1))
"""

# Each view of a verdict stored once and the two tables it reads, by the schema that made it.
VIEWS = {12: ("pr_results", *STORED_ONCE["pr_results"]), 13: ("results", *STORED_ONCE["results"])}
# What schemas 14 (text marks), 15 (no carried verdicts), 16 (a comment's welcome) and 17 (documents' marks) changed,
# undone: the columns and tables they dropped come back empty, the columns they added go.
UNDO_17_14 = """
ALTER TABLE community DROP COLUMN m_docs;
ALTER TABLE community DROP COLUMN m_version;
ALTER TABLE timeline DROP COLUMN m_welcome;
DROP VIEW pr_results;
DROP VIEW results;
ALTER TABLE pr_verdicts ADD COLUMN valid_until TIMESTAMP;
ALTER TABLE pr_verdicts ADD COLUMN inputs VARCHAR;
ALTER TABLE pr_verdicts ADD COLUMN acts VARCHAR;
ALTER TABLE pr_verdicts ADD COLUMN rows VARCHAR;
ALTER TABLE repo_verdicts ADD COLUMN valid_until TIMESTAMP;
ALTER TABLE repo_verdicts ADD COLUMN inputs VARCHAR;
ALTER TABLE snapshots ADD COLUMN basis VARCHAR;
CREATE VIEW pr_results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_prs s JOIN pr_verdicts v ON v.id = s.id;
CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_repos s JOIN repo_verdicts v ON v.id = s.id;
CREATE TABLE template_pr_sighted (repo VARCHAR, number INTEGER, inputs VARCHAR, settings VARCHAR);
CREATE TABLE template_fingerprints (repo VARCHAR, fp BIGINT, number INTEGER, fast BOOLEAN, actor VARCHAR);
CREATE TABLE template_comments (repo VARCHAR, number INTEGER, login VARCHAR, n INTEGER);
""" + "".join(f"ALTER TABLE timeline DROP COLUMN {c};\n" for c in ("m_version", "m_fp", "m_chars", "m_words", "m_curated", "m_redirect")) \
    + "ALTER TABLE pulls DROP COLUMN m_version;\nALTER TABLE pulls DROP COLUMN m_ai;\n"
# What schema 22 (late answers counted) changed, undone first.
UNDO_22 = """
DROP VIEW results;
ALTER TABLE repo_verdicts DROP COLUMN answered_late;
CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id), l.home AS review_at FROM snapshot_repos s
    JOIN repo_verdicts v ON v.id = s.id LEFT JOIN mirror_links l ON l.as_of = s.as_of AND l.repo = v.repo;
"""
# What schema 21 (a PR's description lines) changed, undone next.
UNDO_21 = "ALTER TABLE pulls DROP COLUMN m_lines;\n"
# What schema 20 (a PR's text marks, a bot PR's reason) changed, undone next.
UNDO_20 = """
DROP VIEW pr_results;
ALTER TABLE pr_verdicts DROP COLUMN bot_reason;
CREATE VIEW pr_results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_prs s JOIN pr_verdicts v ON v.id = s.id;
""" + "".join(f"ALTER TABLE pulls DROP COLUMN {c};\n" for c in ("m_fp", "m_chars", "m_words", "m_bot_tool"))
# What schemas 19 (mirror links) and 18 (a project's forge, accounts by host, members) changed, undone then.
UNDO_19_18 = """
DROP VIEW results;
DROP TABLE mirror_links;
DROP TABLE members;
ALTER TABLE repositories DROP COLUMN forge;
CREATE TABLE accounts_by_login (login VARCHAR PRIMARY KEY, type VARCHAR, created_at TIMESTAMP, node_id VARCHAR);
INSERT INTO accounts_by_login SELECT login, type, created_at, node_id FROM accounts WHERE host = 'github.com';
DROP TABLE accounts;
ALTER TABLE accounts_by_login RENAME TO accounts;
ALTER TABLE repo_verdicts DROP COLUMN forge;
CREATE VIEW results AS SELECT s.as_of, v.* EXCLUDE (id) FROM snapshot_repos s JOIN repo_verdicts v ON v.id = s.id;
"""
# Columns those older schemas held that no later one does, and those a later one adds with a default
# (18: a verdict's forge; 19: where a mirror's review happens; 20: why a PR's author is a bot, made by
# the next evaluation), left out of what must read the same.
GONE = frozenset({"valid_until", "inputs", "acts", "rows", "forge", "review_at", "bot_reason", "answered_late"})


def digest(conn: duckdb.DuckDBPyConnection, table: str) -> str:
    cols = ", ".join(r[0] for r in conn.execute(f"DESCRIBE {table}").fetchall() if r[0] not in GONE)
    return str(conn.execute(f"SELECT count(*), sum(hash({cols})::HUGEINT) FROM {table}").fetchone())


def make_older(path: Path, schema: int, days: int) -> dict[str, int]:
    """The store at `path` as schema `schema` left it, with `days` days of results: returns the rows
    of each table made whole again."""
    conn = duckdb.connect(str(path))
    try:
        version = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
        if version != 22:
            sys.exit(f"{path}: schema {version}; this benchmark knows how to go back from 22 only")
        conn.execute(UNDO_22)
        conn.execute(UNDO_21)
        conn.execute(UNDO_20)
        conn.execute(UNDO_19_18)
        conn.execute(UNDO_17_14)
        whole = [VIEWS[v] for v in sorted(VIEWS) if v > schema]
        last = conn.execute("SELECT max(as_of) FROM snapshots").fetchone()[0]
        conn.execute("DELETE FROM snapshots WHERE as_of <> ?", [last])
        rows = {}
        for view, verdicts, listing in whole:
            conn.execute(f"CREATE TABLE _whole AS SELECT * FROM {view} WHERE as_of = ?", [last])
            conn.execute(f"DROP VIEW {view}")
            conn.execute(f"DROP TABLE {verdicts}")
            conn.execute(f"DROP TABLE {listing}")
            conn.execute(f"ALTER TABLE _whole RENAME TO {view}")
            for back in range(1, days):
                conn.execute(f"INSERT INTO {view} SELECT * REPLACE (CAST(as_of - INTERVAL {back} DAY AS DATE) AS as_of) "
                             f"FROM {view} WHERE as_of = ?", [last])
            rows[view] = conn.execute(f"SELECT count(*) FROM {view}").fetchone()[0]
        conn.execute("INSERT INTO snapshots SELECT s.* REPLACE (CAST(s.as_of - INTERVAL (r.d) DAY AS DATE) AS as_of) "
                     "FROM snapshots s, range(1, ?) r(d) WHERE s.as_of = ?", [days, last])
        conn.execute("DELETE FROM schema_migrations WHERE version > ?", [schema])
        conn.execute("CHECKPOINT")
        return rows
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store of the latest schema (copied)")
    ap.add_argument("--work", type=Path, required=True, help="a folder for the copy (its store replaced)")
    ap.add_argument("--schema", type=int, choices=(11, 12), default=12, help="the schema to go back to")
    ap.add_argument("--days", type=int, default=60, help="days of results the older store holds")
    ap.add_argument("--code", type=Path, default=HERE / "src", help="the `src` folder of the code that upgrades it")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    copy = args.work / "upgrade.duckdb"
    for leftover in (copy, copy.with_name(copy.name + ".wal")):
        leftover.unlink(missing_ok=True)
    shutil.copyfile(args.store, copy)
    t = time.perf_counter()
    rows = make_older(copy, args.schema, args.days)
    made = time.perf_counter() - t
    with duckdb.connect(str(copy), read_only=True) as conn:
        before = {view: digest(conn, view) for view, *_ in VIEWS.values()}
    size = copy.stat().st_size
    env = {**os.environ, "PYTHONPATH": str(args.code)}
    child = subprocess.run([sys.executable, "-c", OPEN, str(copy)], env=env, capture_output=True, text=True)
    if child.returncode:
        sys.exit(f"the upgrade failed:\n{child.stderr[-3000:]}")
    seconds, peak_kb = child.stdout.split()[-2:]
    with duckdb.connect(str(copy), read_only=True) as conn:
        after = {view: digest(conn, view) for view, *_ in VIEWS.values()}
    print(json.dumps({
        "machine": f"{os.cpu_count()} cores, {platform.machine()}", "code": str(args.code),
        "schema": args.schema, "days": args.days, "rows": rows, "older_store_mb": size // 2**20,
        "made_in_seconds": round(made, 1), "upgrade_seconds": round(float(seconds), 1),
        "upgrade_peak_rss_mb": int(peak_kb) // 1024,
        "reads_the_same": before == after,
    }, indent=1))


if __name__ == "__main__":
    main()
