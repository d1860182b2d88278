"""Forgejo and Gitea repositories collected over REST through the Forgejo emulator, judged by the same
method: the same world served as GitHub and as Forgejo gets the same verdicts, planted truth is
recovered on Codeberg and on a self-hosted instance beside GitHub and GitLab, faults leave the same
rows, and the client keeps to what the instance allows."""

from pathlib import Path

import httpx
import pytest
from collecting import AS_OF, collect_forges, collect_killed_and_resumed, collect_world, every_fault_leaves_the_same_rows
from evaluate.test_truth import Snapshot, _agreement

from porchlamp.collect.forgejo.client import ForgejoClient
from porchlamp.config import Settings
from porchlamp.emulator import WorldIndex
from porchlamp.emulator.forgejo import ForgejoEmulator, ForgejoLimits, ForgejoWorld
from porchlamp.sample import generate_world, read_truth
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

PR_FIELDS = ("excluded", "outcome", "response_kind", "response_actor", "response_at", "hours_to_response", "first_timer",
             "decided", "merged", "reviewed_by_other", "ai_assisted")
REPO_FIELDS = ("status", "kind", "outside_prs", "answered", "closed_silently", "unanswered", "median_hours", "p90_hours",
               "judged", "borderline", "ecosystem", "review_happens")
SELF_HOSTED = "forgejo.example.net"


def _judged(db: Path) -> tuple[dict, dict, dict]:  # type: ignore[type-arg]
    with Store(db) as store:
        evaluate_store(store, AS_OF, Settings(hosts={SELF_HOSTED: {"forge": "forgejo"}, "gitlab.example.org": {"forge": "gitlab"}}))
        return ({r["repo"]: r for r in store.query("SELECT * FROM results")},
                {(r["repo"], r["number"]): r for r in store.query("SELECT * FROM pr_results")},
                {(r["repo"], r["component"]): r["score"] for r in store.query("SELECT * FROM component_results")})


@pytest.mark.slow
def test_the_same_world_judged_on_github_and_on_forgejo_gets_the_same_verdicts(tmp_path: Path) -> None:
    """Over 105 projects: every PR's outcome and first response, every gate's verdict and every score
    the same whether the projects live on GitHub (GraphQL) or on Codeberg (Forgejo's REST), but where
    a signal differs as DECISIONS says ("Forgejo")."""
    on_github = generate_world(tmp_path / "github", repos=105, seed=2611).path
    on_forgejo = generate_world(tmp_path / "forgejo", repos=105, seed=2611, hosts={"codeberg.org": 0.99999}).path
    collect_world(on_github, tmp_path / "a.duckdb")
    summary, labs = collect_forges(on_forgejo, tmp_path / "b.duckdb")
    assert summary.done == 105 and not summary.failures
    assert labs["codeberg.org"]["by_status"].get("400", 0) == 0
    a, b = _judged(tmp_path / "a.duckdb"), _judged(tmp_path / "b.duckdb")
    same = dict(zip((on_forgejo / "repos.txt").read_text().split(), (on_github / "repos.txt").read_text().split()))
    assert sum(1 for r in same if r != same[r]) >= 100  # the projects are Codeberg's (a GitHub mirror kind stays on GitHub)
    homes = {repo: t["review_at"] for repo, t in read_truth(on_forgejo)["repos"].items() if t.get("review_at")}
    assert homes  # a GitHub mirror of one of the world's Codeberg projects: there, review happens at it
    for repo, row in b[0].items():
        # A mirror of a Codeberg project carries that project's owner and name, and so other people than
        # the unpaired one of the GitHub world: the same verdict, its own figures.
        fields = [k for k in REPO_FIELDS if repo not in homes or k in ("status", "kind")]
        theirs = {k: a[0][same[repo]][k] for k in fields}
        # Where no place is named, review happens outside the project's own forge (DECISIONS: the forge's words).
        if theirs.get("review_happens") == "outside GitHub" and repo != same[repo]:
            theirs["review_happens"] = "outside Forgejo"
        assert {k: row[k] for k in fields} == theirs, repo
        assert repo not in homes or row["review_happens"] == f"https://{homes[repo]}"
    mirrored = {same[h] for h in homes}
    assert {(same[r], n) for r, n in b[1] if r not in homes} == {k for k in a[1] if k[0] not in mirrored}
    assert len(b[1]) > 5000
    for (repo, number), row in b[1].items():
        if repo in homes:
            continue
        theirs = {k: a[1][(same[repo], number)][k] for k in PR_FIELDS}
        if theirs["response_actor"] == "github-merge-queue":  # Forgejo's auto-merge is done as who scheduled it
            theirs["response_actor"] = row["response_actor"]
        assert {k: row[k] for k in PR_FIELDS} == theirs, (repo, number)
    for (repo, component), score in b[2].items():
        if repo in homes:
            continue
        theirs = a[2][(same[repo], component)]
        assert (score is None) == (theirs is None) and abs((score or 0) - (theirs or 0)) <= 1e-9, (repo, component)


