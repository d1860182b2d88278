"""Per-PR rules of SPEC sections 4-5, one row per rule and tricky case."""

from datetime import timedelta

import pytest
from helpers import NOW, T0, Response, accounts, data, item, judged, pr
from hypothesis import given, settings, strategies as st

from porchlamp.config import Settings
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import CommunityFiles

S = Settings()
RULES = load_rules(S)
D = timedelta(days=1)
H = timedelta(hours=1)
DEPLOY = "Deploy Preview for widget ready! Built with commit 1a2b3c."

# (name, the PR, its timeline, expected excluded, expected outcome, expected first response kind)
CASES = [
    ("maintainer comment", pr(), [item("comment", T0 + 3 * D, "maint", "MEMBER")], None, "answered", "comment"),
    ("contributor review", pr(), [item("review", T0 + D, "helper", "CONTRIBUTOR")], None, "answered", "review"),
    ("merge queue merge", pr(state="MERGED"), [item("merged", T0 + 2 * D, "github-merge-queue", actor_type="Bot")], None, "answered", "merge"),
    ("only a bot replied", pr(), [item("comment", T0 + H, "netlify", actor_type="Bot", body="Deploy preview ready")], None, "unanswered", None),
    ("known bot user replied", pr(), [item("comment", T0 + H, "codecov-commenter", "NONE", body="Coverage 90%")], None, "unanswered", None),
    ("bot text under a maintainer", pr(), [item("comment", T0 + H, "maint", "MEMBER", body=DEPLOY)], None, "unanswered", None),
    ("only the author", pr(), [item("comment", T0 + D, "outsider", "NONE", body="ping?")], None, "unanswered", None),
    ("drive-by +1", pr(), [item("comment", T0 + D, "stranger", "NONE", body="+1")], None, "unanswered", None),
    ("label assign request only", pr(), [item("labeled", T0 + D, "maint"), item("assigned", T0 + D, "maint"),
                                         item("review_requested", T0 + D, "maint")], None, "unanswered", None),
    ("answer at exactly 14 days", pr(), [item("comment", T0 + 14 * D, "maint", "MEMBER")], None, "answered", "comment"),
    ("answer one second late", pr(), [item("comment", T0 + 14 * D + timedelta(seconds=1), "maint", "MEMBER")], None, "unanswered", None),
    ("answer on day 15", pr(), [item("comment", T0 + 15 * D, "maint", "MEMBER")], None, "unanswered", None),
    ("silent close", pr(state="CLOSED"), [item("closed", T0 + 2 * D, "maint")], None, "closed_silently", None),
    ("closed by a stale bot", pr(state="CLOSED"), [item("closed", T0 + 2 * D, "stale", actor_type="Bot")], None, "unanswered", None),
    ("self-closed early", pr(state="CLOSED"), [item("closed", T0 + 2 * D, "outsider")], "self_closed", None, None),
    ("author gave up after the window", pr(state="CLOSED"), [item("closed", T0 + 20 * D, "outsider")], None, "unanswered", None),
    ("closed by author after an answer", pr(state="CLOSED"), [item("comment", T0 + D, "maint", "MEMBER"),
                                                               item("closed", T0 + 2 * D, "outsider")], None, "answered", "comment"),
    ("draft never ready", pr(is_draft=True), [item("comment", T0 + D, "maint", "MEMBER")], "draft", None, None),
    # Ready 16 days after opening, answered 4 days after ready (day 20 from opening): the clock starts at ready.
    ("draft marked ready later", pr(), [item("ready_for_review", T0 + 16 * D, "outsider"),
                                        item("comment", T0 + 20 * D, "maint", "MEMBER")], None, "answered", "comment"),
    ("too young", pr(created=NOW - 5 * D), [], "too_young", None, None),
    ("ready too recently", pr(created=NOW - 40 * D), [item("ready_for_review", NOW - 3 * D, "outsider")], "too_young", None, None),
    ("deleted author", pr(author=None), [item("comment", T0 + D, "maint", "MEMBER")], "deleted_author", None, None),
    ("mannequin", pr(author="imported-7", assoc="MANNEQUIN", author_type="Mannequin"), [], "mannequin", None, None),
    ("bot author", pr(author="dependabot", author_type="Bot"), [], "bot", None, None),
    ("user acting as bot", pr(author="acme-release-bot"), [], "bot", None, None),
    ("maintainer author", pr(author="maint", assoc="MEMBER"), [], "maintainer", None, None),
    ("private member author", pr(author="private-member", assoc="CONTRIBUTOR"), [], "maintainer", None, None),
    ("codeowner author", pr(author="owner-only"), [], "maintainer", None, None),
    ("brand-new account", pr(author="newbie"), [], "brand_new_account", None, None),
    ("before the window", pr(created=NOW - 200 * D), [], "before_window", None, None),
    ("answer after the snapshot", pr(created=NOW - 15 * D), [item("comment", NOW + H, "maint", "MEMBER")], None, "unanswered", None),
]


