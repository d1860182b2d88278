"""Forgejo's and Gitea's side of each collection stage, over REST v1: a repository's metadata and
files, its PRs in the window, each one's timeline and reviews, the people with write access and its
authors' accounts, read through `mapping` into the rows the stages write.

REST lists a page of one resource a request, so each job is one repository or one PR; the run fetches
a few at a time (`CollectOptions.concurrency`) and the client keeps the host's pace. PRs are listed by
update, newest first (`/pulls?sort=recentupdate`), down to the first updated before the window: every
PR opened in the window was updated in it, and the listing carries whole PRs, 50 a request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any
from urllib.parse import quote

from porchlamp import forges
from porchlamp.collect.forgejo import mapping
from porchlamp.collect.forgejo.client import ForgejoClient, repo_path
from porchlamp.collect.http import ClientStats, api_time
from porchlamp.collect.run import Job, Run, Writes
from porchlamp.collect.stages import accounts as accounts_stage
from porchlamp.collect.stages import pulls as pulls_stage
from porchlamp.collect.stages import timelines as timelines_stage
from porchlamp.collect.stages.changed import Moved
from porchlamp.collect.stages.meta import Meta
from porchlamp.evaluate.gates import is_bot_commit
from porchlamp.evaluate.rules import norm_label
from porchlamp.models import Account, Commit, Issue, Member, Repository

README = ("README.md", "README.rst", "README", "README.txt")
FOLDERS = ("docs", ".forgejo", ".gitea", ".github")
CONTRIBUTING = ("CONTRIBUTING.md", "docs/CONTRIBUTING.md", ".forgejo/CONTRIBUTING.md", ".gitea/CONTRIBUTING.md", ".github/CONTRIBUTING.md")
LIGHT_COMMITS = {"stat": "false", "verification": "false", "files": "false"}  # leave out what is costly to compute


def _one(items: Sequence[Any]) -> list[Job]:
    return [Job((x,)) for x in items]


def _newest_first(prs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(prs, key=lambda p: (p.get("updated_at") or "", p["number"]), reverse=True)


class Forgejo:
    """The adapter of one Forgejo or Gitea host, over its REST client."""

    forge = "forgejo"

    def __init__(self, client: ForgejoClient, wip_prefixes: Sequence[str] = mapping.WIP_PREFIXES) -> None:
        self.client = client
        self.host = client.host
        self.prefixes = tuple(wip_prefixes)
        self._orgs: dict[str, bool] = {}
        self._orgs_lock = threading.Lock()

    @property
    def stats(self) -> ClientStats:
        return self.client.stats

    def _repo(self, repo: str) -> str:
        return repo_path(forges.path_of(repo))

    def _is_org(self, owner: str) -> bool:
        """Whether an owner is an organisation (`GET /orgs/{org}` answers 404 for a user), asked once."""
        with self._orgs_lock:
            if owner in self._orgs:
                return self._orgs[owner]
        found = self.client.json(f"/orgs/{quote(owner, safe='')}", query="org") is not None
        with self._orgs_lock:
            self._orgs[owner] = found
        return found

    # -- changed ---------------------------------------------------------------------------

    def changed(self, run: Run, repos: list[str], stored: dict[str, Repository], since: dict[str, datetime],
                record: Callable[[str, Moved | None, Writes], None]) -> None:
        """Per repository: its metadata, its newest commit, its PRs updated since (the first page of
        the listing by update) and whether an issue was."""
        def fetch(repo: str) -> Moved | None:
            was, after = stored[repo], since[repo]
            base = self._repo(repo)
            r = self.client.json(base, query="repository")
            if r is None or forges.join(self.host, r.get("full_name", "")) != repo:
                return None
            newest = self.client.json(f"{base}/commits", {"sha": r.get("default_branch") or "", "limit": 1, **LIGHT_COMMITS},
                                      "commits") or []
            pushed = mapping.commits(repo, newest[:1])[0].committed_at if newest else None
            now = replace(mapping.repository(self.host, r, None, was.root_files, was.pushed_at, was.license_spdx,
                                             was.owner_type == "Organization"),
                          languages=was.languages, primary_language=was.primary_language)
            _, page, following = next(self.client.pages(f"{base}/pulls", {"state": "all", "sort": "recentupdate"}, "pulls"),
                                      (1, [], None))
            moved = [p for p in page if (mapping.ts(p.get("updated_at")) or after) >= after]
            prs = tuple((int(p["number"]), {"index": int(p["number"]), "since": after.isoformat()}) for p in moved
                        if (mapping.ts(p.get("created_at")) or run.start) >= run.start)
            issues = self.client.json(f"{base}/issues", {"type": "issues", "state": "all", "since": api_time(after), "limit": 1},
                                      "issues") or []
            more = following is not None and len(moved) == len(page)
            return Moved(repo=now, pushed=pushed != was.pushed_at, updated=len(moved), prs=prs, more_prs=more, issues=bool(issues))

        run.each(repos, fetch, record, "changed", "what changed")

    # -- meta ------------------------------------------------------------------------------

    def meta(self, run: Run, repos: list[str], found: Callable[[str, Writes, Meta | str], None]) -> None:
        run.each(repos, lambda repo: self._meta(run, repo), lambda repo, meta, out: found(repo, out, meta), "meta", "metadata")

    def _meta(self, run: Run, requested: str) -> Meta | str:
        r = self.client.json(self._repo(requested), query="repository")
        if r is None:
            return "not_found"
        repo = forges.join(self.host, r["full_name"])
        base = self._repo(repo)
        branch = r.get("default_branch") or ""
        empty = bool(r.get("empty")) or not branch
        trees: dict[str, list[str]] = {"": self._listing(base, "", branch) if not empty else []}
        for folder in FOLDERS:
            if folder in trees[""]:
                trees[folder] = self._listing(base, folder, branch)

        def listed(path: str) -> bool:
            folder, _, name = path.rpartition("/")
            return name in trees.get(folder, [])

        texts: dict[str, str | None] = {
            "contributing": self._first(base, branch, [f for f in CONTRIBUTING if listed(f)]),
            "codeowners": self._first(base, branch, [f for f in mapping.CODEOWNERS if listed(f)]),
            "readme": self._first(base, branch, [f for f in README if f in trees[""]]),
            "template": self._first(base, branch, [f for f in mapping.TEMPLATES if listed(f)]),
        }
        licence_file = [f for f in mapping.LICENCE_FILES if f in trees[""]]
        licence = mapping.licence_spdx(self._first(base, branch, licence_file[:1])) if licence_file else None
        commits = [] if empty else self._commits(run, repo, base, branch)
        languages = self.client.json(f"{base}/languages", query="languages") or {}
        labels = [lb.get("name", "") for _, page, _ in self.client.pages(f"{base}/labels", None, "labels") for lb in page]
        gfi = frozenset(run.rules.gfi_labels)
        newest = max((c.committed_at for c in commits), default=None)
        owner = (r.get("owner") or {}).get("login") or forges.path_of(repo).split("/", 1)[0]
        return Meta(mapping.repository(self.host, r, languages, trees[""], newest, licence, self._is_org(owner)),
                    mapping.community(repo, trees, texts, run.rules.ai_files), commits, total_prs=0,
                    gfi_labels=tuple(sorted({lb for lb in labels if norm_label(lb) in gfi})), empty=empty)

    def _listing(self, base: str, folder: str, branch: str) -> list[str]:
        """The names in a folder of the default branch (`/contents`: the root; `/contents/{dir}`)."""
        path = f"{base}/contents" + (f"/{quote(folder)}" if folder else "")
        body = self.client.json(path, {"ref": branch}, "contents")
        return [e["name"] for e in body] if isinstance(body, list) else []

    def _first(self, base: str, branch: str, paths: Sequence[str]) -> str | None:
        """The text of the first of these files that is there (`/raw/{filepath}`)."""
        for path in paths:
            status, body, _ = self.client.get(f"{base}/raw/{quote(path)}", {"ref": branch}, "raw", text=True)
            if status == 200:
                return str(body)
        return None

    def _commits(self, run: Run, repo: str, base: str, branch: str) -> list[Commit]:
        """The window's newest commits on the default branch, and older ones of the window down to the
        first by a person when those are all bots (evaluate.gates.commit_sample). The API filters
        commits by no time: they come newest first, and those after the window are passed over."""
        out: list[Commit] = []
        for _, items, _ in self.client.pages(f"{base}/commits", {"sha": branch, **LIGHT_COMMITS}, "commits",
                                             limit=run.settings.window.commit_sample):
            found = mapping.commits(repo, items)
            window = [c for c in found if run.start <= c.committed_at < run.end]
            out += window
            if any(c.committed_at < run.start for c in found) or (window and not all(is_bot_commit(c, run.bots) for c in out)):
                break
        return out

    # -- pulls -----------------------------------------------------------------------------

    def pulls(self, run: Run, plans: dict[str, dict[str, Any]], totals: dict[str, int],
              known_ci: dict[tuple[str, int], bool], total: int) -> None:
        """Each repository's PRs by update, newest first, a page a request, down to the first updated
        before the plan's stop; those opened in the window are written, each one's timeline queued."""
        pending = list(plans)
        while pending:
            more: list[str] = []

            def fetch(job: Job) -> tuple[list[Any], int | None]:
                repo = job.items[0]
                start = int(plans[repo].get("page") or 1)
                _, items, following = next(self.client.pages(f"{self._repo(repo)}/pulls", {"state": "all", "sort": "recentupdate"},
                                                             "pulls", start=start), (1, [], None))
                return self._imported(repo, items, start), following

            def store(job: Job, got: tuple[list[Any], int | None]) -> None:
                repo, (items, following) = job.items[0], got
                plan, out = plans[repo], Writes()
                stop = datetime.fromisoformat(plan["stop"])
                ended = False
                for p in _newest_first(items):
                    if (mapping.ts(p.get("updated_at")) or stop) < stop:
                        ended = True
                        continue
                    pr, account = mapping.pull_request(repo, self.host, p, self.prefixes)
                    if pr.created_at >= run.start:
                        pulls_stage.record(run, repo, pr, account, [], {"index": pr.number}, known_ci, out)
                following = None if ended else following
                plan["page"] = following
                pulls_stage.listed(run, repo, plan, following is not None, out)
                if following is not None:
                    more.append(repo)
                run.write(out)
                run.progress("pull requests", 0 if following else 1, total)

            run.run_jobs(_one(pending), fetch, store, "pulls", lambda j: j.items)
            pending = run.alive(more)

    def _imported(self, repo: str, prs: list[dict[str, Any]], page: int | None) -> list[dict[str, Any]]:
        """PRs with the name of the author a migration kept aside (`original_author`), which only the
        issues list shows: its same page, and any PR not on it asked for alone. A migrated PR is posted
        as the account that ran the migration (services/migrations/gitea_uploader.go, remapUser)."""
        if not prs:
            return prs
        issues: list[Any] = []
        if page is not None:
            _, issues, _ = next(self.client.pages(f"{self._repo(repo)}/issues", {"type": "pulls", "state": "all", "sort": "recentupdate"},
                                                  "pulls_as_issues", start=page), (1, [], None))
        names = {int(i["number"]): i.get("original_author") or "" for i in issues}
        out = []
        for p in prs:
            n = int(p["number"])
            if n not in names:
                i = self.client.json(f"{self._repo(repo)}/issues/{n}", query="pull_as_issue") or {}
                names[n] = i.get("original_author") or ""
            out.append({**p, "original_author": names[n]} if names[n] else p)
        return out

    # -- timelines -------------------------------------------------------------------------

    def pulls_by_id(self, run: Run, pending: list[tuple[tuple[str, str], dict[str, Any]]],
                    known_ci: dict[tuple[str, int], bool]) -> None:
        """The PRs a later run queued, one request each; each one's timeline is queued whole."""
        def fetch(item: Any) -> Any:
            (repo, stage), _ = item
            p = self.client.json(f"{self._repo(repo)}/pulls/{int(stage.split('#', 1)[1])}", query="pull")
            return self._imported(repo, [p], None)[0] if p else None

        def write(item: Any, p: Any, out: Writes) -> None:
            (repo, stage), _ = item
            found = mapping.pull_request(repo, self.host, p, self.prefixes) if p else None
            pulls_stage.refetched(run, repo, stage, found, {"index": found[0].number} if found else {}, known_ci, out)

        run.each(pending, fetch, write, "pulls", "updated pull requests", lambda item: [item[0][0]])

    def timelines(self, run: Run, pending: list[tuple[tuple[str, str], dict[str, Any]]],
                  page: Callable[..., None] = timelines_stage.page) -> None:
        """Each pending PR's timeline (every page) and submitted reviews, whole."""
        def fetch(item: Any) -> tuple[list[Any], list[Account]]:
            (repo, stage), _ = item
            number = int(stage.split("#", 1)[1])
            base = self._repo(repo)
            items, people = [], {}
            for _, got, _ in self.client.pages(f"{base}/issues/{number}/timeline", None, "timeline"):
                for c in got:
                    items.append(mapping.timeline(repo, self.host, number, c, self.prefixes))
                    people[(c.get("user") or {}).get("login")] = (c.get("user") or {}).get("id")
            for _, got, _ in self.client.pages(f"{base}/pulls/{number}/reviews", None, "reviews"):
                for rv in got:
                    items.append(mapping.review(repo, self.host, number, rv))
                    people[(rv.get("user") or {}).get("login")] = (rv.get("user") or {}).get("id")
            # Forgejo's own system users (negative ids) have no profile to read.
            accounts = [Account(login, "Bot" if uid == mapping.ACTIONS_ID else None, None, str(uid), self.host)  # type: ignore[arg-type]
                        for login, uid in people.items() if login and isinstance(uid, int) and uid != mapping.GHOST_ID]
            return [i for i in items if i is not None], accounts

        run.each(pending, fetch, timelines_stage.whole(run, page), "timeline", None, lambda item: [item[0][0]])

    # -- accounts: members and users -------------------------------------------------------

    def members(self, run: Run, repos: list[str], actors: dict[str, dict[str, str]]) -> None:
        """Who has write access to each repository, as far as a stranger can see: its owner (a user),
        the users it lets be assigned (`/assignees`: write access, the API's own list of them) and,
        for an organisation's repository, the organisation's public members."""
        def fetch(job: Job) -> list[Member]:
            repo = job.items[0]
            owner = forges.path_of(repo).split("/", 1)[0]
            levels: dict[str, int] = {}
            if self._is_org(owner):
                for _, items, _ in self.client.pages(f"/orgs/{quote(owner, safe='')}/public_members", None, "public_members"):
                    levels.update({u["login"]: mapping.ORG_MEMBER for u in items if u.get("login")})
            else:
                levels[owner] = mapping.OWNER
            for u in self.client.json(f"{self._repo(repo)}/assignees", query="assignees") or []:
                if u.get("login"):
                    levels[u["login"]] = max(levels.get(u["login"], 0), mapping.WRITE)
            return [mapping.member(repo, login, level) for login, level in sorted(levels.items())]

        run.run_jobs(_one(repos), fetch, lambda job, members: accounts_stage.store_members(run, job.items[0], members, len(repos)),
                     "accounts", lambda j: j.items)

    def users(self, run: Run, wanted: list[tuple[str, str]]) -> None:
        """`/users/{username}` once for each account: when it was made. One the instance no longer
        shows is kept as a person of unknown age."""
        def fetch(item: tuple[str, str]) -> Account:
            login, uid = item
            u = self.client.json(f"/users/{quote(login, safe='')}", query="users")
            return mapping.account(self.host, u) if u else Account(login, "User", None, uid, self.host)

        run.each(wanted, fetch, lambda item, account, out: out.records.append(account), "accounts", "accounts", lambda item: [])

    # -- authors, CI, issues -----------------------------------------------------------------

    def authors(self, run: Run, wanted: list[tuple[str, str, str, str]], found: Callable[..., None]) -> None:
        """Each author's PR merged before their first act of the window: their closed PRs newest first
        (`/issues?type=pulls&state=closed&created_by=`, which filters by no creation time), page after
        page until one opened and merged before it; one makes them a past contributor."""
        def fetch(item: tuple[str, str, str, str]) -> list[Commit]:
            repo, login, _, until = item
            before = datetime.fromisoformat(until.replace("Z", "+00:00")).replace(tzinfo=None)
            for _, items, _ in self.client.pages(f"{self._repo(repo)}/issues", {"type": "pulls", "state": "closed", "created_by": login,
                                                                              "sort": "latest"}, "author_history"):
                merged = [i for i in items if (mapping.ts((i.get("pull_request") or {}).get("merged_at")) or before) < before]
                if merged:
                    i = max(merged, key=lambda x: (x["pull_request"]["merged_at"], x["number"]))
                    return [Commit(repo, f"pr:{i['id']}", mapping.ts(i["pull_request"]["merged_at"]), login,  # type: ignore[arg-type]
                                   (i.get("user") or {}).get("full_name") or None, None, f"{i.get('title') or ''} (#{i['number']})")]
            return []

        run.each(wanted, fetch, found, "authors", "returning authors", lambda item: [item[0]])

    def ci(self, run: Run, wanted: list[tuple[str, int, str]], found: Callable[[dict[str, dict[int, bool]]], None]) -> None:
        """Whether each PR's head commit carries a status (Forgejo Actions and outside CI both set one):
        the PR for its head, then the head's combined status."""
        def fetch(job: Job) -> bool:
            repo, number, _ = job.items[0]
            p = self.client.json(f"{self._repo(repo)}/pulls/{number}", query="pull") or {}
            sha = (p.get("head") or {}).get("sha")
            if not sha:
                return False
            status = self.client.json(f"{self._repo(repo)}/commits/{sha}/status", {"limit": 1}, "status") or {}
            return bool(status.get("total_count") or status.get("statuses"))

        run.run_jobs(_one(wanted), fetch, lambda job, ran: found({job.items[0][0]: {job.items[0][1]: ran}}), "ci",
                     lambda j: [j.items[0][0]])

    def issues(self, run: Run, repos: list[str], labels: dict[str, list[str]],
               found: Callable[[Sequence[str], Sequence[Issue]], None]) -> None:
        """Open, unassigned issues under each good-first-issue label (`labels` asks for issues with all
        of those given, so one request a label)."""
        def fetch(job: Job) -> list[Issue]:
            repo = job.items[0]
            seen: dict[int, Issue] = {}
            for label in labels[repo]:
                for _, items, _ in self.client.pages(f"{self._repo(repo)}/issues", {"type": "issues", "state": "open", "labels": label},
                                                     "issues"):
                    for i in items:
                        if not (i.get("assignees") or i.get("assignee")):
                            seen.setdefault(int(i["number"]), mapping.issue(repo, i, labels[repo]))
            return [seen[k] for k in sorted(seen)]

        run.run_jobs(_one(repos), fetch, lambda job, issues: found(job.items, issues), "issues", lambda j: j.items)

