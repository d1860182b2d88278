"""Writes a sample world to a directory and reads it back: one gzipped JSON Lines file per table,
`world.json` (how it was made), `repos.txt` (a repos file for `collect`) and `truth.json`.

Files are byte-identical for the same (repos, seed, as_of): gzip headers carry no time or name.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from porchlamp.errors import WorldError
from porchlamp.models import as_of_instant
from porchlamp.sample.generator import Pool, RepoBuilder
from porchlamp.sample.plan import make_plans, world_forge

WORLD_FORMAT = 2
TABLES = ("repositories", "accounts", "community", "pulls", "timeline", "commits", "issues", "dependents")
# Beside the store's tables, what only GitHub knows: each repository's public roles (OWNER, MEMBER,
# COLLABORATOR), from which associations are computed when read.
API_TABLES = ("roles",)
DEFAULT_AS_OF = date(2026, 10, 15)


@dataclass(frozen=True)
class WorldSummary:
    path: Path
    repos: int
    pulls: int
    timeline_items: int
    accounts: int
    as_of: date
    seed: int


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class _Writer:
    def __init__(self, path: Path) -> None:
        raw = open(path, "wb")
        self._raw = raw
        self._gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=1, mtime=0)
        self._buf = io.TextIOWrapper(self._gz, encoding="utf-8", newline="\n")
        self.count = 0

    def write(self, row: dict[str, Any]) -> None:
        self._buf.write(_dumps(row))
        self._buf.write("\n")
        self.count += 1

    def close(self) -> None:
        self._buf.close()
        self._raw.close()


def generate_world(
    out: str | Path,
    repos: int = 300,
    seed: int = 1,
    as_of: date = DEFAULT_AS_OF,
    progress: Callable[[int], None] | None = None,
    part: tuple[int, int] | None = None,
    hosts: dict[str, float] | None = None,
) -> WorldSummary:
    """Generate a world of `repos` repositories into `out` (replaced if it is a world already).
    `hosts`: the share of the world on each other forge host (`{"gitlab.com": 0.1, "codeberg.org": 0.05}`),
    the rest on GitHub; which forge a host runs is `plan.world_forge`'s.

    With `part=(i, n)` only every n-th repository from the i-th (1-based) is written: the n parts,
    generated side by side on n cores, hold exactly the whole world's rows between them, since
    every repository and account is drawn from its own seed."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not (out / "world.json").exists():
        raise WorldError(f"{out}: exists and is not a sample world; choose an empty or new directory")
    if part is not None and not 1 <= part[0] <= part[1]:
        raise WorldError(f"part {part[0]}/{part[1]}: expected i/n with 1 ≤ i ≤ n")
    for host, share in (hosts or {}).items():
        if not (0 < share < 1) or "." not in host:
            raise WorldError(f"hosts: {host}={share}: give a host name and its share of the world, above 0 and below 1")
    if sum((hosts or {}).values()) >= 1:
        raise WorldError("hosts: the shares of the world off GitHub must add up to less than 1")
    every = make_plans(repos, seed, hosts)
    plans = every[part_slice(part)]
    # Write beside the target, then swap, so an interrupted run never leaves half a world.
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".world-", dir=out.parent))
    try:
        writers = {t: _Writer(tmp / f"{t}.jsonl.gz") for t in (*TABLES, *API_TABLES) if t != "accounts"}
        prs_tmp = open(tmp / ".truth-prs", "w", encoding="utf-8")
        pool = Pool(seed, max(500, repos * 12), as_of_instant(as_of))
        accounts: dict[str, dict[str, Any]] = {}
        truth_repos: dict[str, Any] = {}
        names: list[str] = []
        first_pr = True
        for plan in plans:
            home = every[plan.mirror_of] if plan.mirror_of is not None else None
            built = RepoBuilder(plan, seed, as_of, pool, home).build()
            nwo = built.rows["repositories"][0]["name_with_owner"]
            names.append(nwo)
            truth_repos[nwo] = built.truth_repo
            for table, rows in built.rows.items():
                for row in rows:
                    writers[table].write(row)
            for login, acct in built.accounts.items():
                accounts.setdefault(login, acct)
            for key, val in built.truth_prs:
                prs_tmp.write(("" if first_pr else ",\n") + _dumps(key) + ":" + _dumps(val))
                first_pr = False
            if progress:
                progress(1)
        prs_tmp.close()
        acc = _Writer(tmp / "accounts.jsonl.gz")
        for login in sorted(accounts):
            acc.write(accounts[login])
        acc.close()
        counts = {t: w.count for t, w in writers.items()}
        for w in writers.values():
            w.close()
        with open(tmp / "truth.json", "w", encoding="utf-8") as f:
            f.write('{"as_of":' + _dumps(as_of.isoformat()) + ',"seed":' + str(seed) + ',\n"repos":')
            f.write(json.dumps(truth_repos, ensure_ascii=False, indent=0, sort_keys=True))
            f.write(',\n"prs":{\n')
            with open(tmp / ".truth-prs", encoding="utf-8") as src:
                shutil.copyfileobj(src, f)
            f.write("\n}}\n")
        os.remove(tmp / ".truth-prs")
        (tmp / "repos.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
        meta = {"format": WORLD_FORMAT, "generator": "porchlamp.sample", "repos": len(plans), "seed": seed,
                "as_of": as_of.isoformat(), "counts": {**counts, "accounts": len(accounts)},
                **({"hosts": {h: world_forge(h) for h in sorted(hosts)}, "host_shares": dict(sorted(hosts.items()))} if hosts else {}),
                **({"part": f"{part[0]}/{part[1]}", "whole_world_repos": repos} if part else {})}
        (tmp / "world.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return WorldSummary(out, len(plans), counts["pulls"], counts["timeline"], len(accounts), as_of, seed)


def part_slice(part: tuple[int, int] | None) -> slice:
    """Which of a world's repositories part i of n holds: every n-th from the i-th (all without a part)."""
    return slice(None) if part is None else slice(part[0] - 1, None, part[1])


def read_meta(world: str | Path) -> dict[str, Any]:
    p = Path(world) / "world.json"
    if not p.exists():
        raise WorldError(f"{world}: not a sample world (no world.json); make one with `porchlamp sample-world`")
    meta: dict[str, Any] = json.loads(p.read_text(encoding="utf-8"))
    if meta.get("format") != WORLD_FORMAT:
        raise WorldError(f"{world}: world format {meta.get('format')} is not {WORLD_FORMAT}; generate it again")
    return meta


def iter_rows(world: str | Path, table: str) -> Iterator[dict[str, Any]]:
    with gzip.open(Path(world) / f"{table}.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def read_truth(world: str | Path) -> dict[str, Any]:
    truth: dict[str, Any] = json.loads((Path(world) / "truth.json").read_text(encoding="utf-8"))
    return truth
