"""The collector through the emulator, over real HTTP: it gets what the world holds, survives
faults, follows renames, stops cleanly on a bad token, and costs few points."""

import json
import shutil
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from collecting import AS_OF, collect_world, raw_contents

from porchlamp.collect import AuthError
from porchlamp.config import Settings
from porchlamp.emulator import Limits, WorldIndex
from porchlamp.evaluate import evaluate_snapshot
from porchlamp.sample import generate_world, iter_rows, read_truth
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

START = datetime(2026, 10, 15) - timedelta(days=183)


def _ts(s: str | None) -> datetime | None:
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ") if s else None


def test_store_holds_the_worlds_window(collected300, world300: Path) -> None:  # type: ignore[no-untyped-def]
    db, summary = collected300
    with Store(db, read_only=True) as s:
        repos = {r.name_with_owner: r for r in s.records("repositories")}
        pulls = {(p.repo, p.number): p for p in s.records("pulls")}
        items = {i.node_id: i for i in s.records("timeline")}
        community = {c.repo: c for c in s.records("community")}
        deps = {d.repo: d for d in s.records("dependents")}
        commits = defaultdict(list)
        for c in s.records("commits"):
            commits[c.repo].append(c)
        issues = {(i.repo, i.number) for i in s.records("issues")}
        accounts = s.accounts()
    world_repos = list(iter_rows(world300, "repositories"))
    assert len(repos) == len(world_repos) == summary.done == 300
    for w in world_repos:
        r = repos[w["name_with_owner"]]
        assert (r.stars, r.forks, r.is_archived, r.is_fork, r.is_mirror, r.parent, r.license_spdx, r.disk_usage_kb) == (
            w["stars"], w["forks"], w["is_archived"], w["is_fork"], w["is_mirror"], w["parent"], w["license_spdx"], w["disk_usage_kb"])
        assert sorted(r.languages) == sorted((x["name"], x["bytes"]) for x in w["languages"])
        assert list(r.topics) == w["topics"] and list(r.root_files) == w["root_files"] and r.description == w["description"]
    for c in iter_rows(world300, "community"):
        got = community[c["repo"]]
        assert (got.contributing, got.code_of_conduct, got.security_policy, got.governance, list(got.codeowners), list(got.ai_policy),
                got.pr_template) == (c["contributing"], c["code_of_conduct"], c["security_policy"], c["governance"], c["codeowners"],
                                     c["ai_policy"], c["pr_template"])
    in_window = [p for p in iter_rows(world300, "pulls") if _ts(p["created_at"]) >= START]
    assert len(pulls) == len(in_window) == summary.prs
    for p in in_window:
        got = pulls[(p["repo"], p["number"])]
        assert (got.node_id, got.title, got.author, got.author_association, got.state, got.is_draft, got.merged_by, got.body) == (
            p["node_id"], p["title"], p["author"], p["author_association"], p["state"], p["is_draft"], p["merged_by"], p["body"])
        assert (got.created_at, got.merged_at, got.closed_at) == (_ts(p["created_at"]), _ts(p["merged_at"]), _ts(p["closed_at"]))
        assert got.has_ci in (None, p["has_ci"])
        if p["author"]:
            assert p["author"] in accounts
    wanted = {(p["repo"], p["number"]) for p in in_window}
    world_items = [i for i in iter_rows(world300, "timeline") if (i["repo"], i["number"]) in wanted]
    assert len(items) == len(world_items) == summary.timeline_items
    for i in world_items:
        got = items[i["node_id"]]
        assert (got.kind, got.actor, got.actor_type, got.actor_association, got.body, got.review_state, got.created_at) == (
            i["kind"], i["actor"], i["actor_type"], i["actor_association"], i["body"], i["review_state"], _ts(i["created_at"]))
    for d in iter_rows(world300, "dependents"):
        assert (deps[d["repo"]].package, deps[d["repo"]].dependent_packages) == (d["package"], d["dependent_packages"])
    assert len(deps) == sum(1 for _ in iter_rows(world300, "dependents"))
    open_gfi = {(i["repo"], i["number"]) for i in iter_rows(world300, "issues") if i["state"] == "OPEN" and i["assignees"] == 0
                and any(lb.lower().replace("-", " ") in ("good first issue", "beginner", "easy", "first timers only") for lb in i["labels"])}
    assert issues == open_gfi
    world_commits = defaultdict(list)
    for c in iter_rows(world300, "commits"):
        if _ts(c["committed_at"]) >= START:
            world_commits[c["repo"]].append(c["oid"])
    for repo, oids in world_commits.items():  # the newest commits of the window (30 at most unless a human was further back)
        assert {c.oid for c in commits[repo]} <= set(oids) and len(commits[repo]) >= min(30, len(oids))


def test_collected_store_evaluates_to_the_truth(collected300, world300: Path) -> None:  # type: ignore[no-untyped-def]
    db, _ = collected300
    truth = read_truth(world300)
    with Store(db, read_only=True) as s:
        snap = evaluate_snapshot(s.iter_repo_data(), s.accounts(), Settings(), AS_OF)
    wrong = [(r.repo, r.status, r.kind) for r in snap.results if (r.status, r.kind) != (truth["repos"][r.repo]["status"], truth["repos"][r.repo]["kind"])]
    assert wrong == []
    prs = [(r.repo, v) for r in snap.results for v in r.prs]
    assert all((v.excluded, v.outcome) == (truth["prs"][f"{repo}#{v.number}"]["excluded"], truth["prs"][f"{repo}#{v.number}"]["outcome"])
               for repo, v in prs)


