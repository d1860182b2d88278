"""The What changed feeds against RFC 4287 (Atom): every MUST of a feed and its entries checked on
hand-built changes and on the published site, whose earlier snapshot plants one change of each kind."""

import re
import xml.etree.ElementTree as ET
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from hypothesis import given, settings
from hypothesis import strategies as st

from porchlamp.publish.changes import Changes, compare
from porchlamp.publish.feed import ATOM, FEED_KINDS, atom_feed

A = f"{{{ATOM}}}"
# RFC 3339 §5.6 date-time, as RFC 4287 §3.3 requires (an uppercase T and Z).
DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+$")  # RFC 3987: a scheme, then no whitespace


def _one(el: ET.Element, tag: str, where: str) -> ET.Element:
    found = el.findall(A + tag)
    assert len(found) == 1, f"{where} must hold exactly one atom:{tag}, holds {len(found)}"
    return found[0]


def _text_construct(el: ET.Element) -> None:  # §3.1: type is text, html or xhtml; text holds no child elements
    assert el.get("type", "text") in ("text", "html", "xhtml")
    if el.get("type", "text") == "text":
        assert len(el) == 0


def _links(el: ET.Element, where: str) -> list[ET.Element]:
    links = el.findall(A + "link")
    for link in links:
        assert link.get("href"), f"{where}: atom:link must have an href (§4.2.7.1)"
    alternates = [(link.get("type"), link.get("hreflang")) for link in links if link.get("rel", "alternate") == "alternate"]
    assert len(alternates) == len(set(alternates)), f"{where}: one alternate link per type and hreflang (§4.1.1)"
    return links


def check_atom(xml: bytes) -> ET.Element:
    """Raises on anything RFC 4287 forbids of a feed document (sections 3 and 4)."""
    feed = ET.fromstring(xml)  # well-formed XML, or this raises
    assert xml.startswith(b'<?xml version="1.0" encoding="utf-8"?>')
    assert feed.tag == A + "feed"
    for tag in ("title", "subtitle", "rights"):
        for el in feed.findall(A + tag):
            _text_construct(el)
    _text_construct(_one(feed, "title", "atom:feed"))
    assert ABSOLUTE_IRI.match(_one(feed, "id", "atom:feed").text or "")
    assert DATE_TIME.match(_one(feed, "updated", "atom:feed").text or "")
    assert any(link.get("rel") == "self" for link in _links(feed, "atom:feed"))  # §4.1.1 SHOULD, kept as a must here
    authors = feed.findall(A + "author")
    for author in authors:
        _one(author, "name", "atom:author")
    entries = feed.findall(A + "entry")
    ids = []
    for entry in entries:
        where = "atom:entry"
        ids.append(_one(entry, "id", where).text or "")
        assert ABSOLUTE_IRI.match(ids[-1])
        _text_construct(_one(entry, "title", where))
        assert DATE_TIME.match(_one(entry, "updated", where).text or "")
        links = _links(entry, where)
        assert authors or entry.findall(A + "author"), "an entry without atom:author needs one on the feed (§4.1.1)"
        assert len(entry.findall(A + "summary")) <= 1 and len(entry.findall(A + "content")) <= 1
        if not entry.findall(A + "content"):
            assert any(link.get("rel", "alternate") == "alternate" for link in links), "no content: an alternate link (§4.1.1)"
        for cat in entry.findall(A + "category"):
            assert cat.get("term"), "atom:category must have a term (§4.2.2.1)"
    assert len(ids) == len(set(ids)), "entries of one feed never share an id"
    return feed


