"""The sample world: deterministic, and every case of the method is planted in 300 repositories."""

import collections
import hashlib
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from porchlamp.errors import WorldError

from porchlamp.sample import generate_world, iter_rows, read_meta, read_truth
from porchlamp.sample.plan import DEFAULT_MIX

OCT_2026 = {"not_software": 1067, "not_real_project": 624, "no_license": 491, "stale": 2475, "black_hole": 1133,
            "undecided": 8, "unrated": 1377, "ranked": 3833}


def _digest(world: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(world.iterdir())}


def _ts(s: str) -> datetime:
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a = generate_world(tmp_path / "a", repos=60, seed=5)
    b = generate_world(tmp_path / "b", repos=60, seed=5)
    c = generate_world(tmp_path / "c", repos=60, seed=6)
    assert _digest(a.path) == _digest(b.path)
    assert _digest(a.path)["pulls.jsonl.gz"] != _digest(c.path)["pulls.jsonl.gz"]
    assert a.pulls == b.pulls > 0


def test_parts_hold_exactly_the_whole_world(tmp_path: Path) -> None:
    """Three parts generated apart hold the whole world's rows and truth, and loaded one after another
    into one store they make the store the whole world makes."""
    from porchlamp.sample import TABLES, load_world
    from porchlamp.sample.world import API_TABLES
    from porchlamp.store import Store

    whole = generate_world(tmp_path / "whole", repos=60, seed=4)
    parts = [generate_world(tmp_path / f"p{i}", repos=60, seed=4, part=(i, 3)) for i in (1, 2, 3)]
    assert [p.repos for p in parts] == [20, 20, 20]
    assert sum(p.pulls for p in parts) == whole.pulls > 0
    assert read_meta(parts[1].path)["part"] == "2/3"

    def rows(world: Path, table: str) -> list[str]:
        return [json.dumps(r, sort_keys=True) for r in iter_rows(world, table)]

    for table in (*TABLES, *API_TABLES):
        together = [r for p in parts for r in rows(p.path, table)]
        if table == "accounts":  # an outside contributor to two parts' projects is in both
            together = list(set(together))
        assert sorted(together) == sorted(rows(whole.path, table)), table
    truths = [read_truth(p.path) for p in parts]
    assert read_truth(whole.path)["prs"] == {k: v for t in truths for k, v in t["prs"].items()}

    with Store(tmp_path / "whole.duckdb") as a, Store(tmp_path / "parts.duckdb") as b:
        load_world(whole.path, a)
        for p in parts:
            load_world(p.path, b)
        for table in TABLES:
            q = f"SELECT * FROM {table} ORDER BY ALL"
            assert a.conn.execute(q).fetchall() == b.conn.execute(q).fetchall(), table
    with pytest.raises(WorldError, match="1 ≤ i ≤ n"):
        generate_world(tmp_path / "bad", repos=60, seed=4, part=(4, 3))


def test_too_small_a_world_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WorldError, match="at least"):
        generate_world(tmp_path / "w", repos=5, seed=1)


