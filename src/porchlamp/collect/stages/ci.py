"""Stage `ci`: whether the latest merged PRs ran CI checks, on the sample the review_ci component
scores (`components.ci_sample`), for the PRs whose answer is not known from an earlier run.

Adapter: `ci(run, wanted, found)`, `wanted` as (repo, PR number, PR id); calls `found(checks)` with
{repo: {number: ran CI}} for each response.
"""

from __future__ import annotations

from porchlamp.collect.run import Run


def run(run: Run, repos: list[str]) -> None:
    todo = run.todo("ci", repos)
    wanted: list[tuple[str, int, str]] = []
    for repo in todo:
        wanted += [(repo, number, node_id) for number, node_id in run.store.merged_without_ci(repo, run.start, run.settings.components.ci_sample)]

    def found(checks: dict[str, dict[int, bool]]) -> None:
        with run.store.transaction():
            for repo, seen in checks.items():
                run.store.set_has_ci(repo, seen)

    for adapter, group in run.by_forge(dict.fromkeys(w[0] for w in wanted)):
        hosts = set(group)
        adapter.ci(run, [w for w in wanted if w[0] in hosts], found)
    with run.store.transaction():
        run.store.set_states([run.state(r, "ci", "done") for r in todo if r not in run.errors])
