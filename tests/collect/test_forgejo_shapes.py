"""Real Gitea API responses (Forgejo keeps Gitea's v1 shapes), from public sources with provenance
(tests/data/forgejo/responses.json), through the Forgejo mapping: each makes the rows expected of it.
The emulator's answers are not enough, as they are what we assumed Forgejo says. And the rules the
mapping adds of its own: drafts by title, the deleted and Actions users, licences by their text."""

import json
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porchlamp.collect.forgejo import mapping

DATA = json.loads((Path(__file__).parent.parent / "data" / "forgejo" / "responses.json").read_text(encoding="utf-8"))["responses"]
REPO, HOST = "codeberg.org/team/project", "codeberg.org"
PR_2018 = [1, "jcitizen", "User", "OPEN", None, None, False, "2018-07-06T00:37:47", "6641"]
# What each response must make, by its place in the file (read off the fixtures themselves).
EXPECT: dict[int, object] = {
    0: [PR_2018], 1: [PR_2018], 2: [PR_2018], 3: [[*PR_2018[:3], "CLOSED", *PR_2018[4:]]], 4: [PR_2018], 5: [PR_2018],
    6: [["comment", "unknwon", "2016-08-26T18:58:18", "what?"]], 7: [["comment", "unknwon", "2016-08-26T18:58:18", "what?"]],
    8: [[1, "Bug found", "OPEN", 0, "2017-09-23T19:24:01"]], 9: [[1, "Bug found", "OPEN", 0, "2017-09-23T19:24:01"]],
    10: [["codeberg.org/go-gitea/gitea", False, False, False, None, 0, 0, "master", "2017-10-22T18:25:33"]],
    11: [["codeberg.org/go-gitea/gitea", False, False, False, None, 0, 0, "master", "2017-10-22T18:25:33"]],
    12: [["codeberg.org/jcitizen/my-repo", False, False, False, None, 0, 0, "master", "2018-07-06T00:08:02"]],
    13: ["jcitizen", "User", None, "1"],
    14: [["c43399cad8766ee521b873a32c1652407c5a4630", "2018-09-09T03:36:08", None, "Lewis Cowles"]],
    15: [["c43399cad8766ee521b873a32c1652407c5a4630", "2018-09-09T03:36:08", None, "Lewis Cowles"]],
    16: ["advanced.en-us.md", "advanced.fr-fr.md", "advanced.zh-cn.md", "advanced"], 17: [1], 18: [1],
    19: [None],  # a PENDING review has not been submitted: no answer yet
    20: [None],
    21: ["gogits"],
}


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def _many(r: object) -> list:  # type: ignore[type-arg]
    return r if isinstance(r, list) else [r]


def test_the_file_holds_twenty_real_responses_each_with_its_source() -> None:
    assert len(DATA) >= 20 and len(EXPECT) == len(DATA)
    assert all(e["source"].startswith("https://github.com/") and "licence" in e["source"] for e in DATA)


@pytest.mark.parametrize("i", range(len(DATA)), ids=[f"{i}-{e['kind']}" for i, e in enumerate(DATA)])
def test_a_real_response_maps_to_the_expected_rows(i: int) -> None:
    kind, r = DATA[i]["kind"], DATA[i]["response"]
    if kind in ("pull_request", "pulls"):
        got: object = []
        for p in _many(r):
            pr, account = mapping.pull_request(REPO, HOST, p)
            assert account is not None and account.type is None and account.host == HOST  # its age is read later
            assert pr.author_association is None  # Forgejo reports none
            got.append([pr.number, pr.author, pr.author_type, pr.state, pr.merged_by, _iso(pr.merged_at), pr.is_draft,  # type: ignore[attr-defined]
                        _iso(pr.created_at), account.node_id])
    elif kind in ("comments", "comment"):
        items = [mapping.timeline(REPO, HOST, 3, {"type": "comment", **c}) for c in _many(r)]
        got = [[t.kind, t.actor, _iso(t.created_at), t.body] for t in items if t]
    elif kind in ("issue", "issues"):
        got = [[x.number, x.title, x.state, x.assignees, _iso(x.created_at)] for x in (mapping.issue(REPO, i, ()) for i in _many(r))]
    elif kind in ("repository", "repositories"):
        got = []
        for x in _many(r):
            repo = mapping.repository(HOST, x, None, ())
            got.append([repo.name_with_owner, repo.is_fork, repo.is_mirror, repo.is_archived, repo.license_spdx, repo.stars,  # type: ignore[attr-defined]
                        repo.forks, repo.default_branch, _iso(repo.created_at)])
    elif kind == "user":
        a = mapping.account(HOST, r)
        got = [a.login, a.type, _iso(a.created_at), a.node_id]
    elif kind in ("commits", "commit"):
        got = [[c.oid, _iso(c.committed_at), c.author_login, c.author_name] for c in mapping.commits(REPO, _many(r))]
    elif kind in ("reviews", "review"):
        got = [mapping.review(REPO, HOST, 1, x) for x in _many(r)]
    elif kind == "contents":
        got = [e["name"] for e in r]
    elif kind in ("statuses", "status"):
        got = [s["id"] for s in _many(r)]  # the CI stage reads how many there are
    else:
        got = [r["username"]]
    assert got == EXPECT[i]


