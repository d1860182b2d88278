from hypothesis import given
from hypothesis import strategies as st

from porchlamp.stats import quantile, wilson_interval


def test_wilson_known_values() -> None:
    # Reference values of the 95% Wilson interval (z = 1.959964).
    lo, hi = wilson_interval(8, 10)
    assert round(lo, 4) == 0.4902 and round(hi, 4) == 0.9433
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    lo, hi = wilson_interval(6, 10)
    assert round(lo, 4) == 0.3127


def test_wilson_of_nothing_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


@given(st.integers(min_value=1, max_value=2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_brackets_the_point_estimate(case: tuple[int, int]) -> None:
    k, n = case
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_quantile() -> None:
    assert quantile([], 0.5) is None
    assert quantile([4, 1, 3, 2], 0.5) == 2.5
    assert quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9) == 9.1