@pytest.mark.parametrize(("name", "the_pr", "its_items", "excluded", "outcome", "kind"), CASES, ids=[c[0] for c in CASES])
def test_pr_rules(name: str, the_pr, its_items, excluded, outcome, kind) -> None:  # type: ignore[no-untyped-def]
    # Another PR in the window lets the private member show write access by merging it.
    other = pr(99, "someone")
    d = data(pulls=(the_pr, other), items=(*its_items, item("merged", T0, "private-member", number=99)),
             community=CommunityFiles("acme/widget", codeowners=("owner-only",)))
    accts = accounts(("newbie", the_pr.created_at - 10 * D))
    (v,) = [v for v in judged(d, accts) if v.number == the_pr.number]
    assert (v.excluded, v.outcome) == (excluded, outcome)
    assert (v.response.kind if v.answered and v.response else None) == kind
    assert v.outside == (excluded is None)


def test_clock_and_time_to_response_for_a_ready_draft() -> None:
    d = data(pulls=(pr(),), items=(item("ready_for_review", T0 + 16 * D, "outsider"), item("comment", T0 + 17 * D, "maint", "MEMBER")))
    (v,) = judged(d)
    assert v.clock_start == T0 + 16 * D and v.hours_to_response == 24.0 and v.answered


def test_decided_within_thirty_days() -> None:
    d = data(pulls=(pr(1), pr(2, created=T0 + H)),
             items=(item("merged", T0 + 29 * D, "maint", number=1), item("closed", T0 + H + 31 * D, "maint", number=2)))
    v1, v2 = judged(d)
    assert v1.decided and v1.merged and not v2.decided



_HOURS = st.sampled_from([0, 1, 24, 3 * 24, 14 * 24, 15 * 24, 20 * 24])  # few, so that times often tie
_ACTORS = st.sampled_from([("maint", "MEMBER", "User"), ("helper", "CONTRIBUTOR", "User"), ("outsider", "NONE", "User"),
                           ("stranger", "NONE", "User"), ("netlify", "NONE", "Bot")])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["comment", "review", "merged", "closed", "labeled"]), _HOURS,
                          _ACTORS, st.sampled_from(["", "Looks good, one question about the parser.", DEPLOY])),
                max_size=12),
       st.one_of(st.none(), _HOURS))
def test_the_first_response_is_the_earliest_whatever_the_order(drawn, merged_hour) -> None:  # type: ignore[no-untyped-def]
    """Items in any order, equal times included: the response found is the least of every response
    by time, of equally early ones the first the store lists (by node id). Who responds is known
    here by role: a merge by anyone; a comment or review by a maintainer (by association, or by
    acting on the PR) or the past contributor, unless it is deploy-preview text."""
    the_pr = pr(state="MERGED" if merged_hour is not None else "OPEN",
                merged_at=None if merged_hour is None else T0 + merged_hour * H, merged_by="maint")
    items = tuple(item(kind, T0 + hour * H, actor, assoc if kind in ("comment", "review") else None, body, actor_type=kind_of)
                  for kind, hour, (actor, assoc, kind_of), body in drawn)
    # A person other than the author who merges, closes or labels the PR shows write access: a maintainer.
    acting = {i.actor for i in items if i.kind in ("merged", "closed", "labeled") and i.actor not in ("outsider", "netlify")}
    every = [((i.created_at, i.node_id), Response("merge" if i.kind == "merged" else i.kind, i.actor, i.created_at)) for i in items
             if i.kind == "merged" or (i.kind in ("comment", "review") and i.actor in {"maint", "helper", *acting} and i.body != DEPLOY)]
    if the_pr.merged_at is not None and not any(i.kind == "merged" for i in items):
        every.append(((the_pr.merged_at, "\uffff"), Response("merge", "maint", the_pr.merged_at)))  # loses a tie: a fallback
    (v,) = judged(data(pulls=(the_pr,), items=items))
    assert v.response == min(every, key=lambda e: e[0], default=(None, None))[1]

