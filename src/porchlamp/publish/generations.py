"""Where a published site lives: two generations in a hidden folder beside it, the live one named by
a symbolic link at the site's path, so a publish completes the other one and swaps the link in one rename.

The standby generation (the site as it was two publishes ago) keeps every file that still holds; what
it no longer needs is moved aside and deleted after the switch. Readers see the old site or the new
one, never neither.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from porchlamp.errors import SiteError

NAMES = ("a", "b")
TRASH = ".trash-"
LOCK = ".lock"
RUN = ".run"  # the token of the publish that holds the generations
PARTS = ".parts"  # held shared by each part while it writes
PARTS_WAIT = 120.0  # seconds a publish waits for an earlier one's parts to stop


def home_of(target: Path) -> Path:
    """The folder that holds `target`'s generations: `.site.generations` beside `site`."""
    return target.parent / f".{target.name}.generations"


def shared_folder(target: str | Path) -> Path:
    """The folder the site `target` is in, made if missing, as an absolute path: where a publish keeps
    its generations, so, for one whose workers are elsewhere, where what they must read goes too
    (`load_site_data`)."""
    given = Path(target)
    folder = given.parent.resolve()  # the last part may be the link: never resolved
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass(frozen=True)
class Slots:
    """A site's path, its live generation (None before the first publish) and the one to complete."""
    target: Path
    live: Path | None
    standby: Path


def is_site(path: Path) -> bool:
    return (path / "data" / "v1" / "index.json").is_file()


def prepare(target: Path) -> Slots:
    """Find (or make) the generations of the site at `target`, an absolute path whose last part is
    not resolved. A site published before generations existed (a plain folder) becomes the live
    generation: moved, then named by the link (the one publish in which the path is briefly absent)."""
    home = home_of(target)
    if target.is_symlink():
        link = os.readlink(target)
        live = (target.parent / link)
        if Path(link).parent != Path(home.name) or live.name not in NAMES:
            raise SiteError(f"{target}: is a link to {link}, not one Porchlamp made; publish to another path or remove the link")
        if not is_site(live):
            raise SiteError(f"{target}: its generation {live} holds no site; remove {target} and {home} to publish afresh")
    elif target.exists():
        if not target.is_dir():
            raise SiteError(f"{target}: exists and is not a folder; choose an empty or new directory")
        if is_site(target):
            home.mkdir(exist_ok=True)
            _clear(home / NAMES[0])
            os.replace(target, home / NAMES[0])
            _link(target, NAMES[0])
            live = home / NAMES[0]
        elif any(target.iterdir()):
            raise SiteError(f"{target}: exists and is not a Porchlamp site; choose an empty or new directory")
        else:
            target.rmdir()
            live = None
    else:
        live = None
    home.mkdir(exist_ok=True)
    standby = home / (NAMES[1] if live is not None and live.name == NAMES[0] else NAMES[0])
    standby.mkdir(exist_ok=True)
    return Slots(target, live, standby)


