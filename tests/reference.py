"""A second reading of SPEC §3–§5 (who is who, which PRs are outside PRs, which were answered within
14 days) and of gate 1 of §6 (is it software?), written from SPEC's words as plain, slow Python.

Nothing here is taken from the engine's SQL: only the packaged data (the bot lists, the text marks of
`evaluate.marks`, Linguist's types) and the thresholds of the settings, which SPEC says are
configuration. Where SPEC leaves a choice open, the choice is the one docs/DECISIONS.md records, named
where it is made. tests/test_reference.py compares it with the engine, PR by PR.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from datetime import date, datetime, timedelta
from typing import Any

from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots, normalise_login
from porchlamp.evaluate.marks import mark_pr as _mark_pr
from porchlamp.evaluate.marks import mark_text
from porchlamp.evaluate.rules import Rules, load_rules, linguist_types
from porchlamp.models import RepoData, as_of_instant
from porchlamp.store import Store

MAINTAINER_ASSOCIATIONS = ("OWNER", "MEMBER", "COLLABORATOR")
WRITE_ACTS = ("merged", "labeled", "review_requested", "assigned", "closed")  # DECISIONS: maintainers by action


@dataclass(frozen=True)
class Reading:
    excluded: str | None  # why it is not an outside PR; None for an outside PR
    outcome: str | None  # answered, closed_silently or unanswered (outside PRs only)


@dataclass
class Said:
    """One comment or review, with what its text is."""

    repo: str
    number: int
    node: str
    at: datetime
    login: str | None
    norm: str | None
    type: str | None
    kind: str
    assoc: str | None
    fp: int | None
    chars: int
    words: int
    curated: bool
    redirect: str | None
    body: str


@lru_cache(maxsize=None)
def _pr_marks(title: str | None, body: str | None) -> Any:
    return _mark_pr(title, body, _rules())


def mark_pr(title: str | None, body: str | None, rules: Rules) -> Any:
    return _pr_marks(title, body)


def window(as_of: date, settings: Settings) -> tuple[datetime, datetime]:
    end = as_of_instant(as_of)
    return end - timedelta(days=settings.window.days), end


def read_store(db: Any, as_of: date, settings: Settings | None = None) -> dict[tuple[str, int], Reading]:
    """Every PR of every GitHub repository in the store, read as SPEC says, at `as_of`."""
    settings = settings or Settings()
    with Store(db, read_only=True) as store:
        repos = [d for d in store.iter_repo_data() if d.repo.forge == "github"]
        accounts = store.accounts("github.com")
    return read_repos(repos, {a.login: a.created_at for a in accounts.values()}, as_of, settings)


def read_repos(repos: list[RepoData], created: dict[str, datetime | None], as_of: date,
               settings: Settings) -> dict[tuple[str, int], Reading]:
    rules = load_rules(settings)
    start, end = window(as_of, settings)
    t = settings.templates
    said = _everything_said(repos, rules, end)
    templates = _templates(repos, said, rules, end, settings)
    across = _bots_across_repositories(said, templates, rules, t)
    repeat_authors = _repeated_descriptions(repos, said, rules, end, t)
    tools_prs = _tools_learned(repos, rules, start, end, t)
    out: dict[tuple[str, int], Reading] = {}
    for d in repos:
        out.update(_read_repo(d, said[d.repo.name_with_owner], templates, across, repeat_authors, created, rules,
                              start, end, settings, tools_prs))
    return out


# -- what is said, and which texts are templates (SPEC §5) ------------------------------------------


_NAMED: dict[str, Bots] = {}


def _by_name(login: str | None, kind: str | None, repo: str, rules: Rules) -> bool:
    """A bot by its account alone: GitHub's type, the [bot] and app/ forms, the lists and patterns."""
    if repo not in _NAMED:
        _NAMED[repo] = Bots(rules.bots, repo)
    return _NAMED[repo].is_bot(login, kind)


@lru_cache(maxsize=1)
def _rules() -> Rules:
    return load_rules(Settings())


@lru_cache(maxsize=None)
def _marks(body: str | None) -> Any:
    return mark_text(body, _rules())


def _everything_said(repos: list[RepoData], rules: Rules, end: datetime) -> dict[str, list[Said]]:
    out: dict[str, list[Said]] = {}
    for d in repos:
        name = d.repo.name_with_owner
        out[name] = []
        for number, items in d.timeline.items():
            for i in items:
                if i.kind not in ("comment", "review") or i.created_at >= end:
                    continue
                m = _marks(i.body)
                out[name].append(Said(name, number, i.node_id, i.created_at, i.actor,
                                      normalise_login(i.actor) if i.actor else None, i.actor_type, i.kind, i.actor_association,
                                      m.fp, m.chars, m.words, m.curated, m.redirect, i.body or ""))
    return out


