"""A project's complete PR history, read from a metadata backup in GitHub's REST shapes, into the store
as the collector would have stored it: judge a project offline, at any date its history covers.

A backup holds one file per PR, `pulls/N.json` = {"pull": REST pull request, "events": its REST issue
timeline, "comments": its review comments}. What a backup does not hold (languages by bytes, community
files, account ages, direct pushes) is left missing, never invented.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from porchlamp.collect.http import parse_time
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.evaluate.rules import load_rules
from porchlamp.models import Account, Commit, PullRequest, Repository, TimelineItem
from porchlamp.store import Store
from porchlamp.store.marks import ensure_marks

MAX_FILE_BYTES = 64 * 2**20  # one PR's file; the largest real ones are under 4 MiB
# GitHub's logins: letters, digits and single hyphens, at most 39, with REST's `[bot]` suffix for apps.
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")
_GHOST_ID = 10137  # GitHub's "ghost": the account a deleted user's PRs and comments are shown under
_STATES = {"APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED"}  # a PENDING review was never sent
# REST timeline events kept, as the GraphQL timeline's kinds (models.TIMELINE_KINDS).
KIND_OF_EVENT = {
    "commented": "comment",
    "reviewed": "review",
    "ready_for_review": "ready_for_review",
    "convert_to_draft": "converted_to_draft",
    "closed": "closed",
    "reopened": "reopened",
    "merged": "merged",
    "labeled": "labeled",
    "assigned": "assigned",
    "review_requested": "review_requested",
}
WHAT_IS_MISSING = ("languages by bytes (the primary language stands in)", "community files", "account ages",
                   "commits pushed without a PR (each merge stands for a commit on the default branch)")


IMPORT_STAGE = "import"  # its collection state: what a repository's rows came from, and what they lack


def unseen(backup: Backup) -> dict[str, Any]:
    """Where a project's rows came from and what they lack: kept with its collection state, shown on its page."""
    known = backup.repository is not None and backup.repository.license_spdx is not None
    return {"read_from": "a metadata backup of its pull requests",
            "missing": [*WHAT_IS_MISSING, *(() if known else ("its licence",))],
            "license": "named when imported" if backup.license_named else "as the backup shows it" if known else None}


class BackupError(PorchlampError):
    """A backup, or one file of it, that cannot be imported; the message names the file and what is wrong."""


@dataclass
class Backup:
    """A backup read and checked: the rows to store, and the files refused."""

    repo: str
    pulls: list[PullRequest] = field(default_factory=list)
    timeline: list[TimelineItem] = field(default_factory=list)
    accounts: dict[str, Account] = field(default_factory=dict)
    commits: list[Commit] = field(default_factory=list)
    repository: Repository | None = None
    refused: list[str] = field(default_factory=list)  # "<path>: <what is wrong>"
    last_backup: date | None = None
    license_named: bool = False  # the licence was named on import (the backup does not hold it)


def _person(obj: Any, where: str) -> tuple[str | None, str | None]:
    """(login, type) of a REST user object; (None, None) for none or GitHub's ghost (a deleted account)."""
    if obj is None:
        return None, None
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is not a user object")
    login = obj.get("login")
    if not isinstance(login, str) or not _LOGIN.fullmatch(login):
        raise ValueError(f"{where} has no valid GitHub login (got {str(login)[:60]!r})")
    if obj.get("id") == _GHOST_ID and login == "ghost":
        return None, None
    kind = obj.get("type")
    if kind not in ("User", "Bot", "Organization", "Mannequin"):
        raise ValueError(f"{where} ({login}) has an unknown account type {str(kind)[:30]!r}")
    return login, kind


def _time(value: Any, where: str, required: bool = True) -> datetime | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{where} is missing or not a time")
    try:
        t = parse_time(value)
    except ValueError:
        t = None
    if t is None:
        raise ValueError(f"{where} is not an ISO 8601 time (got {value[:40]!r})")
    return t


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{where} is not text")
    return value


