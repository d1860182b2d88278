"""The redirect reader (SPEC section 6): the wording kinds it must read, the near misses it must
leave, and its figures on the real comments of tests/data/redirect_comments.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porchlamp.evaluate.redirect import VENUES, read, read_description, recognise

CORPUS = list(csv.DictReader((Path(__file__).parents[1] / "data" / "redirect_comments.csv").open(encoding="utf-8")))


@pytest.mark.parametrize(("text", "venue"), [
    # a mirror, in other words
    ("This is just a mirror.", "other"),
    ("FYI this repository is only a read-only mirror of our SVN tree.", "other"),
    ("The GitHub copy is a downstream, unofficial mirror; nobody reviews anything here.", "other"),
    # PRs refused here
    ("We don't take PRs via GitHub, sorry.", "other"),
    ("We do not process pull requests against our mirror.", "other"),
    ("Pull requests are ignored in this repository.", "other"),
    ("Pull requests are disabled for this project, but GitHub won't let us hide the button.", "other"),
    ("GitHub does not figure in our process at all.", "other"),
    # where to go
    ("Development happens on https://codeberg.org/acme/widget, not on GitHub.", "forgejo"),
    ("Please create a JIRA ticket at https://issues.apache.org/jira/browse/WIDGET and attach the patch there.", "jira"),
    ("Please file a bug on https://bugs.acme.org and attach your patch.", "bugzilla"),
    ("Please open a merge request on https://gitlab.com/acme/widget instead.", "gitlab"),
    ("Please push your change to https://review.opendev.org for review.", "gerrit"),
    ("Please send your patch to ~acme/widget-devel@lists.sr.ht with git send-email.", "sourcehut"),
    ("Thanks, but please send the patch to the bug-widget list on Savannah.", "savannah"),
    ("Please open a ticket on our Trac at https://trac.acme.org/newticket with the patch.", "trac"),
    ("Please upload your change to our code review at https://cr.acme.org instead of opening a PR here.", "gerrit"),
    ("Patches should be sent to widget-devel@acme.org; we don't merge pull requests on GitHub.", "mailing_list"),
    ("This PR has been imported to Gerrit for code review. Please visit https://acme-review.googlesource.com/c/1 to see it.", "gerrit"),
    # directions joined by "and", uploads addressed to the reader, a maintainer's habit, a list host
    ("Please squash this into one commit and send it to the widget mailing list for review.", "mailing_list"),
    ("If you can't upload your change for review with Gerrit, ask on IRC.", "gerrit"),
    ("I usually review patches through bugzilla.", "bugzilla"),
    ("In the future please send patches to widget@vger.kernel.org for review.", "mailing_list"),
    ("You are welcome to open a PR, but they are used for discussion only. All patches must go to the widget-devel list.", "mailing_list"),
    ("Our maintainer does not pull from GitHub.", "other"),
    ("Development happens in a private tree, so a pull request opened here has nowhere to land.", "other"),
    # a suggestion that names where, a mirror nobody from the project runs, a refusal of GitHub itself,
    # a tracker written as one word, the project's own words quoted as such
    ("I'd strongly recommend that you upload this to our Gerrit at https://review.acme.org, more people read it.", "gerrit"),
    ("This mirror is not maintained by the acme developers; see their wiki on sending patches.", "other"),
    ("Our lead maintainer refuses to use GitHub.", "other"),
    ("For next time, please use the acme bugtracker at https://bugs.acme.org.", "bugzilla"),
    ("As the README says:\n\n> Pull requests are not accepted here, mail patches to widget-devel@acme.org.", "mailing_list"),
])
def test_each_wording_kind_is_read(text: str, venue: str) -> None:
    said = recognise(text)
    assert said is not None and said.venue == venue
    assert said.sentence in " ".join(text.replace("> ", "").split())  # it says which sentence says so


@pytest.mark.parametrize("text", [
    "This file is vendored from https://github.com/go-ini/ini; please fix it upstream there and we'll vendor it back.",
    "PRs here are fine, but you may also send a patch to the list if you prefer.",
    "Thanks, I'll have a look. No need to put this in Phabricator.",
    "We now take GitHub pull requests too, as well as patches on the mailing list.",
    "Join the announce mailing list to hear about releases.",
    "Please see CONTRIBUTING for the commit message format.",
    "We don't use Change-Id here, please drop the trailer.",
    "Could you rebase on main? The mailing list thread agreed on this approach.",
    "Is this repository a mirror? Do you accept pull requests here?",
    "I sent the patch to the mailing list as well.",
    "Merged, thanks! I forgot this repository is just a mirror, so I pushed it upstream by hand.",
    # a tracker beside the PR, another way too, a report, a merge method, a place turned down
    "Please create an issue in JIRA before opening a pull request, and put its key in the title.",
    "You can also send your change to the mailing list with git format-patch if you have no account.",
    "After review they send the patches to the list and the bot applies them.",
    "I don't merge via GitHub, I rebase locally and push, so this shows as closed.",
    "We use this PR to do the review rather than in bugzilla comments.",
    "It's not worth my time having to subscribe to a mailing list, send one patch and unsubscribe.",
    "In future all changes need to be made in the public repo only, not in the internal one at https://git.acme.com.",
    "Dear maintainer (although this repository is a mirror), would you like to test my merge request?",
    # one PR's fate, a tool that does not let one do something, another repository, a merge here after all
    "The import bot copied this PR into the internal tree but did not merge the PR.",
    "Their Gerrit doesn't allow you to browse a file and open a review request from it.",
    "Please resubmit the recipe to the right repository (acme-recipes) and/or its bug tracker.",
    "The official way is the bug tracker at https://bugs.acme.org, but I'll merge this one directly.",
    "> Pull requests are not accepted here.\n\nThat quote is from the old fork, this repository takes them.",
])
def test_near_misses_are_left(text: str) -> None:
    assert recognise(text) is None


def test_a_welcome_is_told_apart() -> None:
    assert read("PRs here are fine, but you may also send a patch to the list.").welcomes
    assert read("We've decided to take github pull requests too.").welcomes
    assert not read("Pull requests are not accepted here.").welcomes
    assert not read("Thanks!").welcomes
    assert not read("You are welcome to open a PR, but they are used for discussion only.").welcomes
    assert read("PRs here are fine, but just so you know, the list works too.").welcomes


def test_descriptions_and_homepages() -> None:
    mirror = read_description("Read-only mirror of https://gitlab.gnome.org/GNOME/glib", None)
    assert mirror is not None and (mirror.venue, mirror.link) == ("gitlab", "https://gitlab.gnome.org/GNOME/glib")
    labelled = read_description("[MIRROR] Official GitHub mirror of the QEMU project", "https://www.qemu.org")
    assert labelled is not None and labelled.link == "https://www.qemu.org"
    forge = read_description("A widget library", "https://codeberg.org/acme/widget")
    assert forge is not None and forge.venue == "forgejo"
    for desc, home in (("A fast mirror tool for apt repositories", None), ("A widget library", "https://acme.gitlab.io/widget"),
                       ("A widget library", "https://gitlab.com"), ("A widget library", "javascript:alert(1)"), (None, None)):
        assert read_description(desc, home) is None


def _rates(split: str) -> tuple[float, float, float]:
    rows = [r for r in CORPUS if split == "all" or r["split"] == split]
    red = [r for r in rows if r["label"] == "redirect"]
    near = [r for r in rows if r["label"] == "near_miss"]
    got = [recognise(r["text"]) for r in red]
    venues = [g.venue == (r["venue"] or "other") for g, r in zip(got, red) if g is not None]
    return (sum(g is not None for g in got) / len(red), sum(recognise(r["text"]) is not None for r in near) / len(near),
            sum(venues) / len(venues))


def test_the_corpus_is_what_the_decisions_say() -> None:
    """Real comments, each with its thread: at least 300 from 100 repositories, half each way."""
    assert len(CORPUS) >= 300 and len({"/".join(r["url"].split("/")[3:5]).lower() for r in CORPUS}) >= 100
    assert sum(r["label"] == "redirect" for r in CORPUS) >= 150 and sum(r["label"] == "near_miss" for r in CORPUS) >= 150
    assert all(r["url"].startswith("https://github.com/") and r["role"] and r["split"] in ("tune", "held_out") for r in CORPUS)
    assert {r["venue"] for r in CORPUS if r["label"] == "redirect"} <= {*VENUES, ""}
    assert sum(r["split"] == "held_out" for r in CORPUS) >= len(CORPUS) // 4


def test_figures_on_comments_it_was_not_built_from() -> None:
    """docs/DECISIONS.md: the held-out split, never tuned on, and the whole corpus. The aims for the
    held-out split are recall 90% and near misses taken 2%, both missed: these are the figures last
    measured (docs/DECISIONS.md), held as a floor so a change that loses ground fails."""
    recall, taken, venues = _rates("held_out")
    assert recall >= 70 / 85 and taken <= 8 / 109 and venues >= 0.9
    recall, taken, venues = _rates("all")
    assert recall >= 244 / 260 and taken <= 11 / 400 and venues >= 0.9


@given(st.text(max_size=400))
def test_any_text_reads_without_error_and_the_same_twice(text: str) -> None:
    first = read(text)
    assert first == read(text)
    if first.redirect is not None:
        assert first.redirect.venue in VENUES and not first.welcomes


@given(st.sampled_from([r["text"] for r in CORPUS]), st.sampled_from([
    "Thanks for the PR!", "Hi @octocat,", "Cheers.", "(This is an automated message.)", "Thank you for your interest."]))
def test_pleasantries_change_nothing(text: str, pleasantry: str) -> None:
    """A greeting before or after a comment changes neither a redirect nor a near miss."""
    said = recognise(text)
    for padded in (pleasantry + "\n\n" + text, text + "\n\n" + pleasantry):
        again = recognise(padded)
        assert (again is None) == (said is None) and (again is None or again.venue == said.venue)
