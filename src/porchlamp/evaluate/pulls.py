"""Per pull request (SPEC sections 4-5): outside or excluded with a reason, when its clock
starts, and its one outcome: answered (with the first response), closed silently, or unanswered.

Only what happened before the snapshot instant counts, so a later collection into the same
store does not change an earlier snapshot's verdicts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import NamedTuple

from porchlamp.config import Settings
from porchlamp.evaluate.bots import Bots, normalise_login
from porchlamp.evaluate.horizon import holds, pr_horizon
from porchlamp.evaluate.people import Maintainers, find_maintainers, first_contributions, is_brand_new
from porchlamp.evaluate.rules import Rules
from porchlamp.evaluate.templates import TemplateIndex, mentions
from porchlamp.models import Account, PullRequest, RepoData, TimelineItem

# Exclusion reasons, in the order they are checked; the first that applies is recorded.
EXCLUSION_REASONS: dict[str, str] = {
    "before_window": "opened before the window",
    "deleted_author": "author's account was deleted",
    "mannequin": "author is a mannequin (imported placeholder)",
    "bot": "author is a bot",
    "maintainer": "author is a maintainer",
    "brand_new_account": "author's account was brand-new",
    "draft": "draft never marked ready for review",
    "too_young": "younger than the response window at the snapshot",
    "self_closed": "closed by its author before anyone responded",
}
OUTCOMES = ("answered", "closed_silently", "unanswered")
RESPONDER_ASSOCIATION = "CONTRIBUTOR"  # has contributed before; maintainers count by Maintainers
QUOTE_CHARS = 300


@dataclass(frozen=True)
class Context:
    """What judging one repository's PRs needs besides the PRs: who is who, templates, the window."""

    rules: Rules
    settings: Settings
    start: datetime
    end: datetime
    bots: Bots
    templates: TemplateIndex
    maintainers: Maintainers
    accounts: Mapping[str, Account]
    first: Mapping[str, datetime]  # author -> first merged PR or commit seen


def repo_context(data: RepoData, accounts: Mapping[str, Account], rules: Rules, settings: Settings, start: datetime,
                 end: datetime, templates: TemplateIndex | None = None, earlier: Earlier | None = None) -> Context:
    """The Context of one repository; `templates` comes from the whole snapshot (curated only when None).
    With `earlier`, a PR whose rows are those its earlier verdict was judged on, and whose horizon is
    ahead, gives its maintainers' acts from that verdict (`find_maintainers`)."""
    templates = templates or TemplateIndex(settings.templates, rules.bot_templates)
    bots = Bots(rules.bots, data.repo.name_with_owner, templates.behaviour)
    kept = None if earlier is None else earlier.acts if earlier.acts is not None else kept_acts(earlier, end)
    return Context(rules, settings, start, end, bots, templates, find_maintainers(data, start, end, bots, kept), accounts,
                   first_contributions(data))


def redirect_kind(text: str | None, rules: Rules) -> str | None:
    """Where a message says review happens instead ("gerrit", "mailing_list", "repo_lockdown"), if it does."""
    low = (text or "").lower()
    for kind, markers in (("gerrit", rules.gerrit_markers), ("mailing_list", rules.mailing_list_markers),
                          ("repo_lockdown", rules.lockdown_markers)):
        if mentions(low, markers):
            return kind
    return None


def quote(text: str) -> str:
    """A passage on one line, cut to QUOTE_CHARS."""
    one = " ".join(text.split())
    return one if len(one) <= QUOTE_CHARS else one[: QUOTE_CHARS - 1] + "…"


def redirect_of(pr: PullRequest, seen: tuple[TimelineItem, ...], ctx: Context) -> str | None:
    """The first item in the window, by someone other than the PR's author, that points the PR
    elsewhere: a bridge bot, or a bot, maintainer or past contributor whose words say where review
    happens. Judged with the PR, so a verdict kept from an earlier day keeps it too: its key holds
    the maintainers and its horizon the items in the window."""
    rules, bots = ctx.rules, ctx.bots
    author = (pr.author or "").lower()
    for item in seen:
        if item.created_at < ctx.start or not item.actor or item.actor.lower() == author:
            continue
        kind = rules.bridge_bots.get(normalise_login(item.actor))
        if kind is None and item.body and (bots.is_bot(item.actor, item.actor_type) or item.actor in ctx.maintainers
                                           or item.actor_association == RESPONDER_ASSOCIATION):
            kind = redirect_kind(item.body, rules)
        if kind:
            by = "a bot" if bots.is_bot(item.actor, item.actor_type) else "a maintainer, by hand"
            return json.dumps([kind, f"{item.actor} ({by})", quote(item.body)], ensure_ascii=False)
    return None


