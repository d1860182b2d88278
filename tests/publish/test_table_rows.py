"""The rows of the rankings and of the lists of projects, written in Python for speed, against the
template loops they replaced: the same bytes for any project GitHub could name and any figures, escaped."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from porchlamp.publish.data import Project
from porchlamp.publish import words
from porchlamp.publish.site import az_rows, environment, not_ranked_rows, ranking_rows

RANKINGS = """  {% for p in rows %}{% set d = p.profiles[profile] %}
    <tr>
      <td class="c-rank" data-label="Rank">{{ d.rank }}</td>
      <td class="c-project"><a href="{{ root }}{{ project_href(p) }}">{{ p.repo }}</a>{% for f in p.flags %} <span class="flag">{{ f }}</span>{% endfor %}</td>
      <td class="c-tier" data-label="Tier"><span class="tier tier-{{ d.tier|tierclass }}">{{ d.tier }}</span></td>
      <td class="c-score" data-label="Score">{{ d.score|num }}</td>
      <td class="c-answered" data-label="Answered">{{ p.answered_of }}</td>
      <td class="c-trend" data-label="30 days">{{ trend(p.row.trend) }}</td>
      <td class="c-median" data-label="Median first response">{{ p.row.median_hours|hours }}</td>
      <td class="c-prs" data-label="PRs">{{ p.row.outside_prs|thousands }}</td>
      <td class="c-eco" data-label="Ecosystem">{{ p.row.ecosystem }}</td>
      <td class="c-stars" data-label="Stars">{{ p.row.stars|thousands }}</td>
      <td class="c-delta" data-label="Δ rank">{{ d.delta|delta }}</td>
    </tr>
  {% endfor %}
"""

NOT_RANKED = """  {% for p in rows %}
    <tr data-status="{{ p.status }}"><td class="c-project" data-claim="name" data-of="{{ p.repo }}"><a href="{{ root }}{{ project_href(p) }}">{{ p.repo }}</a></td><td data-label="Status">{{ p.words }}</td>
      <td class="reason" data-label="Reason" data-claim="outcomes" data-of="{{ p.repo }}">{{ p.row.reason }}</td><td class="num" data-label="Stars" data-claim="stars" data-of="{{ p.repo }}">{{ p.row.stars|thousands }}</td></tr>
  {% endfor %}
"""

AZ = """  {% for p in rows %}
    <tr><td class="c-project"><a href="{{ root }}{{ project_href(p) }}">{{ p.repo }}</a></td>
      <td>{% if p.status == 'ranked' %}Ranked {{ p.profiles['default'].rank }} · <span class="tier tier-{{ p.profiles['default'].tier|tierclass }}">{{ p.profiles['default'].tier }}</span>{% else %}{{ p.words }}{% endif %}</td>
      <td class="num">{{ p.row.stars|thousands }}</td></tr>
  {% endfor %}
"""

text = st.lists(st.sampled_from(list("ab <>&\"'{}%#/.\u202e\u00e9\n") + ["<script>", "word ", "x" * 30]), max_size=30).map("".join)
name = st.tuples(text, text).map(lambda t: f"{t[0] or 'o'}/{t[1] or 'n'}")
count = st.one_of(st.none(), st.integers(0, 10**7))
scores = st.fixed_dictionaries({
    "rank": st.one_of(st.none(), st.integers(1, 10**6)),
    "score": st.floats(0, 100),
    "tier": st.one_of(st.none(), st.sampled_from(["A", "B", "C", "D", "A (capped)"]), text),
    "delta": st.one_of(st.none(), st.integers(-10**5, 10**5)),
})


@st.composite
def projects(draw: Any) -> Project:
    outside = draw(st.integers(0, 10**5))
    row = {"status": draw(st.sampled_from(["ranked", "unrated", "stale", "black_hole", "not_software"])),
           "kind": draw(st.sampled_from(["responsive", "too_few_prs", "archived", "no_activity", "docs"])), "reason": draw(text),
           "outside_prs": outside, "answered": draw(st.integers(0, outside)),
           "median_hours": draw(st.one_of(st.none(), st.floats(0, 10**4))), "ecosystem": draw(text), "stars": draw(count),
           "borderline": draw(st.booleans()), "judged": draw(st.booleans()), "trend": draw(st.one_of(st.none(), st.integers(-100, 100)))}
    return Project(draw(name), row, {"default": draw(scores), "fast": draw(scores)})


@settings(max_examples=300, deadline=None)
@given(st.lists(projects(), max_size=5), st.sampled_from(["default", "fast"]), st.sampled_from(["", "../", "../../../"]))
def test_rankings_rows_are_the_same_bytes_as_their_template_loop(rows: list[Project], profile: str, root: str) -> None:
    expected = environment().from_string(RANKINGS).render(rows=rows, profile=profile, root=root, trend=words.trend)
    assert str(ranking_rows(rows, profile, root)) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(projects(), max_size=5), st.sampled_from(["", "../", "../../"]))
def test_list_rows_are_the_same_bytes_as_their_template_loops(rows: list[Project], root: str) -> None:
    env = environment()
    assert str(not_ranked_rows(rows, root)) == env.from_string(NOT_RANKED).render(rows=rows, root=root)
    assert str(az_rows(rows, root)) == env.from_string(AZ).render(rows=rows, root=root)


def test_hostile_names_are_escaped() -> None:
    row = {"status": "ranked", "kind": "responsive", "reason": "<script>r</script>", "outside_prs": 3, "answered": 2,
           "median_hours": 5.0, "ecosystem": "<b>npm</b>", "stars": 1200, "borderline": True, "judged": False, "trend": -7}
    p = Project('o/"><script>x</script>', row, {"default": {"rank": 1, "score": 71.25, "tier": "<i>A</i>", "delta": None}})
    html = str(ranking_rows([p], "default", ""))
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html
    # 71.25 rounds half up, as every page rounds (Python's "%.1f" gives 71.2)
    assert "&lt;script&gt;" in html and ">71.3<" in html and ">2 of 3<" in html and ">1,200<" in html
    assert '<span class="flag">borderline</span> <span class="flag">few PRs</span>' in html
    for made in (not_ranked_rows([p], ""), az_rows([p], "../")):
        assert "<script>" not in str(made) and "<i>" not in str(made) and "&lt;script&gt;" in str(made)
