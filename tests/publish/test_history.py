"""A project's history over the last 90 days: a chart drawn at build time and a page with the same
figures as text, from the stored snapshots (the published site holds two, a week apart)."""

import re
import xml.etree.ElementTree as ET
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from porchlamp.publish.history import history_href, history_svg
from porchlamp.publish.site import repo_href
from porchlamp.publish.words import xml_text

SVG = "{http://www.w3.org/2000/svg}"
AS_OF = date(2026, 10, 15)

rows = st.lists(st.builds(lambda days, n, answered, median: {"as_of": AS_OF - timedelta(days=days), "outside_prs": n,
                                                             "answered": min(answered, n), "median_hours": median},
                          st.integers(0, 89), st.integers(1, 500), st.integers(0, 500),
                          st.one_of(st.none(), st.floats(0, 10_000))), min_size=1, max_size=90, unique_by=lambda r: r["as_of"])


@settings(max_examples=150, deadline=None)
@given(rows, st.text(max_size=30))
def test_any_history_draws_a_point_per_snapshot_and_escapes_the_name(history: list[dict[str, Any]], name: str) -> None:
    history.sort(key=lambda r: r["as_of"])
    svg = ET.fromstring(history_svg(f"o/{name}", history, AS_OF))  # well-formed, whatever the name holds
    dots = svg.findall(f"{SVG}circle")
    assert len(dots) == len(history) + sum(r["median_hours"] is not None for r in history)
    assert all(0 <= float(d.get("cx")) <= 356 and 0 <= float(d.get("cy")) <= float(svg.get("height")) for d in dots)
    shown = xml_text(name).replace("\r\n", "\n").replace("\r", "\n")  # as any XML reader ends lines
    assert svg.find(f"{SVG}title").text.startswith(f"o/{shown}:")


def test_each_judged_project_has_its_history_from_both_snapshots(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    with_prs = [p for p in report["projects"] if p["outside_prs"] and p["status"] != "undecided"]
    assert len(with_prs) > 100
    for p in with_prs[:40]:
        href = history_href(p["repo"])
        page = (site / f"{href}.html").read_text(encoding="utf-8")
        dates = re.findall(r'<th scope="row">(\d{4}-\d\d-\d\d)</th>', page)
        assert len(dates) == 2 and dates[0] > dates[1]  # newest first, a week apart
        assert "only one snapshot so far" not in page
        svg = ET.fromstring((site / f"{href}.svg").read_bytes())
        assert len(svg.findall(f"{SVG}polyline")) >= 1  # two points make a line
        project = (site / repo_href(p["repo"])).read_text(encoding="utf-8")
        assert f'{href}.svg"' in project and f'{href}.html"' in project
    # Ranked a week ago, undecided now: its page shows no history, and none is written.
    undecided = next(p for p in report["projects"] if p["status"] == "undecided")
    assert not (site / f"{history_href(undecided['repo'])}.svg").exists()


def test_the_chart_shows_on_a_phone_and_its_page_reads_without_it(browser: Any, server: Any,
                                                                  published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    repo = next(p["repo"] for p in report["projects"] if p["status"] == "ranked")
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(server.url + repo_href(repo))
    img = page.locator("#history ~ figure img")
    img.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
    box = img.bounding_box()
    assert box["width"] <= 390 - 16 and box["height"] > 100  # scaled to the screen, still readable
    page.locator("#history ~ figure figcaption a").click()
    assert page.locator("table caption").inner_text().startswith("The figures behind the chart")
    assert page.locator("table tbody tr").count() == 2
    ctx.close()


def test_the_chart_follows_the_configured_response_window() -> None:
    row = [{"as_of": AS_OF, "outside_prs": 4, "answered": 3, "median_hours": 2.0}]
    assert "Answered within 7 days" in history_svg("o/n", row, AS_OF, 7) and "7 days" in history_svg("o/n", row, AS_OF, 7)
    assert "Answered within 14 days" in history_svg("o/n", row, AS_OF)
