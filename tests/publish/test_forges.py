"""Projects of two forges on one site (SPEC section 13): a GitHub repository that mirrors one of the
snapshot's GitLab projects links to that project's page and verdict, the project's page names its
mirror, and the record, the report and the search carry the link; the rankings filter by forge."""

import csv
import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from browsing import until
from publish.test_site_ux import _ctx

from porchlamp.config import Settings
from porchlamp.publish import load_site_data, publish
from porchlamp.publish.data import project_files
from porchlamp.publish.serve import SiteServer
from porchlamp.sample import generate_world, load_world, read_truth
from porchlamp.snapshot import evaluate_store, report_from_store
from porchlamp.store import Store


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], dict[str, Any]]:
    """A 60-repository world, two fifths of it on gitlab.com, loaded, judged and published."""
    tmp = tmp_path_factory.mktemp("mirrors")
    world = generate_world(tmp / "w", repos=60, seed=5150, hosts={"gitlab.com": 0.4}).path
    with Store(tmp / "s.duckdb") as s:
        load_world(world, s)
        evaluate_store(s, None, Settings())
        links = {r["repo"]: r["home"] for r in s.query("SELECT repo, home FROM mirror_links")}
        report = report_from_store(s)
        site = load_site_data(s)
    publish(site, tmp / "site")
    planted = {repo: t["review_at"] for repo, t in read_truth(world)["repos"].items() if t.get("review_at")}
    assert len(planted) == 2 and links == planted
    return tmp / "site", links, report


def _anchors(html: str, cls: str) -> list[tuple[str, str]]:
    """(href, text) of the links in the paragraphs of class `cls`."""
    return [(href, re.sub(r"<[^>]+>", "", text)) for para in re.findall(rf'<p class="{cls}"[^>]*>(.*?)</p>', html, re.S)
            for href, text in re.findall(r'<a href="([^"]+)">(.*?)</a>', para)]


def _target(site: Path, page: str, href: str) -> Path:
    return site / urljoin(page, href)


