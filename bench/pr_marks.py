"""What marking a PR's title and description costs when it is stored (SPEC section 3): the AI
marks alone (what a PR got before), the fingerprint, the tools' PR templates, and all of them
(`evaluate.marks.mark_pr`), in microseconds a PR, on a sample of a store's PRs, in one run.

    .venv/bin/python bench/pr_marks.py --store /tmp/porchlamp-bench/store11000.duckdb --sample 50000

The store is only read. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from porchlamp.config import Settings
from porchlamp.evaluate.marks import ai_assisted, bot_pr_tool, fingerprint, mark_pr
from porchlamp.evaluate.rules import load_rules


def per_pr(rows: list[tuple[str | None, str | None]], mark: Callable[[str | None, str | None], Any]) -> float:
    """Microseconds a PR for `mark` over `rows`, the best of three passes."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for title, body in rows:
            mark(title, body)
        best = min(best, time.perf_counter() - start)
    return round(best / max(1, len(rows)) * 1e6, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="a store with PRs, such as bench/run.py's")
    ap.add_argument("--sample", type=int, default=50_000, help="how many PRs, drawn at random")
    args = ap.parse_args()
    if not args.store.exists():
        raise SystemExit(f"{args.store}: no such store; make one with bench/run.py --sizes N --only evaluate")
    rules = load_rules(Settings())
    with duckdb.connect(str(args.store), read_only=True) as conn:
        rows = conn.execute(f"SELECT title, body FROM pulls USING SAMPLE {int(args.sample)} ROWS (reservoir, 1)").fetchall()
    print(json.dumps({
        "prs": len(rows), "mean_body_chars": round(sum(len(b or "") for _, b in rows) / max(1, len(rows))),
        "us_ai_only": per_pr(rows, lambda _t, b: ai_assisted(b, rules)),
        "us_fingerprint": per_pr(rows, lambda _t, b: fingerprint(b) if b else None),
        "us_tool_templates": per_pr(rows, lambda t, b: bot_pr_tool(t, b, rules)),
        "us_all": per_pr(rows, lambda t, b: mark_pr(t, b, rules)),
    }))


if __name__ == "__main__":
    main()
