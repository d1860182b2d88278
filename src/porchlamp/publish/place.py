"""A project's place among the others (its ranks, their moves, what moves them, its change since the
previous snapshot) written into its page and record of the previous site, when nothing else of it changed.

Ranks move when other projects' scores do, so on a day when the window only moves most ranked
projects' own rows hold and only their place differs. Their page is the previous one with the place
markers' contents and the page's date rendered again (the same macros a full page calls, so the bytes
are a full write's), their record the previous one with its place keys set again, their badges linked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from jinja2 import Environment

from porchlamp.publish import api
from porchlamp.publish.data import Project, SiteData, project_files
from porchlamp.publish.reuse import link_files

OPEN, CLOSE = "<!--place-->", "<!--/place-->"


def place_parts(env: Environment, p: Project, common: dict[str, Any], previous: date | None) -> list[str]:
    """What project.html writes between its place markers, markers included, in page order."""
    macros = env.get_template("project_place.html").module
    return [str(macros.verdict(p)),  # type: ignore[attr-defined]
            str(macros.change(p, previous if p.change else None)),  # type: ignore[attr-defined]
            str(macros.goals(p, common["profiles"], common["profile_labels"], common["settings"]))]  # type: ignore[attr-defined]


def splice_page(old: str, parts: list[str], was: date, now: date) -> str | None:
    """The page `old` (dated `was`) with its place markers' contents replaced by `parts` and dated
    `now`; None if its markers are not the template's (then it is written whole). Every value from
    GitHub is escaped in a page, so `<` is only ever the template's: a marker, `</title>`, `<footer>`
    and the tagline's `<p>` cannot be forged by a description or a title."""
    out, at = [], 0
    for part in parts:
        start = old.find(OPEN, at)
        end = old.find(CLOSE, start + len(OPEN)) if start >= 0 else -1
        if end < 0:
            return None
        out += [old[at:start], part]
        at = end + len(CLOSE)
    if old.find(OPEN, at) >= 0:
        return None
    page = "".join(out) + old[at:]
    return _redate(page, was, now)


def _redate(page: str, was: date, now: date) -> str | None:
    """The three places base.html prints a page's date, each found by the template's own tags."""
    old, new = was.isoformat(), now.isoformat()
    title = page.find("</title>")
    head = f" · Porchlamp {old}"
    if title < 0 or page[title - len(head):title] != head:
        return None
    page = page[:title - len(head)] + f" · Porchlamp {new}" + page[title:]
    line = page.find('<p class="tagline">')
    stop = page.find("</p>", line)
    dated = f"This page as of the snapshot of {old};"
    if line < 0 or stop < 0 or page.find(dated, line, stop) < 0:
        return None
    page = page[:line] + page[line:stop].replace(dated, f"This page as of the snapshot of {new};", 1) + page[stop:]
    foot = f"<footer><p>Porchlamp snapshot {old} ·"
    last = page.rfind(foot)
    if last < 0:
        return None
    return page[:last] + f"<footer><p>Porchlamp snapshot {new} ·" + page[last + len(foot):]


def splice_record(old: str, p: Project, site: SiteData, now: date) -> str:
    """A project's previous record with its date and place keys set again (its other keys keep their
    order and values, so the text is what `api.project_json` writes)."""
    record: dict[str, Any] = json.loads(old)
    record["as_of"] = now.isoformat()
    record["profiles"] = api.profiles_json(p)
    record["change"] = api.change_json(p, site)
    return api.json_text(record)


def write_placed(env: Environment, common: dict[str, Any], site: SiteData, previous_dir: Path, out: Path,
                 was: dict[str, date], before: Callable[[], None] | None = None) -> tuple[list[str], dict[str, int]]:
    """Each project of `was` (its previous site's date) given its new place from the previous site's
    files, written under `out` (`before` called before each); returns the projects whose previous
    page was not the template's, or of which a file was gone, for the caller to write whole, and the
    bytes of the others' files."""
    whole = []
    sizes: dict[str, int] = {}
    made: set[Path] = set()  # folders made, across projects
    previous = site.changes.previous if site.changes else None
    for p in site.placed(was):
        if before:
            before()
        files = project_files(p.repo)
        try:
            page = splice_page((previous_dir / files.page).read_text(encoding="utf-8"), place_parts(env, p, common, previous),
                               was[p.repo], site.as_of)
            if page is not None:
                record = splice_record((previous_dir / files.record).read_text(encoding="utf-8"), p, site, site.as_of)
                linked = sum(os.stat(previous_dir / rel).st_size for rel in (files.shields, files.badge))
        except FileNotFoundError:  # gone since the previous site's manifest was written: the plan did not ask the disk
            page = None
        if page is None:
            whole.append(p.repo)
            continue
        sizes[p.repo] = api.write_text(out / files.page, page) + api.write_text(out / files.record, record) + linked
        if link_files(previous_dir, out, (files.shields, files.badge), made):
            whole.append(p.repo)
            del sizes[p.repo]
    return whole, sizes
