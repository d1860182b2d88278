"""A site's two generations: each publish completes the standby one and swaps the link; the live
generation is never written to, and what the standby already holds is neither copied nor rewritten."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from porchlamp.config import Settings
from porchlamp.errors import SiteError
from porchlamp.publish import api, generations, load_site_data, publish, reuse
from porchlamp.publish.data import PROJECT_TREES
from porchlamp.publish.site import DEFAULT_ISSUES_URL
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store

from helpers import tree, tree_bytes

STEP = 3  # days between snapshots: some verdicts end with the window's move, most hold


MARK = 10**18  # a modification time no publish writes (2001-09-09), set on day one's files


def marked(root: Path) -> set[str]:
    return {str(f.relative_to(root)) for f in root.rglob("*") if f.is_file() and f.stat().st_mtime_ns == MARK}


@pytest.fixture(scope="module")
def days(store300: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Three snapshots STEP days apart, each evaluated after the one before, and read for publishing."""
    tmp = tmp_path_factory.mktemp("generations")
    db = tmp / "s.duckdb"
    db.write_bytes(store300.read_bytes())
    sites = []
    with Store(db) as s:
        first = date.fromisoformat(s.get_meta("collected_as_of"))
        for i in range(3):
            when = first + timedelta(days=STEP * i)
            s.set_meta("collected_as_of", when.isoformat())
            evaluate_store(s, when, Settings())
            sites.append(load_site_data(s, when))
    # The expected site of each day: every file written (`full`), each after the day before.
    written = tmp / "written"
    expected = []
    for site in sites:
        publish(site, written, full=True)
        expected.append(tree(written))
    return {"sites": sites, "tmp": tmp, "expected": expected}


