"""The claims a page makes, as the audit reads them: each element a template marks `data-claim="NAME"`
(with its arguments in `data-of`), its text as a reader sees it, and the text a page shows outside them.

Templates mark a claim where they write it; `publish.audit` holds the predicate of each name. A page's
markup is this code's own (every forge value in it escaped), so a scan of its tags is exact.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass

_OPEN = re.compile(r'<([a-z][a-z0-9]*)\b([^<>]*?)\sdata-claim="([a-z0-9-]+)"([^<>]*)>')
_ATTR = re.compile(r'\s(data-[a-z-]+)="([^"]*)"')
_SKIP = re.compile(r"<(script|style|title)\b.*?</\1>", re.IGNORECASE | re.DOTALL)
_INLINE = re.compile(r"</?(?:a|strong|em|span|code|abbr|b|i|var)\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_DIGIT = re.compile(r"\d")
_VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "source", "wbr"})


@dataclass(frozen=True)
class Claim:
    """One marked element of a page: its claim's name, its `data-*` arguments, its inner markup."""

    name: str
    args: dict[str, str]
    inner: str

    @property
    def text(self) -> str:
        """Its words as a reader sees them, on one line."""
        return " ".join(text_runs(self.inner))

    @property
    def of(self) -> str:
        return self.args.get("data-of", "")


def text_runs(markup: str) -> list[str]:
    """The runs of text a reader sees, each as one string: inline tags dropped, block tags split runs."""
    markup = _INLINE.sub("", _SKIP.sub(" ", markup)) if "<" in markup else markup
    out = []
    for piece in _TAG.split(markup):
        run = " ".join(piece.split())
        if run:
            out.append(" ".join(html.unescape(run).split()) if "&" in run else run)
    return out


def _close(page: str, tag: str, start: int) -> int:
    """Where the element whose opening tag ends at `start` closes (the index after its end tag)."""
    if tag in _VOID:
        return start
    depth, at = 1, start
    opening, closing = f"<{tag}", f"</{tag}>"
    while depth:
        c = page.find(closing, at)
        if c < 0:
            return len(page)
        o = page.find(opening, at, c)
        while o >= 0:
            nxt = page[o + len(opening):o + len(opening) + 1]
            if nxt in (" ", ">", "\n"):
                depth += 1
            o = page.find(opening, o + 1, c)
        depth -= 1
        at = c + len(closing)
    return at


def claims_in(page: str) -> tuple[list[Claim], str]:
    """Every outermost claim of `page` with the claims inside it listed too, and the page's markup
    with every claim taken out: what the page says that no claim checks."""
    found: list[Claim] = []
    rest: list[str] = []
    at = 0
    for m in _OPEN.finditer(page):
        if m.start() < at:  # inside a claim already read: listed with its own arguments below
            continue
        end = _close(page, m.group(1), m.end())
        inner = page[m.end():end - len(m.group(1)) - 3] if m.group(1) not in _VOID else ""
        found.append(Claim(m.group(3), dict(_ATTR.findall(m.group(0))), inner))
        found += _nested(inner)
        rest.append(page[at:m.start()])
        at = end
    rest.append(page[at:])
    return found, "".join(rest)


def _nested(inner: str) -> list[Claim]:
    return claims_in(inner)[0] if "data-claim=" in inner else []


def main_of(page: str) -> str:
    """The page's `<main>`: what it says of its subject (the header and footer are the site's)."""
    start = page.find("<main")
    end = page.rfind("</main>")
    return page[start:end] if start >= 0 and end > start else ""


def figures_in(markup: str) -> Iterator[str]:
    """Each run of text in `markup` that states a figure (holds a digit)."""
    return (run for run in text_runs(markup) if _DIGIT.search(run))
