"""Stage `meta`: each repository's metadata, project documents and the window's newest commits (as
far back as the first by a person, `evaluate.gates.commit_sample`), and what later stages need to
know of it: how many PRs it has, its good-first-issue labels, whether it is empty.

Adapter: `meta(run, repos, found)` asks for `repos` and calls `found(requested, out, meta)` for each,
with a `Meta` or, for a repository the forge does not serve, the reason ("not_found", "blocked").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from porchlamp.collect.run import Run, Writes
from porchlamp.models import Commit, CommunityFiles, Repository


@dataclass(frozen=True)
class Meta:
    repo: Repository  # under its name now (a renamed repository's new name)
    community: CommunityFiles
    commits: Sequence[Commit]
    total_prs: int  # PRs the repository holds in all: the first page's size
    gfi_labels: tuple[str, ...]  # its labels that are good-first-issue variants (rules.gfi_labels)
    empty: bool = False
    extra: tuple[Any, ...] = ()  # other rows the forge's metadata brings (accounts of its members)


def run(run: Run, repos: list[str]) -> list[str]:
    """Collect the repositories' metadata; returns those alive (under their current names), in order."""
    todo = run.todo("meta", repos)

    def found(requested: str, out: Writes, meta: Meta | str) -> None:
        if isinstance(meta, str):
            out.states.append(run.state(requested, "meta", "failed", None, meta))
            return
        actual = meta.repo.name_with_owner
        if actual.lower() != requested.lower():
            out.renames.append((requested, actual))
            run.summary.renamed[requested] = actual
        out.records += [meta.repo, meta.community, *meta.commits, *meta.extra]
        detail = json.dumps({"total_prs": meta.total_prs, "gfi_labels": list(meta.gfi_labels), "empty": meta.empty})
        out.states.append(run.state(actual, "meta", "done", None, detail))

    for adapter, group in run.by_forge(todo):
        adapter.meta(run, group, found)
    states = run.store.states("meta")
    names = run.store.repo_names_map()
    alive: list[str] = []
    for r in repos:
        actual = names.get(r.lower(), r)
        st = states.get((actual, "meta"))
        if st and st["status"] == "done" and actual not in alive and r not in run.errors:
            alive.append(actual)
    return alive


def details(run: Run, repos: Sequence[str]) -> dict[str, dict[str, Any]]:
    """What the metadata stage learnt of each repository for the stages after it."""
    states = run.store.states("meta")
    return {r: json.loads(((states.get((r, "meta")) or {}).get("detail")) or "{}") for r in repos}