def is_response(item: TimelineItem, pr: PullRequest, maintainers: Maintainers, bots: Bots, templates: TemplateIndex,
                rules: Rules) -> bool:
    """Is this timeline item the project answering the PR (SPEC section 5)? A comment or review by a
    person other than the author who is a maintainer or a past contributor, in words of their own:
    templated text is not an answer, except a maintainer's redirect to where review happens, pasted
    by hand. The collector calls this same rule to know when a PR's first page settles it."""
    if item.kind not in ("comment", "review") or not item.actor:
        return False
    if pr.author and item.actor.lower() == pr.author.lower():
        return False
    if bots.is_bot(item.actor, item.actor_type):
        return False
    if not (item.actor in maintainers or item.actor_association == RESPONDER_ASSOCIATION):
        return False
    kind = templates.kind(item.body)
    if kind is None:
        return True
    return kind != "automated" and item.actor in maintainers and redirect_kind(item.body, rules) is not None


# The verdict and its response are named tuples, not frozen dataclasses: a day makes hundreds of
# thousands of each from stored rows (`snapshot.kept_verdicts`) and a full evaluation one per PR, and
# a tuple is made from its values in C, where a frozen dataclass sets each field through a call
# (2.5 against 0.7 µs for a verdict). Read-only all the same, and compared field by field.
class Response(NamedTuple):
    kind: str  # comment, review or merge
    actor: str | None
    at: datetime


class PRVerdict(NamedTuple):
    repo: str
    number: int
    author: str | None
    author_association: str
    created_at: datetime
    clock_start: datetime
    excluded: str | None
    outcome: str | None
    response: Response | None  # the first responder's response, at any time before the snapshot
    hours_to_response: float | None
    decided: bool  # merged, or closed by someone else, within the decided window
    merged: bool
    reviewed_by_other: bool
    reviews: int
    has_ci: bool | None
    first_timer: bool | None  # None: not decided (the PR is not an outside PR)
    ai_assisted: bool
    title: str
    # Where an outside PR was pointed instead, by the first item in the window that says so (JSON
    # [kind, "actor (by whom)", quote]): what the off-GitHub gate counts (`redirect_of`).
    redirect: str | None
    # Bookkeeping: until when the same rows give this verdict as the window moves (`pr_horizon`), and
    # its author's standing it was judged under (`standing`): with `rows`, its key; none when the
    # PR's rows came without a digest.
    valid_until: datetime | None
    inputs: str | None
    # What its repository's maintainers are found from on a later day while its rows (their digest,
    # `rows`) are the same and its horizon is ahead, instead of its timeline (`people.find_maintainers`).
    acts: str | None
    rows: str | None

    @property
    def outside(self) -> bool:
        return self.excluded is None

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repo}/pull/{self.number}"

    @property
    def answered(self) -> bool:
        return self.outcome == "answered"


def clock_start(pr: PullRequest, items: tuple[TimelineItem, ...]) -> tuple[datetime, bool]:
    """(when the clock starts, was it opened as a draft): a ready-for-review event with no
    earlier convert-to-draft means the PR was opened as a draft; its clock starts then."""
    for item in items:
        if item.kind == "converted_to_draft":
            return pr.created_at, False
        if item.kind == "ready_for_review":
            return item.created_at, True
    return pr.created_at, pr.is_draft


