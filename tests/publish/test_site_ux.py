"""What a contributor meets on the site, in Chromium at a phone's 390 px and a desktop's 1280 px:
one search over every project, numbers that agree, plain words, cards on phones, the view in the
address, and accessible pages (issue: the site answers a contributor in seconds, on any screen)."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from browsing import follow, until

AXE = Path(__file__).resolve().parents[2] / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["index.html", "not-ranked.html", "report.html", "method.html", "all/a.html", "start.html", "changes.html"]


def _ctx(browser: Any, width: int, js: bool = True) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(viewport={"width": width, "height": 844 if width < 500 else 1000}, java_script_enabled=js)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    return ctx, page, errors


def _ready(page: Any) -> None:
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)


def _report(published: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    return published[1]


def test_search_finds_projects_that_are_not_ranked(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    """The 85k-star black hole is not in the ranking: searching for it says why and links its page."""
    report = _report(published)
    hole = max((p for p in report["projects"] if p["status"] == "black_hole"), key=lambda p: p["stars"])
    ctx, page, errors = _ctx(browser, 1280)
    page.goto(server.url)
    _ready(page)
    page.fill("#search", hole["repo"])
    page.wait_for_selector("#also-list li a")
    item = page.locator("#also-list li").first
    assert item.locator("a").inner_text() == hole["repo"]
    assert "Black hole" in item.inner_text() and "with no response" in item.inner_text()
    assert "0 ranked projects and 1 not ranked match" in page.inner_text("#count")
    follow(page, item.locator("a"))
    assert page.locator("h1").inner_text().strip() == hole["repo"]
    assert errors == []
    ctx.close()


def test_every_project_is_in_the_a_to_z_index_without_javascript(browser: Any, server: Any,
                                                                 published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    listed: list[str] = []
    for f in sorted((site / "all").glob("*.html")):
        listed += re.findall(r'<td class="c-project"><a href="[^"]+">([^<]+)</a></td>', f.read_text(encoding="utf-8"))
    assert len(listed) == report["projects_total"]
    ctx, page, _ = _ctx(browser, 1280, js=False)
    page.goto(f"{server.url}index.html")
    follow(page, page.locator("nav.views >> text=Every project, A–Z"))
    assert page.locator("table.az tbody tr").count() > 0
    ctx.close()


def test_numbers_agree_everywhere(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    """One definition of each number: the table's "61 of 68" is the project page's count and its
    reason's; the median is over every judged PR; the report's totals add up to the funnel."""
    site, report = published
    rankings = json.loads((site / "data" / "v1" / "rankings.json").read_text())
    col = {c: i for i, c in enumerate(rankings["columns"])}
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url)
    _ready(page)
    first = page.locator("#rankings tbody tr").first
    name = first.locator("td.c-project a").inner_text()
    answered = first.locator("td.c-answered").inner_text()
    row = next(r for r in rankings["rows"] if r[col["repo"]] == name)
    assert answered == f"{row[col['answered']]} of {row[col['outside_prs']]}"
    follow(page, first.locator("td.c-project a"))
    verdict = page.inner_text("section[aria-labelledby=verdict]")  # said once: in the reason, or beneath it
    assert f"{answered} answered within 14 days" in verdict
    project = json.loads(next((site / "data" / "v1" / "projects").glob(f"*/{name.split('/')[1]}.json")).read_text())
    assert verdict.count(project["outcome_counts"]["in_words"]) == 1
    # Black holes: the reason's counts are the three counts, closed-without-an-answer its own.
    hole = next(p for p in report["projects"] if p["status"] == "black_hole")
    assert re.match(r"black hole: \d+ of \d+ answered within 14 days", hole["reason"])
    page.goto(f"{server.url}report.html")
    text = page.inner_text("#funnel ~ p")
    nums = [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?= )", text)]
    f = report["funnel"]
    stopped, passed, undecided, judged, holes, answering, not_judged = nums[0], nums[1], nums[2], nums[3], nums[5], nums[6], nums[7]
    assert stopped + passed == report["projects_total"] and undecided + judged + not_judged == passed
    assert holes == f["black_hole"] and holes + answering == judged and f["ranked"] + f["unrated"] == answering + not_judged
    ctx.close()


def test_plain_words_and_no_jargon(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    site, _ = published
    projects = sorted((site / "projects").rglob("*.html"))
    for rel in ["index.html", "not-ranked.html", *[str(p.relative_to(site)) for p in projects]]:
        text = re.sub(r"<[^>]+>", " ", (site / rel).read_text(encoding="utf-8"))
        for jargon in ("noassertion", "non osi", "too few prs", "(clear)", "ci share", "p90 hours", "1. 1.",
                       # words a newcomer met unexplained (#51): said plainly now, or explained on Method and Data
                       "mannequin", "dependents service", "% confidence", "against the average project's move",
                       "of its weight could be measured", "window of", "wilson", "logcap", "clamped", "digest"):
            assert jargon not in text.lower(), (rel, jargon)
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(f"{server.url}method.html")
    assert page.locator("ol.checks li").first.inner_text().startswith("Is it software")
    assert page.locator("#legend ~ dl dt .tier").count() == 5
    ctx.close()


def test_what_moves_a_project_names_the_component_and_why(browser: Any, server: Any,
                                                          published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    mover = next(p for p in report["projects"] if p["status"] == "ranked" and any(d for d in p["delta"].values()))
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url)
    _ready(page)
    page.fill("#search", mover["repo"])
    # The mover's own row: the table filters once the index has come, and may still show others.
    follow(page, page.locator("#rankings tbody td.c-project").get_by_role("link", name=mover["repo"], exact=True))
    moved = page.locator("#profiles ~ div tbody tr").all_inner_texts()
    line = next(t for t in moved if re.search(r"places? (higher|lower)", t))
    # judged by the component's score against the ranked projects', and which way the goal's weight went
    assert re.search(r", (a strength|a weak spot|about average) \([\d.]+; ranked projects' median [\d.]+\), counts for "
                     r"(more|less) here \(\d+, not \d+\): [+−][\d.]+ points against most projects", line), line
    ctx.close()


def test_the_undecided_page_says_where_review_happens(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    report = _report(published)
    undecided = [p for p in report["projects"] if p["status"] == "undecided"]
    assert undecided
    ctx, page, _ = _ctx(browser, 1280)
    for p in undecided:
        page.goto(f"{server.url}all/{p['repo'][0].lower() if p['repo'][0].isalpha() else '0-9'}.html")
        follow(page, page.locator(f"table.az >> text={p['repo']}"))
        assert page.locator("#elsewhere").count() == 1 and page.locator("ul.quotes li").count() >= 1
        outcomes = page.locator("table.evidence tbody td:nth-child(5)").all_inner_texts()
        assert outcomes and set(outcomes) == {"not judged"}
        assert "behind the verdict" not in page.inner_text("main")
    ctx.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_no_page_scrolls_sideways(browser: Any, server: Any, published: tuple[Path, dict[str, Any]], width: int) -> None:
    site, report = published
    longest = max((p for p in report["projects"]), key=lambda p: len(p["repo"]))
    project = next((site / "projects").rglob(f"{longest['repo'].split('/')[1][:20]}*.html"), None)
    pages = PAGES + ([str(project.relative_to(site))] if project else [])
    ctx, page, errors = _ctx(browser, width)
    for rel in pages:
        page.goto(server.url + rel)
        wide = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
        assert wide <= 0, (rel, wide)
    assert errors == []  # no CSP complaint (frame-ancestors in a meta tag), nothing else
    ctx.close()


def _one_page_per_kind(site: Path, report: dict[str, Any]) -> list[str]:
    """Every page type: the fixed pages, and a project page of each status (their tables differ)."""
    by_status: dict[str, str] = {}
    for p in sorted(report["projects"], key=lambda p: -(p["outside_prs"] or 0)):  # the busiest of each status: the widest tables
        by_status.setdefault(p["status"], p["repo"])
    projects = [str(next((site / "projects").rglob(f"{r.split('/')[1]}.html")).relative_to(site)) for r in by_status.values()]
    history = next(iter(sorted((site / "history").rglob("*.html"))))
    return [*PAGES, "not-ranked/black_hole.html", "data.html", *projects, str(history.relative_to(site))]


@pytest.mark.parametrize("width", [390, 1280])
def test_every_table_fits_and_every_menu_link_shows(browser: Any, server: Any, published: tuple[Path, dict[str, Any]], width: int) -> None:
    """No table is wider than the box it sits in (on a phone wide ones become cards), and every link of
    the menu is on the screen, none off to the side."""
    site, report = published
    pages = _one_page_per_kind(site, report)
    ctx, page, _ = _ctx(browser, width)
    tables = 0
    for rel in pages:
        page.goto(server.url + rel)
        if rel in ("index.html", "start.html"):
            _ready(page)
        widths = page.evaluate("""() => [...document.querySelectorAll('main table')].map(t =>
            [(t.caption ? t.caption.textContent : t.id).slice(0, 40), t.scrollWidth, (t.closest('.scroll') || t.parentElement).clientWidth])""")
        tables += len(widths)
        assert [w for w in widths if w[1] > w[2]] == [], rel
        links = page.evaluate("""() => [...document.querySelectorAll('header nav a')].map(a => { const r = a.getBoundingClientRect();
            return [a.textContent, r.width > 0 && r.left >= 0 && r.right <= window.innerWidth]; })""")
        assert len(links) == 8 and all(shown for _, shown in links), (rel, links)
    assert tables >= 12  # the pages above hold a dozen or more tables: the check looked at them
    if width == 390:  # a PR's card shows its outcome, first response and who answered, without a table header
        busiest = next(p for p in pages if p.startswith("projects/"))  # the first project page: the most outside PRs
        page.goto(server.url + busiest)
        card = page.locator("table.evidence tbody tr").first
        for cell in ("c-outcome", "c-response"):
            box = card.locator(f"td.{cell}").bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width
        label = card.locator("td.c-outcome").evaluate("td => getComputedStyle(td, '::before').content")
        assert label == '"Outcome: "'  # each value under its column's name
    ctx.close()


def test_phones_get_cards_that_lead_with_what_matters(browser: Any, server: Any) -> None:
    ctx, page, _ = _ctx(browser, 390)
    page.goto(server.url)
    _ready(page)
    card = page.locator("#rankings tbody tr").first
    name, answered, median = (card.locator(f"td.{c}").bounding_box() for c in ("c-project", "c-answered", "c-median"))
    assert name["y"] + name["height"] <= 844  # the first project is on the first screen
    assert name["height"] < 3 * 22  # its name on at most two lines
    assert answered["y"] > name["y"] and median["y"] > name["y"] and answered["y"] < 844
    # Every column is on the card, under its name: none is dropped to make it fit.
    stars = page.locator("#rankings tbody tr td.c-stars").first
    assert stars.is_visible() and stars.bounding_box()["y"] > name["y"]
    ctx.close()


def test_numbers_never_break_mid_token(browser: Any, server: Any) -> None:
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url)
    _ready(page)
    heights = page.eval_on_selector_all("#rankings tbody td.c-stars, #rankings tbody td.c-answered, #rankings tbody td.c-median",
                                        "tds => tds.map(t => { const r = document.createRange(); r.selectNodeContents(t); return r.getBoundingClientRect().height; })")
    line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#rankings tbody td.c-stars')).lineHeight)")
    # The text itself, not the cell (a long name elsewhere makes the whole row taller): one line each.
    assert heights and max(heights) < 1.5 * line
    ctx.close()


def test_the_view_lives_in_the_address(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    _, report = published
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url + "#goal=bogus&sort=nonsense&page=-3&ecosystem=%3Cscript%3E")
    _ready(page)
    assert page.input_value("#profile") == "default" and page.input_value("#ecosystem") == ""
    assert "undefined" not in page.inner_text("#rankings") and "NaN" not in page.inner_text("#rankings")
    assert page.evaluate("location.hash") == "#goal=default"
    page.select_option("#profile", "career")
    eco = page.eval_on_selector("#ecosystem", "s => s.options[1].value")
    page.select_option("#ecosystem", eco)
    page.locator("#rankings thead th[data-key='stars'] button").click()
    page.fill("#search", "a")
    hash_ = until(page, "location.hash.includes('q=a') && location.hash")  # the view moves once the index has come
    assert "goal=career" in hash_ and "sort=stars" in hash_ and "q=a" in hash_
    page.reload()
    _ready(page)
    assert (page.input_value("#profile"), page.input_value("#ecosystem"), page.input_value("#search")) == ("career", eco, "a")
    assert page.locator("#rankings thead th[data-key='stars']").get_attribute("aria-sort") == "descending"
    page.go_back()  # before the sort
    until(page, "document.querySelector(\"#rankings thead th[data-key='stars']\").getAttribute('aria-sort') === 'none'")
    page.go_back()  # before the ecosystem
    until(page, "document.querySelector('#ecosystem').value === ''")
    assert page.input_value("#profile") == "career"
    page.goto(server.url + "#goal=default")
    until(page, "document.querySelector('#profile').value === 'default'")  # an edited address is shown
    ctx.close()


def test_back_to_the_bare_address_shows_the_page_as_served(browser: Any, server: Any) -> None:
    """Home, goal Career, ecosystem, Back, Back: the address is the bare home page again, and so is
    the table and the menu; Forward shows Career again, table and menu alike."""
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url)
    _ready(page)
    served = page.inner_text("#rankings caption")
    assert served.startswith("Default ranking")
    page.select_option("#profile", "career")
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('Career ranking')")
    eco = page.eval_on_selector("#ecosystem", "s => s.options[1].value")
    page.select_option("#ecosystem", eco)
    until(page, f"document.querySelector('#rankings caption').textContent.includes({json.dumps(eco)})")
    page.go_back()
    until(page, "document.querySelector('#ecosystem').value === ''")
    page.go_back()
    until(page, "location.hash === '' && document.querySelector('#rankings caption').textContent.startsWith('Default ranking')")
    assert page.input_value("#profile") == "default" and page.inner_text("#rankings caption") == served
    page.go_forward()
    until(page, "document.querySelector('#rankings caption').textContent.startsWith('Career ranking')")
    assert page.input_value("#profile") == "career"
    ctx.close()


def test_a_redrawn_ranking_words_every_figure_as_served(browser: Any, server: Any, published: tuple[Path, dict[str, Any]]) -> None:
    """Every ranked project's row, served and then redrawn from the data files, says the same."""
    site, _ = published
    ctx, page, _ = _ctx(browser, 1280, js=False)
    cells = "rs => rs.map(r => Array.from(r.querySelectorAll('td')).map(td => td.textContent.trim()))"
    served: list[list[str]] = []
    for f in [site / "index.html", *sorted((site / "rankings" / "default" / "all").glob("page-*.html"))]:
        page.goto(server.url + str(f.relative_to(site)))
        served += page.eval_on_selector_all("#rankings tbody tr", cells)
    ctx.close()
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url + "#goal=default&sort=repo&dir=asc")  # redrawn from the parts, in another order
    _ready(page)
    until(page, "location.hash.includes('sort=repo')")
    redrawn: list[list[str]] = []
    while True:
        redrawn += page.eval_on_selector_all("#rankings tbody tr", cells)
        nxt = page.locator("nav.pager button", has_text="next")
        if nxt.count() == 0 or nxt.is_disabled():
            break
        before = page.inner_text("#rankings caption")
        nxt.click()
        until(page, f"document.querySelector('#rankings caption').textContent !== {json.dumps(before)}")
    key = lambda r: r[1]  # noqa: E731  (the project cell)
    assert len(served) == len(redrawn) > 50
    assert sorted(served, key=key) == sorted(redrawn, key=key)
    ctx.close()


