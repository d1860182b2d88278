"""What the rankings page fetches when a reader changes the view: the whole index against the ranking
in parts, on an evaluated store.

    .venv/bin/python bench/rankings_parts.py --store STORE.duckdb

The store is opened read-only. For each goal: the bytes of the manifest and of the parts a view in
rank order needs for its first page, and of every part (what a search or another order reads), raw
and gzip-compressed (as a static host serves them), against the whole index; and the CPU to make the
whole index and the parts and the wall time to write the parts. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from porchlamp.publish import api, load_site_data  # noqa: E402
from porchlamp.store import Store  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True, help="an evaluated store (opened read-only)")
    args = ap.parse_args()
    with Store(args.store, read_only=True) as s:
        site = load_site_data(s)
    t = time.process_time()
    whole = api.json_text(api.listed_json(api.rankings_index(site))).encode()
    whole_cpu = time.process_time() - t
    t = time.process_time()
    parts = {path: api.json_text(d).encode() for path, d in api.ranking_parts(site)}
    parts_cpu = time.process_time() - t
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        for path, d in api.ranking_parts(site):
            api.write_json(Path(tmp) / path, d)
        parts_wall = time.perf_counter() - t
    manifest = parts.pop("rankings/parts.json")
    gz = lambda b: len(gzip.compress(b, 6))  # noqa: E731
    goals = {}
    for goal in site.settings.profiles:
        mine = [parts[api.PART_PATH.format(profile=api.slug(goal), part=n + 1)] for n in range(json.loads(manifest)["parts"])]
        goals[goal] = {"first_page": len(manifest) + len(mine[0]), "first_page_gzip": gz(manifest) + gz(mine[0]),
                       "every_part": len(manifest) + sum(map(len, mine)), "every_part_gzip": gz(manifest) + sum(map(gz, mine))}
    print(json.dumps({
        "machine": f"{platform.machine()}, {platform.processor() or '?'}, python {platform.python_version()}",
        "projects": len(site.projects), "ranked": len(site.ranked("default")), "parts_per_goal": json.loads(manifest)["parts"],
        "whole_index": len(whole), "whole_index_gzip": gz(whole), "manifest": len(manifest),
        "goals": goals, "first_page_share": round(goals["default"]["first_page"] / len(whole), 3),
        "every_part_share": round(goals["default"]["every_part"] / len(whole), 3),
        "whole_index_cpu_s": round(whole_cpu, 3), "parts_cpu_s": round(parts_cpu, 3), "parts_written_s": round(parts_wall, 3),
    }, indent=1))


if __name__ == "__main__":
    main()