@pytest.mark.slow
def test_a_world_on_github_gitlab_and_two_forgejo_hosts_recovers_planted_truth(tmp_path: Path) -> None:
    world = generate_world(tmp_path / "w", repos=120, seed=6502,
                           hosts={"codeberg.org": 0.3, SELF_HOSTED: 0.15, "gitlab.example.org": 0.1}).path
    summary, labs = collect_forges(world, tmp_path / "s.duckdb")
    assert summary.done == 120 and not summary.failures
    truth = read_truth(world)
    on = {h: [r for r in truth["repos"] if r.startswith(h + "/")] for h in ("codeberg.org", SELF_HOSTED, "gitlab.example.org")}
    assert len(on["codeberg.org"]) >= 25 and len(on[SELF_HOSTED]) >= 10 and on["gitlab.example.org"]
    with Store(tmp_path / "s.duckdb") as store:
        evaluate_store(store, AS_OF, Settings(hosts={SELF_HOSTED: {"forge": "forgejo"}, "gitlab.example.org": {"forge": "gitlab"}}))
        snap = Snapshot(store, AS_OF)
        links = {r["repo"]: r["review_at"] for r in store.query("SELECT repo, review_at FROM results WHERE review_at IS NOT NULL")}
        statuses = {r["repo"]: r["status"] for r in store.query("SELECT repo, status FROM results")}
        forge = {r["repo"]: r["forge"] for r in store.query("SELECT repo, forge FROM results")}
        drafts = store.query("SELECT count(*) AS n FROM timeline WHERE kind = 'ready_for_review' AND repo_host(repo) IN (?, ?)",
                             ["codeberg.org", SELF_HOSTED])[0]["n"]
    # Forgejo has no merge queue: what GitHub's queue merged is an auto-merge, done as who scheduled it,
    # whom the emulator shows (ForgejoWorld.actor; DECISIONS, "Forgejo").
    index = WorldIndex(world)
    shown = {h: ForgejoWorld(index, h) for h in ("codeberg.org", SELF_HOSTED)}
    queued = 0
    for key, t in truth["prs"].items():
        repo = key.split("#")[0]
        if (t.get("first_response") or {}).get("actor") == "github-merge-queue" and repo.split("/")[0] in shown:
            fj = shown[repo.split("/")[0]]
            t["first_response"]["actor"] = fj.doer(fj.by_path[repo.split("/", 1)[1].lower()])
            queued += 1
    assert queued
    agreement = _agreement(snap, truth)
    assert agreement["prs"] == sum(1 for t in truth["prs"].values() if t["excluded"] != "before_window")
    assert not agreement["repos_wrong"], agreement["repos_wrong"].most_common(10)
    assert not agreement["prs_wrong"], agreement["prs_wrong"].most_common(10)
    assert all(forge[r] == "forgejo" for h in ("codeberg.org", SELF_HOSTED) for r in on[h])
    assert drafts > 0  # drafts made ready, read from the title changes that took `WIP:` off
    # Every GitHub mirror of one of the world's GitLab or Codeberg projects links to it, and nothing else
    # links; a mirror is never ranked, its project is (SPEC section 13: never ranked twice).
    planted = {repo: t["review_at"] for repo, t in truth["repos"].items() if t.get("review_at")}
    assert any(home.startswith(("codeberg.org/", SELF_HOSTED + "/")) for home in planted.values())
    assert links == planted
    assert all(statuses[m] == "undecided" and statuses[home] == "ranked" for m, home in planted.items())
    # Every request was one the client paced: no 429 but the faults' own.
    assert all(s["by_status"].get("429", 0) == s["by_fault"].get("limited", 0) for s in labs.values())