def test_a_mirror_links_to_its_projects_page_and_verdict_and_back(mixed: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    site, links, report = mixed
    by_repo = {p["repo"]: p for p in report["projects"]}
    for mirror, home in links.items():
        assert by_repo[mirror]["status"] == "undecided" and by_repo[home]["status"] == "ranked"
        assert by_repo[mirror]["review_at"] == home and by_repo[home]["review_at"] is None
        # Each verdict in its own forge's words.
        assert "outside MR" in by_repo[home]["reason"] and "outside PR" not in by_repo[home]["reason"]
        assert by_repo[mirror]["reason"].endswith("so its GitHub PRs are not judged")
        page = project_files(mirror).page
        html = (site / page).read_text()
        (href, text), = _anchors(html, "home")
        assert text == home and _target(site, page, href) == site / project_files(home).page
        record = json.loads((site / project_files(home).record).read_text())
        counts = record["outcome_counts"]
        # The project's own words and counts, as its page says them: a merge request on GitLab.
        assert (f"it answered {counts['answered']} of {counts['outside_prs']} outside merge request"
                f"{'' if counts['outside_prs'] == 1 else 's'} within 14 days") in html
        back = (site / project_files(home).page).read_text()
        # A GitLab project's page speaks of merge requests, its GitHub mirror's of pull requests.
        assert re.search(r"<caption[^>]*>\d+ outside MRs in the window</caption>", back)
        assert re.search(r"<caption[^>]*>\d+ outside PRs in the window</caption>", html)
        assert [(str(_target(site, project_files(home).page, h)), t) for h, t in _anchors(back, "mirrors")] == \
            [(str(site / page), mirror)]
        assert record["mirrors"] == [mirror] and json.loads((site / project_files(mirror).record).read_text())["review_at"] == home
    # A GitLab project that reviews elsewhere says its merge requests are not judged.
    elsewhere = [p["repo"] for p in report["projects"] if p["status"] == "undecided" and p["repo"].startswith("gitlab.com/")]
    assert elsewhere
    for repo in elsewhere:
        page = (site / project_files(repo).page).read_text()
        assert "Its merge requests on gitlab.com are not judged" in page and "so its GitLab MRs are not judged" in page
    # The dataset's table says the same: each project's forge, and where a mirror's review happens.
    with open(site / "data" / "v1" / "snapshot.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["repo"]: r["review_at"] for r in rows if r["review_at"]} == links
    assert all(r["forge"] == ("gitlab" if r["repo"].startswith("gitlab.com/") else "github") for r in rows)
    # Nothing else points anywhere.
    pages = list((site / "projects").rglob("*.html"))
    assert sum('<p class="home" ' in p.read_text() for p in pages) == len(links)
    assert sum('<p class="mirrors" ' in p.read_text() for p in pages) == len(set(links.values()))


def test_the_search_says_where_a_mirrors_review_happens(browser: Any, mixed: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    site, links, _ = mixed
    search = json.loads((site / "data/v1/search.json").read_text())
    col = {c: i for i, c in enumerate(search["columns"])}
    assert {r[col["repo"]]: r[col["review_at"]] for r in search["rows"] if r[col["review_at"]]} == links
    mirror, home = sorted(links.items())[0]
    with SiteServer(site, port=0) as server:
        ctx, page, errors = _ctx(browser, 1280)
        page.goto(server.url + "index.html")
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        page.fill("#search", mirror.split("/")[1])
        item = page.locator("#also-list li", has_text=mirror)
        item.wait_for(timeout=15_000)
        assert "review happens at " + home in item.inner_text()
        item.get_by_role("link", name=home, exact=True).click()
        page.wait_for_load_state()
        assert page.url == server.url + project_files(home).page and page.locator("h1.repo").inner_text() == home
        assert errors == []
        ctx.close()


def test_the_rankings_filter_by_forge(browser: Any, mixed: tuple[Path, dict[str, str], dict[str, Any]],
                                      published: tuple[Path, dict[str, Any]]) -> None:
    site, _, report = mixed
    on_gitlab = sorted(p["repo"] for p in report["projects"] if p["status"] == "ranked" and p["repo"].startswith("gitlab.com/"))
    ranked = sum(1 for p in report["projects"] if p["status"] == "ranked")
    assert 0 < len(on_gitlab) < ranked
    # A site whose ranked projects all live on GitHub has no forge menu.
    assert 'id="forge"' not in (published[0] / "index.html").read_text() and 'id="forge"' in (site / "index.html").read_text()
    with SiteServer(site, port=0) as server:
        ctx, page, errors = _ctx(browser, 1280)
        page.goto(server.url + "index.html")
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        page.select_option("#forge", "gitlab")
        until(page, f"document.querySelector('#rankings caption').textContent.includes(', on GitLab: {len(on_gitlab)} ')")
        shown = sorted(page.locator("#rankings tbody td.c-project a").all_inner_texts())
        assert shown == on_gitlab and "forge=gitlab" in page.url
        assert page.inner_text("#count").startswith(f"{len(on_gitlab)} ranked project")
        page.reload()  # the view lives in the address
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        until(page, "document.querySelector('#rankings caption').textContent.includes('on GitLab')")
        assert page.input_value("#forge") == "gitlab"
        assert sorted(page.locator("#rankings tbody td.c-project a").all_inner_texts()) == on_gitlab
        page.select_option("#forge", "")
        until(page, f"document.querySelector('#rankings caption').textContent.includes(': {ranked} project')")
        assert errors == []
        ctx.close()


def test_the_report_counts_each_forges_funnel(mixed: tuple[Path, dict[str, str], dict[str, Any]],
                                              published: tuple[Path, dict[str, Any]]) -> None:
    site, _, report = mixed
    by = report["funnel_by_forge"]
    assert list(by) == ["github", "gitlab"]
    assert {s: sum(f[s] for f in by.values()) for s in report["funnel"]} == report["funnel"]
    assert sum(by["gitlab"].values()) == sum(1 for p in report["projects"] if p["repo"].startswith("gitlab.com/")) > 0
    table = re.search(r'<table class="by-forge">(.*?)</table>', (site / "report.html").read_text(), re.S)
    assert table is not None
    heads = re.findall(r'<th scope="col" class="num">(.*?)</th>', table.group(1))
    ranked = re.search(r'<th scope="row">Ranked</th>(.*?)</tr>', table.group(1))
    assert heads == ["GitHub", "GitLab"] and ranked is not None
    assert re.findall(r">([\d,]+)<", ranked.group(1)) == [f"{by['github']['ranked']:,}", f"{by['gitlab']['ranked']:,}"]
    # One forge's funnel is the funnel: no table of it.
    assert 'class="by-forge"' not in (published[0] / "report.html").read_text()


def test_the_a_to_z_files_a_project_by_its_own_name_not_its_hosts(mixed: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    """gitlab.com/kit/x is under K, in the order of kit/x, and every project is on one letter's pages."""
    site, _, report = mixed
    found: dict[str, str] = {}
    for page in sorted((site / "all").rglob("*.html")):
        letter = page.stem if page.parent == site / "all" else page.parent.name
        names = re.findall(r'<tr><td class="c-project"><a href="[^"]*">([^<]+)</a></td>', page.read_text())
        found.update({html.unescape(n): letter for n in names})
    assert sorted(found) == sorted(p["repo"] for p in report["projects"])
    elsewhere = [repo for repo in found if repo.startswith("gitlab.com/")]
    assert len(elsewhere) >= 10
    for repo, letter in found.items():
        first = repo.removeprefix("gitlab.com/")[0].lower()
        assert letter == (first if "a" <= first <= "z" else "0-9" if first.isdigit() else "other"), repo
    k = [n for n in found if found[n] == "k"]
    one_page = re.findall(r'<tr><td class="c-project"><a href="[^"]*">([^<]+)</a></td>', (site / "all" / "k.html").read_text())
    assert [html.unescape(n) for n in one_page] == sorted((n for n in k if n in map(html.unescape, one_page)),
                                                          key=lambda n: (n.removeprefix("gitlab.com/").lower(), n.lower()))