STATUSES = ["ranked", "black_hole", "unrated", "undecided", "stale"]
names = st.text("abc-_.", min_size=1, max_size=5).map(lambda n: f"o/{n}")
snapshots = st.dictionaries(names, st.tuples(st.sampled_from(STATUSES), st.integers(1, 50)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(snapshots, snapshots)
def test_any_changes_make_a_valid_feed_of_the_three_kinds_a_contributor_follows(b: dict, a: dict) -> None:
    norm = lambda d: {k: (s, r if s == "ranked" else None) for k, (s, r) in d.items()}  # noqa: E731
    changes = Changes(date(2026, 10, 15), date(2026, 10, 14), compare(norm(b), norm(a)))
    xml = atom_feed(changes, lambda repo: f"https://example.org/p/{repo}.html", "https://example.org/feeds/changes.atom",
                    "https://example.org/changes.html")
    feed = check_atom(xml)
    entries = feed.findall(A + "entry")
    assert len(entries) == sum(c.kind in FEED_KINDS for c in changes.items)
    assert {e.find(A + "category").get("term") for e in entries} <= set(FEED_KINDS)
    # The same change of the same snapshot keeps its id however often the feed is written again.
    again = check_atom(atom_feed(changes, lambda repo: repo, "x.atom", "c.html"))
    assert [e.find(A + "id").text for e in entries] == [e.find(A + "id").text for e in again.findall(A + "entry")]


def test_a_first_snapshot_gives_an_empty_feed_that_is_still_valid() -> None:
    feed = check_atom(atom_feed(Changes(date(2026, 10, 15), None), lambda r: r, "changes.atom", "../changes.html"))
    assert feed.findall(A + "entry") == []


def test_the_published_feeds_hold_the_planted_changes_and_link_their_pages(published: tuple[Path, dict[str, Any]],
                                                                          planted_changes: dict[str, str]) -> None:
    site, _ = published
    path = site / "feeds" / "changes.atom"
    feed = check_atom(path.read_bytes())
    got = {e.find(A + "category").get("term"): e for e in feed.findall(A + "entry")}
    want = {k: r for r, k in planted_changes.items() if k in FEED_KINDS}
    assert set(got) == set(FEED_KINDS) == set(want)
    for kind, entry in got.items():
        assert want[kind] in entry.find(A + "title").text
        # A relative link resolves against the feed's own address (§4.2.7.1, RFC 3986 §5) to the project's page.
        href = entry.find(A + "link").get("href")
        target = Path(urljoin(path.as_uri(), href).removeprefix("file://"))
        assert target.is_file() and want[kind] in target.read_text(encoding="utf-8")
    per_eco = sorted((site / "feeds" / "changes").glob("*.atom"))
    assert per_eco
    entries = 0
    for f in per_eco:
        eco_feed = check_atom(f.read_bytes())
        entries += len(eco_feed.findall(A + "entry"))
        alternate = next(link for link in eco_feed.findall(A + "link") if link.get("rel") == "alternate")
        assert Path(urljoin(f.as_uri(), alternate.get("href")).removeprefix("file://")) == site / "changes.html"
    assert entries == len(got)  # every change is in its ecosystem's feed, once
    assert 'href="feeds/changes.atom"' in (site / "changes.html").read_text(encoding="utf-8")


def test_the_checker_refuses_what_the_rfc_forbids() -> None:
    changes = Changes(date(2026, 10, 15), date(2026, 10, 14), compare({"o/a": ("ranked", 1)}, {"o/a": ("black_hole", None)}))
    good = atom_feed(changes, lambda r: r, "changes.atom", "../changes.html")
    check_atom(good)
    broken = [
        re.sub(rb"<entry><title>", b"<entry><title>x</title><title>", good),  # two titles
        re.sub(rb"<id>urn:uuid:[^<]*</id></entry>|(<entry>.*?)<id>[^<]*</id>", lambda m: m.group(1) or b"", good, count=1),
        good.replace(b"T00:00:00Z", b" 00:00:00", 1),  # not RFC 3339
        good.replace(b"<author><name>Porchlamp</name></author>", b""),  # no author anywhere
        good.replace(b"urn:uuid:", b"uuid ", 1),  # not an absolute IRI
    ]
    for xml in broken:
        assert xml != good
        try:
            check_atom(xml)
        except AssertionError:
            continue
        raise AssertionError(f"accepted: {xml[:300]!r}")


def test_text_xml_cannot_hold_is_left_out_not_written_broken() -> None:
    changes = Changes(date(2026, 10, 15), date(2026, 10, 14), compare({"o/a\x01\x1f": ("ranked", 1)}, {"o/a\x01\x1f": ("black_hole", None)}))
    feed = check_atom(atom_feed(changes, lambda r: "x", "changes.atom", "../changes.html", "Eco\x0b"))
    assert feed.find(A + "entry").find(A + "title").text.startswith("o/a became a black hole")
