"""Stage `changed` (a run after an earlier one): one listing of every repository collected before.

A repository where nothing moved keeps every stage of its last run, confirmed for this one at no further
cost; one that moved is fetched only where it moved (a push: metadata and documents; PR updates: those
PRs by id; issue updates: its good first issues). Scalars such as stars are taken from the listing itself.

Adapter: `changed(run, repos, stored, since, record)` lists `repos` and calls `record(repo, moved, out)`
with what moved (`Moved`, or None for a repository gone or renamed) for each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from porchlamp.collect.run import Run, Writes
from porchlamp.models import Repository, as_of_instant

# Stages a repository that did not change keeps from its last run, confirmed for this one.
CONFIRMABLE = ("meta", "pulls", "accounts", "ci", "issues", "dependents")
# A PR updated this long before the last run is listed again: an event stamped just before the
# run may be indexed just after it.
UPDATED_MARGIN = timedelta(hours=1)


@dataclass(frozen=True)
class Moved:
    """What a forge's listing says of a repository since its last run."""

    repo: Repository  # as the listing shows it, with what the listing does not carry kept from the store
    pushed: bool  # its default branch moved: commits, documents and packages may have changed
    updated: int  # PRs updated since, in the window or not
    prs: tuple[tuple[int, dict[str, Any]], ...]  # those opened in the window, each with its adapter's cursor to fetch it
    more_prs: bool  # more PRs were updated than the listing showed: list them all again
    issues: bool  # an issue was updated since


def run(run: Run, repos: list[str]) -> None:
    todo = run.todo("changed", repos)
    if not todo:
        return
    stored = {r.name_with_owner: r for r in run.store.records("repositories")}
    states = {stage: run.store.states(stage) for stage in CONFIRMABLE}
    errors = run.store.states("error")
    prior: dict[str, date] = {}
    for repo in todo:
        st = states["pulls"].get((repo, "pulls"))
        if repo in stored and st and st["status"] == "done" and st["as_of"] < run.as_of and (repo, "error") not in errors:
            prior[repo] = st["as_of"]

    def record(repo: str, moved: Moved | None, out: Writes) -> None:
        _record(run, repo, moved, stored[repo], prior[repo], states, out)

    for adapter, group in run.by_forge(r for r in todo if r in prior):
        adapter.changed(run, group, stored, {r: since(prior[r]) for r in group}, record)


def since(prior: date) -> datetime:
    """The instant from which a repository's updates are read again: its last run, with a margin."""
    return as_of_instant(prior) - UPDATED_MARGIN


def _record(run: Run, repo: str, moved: Moved | None, was: Repository, prior: date,
            states: dict[str, dict[tuple[str, str], dict[str, Any]]], out: Writes) -> None:
    flags: dict[str, Any] = {"since": prior.isoformat()}
    summary = run.summary
    if moved is None:
        # Gone, blocked or renamed: the full metadata step finds out which, as on a first run.
        flags["gone"] = True
        out.states.append(run.state(repo, "changed", "done", None, json.dumps(flags)))
        summary.changed["gone or renamed"] = summary.changed.get("gone or renamed", 0) + 1
        return
    keep = set(CONFIRMABLE)
    if moved.pushed:
        keep -= {"meta", "dependents"}  # commits, files and packages may have changed
        flags["pushed"] = True
    if moved.repo != was and "meta" in keep:
        out.records.append(moved.repo)  # stars, description, license...: the listing carries them all
        flags["metadata"] = True
    for number, cursor in moved.prs:
        out.states.append(run.state(repo, f"pull#{number}", "pending", cursor))
    if moved.updated:
        keep -= {"ci", "accounts"}  # a merge may have entered the CI sample; new people may act
        flags["prs"] = moved.updated
        if moved.more_prs:
            keep.discard("pulls")  # more than the listing showed: the PR listing pages through them
    if moved.issues:
        # A new issue may carry a label made since: the label list the issue query filters by
        # comes with the metadata.
        keep -= {"issues", "meta"}
        flags["issues"] = True
    confirmed = []
    for stage in sorted(keep):
        st = states[stage].get((repo, stage))
        if st and st["status"] == "done":
            confirmed.append(run.state(repo, stage, "done", st["cursor"], st["detail"]))
    out.states += [*confirmed, run.state(repo, "changed", "done", None, json.dumps(flags))]
    if len(flags) == 1:
        summary.unchanged += 1
    for key in ("pushed", "prs", "issues", "metadata"):
        if key in flags:
            summary.changed[key] = summary.changed.get(key, 0) + 1
