"""Evaluation of a snapshot: every repository through the gates, then scores and ranks.

Pure: it takes rows (RepoData), accounts, settings and `as_of`, and returns results; it never
reads the clock, the network or the store. `snapshot.py` joins it to the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import cached_property
from typing import Any

from porchlamp.config import Settings
from porchlamp.evaluate import gates as g
from porchlamp.evaluate.bots import Bots
from porchlamp.evaluate.components import ComponentResult, all_components
from porchlamp.evaluate.horizon import horizon
from porchlamp.evaluate.pulls import Earlier, PRVerdict, judge_pulls, repo_context
from porchlamp.evaluate.ranking import ProfileScore, profile_rows, profile_score, scores_of
from porchlamp.evaluate.rules import Rules, load_rules
from porchlamp.evaluate.slices import ecosystem, star_bucket
from porchlamp.evaluate.templates import TemplateIndex, build_index
from porchlamp.models import Account, RepoData, as_of_instant

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
    prs: tuple[PRVerdict, ...]
    maintainers: dict[str, str]
    components: dict[str, ComponentResult] = field(default_factory=dict)
    profiles: dict[str, ProfileScore] = field(default_factory=dict)
    judged: bool = False  # went through the black-hole verdict with enough outside PRs
    borderline: bool = False
    fork_note: str | None = None
    review_happens: str | None = None
    valid_until: datetime | None = None  # the same rows give this verdict until the window ends here (horizon)

    @cached_property
    def outside(self) -> list[PRVerdict]:
        # Asked for three times a repository on the way out; a walk over every PR verdict each time.
        return [v for v in self.prs if v.excluded is None]  # `v.outside`, without a call per verdict

    def evidence(self) -> dict[str, Any]:
        return {gr.gate: {"passed": gr.passed, "reason": gr.reason, **gr.evidence} for gr in self.gates}


def window(as_of: date, settings: Settings) -> tuple[datetime, datetime]:
    end = as_of_instant(as_of)
    return end - timedelta(days=settings.window.days), end


def evaluate_repo(data: RepoData, accounts: Mapping[str, Account], settings: Settings, rules: Rules,
                  as_of: date, templates: TemplateIndex | None = None, earlier: Earlier | None = None) -> RepoResult:
    """Status, kind, reason and evidence of one repository; components if it reaches scoring.
    `templates` is the snapshot's (templates_of); alone, a repository knows only the curated ones.
    `earlier`: its PRs' digests and earlier verdicts, each kept where it holds (`judge_pulls`)."""
    start, end = window(as_of, settings)
    ctx = repo_context(data, accounts, rules, settings, start, end, templates, earlier)
    maint = ctx.maintainers
    verdicts = judge_pulls(data, ctx, earlier)
    sample = g.commit_sample(data.commits, ctx.bots, start, end, settings.window.commit_sample)
    until = horizon(data, verdicts, start, end, settings, sample)
    eco, eco_why = ecosystem(data, rules)
    r = data.repo
    base: dict[str, Any] = dict(
        repo=r.name_with_owner, ecosystem=eco, ecosystem_why=eco_why, star_bucket=star_bucket(r.stars), stars=r.stars,
        forks=r.forks, language=r.primary_language, description=r.description, prs=tuple(verdicts),
        maintainers=dict(maint.reasons), valid_until=until,
    )
    done: list[g.GateResult] = []

    def fail(gr: g.GateResult, **extra: Any) -> RepoResult:
        return RepoResult(status=gr.status or "", kind=gr.kind or "", reason=gr.reason, gates=tuple(done), **base, **extra)

    checks: list[Callable[[], g.GateResult]] = [
        lambda: g.gate_software(r, rules),
        lambda: g.gate_real_project(r),
        lambda: g.gate_license(r),
        lambda: g.gate_activity(sample, ctx.bots),
    ]
    fork_note = None
    for check in checks:
        gr = check()
        done.append(gr)
        fork_note = fork_note or gr.evidence.get("fork_note")
        if not gr.passed:
            return fail(gr, fork_note=fork_note)
    off = g.gate_off_github(data, verdicts, ctx, sample)
    done.append(off)
    if not off.passed:
        return fail(off, fork_note=fork_note, review_happens=off.evidence.get("review_happens"))
    bh = g.gate_black_hole(verdicts, settings)
    done.append(bh)
    judged = bool(bh.evidence["judged"])
    borderline = bool(bh.evidence.get("borderline"))
    if not bh.passed:
        return fail(bh, fork_note=fork_note, judged=True)
    comps = all_components(data, verdicts, maint, rules, settings)
    n = int(bh.evidence["outside_prs"])
    extra = dict(components=comps, judged=judged, borderline=borderline, fork_note=fork_note)
    if n < settings.unrated.min_outside_prs:
        return RepoResult(status="unrated", kind="too_few_prs", gates=tuple(done),
                          reason=f"unrated: {n} judgeable outside PRs, fewer than the {settings.unrated.min_outside_prs} a fair score needs",
                          **base, **extra)
    cov = profile_score(scores_of(comps), "default", settings).coverage
    if cov < settings.unrated.min_coverage:
        missing = sorted(c for c in settings.profiles["default"] if not comps[c].measured)
        return RepoResult(status="unrated", kind="low_coverage", gates=tuple(done),
                          reason=f"unrated: only {cov:.0%} of the default profile could be measured (missing: {', '.join(missing)})",
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


def templates_of(repos: Iterable[RepoData], settings: Settings, rules: Rules | None = None) -> TemplateIndex:
    """The snapshot's templates and the accounts that act as bots, from every repository's comments:
    the one cross-repository step before repositories are judged one by one."""
    rules = rules or load_rules(settings)
    return build_index(repos, lambda repo: Bots(rules.bots, repo), settings.templates, rules.bot_templates)


def evaluate_snapshot(
    repos: Iterable[RepoData],
    accounts: Mapping[str, Account],
    settings: Settings,
    as_of: date,
    progress: Callable[[int], None] | None = None,
    templates: TemplateIndex | None = None,
) -> Snapshot:
    """Evaluate every repository, then score and rank the ranked ones in every profile. Without
    `templates`, they are found from `repos` first (which are then read twice)."""
    rules = load_rules(settings)
    if templates is None:
        repos = list(repos)
        templates = templates_of(repos, settings, rules)
    results = []
    for data in repos:
        results.append(evaluate_repo(data, accounts, settings, rules, as_of, templates))
        if progress:
            progress(1)
    return rerank(Snapshot(as_of, settings, tuple(results)), settings)


def rerank(snapshot: Snapshot, settings: Settings) -> Snapshot:
    """Scores and ranks under `settings`' profiles, without judging a single PR again."""
    table = dict(profile_rows(((r.repo, r.status, len(r.outside), scores_of(r.components)) for r in snapshot.results if r.components),
                              settings))
    results = tuple(replace(r, profiles=table[r.repo]) if r.repo in table else r for r in snapshot.results)
    return Snapshot(snapshot.as_of, settings, results)