_STARTS: dict[tuple[int, str, datetime], dict[int, list[datetime]]] = {}


def _starts(d: RepoData, number: int, end: datetime) -> list[datetime]:
    """When a PR opened, and each time it was marked ready: what 'within minutes of a PR opening' counts from."""
    key = (id(d), d.repo.name_with_owner, end)
    if key not in _STARTS:
        _STARTS[key] = {p.number: [p.created_at] + [i.created_at for i in d.timeline.get(p.number, ())
                                                      if i.kind == "ready_for_review" and i.created_at < end]
                        for p in d.pulls}
    return _STARTS[key][number]


def _fast(d: RepoData, s: Said, end: datetime, minutes: int) -> bool:
    return any(t <= s.at <= t + timedelta(minutes=minutes) for t in _starts(d, s.number, end))


def _long(s: Said, t: Any) -> bool:
    return s.fp is not None and s.chars >= t.min_chars and s.words >= t.min_words


def _templates(repos: list[RepoData], said: dict[str, list[Said]], rules: Rules, end: datetime,
               settings: Settings) -> dict[int, bool]:
    """Texts that are templates across the snapshot: the same text (numbers, links, hashes and mentions set
    aside) on many PRs, in several repositories or nearly always posted within minutes of a PR opening.
    Accounts already bots by name are not weighed (their texts are set aside with them)."""
    t = settings.templates
    prs: dict[int, set[tuple[str, int]]] = defaultdict(set)
    fast: Counter[int] = Counter()
    posts: Counter[int] = Counter()
    for d in repos:
        for s in said[d.repo.name_with_owner]:
            if not _long(s, t) or s.login is None or _by_name(s.login, s.type, s.repo, rules):
                continue
            prs[s.fp].add((s.repo, s.number))  # type: ignore[index]
            posts[s.fp] += 1  # type: ignore[index]
            fast[s.fp] += _fast(d, s, end, t.automated_minutes)  # type: ignore[index]
    out = {}  # each template, and whether it is posted within minutes of PRs opening, nearly always
    for fp, where in prs.items():
        if len(where) < t.min_prs:
            continue
        automated = fast[fp] >= t.automated_share * len(where)
        if automated or len({r for r, _ in where}) >= t.min_repos:
            out[fp] = automated
    return out


def _is_template(s: Said, templates: dict[int, bool], t: Any) -> bool:
    return s.curated or (_long(s, t) and s.fp in templates)


def _bots_across_repositories(said: dict[str, list[Said]], templates: dict[int, bool], rules: Rules, t: Any) -> set[str]:
    """SPEC §3: the same templated text posted on many PRs in many repositories is a bot's: an account
    nearly all of whose comments are templates, in two or more repositories."""
    by: dict[str, list[Said]] = defaultdict(list)
    for texts in said.values():
        for s in texts:
            if s.norm and not _by_name(s.login, s.type, s.repo, rules):
                by[s.norm].append(s)
    out = set()
    for login, texts in by.items():
        templated = [s for s in texts if _long(s, t) and s.fp in templates]
        if (len(texts) >= t.behaviour_min_comments and len(templated) >= t.behaviour_share * len(texts)
                and len({s.repo for s in templated}) >= 2):
            out.add(login)
    return out


def _repeated_descriptions(repos: list[RepoData], said: dict[str, list[Said]], rules: Rules, end: datetime, t: Any) -> set[str]:
    """SPEC §3: one templated body on PR after PR makes an account a bot for its PRs; a repository's own
    template filled in by many authors marks none of them; and repetition alone is not a bot: an
    account that writes in its own words elsewhere is a person who pasted one explanation on a batch."""
    bodies: dict[int, list[str]] = defaultdict(list)
    once: Counter[str] = Counter()
    own: dict[str, Counter[int]] = defaultdict(Counter)
    for d in repos:
        for p in d.pulls:
            if not p.author or p.created_at >= end:
                continue
            m = mark_pr(p.title, p.body, rules)
            login = p.author.strip().lower()
            if m.fp is not None and m.chars >= t.min_chars and m.words >= t.min_words:
                bodies[m.fp].append(login)
            if m.fp is not None and m.words >= t.min_words:
                own[login][m.fp] += 1
    for texts in said.values():
        for s in texts:
            if s.norm and s.fp is not None and s.words >= t.min_words and not s.curated:
                own[s.norm][s.fp] += 1
    for login, texts in own.items():
        once[login] = sum(1 for n in texts.values() if n == 1)
    out = set()
    for fp, logins in bodies.items():
        if len(logins) >= t.author_template_prs and len(set(logins)) == 1 and once[logins[0]] < t.own_words_min:
            out.add(logins[0])
    return out


