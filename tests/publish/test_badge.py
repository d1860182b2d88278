"""Each project page offers its badge as maintainers paste it: Markdown and HTML, with the site's
full address when the site was published with one (`publish --site-url`)."""

import html
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from porchlamp.cli import app
from porchlamp.config import Settings
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

runner = CliRunner()


def _snippets(page: Path) -> list[str]:
    return [html.unescape(s) for s in re.findall(r"<pre><code>(.*?)</code></pre>", page.read_text(encoding="utf-8"), re.S)]


def test_badge_snippets_carry_the_sites_address(store300: Path, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        evaluate_store(s, None, Settings())
    res = runner.invoke(app, ["publish", "--db", str(db), "--out", str(tmp_path / "site"), "--site-url", "https://example.org/porchlamp"])
    assert res.exit_code == 0, res.output
    page = next((tmp_path / "site" / "projects").rglob("*.html"))
    markdown, tag = _snippets(page)[-2:]
    rel = page.relative_to(tmp_path / "site").as_posix()
    m = re.fullmatch(r"\[!\[Porchlamp: [^\]]+\]\((\S+)\)\]\((\S+)\)", markdown)
    assert m and m.group(1).startswith("https://example.org/porchlamp/badges/") and m.group(2) == f"https://example.org/porchlamp/{rel}"
    assert (tmp_path / "site" / m.group(1).removeprefix("https://example.org/porchlamp/")).is_file()  # the badge it names exists
    assert tag.startswith(f'<a href="https://example.org/porchlamp/{rel}"><img src="https://example.org/porchlamp/badges/')
    assert "the site needs its address" not in page.read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="https://example.org/porchlamp/{rel}">' in page.read_text(encoding="utf-8")
    bad = runner.invoke(app, ["publish", "--db", str(db), "--out", str(tmp_path / "site2"), "--site-url", "example.org"])
    assert bad.exit_code == 2 and "starting with https://" in bad.output and not (tmp_path / "site2").exists()


def test_without_an_address_no_snippet_is_offered(published: tuple[Path, dict[str, Any]]) -> None:
    """A relative snippet does not work in a README, and only the publisher can give the site's
    address: without one, a project page offers the badge's image and nothing to paste."""
    page = next((published[0] / "projects").rglob("*.html"))
    text = page.read_text(encoding="utf-8")
    assert 'class="badge"' not in text and "Show this badge in your README" not in text and "--site-url" not in text
    assert re.search(r'<img src="(\.\./)+badges/[^"]+\.svg" alt="Porchlamp badge: ', text)
    assert 'rel="canonical"' not in text


def test_the_sites_address_can_live_in_porchlamp_toml(store300: Path, tmp_path: Path) -> None:
    """`url` under [site] does what --site-url does, and the option wins over it."""
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        evaluate_store(s, None, Settings())
    toml = tmp_path / "porchlamp.toml"
    toml.write_text('[site]\nurl = "https://lamp.example.net/x"\n')
    res = runner.invoke(app, ["publish", "--db", str(db), "--out", str(tmp_path / "site"), "--config", str(toml)])
    assert res.exit_code == 0, res.output
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://lamp.example.net/x/index.html">' in index
    page = next((tmp_path / "site" / "projects").rglob("*.html"))
    assert _snippets(page)[-2].endswith(f"(https://lamp.example.net/x/{page.relative_to(tmp_path / 'site').as_posix()})")
    feed = (tmp_path / "site" / "feeds" / "changes.atom").read_text(encoding="utf-8")
    assert "https://lamp.example.net/x/" in feed
    res = runner.invoke(app, ["publish", "--db", str(db), "--out", str(tmp_path / "site"), "--config", str(toml),
                              "--site-url", "https://other.example.org/"])
    assert res.exit_code == 0 and 'href="https://other.example.org/index.html"' in (tmp_path / "site" / "index.html").read_text()
    toml.write_text('[site]\nurl = "lamp.example.net"\n')
    bad = runner.invoke(app, ["publish", "--db", str(db), "--out", str(tmp_path / "site3"), "--config", str(toml)])
    assert bad.exit_code != 0 and "url" in bad.output and not (tmp_path / "site3").exists()
