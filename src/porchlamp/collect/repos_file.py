"""Reading a repos file: one project a line, `owner/name` on GitHub or `host/path` on another forge
(`gitlab.com/group/project`). Blank lines and `#` comments are skipped, web addresses are reduced to
the project's name, duplicates are dropped; anything else is an error that names its line, raised
before a single request is made.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from collections.abc import Mapping
from pathlib import Path

from porchlamp import forges
from porchlamp.errors import PorchlampError


class ReposFileError(PorchlampError):
    """A repos file that cannot be used as it is; the message lists the lines to fix."""


@dataclass(frozen=True)
class ReposList:
    repos: tuple[str, ...]
    duplicates: int
    from_urls: int


def parse_repo(text: str, hosts: Mapping[str, forges.Host] | None = None) -> str | None:
    """A project's name from a line (`owner/name`, `host/path`, or a web address of either), or None
    if it is none of these; a host whose forge is not known raises forges.UnknownHost."""
    return forges.parse(text, hosts)


def read_repos_file(path: str | Path, limit_errors: int = 10, hosts: Mapping[str, forges.Host] | None = None) -> ReposList:
    """The projects a repos file names; `hosts` are the forge hosts known (packaged and configured)."""
    p = Path(path)
    if not p.exists():
        raise ReposFileError(f"{p}: repos file not found")
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise ReposFileError(f"{p}: not a UTF-8 text file; it should hold one owner/name (or host/path) a line") from None
    seen: dict[str, str] = {}
    bad: list[str] = []
    dups = urls = 0
    for no, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip() if not raw.strip().startswith("http") else raw.strip()
        if not line or raw.strip().startswith("#"):
            continue
        try:
            repo = parse_repo(line, hosts)
        except forges.UnknownHost as err:
            bad.append(f"line {no}: {raw.strip()[:80]!r}: {err}")
            continue
        if repo is None:
            bad.append(f"line {no}: {raw.strip()[:80]!r} is not owner/name or host/path")
            continue
        if "://" in line or line.lower().startswith(("github.com/", "www.github.com/")):
            urls += 1
        key = repo.lower()
        if key in seen:
            dups += 1
            continue
        seen[key] = repo
    if bad:
        more = f" (and {len(bad) - limit_errors} more)" if len(bad) > limit_errors else ""
        raise ReposFileError(f"{p}: {len(bad)} line(s) are not repositories; fix or remove them, nothing was collected:\n  "
                             + "\n  ".join(bad[:limit_errors]) + more)
    if not seen:
        raise ReposFileError(f"{p}: no repositories in the file; write one owner/name (or host/path) a line")
    return ReposList(tuple(seen.values()), dups, urls)


def parse_shard(text: str, option: str = "--shard") -> tuple[int, int]:
    """`i/n` (1 ≤ i ≤ n) as (i, n), or a ReposFileError saying what `option` looks like."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ReposFileError(f"{option} {text!r}: expected i/n with 1 ≤ i ≤ n, such as 1/4 for the first of four")
    return int(m.group(1)), int(m.group(2))


def shard_of(repo: str, shards: int) -> int:
    """Which of `shards` (1-based) a repository belongs to: by a hash of its lowercased name, so the
    split does not move when the list grows or is reordered, and renames in case stay put."""
    digest = hashlib.blake2b(repo.lower().encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shards + 1


def take_shard(listing: ReposList, shard: tuple[int, int]) -> ReposList:
    """The part of a repos list that shard i of n collects."""
    i, n = shard
    return ReposList(tuple(r for r in listing.repos if shard_of(r, n) == i), listing.duplicates, listing.from_urls)
