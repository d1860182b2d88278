from datetime import datetime, timedelta, timezone

import pytest
from helpers import AS_OF, T0, data, evaluated, facts, item, pr, repo

from porchlamp.config import Settings, settings_from_dict
from porchlamp.evaluate import components as c
from porchlamp.evaluate.components import ComponentResult
from porchlamp.evaluate.engine import window
from porchlamp.evaluate.facts import NO_PRS
from porchlamp.evaluate.ranking import CAPPED, Rankable, profile_score, rank_all, scores_of, tier_of
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import Dependents, Issue

S = Settings()
RULES = load_rules(S)
START, END = window(AS_OF, S)
D = timedelta(days=1)


def _judged(d, settings=S):  # type: ignore[no-untyped-def]
    """What the components count of a hand-built repository's PRs (`facts.Figures`)."""
    return evaluated(d, settings=settings).figures[d.repo.name_with_owner]


def test_responsiveness_figures() -> None:
    pulls = tuple(pr(i, created=T0 + i * timedelta(hours=1)) for i in range(1, 5))
    items = (item("comment", T0 + 1 * timedelta(hours=1) + timedelta(hours=2), "maint", "MEMBER", number=1),
             item("comment", T0 + 2 * timedelta(hours=1) + timedelta(hours=10), "maint", "MEMBER", number=2),
             item("merged", T0 + 3 * timedelta(hours=1) + 3 * D, "maint", number=3))
    res = c.responsiveness(_judged(data(pulls=pulls, items=items)), S)
    assert res.inputs["answered_share"] == 0.75 and res.inputs["decided_share"] == 0.25
    # Times over all four outside PRs, the unanswered one as never: 2, 10, 72 hours and never.
    assert res.inputs["median_hours_to_first_response"] == 41.0 and res.inputs["p90_hours_to_first_response"] is None
    expected = 100 * (0.5 * 0.75 + 0.2 * c.time_score(41, 336) + 0.1 * 0.0 + 0.2 * 0.25)
    assert res.score == pytest.approx(expected, abs=0.05)


def test_a_project_that_rarely_answers_has_no_median() -> None:
    """SPEC section 7: one fast answer among four PRs is not a fast median."""
    pulls = tuple(pr(i, created=T0 + i * timedelta(hours=1)) for i in range(1, 5))
    items = (item("comment", T0 + timedelta(hours=1, minutes=30), "maint", "MEMBER", number=1),)
    res = c.responsiveness(_judged(data(pulls=pulls, items=items)), S)
    assert res.inputs["answered_share"] == 0.25 and res.inputs["median_hours_to_first_response"] is None
    assert res.score == pytest.approx(100 * (0.5 * 0.25), abs=0.05)


def test_missing_is_never_zero() -> None:
    assert c.responsiveness(NO_PRS, S).score is None
    assert c.dependents(facts(data())).score is None
    assert c.dependents(facts(data(dependents=Dependents("acme/widget", "Go", None, None, None)))).score is None
    got = c.dependents(facts(data(dependents=Dependents("acme/widget", "PyPI", "widget", 0, 0))))
    assert got.score == 0.0 and got.measured  # measured and zero is different from missing


def test_good_first_issues_really_open() -> None:
    issues = (Issue("acme/widget", 1, "a", "OPEN", ("Good-First_Issue",)), Issue("acme/widget", 2, "b", "OPEN", ("beginner",), 1),
              Issue("acme/widget", 3, "c", "CLOSED", ("easy",)), Issue("acme/widget", 4, "d", "OPEN", ("first-timers-only", "bug")),
              Issue("acme/widget", 5, "e", "OPEN", ("bug",)))
    res = c.accessibility(facts(data(issues=issues)), RULES, 3)
    assert res.inputs["good_first_issues_open_unassigned"] == 2
    assert [i["number"] for i in res.inputs["good_first_issues"]] == [1, 4]
    dated = (*issues, Issue("acme/widget", 6, "f", "OPEN", ("easy",), 0, datetime(2026, 1, 2, tzinfo=timezone.utc)),
             Issue("acme/widget", 7, "g", "OPEN", ("easy",), 0, datetime(2026, 3, 4, tzinfo=timezone.utc)))
    listed = c.accessibility(facts(data(issues=dated)), RULES, 3).inputs["good_first_issues"]
    assert [(i["number"], i["created"]) for i in listed] == [(7, "2026-03-04"), (6, "2026-01-02"), (1, None), (4, None)]
    assert c.accessibility(facts(data(repo(has_issues=False))), RULES, 3).score is None


