"""Profiles, tiers, ranks and Δ rank (SPEC sections 8-9).

A profile's score is the weighted mean over the components that were measured; coverage is
the share of the profile's weight that was. Ranks order ranked projects by score, then by
more judged outside PRs, then by name. Δ rank = default rank - profile rank (positive climbs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from porchlamp.config import Settings, TierSettings
from porchlamp.evaluate.components import ComponentResult
from porchlamp.stats import quantile

CAPPED = "B (capped)"
# What scores and ranks read of a repository's components: each one's score, None where it could not
# be measured. The reduce over every repository holds these, not the components with their inputs
# and reasons (7.6 KB a scored repository at 11,000).
Scores = Mapping[str, float | None]


def scores_of(components: Mapping[str, ComponentResult]) -> dict[str, float | None]:
    """The scores of `components`, as scores and ranks read them."""
    return {name: c.score for name, c in components.items()}


@dataclass(frozen=True)
class ProfileScore:
    profile: str
    score: float | None
    coverage: float
    tier: str | None
    rank: int | None = None
    delta: int | None = None
    explain: tuple[dict[str, Any], ...] = field(default_factory=tuple)


def tier_of(score: float | None, coverage: float, tiers: TierSettings) -> str | None:
    if score is None:
        return None
    raw = "A" if score >= tiers.a else "B" if score >= tiers.b else "C" if score >= tiers.c else "D"
    # Part of the data could not be measured: the tier may not claim more than B.
    if coverage < tiers.cap_coverage and raw in ("A", "B"):
        return CAPPED
    return raw


def _contributions(scores: Scores, weights: Mapping[str, float]) -> dict[str, float]:
    measured = {c: w for c, w in weights.items() if w > 0 and scores.get(c) is not None}
    total = sum(measured.values())
    if not total:
        return {}
    return {c: w * (scores[c] or 0.0) / total for c, w in measured.items()}


def profile_score(scores: Scores, profile: str, settings: Settings) -> ProfileScore:
    """A profile's score, coverage and tier from the component scores (`scores_of`)."""
    return _score(profile, _contributions(scores, settings.profiles[profile]), settings)


def _score(profile: str, contrib: Mapping[str, float], settings: Settings) -> ProfileScore:
    """A profile's score, coverage and tier from its components' contributions (`_contributions`)."""
    weights = settings.profiles[profile]
    total = sum(w for w in weights.values() if w > 0)
    measured = sum(w for c, w in weights.items() if c in contrib)
    coverage = measured / total if total else 0.0
    score = round(sum(contrib.values()), 2) if contrib else None
    return ProfileScore(profile, score, round(coverage, 4), tier_of(score, coverage, settings.tiers))


@dataclass(frozen=True)
class Rankable:
    repo: str
    scores: Scores
    outside_prs: int


def rank_all(projects: Sequence[Rankable], settings: Settings) -> dict[str, dict[str, ProfileScore]]:
    """Scores, tiers, ranks, Δ rank and its explanation for every ranked project and profile."""
    # Each project's contributions by profile, computed once: its scores and what moves it both read them.
    contribs = {name: [_contributions(p.scores, weights) for p in projects] for name, weights in settings.profiles.items()}
    scores = {name: [_score(name, c, settings) for c in contribs[name]] for name in settings.profiles}
    ranks: dict[str, list[int]] = {}
    for name in settings.profiles:
        order = sorted(range(len(projects)), key=lambda i: (-(scores[name][i].score or 0.0), -projects[i].outside_prs,
                                                             projects[i].repo))
        ranks[name] = [0] * len(projects)
        for place, i in enumerate(order, start=1):
            ranks[name][i] = place
    # What moves a project between profiles: each component's change in contribution, against
    # the average change over all ranked projects (which moves everyone alike).
    base = contribs["default"]
    middle = component_medians(projects)
    out: dict[str, dict[str, ProfileScore]] = {p.repo: {} for p in projects}
    for name in settings.profiles:
        diffs = []
        for cur, was in zip(contribs[name], base):
            diffs.append({c: cur.get(c, 0.0) - was.get(c, 0.0) for c in set(cur) | set(was)})
        mean: dict[str, float] = {}
        for d in diffs:
            for c, v in d.items():
                mean[c] = mean.get(c, 0.0) + v / max(1, len(projects))
        for i, p in enumerate(projects):
            delta = ranks["default"][i] - ranks[name][i]
            explain: tuple[dict[str, Any], ...] = ()
            if delta:  # a project its goal does not move has nothing to explain
                effects = sorted(((c, v - mean.get(c, 0.0)) for c, v in diffs[i].items()), key=lambda x: (-abs(x[1]), x[0]))
                # Only a component whose weight this goal changes explains the move; each says how the
                # project stands in it against the ranked projects, which the page words as a strength
                # or a weak spot (never from the sign of the move alone).
                changed = settings.profiles[name]
                effects = [e for e in effects if (e[1] > 0) == (delta > 0)
                           and changed.get(e[0], 0) != settings.profiles["default"].get(e[0], 0)]
                explain = tuple({"component": c, "points": round(v, 1), "score": p.scores.get(c), "median": middle.get(c)}
                                for c, v in effects[:3] if abs(v) >= 0.05)
            s = scores[name][i]
            out[p.repo][name] = ProfileScore(name, s.score, s.coverage, s.tier, ranks[name][i], delta, explain)
    return out


def component_medians(projects: Sequence[Rankable]) -> dict[str, float]:
    """Each component's median score over the ranked projects where it was measured: what a
    project's score in it is a strength or a weak spot against."""
    by: dict[str, list[float]] = {}
    for p in projects:
        for c, v in p.scores.items():
            if v is not None:
                by.setdefault(c, []).append(v)
    return {c: round(quantile(vs, 0.5) or 0.0, 1) for c, vs in by.items()}


Scored = tuple[str, str, int, Scores]  # (repo, status, outside PRs, component scores)


def profile_rows(scored: Iterable[Scored], settings: Settings) -> Iterator[tuple[str, dict[str, ProfileScore]]]:
    """(repo, profile scores) for every scored repository in name order: ranked ones ranked
    against each other, the rest scored without a rank."""
    rows = sorted(scored, key=lambda s: s[0])
    table = rank_all([Rankable(repo, scores, n) for repo, status, n, scores in rows if status == "ranked"], settings)
    for repo, status, _, scores in rows:
        yield repo, table[repo] if status == "ranked" else {p: profile_score(scores, p, settings) for p in settings.profiles}
