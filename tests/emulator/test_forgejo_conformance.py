"""The Forgejo emulator serves only what Forgejo has: every answer the collector reads validates
against the response schema of its endpoint in the pinned Swagger description (src/porchlamp/emulator/
specs/), with no attribute the description does not define; it refuses a query parameter the
description does not list; and every attribute the mapping reads is one the description defines."""

import copy
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from porchlamp.emulator import WorldIndex
from porchlamp.emulator.forgejo import ForgejoEmulator, route, spec
from porchlamp.sample import generate_world

ROOT = Path(__file__).parent.parent.parent


def _strict(defs: dict[str, Any]) -> dict[str, Any]:
    """The description's definitions with no attribute beyond those defined, and null allowed where Go
    writes a nil pointer or slice (Swagger 2.0 cannot say `nullable`)."""
    out = copy.deepcopy(defs)
    for d in out.values():
        if "properties" in d:
            d["additionalProperties"] = False
            d["properties"] = {k: {"anyOf": [v, {"type": "null"}]} for k, v in d["properties"].items()}
    return out


@pytest.fixture(scope="module")
def validators() -> dict[str, jsonschema.Draft4Validator]:
    s = spec()
    defs = _strict(s["definitions"])
    out = {}
    for template, ops in s["paths"].items():
        ok = (ops.get("get") or {}).get("responses", {}).get("200")
        if not ok:
            continue
        schema = s["responses"][ok["$ref"].rsplit("/", 1)[1]].get("schema") if "$ref" in ok else ok.get("schema")
        if schema and schema.get("type") != "file":
            out[template] = jsonschema.Draft4Validator({**schema, "definitions": defs})
    return out


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """One of every kind of answer the collector asks for, over HTTP, from a small Forgejo world."""
    world = generate_world(tmp_path_factory.mktemp("fj") / "w", repos=60, seed=7, hosts={"codeberg.org": 0.9}).path
    out: dict[str, list[Any]] = defaultdict(list)
    with ForgejoEmulator(WorldIndex(world), "codeberg.org") as fj, \
            httpx.Client(base_url=fj.url, headers={"Authorization": "token t"}) as http:
        def get(path: str, **params: Any) -> Any:
            r = http.get(path, params=params)
            assert r.status_code == 200, (path, r.status_code, r.text[:200])
            found = route(path)
            assert found is not None
            out[found[0]].append(r.json())
            return r.json()
        get("/settings/api")
        get("/version")
        entries = [e for e in fj.world.by_path.values() if e.pulls and e.roles and e.issues and e.commits][:4]
        assert entries
        for e in entries:
            base = f"/repos/{e.row['name_with_owner'].split('/', 1)[1]}"
            repo = get(base)
            owner = repo["owner"]["login"]
            if e.row.get("owner_type") == "Organization":
                get(f"/orgs/{owner}")
                get(f"/orgs/{owner}/public_members")
            get(f"{base}/languages")
            get(f"{base}/contents", ref=repo["default_branch"])
            get(f"{base}/labels", limit=50)
            get(f"{base}/assignees")
            get(f"{base}/commits", sha=repo["default_branch"], limit=10, stat="false", verification="false", files="false")
            get(f"{base}/issues", type="issues", state="open", limit=20)
            get(f"{base}/issues", type="pulls", state="all", sort="recentupdate", limit=20)
            for p in get(f"{base}/pulls", state="all", sort="recentupdate", limit=20):
                get(f"{base}/pulls/{p['number']}")
                get(f"{base}/issues/{p['number']}/timeline", limit=50)
                get(f"{base}/pulls/{p['number']}/reviews", limit=50)
                get(f"{base}/commits/{p['head']['sha']}/status", limit=1)
                get(f"/users/{p['user']['login']}")
        get("/repos/search", sort="stars", order="desc", limit=10)
    return out


