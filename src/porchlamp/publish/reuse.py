"""Which project files of the previous site still hold: each project's page, record and badges are
made from its rows, the settings and the code; a digest of those decides whether they are rewritten.

The digests and the snapshot in which each project's files last changed are kept in the site's
`data/v1/pages.parquet`; that snapshot is the date the files show, so an unchanged file stays byte
for byte. A project whose own rows hold but whose place moved (ranks move with others' scores) has
only its place written again into its files (`publish.place`). The plan is columns in the site's
project order, joined to a manifest by Arrow: a few dozen bytes a project, never an object each.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from porchlamp import __version__
from porchlamp.publish.data import Project, SiteData, project_files
from porchlamp.publish.listing import Listing

MANIFEST = Path("data") / "v1" / "pages.parquet"
# 4: each project's files' bytes; 3: a Parquet table, digests as 16 bytes; 2: digests of a project's own rows kept
# apart from its place's
MANIFEST_VERSION = 4
DIGEST = pa.binary(16)
MANIFEST_SCHEMA = pa.schema([("repo", pa.string()), ("key", DIGEST), ("own", DIGEST), ("since", pa.date32()),
                             ("bytes", pa.int64())])
_META = b"porchlamp"
# Names looked up a slice at a time (a list of them costs ~60 bytes each while it lives).
SLICE = 4096


def site_code() -> str:
    """A digest of the whole package's source, templates and rules: a page is reused only when the
    code that would write it again is the same, whatever the version string says."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.blake2b(__version__.encode("utf-8"), digest_size=16)
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(path.relative_to(root)).encode("utf-8") + b"\x00" + path.read_bytes())
    return h.hexdigest()


def site_basis(site: SiteData, issues_url: str, site_url: str) -> str:
    """What every project's files depend on besides the project: code, settings and the site's links."""
    text = json.dumps([site_code(), site.settings.model_dump(mode="json"), issues_url, site_url], sort_keys=True)
    return _digest(text).hex()


def project_key(p: Project, site: SiteData, basis: str) -> bytes:
    """A digest of everything a project's files are made from but its place: its rows in the four
    result tables (by their stored digest: result row, goals, components, PRs) and links. Nothing
    of it needs the project read whole."""
    data: list[Any] = [basis, p.repo, p.digest, p.homepage, list(p.topics)]
    return _digest(json.dumps(data, sort_keys=True, default=str, ensure_ascii=False))


def place_key(p: Project, site: SiteData) -> bytes:
    """A digest of a project's place (`publish.place`): its goals' ranks, moves and explanations, and
    its change since the previous snapshot."""
    since = site.changes.previous if p.change is not None and site.changes is not None else None
    data = [p.place, None if p.change is None else [p.change.kind, p.change.words], since]
    return _digest(json.dumps(data, default=str, ensure_ascii=False))


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


@dataclass(frozen=True)
class Manifest:
    """A generation's manifest as columns (`MANIFEST_SCHEMA`: each project's digest of all its files
    are made from, of its own rows, the snapshot its files show, and their bytes) and the `site_basis` it was
    written under; empty (basis None) when the generation has none, or one this code cannot read."""
    table: pa.Table
    basis: str | None

    def __len__(self) -> int:
        return self.table.num_rows

    def column(self, name: str) -> pa.Array:
        return self.table.column(name).combine_chunks()

    def projects(self) -> dict[str, tuple[str, date]]:
        """Each project's digest (hex) and date, by name: for a reader of a few projects, or a test."""
        cols = self.table.to_pydict()
        return {r: (k.hex(), d) for r, k, d in zip(cols["repo"], cols["key"], cols["since"])}


def _no_manifest() -> Manifest:
    return Manifest(MANIFEST_SCHEMA.empty_table(), None)


def read_manifest(site_dir: Path) -> Manifest:
    """`site_dir`'s manifest; an empty one when it has none or an unreadable one (then every file is
    written again: nothing is lost but time)."""
    empty = _no_manifest()
    try:
        table = pq.read_table(site_dir / MANIFEST)
        meta = json.loads((table.schema.metadata or {}).get(_META, b"{}"))
        if meta.get("version") != MANIFEST_VERSION or not table.schema.equals(MANIFEST_SCHEMA, check_metadata=False):
            return empty
        basis = meta.get("basis")
        return Manifest(table.replace_schema_metadata(None), basis if isinstance(basis, str) and basis else None)
    except (OSError, ValueError, pa.ArrowException, AttributeError):
        return empty


