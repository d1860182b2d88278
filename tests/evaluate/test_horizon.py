"""A verdict's horizon: while the window's end stays before it, the same rows give the same verdict,
day after day, for every repository of a sample world."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings as hsettings, strategies as st

from porchlamp.config import Settings
from porchlamp.evaluate.engine import evaluate_repo, window
from porchlamp.evaluate.horizon import holds, horizon, pr_horizon
from porchlamp.evaluate.pulls import Earlier, context_key, judge_pulls, pr_key, repo_context, standing
from porchlamp.evaluate.rules import Rules, load_rules
from porchlamp.evaluate.templates import TemplateIndex, build_index
from porchlamp.evaluate.bots import Bots
from porchlamp.models import Account, PullRequest, RepoData, Repository, CommunityFiles
from porchlamp.sample import read_meta
from porchlamp.store import Store


def _world(store300: Path, world300: Path) -> tuple[Settings, Rules, date, list[RepoData], dict[str, Account], TemplateIndex]:
    """Settings, rules, a day 20 days before the world's, its repositories, accounts and template index."""
    settings, rules = Settings(), load_rules(Settings())
    as_of = date.fromisoformat(read_meta(world300)["as_of"]) - timedelta(days=20)
    with Store(store300, read_only=True) as store:
        repos = list(store.iter_repo_data())
        accounts = store.accounts()
    return settings, rules, as_of, repos, accounts, build_index(repos, lambda name: Bots(rules.bots, name),
                                                                settings.templates, rules.bot_templates)


def test_a_verdict_stays_while_its_horizon_is_ahead(store300: Path, world300: Path) -> None:
    settings, rules, as_of, repos, accounts, index = _world(store300, world300)
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


def test_a_kept_pr_verdict_is_the_one_judging_again_gives(store300: Path, world300: Path) -> None:
    """Wherever `judge_pulls` keeps an earlier day's PR verdict (same key, its own horizon ahead),
    judging that PR again for the later window gives the very same verdict; the rest are judged."""
    settings, rules, as_of, repos, accounts, index = _world(store300, world300)
    kept = judged = 0
    for data in repos[::4]:
        rows = {p.number: "the same rows" for p in data.pulls}  # the rows do not change here, the window does
        start, end = window(as_of, settings)
        first = judge_pulls(data, repo_context(data, accounts, rules, settings, start, end, index), Earlier(rows, {}, None))
        assert all(v.inputs for v in first)
        before = {v.number: v for v in first}
        for k in (1, 2, 5, 13):
            later_start, later_end = window(as_of + timedelta(days=k), settings)
            ctx = repo_context(data, accounts, rules, settings, later_start, later_end, index)
            again = judge_pulls(data, ctx, Earlier(rows, before, end))
            assert again == judge_pulls(data, ctx, Earlier(rows, {}, None)), (data.repo.name_with_owner, k)
            same = sum(1 for v in again if before.get(v.number) is v)
            kept += same
            judged += len(again) - same
    # Both sides are exercised: verdicts kept for days, and ones a boundary or a new maintainer ends.
    assert kept > 15_000 and judged > 1_000, (kept, judged)


def test_a_pr_verdict_is_keyed_by_its_rows_and_its_standing() -> None:
    """A PR's key moves with its rows' digest, the repository's maintainers, and its author's first
    contribution and account age, and with nothing else of the repository."""
    from tests.helpers import accounts as accts, context, data, item, pr

    base = data(pulls=(pr(1), pr(2, author="other")), items=(item("comment", datetime(2026, 6, 2), "maint", "OWNER"),))
    pr1 = base.pulls[0]

    def key(d: RepoData, accounts: dict | None = None, rows: str = "rows") -> str:  # type: ignore[type-arg]
        ctx = context(d, accounts)
        return pr_key(rows, standing(context_key(ctx), pr1.author, ctx))

    assert key(base) == key(base) and key(base) != key(base, rows="other rows")
    # A new maintainer (someone labels a PR) moves every PR's key.
    more = data(pulls=base.pulls, items=(*base.timeline[1], item("labeled", datetime(2026, 6, 3), "triager", number=2)))
    assert "triager" in context(more).maintainers and key(more) != key(base)
    # The author's account, and their first merged PR elsewhere in the repository.
    assert key(base, accts(("outsider", datetime(2026, 5, 30)))) != key(base)
    merged = data(pulls=(*base.pulls, pr(3, merged_at=datetime(2026, 5, 1), created=datetime(2026, 4, 1))),
                  items=base.timeline[1])
    assert key(merged) != key(base)
    # Another author's standing is not this PR's.
    assert key(base, accts(("other", datetime(2026, 5, 30)))) == key(base)


@hsettings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=-400 * 24, max_value=30 * 24), st.booleans()), max_size=6),
       st.integers(min_value=-400 * 24, max_value=30 * 24), st.one_of(st.none(), st.integers(min_value=-400 * 24, max_value=30 * 24)))
def test_a_prs_horizon_is_its_repositorys_over_its_own_times(items: list[tuple[int, bool]], opened: int, merged: int | None) -> None:
    """A PR's horizon is the repository horizon of a repository holding that PR alone, whatever order its items come in."""
    from tests.helpers import data, item, pr as make_pr

    settings = Settings()
    start, end = window(date(2026, 6, 1), settings)
    at = lambda h: end + timedelta(hours=h)  # noqa: E731
    p = make_pr(1, created=at(opened), merged_at=None if merged is None else at(merged))
    rows = tuple(item("ready_for_review" if ready else "comment", at(h), "someone") for h, ready in items)
    alone = data(pulls=(p,), items=rows, commits=())
    assert pr_horizon(p, rows, start, end, settings.window.response_days) == horizon(alone, start, end, settings)
