"""Atom feeds (RFC 4287) of what changed that a contributor would want told: new black holes,
recoveries, projects that became undecided; one for the whole site and one per ecosystem.

An entry's id is derived from the snapshot, the project and the kind of change, so a reader that
fetches the feed again never sees one change twice; the feed holds the latest snapshot's changes.
"""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from datetime import date

from porchlamp.publish.changes import KIND_TITLES, Change, Changes
from porchlamp.publish.words import xml_text

ATOM = "http://www.w3.org/2005/Atom"
FEED_KINDS = ("new_black_hole", "recovered", "became_undecided")
# Ids are absolute IRIs (RFC 4287 §4.2.6) that never change for the same change of the same snapshot.
_IDS = uuid.UUID("6f0c1c52-3d1e-5b7e-9a51-2f5a0d9c8e41")


def _id(*parts: str) -> str:
    return f"urn:uuid:{uuid.uuid5(_IDS, chr(31).join(parts))}"


def _stamp(day: date) -> str:
    return f"{day.isoformat()}T00:00:00Z"  # RFC 3339 date-time, as §3.3 asks


def atom_feed(changes: Changes, href: Callable[[str], str], self_href: str, site_href: str, ecosystem: str | None = None,
              of: Iterable[Change] | None = None) -> bytes:
    """The feed's XML. `href(repo)` is a project page's address, `self_href` this feed's and `site_href`
    the What changed page's: absolute when the site's address is known, else relative to the feed
    (§4.2.7.1 allows IRI references). `of` narrows the changes (an ecosystem's)."""
    ET.register_namespace("", ATOM)
    q = lambda tag: f"{{{ATOM}}}{tag}"  # noqa: E731
    feed = ET.Element(q("feed"))
    scope = f", {ecosystem} projects" if ecosystem else ""
    ET.SubElement(feed, q("title")).text = xml_text(f"Porchlamp: what changed{scope}")
    ET.SubElement(feed, q("subtitle")).text = ("Projects that became black holes, recovered, or now review elsewhere, "
                                               "snapshot by snapshot.")
    ET.SubElement(feed, q("id")).text = _id("feed", ecosystem or "")
    ET.SubElement(feed, q("updated")).text = _stamp(changes.as_of)
    ET.SubElement(ET.SubElement(feed, q("author")), q("name")).text = "Porchlamp"
    ET.SubElement(feed, q("link"), rel="self", type="application/atom+xml", href=self_href)
    ET.SubElement(feed, q("link"), rel="alternate", type="text/html", href=site_href)
    items = [c for c in (changes.items if of is None else of) if c.kind in FEED_KINDS]
    for c in items:
        entry = ET.SubElement(feed, q("entry"))
        ET.SubElement(entry, q("title")).text = xml_text(f"{c.repo} {c.words}")
        ET.SubElement(entry, q("id")).text = _id(changes.as_of.isoformat(), c.repo, c.kind)
        ET.SubElement(entry, q("updated")).text = _stamp(changes.as_of)
        ET.SubElement(entry, q("link"), rel="alternate", type="text/html", href=href(c.repo))
        ET.SubElement(entry, q("category"), term=c.kind, label=KIND_TITLES[c.kind])
        ET.SubElement(entry, q("summary")).text = xml_text(
            f"In the snapshot of {changes.as_of}, {c.repo} {c.words}"
            + (f", against the snapshot of {changes.previous}." if changes.previous else "."))
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="utf-8", xml_declaration=False)