def _tools_learned(repos: list[RepoData], rules: Rules, start: datetime, end: datetime, t: Any) -> set[tuple[str, int]]:
    """SPEC §3: where the snapshot holds PRs written by known bots (GitHub Apps), their descriptions are
    their tools' templates, and a user account's PR that follows one is that tool's. DECISIONS ("A tool's
    template, learned"): a tool's fixed words are lines of its PRs (`template_lines`) on tool_min_prs of
    them, in two or more owners' repositories, that fewer people wrote than the tool posted; a window's PR
    follows it with three of them, or with half of its own such lines."""
    apps: set[str] = set()  # known bots: the Bot type, the [bot] and app/ forms, the sourced list; no listed person
    for d in repos:
        for p in d.pulls:
            login = (p.author or "").strip().lower()
            if (login and p.created_at < end and normalise_login(login) not in rules.bots.humans
                    and (p.author_type == "Bot" or login.endswith("[bot]") or login.startswith("app/")
                         or normalise_login(login) in rules.bots.known)):
                apps.add(login)
    posted: dict[tuple[str, int], set[str]] = defaultdict(set)  # (tool, line) -> owners
    times: Counter[tuple[str, int]] = Counter()
    people: dict[int, set[str]] = defaultdict(set)
    for d in repos:
        owner = d.repo.name_with_owner.rsplit("/", 1)[0]
        for p in d.pulls:
            if not p.author or p.created_at >= end:
                continue
            login = p.author.strip().lower()
            for line in mark_pr(p.title, p.body, rules).lines:
                if login in apps:
                    posted[(login, line)].add(owner)
                    times[(login, line)] += 1
                else:
                    people[line].add(login)
    fixed: dict[int, set[str]] = defaultdict(set)
    for (tool, line), owners in posted.items():
        if times[(tool, line)] >= t.tool_min_prs and len(owners) >= 2 and len(people[line]) < times[(tool, line)]:
            fixed[line].add(tool)
    out = set()
    for d in repos:
        for p in d.pulls:
            if not (start <= p.created_at < end):
                continue
            lines = mark_pr(p.title, p.body, rules).lines
            per_tool = Counter(tool for line in lines for tool in fixed.get(line, ()))
            if any(n >= 3 or n >= 0.5 * len(lines) for n in per_tool.values()):
                out.add((d.repo.name_with_owner, p.number))
    return out


# -- one repository -----------------------------------------------------------------------------------


def _own_bots(d: RepoData, texts: list[Said], templates: dict[int, bool], start: datetime, end: datetime,
              settings: Settings, rules: Rules) -> set[str]:
    """SPEC §5: a project's own bot under a person's account, in that repository. (a) One text of its own
    makes up nearly all it says there, on several PRs. (b) Reports filled in per PR, sharing most of their
    lines with its other reports, open the conversation within minutes on nearly every PR. What is set
    aside anyway (known templates, redirects, an author on its own PR) is not weighed."""
    t = settings.templates
    in_window = {p.number for p in d.pulls if start <= p.created_at < end}
    authors = {p.number: (p.author or "").lower() for p in d.pulls}
    weighed = [s for s in texts if s.number in in_window and s.norm and s.norm != authors.get(s.number)
               and not s.redirect and not s.curated and not (_long(s, t) and s.fp in templates)
               and not _by_name(s.login, s.type, d.repo.name_with_owner, rules)]
    out = set()
    by: dict[str, list[Said]] = defaultdict(list)
    for s in weighed:
        by[s.norm].append(s)  # type: ignore[index]
    for login, mine in by.items():
        prs_of_text: dict[int, set[int]] = defaultdict(set)
        for s in mine:
            if s.fp is not None and s.words >= t.min_words:
                prs_of_text[s.fp].add(s.number)
        canned = [s for s in mine if s.fp is not None and s.words >= t.min_words and len(prs_of_text[s.fp]) >= t.own_min_prs]
        if len(canned) >= t.behaviour_share * len(mine) and len({s.number for s in canned}) >= t.own_min_prs:
            out.add(login)
    # (b) the skeleton: each PR's first word from someone else, when it came within minutes
    first: dict[int, Said] = {}
    everyone = [s for s in texts if s.number in in_window and s.login and (s.norm != authors.get(s.number))
                and not _by_name(s.login, s.type, d.repo.name_with_owner, rules)]
    for s in sorted(everyone, key=lambda s: (s.at, s.node)):
        first.setdefault(s.number, s)
    openings: dict[str, list[Said]] = defaultdict(list)
    for s in first.values():
        # known bot text and redirects are set aside anyway; a report that came out the same on many PRs is still one
        if not s.curated and not s.redirect and _fast(d, s, end, t.automated_minutes):
            openings[s.norm].append(s)  # type: ignore[index]
    for login, mine in openings.items():
        lines = {s.node: _lines(s.body) for s in mine}
        held = Counter(line for ls in lines.values() for line in ls)
        shared = {line for line, n in held.items() if n >= max(t.own_min_prs, 0.5 * len(mine))}
        reports = [s for s in mine if lines[s.node] and len(lines[s.node] & shared) >= 0.5 * len(lines[s.node])]
        filled_in = len({s.fp for s in reports if s.words >= t.min_words}) >= 0.5 * len(reports)  # no two alike, mostly
        if len(reports) >= t.min_prs and len(reports) >= t.automated_share * len(in_window) and filled_in:
            out.add(login)
    return out


