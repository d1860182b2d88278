"""Where a project lives: its host and its path, held in one name, and which forge each host runs.

A GitHub repository keeps the name it always had (`owner/name`); a project elsewhere is
`host/path` (`gitlab.com/group/subgroup/project`). GitHub's owners cannot hold a dot and a host
always does, so the first part of a name says which it is. The forge of a host comes from packaged,
sourced data (`data/forges.toml`) and the `[hosts]` of porchlamp.toml, never from a guess.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

GITHUB_HOST = "github.com"
FORGES = ("github", "gitlab", "forgejo")
# What each forge calls a change sent for review, in full and short; "PR" is the method's own word.
CHANGE_WORDS: dict[str, tuple[str, str]] = {"github": ("pull request", "PR"), "gitlab": ("merge request", "MR"),
                                             "forgejo": ("pull request", "PR")}
FORGE_NAMES = {"github": "GitHub", "gitlab": "GitLab", "forgejo": "Forgejo"}

# GitHub: an owner of letters, digits and single inner hyphens; a name of letters, digits, `._-`.
GITHUB_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
GITHUB_NAME = r"[A-Za-z0-9._-]{1,100}"
# GitLab and Forgejo path segments: letters, digits, `_`, `-` and `.`, not starting with `-` or `.`
# (GitLab's namespace rule); GitLab nests groups up to 20 deep.
SEGMENT = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}"
MAX_DEPTH = 21
_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+(?::\d{1,5})?$")
_GITHUB_PATH = re.compile(rf"^({GITHUB_OWNER})/({GITHUB_NAME})$")
_PATH = re.compile(rf"^{SEGMENT}(?:/{SEGMENT}){{1,{MAX_DEPTH - 1}}}$")


@dataclass(frozen=True)
class Host:
    """A forge's host: which software it runs, where its API answers, and where that is known from."""

    name: str
    forge: str  # one of FORGES
    api: str
    source: str = ""


# `split` in SQL, for the store and the relations: a name's host (`repo_host(name)`).
HOST_MACRO = ("CREATE OR REPLACE TEMP MACRO repo_host(name) AS CASE WHEN contains(split_part(name, '/', 1), '.') "
              f"THEN lower(split_part(name, '/', 1)) ELSE '{GITHUB_HOST}' END")


class UnknownHost(ValueError):
    """A name on a host whose forge is neither packaged nor configured."""


@lru_cache(maxsize=1)
def packaged_hosts() -> dict[str, Host]:
    """The hosts in `data/forges.toml`, by name."""
    data = tomllib.loads(resources.files("porchlamp.data").joinpath("forges.toml").read_text(encoding="utf-8"))
    return {name: Host(name, h["forge"], h["api"], h.get("source", "")) for name, h in data["hosts"].items()}


def hosts(extra: Mapping[str, Any] | None = None) -> dict[str, Host]:
    """The packaged hosts with those of the configuration (`Settings.hosts`) over them."""
    out = dict(packaged_hosts())
    for name, h in (extra or {}).items():
        forge, api = (h["forge"], h.get("api")) if isinstance(h, Mapping) else (h.forge, h.api)
        out[name.lower()] = Host(name.lower(), forge, api or default_api(name.lower(), forge), "porchlamp.toml")
    return out


def default_api(host: str, forge: str) -> str:
    """Where a forge's API answers on a host when nothing says otherwise."""
    return {"github": f"https://api.{host}/graphql", "gitlab": f"https://{host}/api/v4",
            "forgejo": f"https://{host}/api/v1"}[forge]


def split(repo: str) -> tuple[str, str]:
    """(host, path) of a project's name: `owner/name` is on GitHub, `host/path` elsewhere."""
    head, sep, rest = repo.partition("/")
    if sep and "." in head:
        return head.lower(), rest
    return GITHUB_HOST, repo


def host_of(repo: str) -> str:
    return split(repo)[0]


def path_of(repo: str) -> str:
    return split(repo)[1]


def join(host: str, path: str) -> str:
    """The name of the project at `path` on `host` (GitHub's without its host)."""
    host = host.lower()
    return path if host == GITHUB_HOST else f"{host}/{path}"


def is_github(repo: str) -> bool:
    return host_of(repo) == GITHUB_HOST


def web_url(repo: str) -> str:
    host, path = split(repo)
    return f"https://{host}/{path}"


