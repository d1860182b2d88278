"""Resumable, incremental collection of everything SPEC.md needs, into the store.

Stages per repository: meta (metadata, files, recent commits) -> pulls (PRs with their first
timeline page) -> timeline (the rest, only where the first page did not settle the outcome)
-> ci (CI status of recent merged PRs) -> issues (open unassigned good first issues) ->
dependents. Each response's rows are written in one transaction with the state that says
they are done, so a run killed at any point resumes where it stopped and ends with the same rows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from porchlamp.collect import mapping
from porchlamp.collect.client import CollectError, GraphQLClient
from porchlamp.config import Settings
from porchlamp.evaluate.gates import is_bot_commit
from porchlamp.evaluate.people import bot_reason
from porchlamp.evaluate.rules import Rules, load_rules, norm_label
from porchlamp.models import Issue, as_of_instant
from porchlamp.store import Store

META_SLOTS, PR_SLOTS, TIMELINE_SLOTS, GFI_SLOTS, CI_BATCH, LIST_SLOTS, BY_ID_BATCH = 16, 12, 10, 50, 149, 50, 149
DEPENDENTS_BATCH = 50
# GitHub takes at most this many ids in one `nodes` field; queries by id use two fields.
MAX_IDS = 100
# GitHub rounds requests / 100 to the nearest point: up to 149 requests cost one point.
POINT_REQUESTS = 149
STAGES = ("meta", "pulls", "timeline", "ci", "issues", "dependents")
RESPONDER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR"})
DUMMY = ("porchlamp", "unused-slot")  # fills skipped alias slots; @include(if: false) keeps it unread


@dataclass(frozen=True)
class CollectOptions:
    as_of: date
    window_days: int = 183
    concurrency: int = 2
    dependents_api: str | None = None  # base URL of the ecosyste.ms packages service; None skips dependents


@dataclass
class CollectSummary:
    as_of: str
    repos: int = 0
    done: int = 0
    failed: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    prs: int = 0
    timeline_items: int = 0
    points: int = 0
    requests: int = 0
    bytes_received: int = 0
    retries: dict[str, int] = field(default_factory=dict)
    points_by_query: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    incremental: bool = False
    points_saved: int | None = None

    @property
    def points_per_100_prs(self) -> float | None:
        return round(self.points * 100 / self.prs, 3) if self.prs else None

    @property
    def points_per_repo(self) -> float | None:
        return round(self.points / self.repos, 3) if self.repos else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "points_per_100_prs": self.points_per_100_prs, "points_per_repo": self.points_per_repo}


def _chunks(items: Sequence[Any], n: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


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


def _id_vars(ids: Sequence[str]) -> dict[str, Any]:
    return {"ids": list(ids[:MAX_IDS]), "more": list(ids[MAX_IDS:])}


def _id_nodes(body: dict[str, Any]) -> list[Any]:
    """The nodes of a query by id, in the order asked, across its two `nodes` fields."""
    data = body.get("data") or {}
    return [*(data.get("a") or []), *(data.get("b") or [])]


@dataclass
class _Writes:
    """What one response adds to the store, written together in one transaction."""

    records: list[Any] = field(default_factory=list)
    states: list[tuple[str, str, date, str, str | None, str | None]] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)
    fresh_commits: list[str] = field(default_factory=list)  # repositories whose commit listing is replaced


def _slot_error(body: dict[str, Any], alias: str) -> dict[str, Any] | None:
    for e in body.get("errors") or []:
        if isinstance(e, dict) and (e.get("path") or [None])[0] == alias:
            return e
    return None


class Collector:
    def __init__(self, store: Store, client: GraphQLClient, options: CollectOptions, settings: Settings | None = None,
                 progress: Callable[[str, int, int | None], None] | None = None) -> None:
        self.store, self.client, self.opt = store, client, options
        settings = settings or Settings()
        self.rules: Rules = load_rules(settings)
        self.ci_sample = settings.components.ci_sample  # the evaluation scores CI on the same sample
        self.end = as_of_instant(options.as_of)
        self.start = self.end - timedelta(days=options.window_days)
        self.progress = progress or (lambda label, n, total: None)
        self.summary = CollectSummary(as_of=options.as_of.isoformat())
        self._gfi = frozenset(self.rules.gfi_labels)

    # -- orchestration ---------------------------------------------------------------------

    def run(self, requested: Sequence[str]) -> CollectSummary:
        t0 = time.perf_counter()
        last = self.store.get_meta("collected_as_of")
        if last and date.fromisoformat(last) > self.opt.as_of:
            raise CollectError(f"the store already holds data collected for {last}, later than {self.opt.as_of}; "
                             "collect into a new store to go back in time")
        names = self.store.repo_names_map()
        repos = list(dict.fromkeys(names.get(r.lower(), r) for r in requested))
        self.summary.repos = len(repos)
        alive = self._meta(repos)
        self._pulls(alive)
        self._timelines(alive)
        self._ci(alive)
        self._issues(alive)
        self._dependents(alive)
        failed = self.store.states("meta")
        for repo in repos:
            st = failed.get((repo, "meta"))
            if st and st["status"] == "failed":
                self.summary.failed[st["detail"]] = self.summary.failed.get(st["detail"], 0) + 1
                self.summary.failures.append({"repo": repo, "reason": st["detail"]})
        self.summary.done = len(alive)
        cs = self.client.stats
        self.summary.points, self.summary.requests, self.summary.bytes_received = cs.points, cs.requests, cs.bytes_received
        self.summary.retries = dict(cs.retries)
        self.summary.points_by_query = dict(cs.points_by_query)
        self.summary.seconds = round(time.perf_counter() - t0, 2)
        full_before = self.store.get_meta("full_collection_points")
        if self.summary.incremental and full_before:
            self.summary.points_saved = int(full_before) - self.summary.points
        elif not self.summary.incremental:
            self.store.set_meta("full_collection_points", str(self.summary.points))
        self.store.mark_collected(self.opt.as_of)
        return self.summary

    def _todo(self, stage: str, repos: Iterable[str]) -> list[str]:
        states = self.store.states(stage)
        return [r for r in repos if not ((st := states.get((r, stage))) and st["status"] in ("done", "failed")
                                         and st["as_of"] == self.opt.as_of)]

    def _fetch_all(self, jobs: list[Any], fn: Callable[[Any], Any]) -> Iterator[tuple[Any, Any]]:
        """Run fetches a few at a time (GitHub asks for few concurrent requests); yield in order of jobs."""
        if self.opt.concurrency <= 1 or len(jobs) <= 1:
            for job in jobs:
                yield job, fn(job)
            return
        with ThreadPoolExecutor(max_workers=self.opt.concurrency) as pool:
            futures = [(job, pool.submit(fn, job)) for job in jobs]
            for job, fut in futures:
                yield job, fut.result()

    # -- meta ------------------------------------------------------------------------------

    def _meta(self, repos: list[str]) -> list[str]:
        todo = self._todo("meta", repos)
        since = self.start.strftime("%Y-%m-%dT%H:%M:%SZ")
        batches = list(_chunks(todo, META_SLOTS))

        def fetch(batch: Sequence[str]) -> dict[str, Any]:
            pairs = [tuple(r.split("/", 1)) for r in batch]
            return self.client.query("repo_meta", {**_slot_vars(pairs, META_SLOTS), "since": since})  # type: ignore[arg-type]

        for batch, body in self._fetch_all(batches, fetch):
            # A whole response in one transaction: its rows and the states that mark them done.
            out = _Writes()
            for i, requested in enumerate(batch):
                self._store_meta(requested, body, f"r{i}", out)
            with self.store.transaction():
                for requested, actual in out.renames:
                    self.store.set_repo_name(requested, actual)
                self.store.delete_repo_rows("commits", out.fresh_commits)
                self.store.upsert(out.records)
                self.store.set_states(out.states)
            self.progress("metadata", len(batch), len(todo))
        states = self.store.states("meta")
        names = self.store.repo_names_map()
        alive = []
        for r in repos:
            actual = names.get(r.lower(), r)
            st = states.get((actual, "meta"))
            if st and st["status"] == "done" and actual not in alive:
                alive.append(actual)
        return alive

    def _store_meta(self, requested: str, body: dict[str, Any], alias: str, out: "_Writes") -> None:
        node = (body.get("data") or {}).get(alias)
        err = _slot_error(body, alias)
        if node is None:
            reason = {"NOT_FOUND": "not_found", "FORBIDDEN": "blocked"}.get((err or {}).get("type", ""), "not_found")
            out.states.append((requested, "meta", self.opt.as_of, "failed", None, reason))
            return
        repo = mapping.repository(node)
        actual = repo.name_with_owner
        history = mapping.history_of(node) or {}
        commits = mapping.commits(actual, history)
        if history.get("pageInfo", {}).get("hasNextPage") and all(is_bot_commit(c, self.rules) for c in commits):
            commits += self._more_history(actual, history["pageInfo"]["endCursor"])
        labels = sorted({n["name"] for key in ("labelsFirst", "labelsBeginner", "labelsEasy", "labelsStarter", "labelsNewcomer")
                         for n in (node.get(key) or {}).get("nodes") or [] if norm_label(n["name"]) in self._gfi})
        detail = json.dumps({"total_prs": (node.get("pullRequests") or {}).get("totalCount", 0), "gfi_labels": labels,
                             "empty": bool(node.get("isEmpty"))})
        if actual.lower() != requested.lower():
            out.renames.append((requested, actual))
            self.summary.renamed[requested] = actual
        out.fresh_commits.append(actual)
        out.records += [repo, mapping.community(node, self.rules.ai_files), *commits]
        out.states.append((actual, "meta", self.opt.as_of, "done", None, detail))

    def _more_history(self, repo: str, after: str) -> list[Any]:
        """Older commits in the window, only as far as the first human one."""
        owner, name = repo.split("/", 1)
        out: list[Any] = []
        cursor: str | None = after
        while cursor:
            body = self.client.query("history_more", {"owner": owner, "name": name, "after": cursor,
                                                      "since": self.start.strftime("%Y-%m-%dT%H:%M:%SZ")})
            node = (body.get("data") or {}).get("repository") or {}
            history = mapping.history_of(node) or {}
            page = mapping.commits(repo, history)
            out += page
            if not all(is_bot_commit(c, self.rules) for c in page):
                break
            info = history.get("pageInfo") or {}
            cursor = info.get("endCursor") if info.get("hasNextPage") else None
        return out

    # -- pulls -----------------------------------------------------------------------------

    def _pulls(self, repos: list[str]) -> None:
        todo = self._todo("pulls", repos)
        states = self.store.states("pulls")
        meta = self.store.states("meta")
        plans: dict[str, dict[str, Any]] = {}
        for repo in todo:
            st = states.get((repo, "pulls"))
            prior = st["as_of"] if st and st["status"] == "done" and st["as_of"] < self.opt.as_of else None
            if st and st["status"] == "partial" and st["as_of"] == self.opt.as_of:
                plans[repo] = json.loads(st["cursor"])
                continue
            total = json.loads(meta[(repo, "meta")]["detail"] or "{}").get("total_prs", 100)
            if prior is not None:
                since = as_of_instant(prior) - timedelta(days=1)
                plans[repo] = {"order": "UPDATED_AT", "after": None, "stop": since.isoformat()}
                self.summary.incremental = True
            else:
                plans[repo] = {"order": "CREATED_AT", "after": None, "stop": self.start.isoformat(), "first": max(1, min(100, total))}
        self._list_updated([r for r in todo if plans[r]["order"] == "UPDATED_AT"], plans, len(todo))
        pending = [r for r in todo if plans[r]["order"] == "CREATED_AT"]
        known_ci = self.store.known_ci() if pending else {}
        while pending:
            batches = self._pack(pending, plans)
            pending = []
            for batch, body in self._fetch_all(batches, lambda b: self._pull_page(b, plans)):
                out = _Writes()
                for i, repo in enumerate(batch):
                    if self._store_pulls(repo, body, f"r{i}", plans[repo], known_ci, out):
                        pending.append(repo)
                with self.store.transaction():
                    self.store.upsert(out.records)
                    self.store.set_states(out.states)
                self.progress("pull requests", sum(1 for r in batch if r not in pending), len(todo))

    def _list_updated(self, repos: list[str], plans: dict[str, dict[str, Any]], total: int) -> None:
        """Incremental: list each repository's PRs updated since the last snapshot, fifty repositories a point.

        Any new comment, review, merge or close moves a PR's `updatedAt`, so the listed PRs are exactly
        those whose verdict can have changed; each is queued (`pull#N`) for `_pulls_by_id`."""
        pending = repos
        while pending:
            batches = list(_chunks(pending, LIST_SLOTS))
            pending = []

            def fetch(batch: Sequence[str]) -> dict[str, Any]:
                pairs = [tuple(r.split("/", 1)) for r in batch]
                return self.client.query("pulls_updated", _slot_vars(  # type: ignore[arg-type]
                    pairs, LIST_SLOTS, lambda i, n: {f"a{i}": plans[batch[i]]["after"] if i < n else None}))

            for batch, body in self._fetch_all(batches, fetch):
                out = _Writes()
                for i, repo in enumerate(batch):
                    if self._store_updated(repo, body, f"r{i}", plans[repo], out):
                        pending.append(repo)
                with self.store.transaction():
                    self.store.set_states(out.states)
                self.progress("pull requests", sum(1 for r in batch if r not in pending), total)

    def _pulls_of(self, repo: str, body: dict[str, Any], alias: str, out: "_Writes") -> dict[str, Any] | None:
        """A slot's PR connection, or None with the repository's pulls stage marked failed."""
        node = (body.get("data") or {}).get(alias)
        if node is None:
            out.states.append((repo, "pulls", self.opt.as_of, "failed", None, "pull requests unavailable"))
            return None
        return node["pullRequests"]  # type: ignore[no-any-return]

    def _store_updated(self, repo: str, body: dict[str, Any], alias: str, plan: dict[str, Any], out: "_Writes") -> bool:
        conn = self._pulls_of(repo, body, alias, out)
        if conn is None:
            return False
        stop = datetime.fromisoformat(plan["stop"])
        queued = []
        reached_stop = False
        for n in conn["nodes"]:
            if mapping.ts(n["updatedAt"]) < stop:  # type: ignore[operator]
                reached_stop = True
                break
            if mapping.ts(n["createdAt"]) >= self.start:  # type: ignore[operator]
                queued.append((repo, f"pull#{n['number']}", self.opt.as_of, "pending", json.dumps({"id": n["id"]}), None))
        more = conn["pageInfo"]["hasNextPage"] and not reached_stop
        plan["after"] = conn["pageInfo"]["endCursor"]
        state = (repo, "pulls", self.opt.as_of, "partial" if more else "done", json.dumps(plan) if more else None, None)
        out.states += [state, *queued]
        return more

    def _pulls_by_id(self, alive: set[str]) -> None:
        """Fetch whole the PRs an incremental listing queued, up to 149 a point; resumable per query."""
        pending = sorted((k, v) for k, v in self.store.states("pull#").items() if v["status"] == "pending" and k[0] in alive)
        if not pending:
            return
        batches = list(_chunks(pending, BY_ID_BATCH))
        known_ci = self.store.known_ci()
        fetch = lambda b: self.client.query("pulls_by_id", _id_vars([json.loads(st["cursor"])["id"] for _, st in b]))  # noqa: E731
        for batch, body in self._fetch_all(batches, fetch):
            out = _Writes()
            for ((repo, stage), _), n in zip(batch, _id_nodes(body)):
                out.states.append((repo, stage, self.opt.as_of, "done", None, None if n else "gone"))
                if n:
                    self._pull_records(repo, n, known_ci, out)
            with self.store.transaction():
                self.store.upsert(out.records)
                self.store.set_states(out.states)
            self.progress("updated pull requests", len(batch), len(pending))

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
        pairs = [tuple(r.split("/", 1)) for r in batch]

        def extra(i: int, n: int) -> dict[str, Any]:
            plan = plans[batch[i]] if i < n else {"first": 1, "after": None}
            return {f"f{i}": plan["first"], f"a{i}": plan["after"]}

        variables = _slot_vars(pairs, PR_SLOTS, extra)  # type: ignore[arg-type]
        variables["order"] = {"field": "CREATED_AT", "direction": "DESC"}  # incremental runs list by update instead
        cost = max(1, int(sum(1 + plans[r]["first"] for r in batch) / 100 + 0.5))
        return self.client.query("pull_requests", variables, expected_cost=cost)

    def _store_pulls(self, repo: str, body: dict[str, Any], alias: str, plan: dict[str, Any],
                     known_ci: dict[tuple[str, int], bool], out: "_Writes") -> bool:
        """One page of a repository's PRs and its state, into `out`; True when more pages are needed."""
        conn = self._pulls_of(repo, body, alias, out)
        if conn is None:
            return False
        stop = datetime.fromisoformat(plan["stop"])
        reached_stop = False
        for n in conn["nodes"]:
            created = mapping.ts(n["createdAt"])
            if created < stop:  # type: ignore[operator]  # newest first: the window starts here
                reached_stop = True
                continue
            self._pull_records(repo, n, known_ci, out)
        more = conn["pageInfo"]["hasNextPage"] and not reached_stop
        # Size the next page to what is left, so a short remainder shares a point with others.
        plan["fetched"] = plan.get("fetched", 0) + len(conn["nodes"])
        left = conn["totalCount"] - plan["fetched"]
        plan.update({"after": conn["pageInfo"]["endCursor"], "first": max(1, min(100, left))})
        out.states.append((repo, "pulls", self.opt.as_of, "partial" if more else "done", json.dumps(plan) if more else None, None))
        return more

    def _pull_records(self, repo: str, n: dict[str, Any], known_ci: dict[tuple[str, int], bool], out: "_Writes") -> None:
        """One PR node as rows, plus a timeline continuation when its first page did not settle it."""
        pr, account, items = mapping.pull_request(repo, n)
        if (repo, pr.number) in known_ci:  # keep what the ci stage learnt in an earlier run
            pr = replace(pr, has_ci=known_ci[(repo, pr.number)])
        out.records += [pr, *items] + ([account] if account else [])
        self.summary.prs += 1
        self.summary.timeline_items += len(items)
        tl = n.get("timelineItems") or {}
        if (tl.get("pageInfo") or {}).get("hasNextPage") and not self._settled(pr, items):
            out.states.append((repo, f"timeline#{pr.number}", self.opt.as_of, "pending",
                               json.dumps({"id": pr.node_id, "after": tl["pageInfo"]["endCursor"]}), None))

    def _settled(self, pr: Any, items: list[Any]) -> bool:
        """The first timeline page already holds the first response: the rest cannot change the outcome."""
        author = (pr.author or "").lower()
        for it in items:
            if it.kind == "merged":
                return True
            if it.kind in ("comment", "review") and (it.actor or "").lower() != author and \
                    it.actor_association in RESPONDER_ASSOCIATIONS and bot_reason(it.actor, it.actor_type, self.rules) is None:
                return True
        return False

    # -- timeline continuations ------------------------------------------------------------

    def _timelines(self, repos: list[str]) -> None:
        alive = set(repos)
        self._pulls_by_id(alive)  # before continuations: a PR fetched by id may queue one
        while True:
            pending = [(k, v) for k, v in self.store.states("timeline#").items()
                       if v["status"] == "pending" and k[0] in alive]
            if not pending:
                return
            batches = list(_chunks(sorted(pending), TIMELINE_SLOTS))

            def fetch(batch: Sequence[tuple[tuple[str, str], dict[str, Any]]]) -> dict[str, Any]:
                variables: dict[str, Any] = {}
                for i in range(TIMELINE_SLOTS):
                    cur = json.loads(batch[i][1]["cursor"]) if i < len(batch) else {"id": "unused", "after": None}
                    variables[f"id{i}"], variables[f"a{i}"] = cur["id"], cur["after"]
                    if i:
                        variables[f"use{i}"] = i < len(batch)
                return self.client.query("timeline_more", variables)

            for batch, body in self._fetch_all(batches, fetch):
                records: list[Any] = []
                states = []
                for i, ((repo, stage), st) in enumerate(batch):
                    node = (body.get("data") or {}).get(f"p{i}") or {}
                    conn = node.get("timelineItems") or {"nodes": [], "pageInfo": {}}
                    number = int(stage.split("#", 1)[1])
                    items = mapping.timeline_items(repo, number, conn["nodes"])
                    records += items
                    self.summary.timeline_items += len(items)
                    info = conn.get("pageInfo") or {}
                    cur = json.loads(st["cursor"])
                    if info.get("hasNextPage"):
                        states.append((repo, stage, self.opt.as_of, "pending", json.dumps({**cur, "after": info["endCursor"]}), None))
                    else:
                        states.append((repo, stage, self.opt.as_of, "done", None, None))
                with self.store.transaction():
                    self.store.upsert(records)
                    self.store.set_states(states)

    # -- CI on recent merged PRs -----------------------------------------------------------

    def _ci(self, repos: list[str]) -> None:
        todo = self._todo("ci", repos)
        wanted: list[tuple[str, int, str]] = []
        for repo in todo:
            wanted += [(repo, number, node_id) for number, node_id in self.store.merged_without_ci(repo, self.start, self.ci_sample)]
        by_batch = list(_chunks(wanted, CI_BATCH))
        for batch, body in self._fetch_all(by_batch, lambda b: self.client.query("ci_checks", _id_vars([x[2] for x in b]))):
            checks: dict[str, dict[int, bool]] = {}
            for (repo, number, _), node in zip(batch, _id_nodes(body)):
                commits = ((node or {}).get("commits") or {}).get("nodes") or []
                rollup = (commits[0].get("commit") or {}).get("statusCheckRollup") if commits else None
                checks.setdefault(repo, {})[number] = rollup is not None
            with self.store.transaction():
                for repo, found in checks.items():
                    self.store.set_has_ci(repo, found)
        with self.store.transaction():
            self.store.set_states([(r, "ci", self.opt.as_of, "done", None, None) for r in todo])

    # -- good first issues -----------------------------------------------------------------

    def _issues(self, repos: list[str]) -> None:
        todo = self._todo("issues", repos)
        meta = self.store.states("meta")
        labels = {r: json.loads(meta[(r, "meta")]["detail"] or "{}").get("gfi_labels", []) for r in todo}
        with_labels = [r for r in todo if labels[r]]
        with self.store.transaction():
            self.store.delete_repo_rows("issues", [r for r in todo if not labels[r]])
            self.store.set_states([(r, "issues", self.opt.as_of, "done", None, None) for r in todo if not labels[r]])

        def fetch(batch: Sequence[str]) -> dict[str, Any]:
            pairs = [tuple(r.split("/", 1)) for r in batch]
            return self.client.query("good_first_issues", _slot_vars(
                pairs, GFI_SLOTS, lambda i, n: {f"l{i}": labels[batch[i]] if i < n else ["none"]}))  # type: ignore[arg-type]

        for batch, body in self._fetch_all(list(_chunks(with_labels, GFI_SLOTS)), fetch):
            with self.store.transaction():
                self.store.delete_repo_rows("issues", batch)
                for i, repo in enumerate(batch):
                    node = (body.get("data") or {}).get(f"r{i}") or {}
                    issues = [Issue(repo, n["number"], n.get("title") or "", "OPEN", tuple(labels[repo]), 0, mapping.ts(n.get("createdAt")))
                              for n in ((node.get("issues") or {}).get("nodes") or [])]
                    self.store.upsert(issues)
                self.store.set_states([(r, "issues", self.opt.as_of, "done", None, None) for r in batch])

    # -- dependents ------------------------------------------------------------------------

    def _dependents(self, repos: list[str]) -> None:
        if not self.opt.dependents_api:
            return
        todo = self._todo("dependents", repos)
        url = self.opt.dependents_api.rstrip("/") + "/api/v1/packages/lookup"

        def fetch(repo: str) -> Any:
            return self.client.get_json(url, {"repository_url": f"https://github.com/{repo}"})

        for chunk in _chunks(todo, DEPENDENTS_BATCH):  # written a chunk at a time: one transaction per lookup crawls
            found = [(repo, mapping.dependents(repo, packages if isinstance(packages, list) else None))
                     for repo, packages in self._fetch_all(list(chunk), fetch)]
            with self.store.transaction():
                self.store.delete_repo_rows("dependents", chunk)
                self.store.upsert([dep for _, dep in found if dep])
                self.store.set_states([(repo, "dependents", self.opt.as_of, "done", None, None) for repo, _ in found])
            self.progress("dependents", len(chunk), len(todo))

