"""Builds one repository of the sample world from its plan: metadata, people, PRs with full
timelines, commits, issues, community files and dependents, with the planted truth of each.

Each repository draws from its own seeded generator, so a world is the same whatever order
or process builds it. Rows use the store's column names; times are ISO-8601 UTC strings.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from porchlamp import forges
from porchlamp.models import DOCUMENT_CHARS
from porchlamp.sample import names
from porchlamp.sample.associations import RepoHistory, user_node_id
from porchlamp.sample.plan import RepoPlan, world_forge

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
RESPONSE = timedelta(days=14)
WINDOW = timedelta(days=183)

HOSTILE_TEXT = (
    '<script>alert("porchlamp-xss")</script>',
    '"><img src=x onerror=alert("porchlamp-xss")>',
    "'; DROP TABLE pulls; --",
    "\u202eevil\u202c right-to-left \u200f mark",
    "{{ 7*7 }} ${7*7} <b>bold</b>",
    '<a href="javascript:alert(1)">click</a>',
)
HOSTILE_LONG = "A very long title " + "x" * 9982  # 10,000 characters
HOSTILE_LABEL = '<img src=x onerror=alert("label")>'
HOSTILE_LOGIN = "mannequin<script>alert('login')</script>"

GFI_LABELS = ("good first issue", "good-first-issue", "beginner", "easy", "first-timers-only", "Good First Issue")
OTHER_LABELS = ("bug", "enhancement", "documentation", "question", "help wanted", "wontfix")

# (login, GraphQL __typename): bots as the GraphQL API shows them.
BOT_AUTHORS = (("dependabot", "Bot"), ("renovate", "Bot"), ("github-actions", "Bot"), ("pre-commit-ci", "Bot"),
               ("k8s-ci-robot", "User"), ("codecov-commenter", "User"))
BOT_COMMENTERS = (
    ("netlify", "Bot", "Deploy Preview for {name} ready! Built with commit abc123. https://deploy-preview.netlify.app"),
    ("codecov-commenter", "User", "## [Codecov](https://app.codecov.io/gh/{repo}) Report\nAll modified lines are covered."),
    ("CLAassistant", "User", "Thank you for your submission! We really appreciate it. Like many open source projects, "
     "we ask that you sign our Contributor License Agreement before we can accept your contribution."),
    ("linux-foundation-easycla", "User", "CLA Not Signed: the committers listed above are not authorized under a signed CLA."),
    ("vercel", "Bot", "[vc]: The latest updates on your projects. Learn more about Vercel for Git."),
)
PERSON_BOT_TEXT = "Deploy Preview for {name} ready!\n\nBuilt without sensitive environment variables. https://deploy-preview.netlify.app"
MERGE_QUEUE = ("github-merge-queue", "Bot")
STALE_BOT = ("stale", "Bot")
# Bots that are plain user accounts: a merge bot (rust-lang's bors), a greeter no list or pattern
# knows (found by what it does), and a CI bot (GitHub Actions posting as an App).
MERGE_BOT = ("bors", "User")
GREETER = ("kindly-greeter", "User")
GREETING = ("Hi there, and thank you for opening this pull request! A maintainer will look at it soon. Meanwhile, "
            "please make sure the checks pass and that the description explains the change.")
CI_APP = ("github-actions", "Bot")
# Automation opening PRs from ordinary user accounts (SPEC section 3), known only by what its PRs say:
# a self-hosted Renovate under an organisation's service account, writing Renovate's PR template, and
# service accounts that post one description of their own on PR after PR, in many repositories.
RENOVATE_BODY = ("This PR contains the following updates:\n\n| Package | Change |\n|---|---|\n| {pkg} | `{a}` -> `{b}` |\n\n---\n\n"
                 "### Configuration\n\n📅 **Schedule**: Branch creation - At any time (no schedule defined).")
# What the tools among BOT_AUTHORS write as a PR's description, each the start of its real template (the
# sources in data/signals.toml, `[[bot_pr_text]]`): on a forge with no bot flag, their text is what shows them.
TOOL_BODIES = {
    "dependabot": "Bumps [{pkg}](https://example.org/{pkg}) from {a} to {b}.\n\nDependabot will resolve any conflicts with this PR "
                  "as long as you don't alter it yourself.",
    "renovate": RENOVATE_BODY,
    "github-actions": "Automated changes by [create-pull-request](https://github.com/peter-evans/create-pull-request) GitHub action",
    "pre-commit-ci": "<!--pre-commit.ci start-->\nupdates:\n- [github.com/psf/black: {a} → {b}](https://github.com/psf/black)\n"
                     "<!--pre-commit.ci end-->",
}
# Bots' PRs whose text is kept as planted (for the first two, all that shows them).
TEXT_PLANTS = ("bot_pr_template", "bot_repeated_text", "bot_type_bot")
SERVICE_ACCOUNTS = {
    "harbor-keeper": ("Refreshes the generated reference pages from schema {v}. Prepared by the documentation pipeline of "
                      "our organisation; merge when the checks are green, and a new one follows when the sources change."),
    "lanternwright": "Sync of the shared lint configuration, version {v}, from the organisation's template repository.",
    "quay-steward": ("Weekly rebuild of the base image pins (release {v}). Opened on a schedule: close it to skip this week, "
                     "the next run opens another."),
}
# A project's own CI under a member's user account (SPEC section 5), and a maintainer's canned reply.
OWN_CI = "Build {n} of {name} finished: {passed} tests passed, {failed} failed. Full log: https://ci.{name}.example.org/job/pr-{number}/{n}/"
CANNED = ("Thanks for contributing to {name}! A second maintainer will look at this within the week; "
          "meanwhile please check that the changelog entry is in place.")
# A deploy-preview notice no curated list knows, posted under a maintainer's own login by an integration.
PREVIEW_NOTICE = "Preview of this change is ready at https://pr-{n}.preview.{name}.example.dev (built from {sha}). It updates on every push."
HAND_REDIRECT = ("Thanks for the patch! We review changes on our mailing list, not on GitHub: please send it with git send-email "
                 "to dev@lists.{name}.example.org, and see CONTRIBUTING for how.")
# The same said of the other review places SPEC section 6 names, in this world's own words.
VENUE_REDIRECTS = {
    "jira": "Thanks! We track changes in JIRA rather than in GitHub pull requests: please open an issue at "
            "https://issues.{name}.example.org/jira/browse/{NAME} and attach the patch there.",
    "bugzilla": "Thanks for the fix. We don't merge pull requests here; please attach the patch to a bug at "
                "https://bugzilla.{name}.example.org so it gets reviewed.",
    "phabricator": "Thank you! Code review for {name} happens on Phabricator: please upload this with arc diff to "
                   "https://phabricator.{name}.example.org.",
    "gitlab": "Thanks! {Name} is developed on GitLab and this repository is only a mirror. Please open a merge request at "
              "{gitlab}.",
    "forgejo": "Thanks! {Name} moved to Codeberg; this GitHub repository is only a mirror. Please open the pull request at "
               "{gitlab}.",
    "sourcehut": "Thanks, but we take patches by email on sourcehut, not pull requests here: please send it to "
                 "~{name}/{name}-devel@lists.sr.ht with git send-email.",
    "savannah": "Thanks! Development happens on Savannah, not on GitHub: please post the patch to the tracker at "
                "https://savannah.nongnu.org/projects/{name}.",
    "trac": "Thanks for the patch. Pull requests here are not reviewed; please open a ticket with it on our Trac: "
            "https://trac.{name}.example.org/newticket",
}
MIRROR_LABEL = "Read-only mirror of {gitlab}"
# Where a mirror of a GitLab project points when its project is not in the world.
GITLAB_ELSEWHERE = "https://gitlab.{name}.example.org/{name}/{name}"
# Where a mirror of a Codeberg project points when its project is not in the world.
CODEBERG_ELSEWHERE = "https://codeberg.org/{name}/{name}"
BYSTANDER_NOTE = "FYI: this is only a mirror of {Name}, so pull requests are not accepted here. See the project's site."
WITHDRAWAL = "PRs here are fine after all, sorry for the noise: looking at {t} now."
VENDORED = "Thanks! {t} is vendored from https://github.com/upstream-org/lib, so please fix it upstream there and we'll pull it in."
DOC_REDIRECTS = {
    # how a project's own documents say PRs are not taken on GitHub (wording after openbmc's PR
    # template, git/git's CONTRIBUTING and FLTK's README)
    "template": ("gerrit", "Please do not submit a Pull Request via github.  Our project makes use of Gerrit for patch submission "
                 "and review: https://review.{name}.example.org/"),
    "contributing": ("mailing_list", "## Contributing to {Name}\n\nThanks for taking the time to contribute! Please be advised that the "
                     "{Name} community does not use github.com for their contributions. Instead, we use a mailing list "
                     "(dev@lists.{name}.example.org) for code submissions, code reviews, and bug reports."),
    "readme": ("repo_lockdown", "# {Name}\n\nThis is a read-only mirror of our main repository. We don't accept pull requests here: "
               "any pull requests will be automatically closed. Please report bugs on the issue tracker."),
}
LONG_TAIL = (50, 500)  # timeline items of a long discussion
LONG_BODY = (8_000, DOCUMENT_CHARS)  # characters of a long PR body

LICENSES_OK = ("MIT", "Apache-2.0", "BSD-3-Clause", "GPL-3.0", "MPL-2.0", "ISC", "LGPL-2.1", "BSD-2-Clause", "AGPL-3.0", "Unlicense")
LICENSES_NON_OSI = ("CC-BY-NC-4.0", "BUSL-1.1", "SSPL-1.0", "CC-BY-4.0", "WTFPL")

ECO_LANG: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # ecosystem -> (languages, root manifests)
    "npm": (("TypeScript", "JavaScript", "CSS"), ("package.json", "tsconfig.json")),
    "PyPI": (("Python", "Cython", "Shell"), ("pyproject.toml",)),
    "Go": (("Go", "Shell"), ("go.mod", "go.sum")),
    "crates.io": (("Rust", "Shell"), ("Cargo.toml", "Cargo.lock")),
    "Systems (C, C++ and others)": (("C", "C++", "Assembly"), ("CMakeLists.txt", "Makefile")),
    "Maven": (("Java", "Kotlin"), ("pom.xml",)),
    "Other": (("Ruby", "Shell"), ("Gemfile", "Rakefile")),
}
PUBLISHING = {"npm", "PyPI", "crates.io", "Maven"}


def ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Person:
    login: str
    type: str
    role: str | None = None  # public OWNER, MEMBER or COLLABORATOR; associations are computed when read


@dataclass
class RepoOut:
    """Rows of one repository, per store table, and its planted truth."""

    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    accounts: dict[str, dict[str, Any]] = field(default_factory=dict)
    truth_repo: dict[str, Any] = field(default_factory=dict)
    truth_prs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, table: str, row: dict[str, Any]) -> None:
        self.rows.setdefault(table, []).append(row)


class Pool:
    """Outside contributors shared by the whole world; a few contribute to many projects."""

    def __init__(self, seed: int, size: int, now: datetime) -> None:
        self.seed, self.size, self.now = seed, size, now

    def pick(self, rng: random.Random) -> int:
        return min(self.size - 1, int(self.size * rng.random() ** 2.0))

    def account(self, k: int) -> dict[str, Any]:
        r = random.Random(f"porchlamp-acct:{self.seed}:{k}")
        login = names.person_login(r, k)
        created = self.now - timedelta(days=r.uniform(250, 4500), seconds=r.randrange(86400))
        return {"login": login, "type": "User", "created_at": ts(created), "node_id": user_node_id(login)}


class PRBuilder:
    """One pull request and its timeline, built event by event."""

    def __init__(self, repo: str, ridx: int, number: int, author: Person | None, created: datetime) -> None:
        self.repo, self.ridx, self.number, self.author, self.created = repo, ridx, number, author, created
        self.items: list[dict[str, Any]] = []
        self.state = "OPEN"
        self.is_draft = False
        self.merged_at: datetime | None = None
        self.merged_by: str | None = None
        self.closed_at: datetime | None = None

    def _item(self, kind: str, at: datetime, who: Person | None, body: str = "", assoc: bool = False,
              review_state: str | None = None) -> None:
        prefix = {"comment": "IC", "review": "PRR"}.get(kind, "E")
        self.items.append({
            "node_id": f"{prefix}_{self.ridx:x}_{self.number}_{len(self.items)}",
            "repo": self.repo,
            "number": self.number,
            "kind": kind,
            "created_at": ts(at),
            "actor": who.login if who else None,
            "actor_type": who.type if who else None,
            "actor_association": "NONE" if assoc else None,  # computed when the world is finished
            "body": body,
            "review_state": review_state,
        })

    def comment(self, at: datetime, who: Person, body: str) -> None:
        self._item("comment", at, who, body, assoc=True)

    def review(self, at: datetime, who: Person, state: str = "COMMENTED", body: str = "") -> None:
        self._item("review", at, who, body, assoc=True, review_state=state)

    def event(self, kind: str, at: datetime, who: Person | None) -> None:
        self._item(kind, at, who)

    def merge(self, at: datetime, who: Person) -> None:
        self.event("merged", at, who)
        self.event("closed", at, who)
        self.state, self.merged_at, self.merged_by, self.closed_at = "MERGED", at, who.login, at

    def close(self, at: datetime, who: Person | None) -> None:
        self.event("closed", at, who)
        self.state, self.closed_at = "CLOSED", at

    def reopen(self, at: datetime, who: Person) -> None:
        self.event("reopened", at, who)
        self.state, self.closed_at = "OPEN", None

    def sort(self) -> None:
        """Items in time order (planted out of order when a discussion is added around an answer)."""
        self.items.sort(key=lambda i: i["created_at"])
        for k, item in enumerate(self.items):
            item["node_id"] = item["node_id"].rsplit("_", 1)[0] + f"_{k:04d}"

    def row(self, title: str, body: str, has_ci: bool) -> dict[str, Any]:
        times = [self.created] + [datetime.strptime(i["created_at"], "%Y-%m-%dT%H:%M:%SZ") for i in self.items]
        return {
            "repo": self.repo,
            "number": self.number,
            "node_id": f"PR_{self.ridx:x}_{self.number}",
            "title": title,
            "author": self.author.login if self.author else None,
            "author_type": self.author.type if self.author else None,
            "author_association": "NONE",  # computed when the world is finished
            "created_at": ts(self.created),
            "is_draft": self.is_draft,
            "state": self.state,
            "merged_at": ts(self.merged_at) if self.merged_at else None,
            "merged_by": self.merged_by,
            "closed_at": ts(self.closed_at) if self.closed_at else None,
            "updated_at": ts(max(times)),
            "body": body,
            "has_ci": has_ci,
        }


class RepoBuilder:
    def __init__(self, plan: RepoPlan, seed: int, as_of: date, pool: Pool, home: RepoPlan | None = None) -> None:
        self.plan = plan
        self.home = home  # the world's GitLab or Forgejo project this repository mirrors (`plan.mirror_of`)
        self.seed = seed
        self.rng = random.Random(f"porchlamp-repo:{seed}:{plan.index}")
        self.now = datetime(as_of.year, as_of.month, as_of.day)
        self.start = self.now - WINDOW
        self.pool = pool
        self.out = RepoOut()
        self.quality = 1.0 if plan.capped else self.rng.random() ** 0.6  # how well run: speeds answers, reviews, CI, docs

    # -- helpers ---------------------------------------------------------------------------

    def between(self, lo: datetime, hi: datetime) -> datetime:
        span = max(1, int((hi - lo).total_seconds()))
        return lo + timedelta(seconds=self.rng.randrange(span))

    def account(self, login: str, type_: str, created: datetime | None) -> None:
        if login not in self.out.accounts:
            self.out.accounts[login] = {"login": login, "type": type_, "created_at": ts(created) if created else None,
                                        "node_id": user_node_id(login) if type_ == "User" else None}

    def bot(self, login: str, type_: str) -> Person:
        self.account(login, type_, datetime(2017, 1, 1))
        return Person(login, type_)

    def text(self, default: str) -> str:
        if self.plan.hostile and self.rng.random() < 0.25:
            return self.rng.choice(HOSTILE_TEXT)
        return default

    # -- the repository --------------------------------------------------------------------

    def identity(self) -> tuple[bool, str, str, str]:
        """Whether its owner is an organisation, its owner, its name and its full name (`host/path`):
        the builder's first draws, so a mirror can be named after its project."""
        p, r = self.plan, self.rng
        org = r.random() < 0.55
        owner = names.org_name(r, p.index) if org else names.person_login(r, 500_000 + p.index)
        name = self._name()
        # On GitLab a group may hold subgroups: a quarter of its projects sit one level down (Forgejo has none).
        group = owner
        if world_forge(p.host) == "gitlab" and org and random.Random(f"porchlamp-subgroup:{self.seed}:{p.index}").random() < 0.25:
            group = f"{owner}/{names.project_name(random.Random(f'porchlamp-subgroup-name:{self.seed}:{p.index}'))}"
        return org, owner, name, forges.join(p.host, f"{group}/{name}")

    def build(self) -> RepoOut:
        p, r = self.plan, self.rng
        org, owner, name, self.nwo = self.identity()
        # `gitlab_url`: where the project's home is said to be (GitLab's, or Codeberg's for a mirror of one).
        self.gitlab_url = (CODEBERG_ELSEWHERE if p.kind == "forgejo" else GITLAB_ELSEWHERE).format(name=name)
        self.home_name = None
        if self.home is not None:  # a mirror carries its project's owner and name, as GNOME/gtk on both forges
            org, owner, name, self.home_name = RepoBuilder(self.home, self.seed, self.now.date(), self.pool).identity()
            self.nwo, self.gitlab_url = f"{owner}/{name}", forges.web_url(self.home_name)
        self.forge = world_forge(p.host)
        self.name, self.gitlab = name, self.forge == "gitlab"
        self._people(owner, org)
        self.publishes = p.ecosystem in PUBLISHING and p.status != "not_software" and r.random() < 0.85
        langs, root, disk, desc, topics = self._content(name)
        license_ = self._license()
        archived = p.kind == "archived"
        mirror = p.kind == "mirror"
        is_fork = p.kind == "fork" or p.fork is not None
        parent = parent_stars = parent_archived = None
        if is_fork and p.fork != "parent_gone":
            parent = forges.join(p.host, f"{names.org_name(r, 900_000 + p.index)}/{name}")
            parent_archived = False
            parent_stars = p.stars * r.randint(3, 40) + 50 if p.kind == "fork" else max(0, p.stars // r.randint(2, 10))
        community = self._community()
        root = set(root) | self._community_files(community)
        repo_row = {
            "name_with_owner": self.nwo,
            "owner_type": "Organization" if org else "User",
            "description": MIRROR_LABEL.format(gitlab=self.gitlab_url) if p.redirect == "description" else desc,
            "homepage_url": "javascript:alert('homepage')" if p.hostile else (f"https://{name}.example.org" if r.random() < 0.4 else None),
            "is_archived": archived,
            "is_fork": is_fork,
            "is_mirror": mirror,
            "parent": parent,
            "parent_stars": parent_stars,
            "parent_archived": parent_archived,
            "stars": p.stars,
            "forks": int(p.stars * r.uniform(0.03, 0.25)),
            "disk_usage_kb": disk,
            "primary_language": max(langs, key=lambda x: x["bytes"])["name"] if langs else None,
            "languages": sorted(langs, key=lambda x: -x["bytes"]),  # as GitHub lists them: largest first
            "topics": sorted(set(topics)),
            "license_spdx": license_,
            "default_branch": r.choice(("main", "main", "master", "develop")),
            "root_files": sorted(root),
            "has_issues": not p.capped and r.random() < 0.92,
            "created_at": ts(self.now - timedelta(days=r.uniform(200, 4000))),
            "pushed_at": None,
            "forge": self.forge,
        }
        self.commit_rows: list[dict[str, Any]] = []
        self._commits()
        self.out.add("repositories", repo_row)
        self.out.add("community", community)
        self._dependents(name)
        self._pulls()
        self._issues(repo_row["has_issues"])
        self._finish_history()
        repo_row["pushed_at"] = max(c["committed_at"] for c in self.commit_rows)
        self.out.truth_repo = {
            "status": p.status,
            "kind": p.kind,
            # Lists, docs and data have no manifest or package: SPEC section 10 files them under Other.
            "ecosystem": "Other" if p.status == "not_software" else p.ecosystem,
            "stars": p.stars,
            "fork": p.fork,
            "outside_prs": p.n_outside,
            "unanswered": p.n_unanswered,
            "closed_silently": p.n_silent,
            "private_member": self.private.login if self.private else None,
            "codeowner_only": self.codeowner.login if self.codeowner else None,
            "review_happens": self.review_place,
            "review_at": self.home_name,  # the world's project it mirrors, where its review happens
            "capped": p.capped,
            "redirect": p.redirect,
            "own_ci": self.own_ci.login if self.own_ci else None,
            "canned_by": self.canned_by.login if self.canned_by else None,
        }
        return self.out

    def _name(self) -> str:
        p, r = self.plan, self.rng
        base = names.project_name(r)
        if p.kind == "awesome_list":
            return f"awesome-{base}"
        if p.kind == "docs_only":
            return f"{base}{r.choice(('-docs', '-handbook', '-guide'))}"
        if p.kind == "data_dump":
            return f"{base}{r.choice(('-dataset', '-data', '-corpus'))}"
        if r.random() < 0.01:
            return f"awesome-{base}"  # a real tool whose name only looks like a list
        return base

    def _people(self, owner: str, org: bool) -> None:
        p, r = self.plan, self.rng
        self.owner = owner
        salt = 1_000_000 + p.index * 16
        self.maintainers: list[Person] = []
        if not org:
            self.maintainers.append(Person(owner, "User", "OWNER"))
        for j in range(r.randint(1, 4)):
            self.maintainers.append(Person(names.person_login(r, salt + j), "User", r.choice(("MEMBER", "COLLABORATOR")) if org else "COLLABORATOR"))
        for m in self.maintainers:
            self.account(m.login, "User", self.now - timedelta(days=r.uniform(400, 5000)))
        if org:
            self.account(owner, "Organization", self.now - timedelta(days=3000))
        self.roles = [{"repo": self.nwo, "login": m.login, "role": m.role} for m in self.maintainers]
        # Private org membership shows no role: such a member reads as CONTRIBUTOR (they commit); only
        # their merges and closes reveal them.
        self.private = Person(names.person_login(r, salt + 10), "User") if p.private_member else None
        if self.private:  # a member all the same: GitHub hides the role, GitLab lists the member
            self.roles.append({"repo": self.nwo, "login": self.private.login, "role": "MEMBER", "public": False})
        # Named in CODEOWNERS, with no association that shows it.
        self.codeowner = Person(names.person_login(r, salt + 11), "User") if p.codeowner_only else None
        for extra in (self.private, self.codeowner):
            if extra:
                self.account(extra.login, "User", self.now - timedelta(days=r.uniform(400, 3000)))
        # Past contributors: commits before the window make them CONTRIBUTOR. A capped project's
        # outside authors are all such (no first-timers: accessibility cannot be measured).
        self.contributors: list[Person] = []
        for _ in range(r.randint(3, 6) if p.capped else r.randint(0, 4)):
            acct = self.pool.account(self.pool.pick(r))
            self.out.accounts.setdefault(acct["login"], acct)
            if acct["login"] not in {c.login for c in self.contributors}:
                self.contributors.append(Person(acct["login"], "User"))
        self.barred: set[str] = set()  # drive-by commenters never become this repository's contributors
        self.review_place: str | None = None

    def _content(self, name: str) -> tuple[list[dict[str, Any]], list[str], int, str | None, list[str]]:
        p, r = self.plan, self.rng
        word = name.removeprefix("awesome-").split("-")[0]
        if p.kind == "awesome_list":
            return [], ["README.md", "LICENSE"], r.randint(200, 3000), \
                f"A curated list of awesome {word} resources", sorted({"awesome", "awesome-list", word[:20]})
        if p.kind == "docs_only":
            langs = [{"name": "HTML", "bytes": r.randint(5_000, 400_000)}, {"name": "CSS", "bytes": r.randint(1_000, 50_000)}] \
                if r.random() < 0.6 else []
            return langs, ["README.md", "mkdocs.yml", "docs"], r.randint(500, 50_000), \
                f"Documentation for the {word} project", ["documentation", "docs"]
        if p.kind == "data_dump":
            langs = [{"name": "Jupyter Notebook", "bytes": r.randint(10_000, 90_000)}] if r.random() < 0.5 else \
                [{"name": "Python", "bytes": r.randint(500, 9_000)}]
            if self.gitlab:
                # GitLab shows outsiders language shares, not bytes, and no repository size: a dump's
                # few bytes of code would read as all of it. On GitLab the world's dumps hold notebooks only.
                langs = [{"name": "Jupyter Notebook", "bytes": langs[0]["bytes"]}]
            return langs, ["README.md", "data", "LICENSE"], r.randint(200_000, 4_000_000), \
                f"Raw {word} data dump, updated monthly", ["dataset", "open-data"]
        lang_names, manifests = ECO_LANG[p.ecosystem]
        total = int(r.lognormvariate(13.0, 1.3)) + 20_000
        langs = []
        share = 1.0
        for i, ln in enumerate(lang_names):
            part = share * (r.uniform(0.6, 0.95) if i < len(lang_names) - 1 else 1.0)
            langs.append({"name": ln, "bytes": max(100, int(total * part))})
            share -= part
        root = ["README.md", "LICENSE", ".github", "src", *manifests]
        if p.ecosystem == "Maven" and self.publishes and r.random() < 0.3:
            root.append("package.json")  # front-end tooling; the published package decides the ecosystem
        if p.ecosystem == "PyPI" and r.random() < 0.3:
            root.remove("pyproject.toml")
            root.append("setup.py")
        disk = int(total / 1024 * r.uniform(1.5, 6)) + 100
        desc = self.text(f"A {word} {r.choice(('library', 'tool', 'framework', 'server', 'toolkit'))} for developers")
        if p.hostile:
            desc = 'See javascript:alert(document.cookie) <script>alert("desc")</script> & "quotes"'
        topics = [t for t in (word[:20], r.choice(("cli", "web", "database", "kernel", "compiler", "ml", "api"))) if t]
        return langs, root, disk, desc, sorted(set(topics))

    def _license(self) -> str | None:
        k, r = self.plan.kind, self.rng
        if k == "no_license":
            return None
        if k == "noassertion":
            return "NOASSERTION"
        if k == "non_osi":
            return r.choice(LICENSES_NON_OSI)
        if k == "awesome_list":
            return r.choice(("CC0-1.0", "CC-BY-4.0", None))
        return r.choice(LICENSES_OK)

    # -- commits on the default branch -----------------------------------------------------

    def commit(self, at: datetime, login: str | None, name: str, type_: str | None, message: str) -> None:
        self.commit_rows.append({"repo": self.nwo, "oid": f"{self.rng.getrandbits(160):040x}", "committed_at": ts(at),
                                 "author_login": login, "author_name": name, "author_type": type_, "message": message})

    def _commits(self) -> None:
        """Commits made directly on the default branch (merged PRs add theirs as they merge)."""
        p, r = self.plan, self.rng
        humans = self.maintainers + [x for x in (self.private,) if x]
        commit = self.commit
        for c in self.contributors:  # what makes them past contributors: commits before the window
            for _ in range(r.randint(1, 3)):
                commit(self.between(self.start - 900 * DAY, self.start - 3 * DAY), c.login, c.login.title(), "User", "Fix a bug")

        stale = p.status == "stale"
        last_human = self.between(self.start - 700 * DAY, self.start - 2 * DAY) if stale else self.between(self.now - 60 * DAY, self.now - HOUR)
        for _ in range(r.randint(2, 6)):  # older history
            m = r.choice(humans)
            commit(self.between(last_human - 600 * DAY, last_human), m.login, m.login.title(), "User", "Refactor internals")
        m = r.choice(humans)
        trailer = ""
        if p.kind == "gerrit":
            trailer = f"\n\nChange-Id: I{r.getrandbits(160):040x}\nReviewed-on: https://go-review.googlesource.com/c/{self.name}/+/{r.randint(10000, 99999)}"
        commit(last_human, m.login, m.login.title(), "User", "Release notes" + trailer)
        if not stale:
            for _ in range(r.randint(2, 25)):
                at = self.between(self.start, self.now - HOUR)
                if r.random() < 0.1:
                    commit(at, None, names.person_name(r), None, "Fix build" + trailer)  # unlinked e-mail: still a person
                else:
                    m = r.choice(humans)
                    commit(at, m.login, m.login.title(), "User", "Improve docs" + trailer)
        if p.kind == "bot_commits_only" or (not stale and r.random() < 0.5):
            for _ in range(r.randint(2, 12)):
                at = self.between(self.start, self.now - HOUR)
                if r.random() < 0.5:
                    # A commit's author is a GitActor whose `user` is a User: an app's commit carries only its name.
                    commit(at, None, "dependabot[bot]", None, "Bump lodash from 4.17.20 to 4.17.21")
                    self.bot("dependabot", "Bot")
                else:
                    commit(at, None, "github-actions[bot]", None, "chore: update generated files")

    def _finish_history(self) -> None:
        """Write the repository's commits, PRs and timelines, with every association computed as GitHub
        computes it when read (here: at the snapshot), and each PR's first-timer truth from history."""
        history = RepoHistory.of(self.roles, self.commit_rows)
        at = ts(self.now)
        first: dict[str, str] = {}
        for c in self.commit_rows:
            if c["author_login"]:
                key = c["author_login"].lower()
                first[key] = min(first.get(key, c["committed_at"]), c["committed_at"])
        for b, *_ in self.built:
            if b.author and b.merged_at:
                key = b.author.login.lower()
                first[key] = min(first.get(key, ts(b.merged_at)), ts(b.merged_at))
        for row in sorted(self.commit_rows, key=lambda c: c["committed_at"]):
            self.out.add("commits", row)
        first_pr: dict[str, int] = {}
        for b, *_ in sorted(self.built, key=lambda x: (x[0].created, x[0].number)):
            if b.author:
                first_pr.setdefault(b.author.login.lower(), b.number)
        for b, title, body, has_ci, truth in self.built:
            b.sort()
            row = b.row(title, body, has_ci)
            author = b.author
            row["author_association"] = history.association(
                author.login, author.type, at, first_pr.get(author.login.lower()) == b.number) if author else "NONE"
            self.out.add("pulls", row)
            for item in b.items:
                if item["actor_association"] is not None:
                    item["actor_association"] = history.association(item["actor"], item["actor_type"], at, False)
                self.out.add("timeline", item)
            seen = first.get(author.login.lower()) if author else None
            truth["first_timer"] = author is not None and (seen is None or seen >= row["created_at"])
            self.out.truth_prs.append((f"{self.nwo}#{b.number}", truth))
        self.out.rows["roles"] = list(self.roles)

    # -- community files, dependents, issues -----------------------------------------------

    @staticmethod
    def _community_files(c: dict[str, Any]) -> set[str]:
        """The root tree entries the community files put there, so a listing of the tree shows them."""
        files = {name for key, name in (("contributing", "CONTRIBUTING.md"), ("code_of_conduct", "CODE_OF_CONDUCT.md"),
                                        ("security_policy", "SECURITY.md"), ("governance", "GOVERNANCE.md")) if c[key]}
        files |= {path for path in c["ai_policy"] if "/" not in path}
        if c["codeowners"] or c["pr_template"] or any(path.startswith(".github/") for path in c["ai_policy"]):
            files.add(".github")
        return files

    def _community(self) -> dict[str, Any]:
        p, r = self.plan, self.rng
        good = p.status in ("ranked", "unrated")
        owners = [m.login for m in self.maintainers if r.random() < 0.5] if r.random() < 0.35 else []
        if self.codeowner:
            owners.append(self.codeowner.login)
        template = None
        if p.kind == "repo_lockdown" and p.redirect is None:
            template = "This repository does not accept pull requests. Patches go to our Gerrit; see CONTRIBUTING.md."
        elif r.random() < 0.2:
            template = "## What does this PR do?\n\n- [ ] Tests added"
        ai = []
        if r.random() < 0.12:
            ai.append(r.choice(("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md")))
        name = self.name
        contributing = r.random() < (0.45 + 0.5 * self.quality if good else 0.4)
        guide = (f"# Contributing to {name}\n\nThanks for helping! Open an issue first for large changes. Run the tests "
                 f"before you send a pull request.")
        if r.random() < 0.3:
            # A narrower refusal (React's CONTRIBUTING says this of stable branches): PRs are still taken.
            guide += " We maintain stable branches separately but we don't accept pull requests to them directly."
        readme = f"# {name}\n\n{self.nwo} helps developers. Join the mailing list for release announcements."
        if p.redirect in DOC_REDIRECTS:
            text = DOC_REDIRECTS[p.redirect][1].format(name=name, Name=name.title())
            if p.redirect == "template":
                template = text
            elif p.redirect == "contributing":
                contributing, guide = True, text
            else:
                readme = text
        return {
            "repo": self.nwo,
            "contributing": contributing,
            "code_of_conduct": r.random() < (0.25 + 0.6 * self.quality if good else 0.25),
            "security_policy": r.random() < (0.15 + 0.6 * self.quality if good else 0.15),
            "governance": r.random() < 0.1,
            "codeowners": sorted(set(owners)),
            "ai_policy": ai,
            "pr_template": template,
            "contributing_text": guide if contributing else None,
            "readme_text": readme,
        }

    def _dependents(self, name: str) -> None:
        p, r = self.plan, self.rng
        if self.publishes:
            has_data = r.random() < 0.9
            self.out.add("dependents", {
                "repo": self.nwo,
                "ecosystem": p.ecosystem,
                "package": name if p.ecosystem != "Maven" else f"org.{name.replace('-', '')}:{name}",
                "dependent_packages": int(r.lognormvariate(2.5, 2.0)) if has_data else None,
                "dependent_repos": int(r.lognormvariate(4.0, 2.2)) if has_data else None,
            })

    def _issues(self, enabled: bool) -> None:
        r = self.rng
        if not enabled:
            return
        for _ in range(r.randint(0, 25)):
            labels = set()
            if r.random() < 0.1 + 0.4 * self.quality:
                labels.add(r.choice(GFI_LABELS))
            if r.random() < 0.5:
                labels.add(r.choice(OTHER_LABELS))
            if self.plan.hostile and r.random() < 0.3:
                labels.add(HOSTILE_LABEL)
            self.issue_specs.append((self.between(self.start - 720 * DAY, self.now - HOUR), sorted(labels),
                                     "OPEN" if r.random() < 0.6 else "CLOSED", r.random() < 0.3))
        for number, (at, labels, state, assigned) in enumerate(sorted(self.issue_specs), start=self.next_number):
            self.out.add("issues", {"repo": self.nwo, "number": number, "title": self.text(names.pr_title(r)),
                                    "state": state, "labels": labels, "assignees": 1 if assigned else 0,
                                    "created_at": ts(at)})

    # -- pull requests ---------------------------------------------------------------------

    def _pulls(self) -> None:
        p, r = self.plan, self.rng
        self.issue_specs: list[tuple[datetime, list[str], str, bool]] = []
        self.built: list[tuple[PRBuilder, str, str, bool, dict[str, Any]]] = []
        latest_judgeable = self.now - RESPONSE - HOUR
        specs: list[tuple[datetime, str, str]] = []  # (clock start, group, outcome or reason)
        outcomes = ["unanswered"] * p.n_unanswered + ["closed_silently"] * p.n_silent
        outcomes += ["answered"] * (p.n_outside - len(outcomes))
        for oc in outcomes:
            specs.append((self.between(self.start + DAY, latest_judgeable), "outside", oc))
        n_excluded = max(2, int(p.n_outside * r.uniform(1.0, 2.6)) + r.randint(0, 6))
        if p.status in ("not_software", "not_real_project"):
            n_excluded = r.randint(0, 6)
        reasons = ("bot", "maintainer", "brand_new_account", "draft", "self_closed", "too_young", "deleted_author",
                   "mannequin", "before_window")
        weights = (40, 32, 4, 4, 6, 8, 1.5, 0.8, 3)
        for reason in r.choices(reasons, weights=weights, k=n_excluded):
            specs.append((self.between(self.start + DAY, latest_judgeable), "excluded", reason))
        # The tricky maintainers each author a PR, and the private member merges a colleague's.
        if self.private:
            specs.append((self.between(self.start + DAY, latest_judgeable), "excluded", "maintainer:private"))
            specs.append((self.between(self.start + DAY, latest_judgeable), "excluded", "maintainer:merged_by_private"))
        if self.codeowner:
            specs.append((self.between(self.start + DAY, latest_judgeable), "excluded", "maintainer:codeowner"))
        if p.hostile:  # an imported placeholder account whose login is hostile text
            specs.append((self.between(self.start + DAY, latest_judgeable), "excluded", "mannequin"))
        if self.plan.status == "undecided":
            name = self.name
            self.review_place = {
                "gerrit": f"https://go-review.googlesource.com/q/project:{name}",
                "mailing_list": "the pgsql-hackers mailing list",
                "repo_lockdown": "Gerrit (PR template: this repository does not accept pull requests)",
            }.get(self.plan.kind, "")
            if p.redirect == "hand":
                self.review_place = (VENUE_REDIRECTS[p.kind] if p.kind in VENUE_REDIRECTS else f"dev@lists.{name}.example.org")
                self.review_place = self.review_place.format(name=name, Name=name.title(), NAME=name.upper(), gitlab=self.gitlab_url)
            elif p.redirect == "description":
                self.review_place = self.gitlab_url
            elif p.redirect == "bystander":
                self.review_place = f"outside {forges.FORGE_NAMES[self.forge]}"  # no place named
            elif p.redirect in DOC_REDIRECTS:
                self.review_place = DOC_REDIRECTS[p.redirect][1].format(name=name, Name=name.title())
        specs.sort()
        self.seen_authors: dict[str, int] = {}
        # Stale projects merge nothing in the window (a merge is a commit), nor do those reviewing elsewhere.
        self.no_merges = p.status in ("stale", "undecided")
        self.ci_share = min(1.0, max(0.0, self.quality * 1.1 + r.uniform(-0.3, 0.1)))
        # Well-run projects answer faster: a typical first response from about 1 hour to 4 days.
        self.pace_hours = 96 ** (1 - self.quality)
        active = p.status in ("ranked", "unrated", "black_hole")
        # Habits of some projects, each planted where it cannot change the planted verdict.
        self.uses_bors = active and r.random() < 0.12  # merges go through a merge bot under a user account
        self.greets = active and r.random() < 0.15  # an unlisted greeter account welcomes each PR
        self.previews = active and r.random() < 0.08 and p.n_outside >= 3  # a preview notice under a maintainer's login
        self.label_bot = Person(f"{_flat(self.name)}bot", "User") if active and r.random() < 0.1 else None
        if self.label_bot:
            self.account(self.label_bot.login, "User", self.now - 800 * DAY)
        self.heavy = p.heavy  # most PR bodies are long: queries over them time out until split
        # Both drawn apart from the world's stream, which stays as it was.
        self.own_ci: Person | None = None
        if p.own_ci:
            login = names.person_login(random.Random(f"porchlamp-own-ci:{self.nwo}"), 1_000_000 + p.index * 16 + 12)
            org = any(m.role == "MEMBER" for m in self.maintainers)
            self.own_ci = Person(login, "User", "MEMBER" if org else "COLLABORATOR")
            self.account(login, "User", self.now - 900 * DAY)
            self.roles.append({"repo": self.nwo, "login": login, "role": self.own_ci.role})
        self.canned_by = self.maintainers[-1] if p.canned else None
        self.canned_turn = 0
        number = 0
        for start, group, what in specs:
            number += 1
            if group == "outside":
                self._outside(number, start, what)
            else:
                self._excluded(number, start, what)
        self.next_number = number + 1

    def _outsider(self, start: datetime) -> Person:
        """An outside author: sometimes one who already sent a PR here (they came back), or a past contributor."""
        r = self.rng
        if self.plan.capped:  # only past contributors: no first-timers to measure
            return r.choice(self.contributors)
        if self.seen_authors and r.random() < 0.2:
            return Person(r.choice(sorted(self.seen_authors)), "User")
        if self.contributors and r.random() < 0.15:
            return r.choice(self.contributors)
        while True:
            acct = self.pool.account(self.pool.pick(r))
            if acct["login"] not in self.barred:
                break
        self.out.accounts.setdefault(acct["login"], acct)
        return Person(acct["login"], "User")

    def _finish(self, b: PRBuilder, truth: dict[str, Any], body: str = "") -> None:
        r = self.rng
        if self.own_ci:
            ro = random.Random(f"porchlamp-own-ci:{self.nwo}:{b.number}")
            at = b.created + timedelta(hours=ro.uniform(2, 30))
            if at < self.now:
                b.comment(at, self.own_ci, OWN_CI.format(n=ro.randint(100, 9999), name=self.name, number=b.number,
                                                         passed=ro.randint(200, 900), failed=ro.choice((0, 0, 1, 3))))
        title = self.text(names.pr_title(r))
        if self.plan.hostile and b.number == 1:
            title = HOSTILE_LONG
        planted = body if truth.get("case") in TEXT_PLANTS else ""
        if not body or planted:  # a planted text is drawn for too, so the world's later draws stay as they were
            body = "This change fixes the problem described in the linked issue."
            if r.random() < 0.06:
                body += "\n\n🤖 Generated with Claude Code"
            if r.random() < (0.6 if self.heavy else 0.004):
                body = self._long_text(r.randint(*LONG_BODY), body)
        if b.merged_at is not None and b.author is not None:  # squash-merged: the author's commit lands
            self.commit(b.merged_at, b.author.login if b.author.type == "User" else None,
                        b.author.login if b.author.type == "User" else f"{b.author.login}[bot]",
                        b.author.type if b.author.type == "User" else None, f"{title[:72]} (#{b.number})")
        shown = self.text(body)
        self.built.append((b, title, planted or shown, r.random() < self.ci_share, truth))

    def _long_text(self, size: int, head: str) -> str:
        """A long body: the head, then sections of a design note, log or checklist, up to `size` characters."""
        r = self.rng
        parts = [head, "\n\n## Details\n"]
        n = len(head) + 12
        while n < size:
            line = f"- step {len(parts)}: {names.pr_title(r)} ({r.getrandbits(32):08x})\n"
            parts.append(line)
            n += len(line)
        return "".join(parts)[:size]

    def _responder(self, author: Person) -> Person:
        """Someone whose reply is the project answering: a maintainer or a past contributor."""
        r = self.rng
        if self.codeowner and r.random() < 0.3:
            return self.codeowner
        if self.private and r.random() < 0.3:
            return self.private
        others = [c for c in self.contributors if c.login != author.login]
        if others and r.random() < 0.12:
            return r.choice(others)
        return r.choice(self.maintainers)

    def _maintainer(self) -> Person:
        if self.private and self.rng.random() < 0.4:
            return self.private
        return self.rng.choice(self.maintainers)

    def _public_maintainer(self, not_login: str | None = None) -> Person:
        """A maintainer whose role shows on everything they do (not the private member)."""
        pool = [m for m in self.maintainers if m.login != not_login] or self.maintainers
        return self.rng.choice(pool)

    def _opening(self, b: PRBuilder, start: datetime, author: Person) -> None:
        """What happens in the first minutes of an outside PR on some projects: CODEOWNERS' automatic
        review request (GitHub files it under the author), a greeter, a preview notice, a label bot."""
        r = self.rng
        if self.out.rows.get("community") and self.out.rows["community"][0]["codeowners"]:
            b.event("review_requested", start + timedelta(seconds=20), author)
        if self.greets:
            b.comment(start + timedelta(seconds=r.randint(5, 50)), self.bot(*GREETER), GREETING)
            if r.random() < 0.5:
                b.event("labeled", start + timedelta(seconds=r.randint(51, 90)), Person(*GREETER))
        if self.previews:
            who = self._public_maintainer(author.login)
            b.comment(start + timedelta(seconds=r.randint(60, 240)), who,
                      PREVIEW_NOTICE.format(n=b.number, name=self.name, sha=f"{r.getrandbits(28):07x}"))
        if self.label_bot:
            b.event("labeled", start + timedelta(seconds=r.randint(30, 300)), self.label_bot)

    def _outside(self, number: int, start: datetime, outcome: str) -> None:
        r = self.rng
        author = self._outsider(start)
        draft = r.random() < 0.05 and start - self.start > 20 * DAY
        created = start - timedelta(days=r.uniform(15, 18)) if draft else start
        b = PRBuilder(self.nwo, self.plan.index, number, author, created)
        if draft:
            b.event("ready_for_review", start, author)
        if self.plan.status != "undecided":
            self._opening(b, start, author)
        truth: dict[str, Any] = {"outside": True, "excluded": None, "outcome": outcome, "first_response": None,
                                 "case": "", "opened_as_draft": draft}
        room = self.now - start  # time left before the snapshot
        if outcome == "answered":
            self._answer(b, start, author, truth, room)
        elif outcome == "closed_silently":
            if r.random() < 0.3:
                b.event("labeled", start + self.between_td(HOUR, 2 * DAY), self._maintainer())
            b.close(start + self.between_td(2 * HOUR, RESPONSE - HOUR), self._maintainer())
            truth["case"] = "silent_close"
        else:
            truth["case"] = self._no_answer(b, start, author, room)
        self.seen_authors[author.login] = int(b.state == "MERGED") or self.seen_authors.get(author.login, 0)
        self._finish(b, truth)

    def _merger(self, author: Person, merger: Person | None = None) -> Person:
        """Who presses merge: a maintainer, or on some projects the merge bot they instruct."""
        if self.uses_bors:
            return self.bot(*MERGE_BOT)
        return merger or self._maintainer()

    def _reviewed_merge(self, b: PRBuilder, at: datetime, author: Person, merger: Person | None = None) -> None:
        """A merge, reviewed first by another maintainer as often as this project reviews."""
        merger = merger or self._maintainer()
        if self.rng.random() < self.quality:
            reviewer = next((m for m in self.maintainers if m.login not in (author.login, merger.login)), merger)
            if reviewer.login != author.login:
                b.review(at - timedelta(minutes=30), reviewer, "APPROVED")
        if self.uses_bors:
            instructor = next((m for m in self.maintainers if m.login != author.login), merger)
            b.comment(at - timedelta(minutes=20), instructor, "@bors r+")
            b.comment(at - timedelta(minutes=19), self.bot(*MERGE_BOT), f"\N{HOURGLASS} Testing commit {self.rng.getrandbits(40):010x} with merge")
            b.comment(at - timedelta(minutes=1), self.bot(*MERGE_BOT), "\N{BLACK SUN WITH RAYS} Test successful - checks-actions")
        b.merge(at, self._merger(author, merger))

    def delay(self) -> timedelta:
        """How long a responder takes: heavy-tailed around this project's own pace, within the window."""
        hours = self.rng.lognormvariate(math.log(self.pace_hours), 1.2)
        return timedelta(hours=min(max(hours, 0.05), RESPONSE.total_seconds() / 3600 - 1))

    def between_td(self, lo: timedelta, hi: timedelta) -> timedelta:
        return lo + timedelta(seconds=self.rng.randrange(max(1, int((hi - lo).total_seconds()))))

    def _answer(self, b: PRBuilder, start: datetime, author: Person, truth: dict[str, Any], room: timedelta) -> None:
        r = self.rng
        if self.plan.redirect == "hand":  # review elsewhere, said by hand: an answer for each PR (SPEC section 5)
            at = start + self.delay()
            who = self._public_maintainer(author.login)
            name = self.name
            b.comment(at, who, VENUE_REDIRECTS.get(self.plan.kind, HAND_REDIRECT).format(name=name, Name=name.title(), NAME=name.upper(),
                                                                                          gitlab=self.gitlab_url))
            if r.random() < 0.5 and at + DAY < self.now:
                b.close(at + self.between_td(HOUR, DAY), who)
            truth["case"] = "redirect_by_hand"
            truth["first_response"] = {"kind": "comment", "actor": who.login, "at": ts(at)}
            return
        if self.plan.withdrawn:  # pointed elsewhere, then told PRs here are fine: answered, not redirected
            at = start + self.delay()
            who = self._public_maintainer(author.login)
            b.comment(at, who, HAND_REDIRECT.format(name=self.name))
            b.comment(at + self.between_td(HOUR, 6 * HOUR), who, self._own_words(b.number, WITHDRAWAL))
            truth["case"] = "redirect_withdrawn"
            truth["first_response"] = {"kind": "comment", "actor": who.login, "at": ts(at)}
            return
        variant = r.choices(("comment", "review", "merge", "merge_queue", "exact", "after_bot", "late_page"),
                            weights=(40, 24, 18, 4, 3, 8, 3))[0]
        if self.no_merges and variant in ("merge", "merge_queue"):
            variant = "comment"  # a merged outside PR would put a human commit on a stale branch
        truth["case"] = f"answered_{variant}"
        at = start + (RESPONSE if variant == "exact" else self.delay())
        if variant == "after_bot":
            login, type_, text = r.choice(BOT_COMMENTERS)
            b.comment(start + timedelta(minutes=2), self.bot(login, type_), text.format(name=self.name, repo=self.nwo))
            variant = "comment"
        elif variant == "late_page":
            # The first answer comes after a page's worth of CI reports: only a later timeline page shows it.
            runs = r.randint(26, 60)
            at = max(at, start + timedelta(minutes=3 * runs + 10))
            for k in range(runs):
                b.comment(start + timedelta(minutes=3 * k + 4), self.bot(*CI_APP), f"CI run {k + 1} of {runs}: all checks passed on {r.getrandbits(28):07x}.")
            variant = "comment"
        who = self._responder(author)
        if variant in ("comment", "exact"):
            words = self._own_words(b.number, r.choice(("Thanks! Could you add a test for {t}?", "LGTM, thanks.", "Looking at {t} now.")))
            if who == self.canned_by:  # every other answer of theirs is the canned reply
                self.canned_turn += 1
                words = CANNED.format(name=self.name) if self.canned_turn % 2 else words
            elif self.plan.vendored and b.number % 2:  # a fix for code vendored from elsewhere: still an answer
                words = self._own_words(b.number, VENDORED)
                truth["case"] = "answered_vendored"
            b.comment(at, who, words)
            kind = "comment"
        elif variant == "review":
            who = self._maintainer() if who in self.contributors and r.random() < 0.5 else who
            b.review(at, who, r.choice(("APPROVED", "CHANGES_REQUESTED", "COMMENTED")), "")
            kind = "review"
        elif variant == "merge":
            who = self._maintainer()
            b.merge(at, who)
            kind = "merge"
        else:
            who = self.bot(*MERGE_QUEUE)
            b.merge(at, who)
            kind = "merge"
        truth["first_response"] = {"kind": kind, "actor": who.login, "at": ts(at)}
        if b.state == "OPEN" and r.random() < (0.04 if not self.heavy else 0.3):
            at = self._discussion(b, at, author)
        if b.state == "OPEN" and r.random() < 0.6:
            later = at + self.between_td(HOUR, 20 * DAY)
            if later < self.now:
                if r.random() < 0.75 and not self.no_merges:
                    self._reviewed_merge(b, later, author)
                else:
                    b.close(later, self._maintainer())

    def _own_words(self, number: int, reply: str) -> str:
        """A person's reply in their own words: it names the change it answers, as people do, so one
        person's replies are not one text repeated, here or across projects (a bot's mark and a
        template's, SPEC section 5). The change is drawn apart from the world's stream, which stays as
        it was."""
        change = names.pr_title(random.Random(f"porchlamp-words:{self.nwo}:{number}")).lower()
        return reply.format(t=f"the {change} part of {self.name}")

    def _discussion(self, b: PRBuilder, after: datetime, author: Person) -> datetime:
        """A long thread after the first answer (50 to 500 timeline items): review rounds, pings, labels,
        CI reports, the author converting to draft and back, a close and reopen. Only public maintainers
        act in it, so nothing here changes who is a maintainer; comments are the author's and theirs."""
        r = self.rng
        n = r.randint(*LONG_TAIL)
        end = min(self.now - 2 * DAY, after + 60 * DAY)
        if end <= after + timedelta(minutes=n):
            return after
        times = sorted(self.between(after + timedelta(seconds=1), end) for _ in range(n))
        draft_open = False
        for k, at in enumerate(times):
            roll = r.random()
            m = self._public_maintainer(author.login)
            if roll < 0.3:
                b.comment(at, author, f"Pushed revision {k} ({r.getrandbits(28):07x})." if r.random() < 0.8
                          else self._long_text(r.randint(1_000, 6_000), f"Notes on revision {k}:"))
            elif roll < 0.5:
                b.comment(at, m, f"Round {k}: {names.pr_title(r).lower()}?")
            elif roll < 0.6:
                b.review(at, m, r.choice(("COMMENTED", "CHANGES_REQUESTED")), f"See inline notes ({k}).")
            elif roll < 0.7:
                b.comment(at, self.bot(*CI_APP), f"CI run {k}: {r.choice(('passed', 'failed'))} on {r.getrandbits(28):07x}.")
            elif roll < 0.8:
                b.event(r.choice(("labeled", "assigned")), at, m)
            elif roll < 0.88:
                b.event("review_requested", at, author)  # re-requests of review are filed under the author
            elif roll < 0.94:
                b.event("ready_for_review" if draft_open else "converted_to_draft", at, author)
                draft_open = not draft_open
            else:
                b.close(at, m)
                b.reopen(at + timedelta(seconds=1), m)
        if draft_open:  # ready again before anything else can happen to it
            b.event("ready_for_review", times[-1] + timedelta(seconds=2), author)
        return times[-1] + timedelta(seconds=2)

    def _no_answer(self, b: PRBuilder, start: datetime, author: Person, room: timedelta) -> str:
        """Plant one way of getting no answer in time; returns its name."""
        r = self.rng
        late_ok = room > RESPONSE + 4 * DAY
        variants = ["nothing", "bot_only", "bot_text_person", "author_only", "drive_by", "label_only", "bot_closed"]
        weights = [40, 15, 4, 10, 6, 8, 3]
        if late_ok:
            variants += ["day15", "author_closed_late"]
            weights += [6, 4]
        v = r.choices(variants, weights=weights)[0]
        if self.plan.status == "undecided":
            v = "nothing"  # the bridge bot below is what such a PR sees
        soon = start + self.between_td(HOUR, RESPONSE - HOUR)
        if v == "bot_only":
            login, type_, text = r.choice(BOT_COMMENTERS)
            b.comment(soon, self.bot(login, type_), text.format(name=self.name, repo=self.nwo))
        elif v == "bot_text_person":
            # An integration posting under a maintainer's own account: bot text, not an answer.
            b.comment(soon, r.choice(self.maintainers), PERSON_BOT_TEXT.format(name=self.name))
        elif v == "author_only":
            b.comment(soon, author, "Friendly ping: any chance someone could take a look?")
        elif v == "drive_by":
            other = self.pool.account(self.pool.pick(r))
            known = {c.login for c in self.contributors} | set(self.seen_authors) | {author.login}
            if other["login"] not in known:
                self.out.accounts.setdefault(other["login"], other)
                self.barred.add(other["login"])  # never a contributor here: "+1" stays a stranger's
                b.comment(soon, Person(other["login"], "User"), "+1, would love this merged")
            else:
                v = "nothing"
        elif v == "label_only":
            who = self._maintainer()
            b.event(r.choice(("labeled", "assigned", "review_requested")), soon, who)
        elif v == "bot_closed":
            b.comment(soon, self.bot(*STALE_BOT), "This pull request has been automatically marked as stale.")
            b.close(soon + HOUR, self.bot(*STALE_BOT))
        elif v == "day15":
            at = start + RESPONSE + self.between_td(timedelta(seconds=1), 3 * DAY)
            b.comment(at, self._responder(author), self._own_words(b.number, "Sorry for the delay, looking at {t} now."))
        elif v == "author_closed_late":
            b.close(start + RESPONSE + self.between_td(DAY, 3 * DAY), author)
        if self.plan.status == "undecided":
            self._bridge(b, start)
            v = f"bridge_{self.plan.kind}" if self.plan.redirect is None else f"documents_{self.plan.redirect}"
        return v

    def _bridge(self, b: PRBuilder, start: datetime) -> None:
        """How off-GitHub review shows on a PR: a bridge bot's comment, often a close. Projects that
        say so in their own documents show nothing on the PR."""
        k = self.plan.kind
        if self.plan.redirect == "bystander":  # a passer-by, never one of the project's people
            other = self.pool.account(self.pool.pick(self.rng))
            if other["login"] not in {c.login for c in self.contributors} | set(self.seen_authors) | {b.author.login}:
                self.out.accounts.setdefault(other["login"], other)
                self.barred.add(other["login"])
                b.comment(start + self.between_td(HOUR, DAY), Person(other["login"], "User"),
                          BYSTANDER_NOTE.format(Name=self.name.title()))
            return
        if self.plan.redirect is not None:
            return
        at = start + timedelta(minutes=5)
        if k == "gerrit":
            bot = self.bot(*self.rng.choice((("gerritbot", "User"), ("gopherbot", "User"))))
            b.comment(at, bot, f"This PR (HEAD: {self.rng.getrandbits(40):010x}) has been imported to Gerrit for code review.\n\n"
                               f"Please visit {self.review_place} to see it.")
        elif k == "mailing_list":
            bot = self.bot("postgres-mirror", "User")
            b.comment(at, bot, "Thanks for the patch! This repository is a read-only mirror; please send patches to the pgsql-hackers mailing list.")
            b.close(at + timedelta(minutes=1), bot)
        elif k == "repo_lockdown":
            bot = self.bot("repo-lockdown", "Bot")
            b.comment(at, bot, "This repository does not accept pull requests, see the README for details.")
            b.close(at + timedelta(minutes=1), bot)

    def _excluded(self, number: int, start: datetime, reason: str) -> None:
        r = self.rng
        reason, _, how = reason.partition(":")
        truth: dict[str, Any] = {"outside": False, "excluded": reason, "outcome": None, "first_response": None,
                                 "case": reason + (f"_{how}" if how else "")}
        body = ""
        created = start
        author: Person | None
        if reason == "bot":
            kind = r.random()
            if kind < 0.7:
                author = self.bot(*r.choice(BOT_AUTHORS))
                truth["case"] = "bot_type_bot" if author.type == "Bot" else "bot_known_user"
                if author.login in TOOL_BODIES:
                    body = TOOL_BODIES[author.login].format(pkg=names.pr_title(random.Random(number))[:20].split(" ")[0].lower(),
                                                            a=f"1.{number % 9}.0", b=f"1.{number % 9 + 1}.0")
            else:
                # Which user account acting as a bot, drawn apart from the world's own draws so that
                # the rest of the world stays as it was, and the same whichever forge the project is on.
                how_bot = random.Random(f"porchlamp-bot-pr:{self.plan.index}:{number}").random()
                if how_bot < 0.5:
                    truth["case"] = "bot_pattern_user"  # known only by its name's pattern
                    login = f"{self.owner[:20]}-release-bot"
                elif how_bot < 0.75:
                    truth["case"] = "bot_pr_template"  # a name like any, writing a tool's PR template
                    login = f"{self.owner[:20]}-renovate"
                    body = RENOVATE_BODY.format(pkg=names.pr_title(random.Random(number))[:20], a=f"1.{number % 9}.0",
                                                b=f"1.{number % 9 + 1}.0")
                else:
                    truth["case"] = "bot_repeated_text"  # a name like any, posting one text of its own again and again
                    login = sorted(SERVICE_ACCOUNTS)[number % len(SERVICE_ACCOUNTS)]
                    body = SERVICE_ACCOUNTS[login].format(v=f"{number % 7}.{number % 5}")
                self.account(login, "User", self.now - 900 * DAY)
                author = Person(login, "User")
        elif reason == "maintainer":
            author = {"private": self.private, "codeowner": self.codeowner}.get(how) or r.choice(self.maintainers)
        elif reason == "brand_new_account":
            acct = self.pool.account(10_000_000 + self.plan.index * 1000 + number)
            acct["created_at"] = ts(created - self.between_td(HOUR, 29 * DAY))
            self.out.accounts[acct["login"]] = acct
            author = Person(acct["login"], "User")
        elif reason == "deleted_author":
            author = None
        elif reason == "mannequin":
            login = HOSTILE_LOGIN if self.plan.hostile else f"mannequin-{self.plan.index}-{number}"
            self.account(login, "Mannequin", None)
            author = Person(login, "Mannequin")
        else:
            author = self._outsider(start)
        if reason == "too_young":
            created = self.between(self.now - RESPONSE + HOUR, self.now - HOUR)
        elif reason == "before_window":
            created = self.between(self.start - 200 * DAY, self.start - DAY)
        b = PRBuilder(self.nwo, self.plan.index, number, author, created)
        if reason == "draft":
            b.is_draft = True
            if r.random() < 0.3:
                b.comment(created + self.between_td(HOUR, 5 * DAY), r.choice(self.maintainers), "Ping us when it is ready.")
        elif reason == "self_closed":
            b.close(created + self.between_td(HOUR, 10 * DAY), author)
        elif reason in ("too_young", "before_window"):
            if r.random() < 0.5:
                at = created + self.between_td(HOUR, 2 * DAY)
                if at < self.now:
                    b.comment(at, r.choice(self.maintainers), "Thanks, will review.")
        elif how == "merged_by_private" and self.private and not self.no_merges:
            b.merge(created + self.between_td(HOUR, 6 * DAY), self.private)
        elif author is not None and reason in ("bot", "maintainer") and r.random() < 0.7 and not self.no_merges:
            merger = next((m for m in (self._maintainer(), *self.maintainers) if m.login != author.login), None)
            if merger:
                self._reviewed_merge(b, created + self.between_td(HOUR, 6 * DAY), author, merger)
        else:
            if r.random() < 0.5:
                b.comment(created + self.between_td(HOUR, 6 * DAY), r.choice(self.maintainers), "Thanks!")
        self._finish(b, truth, body)


def _flat(name: str) -> str:
    """A repository name as a bot's login would spell it: letters and digits only."""
    return "".join(ch for ch in name.lower() if ch.isalnum())[:30] or "project"
