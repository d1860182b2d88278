"""The emulator over real HTTP: GitHub's cost model, limits, errors and faults."""

import json
import shutil
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from helpers import post

from porchlamp.emulator import Emulator, Faults, FaultSpecError, Limits, WorldIndex
from porchlamp.emulator import server as server_mod

COST_51 = """query { rateLimit(dryRun: true) { cost nodeCount }
  search(query: "stars:0..*", type: REPOSITORY, first: 100) { nodes { ... on Repository {
    issues(first: 50) { nodes { labels(first: 60) { nodes { name } } } } } } } }"""
PR_PAGE = """query($o: String!, $n: String!, $after: String) {
  rateLimit { cost remaining used limit resetAt nodeCount }
  repository(owner: $o, name: $n) { pullRequests(first: 100, after: $after, orderBy: {field: CREATED_AT, direction: DESC}) {
    totalCount pageInfo { hasNextPage endCursor }
    nodes { number timelineItems(first: 25) { nodes { __typename } } } } } }"""


def _big_repo(index: WorldIndex) -> tuple[str, str, int]:
    e = max(index.repos.values(), key=lambda e: len(e.pulls))
    o, n = e.row["name_with_owner"].split("/")
    return o, n, len(e.pulls)


def test_cost_of_githubs_own_example_is_51(emu: Emulator) -> None:
    r = post(emu, COST_51)
    assert r.status_code == 200
    assert r.json()["data"]["rateLimit"] == {"cost": 51, "nodeCount": 305_100}
    # The same query run for real is charged 51 points.
    run = post(emu, COST_51.replace("(dryRun: true)", ""))
    assert run.json()["data"]["rateLimit"]["cost"] == 51
    assert int(run.headers["x-ratelimit-remaining"]) == 5000 - 51


def test_a_page_of_prs_with_timelines_costs_one(emu: Emulator, index300: WorldIndex) -> None:
    o, n, count = _big_repo(index300)
    r = post(emu, PR_PAGE, {"o": o, "n": n})
    body = r.json()
    assert body["data"]["rateLimit"]["cost"] == 1
    assert r.headers["x-ratelimit-resource"] == "graphql" and r.headers["x-ratelimit-limit"] == "5000"
    assert int(r.headers["x-ratelimit-used"]) == 1 and int(r.headers["x-ratelimit-reset"]) > time.time()
    seen = [p["number"] for p in body["data"]["repository"]["pullRequests"]["nodes"]]
    after = body["data"]["repository"]["pullRequests"]["pageInfo"]["endCursor"]
    while after:  # page through with opaque cursors
        page = post(emu, PR_PAGE, {"o": o, "n": n, "after": after}).json()["data"]["repository"]["pullRequests"]
        seen += [p["number"] for p in page["nodes"]]
        after = page["pageInfo"]["endCursor"] if page["pageInfo"]["hasNextPage"] else None
    assert len(seen) == len(set(seen)) == count
    assert not str(after or "").isdigit()


def test_github_validation_errors(emu: Emulator) -> None:
    r = post(emu, '{ repository(owner: "a", name: "b") { stargazerCont } }')
    (err,) = r.json()["errors"]
    assert r.status_code == 200 and "data" not in r.json()
    assert err["message"] == "Field 'stargazerCont' doesn't exist on type 'Repository'"
    assert err["extensions"] == {"code": "undefinedField", "typeName": "Repository", "fieldName": "stargazerCont"}
    r = post(emu, '{ repository(owner: "a", name: "b") { issues(frist: 3) { totalCount } } }')
    assert any("doesn't accept argument 'frist'" in e["message"] for e in r.json()["errors"])


def test_pagination_limits(emu: Emulator, index300: WorldIndex) -> None:
    o, n, _ = _big_repo(index300)
    r = post(emu, '{ repository(owner: "%s", name: "%s") { pullRequests(first: 101) { totalCount } } }' % (o, n))
    assert r.json()["errors"][0]["message"] == "Requesting 101 records on the `pullRequests` connection exceeds the `first` limit of 100 records."
    r = post(emu, '{ repository(owner: "%s", name: "%s") { pullRequests { totalCount } } }' % (o, n))
    assert "must provide a `first` or `last`" in r.json()["errors"][0]["message"]
    huge = ('{ search(query: "stars:0..*", type: REPOSITORY, first: 100) { nodes { ... on Repository { '
            'pullRequests(first: 100) { nodes { timelineItems(first: 100) { totalCount } } } } } } }')
    assert "exceeds the maximum limit of 500,000" in post(emu, huge).json()["errors"][0]["message"]
    ids = [p["node_id"] for p in next(e for e in index300.repos.values() if len(e.pulls) > 101).pulls[:101]]
    q = "query($ids: [ID!]!) { nodes(ids: $ids) { id } }"
    (err,) = post(emu, q, {"ids": ids}).json()["errors"]
    assert err == {"message": "You may not provide more than 100 node ids; you provided 101.", "type": "ARGUMENT_LIMIT"}
    assert len(post(emu, q, {"ids": ids[:100]}).json()["data"]["nodes"]) == 100


