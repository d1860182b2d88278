"""Plain words for everything the site shows: statuses, the kinds within them, tiers, components
and each measured input, so no page says "noassertion" or "ci share: 1.00".

One place, so the rankings, project pages, report, method and search all say the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from porchlamp.evaluate.redirect import VENUE_NAMES
from porchlamp.evaluate.relations import QUOTE_CHARS
from porchlamp import forges
from porchlamp.figures import count, duration, noun, points, score as score_text, share

STATUS_LABELS = {
    "ranked": "Ranked",
    "unrated": "Unrated: too little to score fairly",
    "undecided": "Undecided: reviews happen elsewhere (not where its code is hosted)",
    "black_hole": "Black hole: most outside PRs go unanswered",
    "stale": "Stale: no one has committed in six months",
    "no_license": "No open-source license",
    "not_real_project": "Not a live project (archived, a mirror or a fork)",
    "not_software": "Not software (a list, docs or data)",
}
SHORT_STATUS = {
    "ranked": "ranked", "unrated": "unrated", "undecided": "undecided", "black_hole": "black hole", "stale": "stale",
    "no_license": "no license", "not_real_project": "not a live project", "not_software": "not software",
}
# The checks in order, for the method page and the funnel (no numbers here: lists number themselves).
CHECKS = (
    ("not_software", "Is it software?"),
    ("not_real_project", "Is it still a live project (not archived, a mirror or a fork)?"),
    ("no_license", "Does it have an open-source license?"),
    ("stale", "Is anyone still committing to it?"),
    ("black_hole", "Does anyone answer outside pull requests?"),
)
KIND_LABELS = {
    ("not_software", "awesome_list"): "a curated list",
    ("not_software", "docs_only"): "documentation only",
    ("not_software", "data_dump"): "a data dump",
    ("not_software", "empty"): "an empty repository",
    ("not_real_project", "archived"): "archived",
    ("not_real_project", "mirror"): "a mirror of another repository",
    ("not_real_project", "fork"): "a fork of another project",
    ("no_license", "no_license"): "no license at all",
    ("no_license", "noassertion"): "a license GitHub cannot identify",
    ("no_license", "non_osi"): "a license that is not open source (not OSI-approved)",
    ("stale", "bot_commits_only"): "only bots committed",
    ("stale", "no_commits"): "no commits",
    ("black_hole", "clear"): "",
    **{("undecided", v): f"reviews on {name}" for v, name in VENUE_NAMES.items() if v != "other"},
    ("undecided", "repo_lockdown"): "takes no pull requests on GitHub",
    ("unrated", "too_few_prs"): "fewer outside PRs than a fair score needs",
    ("unrated", "low_coverage"): "too little of the profile could be measured",
    ("ranked", "responsive"): "",
    ("ranked", "borderline"): "borderline: many PRs go unanswered",
    ("ranked", "few_prs"): "ranked on few PRs",
}
TIER_WORDS = {
    "A": "A: a score of 80 or more",
    "B": "B: 65 to 80",
    "B (capped)": "B (capped): would be higher, but less than 80% of its data could be measured (not a bad grade)",
    "C": "C: 50 to 65",
    "D": "D: under 50",
}
COMPONENT_LABELS = {
    "responsiveness": "Answers outside PRs",
    "accessibility": "Welcomes newcomers",
    "governance": "Run in the open",
    "dependents": "Others depend on it",
    "review_ci": "Reviews and tests changes",
    "reach": "Widely known",
    "systems_fit": "Systems programming",
    "ai_readiness": "Ready for AI-assisted work",
}
COMPONENT_WORDS = {
    "responsiveness": "how many outside PRs get a human answer within 14 days, how fast, and how many are decided within 30",
    "accessibility": "open good first issues, and how first-time contributors fare",
    "governance": "contributing guide, code of conduct, security policy, governance, code owners; active maintainers; organisation",
    "dependents": "packages and repositories that depend on it",
    "review_ci": "merged PRs reviewed by someone else, and CI checks on recent merged PRs",
    "reach": "stars and forks",
    "systems_fit": "systems languages and topics, and review depth",
    "ai_readiness": "an AI contribution policy, CI, and how AI-assisted PRs fare",
}


def kind_label(status: str, kind: str | None, forge: str = "github") -> str:
    """What a status's kind means, in the words of the project's forge: "takes no merge requests on
    GitLab", "fewer outside MRs than a fair score needs"."""
    return forge_words(KIND_LABELS.get((status, kind or ""), (kind or "").replace("_", " ")), forge)


def status_words(status: str, kind: str | None, forge: str = "github") -> str:
    """A project's status in a few plain words: "Black hole", "No open-source license: a license GitHub cannot identify"."""
    label = kind_label(status, kind, forge)
    head = SHORT_STATUS.get(status, status.replace("_", " "))
    head = head[:1].upper() + head[1:]
    return f"{head}: {label}" if label else head


