"""A later snapshot published over an earlier site: only the projects whose files change are written;
the rest are the earlier site's files, which are what a fresh publish writes but for their date."""

import hashlib
import os
import shutil
import tempfile
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from porchlamp.config import Settings
from porchlamp.publish import load_site_data, publish, reuse
from porchlamp.publish.data import SiteData
from porchlamp.publish.site import DEFAULT_ISSUES_URL
from porchlamp.publish.project import Project
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

from helpers import tree, tree_bytes

LATER = 3  # days between the two snapshots: some verdicts end with the window's move, most hold


@pytest.fixture(scope="module")
def two_days(store300: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Day one published; day two evaluated (carrying what holds) and published three ways: over
    day one's site, over a copy of it with `full`, and into an empty directory."""
    tmp = tmp_path_factory.mktemp("reuse")
    db = tmp / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    with Store(db) as s:
        first = date.fromisoformat(s.get_meta("collected_as_of"))
        evaluate_store(s, first, Settings())
        site1 = load_site_data(s, first)
        # A later day on which nothing new was collected: only the window's move changes verdicts.
        second = first + timedelta(days=LATER)
        s.set_meta("collected_as_of", second.isoformat())
        evaluate_store(s, second, Settings())
        site2 = load_site_data(s, second)
    out = tmp / "site"
    publish(site1, out)
    before = {rel: (out / rel).stat() for rel in tree(out)}
    shutil.copytree(out, tmp / "copy")
    shutil.copytree(out, tmp / "copy2")
    summary = publish(site2, out)
    full = publish(site2, tmp / "copy", full=True)
    fresh = publish(site2, tmp / "fresh")
    return {"out": out, "before": before, "first": first, "second": second, "summary": summary, "full": full, "fresh": fresh,
            "site2": site2, "tmp": tmp}


def test_unchanged_projects_keep_their_files(two_days: dict[str, Any]) -> None:
    out, before, summary = two_days["out"], two_days["before"], two_days["summary"]
    manifest = reuse.read_manifest(out).projects()
    kept = {r for r, (_, since) in manifest.items() if since == two_days["first"]}
    assert summary.reused == len(kept)
    assert 100 < summary.reused < 300  # the window's move ends some verdicts; most hold
    assert summary.pages == two_days["fresh"].pages
    # What it says the site holds, the linked files' bytes from the manifest (the dates they show, and so
    # the manifest's own bytes, are not the fresh site's).
    assert summary.bytes == tree_bytes(out) and two_days["fresh"].bytes == tree_bytes(two_days["tmp"] / "fresh")
    # A project whose own rows held but whose place moved (its ranks, as others' scores moved) gets
    # a new page and record; its badges, which show only its own tier and score, stay linked.
    placed = set()
    for repo in manifest:
        files = reuse.project_files(repo)
        same = [os.path.samestat((out / rel).stat(), before[rel]) for rel in files]
        assert same[:2] == [repo in kept] * 2, (repo, files)
        if repo not in kept and all(same[2:]):
            placed.add(repo)
        else:
            assert same[2:] == [repo in kept] * 2, (repo, files)
    assert summary.placed == len(placed)
    assert summary.placed > 10  # ranked projects' ranks move with the window even where their own rows hold


def test_the_same_bytes_as_writing_everything(two_days: dict[str, Any]) -> None:
    assert two_days["full"].reused == 0
    assert tree(two_days["out"]) == tree(two_days["tmp"] / "copy")


def test_kept_files_are_a_fresh_publish_but_for_their_date(two_days: dict[str, Any]) -> None:
    """The independent check: the kept files, their earlier date put to the later one, are byte for
    byte what a publish into an empty directory writes; every other file is the same already."""
    out, fresh = tree(two_days["out"]), tree(two_days["tmp"] / "fresh")
    assert out.keys() == fresh.keys()
    old, new = two_days["first"].isoformat(), two_days["second"].isoformat()
    stamps = [(f"Porchlamp {old}</title>", f"Porchlamp {new}</title>"), (f"snapshot of {old};", f"snapshot of {new};"),
              (f"Porchlamp snapshot {old} ", f"Porchlamp snapshot {new} "), (f'"as_of":"{old}"', f'"as_of":"{new}"')]
    manifest = reuse.read_manifest(two_days["out"]).projects()
    kept = {rel for r, (_, since) in manifest.items() if since == two_days["first"] for rel in reuse.project_files(r)}
    moved = 0
    for rel, data in out.items():
        if rel == str(reuse.MANIFEST):
            continue
        if rel in kept:
            text = data.decode("utf-8")
            for a, b in stamps:
                text = text.replace(a, b)
            moved += text != data.decode("utf-8")
            assert text.encode("utf-8") == fresh[rel], rel
        else:
            assert data == fresh[rel], rel
    assert moved == len([r for r in kept if r.endswith((".html", ".json")) and "/shields/" not in r])


def test_a_missing_file_is_written_again_with_its_date(two_days: dict[str, Any]) -> None:
    """The plan takes the previous site's manifest at its word (it does not ask the disk); a file gone
    since is found where it is linked or read, and its project written whole, with its date: the
    site is the one published over the intact copy, and the summary counts them as written."""
    tmp, site2, summary = two_days["tmp"], two_days["site2"], two_days["summary"]
    site = tmp / "copy2"
    manifest = reuse.read_manifest(two_days["out"]).projects()
    linked = sorted(r for r, (_, since) in manifest.items() if since == two_days["first"])
    out, before = two_days["out"], two_days["before"]
    placed = sorted(r for r in manifest if r not in linked
                    and os.path.samestat((out / reuse.project_files(r).badge).stat(), before[reuse.project_files(r).badge]))
    # A linked project's page and another's badge; a placed project's record (read) and another's Shields file (linked).
    gone = [reuse.project_files(linked[0]).page, reuse.project_files(linked[1]).badge,
            reuse.project_files(placed[0]).record, reuse.project_files(placed[1]).shields]
    for rel in gone:
        (site / rel).unlink()
    plan = reuse.plan(site2, site, reuse.site_basis(site2, DEFAULT_ISSUES_URL, ""))
    at = {r: i for i, r in enumerate(plan.repos.to_pylist())}
    assert plan.reuse[at[linked[0]]] and plan.reuse[at[linked[1]]] and plan.placed[at[placed[0]]] and plan.placed[at[placed[1]]]
    again = publish(site2, site)
    assert (again.reused, again.placed) == (summary.reused - 2, summary.placed - 2)
    assert tree(site) == tree(out)
    assert again.bytes == tree_bytes(site)


def test_other_code_or_a_broken_manifest_writes_everything(two_days: dict[str, Any], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    site2 = two_days["site2"]
    shutil.copytree(two_days["out"], tmp_path / "a")
    monkeypatch.setattr(reuse, "site_code", lambda: "another build")
    assert publish(site2, tmp_path / "a").reused == 0
    monkeypatch.undo()
    shutil.copytree(two_days["out"], tmp_path / "b")
    (tmp_path / "b" / reuse.MANIFEST).write_text("{not json", encoding="utf-8")
    summary = publish(site2, tmp_path / "b")
    assert summary.reused == 0
    assert tree(tmp_path / "b") == tree(two_days["tmp"] / "fresh")


def test_a_date_never_runs_ahead(two_days: dict[str, Any], tmp_path: Path) -> None:
    """Publishing the earlier snapshot over the later site keeps nothing dated after it."""
    with Store(two_days["tmp"] / "s.duckdb", read_only=True) as s:
        site1 = load_site_data(s, two_days["first"])
    shutil.copytree(two_days["out"], tmp_path / "a")
    publish(site1, tmp_path / "a")
    dates = {since for _, since in reuse.read_manifest(tmp_path / "a").projects().values()}
    assert dates == {two_days["first"]}


STATES = ["new", "same", "placed", "changed", "ahead"]


@given(st.lists(st.tuples(st.text(alphabet="ab-.Ä", min_size=1, max_size=3), st.sampled_from(STATES),
                          st.integers(-3, 0)), max_size=12, unique_by=lambda t: t[0]),
       st.booleans())
@settings(max_examples=60, deadline=None)
def test_the_plan_is_each_projects_own_comparison(projects: list[tuple[str, str, int]], full: bool) -> None:
    """The plan's columns, joined to the previous site's manifest, say for every project what a
    comparison of that one project says: the same digest keeps its date (and its files), its own
    rows' digest alone keeps its files for their place, a date ahead of the snapshot keeps nothing;
    and `held` holds exactly the projects a manifest names with the same digest and date. Neither
    asks the disk for the files (no project file is there): the manifest is a generation's word."""
    today = date(2026, 10, 15)
    basis = "code"
    now, before = [], []
    for name, state, days in projects:
        repo = f"o/{name}"
        p = Project(repo, {"status": "ranked"}, digest=f"rows-{name}", place=f"place-{name}")
        now.append(p)
        if state != "new":
            then = replace(p, digest=p.digest if state in ("same", "placed", "ahead") else "other rows",
                           place=p.place if state in ("same", "ahead") else "other place")
            before.append((then, today + timedelta(days=1) if state == "ahead" else today + timedelta(days=days)))
    site = SiteData(today, Settings(), {}, now)
    with tempfile.TemporaryDirectory() as tmp:
        previous = Path(tmp) / "previous"
        if before:
            old_site = SiteData(today, Settings(), {}, [p for p, _ in before])
            old = reuse.plan(old_site, None, basis)
            old.since[:] = [d for _, d in before]
            old.size[:] = [100 + k for k in range(len(before))]
            old.write_manifest(previous)
        got = reuse.plan(site, previous, basis, full)
        written = reuse.read_manifest(previous).projects()
        assert {r: d for r, (_, d) in written.items()} == {p.repo: d for p, d in before}
        for i, p in enumerate(now):
            key = hashlib.blake2b((reuse.project_key(p, site, basis).hex() + reuse.place_key(p, site).hex()).encode(),
                                  digest_size=16).hexdigest()
            was = written.get(p.repo)
            usable = was is not None and was[1] <= today
            same = usable and was[0] == key
            own = usable and not same and dict((q.repo, q) for q, _ in before)[p.repo].digest == p.digest
            assert got.since_at(i) == (was[1] if same else today), p.repo
            assert bool(got.reuse[i]) == (same and not full), p.repo
            assert bool(got.placed[i]) == (own and not full), p.repo
            if got.placed[i]:
                assert got.shown_at(i) == was[1]
            # A linked project's bytes are the manifest's; the others' are known once written.
            sizes = {q.repo: 100 + k for k, (q, _) in enumerate(before)}
            assert got.size[i] == (sizes[p.repo] if got.reuse[i] else -1), p.repo
        # Written as the next generation's manifest, every project of it is held.
        standby = Path(tmp) / "standby"
        got.size[:] = [1000 + k for k in range(len(now))]
        got.write_manifest(standby)
        got.size[:] = -1
        manifest = reuse.read_manifest(standby)
        assert manifest.basis == basis and len(manifest) == len(now)
        assert reuse.held(got, manifest).tolist() == [True] * len(now)
        assert got.size.tolist() == [1000 + k for k in range(len(now))]  # the standby's bytes
        # A day later every date differs: nothing is held.
        got.since[:] = np.datetime64(today + timedelta(days=1), "D")
        assert not reuse.held(got, manifest).any()
