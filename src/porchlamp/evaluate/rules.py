"""The reviewed data evaluation consults: known bots and patterns, bot message templates,
label variants, software and off-GitHub signals. Read once from the package, extended by config.

Reading packaged files is deterministic; nothing here reads the clock or the network.
"""

from __future__ import annotations

import csv
import io
import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from porchlamp.config import Settings
from porchlamp.evaluate.bots import BotRules, normalise_login


def _load(name: str) -> dict[str, Any]:
    text = resources.files("porchlamp.data").joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def norm_label(label: str) -> str:
    """Label variants compare alike: case, '-', '_' and runs of spaces do not matter."""
    return " ".join(label.lower().replace("-", " ").replace("_", " ").split())


@dataclass(frozen=True)
class Rules:
    bots: BotRules
    bot_templates: tuple[str, ...]
    list_topics: frozenset[str]
    docs_topics: frozenset[str]
    data_topics: frozenset[str]
    list_name_prefixes: tuple[str, ...]
    docs_name_suffixes: tuple[str, ...]
    data_name_suffixes: tuple[str, ...]
    list_description: tuple[str, ...]
    docs_description: tuple[str, ...]
    data_description: tuple[str, ...]
    markup_languages: frozenset[str]  # every language Linguist does not type as programming (data/linguist.json)
    manifests: frozenset[str]
    min_code_ratio: float
    eco_manifests: tuple[tuple[str, str], ...]
    systems_languages: frozenset[str]
    systems_label: str
    fit_languages: frozenset[str]
    fit_topics: frozenset[str]
    gfi_labels: frozenset[str]
    ai_files: tuple[str, ...]
    ai_markers: tuple[str, ...]
    commit_trailers: tuple[str, ...]
    bridge_bots: dict[str, str]
    language_types: dict[str, str] = field(default_factory=dict)  # Linguist's type of each language
    # SPEC section 3: the PR templates of tools that open PRs, as (tool, source, phrases, patterns)
    bot_pr_text: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = ()


def _csv(name: str) -> list[dict[str, str]]:
    text = resources.files("porchlamp.data").joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text)))


@lru_cache(maxsize=8)
def _base() -> tuple[dict[str, Any], dict[str, Any], tuple[dict[str, str], ...], tuple[dict[str, str], ...]]:
    return _load("bots.toml"), _load("signals.toml"), tuple(_csv("known_bots.csv")), tuple(_csv("bot_like_humans.csv"))


def _bot_rules(bots: dict[str, Any], known_rows: tuple[dict[str, str], ...], human_rows: tuple[dict[str, str], ...],
               settings: Settings) -> BotRules:
    known = {normalise_login(r["login"]): r["source"] + (f": {r['note']}" if r.get("note") else "") for r in known_rows}
    for login in settings.bots.extra_logins:
        known[normalise_login(login)] = "added in porchlamp.toml"
    humans = {normalise_login(r["login"]): r["source"] for r in human_rows}
    for login in settings.bots.extra_humans:
        humans[normalise_login(login)] = "added in porchlamp.toml"
    w = bots["words"]
    return BotRules(
        known=known,
        humans=humans,
        patterns=tuple(p.lower() for p in (*bots["patterns"]["list"], *settings.bots.extra_patterns)),
        words=BotRules.words_pattern(w["long"], w["short"], w["suffixes"]),
        project_suffixes=tuple(bots["project"]["suffixes"]),
    )


@lru_cache(maxsize=1)
def linguist_types() -> dict[str, str]:
    """Each language Linguist knows with its type (programming, markup, prose or data), from the pinned copy
    of its language data (`data/linguist.json`, which names its version, source and licence)."""
    return dict(json.loads(resources.files("porchlamp.data").joinpath("linguist.json").read_text(encoding="utf-8"))["types"])


def load_rules(settings: Settings) -> Rules:
    """The packaged rules, with the bots that configuration adds."""
    bots, sig, known_rows, human_rows = _base()
    sw, eco, fit, og = sig["software"], sig["ecosystems"], sig["systems_fit"], sig["off_github"]
    low = lambda xs: tuple(x.lower() for x in xs)  # noqa: E731
    return Rules(
        bots=_bot_rules(bots, known_rows, human_rows, settings),
        bot_templates=low(sig["bot_text"]["templates"]),
        list_topics=frozenset(sw["list_topics"]),
        docs_topics=frozenset(sw["docs_topics"]),
        data_topics=frozenset(sw["data_topics"]),
        list_name_prefixes=low(sw["list_name_prefixes"]),
        docs_name_suffixes=low(sw["docs_name_suffixes"]),
        data_name_suffixes=low(sw["data_name_suffixes"]),
        list_description=low(sw["list_description"]),
        docs_description=low(sw["docs_description"]),
        data_description=low(sw["data_description"]),
        markup_languages=frozenset(k for k, t in linguist_types().items() if t != "programming"),
        manifests=frozenset(sw["manifests"]),
        min_code_ratio=float(sw["min_code_ratio"]),
        eco_manifests=tuple((m, e) for m, e in eco["manifests"]),
        systems_languages=frozenset(eco["systems_languages"]),
        systems_label=eco["systems_label"],
        fit_languages=frozenset(fit["languages"]),
        fit_topics=frozenset(fit["topics"]),
        gfi_labels=frozenset(norm_label(x) for x in sig["labels"]["good_first_issue"]),
        ai_files=tuple(sig["ai_policy"]["files"]),
        ai_markers=low(sig["ai_policy"]["pr_markers"]),
        commit_trailers=low(og["commit_trailers"]),
        bridge_bots={k.lower(): v for k, v in og["bridge_bots"].items()},
        language_types=linguist_types(),
        bot_pr_text=tuple((t["tool"], t["source"], low(t.get("phrases", [])), tuple(t.get("patterns", [])))
                          for t in sig["bot_pr_text"]),
    )
