"""The rankings page as its script redraws it: an ecosystem's page keeps its ecosystem through other
filters and Back, every sort it offers sorts, and a view no ranked project is in says so and what to drop."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from porchlamp.publish.site import rank_href


def _ready(page: Any) -> None:
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)


def test_an_ecosystems_page_keeps_its_ecosystem(browser: Any, demo_server: Any, demo_site: tuple[Path, dict[str, Any]]) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    page.goto(demo_server.url + rank_href("default", "Go", 1))
    _ready(page)
    assert page.input_value("#ecosystem") == "Go"
    ecos = set(page.locator("#rankings tbody td.c-eco").all_inner_texts())
    assert ecos == {"Go"}
    page.select_option("#forge", "github")
    _ready(page)
    assert "ecosystem=Go" in page.url and page.input_value("#ecosystem") == "Go"
    assert set(page.locator("#rankings tbody td.c-eco").all_inner_texts()) <= {"Go"}
    page.go_back()
    _ready(page)
    assert page.input_value("#ecosystem") == "Go" and page.input_value("#forge") == ""
    page.select_option("#ecosystem", "")
    _ready(page)
    assert "ecosystem=&" in page.url or page.url.endswith("ecosystem=")
    assert len(set(page.locator("#rankings tbody td.c-eco").all_inner_texts())) > 1
    ctx.close()


def _moved(text: str) -> float | None:
    """The 30-day mark as a number to order by: "▲ up 7" is 7, "▼ down 6" is −6, "steady" 0 (under 5
    either way), "–" none."""
    m = re.match(r"[▲▼] (up|down) (\d+)", text)
    return (int(m.group(2)) * (1 if m.group(1) == "up" else -1)) if m else 0.0 if text == "steady" else None


def test_every_sort_offered_sorts(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    page.goto(server.url)
    _ready(page)
    offered = page.eval_on_selector_all("#sort option", "os => os.map(o => o.value)")
    assert "trend" in offered and all(offered)  # no heading without its key ("30 days" sorted nothing)
    page.select_option("#sort", "trend")
    _ready(page)
    assert "sort=trend" in page.url
    moved = [_moved(t) for t in page.locator("#rankings tbody td.c-trend").all_inner_texts()]
    known = [m for m in moved if m is not None]
    assert known and any(m for m in known), moved  # the earlier snapshot moved some
    assert known == sorted(known, reverse=True) and moved[:len(known)] == known, moved  # biggest rise first, none last
    ctx.close()


def test_a_view_with_no_ranked_project_says_which_filter_to_drop(browser: Any, demo_server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(demo_server.url + "#goal=default&ecosystem=crates.io&forge=forgejo")
    _ready(page)
    rows = page.locator("#rankings tbody tr")
    text = rows.first.inner_text() if rows.count() == 1 else ""
    if page.locator("#rankings tbody td.empty").count():
        assert text.startswith("No ranked crates.io project on Forgejo.") and "Drop the forge (" in text, text
    else:  # the demo world ranks a crate on Forgejo: ask for a language it cannot have there too
        page.goto(demo_server.url + "#goal=default&ecosystem=crates.io&forge=forgejo&q=zzzz-none")
        _ready(page)
        assert "No ranked crates.io project on Forgejo matches “zzzz-none”." in page.locator("#rankings tbody td.empty").inner_text()
    ctx.close()
