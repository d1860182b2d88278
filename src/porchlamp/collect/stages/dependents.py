"""Stage `dependents`: one lookup a repository on the dependents service (ecosyste.ms), by the
repository's web address on its forge. When the service cannot be reached or keeps failing, say so
once, stop asking, and leave the rest missing (never zero) for the next run.
"""

from __future__ import annotations

from typing import Any

from porchlamp import forges
from porchlamp.collect.errors import NetworkError
from porchlamp.collect.run import Run, chunks
from porchlamp.models import Dependents

DEPENDENTS_CHUNK = 10  # lookups between checks of the dependents service's health
DEPENDENTS_BREAKER = 3  # consecutive failed lookups after which the service is taken for down
ECOSYSTEM_OF_REGISTRY = {"pypi": "PyPI", "npm": "npm", "cargo": "crates.io", "maven": "Maven", "go": "Go"}


def run(run: Run, repos: list[str], lookup: Any) -> None:
    """`lookup`: a client with `get_json(url, params)` (the run's first client that has one)."""
    if not run.opt.dependents_api or lookup is None:
        return
    todo = run.todo("dependents", repos)
    url = run.opt.dependents_api.rstrip("/") + "/api/v1/packages/lookup"
    failures_running = 0

    def fetch(repo: str) -> Any:
        try:
            return lookup.get_json(url, {"repository_url": forges.web_url(repo)})
        except NetworkError as err:
            return err

    for n, chunk in enumerate(chunks(todo, DEPENDENTS_CHUNK)):
        if failures_running >= DEPENDENTS_BREAKER:
            left = len(todo) - n * DEPENDENTS_CHUNK
            run.summary.dependents_missing += left
            run.notice(f"the dependents service at {run.opt.dependents_api} kept failing ({failures_running} lookups in a row); "
                       f"stopped asking: dependents are missing for {left:,} repositories this run, and the next run asks again")
            return
        found, done = [], []
        for repo, packages in run.fetch_all(list(chunk), fetch):
            if isinstance(packages, NetworkError):
                failures_running += 1
                run.summary.dependents_missing += 1
                continue
            failures_running = 0
            done.append(repo)
            found.append(dependents(repo, packages if isinstance(packages, list) else None))
        with run.store.transaction():  # written a chunk at a time: one transaction per lookup crawls
            run.store.delete_repo_rows("dependents", done)
            run.store.upsert([dep for dep in found if dep])
            run.store.set_states([run.state(repo, "dependents", "done") for repo in done])
        run.progress("dependents", len(chunk), len(todo))


def dependents(repo: str, packages: list[dict[str, Any]] | None) -> Dependents | None:
    """The most depended-on package a repository publishes, from the ecosyste.ms lookup."""
    if not packages:
        return None
    def weight(p: dict[str, Any]) -> int:
        return int(p.get("dependent_packages_count") or 0) * 10 + int(p.get("dependent_repos_count") or 0)
    best = max(packages, key=lambda p: (weight(p), p.get("name") or ""))
    eco = ECOSYSTEM_OF_REGISTRY.get(str(best.get("ecosystem") or "").lower(), best.get("ecosystem"))
    return Dependents(repo, eco, best.get("name"), best.get("dependent_packages_count"), best.get("dependent_repos_count"))