def forge_words(text: str, forge: str) -> str:
    """`text`, written of GitHub, in the words of `forge` (`forges.say`), an account of GitHub's Bot
    type said as the forge marks it."""
    if forge in ("github", "", None):
        return text
    return forges.say(BOT_TYPE_WORDS.get(forge, {}).get(text, text), forge)


# What stands for GitHub's Bot type on each forge (FORGES.md): GitLab flags bot users; Forgejo flags
# none but its own Actions account, which the collector gives that type.
BOT_TYPE_WORDS = {
    "gitlab": {"its account is of type Bot": "GitLab marks its account as a bot user"},
    "forgejo": {"its account is of type Bot": "it is Forgejo's own Actions account"},
}

_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TABLE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?")
_MARKS = re.compile(r"(?:^|(?<=\s))#{1,6}\s+|\*\*|__|`+|<[^<>]{1,80}>")


def quote_text(text: str | None, limit: int = QUOTE_CHARS) -> str:
    """A PR description quoted as a reader would read it: HTML comments, Markdown links, table rules
    and emphasis marks taken out, cells joined, and, where the stored quote was cut (it fills
    `limit`) or this cuts it, ended at a whole word with "…"."""
    if not text:
        return ""
    cut = len(text) >= limit
    said = _COMMENT.sub(" ", text)
    said = _MD_LINK.sub(lambda m: m.group(1), said)
    said = _TABLE.sub(" ", said)
    said = _MARKS.sub(" ", said).replace("|", " ")
    said = re.sub(r"\s+", " ", said).strip()
    if len(said) > 240:
        said, cut = said[:240], True
    if cut:
        said = (said.rsplit(" ", 1)[0].rstrip(" ,;:-") if " " in said else said) + "…"
    return said


def _yes(b: Any) -> str:
    return "yes" if b else "no"


def input_lines(component: str, inputs: Mapping[str, Any]) -> list[str]:
    """What a component measured, as sentences: "9 in 10 answered within 3.2 days"."""
    i = dict(inputs)
    out: list[str] = []
    if component == "responsiveness":
        if "outside_prs" in i:
            out.append(f"{count(i['outside_prs'], 'outside PR')} judged")
        if "answered_share" in i:
            out.append(f"{share(i['answered_share'])} answered within 14 days")
        if "outside_prs" in i and i.get("outside_prs"):
            med, p90 = i.get("median_hours_to_first_response"), i.get("p90_hours_to_first_response")
            out.append(f"half answered within {duration(med)}" if med is not None else "fewer than half answered in time, so no typical wait")
            out.append(f"9 in 10 answered within {duration(p90)}" if p90 is not None else "fewer than 9 in 10 answered in time")
        if "decided_share" in i:
            out.append(f"{share(i['decided_share'])} merged or closed within 30 days")
    elif component == "accessibility":
        if "good_first_issues_open_unassigned" in i:
            out.append(count(i['good_first_issues_open_unassigned'], "open, unassigned good first issue"))
        if "first_timers" in i:
            out.append(f"{count(i['first_timers'], 'first-time contributor')} in the window")
        if i.get("first_timer_merged_share") is not None:
            out.append(f"{share(i['first_timer_merged_share'])} of their first PRs merged")
        if i.get("first_timers_came_back_share") is not None:
            out.append(f"{share(i['first_timers_came_back_share'])} came back with another PR")
    elif component == "governance":
        files = [name for key, name in (("contributing", "contributing guide"), ("code_of_conduct", "code of conduct"),
                                        ("security_policy", "security policy"), ("governance", "governance document"),
                                        ("codeowners", "code owners")) if i.get(key)]
        out.append("has " + (", ".join(files) if files else "none of the community files"))
        if "active_maintainers" in i:
            out.append(count(i['active_maintainers'], "active maintainer"))
        if "organisation_owned" in i:
            out.append("owned by an organisation" if i["organisation_owned"] else "owned by a person")
    elif component == "dependents":
        if i.get("package"):
            out.append(f"publishes {i['package']} on {i.get('ecosystem')}")
        if "dependent_packages" in i:
            out.append(f"{count(i['dependent_packages'], 'package')} and {count(i.get('dependent_repos') or 0, 'repository')} depend on it")
        elif "ecosystem" in i:
            out.append("no count of the projects that depend on it was available")
    elif component == "review_ci":
        if "merged_prs" in i:
            out.append(count(i['merged_prs'], "merged PR"))
        if i.get("reviewed_share") is not None:
            out.append(f"{share(i['reviewed_share'])} reviewed by someone else before merging")
        if "prs_checked_for_ci" in i:
            out.append(f"{count(i['prs_checked_for_ci'], 'recent merged PR')} checked for CI"
                       + (f": {share(i['ci_share'])} ran checks" if i.get("ci_share") is not None else ""))
    elif component == "reach":
        out.append(f"{count(i.get('stars', 0), 'star')}, {count(i.get('forks', 0), 'fork')}")
    elif component == "systems_fit":
        if "systems_language_share" in i:
            out.append(f"{share(i['systems_language_share'])} of its code in systems languages")
        if i.get("systems_topics"):
            out.append("topics: " + ", ".join(i["systems_topics"]))
        if i.get("reviews_per_merged_pr") is not None:
            out.append(f"{i['reviews_per_merged_pr']} {noun(i['reviews_per_merged_pr'], 'review')} per merged PR")
    elif component == "ai_readiness":
        out.append("AI policy: " + (", ".join(i["ai_policy_files"]) if i.get("ai_policy_files") else "none"))
        if i.get("ci_share") is not None:
            out.append(f"CI on {share(i['ci_share'])} of recent merged PRs")
        if "ai_assisted_prs" in i:
            out.append(count(i['ai_assisted_prs'], "AI-assisted outside PR")
                       + (f", {share(i['ai_assisted_answered_share'])} answered" if i.get("ai_assisted_answered_share") is not None else ""))
    return out


