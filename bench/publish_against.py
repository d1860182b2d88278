"""A full publish of one evaluated store by this checkout and by an earlier commit, alternating, in one
run: the whole site written from nothing (`publish(full=True)` into an empty folder), as the first
publish of a snapshot does.

    .venv/bin/python bench/publish_against.py --store /tmp/porchlamp-bench/store11000.duckdb --commit 57a0fa7 [--rounds 2]

The earlier commit's `src` is unpacked with `git archive`; both read the same store (read only), so
it must be of a schema both know. Each publish runs in a fresh process and prints its wall time,
pages and bytes; then the ratio of this checkout's best round to the earlier commit's. These
machines drift: only the ratios within one run compare.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import json, sys, time
from pathlib import Path
from porchlamp.publish import load_site_data, publish
from porchlamp.store import Store
t = time.perf_counter()
with Store(Path(sys.argv[1]), read_only=True) as s:
    site = load_site_data(s)
summary = publish(site, Path(sys.argv[2]), full=True)
print(json.dumps({"seconds": round(time.perf_counter() - t, 2), "pages": summary.pages, "bytes": summary.bytes}))
"""


def unpack(commit: str, into: Path) -> Path:
    """The `src` folder of `commit`, unpacked under `into`."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(into, filter="data")
    return into / "src"


def _clear(out: Path) -> None:
    """No site at `out`: its link and both generations beside it gone."""
    if out.is_symlink() or out.is_file():
        out.unlink()
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out.parent / f".{out.name}.generations", ignore_errors=True)


def run(src: Path, store: Path, out: Path) -> dict[str, float]:
    _clear(out)
    done = subprocess.run([sys.executable, "-c", CHILD, str(store), str(out)], capture_output=True, text=True,
                          env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        sys.exit(f"publish_against: publishing with {src} failed:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    _clear(out)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store both commits can read")
    ap.add_argument("--commit", required=True, help="the earlier commit to compare with")
    ap.add_argument("--rounds", type=int, default=2, help="publishes by each, alternating (default 2)")
    args = ap.parse_args()
    if not args.store.exists():
        sys.exit(f"publish_against: no store at {args.store}: make one with bench/run.py or porchlamp evaluate")
    with tempfile.TemporaryDirectory(prefix="publish-against-") as tmp:
        work = Path(tmp)
        trees = {"this": ROOT / "src", args.commit: unpack(args.commit, work / "old")}
        times: dict[str, list[float]] = {k: [] for k in trees}
        for r in range(args.rounds):
            for name, src in trees.items():
                res = run(src, args.store, work / "site")
                times[name].append(res["seconds"])
                print(json.dumps({"round": r + 1, "code": name, **res}), flush=True)
        print(json.dumps({"this_over_" + args.commit: round(min(times["this"]) / min(times[args.commit]), 3),
                          "seconds": times}))


if __name__ == "__main__":
    main()
