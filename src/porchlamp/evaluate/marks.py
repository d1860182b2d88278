"""What evaluation reads of a comment's or a PR's text, computed once when the row is stored:
the normalised fingerprint (SPEC section 5), curated bot text, where a redirect points and whether
it welcomes PRs here (`redirect.read`, SPEC section 6), AI markers, the tool whose PR template a PR
is and the lines of its description a tool's template is learned from (SPEC section 3); and what a
project's own documents say of where review happens (`document_marks`).

Pure functions of the text and the packaged rule data; `marks_version` names the rule data, so a
store recomputes its marks when, and only when, that data or this code changes.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from typing import NamedTuple

from porchlamp.evaluate.redirect import READER_VERSION, read
from porchlamp.evaluate.rules import Rules
from porchlamp.evaluate.templates import mentions, normalise

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")  # where a sentence of a document ends

# Raise when the marks' meaning changes (normalisation, fingerprint): stored marks are then recomputed.
MARKS_CODE = 3
# Raise when what is kept of a project's documents changes (`document_marks`): only they are read again.
DOCUMENTS_CODE = 1
# The documents read for where review happens, in the order their statements are listed.
DOCUMENTS = ("PR template", "CONTRIBUTING", "README")


class TextMarks(NamedTuple):
    fp: int | None  # 63-bit fingerprint of the normalised text (None for no text)
    chars: int  # length of the normalised text: the template thresholds apply to it, not here
    words: int
    curated: bool  # holds a curated bot-text phrase (deploy previews, CLA, coverage, bridges)
    redirect: str | None  # where it says review happens instead (a venue of `redirect.VENUES`)
    welcome: bool  # says PRs here are fine (`redirect.read`)


class PrMarks(NamedTuple):
    ai: bool  # the description carries a mark of AI-assisted work
    fp: int | None  # the description's fingerprint, as a comment's (`mark_text`): one template posted again
    chars: int
    words: int
    bot_tool: str | None  # the tool whose PR template the title or description is (`bot_pr_tool`)
    lines: tuple[int, ...] = ()  # its lines that can be a tool's fixed words (`template_lines`)


# Raise when what `template_lines` keeps changes: only PRs are marked again.
PR_LINES_CODE = 1
# A line of a description is a tool's fixed words only when it says something: this many words and
# characters once links, numbers, hashes, mentions and markup are out. Headings and checklist items
# ("## Summary", "- [ ] Tests") are a repository's template's, not a tool's.
LINE_MIN_WORDS = 5
LINE_MIN_CHARS = 25
MAX_LINES = 80  # lines read of one description: a tool's fixed words are in its first screens


def template_lines(body: str | None) -> tuple[int, ...]:
    """The 63-bit fingerprints of a description's lines that can be a tool's fixed words, normalised as a
    template is (`normalise`), each once, in order: what a tool's PR template is learned from, and
    what a PR is matched by (SPEC section 3, a PR by a bot)."""
    out: dict[int, None] = {}
    for line in (body or "").splitlines()[:MAX_LINES]:
        norm = normalise(line)
        if len(norm) >= LINE_MIN_CHARS and norm.count(" ") + 1 >= LINE_MIN_WORDS:
            out[int.from_bytes(hashlib.blake2b(norm.encode("utf-8"), digest_size=8).digest(), "big") >> 1] = None
    return tuple(out)


def fingerprint(body: str) -> tuple[int, int, int]:
    """A text's 63-bit fingerprint of its normalised form, with that form's length in characters and words."""
    norm = normalise(body)
    fp = int.from_bytes(hashlib.blake2b(norm.encode("utf-8"), digest_size=8).digest(), "big") >> 1
    return fp, len(norm), norm.count(" ") + 1  # words as the template thresholds count them


def mark_text(body: str | None, rules: Rules) -> TextMarks:
    """The marks of one comment's or review's text."""
    if not body:
        return TextMarks(None, 0, 0, False, None, False)
    fp, chars, words = fingerprint(body)
    said = read(body)
    return TextMarks(fp, chars, words, mentions(body.lower(), rules.bot_templates),
                     said.redirect.venue if said.redirect else None, said.welcomes)


def mark_pr(title: str | None, body: str | None, rules: Rules) -> PrMarks:
    """The marks of one PR's title and description."""
    fp, chars, words = fingerprint(body) if body else (None, 0, 0)
    low = (body or "").lower()  # lowered once, for the AI marks and the tools' templates
    return PrMarks(mentions(low, rules.ai_markers), fp, chars, words, _tool_of(f"{(title or '').lower()}\n{low}", rules),
                   template_lines(body))