def _items(repo: str, number: int, events: list[Any], comments: list[Any],
           seen: Callable[[str | None, str | None, Any], None]) -> list[TimelineItem]:
    """The PR's timeline items as the collector stores them: comments, submitted reviews (a review
    comment whose review the timeline lacks stands for it) and the events a verdict reads."""
    out: list[TimelineItem] = []
    reviews: set[Any] = set()
    for k, e in enumerate(events):
        if not isinstance(e, dict):
            raise ValueError(f"events[{k}] is not an object")
        kind = KIND_OF_EVENT.get(e.get("event"))  # type: ignore[arg-type]
        if kind is None:
            continue
        where = f"events[{k}] ({e.get('event')})"
        node = e.get("node_id") or (f"{e.get('event')}:{e['id']}" if e.get("id") is not None else None)
        if not isinstance(node, str):
            raise ValueError(f"{where} has no id")
        if kind in ("comment", "review"):
            login, kind_of = _person(e.get("user"), f"{where}.user")
            seen(login, kind_of, e.get("user"))
            if kind == "review":
                reviews.add(e.get("id"))
                if e.get("state") not in _STATES:
                    continue
                at = _time(e.get("submitted_at"), f"{where}.submitted_at")
            else:
                at = _time(e.get("created_at"), f"{where}.created_at")
            assoc = e.get("author_association")
            out.append(TimelineItem(node, repo, number, kind, at, login, kind_of,  # type: ignore[arg-type]
                                    assoc if isinstance(assoc, str) else None, _text(e.get("body"), f"{where}.body"),
                                    e.get("state") if kind == "review" else None))
        else:
            login, kind_of = _person(e.get("actor"), f"{where}.actor")
            seen(login, kind_of, e.get("actor"))
            out.append(TimelineItem(node, repo, number, kind, _time(e.get("created_at"), f"{where}.created_at"),  # type: ignore[arg-type]
                                    login, kind_of))
    first_of_review: dict[Any, dict[str, Any]] = {}
    for k, c in enumerate(comments):
        if not isinstance(c, dict):
            raise ValueError(f"comments[{k}] is not an object")
        rid = c.get("pull_request_review_id")
        if rid is None or rid in reviews:
            continue
        _time(c.get("created_at"), f"comments[{k}].created_at")
        if rid not in first_of_review or c["created_at"] < first_of_review[rid]["created_at"]:
            first_of_review[rid] = c
    for rid, c in first_of_review.items():
        login, kind_of = _person(c.get("user"), f"review comment {c.get('id')}.user")
        seen(login, kind_of, c.get("user"))
        assoc = c.get("author_association")
        out.append(TimelineItem(f"review:{rid}", repo, number, "review", _time(c["created_at"], "review comment"),  # type: ignore[arg-type]
                                login, kind_of, assoc if isinstance(assoc, str) else None,
                                _text(c.get("body"), "review comment body"), "COMMENTED"))
    return out


def _repository(repo: str, node: dict[str, Any], license_spdx: str | None) -> Repository:
    """The repository as the newest PR's `base.repo` shows it (REST); its licence from there or as named."""
    lic = node.get("license") if isinstance(node.get("license"), dict) else None
    owner = node.get("owner") if isinstance(node.get("owner"), dict) else {}
    topics = node.get("topics") if isinstance(node.get("topics"), list) else []
    return Repository(
        name_with_owner=repo,
        owner_type="Organization" if owner.get("type") == "Organization" else "User",
        description=node.get("description") if isinstance(node.get("description"), str) else None,
        homepage_url=node.get("homepage") or None if isinstance(node.get("homepage"), str) else None,
        is_archived=bool(node.get("archived")),
        is_fork=bool(node.get("fork")),
        is_mirror=bool(node.get("mirror_url")),
        stars=int(node.get("stargazers_count") or 0),
        forks=int(node.get("forks_count") or 0),
        disk_usage_kb=int(node.get("size") or 0),
        primary_language=node.get("language") if isinstance(node.get("language"), str) else None,
        topics=tuple(sorted(t for t in topics if isinstance(t, str))),
        license_spdx=license_spdx or (lic.get("spdx_id") if lic else None),
        default_branch=node.get("default_branch") if isinstance(node.get("default_branch"), str) else None,
        has_issues=bool(node.get("has_issues")),
        created_at=parse_time(node.get("created_at")) if isinstance(node.get("created_at"), str) else None,
        pushed_at=parse_time(node.get("pushed_at")) if isinstance(node.get("pushed_at"), str) else None,
    )


