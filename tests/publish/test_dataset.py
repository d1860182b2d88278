"""The dataset and files of a published site, without a browser."""

import csv
import json
from pathlib import Path
from typing import Any

import jsonschema
import pyarrow.parquet as pq
import pytest

from porchlamp.publish import api, load_site_data, publish, safe_url
from porchlamp.snapshot import report_from_store
from porchlamp.store import Store


@pytest.mark.parametrize(("url", "ok"), [("https://example.org/x", True), ("http://a.b", True), ("javascript:alert(1)", False),
                                         ("JaVaScRiPt:alert(1)", False), ("data:text/html,x", False), ("//evil.example", False),
                                         ("https://", False), ("", False), (None, False), ("  https://ok.example  ", True)])
def test_only_http_links(url: str | None, ok: bool) -> None:
    assert (safe_url(url) is not None) == ok


def test_json_api_follows_its_schemas(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    v1 = site / "data" / "v1"
    schema = lambda n: json.loads((v1 / "schema" / f"{n}.schema.json").read_text())  # noqa: E731
    index = json.loads((v1 / "index.json").read_text())
    jsonschema.validate(index, schema("index"))
    jsonschema.validate(json.loads((v1 / "report.json").read_text()), schema("report"))
    rankings = json.loads((v1 / "rankings.json").read_text())
    jsonschema.validate(rankings, schema("rankings"))
    assert len(rankings["rows"]) == report["funnel"]["ranked"] and index["schema_version"] == 1
    projects = list((v1 / "projects").rglob("*.json"))
    assert len(projects) == 300
    for f in projects[:60]:
        jsonschema.validate(json.loads(f.read_text()), schema("project"))
    jsonschema.validate(json.loads((v1 / "changes.json").read_text()), schema("changes"))
    for f in list((v1 / "shields").rglob("*.json"))[:20]:
        jsonschema.validate(json.loads(f.read_text()), schema("shields"))
    parts = json.loads((v1 / "rankings" / "parts.json").read_text())
    jsonschema.validate(parts, schema("rankings_parts"))
    for f in (v1 / "rankings").rglob("part-*.json"):
        jsonschema.validate(json.loads(f.read_text()), schema("rankings_part"))


def test_the_report_written_from_the_rows_held_equals_the_report_of_the_store(published: tuple[Path, dict[str, Any]]) -> None:
    """Publishing holds the report without its list of every project and writes that list from the
    projects' rows: the file equals the whole report made from the store."""
    site, _ = published
    with Store(site.parent / "s.duckdb") as s:
        whole = json.loads(api.json_text(report_from_store(s)))
    written = json.loads((site / "data" / "v1" / "report.json").read_text())
    assert len(written["projects"]) == 300 and any(p["ranks"] and p["delta"] for p in written["projects"])
    assert written == whole


def _projected(index: dict[str, Any], profile: str) -> list[list[Any]]:
    """The whole index's rows as one goal's part would hold them, in that goal's rank order."""
    col = {c: i for i, c in enumerate(index["columns"])}
    names = [f"{profile}.{c}" if c in ("rank", "score", "tier", "delta") else c for c in api.PART_COLUMNS]
    return sorted(([r[col[n]] for n in names] for r in index["rows"]), key=lambda r: r[api.PART_COLUMNS.index("rank")])


def test_the_rankings_parts_hold_the_whole_index_in_each_goals_order(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    v1 = site / "data" / "v1"
    index = json.loads((v1 / "rankings.json").read_text())
    manifest = json.loads((v1 / "rankings" / "parts.json").read_text())
    ranked = report["funnel"]["ranked"]
    assert manifest["ranked"] == ranked and manifest["parts"] == 1 and manifest["as_of"] == index["as_of"]
    assert manifest["counts"]["columns"] == ["ecosystem", "language", "ranked", "forge"]
    assert sum(n for _, _, n, _ in manifest["counts"]["rows"]) == ranked
    assert {f for *_, f in manifest["counts"]["rows"]} == {"github"}
    eco = index["rows"][0][1]
    assert sum(n for e, _, n, _ in manifest["counts"]["rows"] if e == eco) == sum(1 for r in index["rows"] if r[1] == eco)
    for profile in index["profiles"]:
        part = json.loads((v1 / manifest["files"].format(profile=profile, part=1)).read_text())
        assert part["rows"] == _projected(index, profile)
        assert [r[7] for r in part["rows"]] == list(range(1, ranked + 1))


def test_the_rankings_split_into_parts_of_any_size(published: tuple[Path, dict[str, Any]]) -> None:
    site_dir, _ = published
    index = json.loads((site_dir / "data" / "v1" / "rankings.json").read_text())
    with Store(site_dir.parent / "s.duckdb") as s:
        site = load_site_data(s)
    for size in (1, 7, len(index["rows"]) - 1, len(index["rows"]), 5000):
        files = dict(api.ranking_parts(site, size))
        manifest = files.pop("rankings/parts.json")
        parts = -(-len(index["rows"]) // size)
        assert manifest["parts"] == parts and len(files) == parts * len(index["profiles"])
        for profile in index["profiles"]:
            got = [files[api.PART_PATH.format(profile=profile, part=i + 1)] for i in range(parts)]
            assert all(0 < len(p["rows"]) <= size and p["parts"] == parts for p in got)
            assert [r for p in got for r in p["rows"]] == _projected(index, profile)


def test_downloads(published: tuple[Path, dict[str, Any]]) -> None:
    site, report = published
    v1 = site / "data" / "v1"
    with open(v1 / "snapshot.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 300 and sum(1 for r in rows if r["status"] == "ranked") == report["funnel"]["ranked"]
    assert {r["forge"] for r in rows} == {"github"} and not any(r["review_at"] for r in rows)
    assert pq.read_table(v1 / "snapshot.parquet").num_rows == 300
    assert pq.read_table(v1 / "prs.parquet").num_rows > 10_000


def test_badges_escape_and_pages_never_carry_raw_markup(published: tuple[Path, dict[str, Any]]) -> None:
    site, _ = published
    badges = list((site / "badges").rglob("*.svg"))
    assert len(badges) == 300 and all("<script" not in b.read_text() for b in badges)
    pages = list(site.rglob("*.html"))
    hostile = [p for p in pages if "porchlamp-xss" in p.read_text()]
    assert hostile, "the world plants hostile text; some page must show it"
    for p in pages:
        text = p.read_text()
        assert "<script>alert" not in text and "<img src=x onerror" not in text
        assert 'href="javascript:' not in text.lower()
        assert text.count("<script") == text.count('<script src=')  # only the site's own script files


def test_a_failed_publish_leaves_the_previous_site(published: tuple[Path, dict[str, Any]], store300: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    site_dir, _ = published
    db = tmp_path / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    from porchlamp.config import Settings
    from porchlamp.snapshot import evaluate_store

    with Store(db) as s:
        evaluate_store(s, None, Settings())
        data = load_site_data(s)
    out = tmp_path / "site"
    publish(data, out)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))

    def boom(*a: Any, **k: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(api, "write_dataset", boom)
    with pytest.raises(OSError, match="disk full"):
        publish(data, out)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site-new-")]