def _lines(body: str) -> set[str]:
    """A text's lines, numbers and hashes set aside."""
    import re

    out = set()
    for line in body.split("\n"):
        low = re.sub(r"\b[0-9a-f]{7,40}\b", "#", line.strip().lower())
        low = re.sub(r"[0-9]+", "0", low)
        if len(low) >= 3:
            out.add(low)
    return out


def _read_repo(d: RepoData, texts: list[Said], templates: dict[int, bool], across: set[str], repeat_authors: set[str],
               created: dict[str, datetime | None], rules: Rules, start: datetime, end: datetime,
               settings: Settings, tools_prs: set[tuple[str, int]] = frozenset()) -> dict[tuple[str, int], Reading]:
    name = d.repo.name_with_owner
    t, w = settings.templates, settings.window
    own = _own_bots(d, texts, templates, start, end, settings, rules)

    def bot(login: str | None, kind: str | None) -> bool:
        if login is None:
            return kind == "Bot"
        return _by_name(login, kind, name, rules) or normalise_login(login) in across or normalise_login(login) in own

    # Maintainers (SPEC §3): an association that says so on anything in the window, a write act on
    # someone else's PR in the window, a merge, or CODEOWNERS; never a bot.
    maintainers: set[str] = {o.lower() for o in d.community.codeowners}
    for p in d.pulls:
        if start <= p.created_at < end and p.author and p.author_association in MAINTAINER_ASSOCIATIONS:
            maintainers.add(p.author.lower())
        has_merge_item = any(i.kind == "merged" for i in d.timeline.get(p.number, ()))
        if (p.merged_by and p.merged_at and start <= p.merged_at < end and not has_merge_item
                and p.merged_by.lower() != (p.author or "").lower()):
            maintainers.add(p.merged_by.lower())
        for i in d.timeline.get(p.number, ()):
            if not (start <= i.created_at < end) or not i.actor:
                continue
            if i.actor_association in MAINTAINER_ASSOCIATIONS:
                maintainers.add(i.actor.lower())
            if i.kind in WRITE_ACTS and i.actor.lower() != (p.author or "").lower():
                maintainers.add(i.actor.lower())
    people = {i.actor: i.actor_type for items in d.timeline.values() for i in items if i.actor}
    people.update({p.author: p.author_type for p in d.pulls if p.author})
    maintainers = {m for m in maintainers if not bot(m, people.get(m) or next((k for a, k in people.items() if a.lower() == m), None))}
    # Contributed before (SPEC §3, first-timer; §5, a forge that shows no association): merged PRs and commits.
    contributed: dict[str, datetime] = {}
    for p in d.pulls:
        if p.author and p.merged_at:
            contributed[p.author.lower()] = min(p.merged_at, contributed.get(p.author.lower(), p.merged_at))
    for c in d.commits:
        if c.author_login:
            contributed[c.author_login.lower()] = min(c.committed_at, contributed.get(c.author_login.lower(), c.committed_at))

    said_by_node = {s.node: s for s in texts}
    out: dict[tuple[str, int], Reading] = {}
    for p in d.pulls:
        if p.created_at >= end:
            continue
        items = sorted((i for i in d.timeline.get(p.number, ()) if i.created_at < end), key=lambda i: (i.created_at, i.node_id))
        author = (p.author or "").lower()

        def by_author(i: Any) -> bool:
            return bool(i.actor) and i.actor.lower() == author

        # The clock (DECISIONS: the first ready-for-review event with no convert-to-draft before it).
        # Whether it was opened as a draft is in its whole history: a draft marked ready only after the
        # snapshot was still a draft at it, whatever the PR shows now.
        ever = sorted((i for i in d.timeline.get(p.number, ()) if i.kind in ("ready_for_review", "converted_to_draft")),
                      key=lambda i: (i.created_at, i.node_id))
        opened_as_draft = ever[0].kind == "ready_for_review" if ever else p.is_draft
        ready = [i for i in items if i.kind == "ready_for_review"]
        clock = ready[0].created_at if opened_as_draft and ready else p.created_at
        deadline = clock + timedelta(days=w.response_days)

        # The first response: a responder's comment or review in their own words, or a merge.
        def responds(i: Any) -> bool:
            if i.kind not in ("comment", "review") or not i.actor or by_author(i) or bot(i.actor, i.actor_type):
                return False
            who = i.actor.lower()
            maintainer = who in maintainers
            contributor = i.actor_association == "CONTRIBUTOR" or (
                i.actor_association is None and who in contributed and contributed[who] < i.created_at)
            if not (maintainer or contributor):
                return False
            s = said_by_node.get(i.node_id)
            if s is None or s.fp is None:
                return True
            if not _is_template(s, templates, t):
                return True
            automated = not s.curated and templates.get(s.fp, False)  # type: ignore[arg-type]
            return maintainer and s.redirect is not None and not automated  # a maintainer's redirect by hand

        response = next((i for i in items if i.kind == "merged" or responds(i)), None)
        response_at = response.created_at if response is not None else None
        if not any(i.kind == "merged" for i in items) and p.merged_at and p.merged_at < end and (
                response_at is None or p.merged_at < response_at):
            response_at = p.merged_at  # the PR says it was merged: a merge the timeline did not show
        closes = [i for i in items if i.kind in ("closed", "reopened")]
        author_close = None
        if closes and closes[-1].kind == "closed" and by_author(closes[-1]):
            author_close = closes[-1].created_at  # a close the author undid by reopening is not a withdrawal
        human_close = next((i.created_at for i in items if i.kind == "closed" and not by_author(i) and i.actor
                            and not bot(i.actor, i.actor_type)), None)

        m = mark_pr(p.title, p.body, rules)
        account_created = created.get(p.author) if p.author else None
        if not (start <= p.created_at < end):
            why: str | None = "before_window"
        elif not p.author:
            why = "deleted_author"
        elif p.author_type == "Mannequin" or p.author_association == "MANNEQUIN":
            why = "mannequin"
        elif (bot(p.author, p.author_type) or m.bot_tool is not None or author in repeat_authors
              or (name, p.number) in tools_prs):
            why = "bot"
        elif author in maintainers:
            why = "maintainer"
        elif account_created is not None and p.created_at - account_created < timedelta(days=w.brand_new_account_days):
            why = "brand_new_account"
        elif opened_as_draft and not ready:
            why = "draft"
        elif deadline > end:
            why = "too_young"
        elif author_close is not None and author_close <= deadline and (response_at is None or response_at > author_close):
            why = "self_closed"  # DECISIONS: the author gave up inside the 14 days, before any response
        else:
            why = None
        if why is not None:
            out[(name, p.number)] = Reading(why, None)
        elif response_at is not None and response_at <= deadline:
            out[(name, p.number)] = Reading(None, "answered")
        elif human_close is not None and human_close <= deadline and (response_at is None or response_at > human_close):
            out[(name, p.number)] = Reading(None, "closed_silently")
        else:
            out[(name, p.number)] = Reading(None, "unanswered")
    return out


# -- gate 1 of §6 ---------------------------------------------------------------------------------------


def is_software(languages: tuple[tuple[str, int], ...], primary: str | None, min_code_ratio: float, disk_kb: int,
                manifests: bool) -> bool:
    """SPEC §6 gate 1, the language part: documents in any language Linguist types as prose, markup or data
    are not software; only programming languages are code."""
    types = linguist_types()
    if not languages:
        return primary is not None and types.get(primary) == "programming"
    code = sum(b for lang, b in languages if types.get(lang) == "programming")
    disk = disk_kb * 1024
    return manifests or (code > 0 and (not disk or code / disk >= min_code_ratio))
