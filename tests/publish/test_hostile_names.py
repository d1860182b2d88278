"""Repository names and topics come from GitHub (a rename is followed to whatever name it reports):
hostile ones must neither write outside the site, nor break a link, nor run in Chromium."""

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browsing import follow, until

from porchlamp.config import Settings
from porchlamp.publish import load_site_data, publish
from porchlamp.publish.data import slug
from porchlamp.publish.serve import SiteServer
from porchlamp.sample import load_world, read_truth
from porchlamp.sample.world import iter_rows
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

HOSTILE_NAMES = [
    "../..",
    "..%2F../%2e%2e",
    '"><img src=x onerror=alert(1)>/<script>alert(2)</script>',
    "javascript:alert(3)/x",
    "acme/.github",
    "\u202eevil/name\u202e with spaces",
    "ünïcødé/名前",
]
HOSTILE_TOPICS = ["<script>alert('topic')</script>", '"><img src=x onerror=alert(4)>', "javascript:alert(5)", "{{7*7}}"]
KEYS = {"repositories": "name_with_owner"}


def _rewrite(src: Path, dst: Path, names: dict[str, str]) -> None:
    dst.mkdir(parents=True)
    for f in src.iterdir():
        if not f.name.endswith(".jsonl.gz"):
            shutil.copy(f, dst / f.name)
            continue
        table = f.name.removesuffix(".jsonl.gz")
        key = KEYS.get(table, "repo")
        with gzip.open(dst / f.name, "wt", encoding="utf-8") as out:
            for row in iter_rows(src, table):
                if row.get(key) in names:
                    row[key] = names[row[key]]
                    if table == "repositories":
                        row["topics"] = [*row["topics"], *HOSTILE_TOPICS]
                        row["description"] = "<b>bold?</b> " + (row["description"] or "")
                out.write(json.dumps(row, ensure_ascii=False) + "\n")


@pytest.fixture(scope="module")
def hostile_site(world300: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("hostile")
    ranked = sorted(r for r, t in read_truth(world300)["repos"].items() if t["status"] == "ranked")
    names = dict(zip(ranked, HOSTILE_NAMES))
    _rewrite(world300, tmp / "world", names)
    with Store(tmp / "s.duckdb") as s:
        load_world(tmp / "world", s)
        evaluate_store(s, None, Settings())
        site = load_site_data(s)
    publish(site, tmp / "out" / "site")
    return tmp, tmp / "out" / "site", names


def test_nothing_is_written_outside_the_site(hostile_site: tuple[Path, Path, dict[str, str]]) -> None:
    tmp, site, names = hostile_site
    # The site's path (a link) and its one generation beside it, nothing else.
    assert sorted(p.name for p in (tmp / "out").iterdir()) == [".site.generations", "site"]
    assert sorted(p.name for p in (tmp / "out" / ".site.generations").iterdir()) == [".lock", ".parts", ".run", "a"]
    assert sorted(p.name for p in tmp.iterdir()) == ["out", "s.duckdb", "world"]
    for new in names.values():
        owner, name = new.split("/", 1)
        page = site / "projects" / slug(owner) / f"{slug(name)}.html"
        assert page.is_file(), new
        assert page.resolve().is_relative_to(site.resolve())
        data = json.loads((site / "data" / "v1" / "projects" / slug(owner) / f"{slug(name)}.json").read_text())
        assert data["repo"] == new
    assert slug("..") == "~2e." and slug(".github") == "~2egithub" and slug("a/b") == "a~2fb" and slug("") == "_"


def _slug_by_bytes(text: str) -> str:
    keep = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
    return "".join(chr(b) if b in keep or (b == 0x2E and i > 0) else f"~{b:02x}" for i, b in enumerate(text.encode("utf-8"))) or "_"


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(alphabet="aZ09_-.~/ \u00e9\u0130\u212a\n", max_size=12), st.text(max_size=12)))
def test_a_plain_name_is_its_own_slug_and_any_other_is_slugged_byte_by_byte(text: str) -> None:
    """`slug` takes a name whose every byte stays as it is by one match: the same as going byte by
    byte, for dots (leading or not), a trailing newline, and letters that only look ASCII (İ, K)."""
    assert slug(text) == _slug_by_bytes(text)


def test_hostile_names_link_and_never_run(hostile_site: tuple[Path, Path, dict[str, str]], browser: Any) -> None:
    _, site, names = hostile_site
    json.loads((site / "data" / "v1" / "rankings.json").read_text())  # still valid JSON
    with SiteServer(site, port=0) as server:
        ctx = browser.new_context()
        page = ctx.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.add_init_script("window.__pwned = 0; window.alert = () => { window.__pwned += 1; };")
        for new in names.values():
            page.goto(server.url)
            page.wait_for_selector("html[data-ready='1']", timeout=15_000)
            page.fill("#search", new)
            until(page, "document.querySelectorAll('#rankings tbody tr').length === 1")
            link = page.locator("#rankings tbody tr a").first
            assert link.inner_text() == new  # shown as text
            follow(page, link)  # the script-built link reaches the pre-rendered page
            assert page.locator("h1").first.inner_text().strip() == new
            body = page.inner_text("body")
            assert "<script>alert('topic')</script>" in body and "<b>bold?</b>" in body
            assert page.evaluate("window.__pwned") == 0
            assert page.eval_on_selector_all("a[href^='javascript:' i]", "as => as.length") == 0
        assert dialogs == []
        ctx.close()
