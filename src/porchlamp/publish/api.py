"""The dataset: a versioned JSON API under `data/v1/` with JSON Schema files, CSV and Parquet
downloads, an SVG badge and a Shields endpoint per project.

Keys of v1 are only ever added, never renamed or removed; `schema_version` says which version.
"""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from porchlamp import __version__, figures
from porchlamp.evaluate.report import project_entry
from porchlamp.publish import words
from porchlamp.publish.data import Project, SiteData, project_files, slug
from porchlamp.publish.listing import LISTING_ROWS

SCHEMA_VERSION = 1
TIER_COLORS = {"A": "#2e7d32", "B": "#558b2f", "B (capped)": "#7c8b2f", "C": "#c77d16", "D": "#b23b3b"}
STATUS_COLORS = {"black_hole": "#555555", "undecided": "#5c6bc0", "unrated": "#8d8d8d"}
SHIELDS_COLORS = {"A": "brightgreen", "B": "green", "B (capped)": "yellowgreen", "C": "orange", "D": "red"}


def json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def write_json(path: Path, data: Any) -> int:
    return write_text(path, json_text(data))


def write_text(path: Path, text: str) -> int:
    """`text` into a new file at `path`, its folder made only when missing: asking first cost 10-20 µs
    a file, four files a project, where most folders are there already. A file already there is
    replaced, never written through: the site's two generations share files as hard links, and
    writing into one would change the live site's copy too. Returns the file's bytes."""
    try:
        f = open(path, "x", encoding="utf-8")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path, "x", encoding="utf-8")
    except FileExistsError:
        path.unlink()
        f = open(path, "x", encoding="utf-8")
    with f:
        f.write(text)
    return len(text) if text.isascii() else len(text.encode("utf-8"))  # an ASCII string knows it is one: no encoding


def _round(x: float | None, n: int = 1) -> float | None:
    return None if x is None else round(x, n)


def _score(x: float | None) -> float | None:
    """A score as the pages show it (half up to 0.1), as a number."""
    return None if x is None else float(figures.half_up(x, 1))


def badge_text(p: Project) -> tuple[str, str]:
    """(message, colour) of a project's badge."""
    if p.status == "ranked":
        d = p.profiles.get("default", {})
        return f"{d.get('tier')} · {figures.score(d.get('score', 0))}", TIER_COLORS.get(d.get("tier") or "", "#777")
    return p.status.replace("_", " "), STATUS_COLORS.get(p.status, "#9e9e9e")


def badge_svg(p: Project) -> str:
    message, color = badge_text(p)
    label = "porchlamp"
    lw, mw = 6 * len(label) + 12, 6 * len(message) + 12
    w = lw + mw
    m = escape(message)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label="{label}: {m}">'
            f"<title>{label}: {m}</title><rect width=\"{lw}\" height=\"20\" fill=\"#444\"/>"
            f'<rect x="{lw}" width="{mw}" height="20" fill="{escape(color)}"/>'
            f'<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
            f'<text x="6" y="14">{label}</text><text x="{lw + 6}" y="14">{m}</text></g></svg>')


def shields_json(p: Project) -> dict[str, Any]:
    message, _ = badge_text(p)
    tier = p.profiles.get("default", {}).get("tier") if p.status == "ranked" else None
    return {"schemaVersion": 1, "label": "porchlamp", "message": message, "color": SHIELDS_COLORS.get(tier or "", "lightgrey")}


# Rows of one part of a goal's ranking (about 100 KB, 32 KB compressed): the rankings page fetches
# the parts a view needs, so changing the goal or ecosystem costs the same at a million projects as
# at a thousand.
RANK_PART_ROWS = 1000
PART_COLUMNS = ["repo", "ecosystem", "language", "stars", "answered_share", "median_hours", "outside_prs",
                "rank", "score", "tier", "delta", "answered", "p90_hours", "flags", "median_words", "trend_words", "forge", "trend"]
