"""Templated text (SPEC section 5): a comment's text with what changes between two posts of one
template taken out, so that repetition can be counted (`marks.mark_text` fingerprints it once,
when the comment is stored; `sql/03_templates.sql` counts the fingerprints over the snapshot).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_URL = re.compile(r"https?://\S+|www\.\S+")
_MENTION = re.compile(r"@[\w-]+")
# A hash: 7 to 64 hex digits standing as a word (r"\b[0-9a-f]{7,64}\b"). Spelled to start with a hex
# digit, so the scan jumps between them instead of testing a boundary at every character, and
# asserting the boundary after the first (nothing of a word before it).
_HEX = re.compile(r"[0-9a-f](?<!\w[0-9a-f])[0-9a-f]{6,63}\b")
_NUMBER = re.compile(r"\d+")
_TAG = re.compile(r"<[^>]{0,200}>")
_MARKUP = str.maketrans(dict.fromkeys("*_`#>|~[]()!=:-", " "))
MAX_CHARS = 400  # two messages that agree this far are the same message


PREFIX = 4 * MAX_CHARS  # a long text is normalised from about this far first


def normalise(text: str) -> str:
    """Text with what changes between two posts of one template (links, hashes, numbers, mentions,
    markup, spacing, case) taken out."""
    low = text.lower()
    # Only the first MAX_CHARS of the result count, and a long comment (a coverage table, a deploy
    # preview) would be scanned whole five times for them: the part before a safe cut first.
    cut = _cut(low)
    if cut is not None:
        head = _normalised(low[:cut])
        if len(head) >= MAX_CHARS:
            return head[:MAX_CHARS]
    return _normalised(low)[:MAX_CHARS]


def _cut(low: str) -> int | None:
    """Where a long text can be cut so that the result of the part before it is the start of the
    whole text's: at a space (no pattern but a tag reaches across one) with no '<' before it (no tag
    open). None for a short text or no such place."""
    if len(low) <= PREFIX:
        return None
    cut = low.find(" ", PREFIX)
    return cut if cut > 0 and "<" not in low[:cut] else None


def _normalised(low: str) -> str:
    """Links, mentions, hashes and numbers replaced by a word each (in that order), tags and runs of
    markup characters by a space, then every run of spaces by one, none at either end."""
    # A pattern scan costs more than a substring test, so a scan that cannot match is skipped, and
    # markup and spacing go through C string methods: markup characters become spaces one by one,
    # which the join collapses into one per run, as the run's single space would have been.
    s = _URL.sub(" url ", low) if "http" in low or "www." in low else low
    if "@" in s:
        s = _MENTION.sub(" user ", s)
    s = _NUMBER.sub(" n ", _HEX.sub(" hex ", s))
    if "<" in s:
        s = _TAG.sub(" ", s)
    return " ".join(s.translate(_MARKUP).split())


def mentions(text: str, markers: Iterable[str]) -> bool:
    """Whether `text` holds any of `markers`. Asked of every PR's body and every comment: a plain
    loop, where `any` over a generator cost half again as much."""
    for marker in markers:
        if marker in text:
            return True
    return False


