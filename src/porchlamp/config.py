"""Settings of the method: windows, thresholds, tiers and profiles, read from `porchlamp.toml`.

Every number in SPEC.md is a default here, never a module constant elsewhere; a bad value
is refused with an error that names the key and the range it must lie in.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from porchlamp.errors import PorchlampError

COMPONENTS: tuple[str, ...] = (
    "responsiveness",
    "accessibility",
    "governance",
    "dependents",
    "review_ci",
    "reach",
    "systems_fit",
    "ai_readiness",
)


class ConfigError(PorchlampError):
    """A configuration file or value that cannot be used; the message says what to fix."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WindowSettings(_Section):
    days: int = Field(183, ge=28, le=730, description="length of the snapshot window")
    response_days: int = Field(14, ge=1, le=90, description="a human must respond within this many days")
    decided_days: int = Field(30, ge=1, le=180, description="'decided' share counts merges and closes within this")
    brand_new_account_days: int = Field(30, ge=0, le=365, description="accounts younger than this are left out")
    commit_sample: int = Field(30, ge=1, le=100, description="activity and review trailers are read on this many latest commits of the window")


class BlackHoleSettings(_Section):
    min_outside_prs: int = Field(10, ge=1, le=1000, description="fewest outside PRs for a verdict")
    confidence: float = Field(0.95, gt=0.5, lt=1.0, description="confidence of the Wilson interval")
    bound: float = Field(0.5, gt=0.0, lt=1.0, description="lower bound of the unanswered share must exceed this")


class UnratedSettings(_Section):
    min_outside_prs: int = Field(3, ge=1, le=1000, description="fewest judgeable outside PRs to score")
    min_coverage: float = Field(0.5, ge=0.0, le=1.0, description="least share of the default profile measured")


class TierSettings(_Section):
    a: float = Field(80, ge=0, le=100, description="lowest score of tier A")
    b: float = Field(65, ge=0, le=100, description="lowest score of tier B")
    c: float = Field(50, ge=0, le=100, description="lowest score of tier C")
    cap_coverage: float = Field(0.8, ge=0.0, le=1.0, description="below this coverage the tier is capped at B")

    @model_validator(mode="after")
    def _ordered(self) -> "TierSettings":
        if not (self.a >= self.b >= self.c):
            raise ValueError(f"tier cut-offs must satisfy a >= b >= c (got a={self.a}, b={self.b}, c={self.c})")
        return self


class ComponentSettings(_Section):
    min_sample: int = Field(3, ge=1, le=100, description="fewest PRs or people a share needs before it counts as measured")
    ci_sample: int = Field(10, ge=1, le=100, description="CI status is read on this many latest merged PRs per repository")


class TemplateSettings(_Section):
    min_chars: int = Field(40, ge=10, le=400, description="shortest normalised text that can be a template")
    min_words: int = Field(6, ge=2, le=100, description="fewest words a template has")
    min_prs: int = Field(5, ge=2, le=1000, description="a text must appear on this many PRs to be a template")
    min_repos: int = Field(3, ge=2, le=1000, description="repeated text is a template when it appears in this many repositories")
    automated_minutes: int = Field(10, ge=1, le=1440, description="a post this soon after a PR opens (or is ready) was automated")
    automated_share: float = Field(0.8, gt=0.0, le=1.0, description="share of posts that must come that soon for a text to be automated")
    behaviour_min_comments: int = Field(5, ge=1, le=10000, description="an account acting as a bot has said at least this many things")
    behaviour_share: float = Field(0.9, gt=0.0, le=1.0, description="share of an account's comments that must be templates to call it a bot")
    own_min_prs: int = Field(3, ge=2, le=1_000_000, description="an account whose comments in one repository are nearly all one text, "
                             "posted on at least this many of its PRs, acts as that repository's bot")
    author_template_prs: int = Field(3, ge=2, le=1_000_000, description="an account that opens this many PRs with one description "
                                     "(numbers, versions, links and hashes aside) that no other account uses is a bot for its PRs")
    own_words_min: int = Field(2, ge=1, le=1000, description="unless it also wrote this many texts of its own, once each (comments, "
                               "reviews, other PRs' descriptions): then it is a person who pasted one explanation on a batch")
    tool_min_prs: int = Field(5, ge=2, le=1_000_000, description="a line of the PRs a known bot (an App) opens is its tool's fixed "
                              "words when it is on this many of them, in two or more owners' repositories")


class BotSettings(_Section):
    extra_logins: tuple[str, ...] = Field((), description="user accounts that act as bots, added to the packaged list")
    extra_patterns: tuple[str, ...] = Field((), description="glob patterns of bot logins, added to the packaged ones")
    extra_humans: tuple[str, ...] = Field((), description="people whose logins look like bots, added to the packaged allow-list")


class SiteSettings(_Section):
    start_max_age_days: int = Field(365, ge=7, le=3650, description="'Where to start' lists good first issues opened within this many days")
    start_per_project: int = Field(5, ge=1, le=20, description="'Where to start' lists at most this many issues per project")
    start_max_rows: int = Field(500, ge=10, le=5000, description="'Where to start' pages list at most this many issues")
    url: str = Field("", pattern=r"^(https?://\S+)?$", description="the address the site is served from "
                     "(https://example.org/porchlamp/): badge snippets, feed links and each page's canonical link carry it "
                     "(`publish --site-url` overrides it); empty: they are relative to the site")