# Accounts that act for a maintainer, named as a contributor knows them: a PR GitHub's merge queue
# merges was queued by someone with write access ("Merging a pull request with a merge queue",
# docs.github.com: the queue's commits are made by github-merge-queue[bot]).
ACTING_FOR = {"github-merge-queue": "GitHub's merge queue, for a maintainer"}


def actor_words(login: str | None) -> str:
    """Who answered, as the evidence table names them: a login, or what an automation account does."""
    if not login:
        return ""
    return ACTING_FOR.get(login.removesuffix("[bot]"), login)


def delta_words(delta: int | None) -> str:
    if not delta:
        return "same place as in the default ranking"
    return f"{count(abs(delta), 'place')} {'higher' if delta > 0 else 'lower'} than in the default ranking"


# Characters XML 1.0 forbids (RFC 4287 feeds and SVG are XML): GitHub's text is untrusted.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """`text` without the characters an XML document may not hold (they would make it unreadable)."""
    return _NOT_XML.sub("", text)


def trend(points: int | None) -> str:
    """The ranking's 30-day mark: how the answered share moved since the earliest snapshot of the
    last 30 days, in points; a move under 5 points is "steady", none without an earlier snapshot."""
    if points is None:
        return "–"
    if abs(points) < 5:
        return "steady"
    return f"{'▲ up' if points > 0 else '▼ down'} {abs(points)}"


def goal_words(weights: Mapping[str, float], default: Mapping[str, float]) -> str:
    """What a goal asks for, read off its weights: the components it weighs more than the default."""
    more = sorted((c for c in weights if weights[c] > default.get(c, 0)), key=lambda c: default.get(c, 0) - weights[c])
    if not more:
        return "the same balance as the default"
    names = [f"“{COMPONENT_LABELS.get(c, c)}”" for c in more]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"counts {listed} for more"


def standing(score: float | None, median: float | None) -> str | None:
    """How a project stands in a component against the ranked projects: "a strength" above their
    median score, "a weak spot" below it, "about average" at it; None when either is unknown."""
    if score is None or median is None:
        return None
    score = round(score, 1)
    return "a strength" if score > median else "a weak spot" if score < median else "about average"


def explain_words(explain: list[dict[str, Any]], weights: Mapping[str, float],
                  default: Mapping[str, float]) -> list[tuple[dict[str, Any], str]]:
    """Why a project moves between the default ranking and a goal's: the components whose weight the
    goal changes, each with how the project stands in it against the ranked projects (its score and
    theirs), which way the weight went, and the points it gains or loses against most projects:
    "Welcomes newcomers, a weak spot (22.2; ranked projects' median 45.0), counts for less here (0,
    not 15): +1.9 points against most projects". A component whose weight is the same is left out."""
    out = []
    for e in explain:
        c = e["component"]
        w, w0 = weights.get(c, 0), default.get(c, 0)
        if w == w0:
            continue
        said = COMPONENT_LABELS.get(c, c)
        stand = standing(e.get("score"), e.get("median"))
        if stand:
            said += f", {stand} ({score_text(e['score'])}; ranked projects' median {score_text(e['median'])}),"
        way = "more" if w > w0 else "less"
        out.append((e, f"{said} counts for {way} here ({w:g}, not {w0:g}): {_signed(e['points'])} against most projects"))
    return out


def _signed(pull: float) -> str:
    """A component's pull on a project's score against its pull on most projects': "+4.7 points"."""
    return f"{'+' if pull > 0 else '−' if pull < 0 else ''}{points(abs(pull))} points"