GOAL_COLUMNS = ("rank", "score", "tier", "delta")  # a part's columns the index has once per goal
PART_PATH = "rankings/{profile}/part-{part}.json"


# A whole-snapshot file as a head (every key but its last) and its last key's list, made one
# entry at a time while it is written (`write_listed`).
Listed = tuple[dict[str, Any], str, Iterator[Any]]


def rankings_index(site: SiteData) -> Listed:
    """Every ranked project in every goal, in one file: the dataset's index (the rankings page
    reads it in parts, `ranking_parts`)."""
    profiles = list(site.settings.profiles)
    head = {"schema_version": SCHEMA_VERSION, "as_of": site.as_of.isoformat(), "profiles": profiles,
            "columns": _index_columns(profiles)}
    return head, "rows", (_index_row(p, profiles) for p in site.ranked("default"))


def _index_columns(profiles: list[str]) -> list[str]:
    columns = ["repo", "ecosystem", "language", "stars", "answered_share", "median_hours", "outside_prs"]
    for prof in profiles:
        columns += [f"{prof}.{c}" for c in GOAL_COLUMNS]
    # Added in schema 1, keys are only ever added. `median_words`: the median as every page words it,
    # so that a table redrawn from this file says what the served page says (`figures.duration` of
    # `median_hours`, which is exact, for sorting).
    # `forge`: the software its host runs (github, gitlab, forgejo), for the forge filter.
    # `trend`: the answered share's move over 30 days in points (`trend_words` exact), for sorting.
    return columns + ["answered", "p90_hours", "flags", "median_words", "trend_words", "forge", "trend"]


def _index_row(p: Project, profiles: list[str]) -> list[Any]:
    n = p.row["outside_prs"]
    # The median and the share exact, for sorting (a median rounded to 0.1 h put "51 min" above "50 min");
    # the score as every page shows it (`figures.score`), which the page prints with toFixed(1).
    row: list[Any] = [p.repo, p.row["ecosystem"], p.row["language"], p.row["stars"], p.row["answered"] / n if n else None,
                      p.row["median_hours"], n]
    for prof in profiles:
        d = p.profiles.get(prof, {})
        row += [d.get("rank"), _score(d.get("score")), d.get("tier"), d.get("delta")]
    return row + [p.row["answered"], _round(p.row["p90_hours"]), p.flags, figures.duration(p.row["median_hours"]), words.trend(p.row["trend"]),
                  p.forge, _round(p.row["trend"], 4)]


