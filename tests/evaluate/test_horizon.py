"""A verdict's horizon: while the window's end stays before it, the same rows give the same verdict,
day after day, for every repository of a sample world."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings as hsettings, strategies as st

from porchlamp.config import Settings
from porchlamp.evaluate.engine import evaluate_repo, window
from porchlamp.evaluate.horizon import holds, horizon
from porchlamp.evaluate.rules import load_rules
from porchlamp.evaluate.templates import build_index
from porchlamp.evaluate.bots import Bots
from porchlamp.models import PullRequest, RepoData, Repository, CommunityFiles
from porchlamp.sample import read_meta
from porchlamp.store import Store


def test_a_verdict_stays_while_its_horizon_is_ahead(store300: Path, world300: Path) -> None:
    settings, rules = Settings(), load_rules(Settings())
    as_of = date.fromisoformat(read_meta(world300)["as_of"]) - timedelta(days=20)
    with Store(store300, read_only=True) as store:
        repos = list(store.iter_repo_data())
        accounts = store.accounts()
    index = build_index(repos, lambda name: Bots(rules.bots, name), settings.templates, rules.bot_templates)
    kept = changed = 0
    for data in repos[::3]:
        first = evaluate_repo(data, accounts, settings, rules, as_of, index)
        _, end = window(as_of, settings)
        for k in (1, 2, 5, 13):
            later = as_of + timedelta(days=k)
            if holds(first.valid_until, end, window(later, settings)[1]):
                again = evaluate_repo(data, accounts, settings, rules, later, index)
                assert again == first, (data.repo.name_with_owner, later)
                kept += 1
            else:
                changed += 1
    # Both sides are exercised: verdicts that hold for days, and ones a boundary ends.
    assert kept > 80 and changed > 200, (kept, changed)


def _repo(created: list[datetime]) -> RepoData:
    name = "o/r"
    return RepoData(repo=Repository(name_with_owner=name), community=CommunityFiles(repo=name),
                    pulls=tuple(PullRequest(repo=name, number=i + 1, node_id=f"n{i}", title="t", author="a", author_type="User",
                                            author_association="NONE", created_at=t) for i, t in enumerate(created)),
                    timeline={}, commits=(), issues=(), dependents=None)


@hsettings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-400 * 24, max_value=30 * 24), max_size=6))
def test_the_horizon_is_the_first_time_an_end_crosses(hours: list[int]) -> None:
    settings = Settings()
    start, end = window(date(2026, 6, 1), settings)
    created = [end + timedelta(hours=h) for h in hours]
    got = horizon(_repo(created), start, end, settings)
    span, respond = end - start, timedelta(days=settings.window.response_days)
    # Every instant an end reaches a PR's opening, or its response period running out, from `end` on.
    crossings = [t + d for t in created for d in (timedelta(0), span, respond) if t + d >= end]
    assert got == (min(crossings) if crossings else None)
