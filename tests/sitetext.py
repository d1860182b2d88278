"""What a page says, as a reader sees it, and the checks every page's words must pass: counts that
agree with their nouns, and the same figure worded the same wherever it appears."""

from __future__ import annotations

import html
import re

from porchlamp.figures import plural_of

# The nouns the site counts; a count of one takes the singular and any other count the plural.
COUNTED = ["PR", "MR", "pull request", "merge request", "project", "repository", "maintainer", "contributor", "package",
           "issue", "star", "fork", "place", "black hole", "person", "comment", "review", "account", "bot", "snapshot",
           "day", "quote", "mirror", "row", "page", "change", "author", "commit", "file", "goal", "week", "month"]
# Nouns that are verbs too ("17 review elsewhere", "2 fork it") are checked only in the plural.
VERBS = {"review", "change", "fork", "star", "comment", "file", "mirror", "page", "quote", "commit"}
_PLURALS = sorted({plural_of(n) for n in COUNTED}, key=len, reverse=True)
_SINGULARS = sorted(set(COUNTED) - VERBS, key=len, reverse=True)
_NOUNS = "|".join(map(re.escape, sorted({*_PLURALS, *COUNTED}, key=len, reverse=True)))
# Words that may stand between a count and its noun ("1 open, unassigned good first issue"), but
# not words that start a phrase of their own ("1 of 68 PRs", "rank 1 in 3 goals").
_BETWEEN = (r"(?:(?!(?:of|in|on|to|and|or|per|from|out|than|at|by|for|with|after|before|h|min|" + _NOUNS + r")\b)"
            r"[a-z][a-z,-]* ){0,4}?")
_ONE_MANY = re.compile(rf"(?<![\d.,#!/:–-])\b1 {_BETWEEN}(?:{'|'.join(map(re.escape, _PLURALS))})\b")
_MANY_ONE = re.compile(rf"(?<![\d.,#!/:–-])\b(?:0|[2-9]|[1-9]\d+|\d{{1,3}}(?:,\d{{3}})+) {_BETWEEN}"
                       rf"(?:{'|'.join(map(re.escape, _SINGULARS))})\b(?![\w'’-]| (?:{_NOUNS}|template)\b)")
_INLINE = re.compile(r"</?(?:a|strong|em|span|code|abbr|b|i|var)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_SKIP = re.compile(r"<(script|style|title)\b.*?</\1>", re.IGNORECASE | re.DOTALL)


def text_runs(page: str) -> list[str]:
    """The runs of text a reader sees, each as one string: inline tags dropped, block tags split runs."""
    page = _INLINE.sub("", _SKIP.sub(" ", page))
    return [s for s in (re.sub(r"\s+", " ", html.unescape(t)).strip() for t in _TAG.split(page)) if s]


def plural_faults(runs: list[str]) -> list[str]:
    """Every "1 <plural noun>" and "<n≠1> <singular noun>" in the runs, with its run."""
    out = []
    for run in runs:
        for rx in (_ONE_MANY, _MANY_ONE):
            out += [f"{m.group(0)!r} in {run[:160]!r}" for m in rx.finditer(run)]
    return out