def ranking_parts(site: SiteData, part_rows: int = RANK_PART_ROWS) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path under data/v1, content) of each goal's ranking split into parts of `part_rows` rows in
    that goal's rank order, with the index's figures (`rankings_index`), and of the manifest that
    says how many there are and how many ranked projects each ecosystem and language holds: a view
    ordered by rank needs only the parts down to its page, and its count of pages is known before
    any part arrives. A part's rows are made from the listing when it is written."""
    profiles = list(site.settings.profiles)
    columns = _index_columns(profiles)
    col = {c: i for i, c in enumerate(columns)}
    ranked = site.ranked("default")
    parts = max(1, -(-len(ranked) // part_rows))
    counts = pa.table({"ecosystem": ranked.values("ecosystem"), "language": ranked.values("language"),
                       "forge": pc.fill_null(ranked.values("forge"), "github")}) \
        .group_by(["ecosystem", "language", "forge"]).aggregate([([], "count_all")]).to_pylist()
    as_of = site.as_of.isoformat()
    yield "rankings/parts.json", {
        "schema_version": SCHEMA_VERSION, "as_of": as_of, "profiles": profiles, "ranked": len(ranked),
        "parts": parts, "part_rows": part_rows, "files": PART_PATH, "columns": PART_COLUMNS,
        # `forge` added after `ranked` (columns are only ever added): a row per ecosystem, language and forge.
        "counts": {"columns": ["ecosystem", "language", "ranked", "forge"],
                   "rows": [[c["ecosystem"], c["language"], c["count_all"], c["forge"]]
                            for c in sorted(counts, key=lambda c: (c["ecosystem"], c["language"] or "", c["forge"]))]},
        "names": "{profile} keeps letters, digits, '_', '-' and non-leading '.'; any other UTF-8 byte is ~xx; {part} counts from 1"}
    for prof in profiles:
        picks = [col[f"{prof}.{c}" if c in GOAL_COLUMNS else c] for c in PART_COLUMNS]
        ordered = site.ranked(prof)  # the projects ranked by default: every one has a rank in every goal (`ranking.rank_all`)
        for i in range(parts):
            rows = (_index_row(p, profiles) for p in ordered[i * part_rows:(i + 1) * part_rows])
            yield PART_PATH.format(profile=slug(prof), part=i + 1), {
                "schema_version": SCHEMA_VERSION, "as_of": as_of, "profile": prof, "part": i + 1, "parts": parts,
                "columns": PART_COLUMNS, "rows": [[r[k] for k in picks] for r in rows]}


def search_index(site: SiteData) -> Listed:
    """Every project, ranked or not, for the one search box: its status in plain words and, for a
    ranked one, its default rank and tier. Loaded only when someone searches."""
    def row(p: Project) -> list[Any]:
        d = p.profiles.get("default", {}) if p.status == "ranked" else {}
        counts = p.counts(site.settings.window.response_days) if p.row["outside_prs"] and p.status in ("black_hole", "unrated") else ""
        return [p.repo, p.status, p.words, counts, d.get("rank"), d.get("tier"), p.row["stars"], p.home["repo"] if p.home else None]

    head = {"schema_version": SCHEMA_VERSION, "as_of": site.as_of.isoformat(),
            "columns": ["repo", "status", "words", "counts", "rank", "tier", "stars", "review_at"]}
    return head, "rows", (row(p) for p in site.listing.by_name())


def listed_json(listed: Listed) -> dict[str, Any]:
    """A whole-snapshot file's content held whole, as `write_listed` writes it."""
    head, key, items = listed
    return {**head, key: list(items)}


def project_json(p: Project, site: SiteData, as_of: date | None = None) -> dict[str, Any]:
    """A project's record; `as_of` is the snapshot in which it last changed (it holds in every later
    one up to index.json's), the site's snapshot unless given."""
    return {
        "schema_version": SCHEMA_VERSION,
        "as_of": (as_of or site.as_of).isoformat(),
        "repo": p.repo,
        "url": p.web_url,
        "forge": p.forge,
        "status": p.status,
        "kind": p.row["kind"],
        "reason": p.row["reason"],
        "ecosystem": p.row["ecosystem"],
        "stars": p.row["stars"],
        "language": p.row["language"],
        "description": p.row["description"],
        "borderline": bool(p.row["borderline"]),
        "review_happens": p.row["review_happens"],
        # Added in schema 1 (keys are only ever added): the project of this snapshot where its review
        # happens, and the repositories that point here as theirs.
        "review_at": p.home["repo"] if p.home else None,
        "mirrors": list(p.mirrors),
        "profiles": profiles_json(p),
        "components": p.components,
        "evidence": p.evidence(),
        "outside_prs": [{"number": x["number"], "url": p.change_url(x["number"]), "author": x["author"],
                         "opened": x["created_at"], "outcome": x["outcome"], "first_response": x["response_kind"],
                         "responder": x["response_actor"], "hours_to_first_response": _round(x["hours_to_response"])}
                        for x in p.outside()],
        "excluded_prs": dict((k, n) for k, n in p.excluded_counts()),
        # Added in schema 1 (keys are only ever added): the accounts whose PRs were set aside as a bot's, and why (SPEC 3).
        "bot_authors": [{"login": b["login"], "prs": b["prs"], "reason": b["reason"], "pr": b["number"],
                         "url": p.change_url(b["number"]), "quote": b["quote"]} for b in p.bot_authors],
        # Added in schema 1 (keys are only ever added): the one definition of each number.
        "status_words": p.words,
        "outcome_counts": {"outside_prs": p.row["outside_prs"], "answered": p.row["answered"],
                           "closed_silently": p.row["closed_silently"], "unanswered": p.row["unanswered"],
                           # Added in schema 1 (keys are only ever added): of the unanswered, those answered
                           # after the deadline; the rest had no response at all (null: not counted then).
                           "answered_late": p.row.get("answered_late"),
                           "in_words": p.counts(site.settings.window.response_days)},
        "median_hours_to_first_response": _round(p.row["median_hours"]),
        "p90_hours_to_first_response": _round(p.row["p90_hours"]),
        "flags": p.flags,
        "change": change_json(p, site),
    }


# The parts of a project's record that move with other projects' scores: its place (`publish.place`).
def profiles_json(p: Project) -> dict[str, dict[str, Any]]:
    return {k: {kk: v.get(kk) for kk in ("score", "coverage", "tier", "rank", "delta", "explain")} for k, v in p.profiles.items()}


def change_json(p: Project, site: SiteData) -> dict[str, Any] | None:
    return None if p.change is None else {"since": site.changes.previous.isoformat() if site.changes and site.changes.previous else None,
                                          "kind": p.change.kind, "words": p.change.words}


def schema_names() -> list[str]:
    """The dataset's schema files, each linked by name (a static host lists no folder)."""
    return [f"{name}.schema.json" for name in _schemas()]


def _schemas() -> dict[str, dict[str, Any]]:
    base = "https://json-schema.org/draft/2020-12/schema"
    return {
        "index": {"$schema": base, "title": "Porchlamp snapshot index", "type": "object",
                  "required": ["schema_version", "as_of", "files", "funnel"],
                  "properties": {"schema_version": {"const": SCHEMA_VERSION}, "as_of": {"type": "string", "format": "date"},
                                 "files": {"type": "object"}, "funnel": {"type": "object", "additionalProperties": {"type": "integer"}}}},
        "report": {"$schema": base, "title": "Porchlamp report", "type": "object",
                   "required": ["as_of", "funnel", "judged_for_black_hole", "outside_prs", "outside_authors", "black_hole_by_ecosystem",
                                "black_hole_by_stars", "top100_overlap", "projects"],
                   "properties": {"funnel": {"type": "object", "required": ["not_software", "not_real_project", "no_license", "stale",
                                                                             "black_hole", "undecided", "unrated", "ranked"]},
                                  "projects": {"type": "array", "items": {"type": "object", "required": [
                                      "repo", "status", "kind", "reason", "tier", "score", "coverage", "ranks", "delta"]}}}},
        "rankings": {"$schema": base, "title": "Porchlamp rankings index", "type": "object",
                     "required": ["schema_version", "as_of", "profiles", "columns", "rows"],
                     "properties": {"columns": {"type": "array", "items": {"type": "string"}},
                                    "rows": {"type": "array", "items": {"type": "array"}}}},
        "rankings_parts": {"$schema": base, "title": "Porchlamp rankings in parts: the manifest", "type": "object",
                           "required": ["schema_version", "as_of", "profiles", "ranked", "parts", "part_rows", "files", "columns", "counts"],
                           "properties": {"ranked": {"type": "integer"}, "parts": {"type": "integer", "minimum": 1},
                                          "part_rows": {"type": "integer", "minimum": 1}, "files": {"type": "string"},
                                          "columns": {"type": "array", "items": {"type": "string"}},
                                          "counts": {"type": "object", "required": ["columns", "rows"]}}},
        "rankings_part": {"$schema": base, "title": "Porchlamp rankings: one part of a goal's ranking, in rank order", "type": "object",
                          "required": ["schema_version", "as_of", "profile", "part", "parts", "columns", "rows"],
                          "properties": {"part": {"type": "integer", "minimum": 1}, "columns": {"type": "array", "items": {"type": "string"}},
                                         "rows": {"type": "array", "items": {"type": "array"}}}},
        "project": {"$schema": base, "title": "Porchlamp project", "type": "object",
                    "required": ["schema_version", "as_of", "repo", "url", "status", "kind", "reason", "profiles", "components",
                                 "evidence", "outside_prs", "excluded_prs"],
                    "properties": {"outside_prs": {"type": "array", "items": {"type": "object", "required": [
                        "number", "url", "author", "opened", "outcome"]}},
                                   "bot_authors": {"type": "array", "items": {"type": "object", "required": [
                                       "login", "prs", "reason", "pr", "url", "quote"]}}}},
        "search": {"$schema": base, "title": "Porchlamp search index: every project", "type": "object",
                   "required": ["schema_version", "as_of", "columns", "rows"],
                   "properties": {"columns": {"type": "array", "items": {"type": "string"}},
                                  "rows": {"type": "array", "items": {"type": "array"}}}},
        "changes": {"$schema": base, "title": "Porchlamp changes since the previous snapshot", "type": "object",
                    "required": ["schema_version", "as_of", "previous", "counts", "changes"],
                    "properties": {"previous": {"type": ["string", "null"]}, "counts": {"type": "object"},
                                   "changes": {"type": "array", "items": {"type": "object", "required": [
                                       "repo", "kind", "before_status", "after_status", "before_rank", "after_rank", "words"]}}}},
        "shields": {"$schema": base, "title": "Shields endpoint badge", "type": "object",
                    "required": ["schemaVersion", "label", "message", "color"]},
    }


def write_project(out: Path, p: Project, site: SiteData, as_of: date | None = None) -> int:
    """A project's record, Shields endpoint and badge (its PRs loaded); returns their bytes."""
    files = project_files(p.repo)
    return (write_json(out / files.record, project_json(p, site, as_of)) + write_json(out / files.shields, shields_json(p))
            + write_text(out / files.badge, badge_svg(p)))


def write_listed(path: Path, listed: Listed) -> None:
    """A whole-snapshot file written one entry of its list at a time, never held whole: the same
    text as `write_json(path, listed_json(listed))`."""
    head, key, items = listed
    text = json_text({**{k: v for k, v in head.items() if k != key}, key: []})
    write_text(path, text[:-2])  # up to the list's opening bracket
    with open(path, "a", encoding="utf-8") as f:
        for i, item in enumerate(items):
            f.write(("," if i else "") + json_text(item))
        f.write("]}")


def write_report(path: Path, site: SiteData) -> None:
    """`report.json`: the report's figures, then its entry for every project (`report.project_entry`)
    made from the listing one at a time."""
    write_listed(path, ({k: v for k, v in site.report.items() if k != "projects"}, "projects",
                        (project_entry(p.row, p.profiles) for p in site.projects)))


def write_dataset(out: Path, site: SiteData) -> None:
    """Everything under data/ that covers the whole snapshot (each project's own files are
    `write_project`'s)."""
    v1 = out / "data" / "v1"
    for name, schema in _schemas().items():
        write_json(v1 / "schema" / f"{name}.schema.json", schema)
    write_report(v1 / "report.json", site)
    write_listed(v1 / "rankings.json", rankings_index(site))
    for path, part in ranking_parts(site):
        write_json(v1 / path, part)
    write_listed(v1 / "search.json", search_index(site))
    if site.changes is not None:
        write_json(v1 / "changes.json", {"schema_version": SCHEMA_VERSION, **site.changes.as_json()})
    _tables(v1, site)
    write_json(v1 / "index.json", {
        "schema_version": SCHEMA_VERSION, "as_of": site.as_of.isoformat(), "generated_by": f"porchlamp {__version__}",
        "funnel": site.report["funnel"], "projects": len(site.projects),
        "files": {"report": "report.json", "rankings": "rankings.json", "rankings_parts": "rankings/parts.json", "search": "search.json", "changes": "changes.json", "project": "projects/{owner}/{name}.json",
                  "shields": "shields/{owner}/{name}.json", "badge": "../../badges/{owner}/{name}.svg",
                  "csv": "snapshot.csv", "parquet": "snapshot.parquet", "prs_parquet": "prs.parquet", "schemas": "schema/",
                  "pages": "pages.parquet",
                  "names": "{owner} and {name} keep letters, digits, '_', '-' and non-leading '.'; any other UTF-8 byte is ~xx"},
    })


def _tables(v1: Path, site: SiteData) -> None:
    profiles = list(site.settings.profiles)
    text, whole, counts = pa.string(), pa.float64(), pa.int64()
    schema = pa.schema([(c, text) for c in ("repo", "status", "kind", "reason", "ecosystem", "language")]
                       + [(c, counts) for c in ("stars", "outside_prs", "answered", "closed_silently", "unanswered")]
                       + [("tier", text), ("score", whole), ("coverage", whole)]
                       + [(f"rank_{p}", counts) for p in profiles] + [(f"delta_{p}", counts) for p in profiles]
                       + [("median_hours", whole), ("p90_hours", whole)]
                       # Added last (columns are only ever added): its forge, and for a mirror the project
                       # of this snapshot where its review happens.
                       + [("forge", text), ("review_at", text)]
                       # of the unanswered, those answered after the deadline (null before it was counted)
                       + [("answered_late", counts)])

    def row(p: Project) -> list[Any]:
        d = p.profiles.get("default", {})
        ranked = p.status == "ranked"
        return ([p.repo, p.status, p.row["kind"], p.row["reason"], p.row["ecosystem"], p.row["language"], p.row["stars"],
                 p.row["outside_prs"], p.row["answered"], p.row["closed_silently"], p.row["unanswered"],
                 d.get("tier") if ranked else None, d.get("score") if ranked else None, d.get("coverage")]
                + [p.profiles.get(x, {}).get("rank") for x in profiles] + [p.profiles.get(x, {}).get("delta") for x in profiles]
                + [p.row["median_hours"], p.row["p90_hours"], p.forge, p.home["repo"] if p.home else None, p.row.get("answered_late")])

    # A batch of the listing at a time, to both files: neither table is ever held whole.
    projects = iter(site.projects)
    with open(v1 / "snapshot.csv", "w", newline="", encoding="utf-8") as f, \
            pq.ParquetWriter(v1 / "snapshot.parquet", schema) as table:
        w = csv.writer(f)
        w.writerow(schema.names)
        while rows := [row(p) for p in itertools.islice(projects, LISTING_ROWS)]:
            w.writerows(rows)
            table.write_table(pa.Table.from_pydict({c: [r[i] for r in rows] for i, c in enumerate(schema.names)}, schema=schema))
    pr_cols = ["repo", "number", "author", "created_at", "clock_start", "excluded", "outcome", "response_kind", "response_actor",
               "response_at", "hours_to_response", "first_timer", "merged", "bot_reason"]
    # Batch by batch from the snapshot's PR file: the dataset's largest table never sits in memory whole.
    if site.prs_file is None:
        pq.write_table(pa.table({c: pa.array([], pa.string()) for c in pr_cols}), v1 / "prs.parquet")
        return
    source = pq.ParquetFile(site.prs_file, pre_buffer=False)  # one row group at a time (see data._parquet_rows)
    with pq.ParquetWriter(v1 / "prs.parquet", pa.schema([source.schema_arrow.field(c) for c in pr_cols])) as out:
        for batch in source.iter_batches(batch_size=100_000, columns=pr_cols):
            out.write_batch(batch)
