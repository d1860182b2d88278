"""GitHub's response shapes (tests/data/github/, each with its source): Porchlamp reads them right, and
the emulator answers in exactly those shapes, so what passes here passes against GitHub."""

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from helpers import post

from porchlamp.collect.github import mapping
from porchlamp.collect.github.client import load_query
from porchlamp.emulator import Emulator, WorldIndex

DATA = Path(__file__).resolve().parents[1] / "data" / "github"


def _fixture(name: str) -> dict[str, Any]:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert data.pop("_source")  # every fixture says where its shape comes from
    return data


def test_a_pull_request_as_github_gives_it() -> None:
    pr, account, items = mapping.pull_request("acme/widget", _fixture("pull_request.json"))
    assert (pr.author, pr.author_type, pr.author_association, pr.merged_by, pr.state) == (
        "jdoe-dev", "User", "CONTRIBUTOR", "github-merge-queue", "MERGED")
    assert account is not None and account.node_id == "MDQ6VXNlcjEyMzQ1Njc=" and account.created_at.year == 2019
    by_kind = {i.kind: i for i in items}
    assert [i.kind for i in items] == ["review_requested", "comment", "comment", "labeled", "review", "converted_to_draft",
                                       "ready_for_review", "merged", "closed"]
    assert by_kind["review_requested"].actor == pr.author  # CODEOWNERS' request, filed under the author
    assert (items[1].actor, items[1].actor_type) == ("netlify", "Bot")  # an app: no [bot] in GraphQL
    assert (items[2].actor, items[2].actor_type) == (None, None)  # a deleted account: author null
    assert (by_kind["review"].review_state, by_kind["review"].actor_association) == ("APPROVED", "MEMBER")
    assert by_kind["merged"].actor_type == "Bot" and by_kind["labeled"].actor_association is None


def test_a_repository_as_github_gives_it() -> None:
    node = _fixture("repository.json")
    repo = mapping.repository(node)
    assert (repo.license_spdx, repo.parent, repo.is_fork, repo.languages[0]) == ("NOASSERTION", None, True, ("Go", 812345))
    assert repo.description is None and repo.homepage_url is None  # GitHub's "" homepage is no homepage
    c = mapping.community(node, ("AGENTS.md",))
    assert c.codeowners == ("maint-a",)  # a team and an e-mail owner are left out
    assert (c.code_of_conduct, c.contributing, c.readme_text) == (False, False, "# widget\n\nA tool.")
    (commit,) = mapping.commits(repo.name_with_owner, mapping.history_of(node))
    assert (commit.author_login, commit.author_name) == (None, "dependabot[bot]")  # an app's commit: a name only


def _shapes(obj: Any, where: str, out: dict[str, set[frozenset[str]]]) -> None:
    """Every object's key set, by where it sits and (for unions) its __typename."""
    if isinstance(obj, dict):
        out[f"{where}<{obj.get('__typename', '')}>"].add(frozenset(obj))
        for k, v in obj.items():
            _shapes(v, f"{where}.{k}", out)
    elif isinstance(obj, list):
        for v in obj:
            _shapes(v, where + "[]", out)
    elif obj is None:
        out[f"{where}<null>"].add(frozenset())


def test_the_emulator_answers_in_githubs_shapes(world300: Path) -> None:
    """Every shape of the fixtures (a Bot comment, a deleted author, each event, a User author with id)
    appears in the emulator's answers, each with exactly the same fields."""
    index = WorldIndex(world300)
    want: dict[str, set[frozenset[str]]] = defaultdict(set)
    _shapes(_fixture("pull_request.json"), "pr", want)
    got: dict[str, set[frozenset[str]]] = defaultdict(set)
    names = [e.row["name_with_owner"] for e in sorted(index.repos.values(), key=lambda e: -len(e.pulls))[:60]]
    with Emulator(index) as emu:
        for name in names:
            owner, repo = name.split("/")
            variables = {"o0": owner, "n0": repo, "f0": 100, "a0": None, "order": {"field": "CREATED_AT", "direction": "DESC"}}
            for i in range(1, 12):
                variables.update({f"o{i}": "x", f"n{i}": "y", f"f{i}": 1, f"a{i}": None, f"use{i}": False})
            body = post(emu, load_query("pull_requests"), variables).json()
            for node in body["data"]["r0"]["pullRequests"]["nodes"]:
                _shapes(node, "pr", got)
    # Deleted commenters are not planted in every world: the fixture's null author is checked by the
    # PR author's null (same field type, Actor) below.
    for where, shapes in want.items():
        if where == "pr.timelineItems.nodes[].author<null>":
            assert got.get("pr.author<null>") == {frozenset()}
            continue
        assert got.get(where) == shapes, where  # the same fields, no more, no fewer


def test_the_emulator_repository_has_githubs_fields(world300: Path) -> None:
    want = set(_fixture("repository.json"))
    index = WorldIndex(world300)
    with Emulator(index) as emu:
        owner, name = next(iter(index.repos.values())).row["name_with_owner"].split("/")
        variables: dict[str, Any] = {"o0": owner, "n0": name, "since": "2026-04-15T00:00:00Z", "commits": 30}
        for i in range(1, 16):
            variables.update({f"o{i}": "x", f"n{i}": "y", f"use{i}": False})
        node = post(emu, load_query("repo_meta"), variables).json()["data"]["r0"]
    assert set(node) == want
