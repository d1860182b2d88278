"""Component scores (SPEC section 7), each 0-100 with the inputs it measured, or missing.

Transforms are fixed, never percentiles of the population, so one repository scores the same
alone (`porchlamp check`) as in a snapshot. A part that could not be measured is left out of
its component's mean; a component with no measured part is missing, never 0.

Fixed transforms:
- time(h)  = 1 - log(1+h) / log(1+response window in hours), clamped to [0, 1]
- logcap(x, cap) = log(1+x) / log(1+cap), clamped to [0, 1]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from porchlamp.config import Settings
from porchlamp.evaluate.facts import Figures, RepoFacts
from porchlamp.evaluate.rules import Rules, norm_label


@dataclass(frozen=True)
class ComponentResult:
    name: str
    score: float | None  # None: missing
    inputs: dict[str, Any] = field(default_factory=dict)
    reason: str = ""

    @property
    def measured(self) -> bool:
        return self.score is not None


def logcap(x: float, cap: float) -> float:
    return max(0.0, min(1.0, math.log1p(max(0.0, x)) / math.log1p(cap)))


def time_score(hours: float | None, window_hours: float) -> float:
    if hours is None:
        return 0.0
    return max(0.0, min(1.0, 1 - math.log1p(hours) / math.log1p(window_hours)))


def _weighted(parts: list[tuple[str, float | None, float]]) -> tuple[float | None, list[str]]:
    """Weighted mean (0-100) over the parts that were measured, and the names of those missing."""
    measured = [(v, w) for _, v, w in parts if v is not None]
    missing = [name for name, v, _ in parts if v is None]
    if not measured:
        return None, missing
    total = sum(w for _, w in measured)
    return round(100 * sum(v * w for v, w in measured) / total, 2), missing


def _result(name: str, parts: list[tuple[str, float | None, float]], inputs: dict[str, Any], what: str) -> ComponentResult:
    score, missing = _weighted(parts)
    if score is None:
        return ComponentResult(name, None, inputs, f"missing: no {what} could be measured")
    note = f" (not measured: {', '.join(missing)})" if missing else ""
    return ComponentResult(name, score, inputs, f"{what}{note}")


def responsiveness(f: Figures, settings: Settings) -> ComponentResult:
    if not f.outside_prs:
        return ComponentResult("responsiveness", None, {"outside_prs": 0}, "missing: no judgeable outside PRs")
    window_h = settings.window.response_days * 24.0
    answered = f.answered / f.outside_prs
    decided = f.decided / f.outside_prs
    med, p90 = f.median_hours, f.p90_hours
    # Exact, not rounded: a page words these and the same figures of the verdict from one value, and
    # a value rounded here and again there can land on the other side (a median of 4.46 h stored as
    # 4.5 read "5 h" beside "4 h").
    inputs = {
        "outside_prs": f.outside_prs,
        "answered_share": answered,
        "median_hours_to_first_response": med,
        "p90_hours_to_first_response": p90,
        "decided_share": decided,
    }
    # A median or p90 that falls on "never" is the worst time there is, not a missing one.
    parts = [("answered share", answered, 0.5), ("median time", time_score(med, window_h), 0.2),
             ("p90 time", time_score(p90, window_h), 0.1), ("decided share", decided, 0.2)]
    return _result("responsiveness", parts, inputs, "answers, speed and decisions on outside PRs")


def accessibility(data: RepoFacts, rules: Rules, min_sample: int) -> ComponentResult:
    gfi: float | None = None
    inputs: dict[str, Any] = {}
    if data.repo.has_issues:
        open_gfi = [i for i in data.issues if i.state == "OPEN" and i.assignees == 0
                    and any(norm_label(lb) in rules.gfi_labels for lb in i.labels)]
        inputs["good_first_issues_open_unassigned"] = len(open_gfi)
        # Newest first (a contributor's best chance), undated ones last, in number order.
        newest = sorted(open_gfi, key=lambda i: (-i.created_at.timestamp() if i.created_at else math.inf, i.number))
        inputs["good_first_issues"] = [{"number": i.number, "title": i.title,
                                        "created": i.created_at.date().isoformat() if i.created_at else None} for i in newest[:20]]
        gfi = logcap(len(open_gfi), 10)
    # A first-timer is an author whose first outside PR, by when its clock started, was a first
    # contribution; they came back when they opened another PR after it.
    f = data.figures
    merged_share = came_back = None
    inputs["first_timers"] = f.first_timers
    if f.first_timers >= min_sample:
        merged_share = f.first_timers_merged / f.first_timers
        came_back = f.first_timers_came_back / f.first_timers
        inputs.update({"first_timer_merged_share": round(merged_share, 4),
                       "first_timers_came_back_share": round(came_back, 4)})
    parts = [("good first issues", gfi, 0.4), ("first-timer merges", merged_share, 0.35), ("first-timers back", came_back, 0.25)]
    return _result("accessibility", parts, inputs, "open good first issues and how first-timers fare")


def governance(data: RepoFacts) -> ComponentResult:
    c = data.community
    files = {"contributing": c.contributing, "code_of_conduct": c.code_of_conduct, "security_policy": c.security_policy,
             "governance": c.governance, "codeowners": bool(c.codeowners)}
    active = data.active_maintainers()
    org = data.repo.owner_type == "Organization"
    inputs = {**files, "active_maintainers": active, "organisation_owned": org}
    parts = [("community files", sum(files.values()) / len(files), 0.5), ("bus factor", logcap(active, 5), 0.3),
             ("organisation", 1.0 if org else 0.0, 0.2)]
    return _result("governance", parts, inputs, "community files, active maintainers and ownership")


def dependents(data: RepoFacts) -> ComponentResult:
    d = data.dependents
    if d is None or (d.dependent_packages is None and d.dependent_repos is None):
        return ComponentResult("dependents", None, {"ecosystem": d.ecosystem if d else None},
                               "missing: no count of the projects that depend on it was available")
    pk, rp = d.dependent_packages or 0, d.dependent_repos or 0
    inputs = {"ecosystem": d.ecosystem, "package": d.package, "dependent_packages": pk, "dependent_repos": rp}
    return _result("dependents", [("packages", logcap(pk, 1000), 0.6), ("repositories", logcap(rp, 50_000), 0.4)],
                   inputs, "packages and repositories that depend on it (log-scaled)")


def ci_share(f: Figures, min_sample: int) -> float | None:
    """Share of the CI sample (the latest merged PRs of the window, whose CI status is collected: a
    fixed sample, so a store that learnt more statuses in earlier runs scores the same) with CI
    checks; None below the sample size."""
    return f.ci_with / f.ci_checked if f.ci_checked >= min_sample else None


def review_ci(f: Figures, min_sample: int) -> ComponentResult:
    reviewed = f.reviewed / f.merged if f.merged >= min_sample else None
    ci = ci_share(f, min_sample)
    inputs = {"merged_prs": f.merged, "reviewed_share": None if reviewed is None else round(reviewed, 4),
              "prs_checked_for_ci": f.ci_checked, "ci_share": None if ci is None else round(ci, 4)}
    return _result("review_ci", [("review before merge", reviewed, 0.6), ("CI checks", ci, 0.4)], inputs,
                   "review by someone else before merge, and CI checks on PRs")


def reach(data: RepoFacts) -> ComponentResult:
    r = data.repo
    return _result("reach", [("stars", logcap(r.stars, 100_000), 0.7), ("forks", logcap(r.forks, 20_000), 0.3)],
                   {"stars": r.stars, "forks": r.forks}, "stars and forks (log-scaled)")


def systems_fit(data: RepoFacts, rules: Rules, min_sample: int) -> ComponentResult:
    code = {lang: b for lang, b in data.repo.languages if lang not in rules.markup_languages}
    total = sum(code.values())
    if not total:
        return ComponentResult("systems_fit", None, {}, "missing: no language data")
    share = sum(b for lang, b in code.items() if lang in rules.fit_languages) / total
    topics = sorted(set(data.repo.topics) & rules.fit_topics)
    f = data.figures
    depth = min(1.0, (f.reviews / f.merged) / 2) if f.merged >= min_sample else None
    inputs = {"systems_language_share": round(share, 4), "systems_topics": topics,
              "reviews_per_merged_pr": None if depth is None else round(depth * 2, 2)}
    parts = [("systems languages", share, 0.5), ("systems topics", 1.0 if topics else 0.0, 0.3), ("review depth", depth, 0.2)]
    return _result("systems_fit", parts, inputs, "systems languages, topics and review depth")


def ai_readiness(data: RepoFacts, min_sample: int) -> ComponentResult:
    policy = list(data.community.ai_policy)
    f = data.figures
    ci = ci_share(f, min_sample)
    fare = f.ai_answered / f.ai_prs if f.ai_prs >= min_sample else None
    inputs = {"ai_policy_files": policy, "ci_share": None if ci is None else round(ci, 4), "ai_assisted_prs": f.ai_prs,
              "ai_assisted_answered_share": None if fare is None else round(fare, 4)}
    parts = [("AI policy", 1.0 if policy else 0.0, 0.5), ("CI", ci, 0.3), ("AI-assisted PRs answered", fare, 0.2)]
    return _result("ai_readiness", parts, inputs, "an AI contribution policy, CI, and how AI-assisted PRs fare")


def all_components(data: RepoFacts, rules: Rules, settings: Settings) -> dict[str, ComponentResult]:
    k = settings.components.min_sample
    makers: dict[str, Callable[[], ComponentResult]] = {
        "responsiveness": lambda: responsiveness(data.figures, settings),
        "accessibility": lambda: accessibility(data, rules, k),
        "governance": lambda: governance(data),
        "dependents": lambda: dependents(data),
        "review_ci": lambda: review_ci(data.figures, k),
        "reach": lambda: reach(data),
        "systems_fit": lambda: systems_fit(data, rules, k),
        "ai_readiness": lambda: ai_readiness(data, k),
    }
    return {name: make() for name, make in makers.items()}
