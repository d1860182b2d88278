"""What evaluation reads of a comment's or a PR's text, computed once when the row is stored:
the normalised fingerprint (SPEC section 5), curated bot text, where a redirect points, AI markers.

Pure functions of the text and the packaged rule data; `marks_version` names the rule data, so a
store recomputes its marks when, and only when, that data or this code changes.
"""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

from porchlamp.evaluate.rules import Rules
from porchlamp.evaluate.templates import mentions, normalise

# Raise when the marks' meaning changes (normalisation, fingerprint): stored marks are then recomputed.
MARKS_CODE = 1


class TextMarks(NamedTuple):
    fp: int | None  # 63-bit fingerprint of the normalised text (None for no text)
    chars: int  # length of the normalised text: the template thresholds apply to it, not here
    words: int
    curated: bool  # holds a curated bot-text phrase (deploy previews, CLA, coverage, bridges)
    redirect: str | None  # where it says review happens instead: gerrit, mailing_list, repo_lockdown


def redirect_kind(text: str | None, rules: Rules) -> str | None:
    """Where a message says review happens instead ("gerrit", "mailing_list", "repo_lockdown"), if it does."""
    low = (text or "").lower()
    for kind, markers in (("gerrit", rules.gerrit_markers), ("mailing_list", rules.mailing_list_markers),
                          ("repo_lockdown", rules.lockdown_markers)):
        if mentions(low, markers):
            return kind
    return None


def mark_text(body: str | None, rules: Rules) -> TextMarks:
    """The marks of one comment's or review's text."""
    if not body:
        return TextMarks(None, 0, 0, False, None)
    norm = normalise(body)
    fp = int.from_bytes(hashlib.blake2b(norm.encode("utf-8"), digest_size=8).digest(), "big") >> 1
    words = norm.count(" ") + 1  # as the template thresholds count them
    return TextMarks(fp, len(norm), words, mentions(body.lower(), rules.bot_templates), redirect_kind(body, rules))


def ai_assisted(body: str | None, rules: Rules) -> bool:
    """Does a PR's description carry a mark of AI-assisted work?"""
    return mentions((body or "").lower(), rules.ai_markers)


def marks_version(rules: Rules) -> str:
    """One text for the code and rule data the marks depend on."""
    data = [MARKS_CODE, rules.bot_templates, rules.gerrit_markers, rules.mailing_list_markers, rules.lockdown_markers,
            rules.ai_markers]
    return hashlib.blake2b(json.dumps(data).encode("utf-8"), digest_size=8).hexdigest()
