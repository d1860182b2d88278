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

CAPPED = "B (capped)"


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


def _contributions(components: Mapping[str, ComponentResult], weights: Mapping[str, float]) -> dict[str, float]:
    measured = {c: w for c, w in weights.items() if w > 0 and components.get(c) and components[c].measured}
    total = sum(measured.values())
    if not total:
        return {}
    return {c: w * (components[c].score or 0.0) / total for c, w in measured.items()}


def profile_score(components: Mapping[str, ComponentResult], profile: str, settings: Settings) -> ProfileScore:
    weights = settings.profiles[profile]
    total = sum(w for w in weights.values() if w > 0)
    contrib = _contributions(components, weights)
    measured = sum(w for c, w in weights.items() if c in contrib)
    coverage = measured / total if total else 0.0
    score = round(sum(contrib.values()), 2) if contrib else None
    return ProfileScore(profile, score, round(coverage, 4), tier_of(score, coverage, settings.tiers))


@dataclass(frozen=True)
class Rankable:
    repo: str
    components: Mapping[str, ComponentResult]
    outside_prs: int


def rank_all(projects: Sequence[Rankable], settings: Settings) -> dict[str, dict[str, ProfileScore]]:
    """Scores, tiers, ranks, Δ rank and its explanation for every ranked project and profile."""
    scores = {p.repo: {name: profile_score(p.components, name, settings) for name in settings.profiles} for p in projects}
    outside = {p.repo: p.outside_prs for p in projects}
    ranks: dict[str, dict[str, int]] = {name: {} for name in settings.profiles}
    for name in settings.profiles:
        order = sorted(projects, key=lambda p: (-(scores[p.repo][name].score or 0.0), -outside[p.repo], p.repo))
        for i, p in enumerate(order, start=1):
            ranks[name][p.repo] = i
    # What moves a project between profiles: each component's change in contribution, against
    # the average change over all ranked projects (which moves everyone alike).
    base = {p.repo: _contributions(p.components, settings.profiles["default"]) for p in projects}
    out: dict[str, dict[str, ProfileScore]] = {p.repo: {} for p in projects}
    for name, weights in settings.profiles.items():
        diffs = {}
        for p in projects:
            cur = _contributions(p.components, weights)
            keys = set(cur) | set(base[p.repo])
            diffs[p.repo] = {c: cur.get(c, 0.0) - base[p.repo].get(c, 0.0) for c in keys}
        mean: dict[str, float] = {}
        for d in diffs.values():
            for c, v in d.items():
                mean[c] = mean.get(c, 0.0) + v / max(1, len(projects))
        for p in projects:
            delta = ranks["default"][p.repo] - ranks[name][p.repo]
            effects = sorted(((c, v - mean.get(c, 0.0)) for c, v in diffs[p.repo].items()), key=lambda x: (-abs(x[1]), x[0]))
            if delta:
                effects = [e for e in effects if (e[1] > 0) == (delta > 0)]
            explain = tuple({"component": c, "points": round(v, 1)} for c, v in effects[:3] if abs(v) >= 0.05) if delta else ()
            s = scores[p.repo][name]
            out[p.repo][name] = ProfileScore(name, s.score, s.coverage, s.tier, ranks[name][p.repo], delta, explain)
    return out


Scored = tuple[str, str, int, Mapping[str, ComponentResult]]  # (repo, status, outside PRs, components)


def profile_rows(scored: Iterable[Scored], settings: Settings) -> Iterator[tuple[str, dict[str, ProfileScore]]]:
    """(repo, profile scores) for every scored repository in name order: ranked ones ranked
    against each other, the rest scored without a rank."""
    rows = sorted(scored, key=lambda s: s[0])
    table = rank_all([Rankable(repo, comps, n) for repo, status, n, comps in rows if status == "ranked"], settings)
    for repo, status, _, comps in rows:
        yield repo, table[repo] if status == "ranked" else {p: profile_score(comps, p, settings) for p in settings.profiles}
