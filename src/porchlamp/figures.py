"""Every figure Porchlamp shows, worded one way: counts with their nouns, shares, durations, scores
and points, each rounded half up on its decimal value, so one value reads the same on every page, badge, feed and file.

Rounding is on the decimal a value prints as (0.715 is 71.5%, so 72%), never on the binary float
under it (where 0.715 * 100 is 71.49999…) and never twice (a median rounded to 0.1 h and then to
the hour can land on the other side). Sorting uses the exact value, never these words.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

Number = int | float | Fraction | Decimal

# Plurals that are not the singular plus "s", by the last word of a noun phrase.
IRREGULAR = {"repository": "repositories", "person": "people", "policy": "policies", "dependency": "dependencies",
             "match": "matches", "branch": "branches", "is": "are", "was": "were", "has": "have"}


def exact(x: Number) -> Decimal:
    """`x` as the decimal it is written as: a float by its shortest repr, a fraction to 28 digits."""
    if isinstance(x, Decimal):
        return x
    if isinstance(x, Fraction):
        return Decimal(x.numerator) / Decimal(x.denominator)
    if isinstance(x, float):
        return Decimal(repr(x))
    return Decimal(int(x))


def half_up(x: Number, places: int = 0) -> Decimal:
    """`x` rounded half up (away from zero on a tie) to `places` decimals: 71.5 → 72, 55.5 → 56, -0.05 → -0.1."""
    return exact(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def plural_of(singular: str) -> str:
    """The plural of a noun phrase, by its last word: "outside PR" → "outside PRs", "repository" → "repositories"."""
    head, _, last = singular.rpartition(" ")
    many = IRREGULAR.get(last, last + "s")
    return f"{head} {many}" if head else many


def noun(n: Number, singular: str, plural: str | None = None) -> str:
    """The noun that agrees with `n`: the singular for exactly one, else the plural."""
    return singular if n == 1 else (plural or plural_of(singular))


def number(n: int | None) -> str:
    """A whole number with thousands separated: 12,345; "–" when there is none."""
    return "–" if n is None else f"{n:,}"


def count(n: int, singular: str, plural: str | None = None) -> str:
    """A count and its noun, agreeing: "1 outside PR", "0 outside PRs", "1,204 packages"."""
    return f"{number(n)} {noun(n, singular, plural)}"


def share(x: Number | None) -> str:
    """A share as a whole percentage, half up: 0.715 → "72%"; "–" when there is none."""
    return "–" if x is None else f"{half_up(exact(x) * 100)}%"


def share_of(k: int, n: int) -> str:
    """k of n as a whole percentage, from the exact fraction: 143 of 200 → "72%"; "–" when n is 0."""
    return "–" if not n else share(Fraction(k, n))


def score(x: Number | None) -> str:
    """A score, 0 to 100, to one decimal half up: 71.45 → "71.5"; "–" when there is none."""
    return "–" if x is None else str(half_up(x, 1))


def points(x: Number) -> str:
    """A difference in score points to one decimal, without its sign: -2.95 → "3.0"."""
    return str(abs(half_up(x, 1)))


def duration(hours: Number | None) -> str:
    """A time in hours as a person reads it: "51 min" under an hour, "5 h" under two days, else
    "4.3 days"; each step rounded half up on the exact value ("none" when there is none)."""
    if hours is None:
        return "none"
    if isinstance(hours, float) and not _near_a_tie(hours):
        # The hot path (a PR row each): in floats, which round as the decimal does away from a tie.
        minutes_f = math.floor(hours * 60 + 0.5)
        if minutes_f < 60:
            return f"{minutes_f} min"
        whole_f = math.floor(hours + 0.5)
        if whole_f < 48:
            return f"{whole_f} h"
        tenths = math.floor(hours / 24 * 10 + 0.5)
        return f"{tenths // 10}.{tenths % 10} days"
    h = exact(hours)
    minutes = half_up(h * 60)
    if minutes < 60:
        return f"{minutes} min"
    whole = half_up(h)
    if whole < 48:
        return f"{whole} h"
    return f"{half_up(h / 24, 1)} days"


def _near_a_tie(hours: float) -> bool:
    """Whether a step of `duration` falls within a hair of a half, where a float's error could round
    it the other way from its decimal value."""
    return any(abs(x - math.floor(x) - 0.5) <= 1e-6 for x in (hours * 60, hours, hours / 24 * 10))


def late_duration(hours: Number, days: int) -> str:
    """A time past a `days`-day window, never worded as the window's own end: 336.5 h with a 14-day
    window is "just over 14 days", where `duration` would round it to "14.0 days", the words of a
    reply that came in time."""
    words = duration(hours)
    return f"just over {days} days" if words == f"{days}.0 days" or exact(hours) <= days * 24 else words