def read_pull(repo: str, path: Path, data: Any, seen: Callable[[str | None, str | None, Any], None]
              ) -> tuple[PullRequest, list[TimelineItem], dict[str, Any]]:
    """One backup file's PR and timeline items; raises ValueError saying what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("pull"), dict):
        raise ValueError("not a PR backup: expected an object with a 'pull' object")
    p = data["pull"]
    events, comments = data.get("events") or [], data.get("comments") or []
    if not isinstance(events, list) or not isinstance(comments, list):
        raise ValueError("'events' and 'comments' must be lists")
    number = p.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        raise ValueError("pull.number is not a positive whole number")
    if path.stem.isdigit() and int(path.stem) != number:
        raise ValueError(f"holds PR {number}, not PR {path.stem} as its name says")
    base = (p.get("base") or {}).get("repo") if isinstance(p.get("base"), dict) else None
    full = base.get("full_name") if isinstance(base, dict) else None
    if not isinstance(full, str) or full.lower() != repo.lower():
        raise ValueError(f"is a PR of {str(full)[:100]!r}, not of {repo}")
    author, author_type = _person(p.get("user"), "pull.user")
    seen(author, author_type, p.get("user"))
    merged_by, merger_type = _person(p.get("merged_by"), "pull.merged_by")
    seen(merged_by, merger_type, p.get("merged_by"))
    merged_at = _time(p.get("merged_at"), "pull.merged_at", required=False)
    closed_at = _time(p.get("closed_at"), "pull.closed_at", required=False)
    state = "MERGED" if merged_at else ("CLOSED" if p.get("state") == "closed" else "OPEN")
    node_id = p.get("node_id")
    pr = PullRequest(
        repo=repo, number=number, node_id=node_id if isinstance(node_id, str) else f"pull:{repo}#{number}",
        title=_text(p.get("title"), "pull.title"), author=author, author_type=author_type,
        author_association=p.get("author_association") if isinstance(p.get("author_association"), str) else "NONE",
        created_at=_time(p.get("created_at"), "pull.created_at"), is_draft=bool(p.get("draft")),  # type: ignore[arg-type]
        state=state, merged_at=merged_at, merged_by=merged_by, closed_at=closed_at,
        updated_at=_time(p.get("updated_at"), "pull.updated_at", required=False), body=_text(p.get("body"), "pull.body"),
        has_ci=None,
    )
    return pr, _items(repo, number, events, comments, seen), base  # type: ignore[return-value]


def read_backup(path: str | Path, repo: str, license_spdx: str | None = None,
                progress: Callable[[int], None] | None = None) -> Backup:
    """Read and check every `pulls/*.json` under `path` (a backup's folder, or its `pulls/`); a file that is
    not a PR of `repo` in the expected shape is listed in `refused`, with what is wrong."""
    root = Path(path)
    folder = _folder(root)
    if not folder.is_dir():
        raise BackupError(f"{root}: no such folder; give the backup's folder (the one that holds pulls/)")
    files = files_of(root)
    if not files:
        raise BackupError(f"{folder}: no PR files (pulls/N.json) here; is this a metadata backup?")
    out = Backup(repo=repo)
    newest: tuple[datetime, dict[str, Any]] | None = None
    default_branch_merges: list[tuple[str, PullRequest, str | None]] = []
    accounts: dict[str, Account] = {}

    for f in files:
        try:
            if f.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(f"is {f.stat().st_size:,} bytes, over the {MAX_FILE_BYTES:,} a PR's file may hold")
            try:
                data = json.loads(f.read_bytes())
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise ValueError(f"is not JSON ({err})") from None
            except RecursionError:
                raise ValueError("is nested too deeply to be a PR's backup") from None
            found: dict[str, Account] = {}

            def seen_here(login: str | None, kind: str | None, obj: Any) -> None:
                if login and login not in found:
                    node = obj.get("node_id") if isinstance(obj, dict) else None
                    found[login] = Account(login, kind or "User", None, node if isinstance(node, str) else None)

            pr, items, base = read_pull(repo, f, data, seen_here)
        except (ValueError, TypeError, AttributeError) as err:
            out.refused.append(f"{f}: {err}")
        else:
            out.pulls.append(pr)
            out.timeline.extend(items)
            for login, acc in found.items():
                accounts.setdefault(login, acc)
            stamp = pr.updated_at or pr.created_at
            if newest is None or stamp > newest[0]:
                newest = (stamp, base)
            sha = data["pull"].get("merge_commit_sha")
            ref = (data["pull"].get("base") or {}).get("ref")
            if pr.merged_at is not None and isinstance(sha, str):
                default_branch_merges.append((sha, pr, ref if isinstance(ref, str) else None))
        if progress:
            progress(1)
    if newest is not None:
        out.repository = _repository(repo, newest[1], license_spdx)
        out.license_named = license_spdx is not None
        branch = out.repository.default_branch
        # Each merge into the default branch is a commit there, made by whoever merged.
        out.commits = [Commit(repo, sha, pr.merged_at, pr.merged_by, None, accounts[pr.merged_by].type if pr.merged_by else None, "")  # type: ignore[arg-type]
                       for sha, pr, ref in default_branch_merges if branch is None or ref == branch]
    out.accounts = accounts
    state = root / "state.json"
    if state.is_file():
        try:
            last = parse_time(json.loads(state.read_text()).get("last_backup"))
            out.last_backup = last.date() if last else None
        except (ValueError, AttributeError, UnicodeDecodeError):
            out.refused.append(f"{state}: not the backup's state (JSON with last_backup)")
    return out


def write_backup(store: Store, backup: Backup) -> dict[str, int]:
    """Store a read backup in one transaction (keyed rows: importing twice changes nothing), then mark
    its text; returns rows written by table."""
    if backup.repository is None:
        raise BackupError(f"{backup.repo}: nothing to import (every file was refused)")
    records: list[Iterable[Any]] = [[backup.repository], backup.accounts.values(), backup.pulls, backup.timeline, backup.commits]
    first, latest = covered(backup)
    with store.transaction():
        counts = {name: store.upsert(rows) for name, rows in zip(("repositories", "accounts", "pulls", "timeline", "commits"), records)}
        # What the project's verdict could not see, for its page to say (until the collector reads it).
        store.set_states([(backup.repo, IMPORT_STAGE, latest, "done", None, json.dumps(unseen(backup)))])
    ensure_marks(store, load_rules(Settings()))
    # The whole history is held: any date from the first PR's to the backup's can be judged.
    if (store.get_meta("collected_as_of") or "") < latest.isoformat():
        store.set_meta("collected_as_of", latest.isoformat())
    if (store.get_meta("first_collected_as_of") or "9999") > first.isoformat():
        store.set_meta("first_collected_as_of", first.isoformat())
    return counts


def covered(backup: Backup) -> tuple[date, date]:
    """The first PR's day and the backup's last day: the dates `evaluate --as-of` can judge."""
    first = min(p.created_at for p in backup.pulls).date()
    return first, backup.last_backup or max(p.updated_at or p.created_at for p in backup.pulls).date()


def import_backup(store: Store, path: str | Path, repo: str, license_spdx: str | None = None, skip_bad: bool = False,
                  progress: Callable[[int], None] | None = None) -> tuple[Backup, dict[str, int]]:
    """Read a backup of `repo` and store it. A refused file stops the import before anything is written,
    unless `skip_bad`: then the rest is stored and the refused files are listed."""
    if not re.fullmatch(r"[A-Za-z0-9-]+/[A-Za-z0-9._-]+", repo):
        raise BackupError(f"--repo must be a GitHub repository as owner/name (got {repo!r})")
    backup = read_backup(path, repo, license_spdx, progress)
    if backup.refused and not skip_bad:
        listed = "\n  ".join(backup.refused[:20]) + (f"\n  … and {len(backup.refused) - 20} more" if len(backup.refused) > 20 else "")
        raise BackupError(f"{repo}: import: {len(backup.refused)} file(s) refused, nothing written "
                          f"(--skip-bad stores the rest):\n  {listed}")
    return backup, write_backup(store, backup)


def _folder(root: Path) -> Path:
    """Where a backup's PR files are: its `pulls/`, or the folder given when that is `pulls/` itself."""
    return root / "pulls" if (root / "pulls").is_dir() else root


def files_of(path: str | Path) -> Sequence[Path]:
    """The PR files a backup folder holds, in number order (what is read, and a progress bar's total)."""
    folder = _folder(Path(path))
    return sorted(folder.glob("*.json"), key=lambda f: (len(f.stem), f.stem)) if folder.is_dir() else []
