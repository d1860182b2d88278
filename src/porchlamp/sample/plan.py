"""What the sample world plants: the statuses and kinds of SPEC section 6, their mix, and the
per-repository plan (ecosystem, stars, how many outside PRs end in which outcome).

The default mix follows the October 2026 funnel, so a generated world reports like a real one.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

from porchlamp import forges
from porchlamp.errors import WorldError
from porchlamp.stats import wilson_interval

# (status, kind) -> count per 11,000 repositories, from SPEC section 6 (October 2026).
DEFAULT_MIX: dict[tuple[str, str], float] = {
    ("not_software", "awesome_list"): 480,
    ("not_software", "docs_only"): 375,
    ("not_software", "data_dump"): 212,
    ("not_real_project", "archived"): 312,
    ("not_real_project", "mirror"): 62,
    ("not_real_project", "fork"): 250,
    ("no_license", "no_license"): 295,
    ("no_license", "noassertion"): 123,
    ("no_license", "non_osi"): 73,
    ("stale", "bot_commits_only"): 990,
    ("stale", "no_commits"): 1485,
    ("black_hole", "clear"): 1133,
    ("undecided", "gerrit"): 4,
    ("undecided", "mailing_list"): 2,
    ("undecided", "repo_lockdown"): 2,
    ("unrated", "too_few_prs"): 1377,
    ("ranked", "responsive"): 2914,
    ("ranked", "borderline"): 250,
    ("ranked", "few_prs"): 669,
}
STATUSES = (
    "not_software",
    "not_real_project",
    "no_license",
    "stale",
    "black_hole",
    "undecided",
    "unrated",
    "ranked",
)

# Ecosystem shares of all repositories, and how much more (or less) often each is a black hole,
# so the report's black-hole share by ecosystem has the shape of the write-ups.
ECOSYSTEMS: dict[str, tuple[float, float]] = {
    "npm": (0.28, 1.14),
    "PyPI": (0.21, 1.28),
    "Go": (0.14, 0.84),
    "crates.io": (0.13, 0.76),
    "Systems (C, C++ and others)": (0.13, 0.76),
    "Maven": (0.065, 0.73),
    "Other": (0.045, 1.0),
}
STAR_BUCKET_FACTOR = ((1_000, 1.0), (10_000, 0.75), (50_000, 1.1), (math.inf, 1.5))


@dataclass(frozen=True)
class RepoPlan:
    index: int
    status: str
    kind: str
    ecosystem: str
    stars: int
    fork: str | None = None  # "outstars" or "parent_gone" for forks that stay in
    n_outside: int = 0
    n_unanswered: int = 0
    n_silent: int = 0
    private_member: bool = False
    codeowner_only: bool = False
    hostile: bool = False
    capped: bool = False  # planted so the default profile measures under 80%: tier "B (capped)"
    redirect: str | None = None  # undecided without a bridge bot: "hand" (maintainers' pasted redirect), the
    # document that says so: "template" (PR template), "contributing", "readme"; "description" (a mirror's
    # label and homepage), or "bystander" (passers-by say it is a mirror; nobody from the project acts)
    heavy: bool = False  # most PR bodies are long, so queries over them time out until split
    own_ci: bool = False  # the project's own CI posts under a member's user account, hours after each PR
    canned: bool = False  # a maintainer answers with one canned reply, every other time, and in own words between
    withdrawn: bool = False  # a maintainer first points each PR elsewhere, then says PRs here are fine after all
    vendored: bool = False  # some answers send a fix to the upstream of vendored code: an answer, not a redirect
    host: str = "github.com"  # the forge host the project lives on (forges.py)
    mirror_of: int | None = None  # the index of the world's GitLab project this GitHub repository mirrors


def _draw_stars(rng: random.Random) -> int:
    # Pareto tail: about 1 in 4 above 1k, 3% above 10k, under 1% above 50k.
    u = 1.0 - rng.random()
    return min(400_000, int(200 * u ** (-1 / 0.9)))


def _draw_ecosystem(rng: random.Random) -> str:
    names = list(ECOSYSTEMS)
    return rng.choices(names, weights=[ECOSYSTEMS[n][0] for n in names])[0]


def _star_factor(stars: int) -> float:
    for limit, factor in STAR_BUCKET_FACTOR:
        if stars < limit:
            return factor
    return 1.0


def _draw_status(rng: random.Random, eco: str, stars: int) -> tuple[str, str]:
    keys = list(DEFAULT_MIX)
    weights = []
    for status, kind in keys:
        w = DEFAULT_MIX[(status, kind)]
        if status == "black_hole":
            w *= ECOSYSTEMS[eco][1] * _star_factor(stars)
        weights.append(w)
    return rng.choices(keys, weights=weights)[0]


def _plan_outcomes(rng: random.Random, status: str, kind: str) -> tuple[int, int, int]:
    """(outside PRs, unanswered, closed silently) that make the planted verdict hold."""
    heavy = max(1, int(rng.lognormvariate(math.log(44), 1.0)))
    if status == "black_hole":
        n = max(12, min(heavy, 1500))
        u = math.ceil(n * rng.uniform(0.78, 0.97))
        while wilson_interval(u, n)[0] <= 0.55 and u < n:
            u += 1
        silent = min(n - u, rng.randint(0, 2))
        return n, u, silent
    if kind == "borderline":
        n = rng.randint(10, 40)
        u = n // 2 + 1
        # point estimate above half, lower bound clearly below it
        while wilson_interval(u, n)[0] > 0.45:
            n += 2
            u = n // 2 + 1
        silent = min(n - u, rng.randint(0, 2))
        return n, u, silent
    if kind == "responsive":
        n = max(10, min(heavy, 2500))
        u = int(n * rng.uniform(0.0, 0.35))
        silent = int((n - u) * rng.uniform(0.0, 0.1))
        return n, u, silent
    if kind == "few_prs":
        n = rng.randint(3, 9)
        u = rng.randint(0, n // 2)
        return n, u, 0
    if kind == "too_few_prs":
        n = rng.randint(0, 2)
        return n, rng.randint(0, n), 0
    if status == "undecided":
        n = rng.randint(6, 30)
        return n, n, 0
    # Repositories that fail an earlier gate still have PRs, with any outcome.
    n = rng.randint(0, 12) if status in ("not_software", "stale") else rng.randint(0, 30)
    u = rng.randint(0, n)
    return n, u, min(n - u, rng.randint(0, 1))


def _mandatory() -> list[tuple[str, str, dict[str, object]]]:
    """One repository of every planted case, so even a small world holds them all."""
    out: list[tuple[str, str, dict[str, object]]] = [(s, k, {}) for (s, k) in DEFAULT_MIX]
    out += [
        ("ranked", "responsive", {"fork": "outstars"}),
        ("ranked", "responsive", {"fork": "parent_gone"}),
        ("ranked", "responsive", {"stars": 120_000, "private_member": True, "hostile": True}),
        ("black_hole", "clear", {"stars": 85_000, "hostile": True, "own_ci": True}),
        ("ranked", "responsive", {"codeowner_only": True}),
        ("ranked", "borderline", {"stars": 3_500}),
        ("ranked", "responsive", {"capped": True, "ecosystem": "Go", "canned": True}),
        ("undecided", "mailing_list", {"redirect": "hand"}),
        ("undecided", "gerrit", {"redirect": "template"}),
        ("undecided", "mailing_list", {"redirect": "contributing"}),
        ("undecided", "repo_lockdown", {"redirect": "readme"}),
        ("ranked", "responsive", {"heavy": True, "stars": 9_000}),
    ]
    return out


# Planted after the first ones, in slots drawn after theirs, so a world's other repositories stay as
# they were: off-GitHub review as SPEC section 6 reads it (each venue a maintainer names by hand; a
# mirror's description; a mirror only passers-by talk in), and its near misses.
LATER_MANDATORY: list[tuple[str, str, dict[str, object]]] = [
    *[("undecided", venue, {"redirect": "hand"}) for venue in ("jira", "bugzilla", "phabricator", "gitlab", "forgejo",
                                                                 "sourcehut", "savannah", "trac")],
    ("undecided", "gitlab", {"redirect": "description"}),
    ("undecided", "repo_lockdown", {"redirect": "bystander"}),
    ("ranked", "responsive", {"withdrawn": True}),
    ("ranked", "responsive", {"vendored": True}),
]
MIN_REPOS = len(_mandatory()) + len(LATER_MANDATORY)  # the smallest world that holds every planted case


# Kinds a project on GitLab cannot show an outsider: GitLab shows no mirror flag but to a project's
# maintainers (doc/api/projects.md, `mirror`); and a repository that sends its changes to GitLab or
# to Codeberg is that project's mirror elsewhere. Such plans stay on GitHub.
NOT_ON_GITLAB = frozenset({"mirror", "gitlab", "forgejo"})


def world_forge(host: str) -> str:
    """The forge a world's host runs: GitHub's; a packaged host's own (`data/forges.toml`: codeberg.org
    runs Forgejo); else a self-hosted instance, Forgejo when its name begins `forgejo.` or `gitea.`,
    GitLab otherwise (`gitlab.example.org`)."""
    if host == "github.com":
        return "github"
    known = forges.packaged_hosts().get(host)
    if known is not None:
        return known.forge
    return "forgejo" if host.split(".", 1)[0] in ("forgejo", "gitea") else "gitlab"


def draw_host(seed: int, index: int, kind: str, hosts: dict[str, float] | None) -> str:
    """The host of a world's repository `index`: GitHub, or one of `hosts` by its share of the world,
    drawn apart from every other draw so the rest of the world stays as it was."""
    if not hosts or kind in NOT_ON_GITLAB:
        return "github.com"
    u = random.Random(f"porchlamp-host:{seed}:{index}").random()
    for host, share in sorted(hosts.items()):
        if u < share:
            return host
        u -= share
    return "github.com"


def make_plans(n_repos: int, seed: int, hosts: dict[str, float] | None = None) -> list[RepoPlan]:
    """The plan of every repository of a world: deterministic in (n_repos, seed, hosts); `hosts` gives
    the share of the world on each forge host beside GitHub (GitLab's: `gitlab.com`, a self-hosted one)."""
    rng = random.Random(f"porchlamp-plan:{seed}")
    mandatory = _mandatory()
    if n_repos < MIN_REPOS:
        raise WorldError(f"a world needs at least {MIN_REPOS} repositories to plant every case (got {n_repos})")
    slots = rng.sample(range(n_repos), len(mandatory))
    forced = dict(zip(slots, mandatory))
    later = rng.sample([i for i in range(n_repos) if i not in forced], len(LATER_MANDATORY))
    forced.update(zip(later, LATER_MANDATORY))
    plans = []
    for i in range(n_repos):
        r = random.Random(f"porchlamp-repo-plan:{seed}:{i}")
        eco = _draw_ecosystem(r)
        stars = _draw_stars(r)
        extra: dict[str, object] = {}
        if i in forced:
            status, kind, extra = forced[i]
        else:
            status, kind = _draw_status(r, eco, stars)
        stars = int(extra.get("stars", stars))  # type: ignore[arg-type]
        eco = str(extra.get("ecosystem", eco))
        n, u, silent = _plan_outcomes(r, status, kind)
        if extra.get("capped") or extra.get("redirect") == "hand":
            u = silent = 0  # answers everyone (the capped case on too little data to claim an A)
        active = status in ("black_hole", "ranked", "unrated", "undecided")
        merging = status in ("black_hole", "ranked", "unrated")  # a private member shows only by merging
        plans.append(
            RepoPlan(
                index=i,
                status=status,
                kind=kind,
                ecosystem=eco,
                stars=stars,
                fork=extra.get("fork"),  # type: ignore[arg-type]
                n_outside=n,
                n_unanswered=u,
                n_silent=silent,
                private_member=bool(extra.get("private_member", merging and r.random() < 0.06)),
                codeowner_only=bool(extra.get("codeowner_only", active and r.random() < 0.05)),
                hostile=bool(extra.get("hostile", r.random() < 0.02)),
                capped=bool(extra.get("capped", False)),
                redirect=extra.get("redirect"),  # type: ignore[arg-type]
                heavy=bool(extra.get("heavy", False)),
                # Drawn last, so every draw before them is as it was. The CI account needs PRs enough to
                # show its habit (SPEC section 5); the canned reply needs answers to be among.
                own_ci=bool(extra.get("own_ci", active and n >= 5 and r.random() < 0.03)),
                canned=bool(extra.get("canned", status == "ranked" and n - u >= 4 and r.random() < 0.05)),
                withdrawn=bool(extra.get("withdrawn", False)),
                vendored=bool(extra.get("vendored", False)),
                host=draw_host(seed, i, kind, hosts),
            )
        )
    return pair_mirrors(plans)


# What a GitLab or Forgejo project's GitHub mirror can be: the planted repositories that say review
# happens on GitLab (a maintainer's redirect on each PR, a mirror's description) or on Codeberg.
MIRROR_PLANS = frozenset({("undecided", "gitlab"), ("undecided", "forgejo")})
# The projects a mirror is of, first: those with a verdict to link to, then the rest.
_HOME_ORDER = ("ranked", "black_hole", "unrated")


def pair_mirrors(plans: list[RepoPlan]) -> list[RepoPlan]:
    """Each GitHub repository planted as a GitLab or Codeberg project's mirror (`MIRROR_PLANS`) made the
    mirror of one of the world's own projects on that forge (SPEC section 13), one each, ranked ones
    first; a world without such projects keeps its mirrors pointing at hosts outside it."""
    out = list(plans)
    for forge in ("gitlab", "forgejo"):
        homes = sorted((p for p in plans if world_forge(p.host) == forge and p.status in _HOME_ORDER),
                       key=lambda p: (_HOME_ORDER.index(p.status), p.index))
        mirrors = [p for p in plans if p.host == "github.com" and (p.status, p.kind) in MIRROR_PLANS and p.kind == forge]
        for mirror, home in zip(mirrors, homes):
            out[mirror.index] = replace(mirror, mirror_of=home.index)
    return out
