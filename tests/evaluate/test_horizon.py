"""A verdict's horizon: while the window's end stays before it, the same rows give the same verdict,
day after day, for every repository of a sample world."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings as hsettings, strategies as st

from porchlamp.config import Settings
from porchlamp.evaluate.engine import evaluate_repo, window
from porchlamp.evaluate.horizon import holds, horizon, pr_horizon
from porchlamp.evaluate.pulls import Earlier, context_key, judge_pulls, repo_context, standing
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
    got = horizon(_repo(created), (), start, end, settings)
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


def test_a_repository_read_through_its_kept_verdicts_is_one_judged_again(store300: Path, world300: Path) -> None:
    """A later day that takes each kept PR's maintainers' acts, redirect and horizon from its earlier
    verdict (where its rows are the same and its horizon is ahead) gives every repository the result
    judging all its PRs again gives: status, gates, evidence, components, every PR verdict."""
    settings, rules, as_of, repos, accounts, index = _world(store300, world300)
    kept = 0
    _, end = window(as_of, settings)
    for data in repos[::5]:
        rows = {p.number: "the same rows" for p in data.pulls}
        first = evaluate_repo(data, accounts, settings, rules, as_of, index, Earlier(rows, {}, None))
        assert all(v.rows == "the same rows" and v.acts is not None for v in first.prs)
        before = {v.number: v for v in first.prs}
        for k in (1, 5, 13):
            later = as_of + timedelta(days=k)
            again = evaluate_repo(data, accounts, settings, rules, later, index, Earlier(rows, before, end))
            assert again == evaluate_repo(data, accounts, settings, rules, later, index, Earlier(rows, {}, None)), \
                (data.repo.name_with_owner, k)
            kept += sum(1 for v in again.prs if before.get(v.number) is v)
    assert kept > 10_000, kept


def test_a_pr_verdict_is_keyed_by_its_rows_and_its_standing() -> None:
    """A PR's key moves with its rows' digest, the repository's maintainers, and its author's first
    contribution and account age, and with nothing else of the repository."""
    from tests.helpers import accounts as accts, context, data, item, pr

    base = data(pulls=(pr(1), pr(2, author="other")), items=(item("comment", datetime(2026, 6, 2), "maint", "OWNER"),))
    pr1 = base.pulls[0]

    def key(d: RepoData, accounts: dict | None = None, rows: str = "rows") -> tuple[str, str]:  # type: ignore[type-arg]
        ctx = context(d, accounts)
        return rows, standing(context_key(ctx), pr1.author, ctx)

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


_HOURS = st.integers(min_value=-400 * 24, max_value=30 * 24)


@hsettings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(_HOURS, st.one_of(st.none(), _HOURS),
                          st.lists(st.tuples(_HOURS, st.booleans()), max_size=4), st.booleans()), max_size=4),
       st.lists(_HOURS, max_size=3), st.lists(_HOURS, max_size=2))
def test_a_repositorys_horizon_is_its_first_crossed_time(prs: list[tuple[int, int | None, list[tuple[int, bool]], bool]],
                                                         commits: list[int], orphans: list[int]) -> None:
    """The repository's horizon is the first instant an end reaches one of its times (a PR's opening
    or merge, a timeline row, a commit) or a response period running out (from an opening or a
    ready-for-review), whether a PR's part comes from its verdict's `valid_until` or from its rows,
    and whatever order a PR's items come in."""
    from tests.helpers import data, human_commit, item, pr as make_pr

    settings = Settings()
    start, end = window(date(2026, 6, 1), settings)
    at = lambda h: end + timedelta(hours=h)  # noqa: E731
    pulls, items, judged = [], [], []
    both: list[datetime] = []
    clocks: list[datetime] = []
    for n, (opened, merged, rows, has_verdict) in enumerate(prs, start=1):
        p = make_pr(n, created=at(opened), merged_at=None if merged is None else at(merged))
        mine = tuple(item("ready_for_review" if ready else "comment", at(h), "someone", number=n) for h, ready in rows)
        pulls.append(p)
        items.extend(mine)
        both += [p.created_at, *([p.merged_at] if p.merged_at else []), *(i.created_at for i in mine)]
        clocks += [p.created_at, *(i.created_at for i in mine if i.kind == "ready_for_review")]
        if has_verdict:
            judged.append(_Judged(n, pr_horizon(p, mine[::-1], start, end, settings.window.response_days)))
    items.extend(item("comment", at(h), "someone", number=99) for h in orphans)  # a row whose PR row is missing
    both += [at(h) for h in (*orphans, *commits)]
    repo = data(pulls=tuple(pulls), items=tuple(items), commits=tuple(human_commit(at(h)) for h in commits))
    span, respond = end - start, timedelta(days=settings.window.response_days)
    crossings = [t + d for t in both for d in (timedelta(0), span) if t + d >= end]
    crossings += [t + respond for t in clocks if t + respond >= end]
    assert horizon(repo, judged, start, end, settings) == (min(crossings) if crossings else None)


@dataclass(frozen=True)
class _Judged:
    """What `horizon` reads of a PR verdict."""
    number: int
    valid_until: datetime | None


@hsettings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=-200 * 24, max_value=10 * 24), st.booleans()), max_size=12),
       st.integers(min_value=1, max_value=4))
def test_commits_count_only_as_the_sample_while_the_horizon_is_ahead(commits: list[tuple[int, bool]], size: int) -> None:
    """With the window's commit sample given, the horizon is the first instant an end crosses a commit
    that can change the sample (one entering at the end, or a sampled one the start leaves): before
    it the sample is the same at every end, just past it the sample differs, and it never comes later
    than counting every commit would."""
    from porchlamp.evaluate.gates import commit_sample
    from porchlamp.models import Commit
    from tests.helpers import data

    settings = Settings()
    start, end = window(date(2026, 6, 1), settings)
    bots = Bots(load_rules(settings).bots, "acme/widget")
    made = tuple(Commit("acme/widget", f"{i:040x}", end + timedelta(hours=h), "ci-bot[bot]" if bot else f"dev{i}",
                        None, "Bot" if bot else "User") for i, (h, bot) in enumerate(commits))
    repo = data(commits=made)
    sample = commit_sample(made, bots, start, end, size)
    got = horizon(repo, (), start, end, settings, sample)
    every = horizon(repo, (), start, end, settings)
    assert got is None or (every is not None and every <= got)
    span = end - start
    ends = [end + timedelta(hours=k) for k in range(0, 400 * 24, 37)]
    for later in (e for e in ends if got is None or e < got):
        assert commit_sample(made, bots, later - span, later, size) == sample, later
    if got is not None:
        past = got + timedelta(microseconds=1)
        assert commit_sample(made, bots, past - span, past, size) != sample
