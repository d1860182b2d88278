"""PRs by bots under user accounts (SPEC section 3): known by their account or by what they write,
measured on the real PRs of tests/data/bot_prs.csv, and the rule of one description posted again
and again, on hand-built stores."""

from __future__ import annotations

import csv
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate import marks
from porchlamp.evaluate.marks import bot_pr_tool, mark_pr
from porchlamp.evaluate.rules import load_rules

from helpers import T0, accounts, data, evaluated, pr, repo

CORPUS = list(csv.DictReader((Path(__file__).parents[1] / "data" / "bot_prs.csv").open(encoding="utf-8")))
RULES = load_rules(Settings())


def _taken(row: dict[str, str]) -> bool:
    """Is this PR, judged on its own, set aside as a bot's: by its author's login, or by its text?"""
    repo = row["url"].split("github.com/", 1)[1].rsplit("/pull/", 1)[0]
    return Bots(RULES.bots, repo).reason(row["login"], "User") is not None or bot_pr_tool(row["title"], row["body"], RULES) is not None


def _rates(split: str) -> tuple[int, int, int, int]:
    rows = [r for r in CORPUS if r["split"] == split]
    bots = [r for r in rows if r["label"] == "bot"]
    people = [r for r in rows if r["label"] == "human"]
    return sum(map(_taken, bots)), len(bots), sum(map(_taken, people)), len(people)


def test_the_set_is_what_it_says() -> None:
    """At least 60 bot PRs from accounts on no packaged list and 60 people's PRs, a third held out."""
    unlisted = [r for r in CORPUS if r["label"] == "bot" and Bots(RULES.bots).reason(r["login"], "User") is None]
    assert len(unlisted) >= 60
    assert sum(r["label"] == "human" for r in CORPUS) >= 60
    held = [r for r in CORPUS if r["split"] == "held_out"]
    assert 0.25 < len(held) / len(CORPUS) < 0.42
    # A login's PRs are all on one side of the split.
    sides: dict[str, set[str]] = {}
    for r in CORPUS:
        sides.setdefault(r["login"].lower(), set()).add(r["split"])
    assert all(len(s) == 1 for s in sides.values())


@pytest.mark.parametrize("split", ["tune", "held_out"])
def test_bot_prs_are_set_aside_and_peoples_are_not(split: str) -> None:
    """The aims: 90% or more of the bots' PRs set aside, each judged on its own; 1% or fewer of people's."""
    bots, n_bots, people, n_people = _rates(split)
    print(f"\n{split}: bots' PRs set aside {bots} of {n_bots}, people's {people} of {n_people}")
    assert bots >= 0.9 * n_bots
    assert people <= 0.01 * n_people


def test_a_tool_is_named_by_its_template_not_by_a_mention() -> None:
    assert bot_pr_tool("Version Packages", "This PR was opened by the [Changesets release](https://github.com/changesets/action) "
                       "GitHub action. When you're ready to do a release, you can merge this.", RULES) == "Changesets"
    assert bot_pr_tool("Bump lodash from 4.17.19 to 4.17.21", "Bumps [lodash](https://github.com/lodash/lodash) from 4.17.19 to "
                       "4.17.21.\n- [Release notes](https://github.com/lodash/lodash/releases)", RULES) == "Dependabot"
    # People who write about the tools are not the tools.
    assert bot_pr_tool("Add Renovate", "This PR adds Renovate so that it opens PRs that contain the following updates.", RULES) is None
    assert bot_pr_tool("Bump lodash to 4.17.21", "Bumps lodash, as Dependabot suggested.", RULES) is None
    assert bot_pr_tool(None, None, RULES) is None


def test_a_prs_marks_fingerprint_its_description_as_a_comments() -> None:
    one = mark_pr("Sync 1.2", "Sync of the shared lint configuration, version 1.2, from the template repository.", RULES)
    two = mark_pr("Sync 1.3", "Sync of the shared lint configuration, version 1.3, from the template repository.", RULES)
    assert one.fp == two.fp and one.fp is not None and one.words >= 6 and one.bot_tool is None
    assert mark_pr("x", None, RULES).fp is None


# -- one description posted again and again, on hand-built stores ------------------------------------

D = timedelta(days=1)
SYNC = "Sync of the shared lint configuration, version {v}, from the organisation's template repository."
TEMPLATE = ("## What does this PR do?\n\n## Checklist\n\n- [ ] I have read the contributing guide\n- [ ] Tests pass locally\n"
            "- [ ] The changelog is updated")
PEOPLE = accounts(*((f"author{n}", T0 - 900 * D) for n in range(1, 12)), ("lint-sync-account", T0 - 900 * D))


def _by(author: str, number: int, body: str) -> Any:
    return pr(number, author, created=T0 + number * D, body=body)


def test_one_account_posting_one_description_on_three_prs_is_a_bot_for_them() -> None:
    pulls = tuple(_by("lint-sync-account", k, SYNC.format(v=f"2.{k}")) for k in range(1, 4))
    pulls += (_by("author1", 4, "Fix the off-by-one in the pager; adds a test for the last page."),)
    verdicts = {v.number: v for v in evaluated(data(pulls=pulls), accts=PEOPLE).verdicts()}
    assert [verdicts[k].excluded for k in (1, 2, 3)] == ["bot"] * 3
    assert verdicts[1].bot_reason == "it opened 3 PRs with one description"
    assert verdicts[4].excluded is None and verdicts[4].bot_reason is None


