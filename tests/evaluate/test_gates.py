import re
from dataclasses import replace
from datetime import timedelta

import pytest
from types import SimpleNamespace
from typing import Any

from helpers import AS_OF, NOW, T0, data, evaluated, human_commit, item, pr, repo

from porchlamp.config import Settings
from porchlamp.evaluate import gates as g
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.engine import window
from porchlamp.evaluate.facts import NO_PRS, Commits
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import Commit, CommunityFiles

S = Settings()
RULES = load_rules(S)
START, END = window(AS_OF, S)
D = timedelta(days=1)


@pytest.mark.parametrize(
    ("r", "passed", "kind"),
    [
        (repo("x/awesome-rust", languages=(), primary_language=None, topics=("awesome", "awesome-list"), description="A curated list of Rust things",
              root_files=("README.md",)), False, "awesome_list"),
        (repo("x/widget-docs", languages=(("HTML", 90_000), ("CSS", 9_000)), topics=("documentation",),
              root_files=("mkdocs.yml",)), False, "docs_only"),
        (repo("x/census-dataset", languages=(("Python", 4_000),), disk_usage_kb=2_000_000, topics=("dataset",),
              root_files=("data", "README.md")), False, "data_dump"),
        (repo("x/notes", languages=(), primary_language=None, topics=(), root_files=("README.md",), disk_usage_kb=300), False, "docs_only"),
        (repo("x/empty", languages=(), topics=(), root_files=(), disk_usage_kb=0, primary_language=None), False, "empty"),
        (repo("x/awesome-cli", languages=(("TypeScript", 800_000),), topics=("awesome",), root_files=("package.json",)), True, None),
        (repo("x/tiny-lib", languages=(("Python", 900),), disk_usage_kb=9_000, topics=(), root_files=("pyproject.toml",)), True, None),
        # No breakdown by bytes (a backup's repository), only the primary language: Linguist's type of it decides.
        (repo("x/bips", languages=(), primary_language="Wikitext", topics=(), root_files=(), disk_usage_kb=22_000), False, "docs_only"),
        (repo("x/lib", languages=(), primary_language="C", topics=(), root_files=(), disk_usage_kb=22_000), True, None),
        (repo("x/geo", languages=(), primary_language="CSV", topics=(), root_files=(), disk_usage_kb=22_000), False, "data_dump"),
        # Linguist's types, not a hand-kept list: Wikitext and Org are prose, so not code.
        (repo("x/wiki", languages=(("Wikitext", 900_000), ("Org", 5_000)), disk_usage_kb=2_000, topics=(), root_files=("README.md",)),
         False, "docs_only"),
    ],
)
def test_software(r, passed: bool, kind: str | None) -> None:  # type: ignore[no-untyped-def]
    res = g.gate_software(r, RULES)
    assert (res.passed, res.kind) == (passed, kind)
    assert res.reason and "code_bytes" in res.evidence
    if not passed:
        assert res.status == "not_software"


@pytest.mark.parametrize(
    ("kw", "passed", "kind", "note"),
    [
        ({"is_archived": True}, False, "archived", None),
        ({"is_mirror": True}, False, "mirror", None),
        ({"is_fork": True, "parent": "up/stream", "parent_stars": 9000, "stars": 100}, False, "fork", None),
        ({"is_fork": True, "parent": "up/stream", "parent_stars": 90, "stars": 100}, True, None, "outstars"),
        ({"is_fork": True, "parent": None, "stars": 5}, True, None, "parent_gone"),
        ({"is_fork": True, "parent": "up/stream", "parent_stars": 9000, "parent_archived": True}, True, None, "parent_archived"),
        ({}, True, None, None),
    ],
)
def test_real_project(kw: dict, passed: bool, kind: str | None, note: str | None) -> None:  # type: ignore[type-arg]
    res = g.gate_real_project(repo(**kw))
    assert (res.passed, res.kind, res.evidence.get("fork_note")) == (passed, kind, note)


@pytest.mark.parametrize(
    ("spdx", "passed", "kind"),
    [(None, False, "no_license"), ("NOASSERTION", False, "noassertion"), ("CC-BY-NC-4.0", False, "non_osi"),
     ("BUSL-1.1", False, "non_osi"), ("LicenseRef-custom", False, "non_osi"), ("MIT", True, None),
     ("GPL-3.0", True, None), ("Apache-2.0", True, None)],
)
def test_license(spdx: str | None, passed: bool, kind: str | None) -> None:
    res = g.gate_license(repo(license_spdx=spdx))
    assert (res.passed, res.kind) == (passed, kind)