def test_paging_moves_focus_and_announces_the_count(browser: Any, server: Any) -> None:
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(server.url)
    _ready(page)
    assert page.get_attribute("#count", "aria-live") == "polite" and "ranked projects" in page.inner_text("#count")
    first = page.locator("#rankings tbody tr td.c-project a").first.inner_text()
    page.click("nav.pager >> text=next")
    until(page, "location.hash.includes('page=2')")
    # The address moves at the click; the table (and the focus) once the rankings index has come.
    until(page, "document.activeElement.tagName === 'CAPTION'")
    assert page.evaluate("document.querySelector('#rankings').getBoundingClientRect().top") < 200
    assert page.locator("#rankings tbody tr td.c-project a").first.inner_text() != first
    assert "page 2" in page.inner_text("#count")
    ctx.close()


def _luminance(rgb: tuple[int, int, int]) -> float:
    def chan(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (chan(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("width", [390, 1280])
def test_axe_finds_no_serious_violations_on_any_page_type(browser: Any, server: Any, published: tuple[Path, dict[str, Any]],
                                                          width: int) -> None:
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `make test` installs it (npm install --prefix .cache/npm axe-core@4.11.0)")
    site, report = published
    status = {p["repo"]: p["status"] for p in report["projects"]}
    kinds = {s: next(r for r, st in status.items() if st == s) for s in ("ranked", "black_hole", "undecided", "no_license")}
    projects = [str(next((site / "projects").rglob(f"{r.split('/')[1]}.html")).relative_to(site)) for r in kinds.values()]
    # The page's own CSP forbids inline scripts, axe's included: this context alone may bypass it.
    ctx = browser.new_context(viewport={"width": width, "height": 900}, bypass_csp=True)
    page = ctx.new_page()
    found: dict[str, list[str]] = {}
    history = str(next(iter(sorted((site / "history").rglob("*.html")))).relative_to(site))
    for rel in [*PAGES, "not-ranked/black_hole.html", "data.html", *projects, history]:
        page.goto(server.url + rel)
        if rel in ("index.html", "start.html"):
            _ready(page)
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})")
        bad = [f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}" for v in result["violations"] if v["impact"] in ("serious", "critical")]
        # Colours are set explicitly, so axe can decide every contrast: none is left "incomplete".
        bad += [f"{v['id']} undecided: {v['nodes'][0]['target']}" for v in result["incomplete"] if v["id"] == "color-contrast"]
        if bad:
            found[rel] = bad
    assert found == {}
    ctx.close()


def test_accessible_pages(browser: Any, server: Any) -> None:
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(f"{server.url}method.html")
    colours = page.eval_on_selector_all("#legend ~ dl .tier", "ts => ts.map(t => [t.textContent, getComputedStyle(t).backgroundColor, getComputedStyle(t).color])")
    for tier, bg, fg in colours:
        b, f = (tuple(int(x) for x in re.findall(r"\d+", c)[:3]) for c in (bg, fg))
        lighter, darker = sorted((_luminance(b), _luminance(f)), reverse=True)  # type: ignore[arg-type]
        assert (lighter + 0.05) / (darker + 0.05) >= 4.5, tier
    for rel in ("report.html", "not-ranked.html"):
        page.goto(server.url + rel)
        assert page.locator("main h2").count() >= 2
    assert page.locator("a.skip[href='#main']").count() == 1
    icon = page.get_attribute("link[rel='icon']", "href")
    assert page.request.get(server.url + icon.lstrip("./").replace("../", "")).status == 200
    ctx.close()


def test_where_to_start_lists_open_issues_only_in_projects_that_answer(browser: Any, server: Any,
                                                                       published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    status = {p["repo"]: p["status"] for p in report["projects"]}
    borderline = {p["repo"]: p.get("borderline", False) for p in report["projects"]}
    ctx, page, errors = _ctx(browser, 1280)
    page.goto(f"{server.url}start.html")
    _ready(page)
    rows = page.eval_on_selector_all("#start tbody tr", "rs => rs.map(r => [r.querySelector('td.c-project a').textContent, "
                                     "r.dataset.lang, r.querySelector('td.c-date').textContent, r.querySelector('td.c-answered').textContent])")
    assert len(rows) >= 20
    as_of = report["as_of"]
    for repo, _, opened, answered in rows:
        assert status[repo] == "ranked"  # never a black hole, an undecided or an unrated project
        assert opened >= f"{int(as_of[:4]) - 1}{as_of[4:]}" and re.fullmatch(r"\d+ of \d+", answered)
        got, of = map(int, answered.split(" of "))
        assert 2 * got > of and not borderline[repo]  # projects that answer most outside PRs
    # The issues are the project's own open, unassigned ones, newest first.
    repo = rows[0][0]
    project = json.loads(next((site / "data" / "v1" / "projects").glob(f"*/{repo.split('/')[1]}.json")).read_text())
    listed = [i["number"] for i in project["components"]["accessibility"]["inputs"]["good_first_issues"]]
    links = page.eval_on_selector_all(f"#start tbody tr:has(a:text-is('{repo}')) td.c-issue a", "as => as.map(a => a.href)")
    assert links and all(int(h.rsplit("/", 1)[1]) in listed and f"github.com/{repo}/issues/" in h for h in links)
    # Old ones are left out: some ranked project's open issue is older than a year and not listed.
    shown = set(page.eval_on_selector_all("#start td.c-issue a", "as => as.map(a => a.href)"))
    old = [(p.parent.name, p.stem, i) for p in (site / "data" / "v1" / "projects").rglob("*.json")
           for i in (json.loads(p.read_text())["components"].get("accessibility") or {}).get("inputs", {}).get("good_first_issues", [])
           if i["created"] and i["created"] < f"{int(as_of[:4]) - 1}{as_of[4:]}"]
    assert old and not any(f"/issues/{i['number']}" in h and f"/{name}/" in h for _, name, i in old for h in shown)
    # Filter by language: only that language's rows stay, the count says so, the address keeps it.
    lang = next(r[1] for r in rows if r[1])
    page.select_option("#start-lang", lang)
    visible = page.eval_on_selector_all("#start tbody tr:not([hidden])", "rs => rs.map(r => r.dataset.lang)")
    assert visible and set(visible) == {lang}
    assert page.inner_text("#start-count") == f"{len(visible)} issue{'s' if len(visible) != 1 else ''}."
    assert "language=" in page.url
    page.reload()
    _ready(page)
    assert page.eval_on_selector("#start-lang", "s => s.value") == lang
    page.go_back()
    _ready(page)
    assert page.eval_on_selector("#start-lang", "s => s.value") == ""
    # Without JavaScript: one page per ecosystem.
    eco = page.eval_on_selector("#start tbody tr", "r => r.dataset.eco")
    nojs, p2, _ = _ctx(browser, 1280, js=False)
    p2.goto(f"{server.url}start.html")
    follow(p2, p2.get_by_role("navigation", name="Ecosystem").get_by_role("link", name=eco, exact=True))
    ecos = p2.eval_on_selector_all("#start tbody tr", "rs => rs.map(r => r.dataset.eco)")
    assert ecos and set(ecos) == {eco}
    assert errors == []
    nojs.close()
    ctx.close()


def test_what_changed_lists_the_planted_changes(browser: Any, server: Any, planted_changes: dict[str, str],
                                                 published: tuple[Path, dict[str, Any]]) -> None:
    site, _ = published
    changes = json.loads((site / "data" / "v1" / "changes.json").read_text())
    by_repo = {c["repo"]: c for c in changes["changes"]}
    for repo, kind in planted_changes.items():
        assert by_repo[repo]["kind"] == kind, repo
    assert changes["counts"] == {"new_black_hole": 1, "recovered": 1, "became_undecided": 1, "newly_ranked": 0, "no_longer_ranked": 1,
                                 "moved": 2}
    ctx, page, _ = _ctx(browser, 1280)
    page.goto(f"{server.url}changes.html")
    for kind in ("new_black_hole", "recovered", "became_undecided", "no_longer_ranked", "moved"):
        items = page.eval_on_selector_all(f"h2#{kind} + ul li", "ls => ls.map(l => l.textContent)")
        assert sorted(i.split(":")[0] for i in items) == sorted(r for r, k in planted_changes.items() if k == kind)
    hole = next(r for r, k in planted_changes.items() if k == "new_black_hole")
    follow(page, page.get_by_role("link", name=hole, exact=True))
    assert "became a black hole (was ranked)" in page.inner_text("p.change")
    ctx.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_the_home_page_explains_score_tier_and_capped_above_the_table(browser: Any, server: Any, width: int) -> None:
    """Before the first row, not after fifty: one tap (or click) opens what the columns mean."""
    ctx, page, _ = _ctx(browser, width)
    page.goto(server.url)
    _ready(page)
    key = page.locator("details.key")
    assert key.bounding_box()["y"] < page.locator("#rankings tbody tr").first.bounding_box()["y"]
    key.locator("summary").click()
    assert key.evaluate("d => d.open")
    text = key.inner_text()
    assert all(w in text for w in ("Score", "0 to 100", "A: a score of 80 or more", "B (capped)", "within 14 days", "30 days", "steady"))
    ctx.close()


def test_no_verdict_says_its_counts_twice(published: tuple[Path, dict[str, Any]]) -> None:
    """The verdict's reason often carries the counts ("18 of 88 answered within 14 days; ..."): the
    line under it then gives only the response times, not the same counts again."""
    site, _ = published
    pages = twice = 0
    for f in (site / "projects").rglob("*.html"):
        verdict = re.search(r'<section aria-labelledby="verdict">(.*?)</section>', f.read_text(encoding="utf-8"), re.S)
        counts = re.findall(r"\d+ of \d+ answered within 14 days[^<.]*", verdict.group(1)) if verdict else []
        pages += bool(counts)
        twice += len(counts) != len(set(counts))
    assert pages > 100 and twice == 0


def test_a_goal_says_what_it_counts_for_more_from_its_weights() -> None:
    from porchlamp.config import DEFAULT_PROFILES as P
    from porchlamp.publish.words import goal_words
    assert goal_words(P["career"], P["default"]) == "counts “Widely known” and “Others depend on it” for more"
    assert goal_words(P["first-contribution"], P["default"]) == "counts “Welcomes newcomers” for more"
    assert goal_words(P["default"], P["default"]) == "the same balance as the default"
    assert goal_words({"a": 1, "b": 2, "c": 3}, {}) == "counts “c”, “b” and “a” for more"


def test_a_ranking_row_marks_how_its_answered_share_moved_in_30_days(browser: Any, server: Any, planted_changes: dict[str, str],
                                                                    published: tuple[Path, dict[str, Any]]) -> None:
    """The planted top project answered a fifth fewer a week before: its row says "▲ up" by the points
    its answered share gained; the others, unchanged since, are steady."""
    site, _ = published
    rankings = json.loads((site / "data" / "v1" / "rankings.json").read_text())
    col = {c: i for i, c in enumerate(rankings["columns"])}
    top = next(r for r, k in planted_changes.items() if k == "moved" and any(row[col["repo"]] == r for row in rankings["rows"]))
    row = next(row for row in rankings["rows"] if row[col["repo"]] == top)
    n, answered = row[col["outside_prs"]], row[col["answered"]]
    gained = round(100 * (answered - max(0, answered - n // 5)) / n)
    ctx, page, _ = _ctx(browser, 1280, js=False)
    page.goto(server.url)
    marks = dict(zip(page.locator("#rankings tbody td.c-project a").all_inner_texts(),
                     page.locator("#rankings tbody td.c-trend").all_inner_texts()))
    assert marks[top] == (f"▲ up {gained}" if gained >= 5 else "steady") and row[col["trend_words"]] == marks[top]
    assert gained >= 5  # a fifth of its PRs: about 20 points
    others = [m for r, m in marks.items() if r != top]
    assert others and set(others) == {"steady"}
    ctx.close()
