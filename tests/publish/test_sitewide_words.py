"""Every page of the demo's site (300 projects on GitHub and two GitLab hosts), read as a reader reads it: each count agrees with its
noun, a project's figures read the same in every place they appear (ranking row, verdict, "What was
measured", every goal, badge, Shields label, record), and a PR's outcome never contradicts its first
response (issue: every number and sentence on the site says one thing)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from browsing import until
from sitetext import plural_faults, text_runs

from porchlamp import figures

ROW = re.compile(r'<td class="c-rank"[^>]*>(\d+)</td>\s*<td class="c-project"><a href="([^"]+)">.*?</a>.*?</td>\s*'
                 r'<td class="c-tier"[^>]*>.*?</td>\s*<td class="c-score"[^>]*>([^<]*)</td>\s*'
                 r'<td class="c-answered"[^>]*>([^<]*)</td>\s*<td class="c-trend"[^>]*>[^<]*</td>\s*'
                 r'<td class="c-median"[^>]*>([^<]*)</td>', re.DOTALL)


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_no_page_says_one_with_a_plural_or_many_with_a_singular(demo_site: tuple[Path, dict[str, Any]]) -> None:
    site, _ = demo_site
    pages = _pages(site)
    faults = [f"{p.relative_to(site)}: {f}" for p in pages for f in plural_faults(text_runs(p.read_text(encoding="utf-8")))]
    assert len(pages) > 600
    assert faults == []


def test_the_plural_check_finds_what_it_is_for() -> None:
    """The check the site passes fails on the sentences the site used to write."""
    bad = ["1 outside PRs in the window", "1 active maintainers", "1 open, unassigned good first issues", "17 packages and 1 repositories",
           "2 outside PR", "Default ranking: 1 projects"]
    good = ["1 outside PR in the window", "61 of 68 answered", "17 review elsewhere", "8 bot commits, no person", "1 of 3 PRs",
            "rank 1 in the default ranking", "comment after 1 h", "1,204 packages", "100 projects, page 1 of 2"]
    assert [s for s in bad if not plural_faults([s])] == []
    assert [s for s in good if plural_faults([s])] == []


def _ranking_rows(site: Path) -> dict[str, tuple[str, str, str]]:
    """project page path -> (score, answered, median) as the default ranking's served pages show them."""
    out = {}
    for page in [site / "index.html", *sorted((site / "rankings" / "default" / "all").glob("page-*.html"))]:
        for rank, href, score, answered, median in ROW.findall(page.read_text(encoding="utf-8")):
            out[href.split("projects/", 1)[1]] = (score, answered, median)
    return out


def _one(pattern: str, text: str) -> str | None:
    m = re.search(pattern, text)
    return m.group(1) if m else None


def test_a_projects_figures_read_the_same_everywhere(demo_site: tuple[Path, dict[str, Any]]) -> None:
    site, report = demo_site
    rows = _ranking_rows(site)
    ranked = [p for p in report["projects"] if p["status"] == "ranked"]
    assert len(rows) == len(ranked) > 80
    compared = medians = 0
    forges: set[str] = set()
    for rel, (score, answered, median) in rows.items():
        page = " ".join(text_runs((site / "projects" / rel).read_text(encoding="utf-8")))
        record = json.loads((site / "data" / "v1" / "projects" / rel.replace(".html", ".json")).read_text())
        shields = json.loads((site / "data" / "v1" / "shields" / rel.replace(".html", ".json")).read_text())
        badge = (site / "badges" / rel.replace(".html", ".svg")).read_text()
        forges.add(record["forge"])
        default = record["profiles"]["default"]
        where = {
            "ranking row": score,
            "verdict": _one(r"score ([\d.]+), rank", page),
            "every goal": _one(r"Default [^ ]* ?ranking ([\d.]+) ", page) or _one(r"\bDefault\b[^0-9]*([\d.]+) \d+%", page),
            "record": figures.score(default["score"]),
            "Shields label": shields["message"].split(" · ")[1],
            "badge": _one(r"<title>porchlamp: [^<]* · ([\d.]+)</title>", badge),
        }
        assert len(set(where.values())) == 1, (rel, where)
        k, n = (int(x.replace(",", "")) for x in answered.split(" of "))
        share = _one(r"(\d+%) answered within 14 days", page)
        assert share == figures.share_of(k, n), (rel, answered, share)
        verdict_median = _one(r"Half were answered within (\d[\d.]* (?:min|h|days))", page)
        measured_median = _one(r"half answered within (\d[\d.]* (?:min|h|days))", page)
        if median != "none":
            assert median == verdict_median == measured_median, (rel, median, verdict_median, measured_median)
            medians += 1
        compared += 1
    assert compared == len(rows) and medians > 50 and forges == {"github", "gitlab", "forgejo"}


