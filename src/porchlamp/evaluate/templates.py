"""Templated text (SPEC section 5): what integrations post, sometimes under a person's account
(deploy previews, CLA checks, coverage), found by curated phrases and by repetition over the snapshot.

The same normalised text on many PRs, in several repositories or each time within minutes of a PR
opening, is a template whoever posts it, and an account that says almost nothing else acts as a
bot. `sightings` maps one repository and `sighting_tables` holds many as columns; `TemplateCounter`
reduces them (columnar, so it scales); `TemplateIndex` answers for single comments during evaluation.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from porchlamp.config import TemplateSettings
from porchlamp.evaluate.bots import Bots, normalise_login
from porchlamp.models import RepoData

_URL = re.compile(r"https?://\S+|www\.\S+")
_MENTION = re.compile(r"@[\w-]+")
# A hash: 7 to 64 hex digits standing as a word (r"\b[0-9a-f]{7,64}\b"). Spelled to start with a hex
# digit, so the scan jumps between them instead of testing a boundary at every character, and
# asserting the boundary after the first (nothing of a word before it).
_HEX = re.compile(r"[0-9a-f](?<!\w[0-9a-f])[0-9a-f]{6,63}\b")
_NUMBER = re.compile(r"\d+")
_TAG = re.compile(r"<[^>]{0,200}>")
_MARKUP = str.maketrans(dict.fromkeys("*_`#>|~[]()!=:-", " "))
MAX_CHARS = 400  # two messages that agree this far are the same message
BATCH_REPOS = 500  # repositories' sightings folded into a count at once


PREFIX = 4 * MAX_CHARS  # a long text is normalised from about this far first


def normalise(text: str) -> str:
    """Text with what changes between two posts of one template (links, hashes, numbers, mentions,
    markup, spacing, case) taken out."""
    low = text.lower()
    # Only the first MAX_CHARS of the result count, and a long comment (a coverage table, a deploy
    # preview) would be scanned whole five times for them: the part before a safe cut first.
    cut = _cut(low)
    if cut is not None:
        head = _normalised(low[:cut])
        if len(head) >= MAX_CHARS:
            return head[:MAX_CHARS]
    return _normalised(low)[:MAX_CHARS]


def _cut(low: str) -> int | None:
    """Where a long text can be cut so that the result of the part before it is the start of the
    whole text's: at a space (no pattern but a tag reaches across one) with no '<' before it (no tag
    open). None for a short text or no such place."""
    if len(low) <= PREFIX:
        return None
    cut = low.find(" ", PREFIX)
    return cut if cut > 0 and "<" not in low[:cut] else None


def _normalised(low: str) -> str:
    """Links, mentions, hashes and numbers replaced by a word each (in that order), tags and runs of
    markup characters by a space, then every run of spaces by one, none at either end."""
    # A pattern scan costs more than a substring test, so a scan that cannot match is skipped, and
    # markup and spacing go through C string methods: markup characters become spaces one by one,
    # which the join collapses into one per run, as the run's single space would have been.
    s = _URL.sub(" url ", low) if "http" in low or "www." in low else low
    if "@" in s:
        s = _MENTION.sub(" user ", s)
    s = _NUMBER.sub(" n ", _HEX.sub(" hex ", s))
    if "<" in s:
        s = _TAG.sub(" ", s)
    return " ".join(s.translate(_MARKUP).split())


def fingerprint(text: str, settings: TemplateSettings) -> int | None:
    """A 63-bit fingerprint of the normalised text, or None for text too short to call a template
    ("Thanks!" and "LGTM" repeat everywhere and are people talking)."""
    norm = normalise(text)
    if len(norm) < settings.min_chars or norm.count(" ") + 1 < settings.min_words:
        return None
    return int.from_bytes(hashlib.blake2b(norm.encode("utf-8"), digest_size=8).digest(), "big") >> 1


@dataclass
class Sightings:
    """One repository's comments by people (or some of its PRs'): substantial ones fingerprinted, and
    every comment counted per PR and author, so that a day can take again only the PRs whose rows changed."""

    repo: str
    fingerprints: list[int] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    fast: list[bool] = field(default_factory=list)
    actors: list[str] = field(default_factory=list)
    comments_by: dict[tuple[int, str], int] = field(default_factory=dict)  # (PR number, login) -> comments


# One timeline row as sightings read it: (PR number, kind, created_at, actor, actor_type, body).
CommentRow = tuple[int, str, datetime, "str | None", "str | None", "str | None"]


def sightings(data: RepoData, bots: Bots, settings: TemplateSettings) -> Sightings:
    """Comments and reviews by accounts that are not bots by name or type, in one repository."""
    rows = [(number, i.kind, i.created_at, i.actor, i.actor_type, i.body) for number, items in data.timeline.items() for i in items]
    return sightings_of(data.repo.name_with_owner, {pr.number: pr.created_at for pr in data.pulls}, rows, bots, settings)


def sightings_of(repo: str, opened: Mapping[int, datetime], rows: Sequence[CommentRow], bots: Bots,
                 settings: TemplateSettings) -> Sightings:
    """`sightings` from plain rows (any order) and when each PR was opened: a shard's columns are
    read this way without building a record per row."""
    out = Sightings(repo)
    quick = timedelta(minutes=settings.automated_minutes)
    ready: dict[int, list[datetime]] = {}
    for number, kind, at, *_ in rows:
        if kind == "ready_for_review":
            ready.setdefault(number, []).append(at)
    for number, kind, at, actor, actor_type, body in rows:
        if kind not in ("comment", "review") or not actor or bots.is_bot(actor, actor_type):
            continue
        login = normalise_login(actor)
        out.comments_by[number, login] = out.comments_by.get((number, login), 0) + 1
        fp = fingerprint(body, settings) if body else None
        if fp is None:
            continue
        start = opened.get(number)
        out.fingerprints.append(fp)
        out.numbers.append(number)
        out.fast.append(any(t <= at <= t + quick for t in ([start] if start else []) + ready.get(number, [])))
        out.actors.append(login)
    return out


def mentions(text: str, markers: Iterable[str]) -> bool:
    """Whether `text` holds any of `markers`. Asked of every PR's body and every comment: a plain
    loop, where `any` over a generator cost half again as much."""
    for marker in markers:
        if marker in text:
            return True
    return False


@dataclass(frozen=True)
class TemplateIndex:
    """Templates of one snapshot: curated phrases, and fingerprints found by repetition (each with
    how it was found), plus the accounts that act as bots because templates are nearly all they say."""

    settings: TemplateSettings
    markers: tuple[str, ...] = ()
    found: Mapping[int, str] = field(default_factory=dict)  # fingerprint -> "automated" or "repeated"
    behaviour: Mapping[str, str] = field(default_factory=dict)  # normalised login -> why it acts as a bot

    def kind(self, body: str | None) -> str | None:
        """How this text is a template ("curated", "automated", "repeated"), or None when a person wrote it."""
        if not body:
            return None
        if mentions(body.lower(), self.markers):
            return "curated"
        fp = fingerprint(body, self.settings)
        return None if fp is None else self.found.get(fp)

    def is_template(self, body: str | None) -> bool:
        return self.kind(body) is not None

    def digest(self) -> str:
        """One text for everything this index answers: two snapshots whose digests agree judge every
        comment alike."""
        text = json.dumps([self.settings.model_dump(mode="json"), list(self.markers), sorted(self.found.items()),
                           sorted(self.behaviour.items())])
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class SightingTables:
    """The sightings of any number of repositories as two columnar tables: what a map over shards
    returns and what the store keeps between days. `repos` names every repository sighted, those
    with no rows too."""

    repos: tuple[str, ...]
    fingerprints: pa.Table  # repo, fp, number, fast, actor
    comments: pa.Table  # repo, number, login, n


FINGERPRINT_SCHEMA = pa.schema([("repo", pa.string()), ("fp", pa.int64()), ("number", pa.int32()),
                                ("fast", pa.bool_()), ("actor", pa.string())])
COMMENT_SCHEMA = pa.schema([("repo", pa.string()), ("number", pa.int32()), ("login", pa.string()), ("n", pa.int32())])


def sighting_tables(items: Iterable[Sightings]) -> SightingTables:
    """Repositories' sightings as columns."""
    repos: list[str] = []
    fps: dict[str, list[Any]] = {n: [] for n in FINGERPRINT_SCHEMA.names}
    com: dict[str, list[Any]] = {n: [] for n in COMMENT_SCHEMA.names}
    for s in items:
        repos.append(s.repo)
        fps["repo"] += [s.repo] * len(s.fingerprints)
        fps["fp"] += s.fingerprints
        fps["number"] += s.numbers
        fps["fast"] += s.fast
        fps["actor"] += s.actors
        com["repo"] += [s.repo] * len(s.comments_by)
        com["number"] += [number for number, _ in s.comments_by]
        com["login"] += [login for _, login in s.comments_by]
        com["n"] += list(s.comments_by.values())
    return SightingTables(tuple(repos), pa.table(fps, schema=FINGERPRINT_SCHEMA), pa.table(com, schema=COMMENT_SCHEMA))