def _comp(**scores: float | None) -> dict[str, float | None]:
    """Component scores as the ranks read them (`ranking.scores_of` of the components)."""
    return scores_of({k: ComponentResult(k, v) for k, v in scores.items()})


def test_profile_score_is_mean_over_measured_with_coverage() -> None:
    comps = _comp(responsiveness=90, accessibility=None, governance=60, dependents=None, review_ci=75)
    p = profile_score(comps, "default", S)
    assert p.coverage == 0.7
    assert p.score == pytest.approx((40 * 90 + 15 * 60 + 15 * 75) / 70, abs=0.01)
    assert p.tier == CAPPED  # 82 with 70% measured may not claim an A


@pytest.mark.parametrize(("score", "coverage", "tier"), [(85, 1.0, "A"), (85, 0.79, CAPPED), (70, 0.5, CAPPED), (70, 0.9, "B"),
                                                         (55, 0.5, "C"), (20, 0.5, "D"), (None, 0.0, None), (80, 0.8, "A")])
def test_tiers(score: float | None, coverage: float, tier: str | None) -> None:
    assert tier_of(score, coverage, S.tiers) == tier


def test_ranks_ties_and_delta() -> None:
    full = dict(accessibility=50, governance=50, dependents=50, review_ci=50)
    projects = [
        Rankable("z/fast", _comp(responsiveness=90, **full), 10),
        Rankable("a/same", _comp(responsiveness=70, **full), 30),
        Rankable("b/same", _comp(responsiveness=70, **full), 30),  # equal score and PRs: name decides
        Rankable("c/same", _comp(responsiveness=70, **full), 50),  # equal score: more judged PRs first
        Rankable("d/newbie-friendly", _comp(responsiveness=50, **{**full, "accessibility": 100}), 5),
    ]
    t = rank_all(projects, S)
    assert [r for r, _ in sorted(((r, v["default"].rank) for r, v in t.items()), key=lambda x: x[1])] == [
        "z/fast", "c/same", "a/same", "b/same", "d/newbie-friendly"]
    climb = t["d/newbie-friendly"]["first-contribution"]
    assert climb.delta is not None and climb.delta > 0
    assert climb.explain[0]["component"] == "accessibility" and climb.explain[0]["points"] > 0
    assert all(v["default"].delta == 0 for v in t.values())


def test_rerank_follows_configured_weights() -> None:
    projects = [Rankable("a/responsive", _comp(responsiveness=95, accessibility=10, governance=50, dependents=50, review_ci=50), 10),
                Rankable("b/welcoming", _comp(responsiveness=60, accessibility=95, governance=50, dependents=50, review_ci=50), 10)]
    base = rank_all(projects, S)
    assert base["a/responsive"]["default"].rank == 1
    heavy = settings_from_dict({"profiles": {"default": {"accessibility": 90, "responsiveness": 10}}})
    assert rank_all(projects, heavy)["b/welcoming"]["default"].rank == 1


def test_ci_share_rests_on_the_latest_merged_prs_only() -> None:
    # Twelve merged PRs: the latest ten are the sample; knowing CI for the two oldest changes nothing.
    pulls = tuple(pr(i, created=T0 + i * D, state="MERGED", merged_at=T0 + i * D + D, merged_by="maint", has_ci=i > 2)
                  for i in range(1, 13))
    d = data(pulls=pulls)
    res = c.review_ci(_judged(d, settings_from_dict({"components": {"ci_sample": 10}})), 3)
    assert res.inputs["prs_checked_for_ci"] == 10 and res.inputs["ci_share"] == 1.0
    wider = c.review_ci(_judged(d, settings_from_dict({"components": {"ci_sample": 12}})), 3)
    assert wider.inputs["prs_checked_for_ci"] == 12 and wider.inputs["ci_share"] == round(10 / 12, 4)