def test_every_answer_validates_against_the_swagger_description(answers: dict[str, list[Any]],
                                                                 validators: dict[str, jsonschema.Draft4Validator]) -> None:
    assert len(answers) >= 18
    for template, bodies in answers.items():
        for body in bodies:
            errors = sorted(validators[template].iter_errors(body), key=lambda e: list(e.path))
            deepest = [min(e.context, key=lambda c: -len(c.absolute_path)) if e.context else e for e in errors[:5]]
            assert not errors, (template, [f"{list(e.absolute_path)}: {e.message[:200]}" for e in deepest])
    # The acts the method reads are all there: a comment, a close or merge, a label, a title change, a review.
    kinds = {c["type"] for page in answers["/repos/{owner}/{repo}/issues/{index}/timeline"] for c in page}
    assert {"comment", "merge_pull", "close", "label", "review"} <= kinds
    assert any(r["state"] == "APPROVED" for page in answers["/repos/{owner}/{repo}/pulls/{index}/reviews"] for r in page)


def test_a_broken_answer_fails_validation(answers: dict[str, list[Any]], validators: dict[str, jsonschema.Draft4Validator]) -> None:
    """The check can fail: an attribute Forgejo does not have, or a number where it writes a string."""
    pr = dict(answers["/repos/{owner}/{repo}/pulls/{index}"][0])
    v = validators["/repos/{owner}/{repo}/pulls/{index}"]
    assert not list(v.iter_errors(pr))
    assert list(v.iter_errors({**pr, "author_association": "NONE"}))
    assert list(v.iter_errors({**pr, "title": 7}))


def test_a_parameter_the_description_does_not_list_is_refused(tmp_path: Path) -> None:
    world = generate_world(tmp_path / "w", repos=50, seed=3, hosts={"codeberg.org": 0.9}).path
    with ForgejoEmulator(WorldIndex(world), "codeberg.org") as fj, \
            httpx.Client(base_url=fj.url, headers={"Authorization": "token t"}) as http:
        path = next(iter(fj.world.by_path))
        assert http.get(f"/repos/{path}/pulls", params={"state": "all"}).status_code == 200
        assert http.get(f"/repos/{path}/pulls", params={"since": "2026-01-01T00:00:00Z"}).status_code == 400  # no time filter
        assert http.get(f"/repos/{path}/pulls", params={"state": "merged"}).status_code == 400  # not in its enum
        assert http.get(f"/repos/{path}/pulls", params={"limit": "many"}).status_code == 400
        assert http.get(f"/repos/{path}/pulls").status_code == 200
        assert httpx.get(f"{fj.url}/repos/{path}/pulls").status_code == 401  # no token
        # The instance's cap on a page: a larger limit gets 50, with the total and a link to the next.
        r = http.get(f"/repos/{path}/issues", params={"type": "pulls", "state": "all", "limit": 500})
        total = int(r.headers["X-Total-Count"])
        assert len(r.json()) == min(50, total) and (total <= 50 or 'rel="next"' in r.headers["Link"])


def test_every_attribute_the_mapping_reads_is_one_the_description_defines() -> None:
    source = (ROOT / "src" / "porchlamp" / "collect" / "forgejo" / "mapping.py").read_text(encoding="utf-8")
    source += (ROOT / "src" / "porchlamp" / "collect" / "forgejo" / "adapter.py").read_text(encoding="utf-8")
    read = set(re.findall(r'(?:\.get\(|\[)"([a-z_]+)"', source))
    defined = {p for d in spec()["definitions"].values() for p in d.get("properties", {})}
    # The mapping's own keys for the files the collector read (not Forgejo's attributes).
    own = {"readme", "contributing", "codeowners", "template", "cursor", "stop"}  # and the run's own state
    assert read - defined - own == set()


def test_the_pinned_description_is_the_one_its_readme_names() -> None:
    import hashlib

    path = ROOT / "src" / "porchlamp" / "emulator" / "specs" / "forgejo-11.0.3.swagger.v1.json"
    readme = (path.parent / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256(path.read_bytes()).hexdigest() in readme
    assert json.loads(path.read_text(encoding="utf-8"))["info"]["license"]["url"] == "http://opensource.org/licenses/MIT"
