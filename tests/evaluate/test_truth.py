"""Evaluation recovers the planted truth of sample worlds it has never seen (their seeds are
used nowhere else): every repository's status and kind, every PR's exclusion and outcome."""

import collections
import json
from types import SimpleNamespace
from pathlib import Path

import pytest

from datetime import date

from helpers import Verdict

from porchlamp.config import Settings
from porchlamp.sample import generate_world, load_world, read_meta, read_truth
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store


class Snapshot:
    """A stored snapshot's repositories, each with its PR verdicts, profiles and maintainers, as the
    truth is compared with."""

    def __init__(self, store: Store, as_of: date) -> None:
        prs: dict[str, list[Verdict]] = {}
        for row in store.conn.execute(f"SELECT {', '.join(Verdict._fields)} FROM pr_results WHERE as_of = ? ORDER BY repo, number",
                                      [as_of]).fetchall():
            prs.setdefault(row[0], []).append(Verdict(*row))
        profiles: dict[str, dict[str, SimpleNamespace]] = {}
        for p in store.query("SELECT * FROM profile_results WHERE as_of = ?", [as_of]):
            profiles.setdefault(p["repo"], {})[p["profile"]] = SimpleNamespace(**p)
        self.results = [SimpleNamespace(**{**r, "maintainers": json.loads(r["maintainers"])}, prs=prs.get(r["repo"], []),
                                        profiles=profiles.get(r["repo"], {}))
                        for r in store.query("SELECT * FROM results WHERE as_of = ? ORDER BY repo", [as_of])]

    def by_repo(self) -> dict[str, SimpleNamespace]:
        return {r.repo: r for r in self.results}


def _evaluate(tmp: Path, repos: int, seed: int) -> tuple[Snapshot, dict]:  # type: ignore[type-arg]
    world = generate_world(tmp / "world", repos=repos, seed=seed).path
    with Store(tmp / "s.duckdb") as store:
        load_world(world, store)
        as_of = date.fromisoformat(read_meta(world)["as_of"])
        evaluate_store(store, as_of, Settings())
        snap = Snapshot(store, as_of)
    return snap, read_truth(world)


def _agreement(snap: Snapshot, truth: dict) -> dict:  # type: ignore[type-arg]
    repo_bad = collections.Counter()
    pr_bad = collections.Counter()
    prs = 0
    for r in snap.results:
        t = truth["repos"][r.repo]
        if (r.status, r.kind) != (t["status"], t["kind"]):
            repo_bad[f"{t['status']}/{t['kind']} -> {r.status}/{r.kind}"] += 1
        if r.status == "ranked" and t["fork"] != r.fork_note:
            repo_bad[f"fork {t['fork']} -> {r.fork_note}"] += 1
        if r.ecosystem != t["ecosystem"]:
            repo_bad[f"ecosystem {t['ecosystem']} -> {r.ecosystem}"] += 1
        for v in r.prs:
            prs += 1
            tp = truth["prs"][f"{r.repo}#{v.number}"]
            if (v.outside, v.excluded, v.outcome) != (tp["outside"], tp["excluded"], tp["outcome"]):
                pr_bad[f"{tp['case']}: {tp['excluded']}/{tp['outcome']} -> {v.excluded}/{v.outcome}"] += 1
            elif tp["first_response"] and v.response and (v.response.kind, v.response.actor) != (
                    tp["first_response"]["kind"], tp["first_response"]["actor"]):
                pr_bad[f"{tp['case']}: first response {tp['first_response']['kind']} -> {v.response.kind}"] += 1
            elif v.outside and v.first_timer != tp["first_timer"]:
                pr_bad[f"{tp['case']}: first-timer {tp['first_timer']} -> {v.first_timer}"] += 1
    return {"repos": len(snap.results), "repos_wrong": repo_bad, "prs": prs, "prs_wrong": pr_bad}


@pytest.mark.parametrize(("repos", "seed"), [pytest.param(300, 301, id="300"), pytest.param(3000, 3003, id="3000", marks=pytest.mark.slow)])
def test_evaluation_recovers_truth(tmp_path: Path, repos: int, seed: int) -> None:
    snap, truth = _evaluate(tmp_path, repos, seed)
    a = _agreement(snap, truth)
    assert a["prs"] == len(truth["prs"])  # every planted PR was judged
    print(f"\nagreement on a {repos}-repository world (seed {seed}): repositories "
          f"{a['repos'] - sum(a['repos_wrong'].values())}/{a['repos']}, PRs {a['prs'] - sum(a['prs_wrong'].values())}/{a['prs']}")
    assert not a["repos_wrong"], a["repos_wrong"].most_common(10)
    assert not a["prs_wrong"], a["prs_wrong"].most_common(10)
    borderline = [r for r in snap.results if truth["repos"][r.repo]["kind"] == "borderline"]
    assert borderline and all(r.status != "black_hole" and r.borderline for r in borderline)
    undecided = [r for r in snap.results if r.status == "undecided"]
    assert undecided and all(r.review_happens for r in undecided)
    # Every review place SPEC section 6 names is planted, said by hand, and each is read as such; a
    # mirror's label, and a mirror only passers-by talk in, are undecided too (the kinds above).
    assert {"jira", "bugzilla", "phabricator", "gitlab", "forgejo", "sourcehut", "savannah", "trac"} <= {r.kind for r in undecided}
    said = {t["redirect"] for repo, t in truth["repos"].items() if snap.by_repo()[repo].status == "undecided"}
    assert {"description", "bystander", "hand"} <= said
    capped = [r for r in snap.results if truth["repos"][r.repo]["capped"]]
    assert capped and all(r.profiles["default"].tier == "B (capped)" for r in capped)
    # User-account bots that merge, label and greet are never maintainers, whatever they do.
    acting = [(r.repo, login) for r in snap.results for login in r.maintainers
              if login in ("bors", "kindly-greeter") or login.endswith("bot")]
    assert acting == []
    # A project's own CI under a member's account is set aside as its bot, and nobody else is; a
    # maintainer's canned reply, beside their own words, leaves them a person (SPEC section 5).
    own = {(r.repo, b["login"]) for r in snap.results for b in json.loads(r.evidence).get("own_bots", [])}
    planted = {(repo, t["own_ci"].lower()) for repo, t in truth["repos"].items() if t["own_ci"]}
    assert planted and own == planted
    canned = [(repo, t["canned_by"].lower()) for repo, t in truth["repos"].items() if t["canned_by"]]
    assert canned and all(login in snap.by_repo()[repo].maintainers for repo, login in canned)
    private = {t["private_member"]: repo for repo, t in truth["repos"].items() if t["private_member"]}
    for login, repo in private.items():  # association says CONTRIBUTOR; their merges say maintainer
        assert snap.by_repo()[repo].maintainers[login.lower()] in (
            "merged a PR", "closed someone else's PR", "labelled a PR", "assigned a PR", "requested reviewers")