@dataclass
class Plan:
    """Each project's digests (`key`: of all its files are made from; `own`: of its own rows) and the
    snapshot its files show (`since`), in the site's project order (position i is `site.projects[i]`);
    which of them the previous site holds (`reuse`), and which it holds but for their place
    (`placed`, with the date their files show there, `shown`); the bytes of each project's files
    (`size`), -1 until they are known: from a manifest for the files it holds, from the writing for
    the others."""
    repos: pa.Array
    key: pa.Array
    own: pa.Array
    since: np.ndarray
    reuse: np.ndarray
    placed: np.ndarray
    shown: np.ndarray
    size: np.ndarray
    basis: str = ""  # `site_basis`: the code (and so the files a project has) its generation is written by

    def since_at(self, i: int) -> date:
        return self.since[i].item()

    def shown_at(self, i: int) -> date:
        return self.shown[i].item()

    def write_manifest(self, site_dir: Path) -> None:
        """The plan as `site_dir`'s manifest (`read_manifest`), in the site's project order."""
        table = pa.table([self.repos, self.key, self.own, pa.array(self.since, pa.date32()), pa.array(self.size, pa.int64())],
                         schema=MANIFEST_SCHEMA)
        meta = {_META: json.dumps({"version": MANIFEST_VERSION, "basis": self.basis}).encode("utf-8")}
        path = site_dir / MANIFEST
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table.replace_schema_metadata(meta), path, row_group_size=1 << 16)


def project_names(site: SiteData) -> pa.Array:
    """The site's project names in its order: the listing's own column, or made from a list."""
    if isinstance(site.projects, Listing):
        return site.projects.column("repo").combine_chunks()
    return pa.array([p.repo for p in site.projects], pa.string())


def _fixed(buf: bytearray, n: int) -> pa.Array:
    return pa.FixedSizeBinaryArray.from_buffers(DIGEST, n, [None, pa.py_buffer(bytes(buf))])


def _lookup(names: pa.Array, manifest: Manifest) -> tuple[pa.Array, np.ndarray]:
    """Where each of `names` is in `manifest` (null where it is not), and whether it is there."""
    at = pc.index_in(names, value_set=manifest.column("repo"))
    return at, at.is_valid().to_numpy(zero_copy_only=False)


def _same(manifest: Manifest, name: str, at: pa.Array, values: pa.Array) -> np.ndarray:
    """Whether `manifest`'s column `name` at `at` (`_lookup`'s positions) equals `values`: False
    where a name is not there."""
    return pc.fill_null(pc.equal(manifest.column(name).take(at), values), False).to_numpy(zero_copy_only=False)


def _dates(manifest: Manifest, at: pa.Array, missing: date) -> np.ndarray:
    """`manifest`'s dates at `at` (`_lookup`'s positions), `missing` where a name is not there."""
    return pc.fill_null(manifest.column("since").take(at), missing).to_numpy(zero_copy_only=False).astype("datetime64[D]")


def _sizes(manifest: Manifest, at: pa.Array) -> np.ndarray:
    """`manifest`'s bytes at `at` (`_lookup`'s positions), -1 where a name is not there."""
    return pc.fill_null(manifest.column("bytes").take(at), -1).to_numpy(zero_copy_only=False).astype(np.int64)


def plan(site: SiteData, previous_dir: Path | None, basis: str, full: bool = False) -> Plan:
    """Digest every project; one whose digest is the previous site's keeps that site's date, and
    (unless `full`) its files; one whose own digest is, its files but for their place. The previous
    site's manifest is its word for what it holds: a generation has one only once it is complete, so
    the disk is not asked (four files a project, seconds where it must be read); a file gone since is
    found where it is linked or read, and its project written whole (`link_files`, `place`)."""
    own_buf, key_buf = bytearray(), bytearray()
    for p in site.projects:
        own = project_key(p, site, basis)
        own_buf += own
        key_buf += _digest(own.hex() + place_key(p, site).hex())
    repos = project_names(site)
    n = len(repos)
    own_col, key_col = _fixed(own_buf, n), _fixed(key_buf, n)
    del own_buf, key_buf
    today = np.datetime64(site.as_of, "D")
    since = np.full(n, today)
    reuse, placed = np.zeros(n, bool), np.zeros(n, bool)
    size = np.full(n, -1, np.int64)
    before = read_manifest(previous_dir) if previous_dir is not None else _no_manifest()
    if len(before):
        at, found = _lookup(repos, before)
        shown = _dates(before, at, site.as_of)
        # A date never runs ahead of the snapshot: a site published from a later one is not this one's past.
        found &= shown <= today
        same = found & _same(before, "key", at, key_col)
        own_held = found & ~same & _same(before, "own", at, own_col)
        since[same] = shown[same]
        if not full and previous_dir is not None:
            reuse, placed = same, own_held
            size[reuse] = _sizes(before, at)[reuse]  # linked: the same files
    else:
        shown = since.copy()
    return Plan(repos, key_col, own_col, since, reuse, placed, shown, size, basis=basis)


