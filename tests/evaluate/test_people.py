from datetime import datetime, timedelta

import pytest
from helpers import NOW, T0, accounts, data, item, judged, maintainers, pr

from porchlamp.config import Settings, settings_from_dict
from porchlamp.evaluate.bots import Bots, normalise_login
from porchlamp.evaluate.marks import mark_text
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import Commit, CommunityFiles

RULES = load_rules(Settings())
START = NOW - timedelta(days=183)


def bot_reason(login: str | None, type_: str | None, rules=RULES, repo: str | None = None) -> str | None:  # type: ignore[no-untyped-def]
    return Bots(rules.bots, repo).reason(login, type_)


@pytest.mark.parametrize(
    ("login", "type_", "why"),
    [
        ("dependabot", "Bot", "type Bot"),
        ("dependabot[bot]", "User", "[bot]"),
        ("app/renovate", None, "app/"),
        ("k8s-ci-robot", "User", "known-bots list"),
        ("K8s-CI-Robot", "User", "known-bots list"),
        ("CLAassistant", "User", "known-bots list"),
        ("acme-release-bot", "User", "pattern *-bot"),
        ("nightly-ci", "User", "pattern *-ci"),
        ("nightly-deploy-robot", "User", "pattern *-*-robot"),
        ("bot-helper", "User", "pattern bot-*"),
        ("bors", "User", "known-bots list"),  # rust-lang's merge bot: a plain user account
        ("miss-islington", "User", "known-bots list"),
        ("blueztestbot", "User", "known-bots list"),
        ("acmetestbot", "User", "word for automation"),
        ("gh-bot", "User", "pattern *-bot"),
    ],
)
def test_bots_in_order(login: str, type_: str | None, why: str) -> None:
    reason = bot_reason(login, type_, RULES)
    assert reason is not None and why.split()[-1] in reason


@pytest.mark.parametrize("login", ["talbot", "abbott", "robotics-fan", "cilantro", "octocat", None, "sturdy-robot", "jasoncabot",
                                   "sighrobot", "brian-bot", "llvm-beanz"])
def test_humans_are_not_bots(login: str | None) -> None:
    # brian-bot looks like a bot and is labelled a person (allow-list); llvm-beanz is called a bot by one
    # data set and a person by another, and is kept a person.
    assert bot_reason(login, "User", RULES) is None


def test_the_projects_own_bot() -> None:
    assert "project's name" in (bot_reason("zulipdevbot", "User", repo="zulip/zulip") or "")
    assert "project's name" in (bot_reason("widgetci", "User", repo="acme/widget") or "")
    assert bot_reason("zulipdevbot", "User", repo="acme/widget") is None  # elsewhere it is just a name
    assert bot_reason("acme", "User", repo="acme/widget") is None  # the owner itself is a person