def test_refuses_to_overwrite_a_non_world(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("precious")
    with pytest.raises(WorldError, match="not a sample world"):
        generate_world(tmp_path, repos=30, seed=1)
    assert (tmp_path / "keep.txt").read_text() == "precious"


def test_meta_and_truth_format(world300: Path) -> None:
    meta = read_meta(world300)
    truth = read_truth(world300)
    assert meta["repos"] == 300 and truth["as_of"] == meta["as_of"] == "2026-10-15"
    assert len(truth["repos"]) == 300
    assert len(truth["prs"]) == meta["counts"]["pulls"]
    for key, pr in list(truth["prs"].items())[:50]:
        assert "#" in key and set(pr) >= {"outside", "excluded", "outcome", "first_response", "case"}
        assert pr["outside"] == (pr["excluded"] is None)
        assert (pr["outcome"] is None) == (not pr["outside"])
    repos_txt = (world300 / "repos.txt").read_text().split()
    assert sorted(repos_txt) == sorted(truth["repos"])


def test_every_status_and_kind_is_planted(world300: Path) -> None:
    truth = read_truth(world300)["repos"]
    planted = {(r["status"], r["kind"]) for r in truth.values()}
    assert set(DEFAULT_MIX) <= planted
    assert any(r["fork"] == "outstars" for r in truth.values())
    assert any(r["fork"] == "parent_gone" for r in truth.values())
    assert any(r["private_member"] for r in truth.values())
    assert any(r["codeowner_only"] for r in truth.values())
    assert any(r["capped"] for r in truth.values())
    assert {r["ecosystem"] for r in truth.values()} >= {"PyPI", "npm", "Go", "crates.io", "Maven", "Systems (C, C++ and others)", "Other"}
    stars = [r["stars"] for r in truth.values()]
    assert min(stars) < 300 and max(stars) > 50_000


def test_every_pr_case_is_planted(world300: Path) -> None:
    cases = collections.Counter(p["case"] for p in read_truth(world300)["prs"].values())
    expected = {
        "answered_comment", "answered_review", "answered_merge", "answered_merge_queue", "answered_exact",
        "answered_after_bot", "silent_close", "nothing", "bot_only", "bot_text_person", "author_only", "drive_by",
        "label_only", "day15", "author_closed_late", "bot_closed", "bridge_gerrit", "bridge_mailing_list",
        "bridge_repo_lockdown", "bot_type_bot", "bot_known_user", "bot_pattern_user", "bot_pr_template", "bot_repeated_text",
        "maintainer", "maintainer_private", "maintainer_codeowner", "maintainer_merged_by_private", "brand_new_account", "draft",
        "self_closed", "too_young", "deleted_author", "mannequin", "before_window",
    }
    assert expected <= set(cases), expected - set(cases)
    assert any(p.get("opened_as_draft") for p in read_truth(world300)["prs"].values())


def _by_pr(world: Path, table: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for row in iter_rows(world, table):
        out[f"{row['repo']}#{row['number']}"].append(row)
    return out


def test_planted_cases_look_as_they_should(world300: Path) -> None:
    truth = read_truth(world300)
    prs = {f"{r['repo']}#{r['number']}": r for r in iter_rows(world300, "pulls")}
    items = _by_pr(world300, "timeline")
    as_of = _ts(truth["as_of"] + "T00:00:00Z")
    seen: set[str] = set()
    for key, t in truth["prs"].items():
        pr, its = prs[key], items.get(key, [])
        case = t["case"]
        seen.add(case)
        if case == "draft":
            assert pr["is_draft"] and not any(i["kind"] == "ready_for_review" for i in its)
        elif t.get("opened_as_draft"):
            ready = [i for i in its if i["kind"] == "ready_for_review"]
            assert ready and _ts(ready[0]["created_at"]) - _ts(pr["created_at"]) > timedelta(days=14)
        if case == "deleted_author":
            assert pr["author"] is None
        if case == "too_young":
            assert as_of - _ts(pr["created_at"]) < timedelta(days=14)
        if case == "answered_merge_queue":
            assert pr["merged_by"] == "github-merge-queue" and pr["state"] == "MERGED"
        if case == "answered_exact":
            fr = t["first_response"]
            start = _ts(pr["created_at"]) if not t.get("opened_as_draft") else _ts(next(i for i in its if i["kind"] == "ready_for_review")["created_at"])
            assert _ts(fr["at"]) - start == timedelta(days=14)
        # Past the first minutes after the PR opens or is marked ready (a greeter, a preview notice, a
        # CODEOWNERS request may come then):
        ready = [i for i in its if i["kind"] == "ready_for_review"]
        opened = _ts(ready[0]["created_at"]) if t.get("opened_as_draft") and ready else _ts(pr["created_at"])
        own_ci = truth["repos"][pr["repo"]]["own_ci"]  # a project's own CI posts on every PR, hours after it opens
        settled = [i for i in its if _ts(i["created_at"]) - opened > timedelta(minutes=10) and i["actor"] != own_ci]
        if case == "day15":
            late = [i for i in settled if i["kind"] == "comment" and i["actor"] != pr["author"]]
            assert late and timedelta(days=14) < _ts(late[0]["created_at"]) - _ts(pr["created_at"]) <= timedelta(days=17) or t.get("opened_as_draft")
        if case == "self_closed":
            closes = [i for i in its if i["kind"] == "closed"]
            assert closes and closes[0]["actor"] == pr["author"]
        if case == "silent_close":
            assert pr["state"] == "CLOSED" and not any(i["kind"] in ("comment", "review") for i in settled)
    assert "draft" in seen and "day15" in seen


def test_people_are_planted(world300: Path) -> None:
    accounts = list(iter_rows(world300, "accounts"))
    types = collections.Counter(a["type"] for a in accounts)
    assert types["Bot"] > 0 and types["Mannequin"] > 0 and types["Organization"] > 0
    logins = {a["login"] for a in accounts}
    assert {"k8s-ci-robot", "codecov-commenter", "CLAassistant"} & logins
    assert any(login.endswith("-release-bot") for login in logins)  # a user account that is a bot by pattern
    assert any("<script>" in login for login in logins)  # hostile text in a login
    commits = list(iter_rows(world300, "commits"))
    assert any(c["author_login"] is None and c["author_name"].endswith("[bot]") for c in commits)  # REST-form bots
    assocs = collections.Counter(p["author_association"] for p in iter_rows(world300, "pulls"))
    assert {"OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE"} <= set(assocs)


def test_what_real_github_does_is_planted(world300: Path) -> None:
    """Each pattern seen on real threads is in the world, so the truth tests exercise it at scale."""
    truth = read_truth(world300)
    pulls = {f"{r['repo']}#{r['number']}": r for r in iter_rows(world300, "pulls")}
    items = _by_pr(world300, "timeline")
    cases = collections.Counter(t["case"] for t in truth["prs"].values())
    # A first-timer whose PR was merged reads CONTRIBUTOR when read later; the truth still says first-timer.
    assert any(t["first_timer"] and pulls[k]["author_association"] == "CONTRIBUTOR" and pulls[k]["merged_at"]
               for k, t in truth["prs"].items() if t["outside"])
    # CODEOWNERS' automatic review requests are filed under the PR's own author.
    assert any(i["kind"] == "review_requested" and i["actor"] == pulls[k]["author"] for k, its in items.items() for i in its)
    # User-account bots that merge (bors), label (a project's own bot) and greet (known by behaviour only).
    merged_by = collections.Counter(p["merged_by"] for p in pulls.values())
    assert merged_by["bors"] > 0
    actors = collections.Counter(i["actor"] for its in items.values() for i in its)
    assert actors["kindly-greeter"] >= 20 and any(a and a.endswith("bot") and a not in ("gopherbot", "gerritbot") for a in actors)
    # Long threads and long bodies: every continuation query has work to do.
    assert max(len(v) for v in items.values()) >= 150 and max(len(p["body"]) for p in pulls.values()) >= 20_000
    kinds = collections.Counter(i["kind"] for its in items.values() for i in its)
    assert kinds["converted_to_draft"] > 0 and kinds["reopened"] > 0
    # An answer only a later timeline page shows, preview notices under a maintainer's login, and
    # off-GitHub review said by hand and by the project's own documents.
    assert cases["answered_late_page"] > 0 and cases["redirect_by_hand"] > 0
    assert any(i["body"].startswith("Preview of this change is ready") for its in items.values() for i in its)
    redirects = {t.get("redirect") for t in truth["repos"].values()}
    assert {"hand", "template", "contributing", "readme"} <= redirects


def test_first_timers_come_back_and_not(world300: Path) -> None:
    by_author: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    for p in iter_rows(world300, "pulls"):
        if p["author"]:
            by_author[(p["repo"], p["author"])].append(p["author_association"])
    firsts = [v for v in by_author.values() if v[0] == "FIRST_TIME_CONTRIBUTOR"]
    assert any(len(v) > 1 for v in firsts) and any(len(v) == 1 for v in firsts)


def test_issues_files_and_hostile_text(world300: Path) -> None:
    issues = list(iter_rows(world300, "issues"))
    gfi = [i for i in issues if any("first" in lb.lower() or lb in ("beginner", "easy") for lb in i["labels"])]
    assert any(i["assignees"] == 0 and i["state"] == "OPEN" for i in gfi) and any(i["assignees"] > 0 for i in gfi)
    assert any("<img" in lb for i in issues for lb in i["labels"])
    community = list(iter_rows(world300, "community"))
    assert any(c["ai_policy"] for c in community) and any(c["codeowners"] for c in community)
    deps = list(iter_rows(world300, "dependents"))
    assert any(d["dependent_packages"] is None for d in deps)
    repos = list(iter_rows(world300, "repositories"))
    assert len({r["name_with_owner"] for r in repos}) - len(deps) > 0  # projects with no dependents data at all
    assert any("<script>" in (r["description"] or "") for r in repos)
    assert any((r["homepage_url"] or "").startswith("javascript:") for r in repos)
    titles = [p["title"] for p in iter_rows(world300, "pulls")]
    assert any(len(t) == 10_000 for t in titles)
    assert any("<script>" in t for t in titles) and any("\u202e" in t for t in titles)


@pytest.mark.slow
def test_funnel_follows_october_2026(tmp_path: Path) -> None:
    world = generate_world(tmp_path / "w", repos=2000, seed=23)
    statuses = collections.Counter(r["status"] for r in read_truth(world.path)["repos"].values())
    for status, oct_count in OCT_2026.items():
        assert abs(statuses[status] / 2000 - oct_count / 11_000) < 0.03, (status, statuses[status])
