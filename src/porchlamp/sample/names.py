"""Deterministic names for the sample world: people, organisations, projects and titles.

Built from syllables so worlds read like real ones; never ends in a bot-like suffix, so a
planted human is never mistaken for a bot by pattern.
"""

from __future__ import annotations

import random

_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "ch", "kr", "st", "tr", "sh"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ei", "ou", "ia"]
_CODAS = ["", "", "n", "r", "s", "l", "x", "m", "k"]
_WORDS = [
    "lamp", "forge", "river", "quartz", "ember", "atlas", "pixel", "orbit", "cedar", "delta", "falcon", "harbor",
    "iris", "jade", "kite", "lumen", "maple", "nova", "onyx", "pine", "quill", "raven", "sable", "tide", "umber",
    "vortex", "willow", "yarrow", "zephyr", "comet", "basalt", "canyon", "dune", "fjord", "glacier", "heron",
]
_THINGS = [
    "parser", "server", "client", "engine", "kit", "db", "cli", "ui", "sdk", "router", "cache", "queue", "lint",
    "fmt", "viz", "auth", "store", "sync", "proxy", "shell", "compiler", "runtime", "graph", "stream", "test",
]


def syllables(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(n))


def person_login(rng: random.Random, salt: int) -> str:
    base = syllables(rng, rng.choice((1, 2, 2, 3)))
    style = rng.random()
    if style < 0.3:
        return f"{base}{salt}"
    if style < 0.6 and base != "ci":  # "ci-..." would read as a CI account
        return f"{base}-{syllables(rng, 1)}{salt}"
    return f"{base}{syllables(rng, 1)}{salt}"


def org_name(rng: random.Random, salt: int) -> str:
    return f"{rng.choice(_WORDS)}{syllables(rng, 1)}-{rng.choice(('labs', 'dev', 'io', 'hq', 'org', 'project'))}{salt}"


def project_name(rng: random.Random) -> str:
    style = rng.random()
    if style < 0.4:
        return f"{rng.choice(_WORDS)}-{rng.choice(_THINGS)}"
    if style < 0.7:
        return f"{syllables(rng, 2)}{rng.choice(_THINGS)}"
    return f"{rng.choice(_WORDS)}{syllables(rng, 1)}"


def person_name(rng: random.Random) -> str:
    return f"{syllables(rng, 2).title()} {syllables(rng, 2).title()}"


def pr_title(rng: random.Random) -> str:
    verb = rng.choice(["Fix", "Add", "Update", "Remove", "Refactor", "Document", "Improve", "Support", "Handle"])
    obj = rng.choice(["typo in README", "parser edge case", "CLI flag", "error message", "tests for cache",
                      "docs for config", "Windows path handling", "memory leak in stream", "timeout option",
                      "retry on 502", "unicode in titles", "deprecation warning", "build on ARM"])
    return f"{verb} {obj}"
