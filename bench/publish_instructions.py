"""Instructions writing projects' files takes, counted by valgrind's cachegrind: a publishing
process's share of a day, compared between versions where seconds here drift too much to.

    .venv/bin/python bench/publish_instructions.py --store STORE.duckdb --code DIR [--code DIR ...]
        [--projects 300] [--work DIR]

The store (collected or evaluated; copied, never changed) is evaluated for the day it was collected
for if it holds no snapshot. For each `--code` (a copy of one version's tree: its `src` is what is
imported), a child reads the latest snapshot as the site shows it with that code and keeps every
third project up to `--projects` of them (their part, and a copy of the detail files). Then two
children run under `valgrind --tool=cachegrind --cache-sim=no`: both write the part's files once into
a new folder and remove the files, keeping the folders; one then writes them again. The difference
is what a day's publish spends on a project written whole (its folders there, its files not: what
pruning the standby leaves). Every code's files must equal the first code's byte for byte, or the
benchmark stops. Prints one JSON object: each code's count and its ratio to the first's. Needs
valgrind (Debian's `valgrind`); writing runs about 50 times slower under it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from publish_daily import evaluate, scratch  # noqa: E402  (beside this file; imports the `src` above)
from porchlamp.store import Store  # noqa: E402

def counted(child: str, args: list[str], what: str) -> int:
    """Instructions a Python child (`child`, run with `args`) took, as cachegrind's `I refs`; its strings
    hashed alike in every run, so that its sets and dicts are walked in one order. Exits saying `what`
    did not run if it failed."""
    run = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", child, *args],
                         capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    if run.returncode != 0 or found is None:
        sys.exit(f"{Path(sys.argv[0]).stem}: {what} did not run:\n{run.stderr[-3000:]}")
    return int(found.group(1).replace(",", ""))


# Run with the code under test first on the path. argv: code dir, store, projects, where the part
# and its detail files go.
PREPARE = """
import dataclasses, pickle, shutil, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1] + "/src")
import pyarrow as pa
from porchlamp.publish import load_site_data
from porchlamp.publish import site
from porchlamp.store import Store
with Store(sys.argv[2], read_only=True) as s:
    data = load_site_data(s)
every = range(0, min(3 * int(sys.argv[3]), len(data.projects)), 3)
out = Path(sys.argv[4])
shutil.copytree(data.files, out / "details")
part = dataclasses.replace(site._part(data, list(data.projects.view(pa.array(every)))), files=out / "details")
(out / "part.pkl").write_bytes(pickle.dumps(part))
"""

# argv: code dir, the folder PREPARE wrote, "again" to write the files a second time. Writes the
# files' digest (path and bytes) beside the part.
CHILD = """
import hashlib, os, pickle, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1] + "/src")
import pyarrow
pyarrow.set_cpu_count(1)  # Arrow's pools wait and wake by the clock: one thread each counts steadier
pyarrow.set_io_thread_count(1)
from porchlamp.publish import site
work = Path(sys.argv[2])
part = pickle.loads((work / "part.pkl").read_bytes())
since = {p.repo: part.as_of for p in part.projects}
out = work / "out"
site._write_part(part, out, since, "https://example.org/issues", "")
files = sorted(p for p in out.rglob("*") if p.is_file())
digest = hashlib.sha256()
for f in files:
    digest.update(str(f.relative_to(out)).encode() + b"\\0" + f.read_bytes())
for f in files:
    f.unlink()
if sys.argv[3] == "again":
    site._write_part(part, out, since, "https://example.org/issues", "")
(work / "files.sha256").write_text(f"{len(part.projects)} {len(files)} {digest.hexdigest()}")
"""


def instructions(code: Path, work: Path, again: bool) -> int:
    """Instructions the child took writing the part's files with `code` (`counted`)."""
    return counted(CHILD, [str(code), str(work), "again" if again else "once"], f"writing the files with {code}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="a collected or evaluated store (copied, never changed)")
    ap.add_argument("--code", type=Path, action="append", required=True,
                    help="a version's tree (holding src/porchlamp); give it again for each version to compare")
    ap.add_argument("--projects", type=int, default=300, help="how many projects to write (every third of the snapshot's)")
    ap.add_argument("--work", type=Path, help="where the copies go (default: a temporary directory, removed after)")
    args = ap.parse_args()
    if not args.store.is_file():
        ap.error(f"{args.store} is not a store file: give one `porchlamp load-world`, `collect` or `evaluate` made")
    for code in args.code:
        if not (code / "src" / "porchlamp").is_dir():
            ap.error(f"--code {code}: no src/porchlamp there; give a copy of a version's tree")
    if args.projects < 1:
        ap.error("--projects: give at least 1")
    if shutil.which("valgrind") is None:
        sys.exit("publish_instructions: valgrind is not installed (Debian: apt-get install valgrind)")
    with scratch(args.work) as work:
        db = work / "s.duckdb"
        shutil.copyfile(args.store, db)
        with Store(db, read_only=True) as s:
            evaluated = bool(s.snapshot_dates())
            day = s.get_meta("collected_as_of")
        if not evaluated:
            if not day:
                sys.exit(f"publish_instructions: {args.store} holds no snapshot and no collection to evaluate")
            evaluate(db, date.fromisoformat(day), 1)
        counts: list[dict[str, Any]] = []
        first = None
        for k, code in enumerate(args.code):
            part = work / f"code{k}"
            run = subprocess.run([sys.executable, "-c", PREPARE, str(code), str(db), str(args.projects), str(part)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"publish_instructions: reading the snapshot with {code} failed:\n{run.stderr[-3000:]}")
            written = instructions(code, part, True)
            files = (part / "files.sha256").read_text()
            if first is None:
                first = files
            elif files != first:
                sys.exit(f"publish_instructions: the files written with {code} differ from those with {args.code[0]}")
            base = instructions(code, part, False)
            counts.append({"code": str(code), "instructions": written, "without_writing_again": base, "writing": written - base})
        for c in counts:
            c["ratio"] = round(c["writing"] / counts[0]["writing"], 4)
        projects, files_written, _ = (first or "0 0 -").split()
        print(json.dumps({"projects": int(projects), "files": int(files_written), "counts": counts,
                          "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "arch": platform.machine()}}))


if __name__ == "__main__":
    main()