def test_activity() -> None:
    bots = (Commit("a/b", "1" * 40, NOW - 5 * D, "dependabot", "dependabot[bot]", "Bot", "Bump"),
            Commit("a/b", "2" * 40, NOW - 6 * D, None, "github-actions[bot]", None, "chore"))
    old = Commit("a/b", "3" * 40, START - 10 * D, "maint", "Maint", "User", "Fix")

    def activity(commits: tuple[Commit, ...]) -> Any:
        return _gate(data(r=repo("a/b"), commits=commits), "activity", "a/b")

    assert activity(bots + (old,)).kind == "bot_commits_only"
    assert activity((old,)).kind == "no_commits"
    unlinked = Commit("a/b", "4" * 40, NOW - 9 * D, None, "Jane Doe", None, "Fix")  # a person without a linked account
    res = activity(bots + (unlinked,))
    assert res.passed and res.evidence["human_commits_read"] == 1


def test_commit_sample_is_what_the_collector_reads() -> None:
    """The newest commits of the window, and past a run of bots down to the first person: the same
    whether the store holds the whole history or only what the collector fetched."""
    b = Bots(RULES.bots)
    botty = tuple(Commit("a/b", f"{i:040x}", NOW - i * D, "dependabot", "dependabot[bot]", "Bot", "Bump") for i in range(1, 41))
    person = Commit("a/b", "f" * 40, NOW - 50 * D, "maint", "Maint", "User", "Fix")
    older = Commit("a/b", "e" * 40, NOW - 60 * D, "maint", "Maint", "User", "Fix")
    sample = g.commit_sample(botty + (person, older), b, START, END, 30)
    assert len(sample) == 41 and sample[-1] == person
    assert g.commit_sample(botty[:5] + (person, older), b, START, END, 30)[-1] == older
    # Evaluation reads the same sample from the store (`sql/09_commits.sql`).
    for commits, n in ((botty + (person, older), 41), (botty[:5] + (person, older), 7)):
        assert _gate(data(r=repo("a/b"), commits=commits), "activity", "a/b").evidence["commits_read"] == n


def _gate(d, gate: str, name: str = "acme/widget") -> Any:  # type: ignore[no-untyped-def]
    """One gate's result on a hand-built repository evaluated alone (the gates before it must pass)."""
    r = evaluated(d).result(name)
    ev = r.evidence()[gate]
    return SimpleNamespace(passed=ev["passed"], status=None if ev["passed"] else r.status, kind=None if ev["passed"] else r.kind,
                           reason=ev["reason"], evidence=ev)


def _verdicts(n: int, unanswered: int, silent: int = 0):  # type: ignore[no-untyped-def]
    pulls, items = [], []
    for i in range(1, n + 1):
        pulls.append(pr(i, created=T0 + i * timedelta(hours=2)))
        if i <= unanswered:
            continue
        if i <= unanswered + silent:
            items.append(item("closed", T0 + 2 * D, "maint", number=i))
        else:
            items.append(item("comment", T0 + 2 * D, "maint", "MEMBER", number=i))
    d = data(pulls=tuple(pulls), items=tuple(items))
    return d, evaluated(d).figures.get("acme/widget", NO_PRS)


def test_black_hole_needs_clear_evidence() -> None:
    _, v = _verdicts(10, 9)
    res = g.gate_black_hole(v, S)
    assert (res.passed, res.status) == (False, "black_hole")
    assert res.evidence["wilson_low"] > 0.5 and (res.evidence["outside_prs"], res.evidence["unanswered"]) == (10, 9)
    assert res.evidence["prs"] == g.PRS_BEHIND  # listed once, in the PR results
    _, v = _verdicts(20, 12)  # 60% unanswered, but the interval reaches below one half
    res = g.gate_black_hole(v, S)
    assert res.passed and res.evidence["borderline"] and "borderline" in res.reason
    _, v = _verdicts(9, 9)  # too few to judge
    assert g.gate_black_hole(v, S).passed and not g.gate_black_hole(v, S).evidence["judged"]
    _, v = _verdicts(12, 2, silent=8)  # silent closes are decisions, not silence
    res = g.gate_black_hole(v, S)
    assert res.passed and res.evidence["closed_silently"] == 8