def judge_pull(pr: PullRequest, items: tuple[TimelineItem, ...], ctx: Context, inputs: str | None = None,
               rows: str | None = None) -> PRVerdict:
    """The verdict on one PR of a repository, for the window [ctx.start, ctx.end); `inputs`, its
    author's `standing`, and `rows`, its rows' digest: together its key."""
    start, end, bots = ctx.start, ctx.end, ctx.bots
    w = ctx.settings.window
    response_window = timedelta(days=w.response_days)
    seen = tuple(i for i in items if i.created_at < end)
    clock, opened_as_draft = clock_start(pr, seen)

    # The first response: the earliest, and of equally early ones the first listed. A later item
    # cannot be it, so whether it is a response at all (its text compared with the templates) is
    # asked only of items earlier than the first found so far.
    first: Response | None = None
    author_close: datetime | None = None
    other_close: datetime | None = None
    human_close: datetime | None = None
    merged_at: datetime | None = None
    reviews = 0
    reviewed_by_other = False
    author = pr.author.lower() if pr.author else None
    for item in seen:
        actor = item.actor.lower() if item.actor else None
        if item.kind == "merged":
            merged_at = merged_at or item.created_at
            if first is None or item.created_at < first.at:
                first = Response("merge", item.actor, item.created_at)
        elif item.kind == "closed":
            if actor is not None and actor == author:
                author_close = author_close or item.created_at
            else:
                other_close = other_close or item.created_at
                if item.actor and not bots.is_bot(item.actor, item.actor_type):
                    human_close = human_close or item.created_at
        elif (first is None or item.created_at < first.at) and is_response(item, pr, ctx.maintainers, bots, ctx.templates,
                                                                          ctx.rules):
            first = Response(item.kind, item.actor, item.created_at)
        # Review depth counts reviews by others before the merge: what shaped the change.
        if item.kind == "review" and actor != author and merged_at is None and not bots.is_bot(item.actor, item.actor_type):
            reviews += 1
            reviewed_by_other = True
    if merged_at is None and pr.merged_at is not None and pr.merged_at < end:
        merged_at = pr.merged_at
        if first is None or pr.merged_at < first.at:
            first = Response("merge", pr.merged_by, pr.merged_at)
    deadline = clock + response_window

    if not (start <= pr.created_at < end):
        excluded: str | None = "before_window"
    else:
        excluded = author_exclusion(pr, ctx)
    if excluded is None:
        if opened_as_draft and not any(i.kind == "ready_for_review" for i in seen):
            excluded = "draft"
        elif deadline > end:
            excluded = "too_young"
        elif author_close is not None and author_close <= deadline and (first is None or first.at > author_close):
            # Withdrawn by its author inside the response window before anyone answered: not the
            # project's silence. A close after the window had run out is the author giving up.
            excluded = "self_closed"
    outcome = None
    if excluded is None:
        if first is not None and first.at <= deadline:
            outcome = "answered"
        elif human_close is not None and human_close <= deadline and (first is None or first.at > human_close):
            outcome = "closed_silently"
        else:
            outcome = "unanswered"
    decided_by = clock + timedelta(days=w.decided_days)
    decided = (merged_at is not None and merged_at <= decided_by) or (other_close is not None and other_close <= decided_by)
    body = (pr.body or "").lower()
    before = ctx.first.get(author or "")
    return PRVerdict(
        repo=pr.repo,
        number=pr.number,
        author=pr.author,
        author_association=pr.author_association,
        created_at=pr.created_at,
        clock_start=clock,
        excluded=excluded,
        outcome=outcome,
        response=first,
        hours_to_response=max(0.0, (first.at - clock).total_seconds() / 3600) if first else None,
        decided=decided,
        merged=merged_at is not None,
        reviewed_by_other=reviewed_by_other,
        reviews=reviews,
        has_ci=pr.has_ci,
        # Decided for outside PRs only: a maintainer's or a bot's earlier commits may not be collected.
        first_timer=None if excluded else (author is not None and (before is None or before >= pr.created_at)),
        ai_assisted=mentions(body, ctx.rules.ai_markers),
        title=pr.title,
        redirect=None if excluded else redirect_of(pr, seen, ctx),
        valid_until=pr_horizon(pr, items, start, end, w.response_days),
        inputs=inputs,
        acts=ctx.maintainers.acts.get(pr.number),
        rows=rows,
    )


def author_exclusion(pr: PullRequest, ctx: Context) -> str | None:
    """Why this PR's author puts it out of the count, if they do."""
    if pr.author is None:
        return "deleted_author"
    if pr.author_type == "Mannequin" or pr.author_association == "MANNEQUIN":
        return "mannequin"
    if ctx.bots.is_bot(pr.author, pr.author_type):
        return "bot"
    if pr.author in ctx.maintainers:
        return "maintainer"
    acct = ctx.accounts.get(pr.author)
    if is_brand_new(acct.created_at if acct else None, pr.created_at, ctx.settings.window.brand_new_account_days):
        return "brand_new_account"
    return None


