"""Stage `accounts`: who the people acting on a forge's PRs are, where the PRs themselves do not say
(GitLab: no association on anything, and no bot flag on a note's author).

For each project: its members with their access level (a maintainer is Developer or above, SPEC 13),
read by the adapter in whichever way takes fewer requests. Then, once for each account never read
before: whether it is a bot (the forge's flag) and when it was made (the brand-new rule), for the
authors of the window's PRs who are no members, and the members who act on them (a project's access
token bot is a member too). What an account turns out to be is written onto its rows.

Adapter (optional: GitHub's PRs carry all of this): `members(run, repos, actors)`, `users(run, wanted)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from porchlamp.collect.run import Run
from porchlamp.evaluate.bots import Bots
from porchlamp.models import Member


def run(run: Run, repos: list[str]) -> None:
    todo = run.todo("accounts", repos)
    for adapter, group in run.by_forge(todo):
        if not hasattr(adapter, "members"):
            continue
        host = adapter.host
        named = Bots(run.rules.bots)
        # Members first, each project's marked done (`members`) as it is stored; a resumed run reads
        # only the rest, then the accounts still unread, and only then is the stage done.
        need = run.alive(run.todo("members", group))
        if need:
            actors = run.store.actors(need, run.start, run.end)
            adapter.members(run, need, {r: {login: uid for login, uid in people.items() if uid and not named.is_bot(login, "User")}
                                        for r, people in actors.items()})
        wanted = run.store.accounts_to_read(host, run.alive(group), run.start, run.end)
        adapter.users(run, [(login, uid) for login, uid in wanted if not named.is_bot(login, "User")])
        run.flush()
        with run.store.transaction():
            run.store.apply_account_types(host)
            run.store.set_states([run.state(r, "accounts", "done") for r in run.alive(group)])


def store_members(run: Run, repo: str, members: Sequence[Member], total: int) -> None:
    """A project's members as its forge lists them now, and its `members` step done, in one transaction."""
    with run.store.transaction():
        run.store.replace_members(repo, members)
        run.store.set_states([run.state(repo, "members", "done")])
    run.progress("members", 1, total)
