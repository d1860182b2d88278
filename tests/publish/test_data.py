"""Reading a snapshot for publishing: listings hold a narrow row per project; each project is read
back whole, one at a time, from the detail files; a digest per project follows every stored row."""

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from helpers import own_verdict

from porchlamp.publish import load_site_data
from porchlamp.publish.data import ROW_COLUMNS
from porchlamp.store import Store


def _stored(s: Store, when: Any) -> dict[str, Any]:
    comps: dict[str, dict[str, Any]] = defaultdict(dict)
    for r in s.query("SELECT * FROM component_results WHERE as_of = ?", [when]):
        comps[r["repo"]][r["component"]] = {"score": r["score"], "inputs": json.loads(r["inputs"]), "reason": r["reason"]}
    return {
        "results": {r["repo"]: r for r in s.query("SELECT * FROM results WHERE as_of = ?", [when])},
        "components": comps,
        "explain": {(r["repo"], r["profile"]): json.loads(r["explain"] or "[]")
                    for r in s.query("SELECT repo, profile, explain FROM profile_results WHERE as_of = ?", [when])},
        "outside": {r["repo"]: r["n"] for r in s.query(
            "SELECT repo, count(*) AS n FROM pr_results WHERE as_of = ? AND excluded IS NULL GROUP BY repo", [when])},
        # Each project's other PRs, newest first: counted in this order, they give the order shown.
        "excluded": {r["repo"]: r["reasons"] for r in s.query(
            "SELECT repo, list(excluded ORDER BY number DESC) AS reasons FROM pr_results WHERE as_of = ? AND excluded IS NOT NULL "
            "GROUP BY repo", [when])},
    }


def test_listings_are_narrow_and_each_project_reads_back_whole(published: tuple[Path, dict[str, Any]]) -> None:
    with Store(published[0].parent / "s.duckdb", read_only=True) as s:
        site = load_site_data(s)
        stored = _stored(s, site.as_of)
    assert len(site.projects) == 300
    assert all(tuple(p.row) == ROW_COLUMNS and not p.components and not p.outside_prs and not p.excluded for p in site.projects)
    assert all("explain" not in goal for p in site.projects for goal in p.profiles.values())
    whole = list(site.detailed())
    assert [p.repo for p in whole] == [p.repo for p in site.projects]
    assert sum(len(p.outside_prs) for p in whole) == sum(stored["outside"].values()) > 3_000
    assert sum(sum(p.excluded.values()) for p in whole) == sum(map(len, stored["excluded"].values())) > 6_000
    for p in whole:
        assert p.row == stored["results"][p.repo]  # every column, evidence included
        assert p.components == stored["components"].get(p.repo, {})
        assert list(p.components) == [c for c in ("responsiveness", "accessibility", "governance", "dependents", "review_ci", "reach",
                                                  "systems_fit", "ai_readiness") if c in p.components]
        assert {g: goal["explain"] for g, goal in p.profiles.items()} == {g: stored["explain"][p.repo, g] for g in p.profiles}
        assert len(p.outside_prs) == stored["outside"].get(p.repo, 0)
        assert all(x["excluded"] is None for x in p.outside_prs)
        assert [x["number"] for x in p.outside_prs] == sorted((x["number"] for x in p.outside_prs), reverse=True)
        # The reasons as many as stored, the most common first; of as common ones, that of the newest PR first.
        counted = Counter(stored["excluded"].get(p.repo, []))
        assert list(p.excluded.items()) == sorted(counted.items(), key=lambda kv: -kv[1])
        assert p.issues == (p.components.get("accessibility") or {}).get("inputs", {}).get("good_first_issues", [])
    with_issues = [p for p in whole if p.issues]
    assert len(with_issues) >= 20
    some = [site.projects[i].repo for i in (3, 150, 299)]
    assert [p.repo for p in site.detailed(only=list(reversed(some)))] == some  # in name order, whatever was asked


def test_a_project_digest_moves_with_any_of_its_stored_rows(published: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    shutil.copy(published[0].parent / "s.duckdb", db)
    with Store(db) as s:
        before = load_site_data(s)
        when = before.as_of
        ranked = [p.repo for p in before.projects if p.status == "ranked"]
        with_prs = [r["repo"] for r in s.query("SELECT DISTINCT repo FROM pr_results WHERE as_of = ? ORDER BY repo", [when])]
        moved = {"results": ranked[0], "profile_results": ranked[1], "component_results": ranked[2],
                 "pr_results": next(r for r in with_prs if r not in ranked[:3])}
        s.conn.execute("UPDATE repo_verdicts SET evidence = evidence || ' ' WHERE id = ?", [own_verdict(s, when, moved["results"])])
        s.conn.execute("UPDATE profile_results SET explain = '[]' WHERE as_of = ? AND repo = ? AND profile = 'career'",
                       [when, moved["profile_results"]])
        s.conn.execute("UPDATE component_results SET reason = reason || '.' WHERE as_of = ? AND repo = ? AND component = 'reach'",
                       [when, moved["component_results"]])
        # `pr_results` is a view: the verdict is changed where it is stored.
        s.conn.execute("UPDATE pr_verdicts SET title = 'renamed' WHERE id = (SELECT s.id FROM snapshot_prs s JOIN pr_verdicts v "
                       "USING (id) WHERE s.as_of = ? AND v.repo = ? ORDER BY v.number LIMIT 1)", [when, moved["pr_results"]])
        after = load_site_data(s)
    was = {p.repo: (p.digest, p.place) for p in before.projects}
    now = {p.repo: (p.digest, p.place) for p in after.projects}
    assert set(was) == set(now) and all(d and d.count("/") == 3 and place is not None for d, place in [*was.values(), *now.values()])
    # A goal's explanation is its place (as its rank is): it moves with other projects, apart from its own rows.
    assert {r for r in was if was[r][0] != now[r][0]} == set(moved.values()) - {moved["profile_results"]}
    assert {r for r in was if was[r][1] != now[r][1]} == {moved["profile_results"]}