def _off(d):  # type: ignore[no-untyped-def]
    """The gate on `d`'s PRs judged from its own rows (each PR's redirect is found as it is judged)."""
    return _gate(d, "off_github")


def test_off_github_gerrit_bridge() -> None:
    d, _ = _verdicts(10, 10)
    bridged = tuple(item("comment", T0 + D, "gerritbot", "NONE", number=i,
                         body="This PR has been imported to Gerrit for code review. Please visit https://go-review.googlesource.com/c/widget/+/1 to see it.")
                    for i in range(1, 11))
    d = replace(d, timeline={i: (bridged[i - 1],) for i in range(1, 11)})
    res = _off(d)
    assert (res.passed, res.status, res.kind) == (False, "undecided", "gerrit")
    assert res.evidence["review_happens"] == "https://go-review.googlesource.com/c/widget/+/1"
    assert res.evidence["quotes"][0]["source"] == "#1, #2, #3, #4, #5 and 5 more PRs, gerritbot (a bot)"


def test_off_github_template_and_trailers() -> None:
    d, _ = _verdicts(10, 10)
    locked = replace(d, community=CommunityFiles("acme/widget", pr_template="We do not accept pull requests here."))
    assert _off(locked).kind == "repo_lockdown"
    trail = tuple(Commit("acme/widget", f"{i:040x}", NOW - i * D, "dev", "Dev", "User",
                         f"Fix\n\nChange-Id: I{i:040x}\nReviewed-on: https://review.example/{i}") for i in range(1, 8))
    assert _off(replace(d, commits=trail)).kind == "gerrit"
    one = replace(d, timeline={1: (item("comment", T0 + D, "gerritbot", body="imported to Gerrit", number=1),)})
    assert _off(one).passed  # one stray bridge comment is not a verdict
    assert _off(replace(d, commits=(human_commit(),))).passed


MIRROR = "This is only a mirror: pull requests are not accepted here."


def test_a_bystander_redirects_only_where_no_maintainer_acts() -> None:
    """SPEC §6: in a mirror nobody from the project watches, a passer-by's "only a mirror" counts."""
    pulls = tuple(pr(i, created=T0 + i * timedelta(hours=2)) for i in range(1, 5))
    said = tuple(item("comment", T0 + D, "passerby", "NONE", body=MIRROR, number=i) for i in range(1, 5))
    res = _off(data(pulls=pulls, items=said))
    assert (res.passed, res.kind) == (False, "repo_lockdown")
    assert res.evidence["quotes"][0]["source"].endswith("passerby (a bystander: no maintainer acts on outside PRs here)")
    # A maintainer answering another outside PR shows the project watches: the bystander is only a bystander.
    watched = data(pulls=(*pulls, pr(5, author="other", created=T0)),
                   items=(*said, item("comment", T0 + D, "maint", "MEMBER", body="Thanks, merging soon.", number=5)))
    assert _off(watched).passed


def test_a_maintainers_later_welcome_withdraws_the_redirect() -> None:
    pulls = tuple(pr(i, created=T0 + i * timedelta(hours=2)) for i in range(1, 5))
    redirect = tuple(item("comment", T0 + D, "maint", "MEMBER", body="Please send this to the list instead: dev@lists.acme.org",
                          number=i) for i in range(1, 5))
    assert not _off(data(pulls=pulls, items=redirect)).passed
    # In words of their own each time: the same text on every PR would make the account a bot (SPEC §5).
    said = ("Actually, PRs here are fine; I'll review it this week.", "On second thought PRs here are fine, thanks.",
            "PRs here are fine too, looking at this now.", "We've decided to take github pull requests too; reviewing.")
    welcome = tuple(item("comment", T0 + 2 * D, "maint", "MEMBER", body=said[i - 1], number=i) for i in range(1, 5))
    res = _off(data(pulls=pulls, items=(*redirect, *welcome)))
    assert res.passed and res.evidence["prs_pointed_elsewhere"] == 0