class TemplateCounter:
    """Reduces sightings from any number of repositories (in any order) into a TemplateIndex."""

    def __init__(self, settings: TemplateSettings, markers: tuple[str, ...]) -> None:
        self.settings, self.markers = settings, markers
        self._tables: list[pa.Table] = []
        self._repo_ids: dict[str, int] = {}
        self._comments: dict[str, int] = {}

    def add(self, s: Sightings) -> None:
        self.add_tables(sighting_tables([s]))

    def add_tables(self, t: SightingTables) -> None:
        """Fold in the sightings of many repositories at once (a shard's, or those the store kept)."""
        f = t.fingerprints
        # A repository with rows must have an id, named in `repos` or not: without one its PRs would count as none.
        for repo in (*t.repos, *(pc.unique(f["repo"]).to_pylist() if f.num_rows else ())):
            self._repo_ids.setdefault(repo, len(self._repo_ids))
        if t.comments.num_rows:
            per = t.comments.group_by("login").aggregate([("n", "sum")])
            for login, n in zip(per["login"].to_pylist(), per["n_sum"].to_pylist()):
                self._comments[login] = self._comments.get(login, 0) + n
        if f.num_rows:
            # Repository ids are dense, in first-seen order: the dict's order is its values' order.
            rid = pc.cast(pc.index_in(f["repo"], value_set=pa.array(list(self._repo_ids), pa.string())), pa.int32())
            pr = pc.bit_wise_or(pc.shift_left(pc.cast(rid, pa.int64()), 32), pc.cast(f["number"], pa.int64()))
            self._tables.append(pa.table({"fp": f["fp"], "pr": pr, "repo": rid, "fast": f["fast"], "actor": f["actor"]}))

    @property
    def repos(self) -> int:
        """Repositories added so far."""
        return len(self._repo_ids)

    def index(self) -> TemplateIndex:
        st = self.settings
        if not self._tables:
            return TemplateIndex(st, self.markers)
        table = pa.concat_tables(self._tables)
        groups = table.group_by("fp").aggregate([("pr", "count_distinct"), ("repo", "count_distinct"), ("fast", "sum")])
        groups = groups.filter(pc.greater_equal(groups["pr_count_distinct"], st.min_prs))
        found: dict[int, str] = {}
        for fp, prs, repos, fast in zip(*(groups[c].to_pylist() for c in ("fp", "pr_count_distinct", "repo_count_distinct", "fast_sum"))):
            if (fast or 0) >= st.automated_share * prs:
                found[fp] = "automated"
            elif repos >= st.min_repos:
                found[fp] = "repeated"
        behaviour: dict[str, str] = {}
        if found:
            hits = table.filter(pc.is_in(table["fp"], value_set=pa.array(list(found), pa.int64())))
            per = hits.group_by("actor").aggregate([("fp", "count"), ("repo", "count_distinct")])
            for login, n, repos in zip(*(per[c].to_pylist() for c in ("actor", "fp_count", "repo_count_distinct"))):
                total = self._comments.get(login, 0)
                if total >= st.behaviour_min_comments and n >= st.behaviour_share * total and repos >= 2:
                    behaviour[login] = f"acts as a bot: {n} of its {total} comments are templates, in {repos} repositories"
        return TemplateIndex(st, self.markers, found, behaviour)


def build_index(repos: Iterable[RepoData], bots_for: Any, settings: TemplateSettings, markers: tuple[str, ...]) -> TemplateIndex:
    """The snapshot's TemplateIndex from its repositories; `bots_for(repo)` gives each one's Bots."""
    counter = TemplateCounter(settings, markers)
    found = (sightings(data, bots_for(data.repo.name_with_owner), settings) for data in repos)
    # In batches: one table per repository would make the count's columns in thousands of pieces.
    while batch := list(islice(found, BATCH_REPOS)):
        counter.add_tables(sighting_tables(batch))
    return counter.index()