def test_two_prs_with_one_description_are_not_enough() -> None:
    pulls = tuple(_by("lint-sync-account", k, SYNC.format(v=f"2.{k}")) for k in range(1, 3))
    assert {v.excluded for v in evaluated(data(pulls=pulls), accts=PEOPLE).verdicts()} == {None}


def test_a_repositorys_template_filled_in_by_many_is_no_ones_mark() -> None:
    """Five people leave the PR template as it is, one of them on three PRs: a text many accounts
    post is the repository's, not one account's."""
    pulls = tuple(_by(f"author{k}", k, TEMPLATE) for k in range(1, 5))
    pulls += tuple(_by("author5", k, TEMPLATE) for k in range(5, 8))
    assert {v.excluded for v in evaluated(data(pulls=pulls), accts=PEOPLE).verdicts()} == {None}


def test_a_tools_template_gives_away_a_single_pr_under_a_persons_name() -> None:
    body = ("This PR contains the following updates:\n\n| Package | Change |\n|---|---|\n| lodash | `4.17.20` -> `4.17.21` |\n\n"
            "---\n\n### Configuration\n\n📅 **Schedule**: Branch creation - At any time.")
    pulls = (_by("author1", 1, body), _by("author2", 2, "Adds Renovate's config so that updates come as PRs."))
    verdicts = {v.number: v for v in evaluated(data(pulls=pulls), accts=PEOPLE).verdicts()}
    assert (verdicts[1].excluded, verdicts[1].bot_reason) == ("bot", "its title or description is Renovate's PR template")
    assert verdicts[2].excluded is None


# -- a tool's template learned from the PRs known bots open ----------------------------------------


def _as_app(row: dict[str, str]) -> str:
    """The App a tune row's tool runs as: the tool the packaged phrases name, else its own account's."""
    tool = bot_pr_tool(row["title"], row["body"], RULES)
    return f"{(tool or row['login']).lower().replace(' ', '-')}[bot]"


def _held_out_set_aside(apps: dict[str, str], tool_min_prs: int = 2) -> tuple[int, int, int, int]:
    """The real set as one snapshot: the tune third's tool PRs opened by their tools' Apps (a tool writes
    the same text under an App as under a user account), the tune people's PRs as theirs, and the
    held-out third's PRs under the accounts that opened them. A tool's fixed words need only 2 of its
    Apps' PRs here: the set holds 3 to 7 a tool, where a snapshot of thousands of repositories holds
    hundreds (`tool_min_prs` a million learns nothing). Returns the held-out bots' PRs set aside, of how many, and the same of people's."""
    by_repo: dict[str, list[Any]] = {}
    split: dict[tuple[str, int], str] = {}
    for k, row in enumerate(CORPUS):
        repo_name, number = row["url"].split("github.com/", 1)[1].rsplit("/pull/", 1)
        app = row["split"] == "tune" and row["label"] == "bot"
        by_repo.setdefault(repo_name, []).append(pr(
            int(number), apps[row["url"]] if app else row["login"], repo=repo_name, created=T0 + k * timedelta(minutes=7),
            body=row["body"], author_type="Bot" if app else "User")._replace(title=row["title"], node_id=f"PR_{k}"))
        split[(repo_name, int(number))] = f"{row['split']} {row['label']}"
    snapshot = evaluated(*(data(repo(name), pulls=tuple(pulls), commits=()) for name, pulls in by_repo.items()),
                         accts=accounts(), settings=Settings(templates={"tool_min_prs": tool_min_prs}))
    counts = Counter((split[(v.repo, v.number)], v.excluded == "bot") for v in snapshot.prs)
    return (counts[("held_out bot", True)], counts[("held_out bot", True)] + counts[("held_out bot", False)],
            counts[("held_out human", True)], counts[("held_out human", True)] + counts[("held_out human", False)])


def test_a_tools_template_learned_from_its_apps_prs_finds_it_under_user_accounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Held out, SPEC section 3: with the packaged phrases, and with only what the Apps' PRs teach, the
    tools' PRs under user accounts are set aside and no person's PR is."""
    apps = {row["url"]: _as_app(row) for row in CORPUS}
    both = _held_out_set_aside(apps)
    monkeypatch.setattr(marks, "_tool_of", lambda text, rules: None)  # the packaged phrases left out
    learned = _held_out_set_aside(apps)
    neither = _held_out_set_aside(apps, tool_min_prs=1_000_000)
    print(f"\nheld out: bots' PRs set aside {both[0]} of {both[1]} with the phrases and the learned templates; without "
          f"the phrases {learned[0]} with the learned templates, {neither[0]} without them; people's {both[2]}, "
          f"{learned[2]} and {neither[2]} of {both[3]}")
    assert both[:2] == (19, 20) and learned[:2] == (10, 20) and neither[:2] == (1, 20)
    assert both[2] == learned[2] == neither[2] == 0 and both[3] == 35