def test_three_days_swap_between_two_generations(days: dict[str, Any], tmp_path: Path) -> None:
    one, two, three = days["sites"]
    out = tmp_path / "site"
    home = generations.home_of(out)
    # What each publish says its site holds is what it holds, though a day's lists only the files it wrote.
    assert publish(one, out).bytes == tree_bytes(out)
    assert out.is_symlink() and os.readlink(out) == f"{home.name}/a"
    for f in (home / "a").rglob("*"):
        if f.is_file():
            os.utime(f, ns=(MARK, MARK))
    first_bytes = tree(home / "a")
    assert publish(two, out).bytes == tree_bytes(out)
    assert os.readlink(out) == f"{home.name}/b"
    assert tree(home / "a") == first_bytes, "publishing wrote into the live generation"
    live_two = tree(home / "b")
    summary = publish(three, out)
    assert summary.bytes == tree_bytes(out)
    assert os.readlink(out) == f"{home.name}/a"
    assert tree(home / "b") == live_two, "publishing wrote into the live generation"
    assert tree(out) == days["expected"][2]  # byte for byte what writing every file gives
    # A project unchanged since day one kept its very files in generation a: not copied, not rewritten.
    manifest = reuse.read_manifest(out).projects()
    unchanged = [r for r, (_, since) in manifest.items() if since == one.as_of]
    assert 50 < len(unchanged) < 300 and summary.reused >= len(unchanged)
    kept = {str(rel) for r in unchanged for rel in reuse.project_files(r)}
    # So did the badges of one whose place alone moved since (its ranks): they show only its own tier.
    linked = marked(home / "a") - kept
    assert kept <= marked(home / "a") and linked
    assert all(rel.startswith(("badges/", "data/v1/shields/")) for rel in linked), linked
    # What generation a no longer needed was moved aside, then deleted by a process of its own.
    deadline = time.monotonic() + 60
    while list(home.glob(".trash-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sorted(p.name for p in home.iterdir()) == [".lock", ".parts", ".run", "a", "b"]


def test_a_days_size_lists_no_project_folder(days: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bytes a publish reports come from its writing and its manifests for the projects' files:
    only the rest of the site is listed; where a project's bytes are not known, the whole of it."""
    from porchlamp.publish import site as site_mod

    out = tmp_path / "site"
    listed: list[str] = []
    walk = site_mod._tree_bytes

    def spy(root: Any, skip: Any = ()) -> int:
        listed.append(str(root))
        return walk(root, skip)

    monkeypatch.setattr(site_mod, "_tree_bytes", spy)
    for site in days["sites"]:  # the third keeps files the standby holds, the second links the live site's
        listed.clear()
        assert publish(site, out).bytes == tree_bytes(out)
        assert listed and not [r for r in listed if any(f"/{folder}/" in r + "/" for folder in PROJECT_TREES)]
    # A manifest this code cannot read leaves the linked projects' bytes unknown: all is listed then.
    size = site_mod._site_bytes(out, np.array([5, -1]))
    assert size == tree_bytes(out) and any("/projects/" in r for r in listed)


def test_a_failed_publish_leaves_the_live_site_and_trusts_nothing_of_the_standby(days: dict[str, Any], tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    one, two, three = days["sites"]
    out = tmp_path / "site"
    publish(one, out)
    publish(two, out)
    live = tree(out)

    def boom(*a: Any, **k: Any) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as m:
        m.setattr(api, "write_dataset", boom)
        with pytest.raises(OSError, match="disk full"):
            publish(three, out)
    assert tree(out) == live
    standby = generations.home_of(out) / "a"
    assert not (standby / reuse.MANIFEST).exists(), "a half-built generation must not look complete"
    # The next publish writes the standby's projects again rather than trust what the failure left.
    publish(three, out)
    assert tree(out) == days["expected"][2]


def test_a_plain_folder_site_becomes_the_first_generation(days: dict[str, Any], tmp_path: Path) -> None:
    one, two, _ = days["sites"]
    out = tmp_path / "site"
    publish(one, out)
    legacy = tmp_path / "legacy"
    os.rename(os.path.realpath(out), legacy)  # a site as earlier versions left it: a plain folder
    before = tree(legacy)
    summary = publish(two, legacy)
    assert legacy.is_symlink() and tree(generations.home_of(legacy) / "a") == before
    assert summary.reused > 100  # the earlier site's unchanged projects are linked, not written


def test_a_second_publish_to_the_same_path_at_once_is_refused(days: dict[str, Any], tmp_path: Path) -> None:
    one = days["sites"][0]
    out = tmp_path / "site"
    publish(one, out)
    live = tree(out)
    with generations.locked(generations.prepare(out)):  # another publish, midway
        with pytest.raises(SiteError, match="another publish to this path is running"):
            publish(one, out)
        assert tree(out) == live
    assert publish(one, out).pages > 0  # once it is done, the next goes ahead


def test_a_killed_publishs_part_stops_once_the_next_publish_takes_the_site(days: dict[str, Any], tmp_path: Path) -> None:
    """A publish killed while its parts run on a cluster's workers: its lock goes with its process,
    but a part goes on writing into the standby. The next publish takes the site with a run token of
    its own and waits, before it prunes or writes anything, until no earlier part is writing; the part
    stops at its next project. What the next publish leaves is its own site alone."""
    from porchlamp.publish import site as site_mod

    one, two, three = days["sites"]
    out = tmp_path / "site"
    publish(one, out)
    publish(two, out)
    slots = generations.prepare(out)
    with generations.locked(slots) as killed:  # the killed publish of day three: its hold, then its process gone
        (slots.standby / reuse.MANIFEST).unlink()
    projects = [three.projects[i] for i in range(8)]
    first = reuse.project_files(projects[0].repo).page
    seen: list[str] = []
    failed: list[BaseException] = []
    finished = threading.Event()

    def next_publish() -> None:
        try:
            publish(three, out)
        except BaseException as e:  # said by the test, not lost with the thread
            failed.append(e)
        finally:
            finished.set()

    def step(n: int) -> None:
        seen.append("written")
        if len(seen) == 1:
            threading.Thread(target=next_publish, daemon=True).start()
            deadline = time.monotonic() + 60
            while killed.holds():  # the next publish has its token once it holds the site
                assert time.monotonic() < deadline
                time.sleep(0.01)
            time.sleep(0.5)
            # It waits for this part: nothing of the standby pruned or written yet.
            seen.append("waited" if not finished.is_set() and (slots.standby / first).exists() else "did not wait")

    with pytest.raises(SiteError, match="another publish has taken this site"):
        site_mod._write_part(site_mod._part(three, projects), slots.standby, {p.repo: date(2000, 1, 1) for p in projects},
                             DEFAULT_ISSUES_URL, "", progress=step, run=killed)
    assert seen == ["written", "waited"]  # stopped before its second project
    assert finished.wait(300) and not failed, failed
    assert tree(out) == days["expected"][2]


def test_a_part_that_does_not_stop_is_an_error_that_changes_nothing(days: dict[str, Any], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A part of an earlier publish still writing when the wait is over (its worker hung): the next
    publish says so and which folder, and leaves the live site as it was."""
    one, two, _ = days["sites"]
    out = tmp_path / "site"
    publish(one, out)
    live = tree(out)
    slots = generations.prepare(out)
    with generations.locked(slots) as killed:
        pass
    monkeypatch.setattr(generations, "PARTS_WAIT", 0.5)
    with killed.writing():  # a part between its check and its project's last file
        with pytest.raises(SiteError, match=r"a part of an earlier publish has been writing into .*/b for over 0.5 s"):
            publish(two, out)
    assert tree(out) == live
    assert publish(two, out).pages > 0  # once it has stopped, the next goes ahead


def test_a_file_written_where_a_shared_one_is_leaves_the_other_generation_alone(tmp_path: Path) -> None:
    """The generations share files as hard links: writing a page where one is must replace it."""
    live, standby = tmp_path / "live.html", tmp_path / "standby.html"
    live.write_text("the live page")
    os.link(live, standby)
    api.write_text(standby, "the next page")
    assert live.read_text() == "the live page" and standby.read_text() == "the next page"
    api.write_text(tmp_path / "new" / "folder" / "page.html", "made")
    assert (tmp_path / "new" / "folder" / "page.html").read_text() == "made"


def test_paths_it_will_not_take(tmp_path: Path, days: dict[str, Any]) -> None:
    one = days["sites"][0]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "linked"
    link.symlink_to(elsewhere)
    with pytest.raises(SiteError, match="not one Porchlamp made"):
        publish(one, link)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(SiteError, match="not a Porchlamp site"):
        publish(one, busy)
    assert (busy / "notes.txt").read_text() == "mine" and not generations.home_of(busy).exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    publish(one, empty)
    assert empty.is_symlink() and (empty / "index.html").is_file()


def test_projects_written_in_parts_on_two_processes_are_the_same_bytes(days: dict[str, Any], tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from porchlamp.publish import site as site_mod

    three = days["sites"][2]
    one = publish(three, tmp_path / "one", workers=1)
    monkeypatch.setattr(site_mod, "PARALLEL_FROM", 1)
    monkeypatch.setattr(site_mod, "PART", 37)  # parts that end inside row groups of the detail files
    seen: list[int] = []
    two = publish(three, tmp_path / "two", workers=2, progress=seen.append)
    assert tree(tmp_path / "two") == tree(tmp_path / "one")
    assert two.pages == one.pages and sum(seen) == 300 and len(seen) == -(-300 // 37)
    assert two.bytes == one.bytes == tree_bytes(tmp_path / "two")
    assert publish(three, tmp_path / "quiet", workers=2).pages == one.pages  # no progress to report to


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_by_default_projects_are_written_on_the_cores_this_process_may_run_on(days: dict[str, Any], tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A process held to one core (a container's CPU set, taskset) is not given a process per core of
    the machine: they would take turns on it."""
    from porchlamp.publish import site as site_mod

    asked: list[int] = []
    real = site_mod.write_projects

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(args[8])  # write_projects' `workers`
        return real(*args, **kwargs)

    monkeypatch.setattr(site_mod, "write_projects", spy)
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        publish(days["sites"][0], tmp_path / "held")
    finally:
        os.sched_setaffinity(0, allowed)
    publish(days["sites"][0], tmp_path / "free")
    assert asked == [1, len(allowed)]
    assert tree(tmp_path / "held") == tree(tmp_path / "free")


def test_a_day_in_parts_places_and_links_as_one_process_does(days: dict[str, Any], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the day before: the unchanged projects linked while the parts are written, the projects
    whose ranks alone moved given them in their previous files by whichever process has their part."""
    from porchlamp.publish import site as site_mod

    one, two = days["sites"][:2]
    for name in ("serial", "parts"):
        publish(one, tmp_path / name, workers=1)
    serial = publish(two, tmp_path / "serial", workers=1)
    monkeypatch.setattr(site_mod, "PARALLEL_FROM", 1)
    monkeypatch.setattr(site_mod, "PART", 37)
    parts = publish(two, tmp_path / "parts", workers=2)
    assert tree(tmp_path / "parts") == tree(tmp_path / "serial")
    assert parts.placed == serial.placed > 10 and parts.reused == serial.reused > 50
    assert parts.bytes == serial.bytes == tree_bytes(tmp_path / "parts")


def test_projects_written_on_a_dask_cluster_are_the_same_bytes_through_a_killed_worker(days: dict[str, Any], tmp_path: Path,
                                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The parts handed to the workers of a scheduler given by its address, as on machines sharing
    a file system; the first worker to write its 20th project dies as `kill -9` would, and its part
    is written whole again by another. The site is the one a single process writes."""
    from distributed import LocalCluster

    from porchlamp.publish import site as site_mod

    one, two = days["sites"][:2]
    for name in ("serial", "cluster"):
        publish(one, tmp_path / name, workers=1)
    serial = publish(two, tmp_path / "serial", workers=1)
    monkeypatch.setattr(site_mod, "PART", 37)
    marker = tmp_path / "killed"
    # The worker processes inherit these (this one read them when it first imported `killpoints`: never).
    monkeypatch.setenv("PORCHLAMP_KILL_AT", "project_written:20")
    monkeypatch.setenv("PORCHLAMP_KILL_ONCE", str(marker))
    seen: list[int] = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40) as cluster:
        parts = publish(two, tmp_path / "cluster", cluster=cluster.scheduler_address, progress=seen.append)
    assert marker.exists()  # a worker did die
    assert tree(tmp_path / "cluster") == tree(tmp_path / "serial")
    assert parts.pages == serial.pages and parts.placed == serial.placed > 10 and parts.reused == serial.reused > 50
    assert parts.bytes == serial.bytes == tree_bytes(tmp_path / "cluster")
    assert sum(seen) == 300  # the kept ones at once, then part by part


def test_an_unreachable_scheduler_changes_no_site(days: dict[str, Any], tmp_path: Path) -> None:
    from porchlamp.cluster import ClusterError

    site = tmp_path / "site"
    publish(days["sites"][0], site, workers=1)
    before = tree(site)
    with pytest.raises(ClusterError, match=r"could not reach the scheduler at tcp://127\.0\.0\.1:9"):
        publish(days["sites"][1], site, cluster="tcp://127.0.0.1:9")
    assert tree(site) == before


KILLED_MIDWAY = """
import os, signal, sys
import psutil
from porchlamp.publish import load_site_data, publish, site
from porchlamp.store import Store

site.PARALLEL_FROM, site.PART = 1, 5
with Store(sys.argv[1], read_only=True) as s:
    data = load_site_data(s)

def killed(n):
    with open(sys.argv[3], "w") as f:
        f.write(" ".join(str(c.pid) for c in psutil.Process().children(recursive=True)))
    os.kill(os.getpid(), signal.SIGKILL)

publish(data, sys.argv[2], workers=2, progress=killed)
"""


def test_writing_processes_end_with_a_killed_publish(days: dict[str, Any], tmp_path: Path) -> None:
    import psutil

    pids = tmp_path / "pids"
    # Output to a file, not a pipe: a process left behind would hold a pipe open and hang the wait.
    with (tmp_path / "stderr").open("w") as err:
        run = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(days["tmp"] / "s.duckdb"), str(tmp_path / "site"),
                              str(pids)], stdout=subprocess.DEVNULL, stderr=err, timeout=300)
    assert run.returncode == -signal.SIGKILL, (tmp_path / "stderr").read_text()
    children = [int(p) for p in pids.read_text().split()]
    assert len(children) >= 2  # the writing processes (and multiprocessing's helper)

    def alive(pid: int) -> bool:
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    deadline = time.monotonic() + 20
    while any(alive(p) for p in children):
        assert time.monotonic() < deadline, "a writing process outlived the publish"
        time.sleep(0.2)
    assert not (tmp_path / "site").exists()  # nothing half-built was switched in


def _dirs_and_files(root: Path) -> tuple[set[str], set[str]]:
    return ({str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir()},
            {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()})


@given(st.lists(st.tuples(st.sampled_from(["o", "p", ".q", "r~"]), st.sampled_from(["a", "b", "c.d"])), min_size=1, max_size=8,
                unique=True),
       st.data())
@settings(max_examples=40, deadline=None)
def test_pruning_with_the_manifests_folders_leaves_what_listing_them_leaves(projects: list[tuple[str, str]], data: Any) -> None:
    """A complete generation's project folders hold its manifest's projects' files and nothing else:
    pruning them from the manifest (an owner's folders moved whole when none of its projects is
    kept or to be written again, the files of the projects not kept otherwise; the rest not listed)
    leaves the same files as listing them, and the same folders but those a project to write goes
    into; moves the same files away, and passes over a file the manifest names that is not there."""
    repos = sorted(f"{o}/{n}" for o, n in projects)
    kept = data.draw(st.sets(st.sampled_from(repos), min_size=1))
    written = data.draw(st.sets(st.sampled_from(repos))) - kept
    # One project's badge missing, as a failed write leaves it (a kept project has every file: `reuse.held`).
    gone = data.draw(st.sampled_from([None, *(r for r in repos if r not in kept)]))
    keep = {rel for r in kept for rel in reuse.project_files(r)}
    # The manifest in any order.
    listed = pa.array(data.draw(st.permutations(repos)), pa.string())
    manifest = reuse.Manifest(pa.table([listed, *(pa.nulls(len(repos), t.type) for t in list(reuse.MANIFEST_SCHEMA)[1:])],
                                       schema=reuse.MANIFEST_SCHEMA), "basis")
    drop = list(reuse.dropped(manifest, pa.array(sorted(kept), pa.string()), pa.array(sorted(kept | written), pa.string())))
    whole = {r.split("/", 1)[0] for r in repos} - {r.split("/", 1)[0] for r in kept | written}
    assert sum(rel.endswith("/") for rel in drop) == 4 * len(whole)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for known in (False, True):
            home = Path(tmp) / ("known" if known else "listed")
            root = home / "g"
            for r in repos:
                for rel in reuse.project_files(r):
                    if not (r == gone and rel == reuse.project_files(r).badge):
                        (root / rel).parent.mkdir(parents=True, exist_ok=True)
                        (root / rel).write_text(r)
            (root / "index.html").write_text("whole-site page")
            (root / "projects" / "stray.html").write_text("whole-site page")  # beside the owners' folders
            (root / "rankings" / "x").mkdir(parents=True)
            if known:
                generations.prune(root, set(), PROJECT_TREES, drop)
            else:
                generations.prune(root, keep)
            trash = sorted(home.glob(".trash-*"))
            away = sorted(f.read_text() for t in trash for f in t.rglob("*") if f.is_file())
            results.append((_dirs_and_files(root), away))
    (listed_tree, listed_away), (known_tree, known_away) = results
    # The folders, that were there, of the owners with a project to write.
    owners = {r.split("/", 1)[0] for r in written}
    into = {rel.rsplit("/", 1)[0] for r in repos if r.split("/", 1)[0] in owners for rel in reuse.project_files(r)
            if not (r == gone and rel == reuse.project_files(r).badge)}
    assert known_tree == (listed_tree[0] | into, listed_tree[1]) and known_away == listed_away
    missing = {reuse.project_files(gone).badge} if gone else set()
    assert listed_tree[1] == keep - missing  # the whole-site pages and folder went too
    assert len(listed_away) == 4 * len(repos) - len(missing) - len(keep - missing) + 2  # and the two pages


def test_a_standby_written_by_other_code_is_pruned_by_listing_it(days: dict[str, Any], tmp_path: Path) -> None:
    """Other code may have given a project other files: its generation's project folders are listed,
    so a file the manifest does not account for is moved aside all the same."""
    one, two, three = days["sites"]
    out = tmp_path / "site"
    publish(one, out)
    publish(two, out)
    standby = generations.home_of(out) / "a"
    manifest = reuse.read_manifest(standby)
    assert manifest.basis == reuse.site_basis(one, DEFAULT_ISSUES_URL, "")
    meta = json.loads(pq.read_schema(standby / reuse.MANIFEST).metadata[b"porchlamp"])
    assert meta["basis"] == manifest.basis
    table = pq.read_table(standby / reuse.MANIFEST)
    pq.write_table(table.replace_schema_metadata({b"porchlamp": json.dumps({**meta, "basis": "an earlier code"}).encode()}),
                   standby / reuse.MANIFEST)
    assert reuse.read_manifest(standby).basis == "an earlier code" and len(reuse.read_manifest(standby)) == len(manifest)
    strays = {(standby / reuse.project_files(r).page).parent / "an-older-file.html" for r in manifest.projects()}
    for stray in strays:  # beside every project, kept on day three or not
        stray.write_text("left by other code")
    publish(three, out)
    assert os.readlink(out).endswith("/a")
    assert not any(stray.exists() for stray in strays)
    assert tree(out) == days["expected"][2]