def test_outcome_and_first_response_tell_one_story(demo_site: tuple[Path, dict[str, Any]]) -> None:
    """No row says "no response" beside a response, and "14.0 days" only ever reads as in time."""
    site, _ = demo_site
    rows = late = 0
    cell = re.compile(r'<td class="c-outcome" data-label="Outcome">([^<]*)</td><td class="c-response" data-label="First response">([^<]*)</td>')
    for page in sorted((site / "projects").rglob("*.html")):
        for outcome, response in cell.findall(page.read_text(encoding="utf-8")):
            rows += 1
            if response != "none" and outcome not in ("answered", "not judged"):
                late += 1
                assert outcome in ("answered late", "closed without an answer"), (page.name, outcome, response)
                days = _one(r"after ([\d.]+) days", response)
                assert days is None or float(days) > 14.0 or "just over" in response, (page.name, response)
            if outcome == "answered":
                days = _one(r"after ([\d.]+) days", response)
                assert days is None or float(days) <= 14.0, (page.name, response)
            assert not (outcome == "no response" and response != "none"), (page.name, outcome, response)
    assert rows > 5000 and late > 50


def _hours(words: str) -> float:
    n, unit = words.split(" ")
    return float(n) * {"min": 1 / 60, "h": 1.0, "days": 24.0}[unit]


def test_every_goals_redrawn_view_agrees_in_number_and_sorts_on_the_exact_median(browser: Any, demo_server: Any,
                                                                                 demo_site: tuple[Path, dict[str, Any]]) -> None:
    """The tables the script draws, for every goal and sorted by median first response: no count
    disagrees with its noun, and the medians ascend as read ("50 min" before "51 min")."""
    site, _ = demo_site
    goals = json.loads((site / "data" / "v1" / "rankings" / "parts.json").read_text())["profiles"]
    assert len(goals) >= 5
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    faults: list[str] = []
    for goal in goals:
        page = ctx.new_page()
        page.goto(demo_server.url + f"#goal={goal}&sort=median_hours&dir=asc")
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        until(page, "location.hash.includes('sort=median_hours')")
        until(page, "document.querySelectorAll('#rankings tbody tr').length > 0")
        faults += [f"{goal}: {f}" for f in plural_faults(page.inner_text("body").split("\n"))]
        medians = [m for m in page.eval_on_selector_all("#rankings tbody td.c-median", "tds => tds.map(t => t.textContent.trim())")
                   if m != "none"]
        hours = [_hours(m) for m in medians]
        assert len(hours) > 20 and hours == sorted(hours), (goal, medians)
        page.close()
    # A search the script answers with one ranked project, then with none and one not ranked.
    _, report = demo_site
    alone = [p for p in report["projects"] if not any(p["repo"] in q["repo"] for q in report["projects"] if q is not p)]
    ranked = next(p["repo"] for p in alone if p["status"] == "ranked")
    hole = next(p["repo"] for p in alone if p["status"] == "black_hole")
    page = ctx.new_page()
    page.goto(demo_server.url)
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)
    for query, shown in ((ranked, "1 ranked project and 0 not ranked match"), (hole, "0 ranked projects and 1 not ranked match")):
        page.fill("#search", query)
        until(page, f"document.querySelector('#count').textContent.includes({json.dumps(shown)})")
        faults += [f"search {query}: {f}" for f in plural_faults(page.inner_text("body").split("\n"))]
    ctx.close()
    assert faults == []
