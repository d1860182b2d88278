"""Which project files of the previous site still hold: each project's page, record and badges are
made from its rows, the settings and the code; a digest of those decides whether they are rewritten.

The digests and the snapshot in which each project's files last changed are kept in the site's
`data/v1/pages.json`; that snapshot is the date the files show, so an unchanged file stays byte for byte.
A project whose own rows hold but whose place moved (ranks move with others' scores) has only its
place written again into its files (`publish.place`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from porchlamp import __version__
from porchlamp.publish.data import Project, SiteData, project_files

MANIFEST = Path("data") / "v1" / "pages.json"
MANIFEST_VERSION = 2  # 2: digests of a project's own rows kept apart from its place's


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
    return _digest(json.dumps([site_code(), site.settings.model_dump(mode="json"), issues_url, site_url], sort_keys=True))


def project_key(p: Project, site: SiteData, basis: str) -> str:
    """A digest of everything a project's files are made from but its place: its rows in the four
    result tables (by their stored digest: result row, goals, components, PRs) and links. Nothing
    of it needs the project read whole."""
    data: list[Any] = [basis, p.repo, p.digest, p.homepage, list(p.topics)]
    return _digest(json.dumps(data, sort_keys=True, default=str, ensure_ascii=False))


def place_key(p: Project, site: SiteData) -> str:
    """A digest of a project's place (`publish.place`): its goals' ranks, moves and explanations, and
    its change since the previous snapshot."""
    since = site.changes.previous if p.change is not None and site.changes is not None else None
    data = [p.place, None if p.change is None else [p.change.kind, p.change.words], since]
    return _digest(json.dumps(data, default=str, ensure_ascii=False))


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass
class Plan:
    """Each project's digest (`keys`: its own and its place's) and the snapshot its files show, which
    ones the previous site holds, and which it holds but for their place (with the date they show there)."""
    keys: dict[str, str]
    since: dict[str, date]
    reuse: set[str] = field(default_factory=set)
    own: dict[str, str] = field(default_factory=dict)
    placed: dict[str, date] = field(default_factory=dict)
    basis: str = ""  # `site_basis`: the code (and so the files a project has) its generation is written by

    def manifest(self) -> dict[str, Any]:
        return {"version": MANIFEST_VERSION,
                "projects": {r: [k, self.since[r].isoformat()] for r, k in sorted(self.keys.items())},
                "own": dict(sorted(self.own.items())), "basis": self.basis}


def read_written(site_dir: Path) -> tuple[dict[str, tuple[str, date]], str | None]:
    """A site's digests and dates by project, empty when it has no manifest or an unreadable one
    (then every file is written again: nothing is lost but time), and the `site_basis` its manifest
    says it was written under (None when it does not say)."""
    projects, _, basis = _read(site_dir)
    return projects, basis


def _read(site_dir: Path) -> tuple[dict[str, tuple[str, date]], dict[str, str], str | None]:
    try:
        raw = json.loads((site_dir / MANIFEST).read_text(encoding="utf-8"))
        if raw.get("version") != MANIFEST_VERSION:
            return {}, {}, None
        basis = raw.get("basis")
        return ({str(r): (str(v[0]), date.fromisoformat(v[1])) for r, v in raw["projects"].items()},
                {str(r): str(k) for r, k in raw["own"].items()}, basis if isinstance(basis, str) and basis else None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return {}, {}, None


def plan(site: SiteData, previous_dir: Path | None, basis: str, full: bool = False) -> Plan:
    """Digest every project; one whose digest is the previous site's keeps that site's date, and
    (unless `full`) its files when all of them are still there; one whose own digest is, its files
    but for their place."""
    before, owned, _ = _read(previous_dir) if previous_dir is not None else ({}, {}, None)
    out = Plan({}, {}, basis=basis)
    for p in site.projects:
        own = out.own[p.repo] = project_key(p, site, basis)
        key = out.keys[p.repo] = _digest(own + place_key(p, site))
        old = before.get(p.repo)
        # A date never runs ahead of the snapshot: a site published from a later one is not this one's past.
        if old is not None and old[1] <= site.as_of and (old[0] == key or owned.get(p.repo) == own):
            whole = not full and previous_dir is not None and _whole(previous_dir, p.repo)
            if old[0] == key:
                out.since[p.repo] = old[1]
                if whole:
                    out.reuse.add(p.repo)
                continue
            if whole:
                out.placed[p.repo] = old[1]
        out.since[p.repo] = site.as_of
    return out


def held(plan: Plan, site_dir: Path, before: Mapping[str, tuple[str, date]]) -> set[str]:
    """The projects whose files `site_dir` already holds as the plan would write them: the same
    digest and date in its manifest (`before`: `read_written`'s projects), and every file there."""
    return {r for r, key in plan.keys.items() if before.get(r) == (key, plan.since[r]) and _whole(site_dir, r)}


def project_folders(repos: Iterable[str]) -> dict[str, list[str]]:
    """The folders that hold `repos`' files, each to the names of those files. Of a complete
    generation written by this code (`read_written`: an earlier code may have given a project
    other files), whose manifest names every project it holds, that is all its project folders
    hold: what pruning it need not list (`generations.prune`)."""
    out: dict[str, list[str]] = {}
    for repo in repos:
        for rel in project_files(repo):
            folder, _, name = rel.rpartition("/")
            out.setdefault(folder, []).append(name)
    return out


def _whole(site_dir: Path, repo: str) -> bool:
    root = str(site_dir)  # asked of every project twice a publish: strings, not path objects
    return all(os.path.isfile(os.path.join(root, f)) for f in project_files(repo))


def carry_files(repos: Iterable[str], source: Path, target: Path) -> None:
    """Link (or, where the disk cannot, copy) each project's files from the previous site into the
    new one: unchanged files keep their bytes and their modification time."""
    link_files(source, target, (rel for repo in repos for rel in project_files(repo)))


def link_files(source: Path, target: Path, rels: Iterable[str]) -> None:
    """Each of `rels` linked (or copied) from `source` to `target`."""
    made: set[Path] = set()
    for rel in rels:
        dest = target / rel
        if dest.parent not in made:
            dest.parent.mkdir(parents=True, exist_ok=True)
            made.add(dest.parent)
        try:
            os.link(source / rel, dest)
        except OSError:
            shutil.copy2(source / rel, dest)
