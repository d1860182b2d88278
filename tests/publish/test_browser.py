"""The site in a real browser (Chromium driven by Playwright), served over HTTP from 127.0.0.1."""

import os
from pathlib import Path
from typing import Any

from browsing import follow, until

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "rankings.png"


def _page(browser: Any, js: bool = True) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(java_script_enabled=js, viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return ctx, page, dialogs


def _ready(page: Any) -> None:
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)


def _rows(page: Any) -> list[list[str]]:
    """Each row's cells as text, the project cell as its name alone (without its flags)."""
    return page.eval_on_selector_all(
        "#rankings tbody tr", "rows => rows.map(r => Array.from(r.cells).map((c, i) => i === 1 ? c.querySelector('a').textContent.trim() "
        ": c.textContent.trim()))")


def test_home_lists_ranked_projects(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    _, report = published
    ctx, page, dialogs = _page(browser)
    page.goto(server.url)
    _ready(page)
    rows = _rows(page)
    ranked = sorted((p for p in report["projects"] if p["status"] == "ranked"), key=lambda p: p["ranks"]["default"])
    assert len(rows) == min(50, len(ranked))
    assert [r[1] for r in rows[:10]] == [p["repo"] for p in ranked[:10]]
    assert rows[0][0] == "1"
    if os.environ.get("PORCHLAMP_SCREENSHOTS"):
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
    assert dialogs == []
    ctx.close()


def test_the_index_is_fetched_on_the_first_change_of_view_not_on_arrival(browser: Any, server: Any) -> None:
    ctx, page, _ = _page(browser)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.rsplit("/", 1)[-1]))
    page.goto(server.url + "rankings/default/all/page-2.html")
    _ready(page)
    assert "rankings.json" not in asked and "search.json" not in asked
    served = [r[1] for r in _rows(page)]
    assert "page 2 of" in page.inner_text("#count") and len(served) == 50
    page.click("nav.pager >> text=previous")  # buttons from the start, moving from the page this file is
    until(page, "location.hash.includes('goal=default') && !location.hash.includes('page=')")
    until(page, "document.querySelector('#rankings caption').textContent.includes('page 1 of')")
    first = [r[1] for r in _rows(page)]
    page.click("nav.pager >> text=next")
    until(page, "location.hash.includes('page=2')")
    assert [r[1] for r in _rows(page)] == served and first != served  # the same page 2 as the file itself
    page.select_option("#profile", "career")
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('Career')")
    assert asked.count("rankings.json") == 1
    ctx.close()


def test_profile_switch_reorders_and_shows_delta(browser: Any, server: Any) -> None:
    ctx, page, _ = _page(browser)
    page.goto(server.url)
    _ready(page)
    before = [r[1] for r in _rows(page)]
    assert all(r[9] == "0" for r in _rows(page))  # default against itself: the column is hidden there
    assert not page.is_visible("#rankings tbody tr td.c-delta")
    page.select_option("#profile", "first-contribution")
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('First contribution')")
    after = _rows(page)
    assert [r[1] for r in after] != before
    assert any(r[9] not in ("0", "–") for r in after) and page.is_visible("#rankings tbody tr td.c-delta")
    assert [int(r[0]) for r in after] == list(range(1, len(after) + 1))
    ctx.close()


def test_ecosystem_and_search_filters(browser: Any, server: Any) -> None:
    ctx, page, _ = _page(browser)
    page.goto(server.url)
    _ready(page)
    eco = page.eval_on_selector("#ecosystem", "s => s.options[1].value")
    page.select_option("#ecosystem", eco)
    until(page, f"document.querySelector('#rankings caption').textContent.includes({eco!r})")
    rows = _rows(page)
    assert rows and all(r[7] == eco for r in rows)
    name = rows[0][1]
    page.fill("#search", name)
    until(page, "document.querySelectorAll('#rankings tbody tr').length === 1")
    assert _rows(page)[0][1] == name
    ctx.close()


def test_project_page_links_its_evidence(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    _, report = published
    bh = next(p for p in report["projects"] if p["status"] == "black_hole")
    ctx, page, _ = _page(browser)
    page.goto(server.url)
    page.goto(f"{server.url}not-ranked/black_hole.html")
    follow(page, page.locator(f"text={bh['repo']}"))
    links = page.eval_on_selector_all("table.evidence a", "as => as.map(a => a.href)")
    assert len(links) == bh["outside_prs"] >= 10
    assert all(h.startswith(f"https://github.com/{bh['repo']}/pull/") for h in links)
    assert "black hole" in page.inner_text("#verdict + p, .verdict").lower()
    dispute = page.get_attribute("text=Open an issue with the evidence", "href")
    assert dispute.startswith("https://github.com/") and "pull%2F" in dispute
    ctx.close()


def test_not_ranked_counts_match_the_report(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    _, report = published
    ctx, page, _ = _page(browser)
    page.goto(f"{server.url}not-ranked.html")
    shown = page.eval_on_selector_all("table.funnel td[data-status]", "tds => tds.map(t => [t.dataset.status, t.textContent])")
    assert {k: int(v.replace(",", "")) for k, v in shown} == report["funnel"]
    rows = page.eval_on_selector_all("#not-ranked tbody tr", "rs => rs.map(r => r.dataset.status)")
    assert len(rows) == sum(v for k, v in report["funnel"].items() if k != "ranked")
    undecided = page.eval_on_selector_all("#not-ranked tbody tr[data-status='undecided'] td:nth-child(3)", "t => t.map(x => x.textContent)")
    assert undecided and all("review happens" in t for t in undecided)
    ctx.close()


def test_planted_scripts_never_run(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    site, _ = published
    hostile = sorted(p for p in site.rglob("*.html") if "porchlamp-xss" in p.read_text() or "alert(&#34;desc" in p.read_text()
                     or "onerror" in p.read_text())
    assert hostile
    ctx, page, dialogs = _page(browser)
    page.add_init_script("window.__pwned = 0; window.alert = () => { window.__pwned += 1; };")
    for p in hostile[:15] + [site / "index.html", site / "not-ranked.html"]:
        page.goto(server.url + str(p.relative_to(site)))
        assert page.evaluate("window.__pwned") == 0
        body = page.inner_text("body")
        if "porchlamp-xss" in p.read_text():
            assert '<script>alert("porchlamp-xss")</script>' in body or "onerror" in body  # shown as text
        assert page.eval_on_selector_all("a[href^='javascript:' i]", "as => as.length") == 0
    assert dialogs == []
    ctx.close()


def test_every_view_without_javascript(browser: Any, server: Any) -> None:
    ctx, page, _ = _page(browser, js=False)
    page.goto(server.url)
    assert len(_rows(page)) > 0 and page.is_hidden("#controls")
    default_first = _rows(page)[0][1]
    follow(page, page.locator("nav.views >> text=First contribution"))
    assert "First contribution" in page.inner_text("#rankings caption")
    follow(page, page.locator("nav.views >> text=npm"))
    rows = _rows(page)
    assert rows and all(r[7] == "npm" for r in rows)
    page.goto(server.url)
    follow(page, page.locator("nav.pager >> text=next"))
    assert "page 2" in page.inner_text("#rankings caption") and _rows(page)[0][1] != default_first
    follow(page, page.locator("text=Report"))
    assert page.locator("figure img").count() == 5
    ctx.close()