def test_one_redirected_pr_is_enough_and_the_description_decides_too() -> None:
    """Undecided however few PRs it has; a mirror's label says where, with the link."""
    one = data(pulls=(pr(1),), items=(item("comment", T0 + D, "maint", "MEMBER", body="We don't take PRs via GitHub, "
                                                                                          "please use https://review.acme.org.", number=1),))
    r = evaluated(one).result()
    assert (r.status, r.kind) == ("undecided", "gerrit")
    labelled = data(r=repo(description="Read-only mirror of https://gitlab.com/acme/widget"), pulls=(pr(1),))
    r = evaluated(labelled).result()
    assert (r.status, r.kind, r.row["review_happens"]) == ("undecided", "gitlab", "https://gitlab.com/acme/widget")
    assert r.evidence()["off_github"]["quotes"] == [{"source": "description", "text": "Read-only mirror of https://gitlab.com/acme/widget"}]
    plain = data(r=repo(description="A widget library"), pulls=(pr(1),))
    assert evaluated(plain).result().status == "unrated"


@pytest.mark.parametrize("read, people, pushed", [(0, 0, None), (0, 0, T0), (12, 0, None), (1, 0, T0)])
def test_a_stale_reason_says_what_was_measured(read: int, people: int, pushed: Any) -> None:
    """Stale names the default branch and the days measured; with no commit at all, the last push
    GitHub records (commits before the window are not collected), never a blank."""
    sample = Commits(read, people, None, None, None, None, 0)
    gr = g.gate_activity(sample, 183, pushed)
    assert not gr.passed and gr.status == "stale"
    assert "default branch" in gr.reason and "183 days measured" in gr.reason
    if read:
        assert gr.kind == "bot_commits_only" and f"({read} bot commit" in gr.reason
    else:
        assert gr.kind == "no_commits"
        assert (f"was on {T0:%Y-%m-%d}" in gr.reason) == (pushed is not None)


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_every_count_in_a_reason_agrees_with_its_noun(n: int) -> None:
    """Reasons built from parts read as sentences at 0, 1 and many: never "1 outside PRs"."""
    _, v = _verdicts(n, n // 2)
    reasons = [g.gate_black_hole(v, S).reason, g.gate_activity(Commits(n, 0, None, None, None, None, 0), 183).reason]
    d = data(pulls=tuple(pr(i) for i in range(1, n + 1)))
    reasons.append(evaluated(d).result().reason)
    assert reasons[-1].startswith("unrated:") == (n < 3)
    if n:  # each PR pointed to Gerrit: an undecided reason counts them
        told = tuple(item("comment", T0 + D, "maint", "MEMBER", body="We don't take PRs via GitHub, please use https://review.acme.org.",
                          number=i) for i in range(1, n + 1))
        reasons.append(evaluated(data(pulls=d.pulls, items=told)).result().reason)
        assert f"{n} of {n} outside PR{'' if n == 1 else 's'} {'was' if n == 1 else 'were'} pointed there" in reasons[-1]
    for text in reasons:
        assert not re.search(r"\b1 (judgeable )?(outside )?PRs\b|\b1 bot commits\b|\b1 of \d+ [^;]*? were\b", text), text
    assert reasons[0].startswith(f"few PRs: {n} outside PR{'' if n == 1 else 's'},")


def test_a_gitlab_projects_reasons_speak_of_merge_requests() -> None:
    """SPEC section 13: a project on GitLab is judged by the same gates, and its reasons name what
    GitLab calls a change ("MR", "!12"); a GitHub project's say "PR" as before."""
    _, v = _verdicts(10, 1)
    assert g.gate_black_hole(v, S, "MR").reason.startswith("answers outside MRs: ")
    assert g.gate_black_hole(v, S).reason.startswith("answers outside PRs: ")
    _, few = _verdicts(4, 0)
    assert g.gate_black_hole(few, S, "MR").reason == "few MRs: 4 outside MRs, fewer than the 10 a black-hole verdict needs, so any score rests on few"
    docs = [("mailing_list", "contributing", "We take patches on dev@lists.widget.example.org, not merge requests.")]
    sample = Commits(0, 0, None, None, None, None, 0)
    on_gitlab = g.gate_off_github(docs, 0, [], sample, repo("gitlab.com/acme/widget", forge="gitlab"))
    assert on_gitlab.status == "undecided" and on_gitlab.reason.endswith("so its GitLab MRs are not judged")
    assert g.gate_off_github(docs, 0, [], sample, repo()).reason.endswith("so its GitHub PRs are not judged")
    assert g._numbers(list(range(1, 8)), "!", "MR") == "!1, !2, !3, !4, !5 and 2 more MRs"
