"""The listing file read back as projects: every order it hands out is the order Python's own sort
of the projects gives, in any number of batches, with few or many projects kept made."""

import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import given, settings, strategies as st

from porchlamp import forges
from porchlamp.publish import listing as listing_mod
from porchlamp.publish.listing import GOAL_VALUES, HOME_COLUMNS, ROW_COLUMNS, Listing
from porchlamp.publish.project import Project

PROFILES = ["default", "fast"]
STATUSES = ["ranked", "black_hole", "unrated", "stale", "undecided"]
ORDER = ["black_hole", "undecided", "unrated", "stale"]


def _write(rows: list[dict[str, Any]], path: Path, batch: int) -> Path:
    """A listing file as `export_listing` writes one, from rows in name order, in batches of `batch`."""
    columns: dict[str, Any] = {c: [r.get(c) for r in rows] for c in ROW_COLUMNS}
    types = {"stars": pa.int32(), "outside_prs": pa.int32(), "answered": pa.int32(), "closed_silently": pa.int32(),
             "unanswered": pa.int32(), "judged": pa.bool_(), "borderline": pa.bool_(), "median_hours": pa.float64(),
             "p90_hours": pa.float64()}
    arrays = {c: pa.array(v, types.get(c, pa.string())) for c, v in columns.items()}
    arrays |= {"homepage": pa.array([r.get("homepage") for r in rows], pa.string()),
               "topics": pa.array([r.get("topics") for r in rows], pa.list_(pa.string())),
               "issues": pa.array([None] * len(rows), pa.string()), "own": pa.array([f"own-{r['repo']}" for r in rows]),
               "place": pa.array([""] * len(rows)), "mirrors": pa.array([None] * len(rows), pa.list_(pa.string()))}
    arrays |= {f"home_{c}": pa.array([None] * len(rows), pa.int32() if c in ("answered", "outside_prs") else pa.string())
               for c in HOME_COLUMNS}
    for k, name in enumerate(PROFILES):
        goals = [r["goals"].get(name) for r in rows]
        arrays[f"g{k}_present"] = pa.array([g is not None for g in goals])
        for c in GOAL_VALUES:
            kind = pa.int32() if c in ("rank", "delta") else pa.string() if c == "tier" else pa.float64()
            arrays[f"g{k}_{c}"] = pa.array([(g or {}).get(c) for g in goals], kind)
    table = pa.table(arrays)
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as out:
        for b in table.to_batches(max_chunksize=batch):
            out.write_batch(b)
    return path


names = st.text(alphabet="abzABZ09_-.àÄ", min_size=1, max_size=4)


@st.composite
def worlds(draw: Any) -> list[dict[str, Any]]:
    repos = sorted(set(draw(st.lists(st.tuples(names, names).map("/".join), min_size=0, max_size=40))))
    rows = []
    for repo in repos:
        status = draw(st.sampled_from(STATUSES))
        goals = {}
        for name in PROFILES:
            if draw(st.booleans()):
                goals[name] = {"score": draw(st.floats(0, 100)), "coverage": 1.0, "tier": "A",
                               "rank": draw(st.one_of(st.none(), st.integers(0, 9))), "delta": None}
        rows.append({"repo": repo, "status": status, "kind": "k", "stars": draw(st.integers(0, 5)), "outside_prs": 0,
                     "answered": 0, "judged": False, "borderline": False, "ecosystem": draw(st.sampled_from(["npm", "pypi"])),
                     "homepage": draw(st.sampled_from([None, "https://x.example", "javascript:alert(1)"])), "topics": ["t"],
                     "goals": goals})
    return rows


def _by_own_name(repo: str) -> tuple[str, str]:
    """The A–Z order: a project's own name (its path on its host), then its whole name, as `str.lower` orders them."""
    return forges.path_of(repo).lower(), repo.lower()


def _repos(projects: Any) -> list[str]:
    return [p.repo for p in projects]


@settings(max_examples=150, deadline=None)
@given(worlds(), st.integers(1, 9), st.sampled_from([1, 3, 10_000]), st.data())
def test_every_order_is_pythons_own(rows: list[dict[str, Any]], batch: int, kept: int, data: st.DataObject) -> None:
    listing_mod.KEPT_PROJECTS, was = kept, listing_mod.KEPT_PROJECTS
    try:
        with tempfile.TemporaryDirectory() as tmp:
            listing = Listing(_write(rows, Path(tmp) / "l.arrow", batch), PROFILES, {})
            # Some projects made first, so that later listings find some kept and make the others.
            start = data.draw(st.integers(0, len(rows)))
            stop = data.draw(st.integers(start, len(rows)))
            assert _repos(listing.by_name()[start:stop]) == sorted((r["repo"] for r in rows), key=_by_own_name)[start:stop]
            projects = list(listing)
            assert _repos(projects) == [r["repo"] for r in rows] and len(listing) == len(rows)
            for p, r in zip(projects, rows):
                assert isinstance(p, Project) and tuple(p.row) == ROW_COLUMNS and p.row["stars"] == r["stars"]
                assert list(p.profiles) == [g for g in PROFILES if g in r["goals"]]
                assert all(p.profiles[g]["rank"] == r["goals"][g]["rank"] and p.profiles[g]["profile"] == g for g in p.profiles)
                assert p.homepage == (None if r["homepage"] != "https://x.example" else r["homepage"]) and p.digest == f"own-{p.repo}"
            for goal in PROFILES:
                expected = sorted((p for p in projects if p.status == "ranked" and p.profiles.get(goal, {}).get("rank")),
                                  key=lambda p: p.profiles[goal]["rank"])
                ranked = listing.ranked(goal)
                assert _repos(ranked) == _repos(expected) and len(ranked) == len(expected)
                assert _repos(ranked.where("ecosystem", "npm")) == [p.repo for p in expected if p.row["ecosystem"] == "npm"]
            assert _repos(listing.by_name()) == _repos(sorted(projects, key=lambda p: _by_own_name(p.repo)))
            assert _repos(listing.not_ranked(ORDER)) == _repos(sorted(
                (p for p in projects if p.status != "ranked"),
                key=lambda p: (ORDER.index(p.status) if p.status in ORDER else 99, -p.row["stars"], p.repo)))
            view = listing.by_name()
            whole = _repos(view)
            start = data.draw(st.integers(0, len(rows)))
            stop = data.draw(st.integers(start, len(rows)))
            assert _repos(view[start:stop]) == whole[start:stop] and _repos(view[::2]) == whole[::2]
            if rows:
                i = data.draw(st.integers(-len(rows), len(rows) - 1))
                assert view[i].repo == whole[i] and listing[i].repo == rows[i]["repo"]
            assert not len(listing.ranked("no-such-goal"))
            assert len(listing._kept) <= kept
    finally:
        listing_mod.KEPT_PROJECTS = was


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60), st.integers(1, 9), st.data())
def test_rows_at_any_positions_come_back_in_their_order(n: int, batch: int, data: st.DataObject) -> None:
    rows = [{"repo": f"o/r{i:03d}", "status": "ranked", "stars": i, "goals": {}} for i in range(n)]
    positions = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    with tempfile.TemporaryDirectory() as tmp:
        listing = Listing(_write(rows, Path(tmp) / "l.arrow", batch), PROFILES, {})
        got = listing._at(pa.array(positions, pa.int64()))
        assert got.column("repo").to_pylist() == [rows[i]["repo"] for i in positions]
        assert got.column("stars").to_pylist() == positions