@dataclass(frozen=True)
class Earlier:
    """What judging one repository's PRs may reuse: each PR's digest of its rows now (`rows`, by
    number), and the verdicts judged for the window ending `end` (`verdicts`, by number), each with
    the key it was judged under and until when it holds."""

    rows: Mapping[int, str]  # may leave out the PRs `held` gives: theirs are their verdicts' rows
    verdicts: Mapping[int, PRVerdict]
    end: datetime | None
    acts: Mapping[int, str] | None = None  # `kept_acts` for the window judged, if the caller found them
    held: frozenset[int] | None = None  # `holding` for the window judged, if the caller found them


def holding(earlier: Earlier, end: datetime) -> frozenset[int]:
    """The PRs whose earlier verdict stands for the window ending `end` if its author's standing and
    the maintainers are the same: its rows are those it was judged on, and its horizon is ahead
    (which puts each of its times where it was in the window)."""
    if earlier.end is None:
        return frozenset()
    was_end = earlier.end
    return frozenset(n for n, v in earlier.verdicts.items()
                     if v.rows is not None and earlier.rows.get(n) == v.rows and holds(v.valid_until, was_end, end))


def kept_acts(earlier: Earlier, end: datetime) -> dict[int, str]:
    """The maintainers' acts (`PRVerdict.acts`) that stand for the window ending `end`, by PR: those
    of the verdicts `holding` for it. Their PRs' timeline rows need not be read for the maintainers."""
    held = earlier.held if earlier.held is not None else holding(earlier, end)
    verdicts = earlier.verdicts
    return {n: acts for n in held if (acts := verdicts[n].acts) is not None}


def for_window(earlier: Earlier, end: datetime) -> Earlier:
    """`earlier` with what stands of it for the window ending `end` found once (`holding`, unless the
    caller found it, and `kept_acts`)."""
    found = earlier if earlier.held is not None else replace(earlier, held=holding(earlier, end))
    return replace(found, acts=kept_acts(found, end))


def context_key(ctx: Context) -> str:
    """What a PR's verdict reads of its repository's context that its own rows do not say, but for
    its author's standing: who the maintainers are. The code, settings, rules and template index are
    the snapshot's basis, the same for every verdict reused."""
    return _digest("\x00".join(sorted(ctx.maintainers.reasons)))


def standing(context: str, author: str | None, ctx: Context) -> str:
    """The part of a PR's key its repository's context gives, as a digest: `context_key`, and what
    is known of its author (when they first contributed, when their account was made). The key is
    this and the digest of the PR's rows: compared as two, so that a digest is made per author, not
    per PR (hundreds of thousands a day)."""
    acct = ctx.accounts.get(author) if author else None
    return _digest(f"{context}\x00{ctx.first.get((author or '').lower())}\x00{acct.created_at if acct else None}")


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def judge_pulls(data: RepoData, ctx: Context, earlier: Earlier | None = None) -> list[PRVerdict]:
    """Verdicts on every PR of a repository opened before the snapshot. With `earlier`, each PR is
    keyed (its rows' digest and its author's `standing`), and one whose earlier verdict has its key
    and holds for this window keeps it."""
    if earlier is None:
        return [judge_pull(pr, data.timeline.get(pr.number, ()), ctx) for pr in data.pulls if pr.created_at < ctx.end]
    context = context_key(ctx)
    known: dict[str | None, str] = {}  # an author's standing, for each of their PRs
    held = earlier.held if earlier.held is not None else holding(earlier, ctx.end)
    out = []
    for pr in data.pulls:
        if pr.created_at >= ctx.end:
            continue
        rows = earlier.rows.get(pr.number)
        if rows is None and pr.number in held:
            rows = earlier.verdicts[pr.number].rows  # held: judged on the same rows
        key = None
        if rows is not None:
            if pr.author not in known:
                known[pr.author] = standing(context, pr.author, ctx)
            key = known[pr.author]
        if pr.number in held and (was := earlier.verdicts[pr.number]).inputs == key:
            out.append(was)
        else:
            out.append(judge_pull(pr, data.timeline.get(pr.number, ()), ctx, key, rows))
    return out
