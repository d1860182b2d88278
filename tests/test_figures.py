"""The one formatter: half up on the decimal a value is written as, one plural rule, and durations
that never put a late reply at the window's end."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from porchlamp import figures


def test_ties_round_up_on_the_decimal_not_the_binary_float() -> None:
    # Python's round() and "%.0f" give 56 and 72 here but 0 and 2 for 0.5 and 2.5 (to even), and
    # 0.715 * 100 is 71.49999… in binary: the site shows the decimal's rounding in every case.
    assert [str(figures.half_up(x)) for x in (55.5, 71.5, 0.5, 2.5, 1.49)] == ["56", "72", "1", "3", "1"]
    assert figures.share(0.715) == "72%" and figures.share(0.285) == "29%" and figures.share(0.005) == "1%"
    assert figures.score(52.25) == "52.3" and figures.score(84.65) == "84.7" and figures.score(None) == "–"
    assert figures.points(-2.95) == "3.0" and figures.points(0.04) == "0.0"


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=10_000))
def test_a_share_of_counts_is_the_exact_fraction_rounded_half_up(k: int, n: int) -> None:
    f = Fraction(100 * k, n)
    whole = int(f) + (1 if f - int(f) >= Fraction(1, 2) else 0)
    assert figures.share_of(k, n) == f"{whole}%"


def test_durations_step_from_minutes_to_hours_to_days() -> None:
    assert [figures.duration(h) for h in (None, 0, 0.85, 0.8416, 0.9999, 4.5, 47.4, 47.5, 72, 335.9)] == [
        "none", "0 min", "51 min", "50 min", "1 h", "5 h", "47 h", "2.0 days", "3.0 days", "14.0 days"]


def test_a_late_reply_never_reads_as_the_windows_end() -> None:
    assert figures.late_duration(336.5, 14) == "just over 14 days"  # duration() says "14.0 days" here
    assert figures.late_duration(337.2, 14) == "14.1 days"
    assert figures.late_duration(367.2, 14) == "15.3 days"


@given(st.floats(min_value=336.0, max_value=2000.0, exclude_min=True))
def test_no_late_reply_is_worded_as_one_in_time(h: float) -> None:
    words = figures.late_duration(h, 14)
    assert words == "just over 14 days" or float(words.split()[0]) > 14.0


def test_one_plural_rule() -> None:
    assert figures.count(1, "outside PR") == "1 outside PR"
    assert figures.count(0, "outside PR") == "0 outside PRs"
    assert figures.count(1204, "package") == "1,204 packages"
    assert figures.count(2, "repository") == "2 repositories" and figures.count(3, "person") == "3 people"
    assert figures.count(1, "open, unassigned good first issue") == "1 open, unassigned good first issue"
    assert figures.noun(2, "is") == "are" and figures.noun(1, "is") == "is"


@given(st.one_of(st.floats(min_value=0, max_value=5000), st.integers(0, 300_000).map(lambda k: k / 120),
                 st.integers(0, 50_000).map(lambda k: 2.4 * k + 1.2)))
def test_the_float_path_of_a_duration_words_it_as_the_decimal_does(h: float) -> None:
    """`duration` words a float without decimals unless it is near a tie: the same words either way."""
    assert figures.duration(h) == figures.duration(figures.exact(h))
