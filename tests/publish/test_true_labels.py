"""Labels that are true on every page of a published 300-project site: a ranked project never says it
was not judged, a project that is not ranked shows no tier or score, undecided pages name where
review happens once and call their quotes a sample, the report's times count judged PRs, and every
folder the data page links has something to show."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sitetext import text_runs

from porchlamp.publish.site import repo_href


def _page(site: Path, repo: str) -> str:
    return " | ".join(text_runs((site / repo_href(repo)).read_text(encoding="utf-8")))


def test_ranked_projects_never_say_not_judged_and_others_show_no_score(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    by_status: dict[str, int] = {}
    for p in report["projects"]:
        text = _page(site, p["repo"])
        by_status[p["status"]] = by_status.get(p["status"], 0) + 1
        if p["status"] == "ranked":
            assert "not judged" not in text.split("Pull requests opened here")[0], p["repo"]
            assert re.search(r"score [\d.]+, rank \d+", text), p["repo"]
            assert "| Component | Score | What it measured |" in text, p["repo"]
        else:
            assert not re.search(r"\| (A|B|C|D|B \(capped\)) \| ", text), p["repo"]  # no tier cell
            assert "Score, tier and rank for each goal" not in text, p["repo"]
            assert "Each component, 0 to 100" not in text and "| Component | Score |" not in text, p["repo"]
            if p["status"] == "unrated":
                assert "Not scored, in any goal: Unrated" in text, p["repo"]
    assert by_status["ranked"] > 80 and by_status["unrated"] > 5


def test_few_pr_projects_say_what_they_are(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    few = [p for p in report["projects"] if p["status"] == "ranked" and p["kind"] == "few_prs"]
    assert few
    for p in few:
        assert re.search(r"few PRs: \d+ outside PRs?, fewer than the 10 a black-hole verdict needs", _page(site, p["repo"])), p["repo"]


def test_undecided_pages_name_the_place_once_and_call_quotes_a_sample(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    undecided = [p for p in report["projects"] if p["status"] == "undecided"]
    sampled = 0
    for p in undecided:
        text = _page(site, p["repo"])
        assert "(outside GitHub)" not in text and "review happens elsewhere:" not in text, p["repo"]
        where = text.split("Where review happens | ", 1)[1].split(" | ", 1)[0]
        assert where.startswith("It "), (p["repo"], where)
        place = where.split(": ", 1)[1].split(". Its", 1)[0] if ": " in where.split(". Its")[0] else None
        assert place is None or where.count(place) == 1, (p["repo"], where)
        m = re.search(r"A sample: (\d+) quotes?, from (\d+) of the (\d+) PRs? pointed elsewhere", text)
        if m:
            sampled += 1
            assert int(m.group(2)) <= int(m.group(3))
    assert len(undecided) > 10 and sampled > 5


def test_the_reports_times_count_judged_prs(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    judged = sum(p["outside_prs"] for p in report["projects"] if p["status"] in ("ranked", "unrated", "black_hole"))
    assert sum(report["time_to_first_response"].values()) == report["judged_prs"] == judged
    assert report["judged_prs"] < report["outside_prs"]  # the undecided projects' PRs are followed, not judged
    text = " ".join(text_runs((site / "report.html").read_text(encoding="utf-8")))
    assert f"over the {report['judged_prs']:,} outside PRs of the projects judged" in text


def test_every_link_on_the_data_page_opens_a_file(published: tuple[Path, dict[str, Any]]) -> None:
    site, _ = published
    links = re.findall(r'href="([^"#]+)"', (site / "data.html").read_text(encoding="utf-8"))
    local = [h for h in links if not h.startswith(("http:", "https:"))]
    assert len(local) > 10
    assert [h for h in local if not (site / h).is_file()] == []


def test_accounts_taken_for_bots_are_listed_with_why_and_what_they_wrote(published: tuple[Path, dict[str, Any]]) -> None:
    """SPEC 3: a project's page and its record list the accounts whose PRs were set aside as a bot's,
    each with its PRs, the reason and its latest PR's description, whether the account, a tool's
    template or one description posted again and again gave it away."""
    site, _ = published
    reasons: dict[str, int] = {}
    for path in sorted((site / "data" / "v1" / "projects").rglob("*.json")):
        record = json.loads(path.read_text())
        for b in record.get("bot_authors", []):
            assert b["prs"] >= 1 and b["reason"] and b["url"].endswith(f"/{b['pr']}")
            kind = ("template" if "PR template" in b["reason"] else "repeated" if b["reason"].startswith("it opened")
                    else "account")
            reasons[kind] = reasons.get(kind, 0) + 1
            if kind != "account":
                page = _page(site, record["repo"])
                assert "Accounts taken for bots" in page and b["login"] in page and b["reason"] in page
                assert " ".join(b["quote"][:40].split()) in page
    # Each way is seen on the 300-project world: Renovate under an organisation's account, and
    # service accounts that post one text of their own.
    assert reasons.get("template", 0) > 10 and reasons.get("repeated", 0) > 10 and reasons.get("account", 0) > 100, reasons
