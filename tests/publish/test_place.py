"""A project's place written into its previous page and record is what writing them whole gives,
whatever its description says (a description is GitHub's, and may imitate the page's own text)."""

from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porchlamp.config import Settings
from porchlamp.publish import api, load_site_data
from porchlamp.publish.changes import Change
from porchlamp.publish.data import Project, SiteData
from porchlamp.publish.place import place_parts, splice_page, splice_record
from porchlamp.publish.site import _project_common, _Writer, environment, project_context, project_href
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

WAS, NOW = date(2026, 10, 15), date(2026, 10, 16)
# What a forged description would need to fool a splice that searched for text instead of tags.
IMITATIONS = ["<!--place-->", "<!--/place-->", f"This page as of the snapshot of {WAS};", f" · Porchlamp {WAS}</title>",
              f"<footer><p>Porchlamp snapshot {WAS} ·", f'<p class="tagline">This page as of the snapshot of {WAS};</p>']


@pytest.fixture(scope="module")
def ranked(store300: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[SiteData, Project]:
    db = tmp_path_factory.mktemp("place") / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        evaluate_store(s, None, Settings())
        site = load_site_data(s)
    wanted = next(p.repo for p in site.projects if p.status == "ranked" and p.row["outside_prs"])
    return site, next(site.detailed(only=[wanted]))


def _moved(p: Project, by: int) -> Project:
    """The same project a day later, placed `by` ranks lower in every goal, with a move to say so."""
    goals = {name: {**g, "rank": g["rank"] + by, "delta": (g["delta"] or 0) - by,
                    "explain": [{"component": "responsiveness", "points": -1.5}]} for name, g in p.profiles.items()}
    rank = p.profiles["default"]["rank"]
    return replace(p, profiles=goals, change=Change(p.repo, "moved", "ranked", "ranked", rank, rank + by))


def _page(site: SiteData, p: Project, as_of: date, previous: date | None) -> str:
    w = _Writer(Path("."), environment(), _project_common(site))
    return w.render(project_href(p), "project.html", **project_context(p, as_of, previous, "https://example.org/issues", ""))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(description=st.one_of(st.sampled_from(IMITATIONS), st.lists(st.sampled_from(IMITATIONS + ["x", " ", "&"]), max_size=6).map("".join),
                             st.text(max_size=80)),
       by=st.integers(min_value=1, max_value=500))
def test_a_spliced_page_is_the_page_written_whole(ranked: tuple[SiteData, Project], description: str, by: int) -> None:
    site, p = ranked
    p = replace(p, row={**p.row, "description": description})
    later = _moved(p, by)
    previous = NOW - timedelta(days=1)
    old = _page(site, p, WAS, None)
    parts = place_parts(environment(), later, _project_common(site), previous)
    # Equal to the page written whole: its description was left as written, not taken for the page's own text.
    assert splice_page(old, parts, WAS, NOW) == _page(site, later, NOW, previous)


def test_a_page_without_the_templates_markers_is_written_whole(ranked: tuple[SiteData, Project]) -> None:
    site, p = ranked
    old = _page(site, p, WAS, None)
    parts = place_parts(environment(), p, _project_common(site), None)
    assert splice_page(old.replace("<!--/place-->", "", 1), parts, WAS, NOW) is None
    assert splice_page(old, parts[:2], WAS, NOW) is None  # a marker more than the template writes
    assert splice_page(old, parts, date(2026, 1, 1), NOW) is None  # not the date its manifest said


def test_a_spliced_record_is_the_record_written_whole(ranked: tuple[SiteData, Project]) -> None:
    site, p = ranked
    later = _moved(p, 3)
    old = api.json_text(api.project_json(p, site, WAS))
    record: dict[str, Any] = api.project_json(later, site, NOW)
    assert record["profiles"] != api.project_json(p, site, WAS)["profiles"]
    assert splice_record(old, later, site, NOW) == api.json_text(record)
