"""Worlds built from the labelled real accounts of `data/own_repo_accounts.csv` (SPEC section 5: an
account that acts as a bot in one repository), as the own-repository rule is measured and tested.

Each bot gets a repository of its own with eight outside PRs and nothing on them but its real
message, posted as a member a day (or a minute) after each PR opens, with the numbers, links, hashes
and mentions in it changed per PR as a real bot's are. Each maintainer gets a repository where they
answer outside PRs with each of their real replies, one PR each, a day after it opens; one who has
a canned reply and also writes in their own words pastes it on five more PRs.
"""

from __future__ import annotations

import csv
import random
import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from helpers import T0, accounts, data, item, pr, repo

from porchlamp.models import RepoData

CORPUS = Path(__file__).parent / "data" / "own_repo_accounts.csv"
BOT_PRS = 8
CANNED_PRS = 5
D = timedelta(days=1)
_NUMBER = re.compile(r"\d+")
_HEX = re.compile(r"\b[0-9a-f]{7,40}\b")
_MENTION = re.compile(r"@[\w-]+")


@dataclass(frozen=True)
class Row:
    login: str
    role: str  # "bot" or "maintainer"
    kind: str  # "message" (a bot's), "own" (a person's own words) or "canned" (a reply pasted on many PRs)
    split: str  # "tune" or "held_out": fixed by a hash of the login before any threshold was chosen
    url: str
    text: str


def corpus(split: str | None = None) -> list[Row]:
    with CORPUS.open(newline="", encoding="utf-8") as f:
        rows = [Row(**r) for r in csv.DictReader(f)]
    return [r for r in rows if split is None or r.split == split]


def varied(text: str, n: int) -> str:
    """`text` as posted on the n-th PR: its numbers, hashes and mentions changed as a real bot's are."""
    rng = random.Random(f"{text}:{n}")
    text = _HEX.sub(lambda m: f"{rng.getrandbits(4 * len(m.group())):0{len(m.group())}x}", text)
    text = _MENTION.sub(lambda m: f"@contributor{rng.randint(1, 999)}", text)
    return _NUMBER.sub(lambda m: str(rng.randint(1, 10 ** len(m.group()))), text)


def _slug(login: str) -> str:
    return "own/" + re.sub(r"[^a-z0-9-]", "-", login.lower())


def bot_repo(login: str, message: str, delay: timedelta = D) -> RepoData:
    """A repository whose only activity on its outside PRs is `login` posting `message`, as a member."""
    name = _slug(login)
    pulls = tuple(pr(n, f"author{n}", repo=name, created=T0 + n * 3 * D) for n in range(1, BOT_PRS + 1))
    items = tuple(item("comment", T0 + n * 3 * D + delay, login, "MEMBER", repo=name, number=n, body=varied(message, n))
                  for n in range(1, BOT_PRS + 1))
    return data(repo(name), pulls=pulls, items=items)


def maintainer_repo(login: str, replies: list[str], canned: str | None) -> RepoData:
    """A repository where `login` answers one outside PR with each reply, and pastes `canned` (if any)
    on CANNED_PRS more, a day after each opens."""
    name = _slug(login)
    texts = list(replies) + ([varied(canned, k) for k in range(CANNED_PRS)] if canned else [])
    pulls = tuple(pr(n, f"author{n}", repo=name, created=T0 + n * 3 * D) for n in range(1, len(texts) + 1))
    items = tuple(item("comment", T0 + n * 3 * D + D, login, "MEMBER", repo=name, number=n, body=t)
                  for n, t in enumerate(texts, start=1))
    return data(repo(name), pulls=pulls, items=items)


def bot_world(rows: list[Row], delay: timedelta = D) -> list[RepoData]:
    return [bot_repo(r.login, r.text, delay) for r in rows if r.role == "bot"]


def maintainer_world(rows: list[Row]) -> list[RepoData]:
    """One repository per maintainer. A canned reply is pasted only by someone who also writes in
    their own words; from someone else it is one more reply of theirs."""
    people: dict[str, tuple[list[str], list[str]]] = {}
    for r in rows:
        if r.role == "maintainer":
            own, canned = people.setdefault(r.login, ([], []))
            (canned if r.kind == "canned" else own).append(r.text)
    out = []
    for login, (own, canned) in people.items():
        paste = canned[0] if canned and own else None
        out.append(maintainer_repo(login, own + (canned if not own else canned[1:]), paste))
    return out


def authors() -> dict[str, object]:
    return accounts(*((f"author{n}", T0 - 900 * D) for n in range(1, 40)))


def groups(repos: list[RepoData]) -> list[list[RepoData]]:
    """`repos` in groups in which no two hold the same text, so that each bot is judged as if it were
    alone: a message that several bots share (a Jenkins plugin's) would otherwise be found as a
    template across repositories, and the own-repository rule would not be what caught it."""
    from porchlamp.config import Settings
    from porchlamp.evaluate.marks import mark_text
    from porchlamp.evaluate.rules import load_rules

    rules = load_rules(Settings())
    out: list[tuple[set[int], list[RepoData]]] = []
    for d in repos:
        fps = {mark_text(i.body, rules).fp for items in d.timeline.values() for i in items}
        for seen, members in out:
            if not seen & fps:
                seen |= fps
                members.append(d)
                break
        else:
            out.append((set(fps), [d]))
    return [members for _, members in out]


def answered(repos: list[RepoData], settings: object = None) -> tuple[int, int, set[str]]:
    """(PRs answered, PRs, logins set aside as their repository's bot) when `repos` are evaluated,
    group by group (`groups`)."""
    from helpers import evaluated

    n_answered = n = 0
    own: set[str] = set()
    for group in groups(repos):
        e = evaluated(*group, accts=authors(), settings=settings)
        n += len(e.prs)
        n_answered += sum(v.answered for v in e.prs)
        for r in e.results.values():
            own |= {b["login"] for b in r.evidence().get("own_bots", [])}
    return n_answered, n, own
