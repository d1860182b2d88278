"""Stage `authors`: had a returning author contributed before the window? (SPEC section 3: a
first-timer had no merged PR and no commit in the repository before the PR was opened.)

For each author of the window's PRs who may have (on GitHub: whose PRs read CONTRIBUTOR, an
association computed when read, so a first-timer merged since reads it too; on a forge with no
association: every author who is no bot), the forge is asked for their latest contribution before
their first PR of the window; what it finds is stored as a commit by them, which the first-timer rule
and the activity gate read like any other. Each answer is kept (`author#login`) with the instant it
reached, so a later run asks again only about what it has not seen.

Adapter: `authors(run, wanted, found)`, `wanted` as (repo, login, account id, until); calls
`found(item, commits, out)` for each.
"""

from __future__ import annotations

import json
from datetime import timedelta

from porchlamp.collect.run import Run, Writes
from porchlamp.evaluate.bots import Bots
from porchlamp.models import Commit

Wanted = tuple[str, str, str, str]  # (repo, login, account id, until: an instant as the forge writes it)


def stamp(t: object) -> str:
    """An instant as the state rows keep it (GitHub's DateTime form)."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")  # type: ignore[attr-defined]


def run(run: Run, repos: list[str]) -> None:
    states = run.store.states("author#")
    wanted: list[Wanted] = []
    bots: dict[str, Bots] = {}
    for repo, login, node_id, first in run.store.returning_authors(repos, run.start, run.end):
        if not node_id or bots.setdefault(repo, Bots(run.rules.bots, repo)).is_bot(login, "User"):
            continue
        until = stamp(first - timedelta(seconds=1))
        st = states.get((repo, f"author#{login.lower()}"))
        if st and st["status"] == "done":
            found, asked = st["detail"], json.loads(st["cursor"])["until"]
            # Known already: a contribution before this instant, or none up to a later one.
            if (found is not None and found <= until) or (found is None and asked >= until):
                continue
        wanted.append((repo, login, node_id, until))

    def found(item: Wanted, commits: list[Commit], out: Writes) -> None:
        repo, login, _, until = item
        out.records += commits
        at = stamp(commits[0].committed_at) if commits else None
        out.states.append(run.state(repo, f"author#{login.lower()}", "done", {"until": until}, at))

    for adapter, group in run.by_forge(dict.fromkeys(w[0] for w in wanted)):
        hosts = set(group)
        adapter.authors(run, [w for w in wanted if w[0] in hosts], found)
