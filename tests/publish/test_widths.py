"""Every page type at a phone's 390 px, a tablet's 768 px and a desktop's 1280 px, in Chromium, over
the demo's site (300 projects on GitHub and two GitLab hosts): nothing runs off the screen or is clipped, every table fits or is
shown as cards, and chart text is at least 11 px on screen (issue: every width)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browsing import until

from porchlamp.publish.site import repo_href

WIDTHS = (390, 768, 1280)
MIN_CHART_PX = 11

# What overflows on the page as drawn: the page itself, tables wider than their container, elements
# past the screen's edge, and elements whose content is cut off by their own overflow.
OVERFLOWS = """() => {
  const out = [], vw = document.documentElement.clientWidth, name = el => el.tagName.toLowerCase() +
    (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
  if (document.documentElement.scrollWidth > vw + 1) out.push('the page scrolls sideways by ' + (document.documentElement.scrollWidth - vw));
  for (const t of document.querySelectorAll('table')) {
    const over = t.getBoundingClientRect().width - t.parentElement.clientWidth;
    if (over > 1) out.push(name(t) + ' is ' + Math.round(over) + ' px wider than its container');
  }
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || getComputedStyle(el).visibility === 'hidden' || el.closest('.skip')) continue;
    if (r.right > vw + 1) out.push(name(el) + ' runs ' + Math.round(r.right - vw) + ' px off the screen');
    const cs = getComputedStyle(el);
    if (['hidden', 'clip', 'auto', 'scroll'].includes(cs.overflowX) && el.scrollWidth > el.clientWidth + 1)
      out.push(name(el) + ' cuts off ' + (el.scrollWidth - el.clientWidth) + ' px of its content');
  }
  return Array.from(new Set(out));
}"""

# Each chart as shown: the drawing the browser chose, its drawn and shown widths, and its smallest text.
CHARTS = """async () => {
  const out = [];
  for (const img of document.querySelectorAll('figure img')) {
    const svg = await (await fetch(img.currentSrc)).text();
    const sizes = [...svg.matchAll(/font-size="(\\d+(?:\\.\\d+)?)px"|font:(?:\\d+ )?(\\d+(?:\\.\\d+)?)px/g)].map(m => +(m[1] || m[2]));
    out.push({src: img.currentSrc, shown: img.getBoundingClientRect().width, drawn: img.naturalWidth, smallest: Math.min(...sizes)});
  }
  return out;
}"""


def _pages(site: Path, report: dict[str, Any]) -> list[str]:
    """A page of every type: every list and ranking page as served, and project pages of every status,
    with the longest names and titles, and history pages."""
    fixed = ["index.html", "not-ranked.html", "report.html", "method.html", "all/a.html", "start.html", "changes.html", "data.html"]
    rankings = sorted(p.relative_to(site).as_posix() for p in (site / "rankings").rglob("*.html"))
    fixed += sorted(p.relative_to(site).as_posix() for p in (site / "all").glob("*.html"))  # every letter: names differ
    projects: list[str] = []
    for status in sorted({p["status"] for p in report["projects"]}):
        projects += [repo_href(p["repo"]) for p in report["projects"] if p["status"] == status][:3]
    projects += [repo_href(p["repo"]) for p in report["projects"] if p["repo"].count("/") > 1][:4]  # on GitLab, some in subgroups
    longest = sorted((p.relative_to(site).as_posix() for p in (site / "projects").rglob("*.html")),
                     key=lambda rel: -max((len(t) for t in re.findall(r'<td class="title">([^<]*)', (site / rel).read_text(encoding="utf-8"))),
                                          default=0))
    projects += longest[:6]
    histories = sorted(p.relative_to(site).as_posix() for p in (site / "history").rglob("*.html"))[:2]
    return fixed + rankings + sorted(set(projects)) + histories


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_is_cut_off_or_runs_off_the_screen(browser: Any, demo_server: Any, demo_site: tuple[Path, dict[str, Any]], width: int) -> None:
    site, report = demo_site
    pages = _pages(site, report)
    assert len(pages) > 60
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    page = ctx.new_page()
    faults = []
    for rel in pages:
        page.goto(demo_server.url + rel)
        faults += [f"{rel}: {f}" for f in page.evaluate(OVERFLOWS)]
    # Every goal's ranking as the script draws it, in the widest order (by name, all ecosystems).
    goals = json.loads((site / "data" / "v1" / "rankings" / "parts.json").read_text())["profiles"]
    for goal in goals:
        page.goto(demo_server.url + f"index.html#goal={goal}&sort=repo&dir=desc")
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        # One page moving from goal to goal by its address alone: wait for this goal's table.
        until(page, f"document.querySelector('#rankings').getAttribute('data-profile') === {json.dumps(goal)} && "
                    "document.querySelector('#rankings th[data-key=repo]').getAttribute('aria-sort') === 'descending'")
        faults += [f"{goal} redrawn: {f}" for f in page.evaluate(OVERFLOWS)]
    ctx.close()
    assert faults == []


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_text_is_legible_on_screen(browser: Any, demo_server: Any, demo_site: tuple[Path, dict[str, Any]], width: int) -> None:
    site, report = demo_site
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    page = ctx.new_page()
    charts: list[dict[str, Any]] = []
    ranked = next(p["repo"] for p in report["projects"] if p["status"] == "ranked")
    history = sorted(p.relative_to(site).as_posix() for p in (site / "history").rglob("*.html"))[0]
    for rel in ("report.html", repo_href(ranked), history):
        page.goto(demo_server.url + rel)
        until(page, "Array.from(document.querySelectorAll('figure img')).every(i => i.complete && i.naturalWidth > 0)")
        charts += page.evaluate(CHARTS)
    ctx.close()
    assert len(charts) == 7
    small = [c for c in charts if c["smallest"] * c["shown"] / c["drawn"] < MIN_CHART_PX]
    assert small == []
    assert all(("-narrow.svg" in c["src"]) == (width < 704) for c in charts if "/charts/" in c["src"])


def test_where_the_table_is_cards_a_menu_sorts_it(browser: Any, demo_server: Any) -> None:
    """At 768 px the rankings are cards, their headings hidden: the Sort menu orders them instead."""
    ctx = browser.new_context(viewport={"width": 768, "height": 900})
    page = ctx.new_page()
    page.goto(demo_server.url)
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)
    assert not page.locator("#rankings thead").is_visible() and page.locator("#sort").is_visible()
    page.select_option("#sort", "stars")
    until(page, "location.hash.includes('sort=stars')")
    until(page, "document.querySelector('#sort').value === 'stars'")
    # The address changes at once; the cards are redrawn once every part has arrived.
    until(page, "document.querySelector('#rankings th[data-key=stars]').getAttribute('aria-sort') === 'descending'")
    stars = [int(s.replace(",", "")) for s in page.eval_on_selector_all("#rankings tbody td.c-stars", "t => t.map(x => x.textContent)")]
    assert len(stars) > 20 and stars == sorted(stars, reverse=True)
    page.go_back()
    until(page, "!location.hash.includes('sort=stars')")
    until(page, "document.querySelector('#sort').value === 'rank'")
    ctx.close()
