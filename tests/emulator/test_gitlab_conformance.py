"""The GitLab emulator serves only what GitLab has: every attribute of its answers is one that a real
GitLab answer of the same kind carries (tests/data/gitlab/responses.json, from GitLab's documentation
and client libraries' fixtures), or one GitLab's documentation names for that endpoint (cited below);
and every attribute the mapping reads is one of those."""

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import pytest

from porchlamp.emulator import WorldIndex
from porchlamp.emulator.gitlab import GitLabEmulator
from porchlamp.sample import generate_world

ROOT = Path(__file__).parent.parent.parent
REAL = json.loads((ROOT / "tests" / "data" / "gitlab" / "responses.json").read_text(encoding="utf-8"))["responses"]
# Attributes no vendored answer happens to show, each named in GitLab's API documentation.
DOCUMENTED = {
    "project": {a: "doc/api/projects.md, \"Get a single project\"" for a in
                ("description", "empty_repo", "license", "license_url", "readme_url", "topics", "visibility", "forked_from_project")},
    "issue": {"assignees": "doc/api/issues.md, \"List project issues\""},
}


def _real_attributes() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for e in REAL:
        for item in (e["response"] if isinstance(e["response"], list) else [e["response"]]):
            found["notes" if e["kind"] == "note" else e["kind"]] |= set(item)
    for kind, named in DOCUMENTED.items():
        found[kind] |= set(named)
    return found


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """One of every kind of answer the collector asks for, over HTTP, from a small GitLab world."""
    world = generate_world(tmp_path_factory.mktemp("gl") / "w", repos=60, seed=7, hosts={"gitlab.com": 0.9}).path
    index = WorldIndex(world)
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with GitLabEmulator(index, "gitlab.com") as lab, httpx.Client(base_url=lab.url, headers={"PRIVATE-TOKEN": "t"}) as http:
        def get(path: str, **params: Any) -> Any:
            r = http.get(path, params=params)
            assert r.status_code == 200, (path, r.status_code, r.text[:200])
            return r.json()
        projects = [e for e in lab.world.projects.values() if e.pulls and e.roles and e.issues and e.commits][:3]
        assert projects
        for e in projects:
            pid = e.row["_gitlab_id"]
            out["project"].append(get(f"/projects/{pid}", license="true"))
            out["members"] += get(f"/projects/{pid}/members/all", per_page=100)
            out["commits"] += get(f"/projects/{pid}/repository/commits", per_page=20)
            out["issue"] += get(f"/projects/{pid}/issues", per_page=20)
            for mr in get(f"/projects/{pid}/merge_requests", state="all", per_page=30):
                out["merge_request"].append(mr)
                out["notes"] += get(f"/projects/{pid}/merge_requests/{mr['iid']}/notes", per_page=100)
                out["state_events"] += get(f"/projects/{pid}/merge_requests/{mr['iid']}/resource_state_events", per_page=100)
                out["label_events"] += get(f"/projects/{pid}/merge_requests/{mr['iid']}/resource_label_events", per_page=100)
                out["user"].append(get(f"/users/{mr['author']['id']}"))
        out["project"] += get("/projects", order_by="star_count", simple="true", per_page=5)
    return out


def test_every_attribute_served_is_one_gitlab_has(answers: dict[str, list[dict[str, Any]]]) -> None:
    real = _real_attributes()
    for kind, items in answers.items():
        assert items, kind
        served = set().union(*(set(i) for i in items))
        assert served - real[kind] == set(), kind
    # Every kind of answer the method reads was seen: a system note, a state event and a label event among them.
    assert any(n["system"] for n in answers["notes"]) and answers["state_events"] and answers["label_events"]


def test_every_attribute_the_mapping_reads_is_one_gitlab_has() -> None:
    source = (ROOT / "src" / "porchlamp" / "collect" / "gitlab" / "mapping.py").read_text(encoding="utf-8")
    read = set(re.findall(r'(?:\.get\(|\[)"([a-z_]+)"', source))
    known = set().union(*_real_attributes().values()) | {"kind", "key", "name"}  # a namespace's kind, a licence's key
    # The mapping's own keys for the project files the collector fetched (not GitLab's attributes).
    own = {"readme", "contributing", "codeowners", "template", "mirror"}
    assert read - known - own == set()


ATTRIBUTES = json.loads((ROOT / "tests" / "data" / "gitlab" / "api_attributes.json").read_text(encoding="utf-8"))["endpoints"]


def test_every_request_the_collector_sends_is_one_gitlabs_documentation_lists(tmp_path: Path) -> None:
    """A full collection, a day's refresh and a discovery against the GitLab emulator: every query
    parameter asked of every endpoint is in that endpoint's table in GitLab's API documentation
    (tests/data/gitlab/api_attributes.json, each with its source)."""
    import sys
    from datetime import timedelta

    sys.path.insert(0, str(ROOT / "tests"))
    from collecting import AS_OF, collect_forges

    from porchlamp.collect.gitlab.client import GitLabClient
    from porchlamp.collect.gitlab.discover import discover

    world = generate_world(tmp_path / "w", repos=60, seed=23, hosts={"gitlab.com": 0.9}).path
    asked: dict[str, set[str]] = defaultdict(set)
    for day in (AS_OF, AS_OF + timedelta(days=1)):
        summary, labs = collect_forges(world, tmp_path / "s.duckdb", as_of=day)
        assert not summary.failures
        for stats in labs.values():
            for endpoint, names in stats["params"].items():
                asked[endpoint] |= set(names)
    with GitLabEmulator(WorldIndex(world), "gitlab.com") as lab:
        client = GitLabClient(lab.url, "t", "gitlab.com", wait_scale=0.0)
        try:
            assert discover(client, min_stars=0, limit=50)
        finally:
            client.close()
        for endpoint, names in lab.stats.params.items():
            asked[endpoint] |= names
    assert {"/projects/:id/merge_requests", "/projects/:id/merge_requests/:id/notes", "/users/:id", "/projects"} <= set(asked)
    unlisted = {e: sorted(n - set(ATTRIBUTES[e]["attributes"])) for e, n in asked.items() if n and e in ATTRIBUTES}
    assert {e for e, n in asked.items() if n and e not in ATTRIBUTES} == set()
    assert {e: n for e, n in unlisted.items() if n} == {}
    assert all(a["source"].startswith("https://") and "CC BY-SA" in a["source"] for a in ATTRIBUTES.values())