@dataclass(frozen=True)
class Run:
    """One publish's hold on a site's generations as the processes writing its parts see it, here or
    on other machines sharing the folder: the hold is its token in the run file, taken over by the
    next publish. A killed publish's lock goes with its process, but parts it handed to a cluster's
    workers run on: each checks the token before each project and stops once it is another's."""
    home: str
    token: str

    def holds(self) -> bool:
        try:
            with open(os.path.join(self.home, RUN), encoding="utf-8") as f:  # opened each time: read afresh on NFS too
                return f.read() == self.token
        except FileNotFoundError:
            return False

    def check(self) -> None:
        """Stop a part (SiteError) once another publish holds the site."""
        if not self.holds():
            raise SiteError(f"{self.home}: another publish has taken this site's generations; this part of an earlier "
                            "one stops writing")

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Held, shared, while a part writes: a publish taking the site waits until none of an earlier
        one's parts is between a check and the end of its project's files."""
        with open(os.path.join(self.home, PARTS), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)
            try:
                self.check()
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def locked(slots: Slots, wait: float | None = None) -> Iterator[Run]:
    """Hold the site's generations for one publish: a second publish to the same path at the same
    time would complete the same standby generation under the first one's feet. The lock goes with
    the process, so a killed publish leaves none behind; the parts it had handed out elsewhere are
    told by a new run token, and waited for (up to `wait` seconds, PARTS_WAIT by default) until none writes."""
    home = home_of(slots.target)
    with open(home / LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SiteError(f"{slots.target}: another publish to this path is running; wait for it to finish") from None
        try:
            run = Run(str(home), f"{os.getpid()}-{secrets.token_hex(8)}")
            tmp = home / f"{RUN}-{os.getpid()}"
            tmp.write_text(run.token, encoding="utf-8")
            os.replace(tmp, home / RUN)
            _parts_done(slots, PARTS_WAIT if wait is None else wait)
            yield run
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _parts_done(slots: Slots, wait: float) -> None:
    """Return once no part of an earlier publish writes (each holds the parts file shared while it
    does, and lets go at its next project once the run token is not its own)."""
    deadline = time.monotonic() + wait
    with open(home_of(slots.target) / PARTS, "a") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SiteError(f"{slots.target}: a part of an earlier publish has been writing into {slots.standby} "
                                    f"for over {wait:g} s; stop the workers it ran on, then publish again") from None
                time.sleep(0.05)


def prune(root: Path, keep: set[str], trees: Collection[str] = (), drop: Iterable[str] = ()) -> None:
    """Move every file under `root` whose path (relative, with '/') is not in `keep`, and every folder
    holding none of them, into a trash folder beside the generations. Files are moved, never
    rewritten in place (the generations share files, as hard links), and moved rather than deleted
    because deleting is slow where the disk frees blocks as it goes: `discard` deletes the trash
    once the new site is live. `trees`: folders whose subfolders hold only known files, kept
    without listing them but for what `drop` names: files and folders (ending in '/'), each moved
    (passed over when not there). A site's projects are a folder each per owner, tens of thousands
    to list otherwise. Files directly in such a folder are pruned as anywhere else."""
    held = {rel[:i] for rel in keep for i in _slashes(rel)}  # every folder that holds a kept file
    held |= {rel[:i] for rel in trees for i in _slashes(rel + "/")}
    trash = root.parent / f"{TRASH}{os.getpid()}-{time.time_ns()}"
    moved = 0

    def away(path: str, missing_ok: bool = False) -> None:
        nonlocal moved
        if not moved:
            trash.mkdir(exist_ok=True)
        try:
            os.rename(path, trash / str(moved))
        except FileNotFoundError:
            if not missing_ok:
                raise
            return
        moved += 1

    def walk(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            found = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        known = prefix[:-1] in trees
        for name, is_dir in found:
            if is_dir and known:
                continue
            if is_dir and prefix + name in held:
                walk(os.path.join(folder, name), prefix + name + "/")
            elif is_dir or prefix + name not in keep:
                away(os.path.join(folder, name))

    for rel in drop:
        away(os.path.join(root, rel).rstrip("/"), missing_ok=True)
    walk(str(root), "")


def _slashes(rel: str) -> Iterator[int]:
    """Where each folder of a relative path ends ('a/b/c' → 1, 3): its parents without making a
    path object of each, tens of thousands of times a publish."""
    i = rel.find("/")
    while i > 0:
        yield i
        i = rel.find("/", i + 1)


def discard(target: Path) -> None:
    """Delete the trash of `target`'s generations in a process of its own that outlives this one:
    the site is already live, and nothing waits on the disk freeing what it held. A publish that
    died before this step leaves its trash for the next one."""
    for path in sorted(home_of(target).glob(f"{TRASH}*")):
        subprocess.Popen(["rm", "-rf", "--", str(path)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def swap(slots: Slots) -> None:
    """Point the site's path at the completed standby generation in one rename."""
    _link(slots.target, slots.standby.name)


def _link(target: Path, name: str) -> None:
    tmp = target.parent / f".{target.name}.link-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    os.symlink(Path(home_of(target).name) / name, tmp)
    os.replace(tmp, target)


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)
