"""The site in a real browser (Chromium driven by Playwright), served over HTTP from 127.0.0.1."""

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import follow, until

from porchlamp.publish import api, load_site_data
from porchlamp.publish.serve import SiteServer
from porchlamp.store import Store

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
    page.on("request", lambda r: asked.append(r.url.removeprefix(server.url)))
    page.goto(server.url + "rankings/default/all/page-2.html")
    _ready(page)
    assert not [a for a in asked if a.startswith("data/")]
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
    # One part of each goal holds the 300-project world's ranking (the split is tested below).
    assert [a for a in asked if a.startswith("data/")] == ["data/v1/rankings/parts.json", "data/v1/rankings/default/part-1.json",
                                                           "data/v1/rankings/career/part-1.json"]
    ctx.close()


@pytest.fixture(scope="module")
def small_parts(published: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    """The published site with its ranking in parts of 20 rows, served: a view needs several."""
    site_dir = published[0]
    out = tmp_path_factory.mktemp("parts") / "site"
    shutil.copytree(site_dir, out)
    v1 = out / "data" / "v1"
    shutil.rmtree(v1 / "rankings")
    with Store(site_dir.parent / "s.duckdb") as s:
        site = load_site_data(s)
    for path, part in api.ranking_parts(site, PART):
        api.write_json(v1 / path, part)
    with SiteServer(out, port=0) as server:
        yield server, out


PART = 20


def _expected(index: dict[str, Any], profile: str, key: str = "rank", desc: bool = False, eco: str = "", lang: str = "") -> list[str]:
    """The order app.js shows: by `key` (absent values last), ties by the goal's rank."""
    col = {c: i for i, c in enumerate(index["columns"])}
    at = col[f"{profile}.{key}" if key in ("rank", "score", "tier", "delta") else key]
    rank = col[f"{profile}.rank"]
    rows = [r for r in index["rows"] if (not eco or r[col["ecosystem"]] == eco) and (not lang or r[col["language"]] == lang)]
    present = sorted((r for r in rows if r[at] is not None), key=lambda r: r[rank])
    present.sort(key=lambda r: r[at], reverse=desc)  # stable: ties stay in rank order
    return [r[0] for r in present + sorted((r for r in rows if r[at] is None), key=lambda r: r[rank])]


def test_a_view_in_rank_order_fetches_only_the_parts_down_to_its_page(browser: Any, small_parts: tuple[Any, Path]) -> None:
    server, site = small_parts
    index = json.loads((site / "data" / "v1" / "rankings.json").read_text())
    manifest = json.loads((site / "data" / "v1" / "rankings" / "parts.json").read_text())
    ranked = len(index["rows"])
    assert ranked > 3 * PART and manifest["parts"] == -(-ranked // PART)  # more parts than one page needs
    ctx, page, _ = _page(browser)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(server.url + "data/v1/rankings/")))
    page.goto(server.url)
    _ready(page)
    page.select_option("#profile", "career")
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('Career')")
    caption = page.inner_text("#rankings caption")
    assert f": {ranked} projects, page 1 of {-(-ranked // 50)}" in caption
    assert [r[1] for r in _rows(page)] == _expected(index, "career")[:50]
    assert sorted(a for a in asked if a.startswith("career/")) == [f"career/part-{n}.json" for n in (1, 2, 3)]  # 60 rows ≥ 50
    page.click("nav.pager >> text=next")
    until(page, "location.hash.includes('page=2')")
    until(page, "document.querySelector('#rankings caption').textContent.includes('page 2 of')")
    assert [r[1] for r in _rows(page)] == _expected(index, "career")[50:100]
    assert sorted(a for a in asked if a.startswith("career/")) == [f"career/part-{n}.json" for n in (1, 2, 3, 4, 5)]
    # Another order needs every part of the goal; the table then equals sorting the whole index.
    page.click("#rankings thead th[data-key='stars'] button")
    until(page, "location.hash.includes('sort=stars')")
    by_stars = _expected(index, "career", "stars", desc=True)
    until(page, f"document.querySelector('#rankings tbody a').textContent === {json.dumps(by_stars[50])}")  # still page 2
    assert [r[1] for r in _rows(page)] == by_stars[50:100]
    assert sorted(a for a in asked if a.startswith("career/")) == sorted(f"career/part-{n}.json" for n in range(1, manifest["parts"] + 1))
    data = [a for a in asked if not a.startswith("http")]
    assert data.count("parts.json") == 1 and len(data) == len(set(data))  # nothing asked twice
    ctx.close()