def test_a_title_change_that_takes_the_prefix_off_is_the_pr_made_ready() -> None:
    base = {"id": 9, "created_at": "2026-05-01T10:00:00Z", "user": {"id": 4, "login": "ana"}}
    ready = mapping.timeline(REPO, HOST, 2, {**base, "type": "change_title", "old_title": "WIP: fix", "new_title": "fix"})
    draft = mapping.timeline(REPO, HOST, 2, {**base, "type": "change_title", "old_title": "fix", "new_title": "[WIP] fix"})
    plain = mapping.timeline(REPO, HOST, 2, {**base, "type": "change_title", "old_title": "fix", "new_title": "fix typo"})
    assert (ready.kind, draft.kind, plain) == ("ready_for_review", "converted_to_draft", None)  # type: ignore[union-attr]
    # An instance's own prefixes, as porchlamp.toml gives them.
    assert mapping.timeline(REPO, HOST, 2, {**base, "type": "change_title", "old_title": "Draft: x", "new_title": "x"},
                            ("Draft:",)).kind == "ready_for_review"  # type: ignore[union-attr]


def test_forgejo_s_own_users_read_as_what_they_are() -> None:
    ghost = {"id": -1, "login": "Ghost"}
    actions = {"id": -2, "login": "forgejo-actions"}
    pr, account = mapping.pull_request(REPO, HOST, {"id": 1, "number": 4, "created_at": "2026-05-01T10:00:00Z", "user": ghost})
    assert pr.author is None and account is None  # a deleted account, as GitHub's ghost
    pr, account = mapping.pull_request(REPO, HOST, {"id": 2, "number": 5, "created_at": "2026-05-01T10:00:00Z", "user": actions})
    assert (pr.author, pr.author_type, account.type) == ("forgejo-actions", "Bot", "Bot")  # type: ignore[union-attr]
    moved = mapping.pull_request(REPO, HOST, {"id": 3, "number": 6, "created_at": "2026-05-01T10:00:00Z", "user": {"id": 7, "login": "owner"},
                                              "original_author": "someone-on-github"})[0]
    assert (moved.author, moved.author_type) == ("someone-on-github", "Mannequin")
    review = mapping.review(REPO, HOST, 4, {"id": 5, "state": "REQUEST_CHANGES", "submitted_at": "2026-05-02T10:00:00Z",
                                            "user": {"id": 8, "login": "maria"}, "body": "Please add a test."})
    assert (review.kind, review.review_state, review.actor) == ("review", "CHANGES_REQUESTED", "maria")  # type: ignore[union-attr]


@pytest.mark.parametrize("text,spdx", [
    ("MIT License\n\nCopyright (c) 2024 x\n\nPermission is hereby granted, free of charge, to any person obtaining", "MIT"),
    ("                    GNU AFFERO GENERAL PUBLIC LICENSE\n                       Version 3, 19 November 2007", "AGPL-3.0"),
    ("GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n... the GNU Lesser General Public License ...", "GPL-3.0"),
    ("                                 Apache License\n                           Version 2.0, January 2004", "Apache-2.0"),
    ("Attribution-NonCommercial 4.0 International", "CC-BY-NC-4.0"),
    ("All rights reserved. Ask us first.", "NOASSERTION"),
])
def test_a_licence_file_is_known_by_its_own_words(text: str, spdx: str) -> None:
    assert mapping.licence_spdx(text) == spdx
    assert mapping.licence_spdx(None) is None


@given(st.text(max_size=40), st.sampled_from(["WIP:", "[WIP]", "wip:", "[wip]"]), st.text(max_size=3, alphabet=" \t"))
def test_any_title_that_starts_with_a_prefix_is_a_draft(rest: str, prefix: str, space: str) -> None:
    assert mapping.is_wip(space + prefix + rest)
    assert not mapping.is_wip("Fix " + prefix)