@pytest.mark.slow
def test_every_fault_kind_at_five_per_cent_on_forgejo_leaves_the_same_rows(tmp_path: Path) -> None:
    every_fault_leaves_the_same_rows(tmp_path, {"codeberg.org": 0.5, SELF_HOSTED: 0.45})


def test_the_client_reads_the_instance_s_page_cap_and_pages_by_it(tmp_path: Path) -> None:
    world = generate_world(tmp_path / "w", repos=50, seed=5, hosts={"codeberg.org": 0.9}).path
    with ForgejoEmulator(WorldIndex(world), "codeberg.org", limits=ForgejoLimits(max_items=7)) as fj:
        client = ForgejoClient(fj.url, "t", "codeberg.org", wait_scale=0.0)
        try:
            entry = max(fj.world.by_path.values(), key=lambda e: len(e.pulls))
            path = f"/repos/{entry.row['name_with_owner'].split('/', 1)[1]}/pulls"
            pages = list(client.pages(path, {"state": "all", "sort": "recentupdate"}, "pulls"))
            assert client.max_items == 7 and all(len(items) <= 7 for _, items, _ in pages)
            assert sum(len(items) for _, items, _ in pages) == len(fj.world.pulls(entry)) > 7
            assert pages[-1][2] is None and fj.stats.by_endpoint["/settings/api"] == 1  # asked once
        finally:
            client.close()


def test_the_client_waits_as_a_429_says_and_keeps_its_own_pace(tmp_path: Path) -> None:
    """A proxy's 429 with Retry-After is waited out and asked again; the client never sends more than
    its rate in any minute (here a compressed one)."""
    import time

    world = generate_world(tmp_path / "w", repos=50, seed=5, hosts={"codeberg.org": 0.9}).path
    with ForgejoEmulator(WorldIndex(world), "codeberg.org", limits=ForgejoLimits(per_minute=5, minute_seconds=0.5)) as fj:
        waits: list[float] = []
        client = ForgejoClient(fj.url, "t", "codeberg.org", sleep=lambda s: (waits.append(s), time.sleep(s)), per_minute=100)
        try:
            for _ in range(12):
                assert client.version()["version"].startswith("11.")
        finally:
            client.close()
        assert fj.stats.by_status.get(429, 0) >= 1 and fj.stats.by_status[200] == 12
        assert any(w >= 1.0 for w in waits)  # Retry-After: 1 (whole seconds), honoured
    with ForgejoEmulator(WorldIndex(world), "codeberg.org") as fj:
        client = ForgejoClient(fj.url, "t", "codeberg.org", per_minute=4, minute_seconds=0.4)
        try:
            began = time.monotonic()
            for _ in range(9):
                client.version()
            assert time.monotonic() - began >= 0.8  # 9 requests at 4 a 0.4 s "minute": two full waits
        finally:
            client.close()
        assert fj.stats.by_status.get(429, 0) == 0


def test_a_refused_token_names_the_host_and_is_never_shown(tmp_path: Path) -> None:
    from porchlamp.collect.errors import AuthError

    world = generate_world(tmp_path / "w", repos=50, seed=5, hosts={"codeberg.org": 0.9}).path
    secret = "fj_" + "Q7" * 10
    with ForgejoEmulator(WorldIndex(world), "codeberg.org", limits=ForgejoLimits(valid_tokens=frozenset({"other"}))) as fj:
        client = ForgejoClient(fj.url, secret, "codeberg.org", wait_scale=0.0)
        try:
            with pytest.raises(AuthError) as err:
                client.version()
        finally:
            client.close()
    assert "codeberg.org" in str(err.value) and secret not in str(err.value)
    assert httpx.Headers({"Authorization": f"token {secret}"})  # sent as Forgejo takes it


