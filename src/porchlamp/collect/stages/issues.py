"""Stage `issues`: each repository's open, unassigned issues under its good-first-issue labels (the
label names the metadata stage found), replacing what an earlier run stored. A repository with no
such label has none, and is done without a request.

Adapter: `issues(run, repos, labels, found)`; calls `found(repos, issues, out)` for each response
with the repositories it covered and their issues.
"""

from __future__ import annotations

from collections.abc import Sequence

from porchlamp.collect.run import Run
from porchlamp.collect.stages import meta as meta_stage
from porchlamp.models import Issue


def run(run: Run, repos: list[str]) -> None:
    todo = run.todo("issues", repos)
    details = meta_stage.details(run, todo)
    labels = {r: list(details[r].get("gfi_labels", [])) for r in todo}
    with run.store.transaction():
        run.store.delete_repo_rows("issues", [r for r in todo if not labels[r]])
        run.store.set_states([run.state(r, "issues", "done") for r in todo if not labels[r]])

    def found(covered: Sequence[str], issues: Sequence[Issue]) -> None:
        with run.store.transaction():
            run.store.delete_repo_rows("issues", covered)
            run.store.upsert(issues)
            run.store.set_states([run.state(r, "issues", "done") for r in covered])

    for adapter, group in run.by_forge(r for r in todo if labels[r]):
        adapter.issues(run, group, labels, found)
