"""The not-ranked and A–Z lists come in pages: every project on exactly one page, in order, each
page linked to the next, with and without JavaScript."""

import re
from pathlib import Path
from typing import Any

import pytest

from browsing import follow

from porchlamp.publish import load_site_data, publish, site as site_mod
from porchlamp.publish.serve import SiteServer
from porchlamp.publish.site import NOT_RANKED_ORDER
from porchlamp.store import Store

ROW = re.compile(r'<tr(?: data-status="([a-z_]+)")?><td(?: class="c-project"[^>]*)?><a href="[^"]+">([^<]+)</a>')


def _chain(site: Path, first: str) -> list[tuple[list[tuple[str, str]], str]]:
    """Each page of a list from its first, following rel=next: its rows and its caption."""
    out, rel = [], first
    while rel:
        html = (site / rel).read_text(encoding="utf-8")
        captions = re.findall(r"<caption>(.*?)</caption>", html, re.S)  # the list's is the page's last
        out.append((ROW.findall(html), re.sub(r"<[^>]+>", "", captions[-1])))
        nxt = re.search(r'<a rel="next" href="([^"]+)">', html)
        rel = str((site / rel).parent.joinpath(nxt.group(1)).resolve().relative_to(site.resolve())) if nxt else ""
    return out


@pytest.fixture(scope="module")
def small_pages(published: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    with Store(published[0].parent / "s.duckdb", read_only=True) as s:
        data = load_site_data(s)
    out = tmp_path_factory.mktemp("lists") / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(site_mod, "LIST_PAGE", 7)
        publish(data, out)
    return out, published[1]


def test_every_project_not_ranked_is_on_one_page_in_order(small_pages: tuple[Path, dict[str, Any]]) -> None:
    site, report = small_pages
    pages = _chain(site, "not-ranked.html")
    rows = [r for page, _ in pages for r in page]
    not_ranked = [p for p in report["projects"] if p["status"] != "ranked"]
    assert len(rows) == len({name for _, name in rows}) == len(not_ranked) > 7 * 3
    assert [len(page) for page, _ in pages[:-1]] == [7] * (len(pages) - 1) and 1 <= len(pages[-1][0]) <= 7
    stars = {p["repo"]: p["stars"] for p in report["projects"]}
    assert [(NOT_RANKED_ORDER.index(st), -stars[name]) for st, name in rows] == sorted(
        (NOT_RANKED_ORDER.index(st), -stars[name]) for st, name in rows)
    assert pages[1][1] == f"{len(not_ranked)} projects, 8–14 on page 2 of {len(pages)}"
    for status in NOT_RANKED_ORDER:
        mine = [name for page, _ in _chain(site, f"not-ranked/{status}.html") for st, name in page]
        assert sorted(mine) == sorted(p["repo"] for p in not_ranked if p["status"] == status)


def test_every_project_is_on_one_a_to_z_page(small_pages: tuple[Path, dict[str, Any]]) -> None:
    site, report = small_pages
    listed = [name for key, _ in site_mod.LETTERS for page, _ in _chain(site, f"all/{key}.html") for _, name in page]
    assert sorted(listed) == sorted(p["repo"] for p in report["projects"])
    assert len(list((site / "all").glob("*/page-*.html"))) > 10  # letters that needed more than one page


def test_paging_a_list_without_javascript(small_pages: tuple[Path, dict[str, Any]], browser: Any) -> None:
    site, _ = small_pages
    with SiteServer(site, port=0) as server:
        ctx = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        page.goto(f"{server.url}not-ranked/black_hole.html")
        first = page.locator("#not-ranked tbody tr td.c-project a").all_inner_texts()
        follow(page, page.locator("nav.pager >> text=next"))
        assert "page 2 of" in page.inner_text("#not-ranked caption")
        second = page.locator("#not-ranked tbody tr td.c-project a").all_inner_texts()
        assert second and not set(first) & set(second)
        follow(page, page.locator("nav.pager >> text=previous"))
        assert page.locator("#not-ranked tbody tr td.c-project a").all_inner_texts() == first
        follow(page, page.locator("nav.pager >> text=next"))
        follow(page, page.locator(f"#not-ranked >> text={second[0]}"))  # links from a page two folders down still resolve
        assert page.locator("h1").inner_text().strip() == second[0]
        ctx.close()