def test_the_clock_serves_the_world_as_it_stood(world300: Path, index300: WorldIndex) -> None:
    from datetime import date
    past = WorldIndex(world300, clock=date(2026, 9, 1))
    before = [p for e in index300.repos.values() for p in e.pulls if p["created_at"] < "2026-09-01"]
    assert sum(len(e.pulls) for e in past.repos.values()) == len(before) < index300.meta["counts"]["pulls"]
    for e in past.repos.values():
        for p in e.pulls:
            assert p["updated_at"] < "2026-09-01" and (p["merged_at"] or "") < "2026-09-01" and (p["closed_at"] or "") < "2026-09-01"
            assert (p["state"] == "OPEN") == (p["closed_at"] is None)
        assert all(c["committed_at"] < "2026-09-01" for c in e.commits) and e.row["pushed_at"] < "2026-09-01"
    assert all(i["created_at"] < "2026-09-01" for items in past.timeline.values() for i in items)
    # PRs merged after the clock are open again.
    reopened = [p for p in before if (p["merged_at"] or "") >= "2026-09-01"]
    assert reopened and all(past.pulls[(p["repo"], p["number"])]["state"] == "OPEN" for p in reopened)


def test_authentication(index300: WorldIndex) -> None:
    with Emulator(index300, limits=Limits(valid_tokens=frozenset({"good"}))) as e:
        r = post(e, "{ rateLimit { remaining } }", token=None)
        assert r.status_code == 401 and r.json()["message"] == "This endpoint requires you to be authenticated."
        r = post(e, "{ rateLimit { remaining } }", token="expired")
        assert r.status_code == 401 and r.json()["message"] == "Bad credentials"
        assert post(e, "{ rateLimit { remaining } }", token="good").status_code == 200


def test_missing_and_renamed_repositories(world300: Path, tmp_path: Path) -> None:
    world = tmp_path / "w"
    shutil.copytree(world300, world)
    first = WorldIndex(world300)
    target = next(iter(first.repos.values())).row["name_with_owner"]
    (world / "api.json").write_text(json.dumps({"renamed": {"old-owner/old-name": target}, "blocked": ["dmca/blocked"]}))
    with Emulator(world) as e:
        r = post(e, '{ repository(owner: "nobody", name: "nothing") { name } }').json()
        assert r["data"] == {"repository": None}
        assert r["errors"][0]["type"] == "NOT_FOUND" and r["errors"][0]["path"] == ["repository"]
        moved = post(e, '{ repository(owner: "old-owner", name: "old-name") { nameWithOwner } }').json()
        assert moved["data"]["repository"]["nameWithOwner"] == target
        blocked = post(e, '{ repository(owner: "dmca", name: "blocked") { name } }').json()
        assert blocked["errors"][0]["type"] == "FORBIDDEN"


def test_primary_rate_limit(index300: WorldIndex) -> None:
    # A compressed hour long enough that a busy machine still sends all four requests inside it.
    with Emulator(index300, limits=Limits(points_per_hour=3, hour_seconds=5.0)) as e:
        assert "errors" not in post(e, "{ rateLimit { remaining } }").json()
        started = time.monotonic()  # the hour began with the first request, before its answer came back
        for _ in range(2):
            assert "errors" not in post(e, "{ rateLimit { remaining } }").json()
        r = post(e, "{ rateLimit { remaining } }")
        assert r.status_code == 200 and r.json()["errors"][0]["type"] == "RATE_LIMITED"
        assert r.headers["x-ratelimit-remaining"] == "0"
        time.sleep(max(0.0, started + 5.05 - time.monotonic()))  # the compressed hour has passed
        assert post(e, "{ rateLimit { remaining } }").json()["data"]["rateLimit"]["remaining"] == 2


def test_secondary_limit_points_per_minute(index300: WorldIndex) -> None:
    with Emulator(index300, limits=Limits(points_per_minute=2, hour_seconds=360.0)) as e:
        assert post(e, "{ rateLimit { remaining } }").status_code == 200
        assert post(e, "{ rateLimit { remaining } }").status_code == 200
        r = post(e, "{ rateLimit { remaining } }")
        assert r.status_code == 403 and "secondary rate limit" in r.json()["message"] and int(r.headers["retry-after"]) >= 1


