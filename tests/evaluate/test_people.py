from datetime import datetime, timedelta

import pytest
from helpers import NOW, T0, data, item, pr

from porchlamp.config import Settings, settings_from_dict
from porchlamp.evaluate.people import bot_reason, find_maintainers, is_bot_text, is_brand_new, normalise_login
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import CommunityFiles

RULES = load_rules(Settings())
START = NOW - timedelta(days=183)


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
        ("deploy-robot", "User", "pattern *-robot"),
        ("bot-helper", "User", "pattern bot-*"),
    ],
)
def test_bots_in_order(login: str, type_: str | None, why: str) -> None:
    reason = bot_reason(login, type_, RULES)
    assert reason is not None and why.split()[-1] in reason


@pytest.mark.parametrize("login", ["talbot", "abbott", "robotics-fan", "cilantro", "octocat", None])
def test_humans_are_not_bots(login: str | None) -> None:
    assert bot_reason(login, "User", RULES) is None


def test_configuration_adds_bots() -> None:
    rules = load_rules(settings_from_dict({"bots": {"extra_logins": ["acme-butler"], "extra_patterns": ["*-butler2"]}}))
    assert "added in porchlamp.toml" in (bot_reason("Acme-Butler", "User", rules) or "")
    assert bot_reason("x-butler2", "User", rules) is not None
    assert bot_reason("acme-butler", "User", RULES) is None


def test_normalise_login() -> None:
    assert normalise_login("Dependabot[bot]") == normalise_login("app/dependabot") == normalise_login("dependabot") == "dependabot"


def test_bot_text_under_a_persons_account() -> None:
    assert is_bot_text("Deploy Preview for widget ready! Built with commit abc", RULES)
    assert is_bot_text("Thank you for your submission! We really appreciate it. Like many open source projects, we ask "
                       "that you sign our Contributor License Agreement before we can accept your contribution.", RULES)
    assert not is_bot_text("Thanks, looks good to me.", RULES)


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
    m = find_maintainers(d, START, NOW, RULES)
    assert m.reasons == {
        "alice": "association OWNER",
        "private-member": "merged a PR",
        "closer": "closed someone else's PR",
        "triager": "labelled a PR",
        "codeowner-only": "named in CODEOWNERS",
    }
    assert "Alice" in m and "outsider" not in m and "old-timer" not in m
    assert m.active() == 4


def test_brand_new_accounts() -> None:
    assert is_brand_new(T0 - timedelta(days=29, hours=23), T0, 30)
    assert not is_brand_new(T0 - timedelta(days=30), T0, 30)
    assert not is_brand_new(None, T0, 30)
    assert not is_brand_new(datetime(2010, 1, 1), T0, 30)
