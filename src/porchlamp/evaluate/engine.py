"""Evaluation of a snapshot's repositories, once per repository: the gates in order, then the
components and the status, from what the PR relations counted (`facts.RepoFacts`).

Pure: it takes those facts, settings and the rules, and returns results; it never reads the clock,
the network or the store. Per-PR judging is SQL (`relations`); `snapshot.py` joins both to the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from porchlamp import figures, forges
from porchlamp.config import Settings
from porchlamp.evaluate import gates as g
from porchlamp.evaluate.components import ComponentResult, all_components
from porchlamp.evaluate.facts import Figures, OwnBot, RepoFacts
from porchlamp.evaluate.ranking import ProfileScore, profile_rows, profile_score, scores_of
from porchlamp.evaluate.rules import Rules
from porchlamp.evaluate.slices import ecosystem, star_bucket
from porchlamp.models import as_of_instant

STATUS_ORDER = ("not_software", "not_real_project", "no_license", "stale", "black_hole", "undecided", "unrated", "ranked")


@dataclass(frozen=True)
class RepoResult:
    repo: str
    status: str
    kind: str
    reason: str
    ecosystem: str
    ecosystem_why: str
    star_bucket: str
    stars: int
    forks: int
    language: str | None
    description: str | None
    gates: tuple[g.GateResult, ...]
    figures: Figures
    maintainers: dict[str, str]
    components: dict[str, ComponentResult] = field(default_factory=dict)
    profiles: dict[str, ProfileScore] = field(default_factory=dict)
    judged: bool = False  # went through the black-hole verdict with enough outside PRs
    borderline: bool = False
    fork_note: str | None = None
    review_happens: str | None = None
    own_bots: tuple[OwnBot, ...] = ()  # accounts set aside as this project's bots by what they post
    forge: str = "github"  # the software the project's host runs (its host is in `repo`)
    unseen: dict[str, Any] | None = None  # what its rows came from and lack, when not collected from its forge

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {gr.gate: {"passed": gr.passed, "reason": gr.reason, **gr.evidence} for gr in self.gates}
        if self.own_bots:
            out["own_bots"] = [b._asdict() for b in self.own_bots]
        if self.unseen:
            out["unseen"] = self.unseen
        return out


def window(as_of: date, settings: Settings) -> tuple[datetime, datetime]:
    end = as_of_instant(as_of)
    return end - timedelta(days=settings.window.days), end


def evaluate_repo(data: RepoFacts, settings: Settings, rules: Rules) -> RepoResult:
    """Status, kind, reason and evidence of one repository; components if it reaches scoring."""
    r = data.repo
    eco, eco_why = ecosystem(data, rules)
    base: dict[str, Any] = dict(
        repo=r.name_with_owner, ecosystem=eco, ecosystem_why=eco_why, star_bucket=star_bucket(r.stars), stars=r.stars,
        forks=r.forks, language=r.primary_language, description=r.description, figures=data.figures,
        maintainers=dict(data.maintainers), own_bots=data.own_bots, forge=r.forge or "github", unseen=data.unseen,
    )
    done: list[g.GateResult] = []

    def fail(gr: g.GateResult, **extra: Any) -> RepoResult:
        return RepoResult(status=gr.status or "", kind=gr.kind or "", reason=gr.reason, gates=tuple(done), **base, **extra)

    checks: list[Callable[[], g.GateResult]] = [
        lambda: g.gate_software(r, rules),
        lambda: g.gate_real_project(r),
        lambda: g.gate_license(r),
        lambda: g.gate_activity(data.commits, settings.window.days, r.pushed_at),
    ]

    fork_note = None
    for check in checks:
        gr = check()
        # the first four checks speak of GitHub; a project elsewhere is told in its forge's words
        gr = replace(gr, reason=forges.say(gr.reason, r.forge or "github"))
        done.append(gr)
        fork_note = fork_note or gr.evidence.get("fork_note")
        if not gr.passed:
            return fail(gr, fork_note=fork_note)
    off = g.gate_off_github(data.documents, data.figures.outside_prs, data.redirected, data.commits, r)
    done.append(off)
    if not off.passed:
        return fail(off, fork_note=fork_note, review_happens=off.evidence.get("review_happens"))
    pr = forges.change_words(r.forge or "github")[1]  # what its forge calls a change, in its reasons
    bh = g.gate_black_hole(data.figures, settings, pr)
    done.append(bh)
    judged = bool(bh.evidence["judged"])
    borderline = bool(bh.evidence.get("borderline"))
    if not bh.passed:
        return fail(bh, fork_note=fork_note, judged=True)
    comps = all_components(data, rules, settings)
    n = int(bh.evidence["outside_prs"])
    extra = dict(components=comps, judged=judged, borderline=borderline, fork_note=fork_note)
    if n < settings.unrated.min_outside_prs:
        return RepoResult(status="unrated", kind="too_few_prs", gates=tuple(done),
                          reason=f"unrated: {figures.count(n, f'outside {pr}')} to judge, fewer than the {settings.unrated.min_outside_prs} a fair score needs",
                          **base, **extra)
    cov = profile_score(scores_of(comps), "default", settings).coverage
    if cov < settings.unrated.min_coverage:
        missing = sorted(c for c in settings.profiles["default"] if not comps[c].measured)
        return RepoResult(status="unrated", kind="low_coverage", gates=tuple(done),
                          reason=f"unrated: only {figures.share(cov)} of the default profile could be measured (missing: {', '.join(missing)})",
                          **base, **extra)
    kind = "borderline" if borderline else "responsive" if judged else "few_prs"
    return RepoResult(status="ranked", kind=kind, reason=bh.reason, gates=tuple(done), **base, **extra)


@dataclass(frozen=True)
class Snapshot:
    as_of: date
    settings: Settings
    results: tuple[RepoResult, ...]

    def by_repo(self) -> dict[str, RepoResult]:
        return {r.repo: r for r in self.results}


def rerank(snapshot: Snapshot, settings: Settings) -> Snapshot:
    """Scores and ranks under `settings`' profiles, without judging a single PR again."""
    table = dict(profile_rows(((r.repo, r.status, r.figures.outside_prs, scores_of(r.components)) for r in snapshot.results
                               if r.components), settings))
    results = tuple(replace(r, profiles=table[r.repo]) if r.repo in table else r for r in snapshot.results)
    return Snapshot(snapshot.as_of, settings, results)
