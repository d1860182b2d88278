"""GitLab projects collected over REST through the GitLab emulator, judged by the same method: the same
world served as GitHub and as GitLab gets the same verdicts, planted truth is recovered on GitLab, and
faults on GitLab leave the same rows."""

from pathlib import Path

import pytest
from collecting import AS_OF, collect_forges, collect_killed_and_resumed, collect_world, every_fault_leaves_the_same_rows
from evaluate.test_truth import Snapshot, _agreement

from porchlamp.config import Settings
from porchlamp.sample import generate_world, read_truth
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

PR_FIELDS = ("excluded", "outcome", "response_kind", "response_actor", "response_at", "hours_to_response", "first_timer",
             "decided", "merged", "reviewed_by_other", "ai_assisted")
REPO_FIELDS = ("status", "kind", "outside_prs", "answered", "closed_silently", "unanswered", "median_hours", "p90_hours",
               "judged", "borderline", "ecosystem", "review_happens")
# Signals GitLab shows differently (docs/DECISIONS.md, "GitLab"): language shares in hundredths of a per
# cent, not bytes, so a score read from their proportions may move in its last places.
SHARES = {"systems_fit": 0.05}


def _judged(world: Path, db: Path) -> tuple[dict, dict, dict]:  # type: ignore[type-arg]
    with Store(db) as store:
        evaluate_store(store, AS_OF, Settings(hosts={"gitlab.example.org": {"forge": "gitlab"}}))
        return ({r["repo"]: r for r in store.query("SELECT * FROM results")},
                {(r["repo"], r["number"]): r for r in store.query("SELECT * FROM pr_results")},
                {(r["repo"], r["component"]): r["score"] for r in store.query("SELECT * FROM component_results")})


@pytest.mark.slow
def test_the_same_world_judged_on_github_and_on_gitlab_gets_the_same_verdicts(tmp_path: Path) -> None:
    """Over 105 projects: every PR's outcome and first response, every gate's verdict and every score
    the same whether the projects live on GitHub (GraphQL) or on GitLab (REST), but where a signal
    differs as DECISIONS says."""
    on_github = generate_world(tmp_path / "github", repos=105, seed=2611).path
    on_gitlab = generate_world(tmp_path / "gitlab", repos=105, seed=2611, hosts={"gitlab.com": 0.99999}).path
    collect_world(on_github, tmp_path / "a.duckdb")
    summary, _ = collect_forges(on_gitlab, tmp_path / "b.duckdb")
    assert summary.done == 105 and not summary.failures
    a, b = _judged(on_github, tmp_path / "a.duckdb"), _judged(on_gitlab, tmp_path / "b.duckdb")
    same = dict(zip((on_gitlab / "repos.txt").read_text().split(), (on_github / "repos.txt").read_text().split()))
    moved = sum(1 for r in same if r != same[r])
    assert moved >= 100  # the projects are GitLab's (a GitHub mirror kind stays on GitHub)
    homes = {repo: t["review_at"] for repo, t in read_truth(on_gitlab)["repos"].items() if t.get("review_at")}
    assert homes  # GitLab's mirrors on GitHub are of the world's own GitLab projects: there, review happens at them
    for repo, row in b[0].items():
        fields = [k for k in REPO_FIELDS if k != "review_happens" or repo not in homes]
        # Where no place is named, review happens outside the project's own forge (DECISIONS: the forge's words).
        theirs = {k: a[0][same[repo]][k] for k in fields}
        if theirs.get("review_happens") == "outside GitHub" and repo != same[repo]:
            theirs["review_happens"] = "outside GitLab"
        assert {k: row[k] for k in fields} == theirs, repo
        assert repo not in homes or row["review_happens"] == f"https://{homes[repo]}"
    assert len(b[1]) == len(a[1]) > 5000
    for (repo, number), row in b[1].items():
        assert {k: row[k] for k in PR_FIELDS} == {k: a[1][(same[repo], number)][k] for k in PR_FIELDS}, (repo, number)
    for (repo, component), score in b[2].items():
        theirs = a[2][(same[repo], component)]
        assert (score is None) == (theirs is None) and abs((score or 0) - (theirs or 0)) <= SHARES.get(component, 0), (repo, component)


