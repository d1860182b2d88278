"""One day's refresh of a store that holds an earlier snapshot: collect what changed, evaluate the
day, publish the site, and say what moved. The command line's `refresh` is a thin layer over it.

Each stage is resumable on its own (collection by its stored states, evaluation and publishing by
being repeatable), so running the same refresh again after a crash finishes the day.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from porchlamp.collect import CollectOptions, Collector, CollectSummary, GraphQLClient
from porchlamp.collect.plan import plan_lines
from porchlamp.forges import GITHUB_HOST
from porchlamp.config import Settings
from porchlamp.publish import PublishSummary, generations, load_site_data, publish
from porchlamp.publish.changes import Changes, changes_from_store
from porchlamp.snapshot import EVALUATE_BUDGET, EvaluateSummary, SnapshotError, evaluate_store
from porchlamp.store import Store
from porchlamp.store.retention import PruneSummary, prune_snapshots

Step = Callable[[str, int | None], Any]  # (label, total) -> a context manager yielding advance(n)


@dataclass(frozen=True)
class RefreshSummary:
    as_of: date
    previous: date | None  # the snapshot the store held before; None makes this a first, full run
    collected: CollectSummary
    evaluated: EvaluateSummary
    changes: Changes
    published: PublishSummary | None
    again: bool = False  # the day had been collected already: this run only finished or repeated the rest
    pruned: PruneSummary | None = None  # old snapshots dropped afterwards (--keep-days)

    def lines(self) -> list[str]:
        """What a cron log or an operator reads: what was touched, what it cost, which verdicts moved."""
        c = self.collected
        if self.previous is None:
            touched = f"first run: all {c.repos:,} repositories collected in full"
        elif self.again:
            touched = f"already collected for this day; {c.repos:,} repositories checked, nothing fetched again"
        else:
            moved = ", ".join(f"{n:,} {what}" for what, n in sorted(c.changed.items())) or "nothing"
            touched = (f"since {self.previous}: {c.repos - c.unchanged:,} of {c.repos:,} repositories touched ({moved}); "
                       f"{c.unchanged:,} unchanged")
        counts = self.changes.summary()
        verdicts = ", ".join(f"{n:,} {kind.replace('_', ' ')}" for kind, n in counts.items() if n) or "none"
        out = [f"refresh for {self.as_of}: {touched}",
               f"collected {c.prs:,} PRs for {c.points:,} points in {c.requests:,} requests; failed: "
               + (", ".join(f"{n} {why.replace('_', ' ')}" for why, n in sorted(c.failed.items())) or "none"),
               f"evaluated {self.evaluated.repos:,} repositories; verdicts that moved: {verdicts}"]
        if self.published:
            p = self.published
            out.append(f"published {p.pages:,} pages to {p.out} in {p.seconds:.1f} s"
                       + (f"; {p.reused:,} of {p.projects:,} projects' files unchanged, kept from the previous site" if p.reused else "")
                       + (f"; {p.placed:,} given only their new ranks" if p.placed else ""))
        if self.pruned is not None:
            out += [f"pruned: {line}" for line in self.pruned.lines()]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"as_of": self.as_of.isoformat(), "previous": self.previous.isoformat() if self.previous else None,
                "collected": self.collected.as_dict(), "evaluated_repos": self.evaluated.repos,
                "evaluate_steps": self.evaluated.steps,
                "verdicts_moved": self.changes.summary(), "again": self.again,
                "pruned": None if self.pruned is None else [d.isoformat() for d in self.pruned.dropped],
                "published": None if self.published is None else {"out": str(self.published.out), "pages": self.published.pages,
                                                                  "seconds": self.published.seconds,
                                                                  "projects_kept": self.published.reused,
                                                                  "projects_placed": self.published.placed,
                                                                  "steps": self.published.steps}}


def run_refresh(store: Store, client: GraphQLClient | Mapping[str, Any], repos: list[str], as_of: date, settings: Settings, step: Step,
                out_dir: Path | None = None, dependents_api: str | None = None, concurrency: int = 2,
                issues_url: str | None = None, notice: Callable[[str], None] = lambda text: None,
                say: Callable[[str], None] = lambda text: None, workers: int = 1, cluster: str | None = None,
                reuse: bool = True, keep_days: int | None = None, memory: str = EVALUATE_BUDGET,
                audit: bool = True) -> RefreshSummary:
    """Refresh `store` for `as_of`: collect (only what changed since its last run), evaluate the whole
    snapshot, publish to `out_dir` when given (linking the previous site's project files that hold,
    unless not `reuse`). A store without an
    earlier run is collected in full. With `keep_days`, old snapshots' results are pruned at the end
    (`store.retention`). `memory`: DuckDB's budget while the snapshot is evaluated. The new site is
    audited before it goes live (`publish`; not when `audit` is false): on a contradiction the live
    site stays and AuditError says what failed, with the day's collection and evaluation kept."""
    last = store.get_meta("collected_as_of")
    previous = date.fromisoformat(last) if last else None
    if previous is not None and previous > as_of:
        raise SnapshotError(f"the store was last collected for {previous}, after {as_of}; refresh moves forward only")
    clients = {GITHUB_HOST: client} if isinstance(client, GraphQLClient) else dict(client)
    for line in plan_lines(clients, store, repos, as_of):  # each host's token is checked before anything runs
        say(line)
    with step("collecting what changed", len(repos) * 3) as advance:
        collector = Collector(store, clients, CollectOptions(as_of=as_of, window_days=settings.window.days,
                                                            concurrency=concurrency, dependents_api=dependents_api),
                              settings, progress=lambda label, n, total: advance(n), notice=notice)
        collected = collector.run(repos)
    with step("evaluating", store.count("repositories")) as advance:
        evaluated = evaluate_store(store, as_of, settings, advance, workers, cluster, memory=memory)
    changes = changes_from_store(store, as_of)
    published = None
    if out_dir is not None:
        # On a cluster, its workers write the pages and read the detail files beside them.
        site = load_site_data(store, as_of, beside=generations.shared_folder(out_dir) if cluster else None)
        with step("publishing", len(site.projects)) as advance:
            published = publish(site, out_dir, progress=advance, full=not reuse, cluster=cluster, audit=audit,
                                **({"issues_url": issues_url} if issues_url else {}))
    pruned = prune_snapshots(store, keep_days) if keep_days is not None else None
    # `previous` names the snapshot compared against: the collection's, or else the evaluated one before.
    return RefreshSummary(as_of, previous if previous != as_of else changes.previous, collected, evaluated, changes, published,
                          again=previous == as_of, pruned=pruned)
