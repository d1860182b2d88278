"""Ecosystems and star buckets (SPEC section 10): the slices the report cuts the funnel by.

Ecosystem, in order: the registry a published package is on, else a root manifest, else a
systems primary language, else Other.
"""

from __future__ import annotations

from porchlamp.evaluate.rules import Rules
from porchlamp.evaluate.facts import RepoFacts

STAR_BUCKETS = ("under 1k", "1k–10k", "10k–50k", "over 50k")


def ecosystem(data: RepoFacts, rules: Rules) -> tuple[str, str]:
    """(ecosystem, how it was decided)."""
    d = data.dependents
    if d is not None and d.package and d.ecosystem:
        return d.ecosystem, f"publishes {d.package} on {d.ecosystem}"
    root = set(data.repo.root_files)
    for manifest, eco in rules.eco_manifests:
        if manifest in root:
            return eco, f"{manifest} in the root tree"
    lang = data.repo.primary_language
    if lang in rules.systems_languages:
        return rules.systems_label, f"primary language {lang}"
    return "Other", "no package, manifest or systems language found"


def star_bucket(stars: int) -> str:
    if stars < 1_000:
        return STAR_BUCKETS[0]
    if stars < 10_000:
        return STAR_BUCKETS[1]
    if stars <= 50_000:
        return STAR_BUCKETS[2]
    return STAR_BUCKETS[3]
