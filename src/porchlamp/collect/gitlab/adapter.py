"""GitLab's side of each collection stage, over REST v4: a project's metadata and files, its merge
requests in the window, each one's notes and resource events, its members and its authors' accounts,
read through `mapping` into the rows the stages write.

REST lists a page of one resource a request, so each job is one project or one merge request; the
run fetches a few at a time (`CollectOptions.concurrency`) and the client keeps the host's pace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any
from urllib.parse import quote

from porchlamp import forges
from porchlamp.collect.gitlab import mapping
from porchlamp.collect.gitlab.client import PER_PAGE, GitLabClient, project_path
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

DEVELOPER = 30  # the least access level that may merge (doc/api/members.md, "Roles")
# Where GitLab looks for a project's CODEOWNERS, in its order (doc/user/project/codeowners/_index.md).
CODEOWNERS = ("CODEOWNERS", "docs/CODEOWNERS", ".gitlab/CODEOWNERS")
README = ("README.md", "README.rst", "README", "README.txt")
TEMPLATES = ".gitlab/merge_request_templates"


def _one(repos: Sequence[Any]) -> list[Job]:
    return [Job((r,)) for r in repos]


class GitLab:
    """The adapter of one GitLab host, over its REST client."""

    forge = "gitlab"

    def __init__(self, client: GitLabClient) -> None:
        self.client = client
        self.host = client.host

    @property
    def stats(self) -> ClientStats:
        return self.client.stats

    def _project(self, repo: str) -> str:
        return f"/projects/{project_path(forges.path_of(repo))}"

    # -- changed ---------------------------------------------------------------------------

    def changed(self, run: Run, repos: list[str], stored: dict[str, Repository], since: dict[str, datetime],
                record: Callable[[str, Moved | None, Writes], None]) -> None:
        """Per project: its metadata, its newest commit, and its merge requests and issues updated since."""
        def fetch(repo: str) -> Moved | None:
            was, after = stored[repo], api_time(since[repo])
            base = self._project(repo)
            p = self.client.json(base, {"license": "true"}, "project")
            if p is None or forges.join(self.host, p.get("path_with_namespace", "")) != repo:
                return None
            newest = self.client.json(f"{base}/repository/commits", {"ref_name": p.get("default_branch") or "", "per_page": 1},
                                      "commits") or []
            pushed = mapping.ts(newest[0].get("committed_date")) if newest else None
            # The listing's scalars; what only the metadata stage reads (languages, files, the last push) kept.
            now = replace(mapping.repository(self.host, p, None, was.root_files, was.pushed_at), languages=was.languages,
                          primary_language=was.primary_language)
            mrs, _, pages = self.client.total(f"{base}/merge_requests", {"state": "all", "updated_after": after,
                                                                         "order_by": "updated_at", "sort": "desc"}, "merge_requests")
            prs = tuple((int(m["iid"]), {"iid": int(m["iid"]), "since": after}) for m in mrs
                        if (mapping.ts(m.get("created_at")) or run.start) >= run.start)
            issues = self.client.json(f"{base}/issues", {"updated_after": after, "per_page": 1}, "issues") or []
            # More than a page moved: the listing pages through them all (past 10,000 GitLab gives no count).
            more = (pages or 0) > 1 or (pages is None and len(mrs) >= PER_PAGE)
            return Moved(repo=now, pushed=pushed != was.pushed_at, updated=len(mrs), prs=prs, more_prs=more, issues=bool(issues))

        run.each(repos, fetch, record, "changed", "what changed")

    # -- meta ------------------------------------------------------------------------------

    def meta(self, run: Run, repos: list[str], found: Callable[[str, Writes, Meta | str], None]) -> None:
        run.each(repos, lambda repo: self._meta(run, repo), lambda repo, meta, out: found(repo, out, meta), "meta", "metadata")

    def _meta(self, run: Run, requested: str) -> Meta | str:
        base = self._project(requested)
        p = self.client.json(base, {"license": "true"}, "project")
        if p is None:
            return "not_found"  # GitLab answers 404 for a project it does not show this token
        repo = forges.join(self.host, p["path_with_namespace"])
        base = f"/projects/{p['id']}"
        branch = p.get("default_branch") or ""
        empty = bool(p.get("empty_repo")) or not branch
        trees: dict[str, list[str]] = {"": self._tree(base, "", branch) if not empty else []}
        for folder in ("docs", ".gitlab", ".github"):  # .github: where some keep AI policies (rules.ai_files)
            if folder in trees[""]:
                trees[folder] = self._tree(base, folder, branch)
        texts: dict[str, str | None] = {
            "contributing": self._first(base, branch, [f for f in ("CONTRIBUTING.md", "docs/CONTRIBUTING.md", ".gitlab/CONTRIBUTING.md")
                                                       if self._listed(trees, f)]),
            "codeowners": self._first(base, branch, [f for f in CODEOWNERS if self._listed(trees, f)]),
            "readme": self._first(base, branch, [f for f in README if f in trees[""]]),
            "template": None,
        }
        if "merge_request_templates" in trees.get(".gitlab", []):
            names = sorted(self._tree(base, TEMPLATES, branch), key=lambda n: (n.lower() != "default.md", n))
            texts["template"] = self._first(base, branch, [f"{TEMPLATES}/{n}" for n in names[:1]])
        commits = [] if empty else self._commits(run, repo, base, branch)
        languages = self.client.json(f"{base}/languages", query="languages") or {}
        labels = [lb.get("name", "") for _, page, _ in self.client.pages(f"{base}/labels", None, "labels")
                  for lb in page]
        gfi = frozenset(run.rules.gfi_labels)
        newest = max((c.committed_at for c in commits), default=None)
        return Meta(mapping.repository(self.host, p, languages, trees[""], newest),
                    mapping.community(repo, trees, texts, run.rules.ai_files), commits, total_prs=0,
                    gfi_labels=tuple(sorted({lb for lb in labels if norm_label(lb) in gfi})), empty=empty)

    @staticmethod
    def _listed(trees: dict[str, list[str]], path: str) -> bool:
        folder, _, name = path.rpartition("/")
        return name in trees.get(folder, [])

    def _tree(self, base: str, path: str, branch: str) -> list[str]:
        params = {"ref": branch, **({"path": path} if path else {})}
        return [e["name"] for _, page, _ in self.client.pages(f"{base}/repository/tree", params, "tree") for e in page]

    def _first(self, base: str, branch: str, paths: Sequence[str]) -> str | None:
        """The text of the first of these files that is there."""
        for path in paths:
            status, body, _ = self.client.get(f"{base}/repository/files/{quote(path, safe='')}/raw", {"ref": branch}, "files",
                                              text=True)
            if status == 200:
                return str(body)
        return None

    def _commits(self, run: Run, repo: str, base: str, branch: str) -> list[Commit]:
        """The window's newest commits on the default branch, and older ones of the window down to the
        first by a person when those are all bots (evaluate.gates.commit_sample)."""
        out: list[Commit] = []
        params = {"ref_name": branch, "since": api_time(run.start), "until": api_time(run.end)}
        for page, items, _ in self.client.pages(f"{base}/repository/commits", params, "commits",
                                                per_page=run.settings.window.commit_sample):
            found = mapping.commits(repo, items)
            out += found
            if not all(is_bot_commit(c, run.bots) for c in found):
                break
        return out

    # -- pulls -----------------------------------------------------------------------------

    def pulls(self, run: Run, plans: dict[str, dict[str, Any]], totals: dict[str, int],
              known_ci: dict[tuple[str, int], bool], total: int) -> None:
        """Each project's merge requests of the window, newest first, a page a request; every one's
        timeline is queued. A project listed before lists those updated since its last run instead."""
        pending = list(plans)
        while pending:
            more: list[str] = []

            def fetch(job: Job) -> tuple[list[Any], int | None]:
                repo = job.items[0]
                plan = plans[repo]
                if plan["order"] == "CREATED_AT":
                    params = {"state": "all", "order_by": "created_at", "sort": "desc", "created_after": api_time(run.start),
                              "created_before": api_time(run.end)}
                else:
                    params = {"state": "all", "order_by": "updated_at", "sort": "desc",
                              "updated_after": api_time(datetime.fromisoformat(plan["stop"]))}
                _, items, following = next(self.client.pages(f"{self._project(repo)}/merge_requests", params, "merge_requests",
                                                             start=int(plan.get("page") or 1)), (1, [], None))
                return items, following

            def store(job: Job, got: tuple[list[Any], int | None]) -> None:
                repo, (items, following) = job.items[0], got
                plan, out = plans[repo], Writes()
                stop = datetime.fromisoformat(plan["stop"])
                for mr in items:
                    if plan["order"] == "CREATED_AT":
                        pr, account = mapping.pull_request(repo, self.host, mr)
                        if pr.created_at < stop:
                            continue
                        pulls_stage.record(run, repo, pr, account, [], {"iid": pr.number}, known_ci, out)
                    elif (mapping.ts(mr.get("created_at")) or stop) >= run.start:
                        pulls_stage.queue(run, repo, int(mr["iid"]), {"iid": int(mr["iid"]), "since": plan["stop"]}, out)
                plan["page"] = following
                pulls_stage.listed(run, repo, plan, following is not None, out)
                if following is not None:
                    more.append(repo)
                run.write(out)
                run.progress("pull requests", 0 if following else 1, total)

            run.run_jobs(_one(pending), fetch, store, "pulls", lambda j: j.items)
            pending = run.alive(more)

    # -- timelines -------------------------------------------------------------------------

    def pulls_by_id(self, run: Run, pending: list[tuple[tuple[str, str], dict[str, Any]]],
                    known_ci: dict[tuple[str, int], bool]) -> None:
        """The merge requests a later run queued, one request each; each one's timeline is queued whole."""
        def fetch(item: Any) -> Any:
            (repo, stage), _ = item
            return self.client.json(f"{self._project(repo)}/merge_requests/{int(stage.split('#', 1)[1])}", query="merge_request")

        def write(item: Any, mr: Any, out: Writes) -> None:
            (repo, stage), _ = item
            found = mapping.pull_request(repo, self.host, mr) if mr else None
            pulls_stage.refetched(run, repo, stage, found, {"iid": found[0].number} if found else {}, known_ci, out)

        run.each(pending, fetch, write, "pulls", "updated pull requests", lambda item: [item[0][0]])

    def timelines(self, run: Run, pending: list[tuple[tuple[str, str], dict[str, Any]]],
                  page: Callable[..., None] = timelines_stage.page) -> None:
        """Each pending merge request's notes (every page), state events and label events, whole."""
        def fetch(item: Any) -> tuple[list[Any], list[Account]]:
            (repo, stage), _ = item
            number = int(stage.split("#", 1)[1])
            base = f"{self._project(repo)}/merge_requests/{number}"
            items, people = [], {}
            for _, notes, _ in self.client.pages(f"{base}/notes", {"sort": "asc", "order_by": "created_at"}, "notes"):
                for n in notes:
                    items.append(mapping.note(repo, self.host, number, n))
                    people[(n.get("author") or {}).get("username")] = (n.get("author") or {}).get("id")
            for _, events, _ in self.client.pages(f"{base}/resource_state_events", None, "resource_state_events"):
                items += [mapping.state_event(repo, self.host, number, e) for e in events]
                people.update({(e.get("user") or {}).get("username"): (e.get("user") or {}).get("id") for e in events})
            for _, events, _ in self.client.pages(f"{base}/resource_label_events", None, "resource_label_events"):
                items += [mapping.label_event(repo, self.host, number, e) for e in events]
                people.update({(e.get("user") or {}).get("username"): (e.get("user") or {}).get("id") for e in events})
            accounts = [Account(login, None, None, str(uid), self.host) for login, uid in people.items()  # type: ignore[arg-type]
                        if login and uid is not None]
            return [i for i in items if i is not None], accounts

        run.each(pending, fetch, timelines_stage.whole(run, page), "timeline", None, lambda item: [item[0][0]])

    # -- accounts: members and users -------------------------------------------------------

    def members(self, run: Run, repos: list[str], actors: dict[str, dict[str, str]]) -> None:
        """Each project's members with their access level, read as the whole list (`/members/all`, inherited
        members too) or one look-up per login that acts on its merge requests (`actors`: login -> user id),
        whichever takes fewer requests, as the list's first page says how many pages it has."""
        def fetch(job: Job) -> list[Member]:
            repo = job.items[0]
            base = f"{self._project(repo)}/members/all"
            first, _, pages = self.client.total(base, None, "members")
            found = {m["username"]: m for m in first}
            unknown = {login: uid for login, uid in actors.get(repo, {}).items() if login not in found}
            if pages is not None and pages - 1 <= len(unknown):
                for _, items, _ in self.client.pages(base, None, "members", start=2) if pages > 1 else ():
                    found.update({m["username"]: m for m in items})
            else:
                for uid in unknown.values():
                    m = self.client.json(f"{base}/{uid}", query="member")
                    if m:
                        found[m["username"]] = m
            return [mapping.member(repo, m) for m in found.values()]

        run.run_jobs(_one(repos), fetch, lambda job, members: accounts_stage.store_members(run, job.items[0], members, len(repos)),
                     "accounts", lambda j: j.items)

    def users(self, run: Run, wanted: list[tuple[str, str]]) -> None:
        """`/users/:id` once for each account (login, user id): its `bot` flag and, where its profile is
        public, when it was made. An account GitLab no longer shows is kept as a person of unknown age."""
        def fetch(item: tuple[str, str]) -> Account:
            login, uid = item
            u = self.client.json(f"/users/{uid}", query="users")
            return mapping.account(self.host, u) if u else Account(login, "User", None, uid, self.host)

        run.each(wanted, fetch, lambda item, account, out: out.records.append(account), "accounts", "accounts", lambda item: [])

    # -- authors, CI, issues -----------------------------------------------------------------

    def authors(self, run: Run, wanted: list[tuple[str, str, str, str]], found: Callable[..., None]) -> None:
        """Each author's latest merge request merged before their first act of the window: one request
        a person, the newest few they opened before it; one merged earlier makes them a past contributor."""
        def fetch(item: tuple[str, str, str, str]) -> list[Commit]:
            repo, login, _, until = item
            before = datetime.fromisoformat(until.replace("Z", "+00:00")).replace(tzinfo=None)
            items = self.client.json(f"{self._project(repo)}/merge_requests",
                                     {"state": "merged", "author_username": login, "created_before": until,
                                      "order_by": "created_at", "sort": "desc", "per_page": 20}, "author_history") or []
            merged = [m for m in items if (mapping.ts(m.get("merged_at")) or before) < before]
            if not merged:
                return []
            m = max(merged, key=lambda x: (x["merged_at"], x["iid"]))
            return [Commit(repo, m.get("merge_commit_sha") or m.get("squash_commit_sha") or m.get("sha") or f"mr:{m['id']}",
                           mapping.ts(m["merged_at"]), login, (m.get("author") or {}).get("name"), None,  # type: ignore[arg-type]
                           f"{m.get('title') or ''} (!{m['iid']})")]

        run.each(wanted, fetch, found, "authors", "returning authors", lambda item: [item[0]])

    def ci(self, run: Run, wanted: list[tuple[str, int, str]], found: Callable[[dict[str, dict[int, bool]]], None]) -> None:
        """Whether each merge request ran a pipeline: one request each."""
        def fetch(job: Job) -> bool:
            repo, number, _ = job.items[0]
            items = self.client.json(f"{self._project(repo)}/merge_requests/{number}/pipelines", {"per_page": 1}, "pipelines")
            return bool(items)

        run.run_jobs(_one(wanted), fetch, lambda job, ran: found({job.items[0][0]: {job.items[0][1]: ran}}), "ci",
                     lambda j: [j.items[0][0]])

    def issues(self, run: Run, repos: list[str], labels: dict[str, list[str]],
               found: Callable[[Sequence[str], Sequence[Issue]], None]) -> None:
        """Open, unassigned issues under each good-first-issue label (GitLab's `labels` asks for all of
        them at once, so one request a label)."""
        def fetch(job: Job) -> list[Issue]:
            repo = job.items[0]
            seen: dict[int, Issue] = {}
            for label in labels[repo]:
                for _, items, _ in self.client.pages(f"{self._project(repo)}/issues",
                                                     {"state": "opened", "labels": label, "assignee_id": "None"}, "issues"):
                    for i in items:
                        seen.setdefault(int(i["iid"]), mapping.issue(repo, i, labels[repo]))
            return [seen[k] for k in sorted(seen)]

        run.run_jobs(_one(repos), fetch, lambda job, issues: found(job.items, issues), "issues", lambda j: j.items)