def held(plan: Plan, before: Manifest) -> np.ndarray:
    """Which of the plan's projects the generation of manifest `before` already holds as the plan
    would write them: the same digest and date there. A generation has its manifest only once it is
    complete (a publish removes it before changing anything there), so the disk is not asked. Their
    bytes (`before`'s) go into the plan's `size`."""
    if not len(before):
        return np.zeros(len(plan.repos), bool)
    at, found = _lookup(plan.repos, before)
    out = found & (_dates(before, at, date.min) == plan.since) & _same(before, "key", at, plan.key)
    plan.size[out] = _sizes(before, at)[out]
    return out


def dropped(before: Manifest, kept: pa.Array, present: pa.Array) -> Iterator[str]:
    """What pruning the generation of manifest `before` moves aside of its projects' folders: the
    files of its projects not among `kept` (names), or, where none of an owner's projects is
    `present` in the new site (kept or to be written again), that owner's folders whole (each named
    with a closing '/'): one rename rather than a rename and a folder's removal per file, five times
    faster on ext4. An owner with a project to write keeps its folders, to be written into: its
    projects' files are moved one by one instead (for an owner of one project, as many renames as
    its four folders), and no folder is made again."""
    repos = before.column("repo")
    stays = pc.is_in(repos, value_set=kept).to_numpy(zero_copy_only=False)
    listed = pc.is_in(repos, value_set=present).to_numpy(zero_copy_only=False)
    # In byte order an owner's projects come together, whatever order the manifest is in.
    order = pc.sort_indices(repos).to_numpy(zero_copy_only=False)
    run: list[tuple[str, bool, bool]] = []
    for i, repo in _named(repos, order):
        if run and run[0][0].split("/", 1)[0] != repo.split("/", 1)[0]:
            yield from _owner_dropped(run)
            run = []
        run.append((repo, bool(stays[i]), bool(listed[i])))
    yield from _owner_dropped(run)


def _owner_dropped(run: list[tuple[str, bool, bool]]) -> Iterator[str]:
    if run and not any(listed for _, _, listed in run):
        yield from (rel.rsplit("/", 1)[0] + "/" for rel in project_files(run[0][0]))
        return
    for repo, stay, _ in run:
        if not stay:
            yield from project_files(repo)


def names_at(names: pa.Array, positions: np.ndarray) -> Iterator[str]:
    """`names` at `positions`, in their order, made a slice at a time."""
    for _, name in _named(names, positions):
        yield name


def _named(names: pa.Array, positions: np.ndarray) -> Iterator[tuple[int, str]]:
    for start in range(0, len(positions), SLICE):
        part = positions[start:start + SLICE]
        yield from zip(part.tolist(), names.take(pa.array(part)).to_pylist())


def carry_files(repos: Iterable[str], source: Path, target: Path) -> list[int]:
    """Link (or, where the disk cannot, copy) each project's files from the previous site into the
    new one: unchanged files keep their bytes and their modification time. Returns where among
    `repos` (their places, counted from 0) are the projects of which a file was not there, for the
    caller to write whole."""
    made: set[Path] = set()
    return [k for k, repo in enumerate(repos) if link_files(source, target, project_files(repo), made)]


def link_files(source: Path, target: Path, rels: Iterable[str], made: set[Path] | None = None) -> list[str]:
    """Each of `rels` linked (or copied) from `source` to `target`, the folders in `made` (and those
    it makes, added to it) taken as there; returns those not in `source`. A file linked is replaced
    when written again, never written through (`api.write_text`)."""
    made = set() if made is None else made
    missing = []
    for rel in rels:
        dest = target / rel
        if dest.parent not in made:
            dest.parent.mkdir(parents=True, exist_ok=True)
            if len(made) >= SLICE:  # files come a folder after another: the last few folders are enough
                made.clear()
            made.add(dest.parent)
        try:
            _link(source / rel, dest)
        except FileNotFoundError:
            missing.append(rel)
    return missing


def _link(source: Path, dest: Path) -> None:
    """`source` linked at `dest`, or copied where the disk cannot link. A file there already is
    replaced: a part run again because its worker died finds what it linked or wrote before. A
    `source` not there raises FileNotFoundError."""
    try:
        os.link(source, dest)
    except FileExistsError:
        dest.unlink()
        _link(source, dest)
    except FileNotFoundError:
        raise
    except OSError:
        shutil.copy2(source, dest)
