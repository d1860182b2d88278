"""SPEC section 5: an account that acts as a bot in one repository (a project's own CI, merge or
release bot under a member's user account, posting a day after each PR) answers nothing there and
is no maintainer by its acts; a person's canned reply, beside words of their own, stays an answer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from own_repo_world import BOT_PRS, answered, bot_world, corpus, maintainer_world

from helpers import T0, accounts, data, evaluated, item, pr

D = timedelta(days=1)
H = timedelta(hours=1)
CI = ("Build #{n} finished on the project's Jenkins: {n} tests passed, 0 failed. "
      "Logs: https://ci.widget.example.org/job/widget-pr/{n}/console")
PEOPLE = accounts(*((f"author{n}", T0 - 900 * D) for n in range(1, 30)))


def _prs(n: int) -> tuple:
    return tuple(pr(k, f"author{k}", created=T0 + k * 2 * D) for k in range(1, n + 1))


def test_a_members_ci_account_posting_a_day_later_answers_nothing_and_is_named_on_the_page() -> None:
    items = tuple(item("comment", T0 + k * 2 * D + D + k * H, "robert-k", "MEMBER", number=k, body=CI.format(n=1000 + k))
                  for k in range(1, 7))
    snapshot = evaluated(data(pulls=_prs(6), items=items), accts=PEOPLE)
    assert {v.outcome for v in snapshot.verdicts()} == {"unanswered"}
    assert "robert-k" not in snapshot.maintainers()  # a member by association, but the project's bot
    [own] = snapshot.result().evidence()["own_bots"]
    assert (own["login"], own["prs"], own["of_prs"]) == ("robert-k", 6, 6)
    assert own["quote"].startswith("Build #1001 finished on the project's Jenkins")


def test_a_persons_canned_reply_beside_their_own_words_answers() -> None:
    canned = "Thanks for the PR! We will merge it after about a day if nobody objects; see the merge process docs."
    own = ["Could you add a test for the empty case?", "This breaks on Windows paths, see the CI log.", "LGTM"]
    texts = [canned] * 5 + own
    items = tuple(item("comment", T0 + k * 2 * D + D, "maint", "MEMBER", number=k, body=t) for k, t in enumerate(texts, start=1))
    snapshot = evaluated(data(pulls=_prs(len(texts)), items=items), accts=PEOPLE)
    assert all(v.answered for v in snapshot.verdicts())
    assert "own_bots" not in snapshot.result().evidence()
    assert snapshot.maintainers()["maint"] == "association MEMBER"


def test_what_is_set_aside_anyway_does_not_make_a_person_a_bot() -> None:
    """A deploy preview an integration posts under a maintainer's login within minutes (a template of
    the snapshot) and an author's pings on their own PRs are not weighed."""
    preview = "Preview of this change is ready at https://pr-{n}.preview.widget.example.dev (built from {n}abcdef)."
    ping = "Friendly ping: could someone please take a look at this when there is time?"
    items = [item("comment", T0 + k * 2 * D + 2 * timedelta(minutes=1), "maint", "MEMBER", number=k, body=preview.format(n=k))
             for k in range(1, 7)]
    items.append(item("comment", T0 + 2 * D + D, "maint", "MEMBER", number=1, body="Looks good, one nit about the docs."))
    pulls = tuple(pr(k, "author1", created=T0 + k * 2 * D) for k in range(1, 7))  # one author, pinging on each
    items += [item("comment", T0 + k * 2 * D + 3 * D, "author1", number=k, body=ping) for k in range(1, 7)]
    snapshot = evaluated(data(pulls=pulls, items=tuple(items)), accts=PEOPLE)
    assert "own_bots" not in snapshot.result().evidence()
    assert [v.outcome for v in snapshot.verdicts()] == ["answered"] + ["unanswered"] * 5
    assert all(v.outside for v in snapshot.verdicts())  # the pinging author is still a person


@settings(max_examples=8, deadline=None)
@given(canned=st.integers(0, 12), own=st.integers(0, 4))
def test_nearly_all_one_text_is_a_bots_mark(canned: int, own: int) -> None:
    """An account is its repository's bot exactly when one text, on at least own_min_prs PRs, is at
    least behaviour_share of what it says there."""
    texts = [CI] * canned + [f"Reply {k}: the {w} handling looks wrong to me here." for k, w in zip(range(own), "abcd")]
    if not texts:
        return
    items = tuple(item("comment", T0 + k * 2 * D + D, "maint", "MEMBER", number=k, body=t.format(n=k))
                  for k, t in enumerate(texts, start=1))
    snapshot = evaluated(data(pulls=_prs(len(texts)), items=items), accts=PEOPLE)
    t = snapshot.settings.templates
    is_bot = canned >= t.own_min_prs and canned >= t.behaviour_share * (canned + own)
    assert ("own_bots" in snapshot.result().evidence()) == is_bot
    assert sum(v.answered for v in snapshot.verdicts()) == (0 if is_bot else own + canned)


@pytest.mark.parametrize("delay", [D, timedelta(minutes=1)], ids=["a day later", "a minute later"])
def test_real_user_account_bots_held_out_answer_nothing(delay: timedelta) -> None:
    """The held-out third of the labelled real bots (none on the packaged lists), each posting its
    real message as a member on the outside PRs of a repository of its own (`own_repo_world`)."""
    bots = bot_world(corpus("held_out"), delay)
    n_answered, n, _ = answered(bots)
    assert n == BOT_PRS * len(bots) and len(bots) >= 15
    assert n_answered <= 0.05 * n, f"{n_answered} of {n} PRs answered"


def test_real_maintainers_held_out_stay_people() -> None:
    people = maintainer_world(corpus("held_out"))
    n_answered, n, own = answered(people)
    assert len(people) >= 30
    assert own == set() and n_answered == n