def test_a_filtered_view_counts_its_pages_before_its_parts_arrive(browser: Any, small_parts: tuple[Any, Path]) -> None:
    server, site = small_parts
    index = json.loads((site / "data" / "v1" / "rankings.json").read_text())
    eco = max({r[1] for r in index["rows"]}, key=lambda e: sum(1 for r in index["rows"] if r[1] == e))
    expected = _expected(index, "first-contribution", eco=eco)
    ctx, page, _ = _page(browser)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(server.url + "data/v1/rankings/")))
    page.goto(server.url + f"#goal=first-contribution&ecosystem={eco}")
    _ready(page)
    assert [r[1] for r in _rows(page)] == expected[:50]
    assert page.inner_text("#count").startswith(f"{len(expected)} ranked project")
    # A language few ranked projects use: its rows are likely spread over every part, asked at once.
    langs = [r[2] for r in index["rows"] if r[2]]
    rare = min(sorted(set(langs)), key=langs.count)
    page.select_option("#ecosystem", "")
    page.select_option("#language", rare)
    until(page, f"document.querySelector('#rankings caption').textContent.includes({json.dumps(rare)})")
    assert [r[1] for r in _rows(page)] == _expected(index, "first-contribution", lang=rare)
    page.select_option("#language", "")
    page.fill("#search", expected[-1])  # a search reads every part
    until(page, f"document.querySelectorAll('#rankings tbody tr').length === {sum(1 for r in expected if expected[-1] in r)}")
    assert expected[-1] in [r[1] for r in _rows(page)]
    goal = [a for a in asked if a.startswith("first-contribution/")]
    parts = json.loads((site / "data" / "v1" / "rankings" / "parts.json").read_text())["parts"]
    assert sorted(goal) == sorted(f"first-contribution/part-{n}.json" for n in range(1, parts + 1))  # each once
    ctx.close()


def test_a_part_that_cannot_be_fetched_says_so_and_keeps_the_table(browser: Any, small_parts: tuple[Any, Path]) -> None:
    server, site = small_parts
    missing = site / "data" / "v1" / "rankings" / "ai-assisted" / "part-2.json"
    saved = missing.read_bytes()
    missing.unlink()
    try:
        ctx, page, dialogs = _page(browser)
        page.goto(server.url)
        _ready(page)
        before = _rows(page)
        page.select_option("#profile", "ai-assisted")  # its first page needs parts 1 to 3
        until(page, "document.querySelector('#count').textContent.includes('could not be loaded')")
        assert "part-2.json: HTTP 404" in page.inner_text("#count") and "Reload" in page.inner_text("#count")
        assert _rows(page) == before and page.get_attribute("#rankings", "aria-busy") is None and dialogs == []
        ctx.close()
    finally:
        missing.write_bytes(saved)


def test_a_part_from_another_snapshot_starts_the_view_over(browser: Any, small_parts: tuple[Any, Path]) -> None:
    """The site published again while a reader had it open: a part of the new snapshot under the old
    manifest is not mixed in; the page asks for everything again and shows the new snapshot whole."""
    server, site = small_parts
    v1 = site / "data" / "v1"
    ctx, page, _ = _page(browser)
    page.goto(server.url)
    _ready(page)
    page.select_option("#profile", "systems")
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('Systems')")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(server.url + "data/v1/rankings/")))
    saved = {p: p.read_bytes() for p in (v1 / "rankings").rglob("*.json")}
    try:
        for p in saved:
            data = json.loads(saved[p])
            data["as_of"] = "2099-01-01"
            if "part" in data and data["rows"]:
                data["rows"][0][0] = "renamed/after-the-swap"
            p.write_text(json.dumps(data))
        page.click("nav.pager >> text=next")  # parts 4 and 5 arrive from the new snapshot
        until(page, "document.querySelector('#rankings caption').textContent.includes('page 2 of')")
        assert asked.count("parts.json") == 1 and "systems/part-1.json" in asked  # started over
        page.click("nav.pager >> text=previous")
        until(page, "document.querySelector('#rankings caption').textContent.includes('page 1 of')")
        assert _rows(page)[0][1] == "renamed/after-the-swap"
    finally:
        for p, b in saved.items():
            p.write_bytes(b)
    ctx.close()


def test_profile_switch_reorders_and_shows_delta(browser: Any, server: Any) -> None:
    ctx, page, _ = _page(browser)
    page.goto(server.url)
    _ready(page)
    before = [r[1] for r in _rows(page)]
    assert all(r[10] == "0" for r in _rows(page))  # default against itself: the column is hidden there
    assert not page.is_visible("#rankings tbody tr td.c-delta")
    page.select_option("#profile", "first-contribution")
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('First contribution')")
    after = _rows(page)
    assert [r[1] for r in after] != before
    assert any(r[10] not in ("0", "–") for r in after) and page.is_visible("#rankings tbody tr td.c-delta")
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
    assert rows and all(r[8] == eco for r in rows)
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


def test_a_projects_own_bot_is_named_with_one_of_its_messages(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    """The world's own-CI accounts (SPEC section 5) are named on their project's page in plain words."""
    site, _ = published
    pages = sorted(p for p in (site / "projects").rglob("*.html") if "treated as this project" in p.read_text())
    assert pages
    ctx, page, _ = _page(browser)
    page.goto(server.url + str(pages[0].relative_to(site)))
    named = page.locator("ul.quotes li", has_text="treated as this project's bot").first
    said = named.locator("p").inner_text()
    assert re.fullmatch(r"\S+ posts the same message on (\d+) of the (\d+) PRs it commented on; treated as this project's bot\.", said)
    assert "tests passed" in named.locator("blockquote").inner_text()
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
    assert undecided and all("review happens" in t or "are not taken here" in t for t in undecided)
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
    assert rows and all(r[8] == "npm" for r in rows)
    page.goto(server.url)
    follow(page, page.locator("nav.pager >> text=next"))
    assert "page 2" in page.inner_text("#rankings caption") and _rows(page)[0][1] != default_first
    follow(page, page.locator("text=Report"))
    assert page.locator("figure img").count() == 5
    ctx.close()