def change_prefix(repo: str, forge: str | None = None) -> str:
    """The address of a project's changes, which a change's number ends (`.../pull/`, `.../-/merge_requests/`)."""
    kind = forge or forge_of(repo)
    base = web_url(repo)
    return f"{base}/-/merge_requests/" if kind == "gitlab" else f"{base}/pulls/" if kind == "forgejo" else f"{base}/pull/"


def change_url(repo: str, number: int, forge: str | None = None) -> str:
    """The page of change `number` (a PR or merge request) of a project."""
    return f"{change_prefix(repo, forge)}{number}"


def change_mark(forge: str) -> str:
    """How a forge writes a reference to a change: GitLab's `!12`, the others' `#12`."""
    return "!" if forge == "gitlab" else "#"


def issue_url(repo: str, number: int, forge: str | None = None) -> str:
    kind = forge or forge_of(repo)
    return f"{web_url(repo)}/-/issues/{number}" if kind == "gitlab" else f"{web_url(repo)}/issues/{number}"


def forge_of(repo: str, known: Mapping[str, Host] | None = None) -> str:
    """The forge a project's host runs; `github` for GitHub names. An unknown host raises UnknownHost."""
    host = host_of(repo)
    if host == GITHUB_HOST:
        return "github"
    found = (known if known is not None else packaged_hosts()).get(host)
    if found is None:
        raise UnknownHost(f"{host} is not a known forge host: add [hosts.\"{host}\"] with forge = \"gitlab\" or "
                          "\"forgejo\" to porchlamp.toml")
    return found.forge


def change_words(forge: str) -> tuple[str, str]:
    """What a forge calls a change: ("merge request", "MR") on GitLab, ("pull request", "PR") elsewhere."""
    return CHANGE_WORDS.get(forge, CHANGE_WORDS["github"])


_GITHUB_WORDS = re.compile(r"\b(?:pull request|PR|GitHub)(?=s?\b)")


def say(text: str, forge: str) -> str:
    """`text`, written of GitHub, in the words of `forge`: GitLab's "merge request" and "MR" for
    "pull request" and "PR", and its own name for GitHub's (Forgejo calls them pull requests too)."""
    if forge in ("github", "", None):
        return text
    long, short = change_words(forge)
    said = {"pull request": long, "PR": short, "GitHub": FORGE_NAMES.get(forge, forge)}
    return _GITHUB_WORDS.sub(lambda m: said[m.group(0)], text)


def parse(text: str, known: Mapping[str, Host] | None = None) -> str | None:
    """A project's name from a line: `owner/name` (GitHub), `host/path`, or the web address of either
    (`https://gitlab.gnome.org/GNOME/gtk`, a `.git` or a page under `/-/` taken off). None when the line
    is none of these; UnknownHost when it names a host whose forge is not known."""
    s = text.strip()
    m = re.match(r"^(?:(https?)://)?(?:www\.)?([^/\s]+)/(.*)$", s)
    if not m:
        return None
    head, rest = m.group(2), m.group(3)
    if "." not in head or head.lower() == GITHUB_HOST:
        if m.group(1) and head.lower() != GITHUB_HOST:
            return None
        path = rest if head.lower() == GITHUB_HOST else f"{head}/{rest}"
        return _github(path)
    host = head.lower()
    if not _HOST.match(host):
        return None
    if host not in (known if known is not None else packaged_hosts()):
        raise UnknownHost(f"{host} is not a known forge host: add [hosts.\"{host}\"] with forge = \"gitlab\" or "
                          "\"forgejo\" to porchlamp.toml")
    path = re.split(r"[?#]", rest, maxsplit=1)[0]
    path = path.split("/-/", 1)[0].rstrip("/")
    path = path[:-4] if path.endswith(".git") else path
    if not _PATH.match(path) or any(p.endswith((".git", ".atom")) or p in (".", "..") for p in path.split("/")):
        return None
    return join(host, path)


def _github(path: str) -> str | None:
    path = re.split(r"[?#]", path, maxsplit=1)[0]
    path = path[:-1] if path.endswith("/") else path
    m = _GITHUB_PATH.match(path)
    if not m:
        return None
    name = m.group(2)[:-4] if m.group(2).endswith(".git") else m.group(2)
    if name in ("", ".", ".."):
        return None
    return f"{m.group(1)}/{name}"