def test_cost_is_reported_and_low(collected300) -> None:  # type: ignore[no-untyped-def]
    _, summary = collected300
    data = summary.as_dict()
    assert data["points"] == sum(data["points_by_query"].values()) > 0
    assert data["points_per_100_prs"] < 1.5 and data["points_per_repo"] < 2
    assert set(data["points_by_query"]) >= {"repo_meta", "pull_requests", "ci_checks"}


def test_faults_leave_identical_contents(collected300, index300: WorldIndex, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db, _ = collected300
    spec = "rate_limited=0.03,secondary=0.03,bad_gateway=0.03,gateway_timeout=0.02,reset=0.02,malformed=0.02,partial=0.03,slow=0.02,slow_seconds=0.01,seed=5"
    summary = collect_world(index300, tmp_path / "faulty.duckdb", faults=spec)
    assert sum(summary.retries.values()) > 10
    assert raw_contents(tmp_path / "faulty.duckdb") == raw_contents(db)


def test_missing_renamed_and_blocked_repositories(world300: Path, tmp_path: Path) -> None:
    world = tmp_path / "w"
    shutil.copytree(world300, world)
    names = (world / "repos.txt").read_text().split()[:20]
    (world / "api.json").write_text(json.dumps({"renamed": {"old-home/old-name": names[0]}, "blocked": ["dmca/blocked"]}))
    listing = ["old-home/old-name", *names, "nobody/nothing", "dmca/blocked"]
    summary = collect_world(world, tmp_path / "s.duckdb", repos=listing)
    assert summary.failed == {"not_found": 1, "blocked": 1}
    assert {f["repo"] for f in summary.failures} == {"nobody/nothing", "dmca/blocked"}
    assert summary.renamed == {"old-home/old-name": names[0]} and summary.done == 20
    with Store(tmp_path / "s.duckdb", read_only=True) as s:
        assert s.count("repositories") == 20  # the renamed one is kept once, under its new name
        assert s.repo_names_map() == {"old-home/old-name": names[0]}


def test_bad_token_stops_and_keeps_what_was_collected(world300: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    names = (world300 / "repos.txt").read_text().split()[:5]
    collect_world(world300, db, repos=names, token="good", limits=Limits(valid_tokens=frozenset({"good"})))
    before = raw_contents(db)
    with pytest.raises(AuthError, match="refused the token") as err:
        collect_world(world300, db, repos=names, token="expired-token-value", limits=Limits(valid_tokens=frozenset({"good"})),
                      as_of=date(2026, 10, 20))
    assert "expired-token-value" not in str(err.value)
    assert raw_contents(db) == before


def test_incremental_collection_costs_a_fraction(collected300, tmp_path: Path, index300: WorldIndex) -> None:  # type: ignore[no-untyped-def]
    db, full = collected300
    later = tmp_path / "later.duckdb"
    shutil.copy(db, later)
    summary = collect_world(index300, later, as_of=date(2026, 11, 15))
    assert summary.incremental and summary.points < full.points / 4
    assert summary.points_saved == full.points - summary.points
    with Store(later) as s:
        ev = evaluate_store(s, None, Settings())
        assert ev.as_of == date(2026, 11, 15) and s.get_meta("collected_as_of") == "2026-11-15"
        evaluate_store(s, date(2026, 10, 15), Settings())  # the earlier snapshot sits beside it
        assert s.snapshot_dates() == [date(2026, 10, 15), date(2026, 11, 15)]


def test_incremental_after_a_month_of_activity_equals_a_full_collection(tmp_path: Path) -> None:
    """A world dated a month later, served first as it stood on the earlier date: the incremental run
    must leave a store whose evaluation matches a full collection made on the later date."""
    later, earlier = date(2026, 11, 15), date(2026, 10, 15)
    world = generate_world(tmp_path / "w", repos=80, seed=4404, as_of=later).path
    past = WorldIndex(world, clock=earlier)
    now = WorldIndex(world)
    assert sum(len(e.pulls) for e in past.repos.values()) < sum(len(e.pulls) for e in now.repos.values())
    assert all(p["updated_at"] < "2026-10-15" for e in past.repos.values() for p in e.pulls)
    inc_db, full_db = tmp_path / "inc.duckdb", tmp_path / "full.duckdb"
    first = collect_world(past, inc_db, as_of=earlier)
    inc = collect_world(now, inc_db, as_of=later)
    full = collect_world(now, full_db, as_of=later)
    assert inc.incremental and not full.incremental
    assert set(inc.points_by_query) >= {"pulls_updated", "pulls_by_id"} and "pull_requests" not in inc.points_by_query
    # A month's activity is a fraction of the window's: the listing plus fetches by id stay well under a full run.
    assert inc.points < first.points / 2 and 0 < inc.prs < full.prs / 2
    results = {}
    for db in (inc_db, full_db):
        with Store(db) as s:
            evaluate_store(s, later, Settings())
            results[db] = {t: [r for r in s.rows(t) if r[0] == later] for t in ("results", "pr_results", "component_results", "profile_results")}
    # The incremental store also keeps the earlier window's oldest PRs (its own snapshot needs them);
    # the later evaluation lists them as before the window and counts them nowhere.
    start = datetime(2026, 11, 15) - timedelta(days=183)
    old = [r for r in results[inc_db]["pr_results"] if r[6] < start]
    assert old and {r[8] for r in old} == {"before_window"}
    results[inc_db]["pr_results"] = [r for r in results[inc_db]["pr_results"] if r[6] >= start]
    for table in ("results", "pr_results", "component_results", "profile_results"):
        assert results[inc_db][table] == results[full_db][table], table
    assert len(results[full_db]["pr_results"]) > 1000