def test_the_discover_command_lists_a_forgejo_host_s_repositories_by_stars(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from porchlamp.collect.repos_file import read_repos_file

    world = generate_world(tmp_path / "w", repos=120, seed=31, hosts={"codeberg.org": 0.9}).path
    index = WorldIndex(world)
    secret = "fj_" + "Zq4" * 7
    env = {**os.environ, "PORCHLAMP_TOKEN_CODEBERG_ORG": secret, "PORCHLAMP_WAIT_SCALE": "0", "COLUMNS": "200"}
    with ForgejoEmulator(index, "codeberg.org", limits=ForgejoLimits(max_items=20)) as fj:
        done = subprocess.run([sys.executable, "-m", "porchlamp", "discover", "--host", "codeberg.org", "--api", fj.url,
                               "--min-stars", "50", "--limit", "40", "--out", str(tmp_path / "repos.txt")],
                              env=env, capture_output=True, text=True, timeout=120)
        pages = fj.stats.by_endpoint["/repos/search"]
    assert done.returncode == 0, done.stderr
    assert secret not in done.stdout + done.stderr
    rows = {e.row["name_with_owner"]: e.row for e in index.repos.values()}
    expected = sorted(((n, r["stars"]) for n, r in rows.items() if n.startswith("codeberg.org/") and r["stars"] >= 50
                       and not (r["is_archived"] or r["is_fork"] or r["is_mirror"])), key=lambda x: (-x[1], x[0].lower()))[:40]
    names = (tmp_path / "repos.txt").read_text().split()
    assert names == [n for n, _ in expected] and len(names) > 20  # more than a page of 20, each page as the instance caps it
    assert pages >= 2
    assert list(read_repos_file(tmp_path / "repos.txt").repos) == names


@pytest.mark.slow
def test_the_command_collects_forgejo_killed_and_resumed(tmp_path: Path) -> None:
    """`porchlamp collect` as an operator runs it, on a list of a self-hosted Forgejo's repositories
    (the emulator at --host-api, a token from PORCHLAMP_TOKEN_<HOST>): killed with -9 after a random
    share of its requests and run again, it ends with the rows of an unbroken run; the token is in
    nothing it wrote."""
    world = generate_world(tmp_path / "w", repos=44, seed=4242, hosts={SELF_HOSTED: 0.9}).path
    (tmp_path / "repos.txt").write_text("\n".join(r for r in (world / "repos.txt").read_text().split() if r.startswith(SELF_HOSTED)))
    with ForgejoEmulator(WorldIndex(world), SELF_HOSTED, limits=ForgejoLimits(minute_seconds=0.06, per_minute=100_000)) as fj:
        collect_killed_and_resumed(tmp_path, SELF_HOSTED, fj.url, "PORCHLAMP_TOKEN_FORGEJO_EXAMPLE_NET", "fj_" + "Wv8" * 8,
                                   f'[hosts."{SELF_HOSTED}"]\nforge = "forgejo"\nrequests_per_minute = 50000\n', fj, seed=12)


@pytest.mark.slow
def test_daily_refreshes_on_forgejo_end_where_a_full_collection_does(tmp_path: Path) -> None:
    """A full collection three days early, then a refresh each day (each repository, its newest commit,
    its PRs by update and an issue since; a PR that moved read again whole): the same verdicts as one
    full collection on the last day, for a fraction of its requests."""
    from datetime import timedelta

    world = generate_world(tmp_path / "w", repos=60, seed=77, hosts={"codeberg.org": 0.9}).path
    first = AS_OF - timedelta(days=3)
    daily = tmp_path / "daily.duckdb"
    start, _ = collect_forges(WorldIndex(world, clock=first), daily, as_of=first)
    days = [collect_forges(WorldIndex(world, clock=first + timedelta(days=d)) if d < 3 else WorldIndex(world), daily,
                           as_of=first + timedelta(days=d))[0] for d in (1, 2, 3)]
    full, _ = collect_forges(world, tmp_path / "full.duckdb")
    assert all(d.incremental and not d.failures for d in days)
    on_forgejo = lambda s: s.by_host["codeberg.org"]["requests"]  # noqa: E731
    assert all(on_forgejo(d) < on_forgejo(full) * 0.25 for d in days)
    got, want = _judged(daily), _judged(tmp_path / "full.duckdb")
    assert {r: {k: v[k] for k in REPO_FIELDS} for r, v in got[0].items()} == {r: {k: v[k] for k in REPO_FIELDS} for r, v in want[0].items()}
    assert {k: {f: v[f] for f in PR_FIELDS} for k, v in got[1].items()} == {k: {f: v[f] for f in PR_FIELDS} for k, v in want[1].items()}
    assert len(want[1]) > 3000 and start.done == 60
