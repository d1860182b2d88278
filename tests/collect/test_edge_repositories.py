"""Repositories at the edges, collected through the emulator: one with 50,000 PRs in the window,
and an empty one (no commits, no files, no PRs). Both are collected whole and get a verdict."""

import gzip
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from collecting import collect_world

from porchlamp.config import Settings
from porchlamp.sample import generate_world
from porchlamp.sample.world import iter_rows
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

HUGE, EMPTY, N = "hugeorg/fifty-thousand", "quietorg/empty", 50_000
AS_OF = datetime(2026, 10, 15)


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _edge_world(base: Path, out: Path) -> Path:
    """The base world plus the two edge repositories, written in the world format."""
    tables = {t: list(iter_rows(base, t)) for t in
              ("repositories", "community", "dependents", "accounts", "pulls", "timeline", "commits", "issues")}
    template = next(r for r in tables["repositories"] if r["license_spdx"] == "MIT" and not r["is_fork"] and not r["is_archived"])
    tables["repositories"] += [
        {**template, "name_with_owner": HUGE, "stars": 90_000, "forks": 9_000, "topics": ["huge"]},
        {**template, "name_with_owner": EMPTY, "description": None, "homepage_url": None, "stars": 3, "forks": 0, "disk_usage_kb": 0,
         "primary_language": None, "languages": [], "topics": [], "license_spdx": None, "root_files": [], "pushed_at": None},
    ]
    tables["community"] += [{"repo": r, "contributing": r == HUGE, "code_of_conduct": False, "security_policy": False, "governance": False,
                             "codeowners": [], "ai_policy": [], "pr_template": None} for r in (HUGE, EMPTY)]
    tables["accounts"] += [{"login": "huge-maint", "type": "User", "created_at": "2015-01-01T00:00:00Z"}]
    tables["accounts"] += [{"login": f"visitor{i}", "type": "User", "created_at": "2020-01-01T00:00:00Z"} for i in range(5_000)]
    start = AS_OF - timedelta(days=180)
    span = (AS_OF - timedelta(days=16) - start).total_seconds()
    for n in range(1, N + 1):
        created = start + timedelta(seconds=span * n / N)
        answered = n % 3 != 0
        merged = created + timedelta(hours=30) if n % 2 == 0 and answered else None
        tables["pulls"].append({
            "repo": HUGE, "number": n, "node_id": f"PR_huge_{n}", "title": f"Change {n}", "author": f"visitor{n % 5_000}",
            "author_type": "User", "author_association": "NONE", "created_at": _ts(created), "is_draft": False,
            "state": "MERGED" if merged else "OPEN", "merged_at": _ts(merged) if merged else None, "merged_by": "huge-maint" if merged else None,
            "closed_at": _ts(merged) if merged else None, "updated_at": _ts(merged or created + timedelta(hours=5)), "body": "", "has_ci": True})
        if answered:
            tables["timeline"].append({"node_id": f"IC_huge_{n}", "repo": HUGE, "number": n, "kind": "comment",
                                       "created_at": _ts(created + timedelta(hours=5)), "actor": "huge-maint", "actor_type": "User",
                                       "actor_association": "MEMBER", "body": "Thanks!", "review_state": None})
    tables["commits"] += [{"repo": HUGE, "oid": f"{i:040x}", "committed_at": _ts(AS_OF - timedelta(days=2 + i)), "author_login": "huge-maint",
                           "author_name": "Huge Maint", "author_type": "User", "message": "Fix"} for i in range(5)]
    out.mkdir(parents=True)
    for table, rows in tables.items():
        with gzip.open(out / f"{table}.jsonl.gz", "wt", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    meta = json.loads((base / "world.json").read_text())
    meta["counts"] = {t: len(rows) for t, rows in tables.items()}
    (out / "world.json").write_text(json.dumps(meta))
    (out / "repos.txt").write_text((base / "repos.txt").read_text() + f"{HUGE}\n{EMPTY}\n")
    return out


@pytest.mark.slow
def test_fifty_thousand_prs_and_an_empty_repository(tmp_path: Path) -> None:
    base = generate_world(tmp_path / "base", repos=43, seed=5150).path
    world = _edge_world(base, tmp_path / "edge")
    summary = collect_world(world, tmp_path / "s.duckdb")
    assert summary.failed == {} and summary.done == 45
    with Store(tmp_path / "s.duckdb") as s:
        counts = {r["repo"]: r["n"] for r in s.query("SELECT repo, count(*) AS n FROM pulls GROUP BY repo")}
        assert counts[HUGE] == N and EMPTY not in counts
        assert s.states("meta")[(EMPTY, "meta")]["status"] == "done"
        assert json.loads(s.states("meta")[(EMPTY, "meta")]["detail"])["empty"] is True
        evaluate_store(s, None, Settings())
        results = {r["repo"]: r for r in s.query("SELECT repo, status, reason FROM results")}
        judged = s.query("SELECT count(*) AS n, sum(CASE WHEN outcome = 'answered' THEN 1 ELSE 0 END) AS answered "
                         "FROM pr_results WHERE repo = ?", [HUGE])[0]
    # One point per 100 PRs for the big one (500); the 43 small repositories' pages take about 60 more (one of
    # them has mostly long bodies, asked for in smaller pages after its pages time out).
    print("edge world:", summary.points, "points;", summary.points_by_query, summary.seconds, "s")
    assert N / 100 <= summary.points_by_query["pull_requests"] <= N / 100 + 75
    assert judged["n"] == N and judged["answered"] == N - N // 3
    assert results[HUGE]["status"] == "ranked"
    assert (results[EMPTY]["status"], results[EMPTY]["reason"]) == (
        "not_software", "not software: the repository is empty (no files on its default branch)")
