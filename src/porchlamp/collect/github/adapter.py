"""GitHub's side of each collection stage: the GraphQL documents in `queries/`, batched many
repositories (or PRs) to a query in aliased slots so a query costs about one point, and their answers
read through `mapping` into the rows the stages write.

A query that keeps timing out is split, then asked with smaller pages (`run.run_jobs`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from porchlamp.collect.errors import RequestFailed
from porchlamp.collect.github import mapping
from porchlamp.collect.github.client import GraphQLClient
from porchlamp.collect.http import ClientStats, api_time
from porchlamp.collect.run import Job, Run, Writes, chunks, split
from porchlamp.collect.stages import pulls as pulls_stage
from porchlamp.collect.stages import timelines as timelines_stage
from porchlamp.collect.stages.changed import Moved
from porchlamp.collect.stages.meta import Meta
from porchlamp.evaluate.gates import is_bot_commit
from porchlamp.evaluate.rules import norm_label
from porchlamp.forges import GITHUB_HOST
from porchlamp.models import Issue, Repository

META_SLOTS, PR_SLOTS, TIMELINE_SLOTS, GFI_SLOTS, CI_BATCH, LIST_SLOTS, BY_ID_BATCH, AUTHOR_SLOTS = 16, 12, 25, 50, 149, 50, 149, 100
CHANGED_SLOTS, CHANGED_PRS = 70, 10  # the refresh listing: two connections a slot, 140 requests = one point
TIMELINE_PAGE, MIN_TIMELINE_PAGE, MIN_PR_PAGE = 100, 5, 1
# GitHub takes at most this many ids in one `nodes` field; queries by id use two fields.
MAX_IDS = 100
# GitHub rounds requests / 100 to the nearest point: up to 149 requests cost one point.
POINT_REQUESTS = 149
DUMMY = ("porchlamp", "unused-slot")  # fills skipped alias slots; @include(if: false) keeps it unread
GFI_KEYS = ("labelsFirst", "labelsBeginner", "labelsEasy", "labelsStarter", "labelsNewcomer")


def _slot_vars(prefix_pairs: Sequence[tuple[str, str]], slots: int, extra: Callable[[int, int], dict[str, Any]] | None = None) -> dict[str, Any]:
    variables: dict[str, Any] = {}
    for i in range(slots):
        owner, name = prefix_pairs[i] if i < len(prefix_pairs) else DUMMY
        variables[f"o{i}"], variables[f"n{i}"] = owner, name
        if i:
            variables[f"use{i}"] = i < len(prefix_pairs)
        if extra:
            variables.update(extra(i, len(prefix_pairs)))
    return variables


def _pairs(repos: Iterable[str]) -> list[tuple[str, str]]:
    return [tuple(r.split("/", 1)) for r in repos]  # type: ignore[misc]


def _id_vars(ids: Sequence[str]) -> dict[str, Any]:
    return {"ids": list(ids[:MAX_IDS]), "more": list(ids[MAX_IDS:])}


def _by_since(pending: list[Any]) -> list[list[Any]]:
    """Pending (key, state) pairs grouped by the `since` in their cursors: one query asks with one."""
    groups: dict[str, list[Any]] = {}
    for item in pending:
        groups.setdefault(json.loads(item[1]["cursor"]).get("since") or "", []).append(item)
    return [groups[k] for k in sorted(groups)]


def _id_nodes(body: dict[str, Any]) -> list[Any]:
    """The nodes of a query by id, in the order asked, across its two `nodes` fields."""
    data = body.get("data") or {}
    return [*(data.get("a") or []), *(data.get("b") or [])]


def _slot_error(body: dict[str, Any], alias: str) -> dict[str, Any] | None:
    for e in body.get("errors") or []:
        if isinstance(e, dict) and (e.get("path") or [None])[0] == alias:
            return e
    return None


class GitHub:
    """The adapter of github.com (or the emulator standing in for it), over one GraphQL client."""

    forge, host = "github", GITHUB_HOST

    def __init__(self, client: GraphQLClient) -> None:
        self.client = client
        self._page: dict[tuple[str, str], int] = {}  # a PR whose timeline pages timed out keeps its smaller size

    @property
    def stats(self) -> ClientStats:
        return self.client.stats

    # -- changed ---------------------------------------------------------------------------

    def changed(self, run: Run, repos: list[str], stored: dict[str, Repository], since: dict[str, datetime],
                record: Callable[[str, Moved | None, Writes], None]) -> None:
        def fetch(job: Job) -> dict[str, Any]:
            return self.client.query("repos_changed", {**_slot_vars(_pairs(job.items), CHANGED_SLOTS), "prs": CHANGED_PRS})

        def store(job: Job, body: dict[str, Any]) -> None:
            out = Writes()
            for i, repo in enumerate(job.items):
                node = (body.get("data") or {}).get(f"r{i}")
                record(repo, self._moved(run, repo, node, stored[repo], since[repo]), out)
            run.write(out)
            run.progress("what changed", len(job.items), len(repos))

        run.run_jobs([Job(tuple(b)) for b in chunks(repos, CHANGED_SLOTS)], fetch, store, "changed", lambda j: j.items)

    def _moved(self, run: Run, repo: str, node: dict[str, Any] | None, was: Repository, since: datetime) -> Moved | None:
        if node is None or node["nameWithOwner"] != repo:
            return None
        now = replace(mapping.repository({**node, "owner": {"__typename": was.owner_type}}), languages=was.languages,
                      topics=was.topics, default_branch=was.default_branch, root_files=was.root_files,
                      created_at=was.created_at, pushed_at=was.pushed_at)
        conn = node.get("pullRequests") or {}
        updated = [n for n in conn.get("nodes") or [] if mapping.ts(n["updatedAt"]) >= since]  # type: ignore[operator]
        prs = tuple((n["number"], {"id": n["id"], "since": api_time(since)}) for n in updated
                    if mapping.ts(n["createdAt"]) >= run.start)  # type: ignore[operator]
        issues = (node.get("issues") or {}).get("nodes") or []
        return Moved(
            repo=now, pushed=mapping.ts(node.get("pushedAt")) != was.pushed_at, updated=len(updated), prs=prs,
            more_prs=bool((conn.get("pageInfo") or {}).get("hasNextPage")) and len(updated) == len(conn.get("nodes") or []),
            issues=bool(issues) and mapping.ts(issues[0]["updatedAt"]) >= since,  # type: ignore[operator]
        )

    # -- meta ------------------------------------------------------------------------------

    def meta(self, run: Run, repos: list[str], found: Callable[[str, Writes, Meta | str], None]) -> None:
        since = api_time(run.start)

        def fetch(job: Job) -> dict[str, Any]:
            return self.client.query("repo_meta", {**_slot_vars(_pairs(job.items), META_SLOTS), "since": since,
                                                   "commits": run.settings.window.commit_sample})

        def store(job: Job, body: dict[str, Any]) -> None:
            # A whole response in one transaction: its rows and the states that mark them done.
            out = Writes()
            for i, requested in enumerate(job.items):
                try:
                    found(requested, out, self._meta(run, body, f"r{i}"))
                except RequestFailed as err:  # the older history of one repository would not come
                    run.fail([requested], "meta", str(err))
            run.write(out)
            run.progress("metadata", len(job.items), len(repos))

        run.run_jobs([Job(tuple(b)) for b in chunks(repos, META_SLOTS)], fetch, store, "meta", lambda j: j.items)

    def _meta(self, run: Run, body: dict[str, Any], alias: str) -> Meta | str:
        node = (body.get("data") or {}).get(alias)
        if node is None:
            err = _slot_error(body, alias)
            return {"NOT_FOUND": "not_found", "FORBIDDEN": "blocked"}.get((err or {}).get("type", ""), "not_found")
        repo = mapping.repository(node)
        actual = repo.name_with_owner
        history = mapping.history_of(node) or {}
        commits = mapping.commits(actual, history)
        if history.get("pageInfo", {}).get("hasNextPage") and all(is_bot_commit(c, run.bots) for c in commits):
            commits += self._more_history(run, actual, history["pageInfo"]["endCursor"])
        gfi = frozenset(run.rules.gfi_labels)
        labels = sorted({n["name"] for key in GFI_KEYS for n in (node.get(key) or {}).get("nodes") or [] if norm_label(n["name"]) in gfi})
        return Meta(repo, mapping.community(node, run.rules.ai_files), commits,
                    total_prs=(node.get("pullRequests") or {}).get("totalCount", 0), gfi_labels=tuple(labels),
                    empty=bool(node.get("isEmpty")))

    def _more_history(self, run: Run, repo: str, after: str) -> list[Any]:
        """Older commits in the window, only as far as the first human one (evaluate.gates.commit_sample)."""
        owner, name = repo.split("/", 1)
        out: list[Any] = []
        cursor: str | None = after
        while cursor:
            body = self.client.query("history_more", {"owner": owner, "name": name, "after": cursor,
                                                      "since": api_time(run.start)})
            node = (body.get("data") or {}).get("repository") or {}
            history = mapping.history_of(node) or {}
            page = mapping.commits(repo, history)
            out += page
            if not all(is_bot_commit(c, run.bots) for c in page):
                break
            info = history.get("pageInfo") or {}
            cursor = info.get("endCursor") if info.get("hasNextPage") else None
        return out

    # -- pulls -----------------------------------------------------------------------------

    def pulls(self, run: Run, plans: dict[str, dict[str, Any]], totals: dict[str, int],
              known_ci: dict[tuple[str, int], bool], total: int) -> None:
        for repo, plan in plans.items():
            if plan["order"] == "CREATED_AT":
                plan.setdefault("first", max(1, min(100, totals[repo])))
        self._list_updated(run, [r for r in plans if plans[r]["order"] == "UPDATED_AT"], plans, total)
        pending = [r for r in plans if plans[r]["order"] == "CREATED_AT"]
        while pending:
            more: list[str] = []

            def fetch(job: Job) -> dict[str, Any]:
                return self._pull_page(list(job.items), plans)

            def store(job: Job, body: dict[str, Any]) -> None:
                out = Writes()
                for i, repo in enumerate(job.items):
                    if self._store_pulls(run, repo, body, f"r{i}", plans[repo], known_ci, out):
                        more.append(repo)
                run.write(out)
                run.progress("pull requests", sum(1 for r in job.items if r not in more), total)

            def shrink(job: Job) -> list[Job]:
                """Split the batch; a single repository asks for fewer PRs a page from now on."""
                if len(job.items) > 1:
                    return split(job)
                plan = plans[job.items[0]]
                if plan["first"] > MIN_PR_PAGE:
                    plan["cap"] = plan["first"] = max(MIN_PR_PAGE, plan["first"] // 2)
                    return [Job(job.items)]
                return split(job)

            run.run_jobs([Job(tuple(b)) for b in self._pack(pending, plans)], fetch, store, "pulls", lambda j: j.items,
                         shrink=shrink)
            pending = run.alive(more)

    def _list_updated(self, run: Run, repos: list[str], plans: dict[str, dict[str, Any]], total: int) -> None:
        """Each repository's PRs updated since its last run, fifty repositories a point, each queued (`pull#N`)."""
        pending = repos
        while pending:
            more: list[str] = []

            def fetch(job: Job) -> dict[str, Any]:
                batch = job.items
                return self.client.query("pulls_updated", _slot_vars(
                    _pairs(batch), LIST_SLOTS, lambda i, n: {f"a{i}": plans[batch[i]]["after"] if i < n else None}))

            def store(job: Job, body: dict[str, Any]) -> None:
                out = Writes()
                for i, repo in enumerate(job.items):
                    if self._store_updated(run, repo, body, f"r{i}", plans[repo], out):
                        more.append(repo)
                run.write(out)
                run.progress("pull requests", sum(1 for r in job.items if r not in more), total)

            run.run_jobs([Job(tuple(b)) for b in chunks(pending, LIST_SLOTS)], fetch, store, "pulls", lambda j: j.items)
            pending = run.alive(more)

    def _pack(self, repos: list[str], plans: dict[str, dict[str, Any]]) -> list[list[str]]:
        """Group repositories so each query stays within one point's worth of requests."""
        groups: list[list[str]] = []
        current: list[str] = []
        load = 0
        for repo in sorted(repos, key=lambda r: (plans[r]["first"], r)):
            need = 1 + plans[repo]["first"]
            if current and (len(current) == PR_SLOTS or load + need > POINT_REQUESTS):
                groups.append(current)
                current, load = [], 0
            current.append(repo)
            load += need
        if current:
            groups.append(current)
        return groups

    def _pull_page(self, batch: list[str], plans: dict[str, dict[str, Any]]) -> dict[str, Any]:
        def extra(i: int, n: int) -> dict[str, Any]:
            plan = plans[batch[i]] if i < n else {"first": 1, "after": None}
            return {f"f{i}": plan["first"], f"a{i}": plan["after"]}

        variables = _slot_vars(_pairs(batch), PR_SLOTS, extra)
        variables["order"] = {"field": "CREATED_AT", "direction": "DESC"}  # incremental runs list by update instead
        # Unused slots are charged too (@include(if: false) is not documented to be free): one PR each.
        requests = sum(1 + plans[r]["first"] for r in batch) + 2 * (PR_SLOTS - len(batch))
        return self.client.query("pull_requests", variables, expected_cost=max(1, int(requests / 100 + 0.5)))

    def _pulls_of(self, run: Run, repo: str, body: dict[str, Any], alias: str, out: Writes) -> dict[str, Any] | None:
        """A slot's PR connection, or None with the repository's pulls stage marked failed."""
        node = (body.get("data") or {}).get(alias)
        if node is None:
            pulls_stage.unavailable(run, repo, out)
            return None
        return node["pullRequests"]  # type: ignore[no-any-return]

    def _store_pulls(self, run: Run, repo: str, body: dict[str, Any], alias: str, plan: dict[str, Any],
                     known_ci: dict[tuple[str, int], bool], out: Writes) -> bool:
        """One page of a repository's PRs and its state, into `out`; True when more pages are needed."""
        conn = self._pulls_of(run, repo, body, alias, out)
        if conn is None:
            return False
        stop = datetime.fromisoformat(plan["stop"])
        reached_stop = False
        for n in conn["nodes"]:
            created = mapping.ts(n["createdAt"])
            if created < stop:  # type: ignore[operator]  # newest first: the window starts here
                reached_stop = True
                continue
            self._record(run, repo, n, known_ci, out)
        more = conn["pageInfo"]["hasNextPage"] and not reached_stop
        # Size the next page to what is left, so a short remainder shares a point with others; never above
        # a cap learnt from a timeout.
        plan["fetched"] = plan.get("fetched", 0) + len(conn["nodes"])
        left = conn["totalCount"] - plan["fetched"]
        plan.update({"after": conn["pageInfo"]["endCursor"], "first": max(1, min(100, left, plan.get("cap", 100)))})
        pulls_stage.listed(run, repo, plan, more, out)
        return more

    def _record(self, run: Run, repo: str, n: dict[str, Any], known_ci: dict[tuple[str, int], bool], out: Writes,
                since: str | None = None) -> None:
        pr, account, items = mapping.pull_request(repo, n)
        tl = n.get("timelineItems") or {}
        more = {"id": pr.node_id, "after": tl["pageInfo"]["endCursor"]} if (tl.get("pageInfo") or {}).get("hasNextPage") else None
        pulls_stage.record(run, repo, pr, account, items, more, known_ci, out, since)

    def _store_updated(self, run: Run, repo: str, body: dict[str, Any], alias: str, plan: dict[str, Any], out: Writes) -> bool:
        conn = self._pulls_of(run, repo, body, alias, out)
        if conn is None:
            return False
        stop = datetime.fromisoformat(plan["stop"])
        queued: list[tuple[int, dict[str, Any]]] = []
        reached_stop = False
        for n in conn["nodes"]:
            if mapping.ts(n["updatedAt"]) < stop:  # type: ignore[operator]
                reached_stop = True
                break
            if mapping.ts(n["createdAt"]) >= run.start:  # type: ignore[operator]
                queued.append((n["number"], {"id": n["id"], "since": api_time(stop)}))
        more = conn["pageInfo"]["hasNextPage"] and not reached_stop
        plan["after"] = conn["pageInfo"]["endCursor"]
        pulls_stage.listed(run, repo, plan, more, out)
        for number, cursor in queued:
            pulls_stage.queue(run, repo, number, cursor, out)
        return more

    # -- timelines -------------------------------------------------------------------------

    def pulls_by_id(self, run: Run, pending: list[tuple[tuple[str, str], dict[str, Any]]],
                    known_ci: dict[tuple[str, int], bool]) -> None:
        """The PRs a later run queued, whole, up to 149 a point; resumable per query."""
        def fetch(job: Job) -> dict[str, Any]:
            cursors = [json.loads(st["cursor"]) for _, st in job.items]
            return self.client.query("pulls_by_id", {**_id_vars([c["id"] for c in cursors]), "since": cursors[0].get("since")})

        def store(job: Job, body: dict[str, Any]) -> None:
            out = Writes()
            for ((repo, stage), st), n in zip(job.items, _id_nodes(body)):
                out.states.append(run.state(repo, stage, "done", None, None if n else "gone"))
                if n:
                    self._record(run, repo, n, known_ci, out, json.loads(st["cursor"]).get("since"))
            run.write(out)
            run.progress("updated pull requests", len(job.items), len(pending))

        jobs = [Job(tuple(b)) for group in _by_since(pending) for b in chunks(group, BY_ID_BATCH)]
        run.run_jobs(jobs, fetch, store, "pulls", lambda j: [k[0] for k, _ in j.items])

    def timelines(self, run: Run, pending: list[tuple[tuple[str, str], dict[str, Any]]],
                  page: Callable[..., None] = timelines_stage.page) -> None:
        """One more page of each pending timeline, 25 PRs a query."""
        jobs = [Job(tuple(b), min(self._page.get(k, TIMELINE_PAGE) for k, _ in b))
                for group in _by_since(pending) for b in chunks(group, TIMELINE_SLOTS)]

        def fetch(job: Job) -> dict[str, Any]:
            variables: dict[str, Any] = {"first": job.size}
            for i in range(TIMELINE_SLOTS):
                cur = json.loads(job.items[i][1]["cursor"]) if i < len(job.items) else {"id": "unused", "after": None}
                variables[f"id{i}"], variables[f"a{i}"], variables[f"s{i}"] = cur["id"], cur["after"], cur.get("since")
                if i:
                    variables[f"use{i}"] = i < len(job.items)
            return self.client.query("timeline_more", variables)

        def store(job: Job, body: dict[str, Any]) -> None:
            out = Writes()
            for i, ((repo, stage), st) in enumerate(job.items):
                self._page[(repo, stage)] = job.size or TIMELINE_PAGE
                node = (body.get("data") or {}).get(f"p{i}") or {}
                conn = node.get("timelineItems") or {"nodes": [], "pageInfo": {}}
                items = mapping.timeline_items(repo, int(stage.split("#", 1)[1]), conn["nodes"])
                info = conn.get("pageInfo") or {}
                page(run, repo, stage, json.loads(st["cursor"]), items,
                     {"after": info["endCursor"]} if info.get("hasNextPage") else None, out)
            run.write(out)

        run.run_jobs(jobs, fetch, store, "timeline", lambda j: [k[0] for k, _ in j.items], MIN_TIMELINE_PAGE)

    # -- authors, CI, issues -----------------------------------------------------------------

    def authors(self, run: Run, wanted: list[tuple[str, str, str, str]], found: Callable[..., None]) -> None:
        """Each returning author's latest commit before their first PR of the window, 100 a point."""
        def fetch(job: Job) -> dict[str, Any]:
            items = job.items

            def extra(i: int, n: int) -> dict[str, Any]:
                _, _, node_id, until = items[i] if i < n else ("", "", "unused", "2000-01-01T00:00:00Z")
                return {f"u{i}": node_id, f"t{i}": until}

            return self.client.query("author_history", _slot_vars(_pairs(x[0] for x in items), AUTHOR_SLOTS, extra))

        def store(job: Job, body: dict[str, Any]) -> None:
            out = Writes()
            for i, item in enumerate(job.items):
                node = (body.get("data") or {}).get(f"c{i}") or {}
                found(item, mapping.commits(item[0], mapping.history_of(node)), out)
            run.write(out)
            run.progress("returning authors", len(job.items), len(wanted))

        run.run_jobs([Job(tuple(b)) for b in chunks(wanted, AUTHOR_SLOTS)], fetch, store, "authors",
                     lambda j: [x[0] for x in j.items])

    def ci(self, run: Run, wanted: list[tuple[str, int, str]], found: Callable[[dict[str, dict[int, bool]]], None]) -> None:
        """Whether each PR's last commit has a status check rollup, 149 PRs a point."""
        def fetch(job: Job) -> dict[str, Any]:
            return self.client.query("ci_checks", _id_vars([x[2] for x in job.items]))

        def store(job: Job, body: dict[str, Any]) -> None:
            checks: dict[str, dict[int, bool]] = {}
            for (repo, number, _), node in zip(job.items, _id_nodes(body)):
                commits = ((node or {}).get("commits") or {}).get("nodes") or []
                rollup = (commits[0].get("commit") or {}).get("statusCheckRollup") if commits else None
                checks.setdefault(repo, {})[number] = rollup is not None
            found(checks)

        run.run_jobs([Job(tuple(b)) for b in chunks(wanted, CI_BATCH)], fetch, store, "ci", lambda j: [x[0] for x in j.items])

    def issues(self, run: Run, repos: list[str], labels: dict[str, list[str]],
               found: Callable[[Sequence[str], Sequence[Issue]], None]) -> None:
        """Open issues under each repository's good-first-issue labels, 50 repositories a point."""
        def fetch(job: Job) -> dict[str, Any]:
            batch = job.items
            return self.client.query("good_first_issues", _slot_vars(
                _pairs(batch), GFI_SLOTS, lambda i, n: {f"l{i}": labels[batch[i]] if i < n else ["none"]}))

        def store(job: Job, body: dict[str, Any]) -> None:
            issues: list[Issue] = []
            for i, repo in enumerate(job.items):
                node = (body.get("data") or {}).get(f"r{i}") or {}
                issues += [Issue(repo, n["number"], n.get("title") or "", "OPEN", tuple(labels[repo]), 0, mapping.ts(n.get("createdAt")))
                           for n in ((node.get("issues") or {}).get("nodes") or [])]
            found(job.items, issues)

        run.run_jobs([Job(tuple(b)) for b in chunks(repos, GFI_SLOTS)], fetch, store, "issues", lambda j: j.items)