def test_labelled_accounts_recall_and_false_positives() -> None:
    """Measured on accounts labelled by research data sets (tests/data/labelled_accounts.csv,
    sources in data/bots.toml); docs/DECISIONS.md records these figures."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("recall", Path(__file__).parents[2] / "bench" / "bots" / "recall.py")
    recall = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(recall)  # type: ignore[union-attr]
    deployed = recall.measure()
    assert deployed["user_bots"] >= 1200 and deployed["people"] >= 1100
    assert deployed["recall"] >= 0.95 and deployed["false_positive_rate"] <= 0.01
    held = recall.measure("bimbas-test")  # nothing learnt from these accounts
    assert held["user_bots"] == 308 and held["people"] == 446
    assert held["recall"] >= 0.70 and held["false_positive_rate"] <= 0.01


def test_behaviour_makes_a_bot() -> None:
    b = Bots(RULES.bots, "acme/widget", {"welcome-squad": "acts as a bot: 40 of its 40 comments are templates"})
    assert (b.reason("Welcome-Squad", "User") or "").startswith("acts as a bot")


def test_configuration_adds_bots() -> None:
    rules = load_rules(settings_from_dict({"bots": {"extra_logins": ["acme-valet"], "extra_patterns": ["*-valet2"]}}))
    assert "added in porchlamp.toml" in (bot_reason("Acme-Valet", "User", rules) or "")
    assert bot_reason("x-valet2", "User", rules) is not None
    assert bot_reason("acme-valet", "User", RULES) is None


def test_normalise_login() -> None:
    assert normalise_login("Dependabot[bot]") == normalise_login("app/dependabot") == normalise_login("dependabot") == "dependabot"


def test_bot_text_under_a_persons_account() -> None:
    def curated(text: str) -> bool:
        return mark_text(text, RULES).curated

    assert curated("Deploy Preview for widget ready! Built with commit abc")
    assert curated("Thank you for your submission! We really appreciate it. Like many open source projects, we ask "
                   "that you sign our Contributor License Agreement before we can accept your contribution.")
    assert not curated("Thanks, looks good to me.")


def test_maintainers_from_association_actions_and_codeowners() -> None:
    d = data(
        pulls=(pr(1, "alice", "OWNER"), pr(2, "outsider"), pr(3, "other"), pr(4, "late")),
        items=(
            item("merged", T0 + timedelta(days=1), "private-member", number=2),  # CONTRIBUTOR who merges
            item("closed", T0 + timedelta(days=1), "closer", number=3),  # closed someone else's PR
            item("closed", T0 + timedelta(days=1), "outsider", number=2),  # closing one's own does not count
            item("labeled", T0 + timedelta(days=2), "triager", number=2),
            item("merged", T0, "github-merge-queue", number=3, actor_type="Bot"),  # bots are never maintainers
            item("merged", START - timedelta(days=3), "old-timer", number=4),  # outside the window
        ),
        community=CommunityFiles("acme/widget", codeowners=("Codeowner-Only",)),
    )
    m = maintainers(d)
    assert m == {
        "alice": "association OWNER",
        "private-member": "merged a PR",
        "closer": "closed someone else's PR",
        "triager": "labelled a PR",
        "codeowner-only": "named in CODEOWNERS",
    }
    assert "Alice".lower() in m and "outsider" not in m and "old-timer" not in m
    assert sum(1 for why in m.values() if why != "named in CODEOWNERS") == 4


def test_brand_new_accounts() -> None:
    d = data(pulls=(pr(1, "young"), pr(2, "thirty"), pr(3, "unknown"), pr(4, "old")))
    people = accounts(("young", T0 - timedelta(days=29, hours=23)), ("thirty", T0 - timedelta(days=30)), ("unknown", None),
                      ("old", datetime(2010, 1, 1)))
    assert [v.excluded for v in judged(d, people)] == ["brand_new_account", None, None, None]


def test_an_authors_own_actions_make_no_maintainer() -> None:
    """GitHub files CODEOWNERS' automatic review requests, and a re-request of review, under the
    PR's author: an outsider doing so is not a maintainer (seen on repositories with CODEOWNERS)."""
    d = data(
        pulls=(pr(1, "outsider"), pr(2, "other")),
        items=(
            item("review_requested", T0 + timedelta(minutes=1), "outsider", number=1),  # CODEOWNERS auto-request
            item("review_requested", T0 + timedelta(days=2), "outsider", number=1),  # re-request
            item("labeled", T0 + timedelta(days=1), "other", number=2),  # a label bot under the author's token
            item("review_requested", T0 + timedelta(days=1), "triager", number=2),  # someone else's PR: counts
        ),
    )
    assert maintainers(d) == {"triager": "requested reviewers"}


def test_a_merge_bot_under_a_user_account_is_no_maintainer() -> None:
    d = data(pulls=(pr(1, "outsider", state="MERGED"),),
             items=(item("comment", T0 + timedelta(days=1), "bors", "NONE", body="Test successful", number=1),
                    item("merged", T0 + timedelta(days=1), "bors", number=1)))
    assert "bors" not in maintainers(d)


def test_first_contributions_from_history() -> None:
    """A PR's author is a first-timer until their first merged PR or commit, as the history shows."""
    d = data(pulls=(pr(1, "newcomer", "CONTRIBUTOR", merged_at=T0 + timedelta(days=2)), pr(2, "newcomer", created=T0 + timedelta(days=9)),
                    pr(3, "veteran", created=T0 + timedelta(days=10))),
             commits=(Commit("acme/widget", "a" * 40, T0 - timedelta(days=400), "veteran", "Veteran", "User", "Old fix"),))
    people = accounts(("newcomer", T0 - timedelta(days=900)), ("veteran", T0 - timedelta(days=900)))
    assert [v.first_timer for v in judged(d, people)] == [True, False, False]