class HostSettings(_Section):
    """A forge host the packaged list (`data/forges.toml`) does not know, or one whose API lives elsewhere."""

    forge: str = Field(..., pattern="^(github|gitlab|forgejo)$", description="software the host runs: github, gitlab or forgejo")
    api: str | None = Field(None, pattern="^https?://", description="base address of its API (default: the forge's usual path on the host)")
    requests_per_minute: int | None = Field(None, ge=1, le=100_000, description="most requests a minute to send it (self-hosted "
                                            "instances set their own limits; a 429 is honoured whatever this says)")
    wip_prefixes: list[str] | None = Field(None, description="Forgejo/Gitea: the title prefixes that mark a draft, as the "
                                           "instance's WORK_IN_PROGRESS_PREFIXES sets them (default WIP: and [WIP])")


DEFAULT_PROFILES: dict[str, dict[str, float]] = {
    "default": {"responsiveness": 40, "accessibility": 15, "governance": 15, "dependents": 15, "review_ci": 15},
    "first-contribution": {
        "responsiveness": 35,
        "accessibility": 30,
        "governance": 15,
        "dependents": 10,
        "review_ci": 10,
    },
    "career": {"responsiveness": 25, "reach": 25, "dependents": 20, "governance": 15, "review_ci": 15},
    "systems": {"responsiveness": 30, "systems_fit": 30, "review_ci": 20, "governance": 10, "dependents": 10},
    "ai-assisted": {"responsiveness": 30, "ai_readiness": 30, "review_ci": 25, "accessibility": 15},
}


class Settings(_Section):
    """The whole configuration in force for one evaluation."""

    window: WindowSettings = WindowSettings()
    black_hole: BlackHoleSettings = BlackHoleSettings()
    unrated: UnratedSettings = UnratedSettings()
    tiers: TierSettings = TierSettings()
    components: ComponentSettings = ComponentSettings()
    bots: BotSettings = BotSettings()
    templates: TemplateSettings = TemplateSettings()
    site: SiteSettings = SiteSettings()
    profiles: dict[str, dict[str, float]] = Field(default_factory=lambda: {k: dict(v) for k, v in DEFAULT_PROFILES.items()})
    hosts: dict[str, HostSettings] = Field(default_factory=dict, description="forge hosts beyond the packaged ones, by name")

    @field_validator("hosts")
    @classmethod
    def _check_hosts(cls, hosts: dict[str, HostSettings]) -> dict[str, HostSettings]:
        for name in hosts:
            if "." not in name or "/" in name or name != name.strip().lower():
                raise ValueError(f"host {name!r}: write the host name alone, in lower case, such as \"git.example.org\"")
        return hosts

    @field_validator("profiles")
    @classmethod
    def _check_profiles(cls, profiles: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        if "default" not in profiles:
            raise ValueError("a profile named 'default' is required")
        for name, weights in profiles.items():
            if not weights:
                raise ValueError(f"profile '{name}' has no weights")
            for comp, w in weights.items():
                if comp not in COMPONENTS:
                    raise ValueError(f"profile '{name}': unknown component '{comp}' (allowed: {', '.join(COMPONENTS)})")
                if not (0 <= w <= 100):
                    raise ValueError(f"profile '{name}': weight of '{comp}' must be between 0 and 100 (got {w})")
            if sum(weights.values()) <= 0:
                raise ValueError(f"profile '{name}': weights must not all be 0")
        return profiles

    @property
    def profile_names(self) -> list[str]:
        return list(self.profiles)


def _describe_range(model: type[BaseModel], field: str) -> str:
    info = model.model_fields.get(field)
    if info is None:
        return ""
    bounds = []
    for meta in info.metadata:
        for attr, sym in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            val = getattr(meta, attr, None)
            if val is not None:
                bounds.append(f"{sym} {val}")
    text = f" (allowed: {' and '.join(bounds)})" if bounds else ""
    if info.description:
        text += f"; it is the {info.description}"
    return text


def _format_errors(err: ValidationError, source: str) -> str:
    lines = []
    for e in err.errors():
        loc = [str(p) for p in e["loc"]]
        key = ".".join(loc) or "(top level)"
        model: type[BaseModel] = Settings
        for part in loc[:-1]:
            sub = model.model_fields.get(part)
            ann = getattr(sub, "annotation", None) if sub else None
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                model = ann
        if e["type"] == "extra_forbidden":
            lines.append(f"{source}: unknown key '{key}'; remove it or check its spelling")
            continue
        rng = _describe_range(model, loc[-1]) if loc else ""
        got = e.get("input")
        lines.append(f"{source}: '{key}' {e['msg'].lower()} (got {got!r}){rng}")
    return "\n".join(lines)


def settings_from_dict(data: dict[str, Any], source: str = "configuration") -> Settings:
    """Validate a parsed configuration mapping; raise ConfigError naming each bad key."""
    data = dict(data)
    if isinstance(data.get("profiles"), dict):
        # A file names only the profiles it changes; the others keep their defaults.
        data["profiles"] = {**{k: dict(v) for k, v in DEFAULT_PROFILES.items()}, **data["profiles"]}
    try:
        return Settings.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_errors(err, source)) from None


def load_settings(path: str | Path | None = None) -> Settings:
    """Read `porchlamp.toml` (or the given file); the built-in defaults when there is none.

    An explicitly named file must exist; `./porchlamp.toml` is used only if present.
    """
    if path is None:
        candidate = Path("porchlamp.toml")
        if not candidate.exists():
            return Settings()
        path = candidate
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"{p}: configuration file not found")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{p}: not valid TOML: {err}") from None
    return settings_from_dict(data, source=str(p))
