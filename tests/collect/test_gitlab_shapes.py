"""Real GitLab API responses, from public sources with provenance (tests/data/gitlab/responses.json),
through the mapping: each makes the rows expected of it. The emulator's answers are not enough, as
they are what we assumed GitLab says."""

import json
from datetime import datetime
from pathlib import Path

import pytest

from porchlamp.collect.gitlab import mapping

DATA = json.loads((Path(__file__).parent.parent / "data" / "gitlab" / "responses.json").read_text(encoding="utf-8"))["responses"]
REPO, HOST = "gitlab.example.com/group/project", "gitlab.example.com"


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


@pytest.mark.parametrize("entry", DATA, ids=[f"{i}-{e['kind']}" for i, e in enumerate(DATA)])
def test_a_real_response_maps_to_the_expected_rows(entry: dict) -> None:  # type: ignore[type-arg]
    assert entry["source"].startswith("https://") and ("licence" in entry["source"] or "CC BY-SA" in entry["source"])
    kind, r, want = entry["kind"], entry["response"], entry["expect"]
    if kind == "merge_request":
        pr, account = mapping.pull_request(REPO, HOST, r)
        assert {"number": pr.number, "author": pr.author, "state": pr.state, "merged_by": pr.merged_by,
                "merged_at": _iso(pr.merged_at), "is_draft": pr.is_draft, "author_association": pr.author_association,
                "author_id": account.node_id if account else None} == want
        assert account is not None and account.type is None and account.host == HOST  # read later, by the accounts stage
    elif kind in ("notes", "note"):
        items = [mapping.note(REPO, HOST, 7, n) for n in (r if isinstance(r, list) else [r])]
        assert [[i.kind, i.actor, i.created_at.isoformat(), i.body] for i in items if i] == want
        assert all(i is None or i.actor_association is None for i in items)
    elif kind == "state_events":
        items = [mapping.state_event(REPO, HOST, 7, e) for e in r]
        assert [[i.kind, i.actor, i.created_at.isoformat()] for i in items if i] == want
    elif kind == "label_events":
        items = [mapping.label_event(REPO, HOST, 7, e) for e in r]
        assert [[i.kind, i.actor, i.created_at.isoformat()] for i in items if i] == want
    elif kind == "members":
        assert [[m.login, m.access_level] for m in (mapping.member(REPO, x) for x in r)] == want
    elif kind == "user":
        a = mapping.account(HOST, r)
        assert {"login": a.login, "type": a.type, "created_at": _iso(a.created_at), "node_id": a.node_id} == want
    elif kind == "project":
        repo = mapping.repository(HOST, r, None, ())
        assert {k: (list(getattr(repo, k)) if isinstance(getattr(repo, k), tuple) else getattr(repo, k)) for k in want} == want
    elif kind == "commits":
        assert [[c.oid, c.committed_at.isoformat(), c.author_login, c.author_name] for c in mapping.commits(REPO, r)] == want
    elif kind == "issue":
        i = mapping.issue(REPO, r, ("good first issue",))
        assert {"number": i.number, "title": i.title, "assignees": i.assignees, "created_at": _iso(i.created_at)} == want
    else:
        pytest.fail(f"unknown kind {kind}")


def test_the_set_covers_what_the_method_reads() -> None:
    kinds = {e["kind"] for e in DATA}
    assert {"merge_request", "notes", "state_events", "label_events", "members", "user"} <= kinds
    assert len(DATA) >= 20
    assert any(e["kind"] == "user" and "bot" in e["response"] for e in DATA)  # the flag the bot rule reads
    assert any(e["kind"] == "notes" and any(n.get("system") for n in e["response"]) for e in DATA)


@pytest.mark.parametrize(("body", "kind", "state"), [
    ("approved this merge request", "review", "APPROVED"),
    ("requested changes", "review", "CHANGES_REQUESTED"),
    ("marked this merge request as **draft**", "converted_to_draft", None),
    ("marked this merge request as **draft** from 1a2b3c4d", "converted_to_draft", None),
    ("marked this merge request as **ready**", "ready_for_review", None),
    ("marked as a **Work In Progress**", "converted_to_draft", None),
    ("unmarked as a **Work In Progress**", "ready_for_review", None),
    ("requested review from @user1 and @user2", "review_requested", None),
    ("assigned to @rspeicher", "assigned", None),
    ("added 1 commit", None, None),
    ("changed the description", None, None),
    ("mentioned in !2", None, None),
])
def test_system_notes_in_gitlabs_own_words(body: str, kind: str | None, state: str | None) -> None:
    """The words of app/services/system_notes/merge_requests_service.rb and issuables_service.rb."""
    note = {"id": 9, "body": body, "author": {"id": 3, "username": "maintainer"}, "created_at": "2026-05-01T10:00:00.000Z", "system": True}
    item = mapping.note(REPO, HOST, 7, note)
    assert (item.kind, item.review_state) == (kind, state) if kind else item is None


def test_deleted_and_imported_authors() -> None:
    ghost = mapping.pull_request(REPO, HOST, {"id": 5, "iid": 2, "created_at": "2026-05-01T10:00:00Z", "state": "opened",
                                              "author": {"id": 1, "username": "ghost", "name": "Ghost User"}})[0]
    assert ghost.author is None and ghost.author_type is None
    placeholder = mapping.pull_request(REPO, HOST, {"id": 6, "iid": 3, "created_at": "2026-05-01T10:00:00Z", "state": "opened",
                                                    "author": {"id": 8, "username": "octocat_placeholder_user_12"}})[0]
    assert placeholder.author_type == "Mannequin"


@pytest.mark.parametrize(("key", "spdx"), [("mit", "MIT"), ("apache-2.0", "Apache-2.0"), ("gpl-3.0", "GPL-3.0"), ("other", "NOASSERTION"),
                                           ("lgpl-2.1", "LGPL-2.1"), ("bsd-3-clause", "BSD-3-Clause")])
def test_licence_keys(key: str, spdx: str) -> None:
    assert mapping.license_spdx({"key": key, "name": key}) == spdx
    assert mapping.license_spdx(None) is None


def test_codeowners_names_users_not_groups() -> None:
    text = "[Docs]\n*.md @tech-writer @docs-group/editors\n^[Optional]\n/src/ @jane.doe @john_smith user@example.com\n# @nobody\n"
    assert mapping.codeowners(text) == ("jane.doe", "john_smith", "tech-writer")
