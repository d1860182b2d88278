"""Small statistics shared by evaluation and the sample world: the Wilson interval and quantiles.

Pure functions on plain numbers; the normal quantile comes from the standard library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; (0, 1) when n is 0."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n (got {successes} of {n})")
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At the edges the bounds are exactly 0 and 1; rounding would otherwise leave 1e-17 off.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def quantile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile by linear interpolation between order statistics; None for no values."""
    if not values:
        return None
    s = sorted(values)
    pos = (len(s) - 1) * q
    lo = math.floor(pos)
    hi = math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def quantile_or_never(values: Sequence[float | None], q: float) -> float | None:
    """The q-quantile of times where None means "never": None when it falls on a never (or there
    are no values). So the median of [2, 10, never, never] is None: fewer than half happened."""
    s = sorted(math.inf if v is None else v for v in values)
    value = quantile(s, q)
    return None if value is None or math.isinf(value) or math.isnan(value) else value