@pytest.mark.slow
def test_a_world_on_github_two_gitlab_hosts_recovers_planted_truth(tmp_path: Path) -> None:
    world = generate_world(tmp_path / "w", repos=110, seed=6502, hosts={"gitlab.com": 0.3, "gitlab.example.org": 0.15}).path
    summary, labs = collect_forges(world, tmp_path / "s.duckdb")
    assert summary.done == 110 and not summary.failures
    truth = read_truth(world)
    on_gitlab = [r for r in truth["repos"] if "." in r.split("/", 1)[0]]
    assert len([r for r in on_gitlab if r.startswith("gitlab.com/")]) >= 20 and any(r.startswith("gitlab.example.org/") for r in on_gitlab)
    assert any(r.count("/") == 3 for r in on_gitlab)  # a project in a subgroup
    with Store(tmp_path / "s.duckdb") as store:
        evaluate_store(store, AS_OF, Settings(hosts={"gitlab.example.org": {"forge": "gitlab"}}))
        snap = Snapshot(store, AS_OF)
        members = store.count("members")
        links = {r["repo"]: r["review_at"] for r in store.query("SELECT repo, review_at FROM results WHERE review_at IS NOT NULL")}
        statuses = {r["repo"]: r["status"] for r in store.query("SELECT repo, status FROM results")}
    agreement = _agreement(snap, truth)
    # Every PR of the window was collected and judged (those opened before it are not collected).
    assert agreement["prs"] == sum(1 for t in truth["prs"].values() if t["excluded"] != "before_window")
    assert not agreement["repos_wrong"], agreement["repos_wrong"].most_common(10)
    assert not agreement["prs_wrong"], agreement["prs_wrong"].most_common(10)
    assert members > 0
    # Every GitHub mirror of one of the world's GitLab projects links to it, and nothing else links;
    # a mirror is never ranked, its project is (SPEC section 13: never ranked twice).
    planted = {repo: t["review_at"] for repo, t in truth["repos"].items() if t.get("review_at")}
    assert len(planted) == 2 and links == planted
    assert all(statuses[m] == "undecided" and statuses[home] == "ranked" for m, home in planted.items())
    # The members GitHub hides are listed on GitLab, and read as maintainers from their access level.
    hidden = {(repo, t["private_member"].lower()) for repo, t in truth["repos"].items() if t["private_member"] and repo in on_gitlab}
    got = snap.by_repo()
    assert all(got[repo].maintainers.get(login, "").startswith(("member with the", "merged", "closed", "labelled", "assigned",
                                                                "requested")) for repo, login in hidden)
    # Every request GitLab took was one the client paced: no 429 of the emulator's own limits.
    assert all(stats["by_status"].get("429", 0) == stats["by_fault"].get("limited", 0) for stats in labs.values())


@pytest.mark.slow
def test_every_fault_kind_at_five_per_cent_on_gitlab_leaves_the_same_rows(tmp_path: Path) -> None:
    every_fault_leaves_the_same_rows(tmp_path, {"gitlab.com": 0.5, "gitlab.example.org": 0.45})


@pytest.mark.slow
def test_the_command_collects_gitlab_killed_and_resumed(tmp_path: Path) -> None:
    """`porchlamp collect` as an operator runs it, on a list of GitLab projects (the GitLab emulator at
    --host-api, a token from PORCHLAMP_TOKEN_<HOST>): killed with -9 after a random share of its
    requests and run again, it ends with the rows of an unbroken run; the token is in nothing it wrote."""
    from porchlamp.emulator.gitlab import GitLabEmulator, GitLabLimits
    from porchlamp.emulator.index import WorldIndex

    world = generate_world(tmp_path / "w", repos=44, seed=4242, hosts={"gitlab.example.org": 0.9}).path
    (tmp_path / "repos.txt").write_text("\n".join(r for r in (world / "repos.txt").read_text().split() if r.startswith("gitlab.")))
    # The emulator's minute as compressed as the client's (60 s times PORCHLAMP_WAIT_SCALE).
    with GitLabEmulator(WorldIndex(world), "gitlab.example.org", limits=GitLabLimits(minute_seconds=0.06, users_per_ten_minutes=100_000)) as lab:
        collect_killed_and_resumed(tmp_path, "gitlab.example.org", lab.url, "PORCHLAMP_TOKEN_GITLAB_EXAMPLE_ORG", "glpat-" + "Xy9" * 7,
                                   '[hosts."gitlab.example.org"]\nforge = "gitlab"\n', lab, seed=11)