def bot_pr_tool(title: str | None, body: str | None, rules: Rules) -> str | None:
    """The tool whose PR template this title or description is (`rules.bot_pr_text`), or None."""
    return _tool_of(f"{title or ''}\n{body or ''}".lower(), rules)


def _tool_of(text: str, rules: Rules) -> str | None:
    """`bot_pr_tool` of a PR's title and description, lowered and joined by a line break."""
    for tool, phrases, patterns in _pr_text_matchers(rules.bot_pr_text):
        if mentions(text, phrases) or any(p.search(text) for p in patterns):
            return tool
    return None


@lru_cache(maxsize=4)
def _pr_text_matchers(entries: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...]
                      ) -> tuple[tuple[str, tuple[str, ...], tuple[re.Pattern[str], ...]], ...]:
    """Each tool's phrases and its patterns compiled. Phrases are found by substring search and each
    pattern begins with words, which the regular expression engine looks for first: one expression of
    every phrase and pattern as alternatives cost 100 µs a PR, about ten times this."""
    return tuple((tool, phrases, tuple(re.compile(p) for p in patterns)) for tool, _source, phrases, patterns in entries)


def ai_assisted(body: str | None, rules: Rules) -> bool:
    """Does a PR's description carry a mark of AI-assisted work?"""
    return mentions((body or "").lower(), rules.ai_markers)


def marks_version(rules: Rules) -> str:
    """One text for the code and rule data the marks depend on."""
    # A tool's source is provenance: rewording it marks nothing again.
    tools = [(tool, phrases, patterns) for tool, _source, phrases, patterns in rules.bot_pr_text]
    data = [MARKS_CODE, READER_VERSION, rules.bot_templates, rules.ai_markers, tools]
    return hashlib.blake2b(json.dumps(data).encode("utf-8"), digest_size=8).hexdigest()


def pr_marks_version(rules: Rules) -> str:
    """`marks_version` for a PR's marks, which hold its description's lines too."""
    return f"{marks_version(rules)}.{PR_LINES_CODE}"


def document_statements(text: str | None) -> list[tuple[str, str]]:
    """(venue, passage) when a project document says PRs are not taken on GitHub or that the
    repository is a mirror ("Please do not submit a Pull Request via github", "does not use github.com
    for their contributions"), read as the redirect reader reads it, strictly: a README that says
    where bugs go does not say PRs are unwelcome. The passage is the sentence that says so and the
    two after it, which usually say where to go and link to how."""
    said = read(text, strict=True).redirect
    if said is None:
        return []
    flat = " ".join((text or "").split())
    at = flat.find(said.sentence)
    passage = " ".join(_SENTENCE_END.split(flat[at:], maxsplit=3)[:3]) if at >= 0 else said.sentence
    if said.link and said.link not in passage:
        passage += f" ({said.link})"
    return [(said.venue, passage)]


def document_marks(pr_template: str | None, contributing: str | None, readme: str | None) -> str | None:
    """What a project's PR template, CONTRIBUTING and README say of where review happens (SPEC
    section 6), as JSON: [[venue, document, passage], ...] in `DOCUMENTS` order; None when none says
    anything of it. Read once when the documents are stored: reading them cost every evaluation 1.5 s
    at 11,000 repositories."""
    found = [[venue, name, passage] for name, text in zip(DOCUMENTS, (pr_template, contributing, readme))
             for venue, passage in document_statements(text)]
    return json.dumps(found, ensure_ascii=False) if found else None


def documents_version() -> str:
    """One text for the code the documents' marks depend on (the reader and `document_marks`)."""
    return hashlib.blake2b(json.dumps(["documents", DOCUMENTS_CODE, READER_VERSION]).encode("utf-8"), digest_size=8).hexdigest()