def test_dependents_service(emu: Emulator, index300: WorldIndex) -> None:
    with_deps = next(e for e in index300.repos.values() if e.dependents)
    url = f"https://github.com/{with_deps.row['name_with_owner']}"
    (pkg,) = httpx.get(f"{emu.base_url}/api/v1/packages/lookup", params={"repository_url": url}).json()
    assert pkg["name"] == with_deps.dependents["package"] and pkg["repository_url"] == url  # type: ignore[index]
    assert set(pkg) >= {"ecosystem", "dependent_packages_count", "dependent_repos_count"}
    assert httpx.get(f"{emu.base_url}/api/v1/packages/lookup", params={"repository_url": "https://github.com/no/pe"}).json() == []


def test_search_by_star_ranges_and_the_result_cap(emu: Emulator, index300: WorldIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    q = '{ search(query: "stars:1000..5000 sort:stars", type: REPOSITORY, first: 100) { repositoryCount nodes { ... on Repository { stargazerCount } } } }'
    res = post(emu, q).json()["data"]["search"]
    expected = sum(1 for e in index300.repos.values() if 1000 <= e.row["stars"] <= 5000)
    assert res["repositoryCount"] == expected and all(1000 <= n["stargazerCount"] <= 5000 for n in res["nodes"])
    monkeypatch.setattr(server_mod, "SEARCH_CAP", 50)
    capped = post(emu, '{ search(query: "stars:0..*", type: REPOSITORY, first: 100) { repositoryCount nodes { ... on Repository { name } } } }')
    data = capped.json()["data"]["search"]
    assert data["repositoryCount"] == 300 and len(data["nodes"]) == 50


def _observe(e: Emulator, n: int) -> list[str]:
    """What each of n requests met, judged from the outside as a client would."""
    owner, name = next(iter(e.world.repos.values())).row["name_with_owner"].split("/")
    query = '{ rateLimit { remaining } repository(owner: "%s", name: "%s") { name } }' % (owner, name)
    seen = []
    # One client for all requests: a new one per request loads its TLS context inside the timed span,
    # and on a busy machine that once made a plain answer look slow.
    with httpx.Client(headers={"Authorization": "bearer x"}, timeout=10) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            try:
                r = client.post(e.url, json={"query": query})
            except httpx.TransportError:
                seen.append("reset")
                continue
            elapsed = time.perf_counter() - t0
            if r.status_code in (403, 502, 504):
                seen.append({403: "secondary", 502: "bad_gateway", 504: "gateway_timeout"}[r.status_code])
                continue
            try:
                body = r.json()
            except ValueError:
                seen.append("malformed")
                continue
            if body.get("errors") and body["errors"][0].get("type") == "RATE_LIMITED":
                seen.append("rate_limited")
            elif body.get("errors"):
                seen.append("partial")
            # The server holds a slow answer for all of slow_seconds before it sends a byte, so a slow one
            # cannot arrive sooner; a plain answer takes milliseconds and would need a whole-second stall.
            elif elapsed >= e.faults.slow_seconds:
                seen.append("slow")
            else:
                seen.append("ok")
    return seen


def test_each_fault_at_its_rate_and_reproducible(index300: WorldIndex) -> None:
    spec = "rate_limited=0.1,secondary=0.1,bad_gateway=0.1,gateway_timeout=0.1,reset=0.1,malformed=0.1,partial=0.1,slow=0.1,slow_seconds=1.0,seed=7"
    runs = []
    for _ in range(2):
        with Emulator(index300, faults=Faults.parse(spec)) as e:
            runs.append(_observe(e, 300))
            stats = httpx.get(f"{e.base_url}/_emulator/stats").json()
    assert runs[0] == runs[1]  # the same seed gives the same faults in the same order
    counts = Counter(runs[0])
    for kind in ("rate_limited", "secondary", "bad_gateway", "gateway_timeout", "reset", "malformed", "partial", "slow"):
        assert 12 <= counts[kind] <= 50, (kind, counts)  # 30 expected of 300 at 10%
        assert stats["by_fault"][kind] == counts[kind]
    assert 40 <= counts["ok"] <= 80  # the other 20%


def test_bad_fault_specs_are_refused() -> None:
    with pytest.raises(FaultSpecError, match="unknown fault 'teapot'"):
        Faults.parse("teapot=0.1")
    with pytest.raises(FaultSpecError, match="between 0 and 1"):
        Faults.parse("reset=2")
    with pytest.raises(FaultSpecError, match="must not exceed 1"):
        Faults.parse("reset=0.6,slow=0.6")
