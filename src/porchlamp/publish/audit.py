"""Checks what a published site says against the snapshot it was written from: every claim a page or
data file makes is worked out again from the snapshot's rows and settings, and each contradiction named.

A template marks each claim where it writes it (`data-claim`, read by `publish.claims`); `CLAIMS` holds
what each asserts and its predicate. A figure a covered page states outside every claim is itself a
contradiction, so a new sentence cannot go live without its check. `publish` runs this on a new
generation before switching it in; `porchlamp audit` runs it on any published site.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from porchlamp import figures
from porchlamp.evaluate.report import RESPONSE_BUCKETS
from porchlamp.figures import plural_of
from porchlamp.forks import can_fork, cores, fork_map, part_size
from porchlamp.forges import FORGE_NAMES
from porchlamp.publish.claims import Claim, claims_in, figures_in, main_of, text_runs
from porchlamp.publish.data import Project, SiteData, project_files
from porchlamp.publish.history import history_href
from porchlamp.publish.words import COMPONENT_LABELS, forge_words, standing
from porchlamp.stats import quantile, quantile_or_never


@dataclass(frozen=True)
class Contradiction:
    """What a page says that its data does not: the page, the claim, what it said, what holds."""

    page: str
    claim: str
    said: str
    should: str

    def line(self) -> str:
        said = self.said if len(self.said) <= 200 else self.said[:199] + "…"
        return f"{self.page}: {self.claim}: says {said!r}; {self.should}"


@dataclass
class Outcomes:
    """A project's outside PRs counted from their own rows, as every claim about them should say them."""

    n: int = 0
    answered: int = 0
    silent: int = 0
    late: int = 0
    none: int = 0

    @property
    def unanswered(self) -> int:
        return self.late + self.none


@dataclass(frozen=True)
class RepoTruth:
    """What claims about a project on another page (a list, a mirror's) are checked against."""

    status: str
    forge: str
    stars: int
    outcomes: Outcomes


@dataclass
class Context:
    """What one page's claims are checked against."""

    site: SiteData
    site_url: str
    medians: Mapping[str, float]
    project: Project | None = None
    outcomes: Outcomes | None = None
    by_repo: Mapping[str, RepoTruth] = field(default_factory=dict)
    report_hours: Mapping[str, int] | None = None
    homes: list[tuple[str, str, str]] = field(default_factory=list)  # mirrors' claims of their projects
    _statuses: dict[str, int] | None = None

    def statuses(self) -> dict[str, int]:
        """How many projects each status holds (counted once a page asks)."""
        if self._statuses is None:
            self._statuses = {}
            for t in self.by_repo.values():
                self._statuses[t.status] = self._statuses.get(t.status, 0) + 1
        return self._statuses

    @property
    def days(self) -> int:
        return self.site.settings.window.response_days


Check = Callable[[Context, Claim], Iterator[str]]
# Each claim a page may make: what it asserts, and its predicate (yields what should hold instead).
CLAIMS: dict[str, tuple[str, Check]] = {}


def claim(name: str, asserts: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        CLAIMS[name] = (asserts, check)
        return check
    return register


# Pages whose every figure must sit in a claim (the rest of the site is checked for the claims it marks,
# its plurals and its forge words).
COVERED = (re.compile(r"^projects/.+\.html$"), re.compile(r"^report\.html$"), re.compile(r"^not-ranked(/.+)?\.html$"))

_N = r"(\d[\d,]*)"
_PHRASES = (
    (re.compile(rf"{_N} of {_N} answered within (\d+) days"), ("answered", "n", "days")),
    (re.compile(rf"{_N} closed without an answer"), ("silent",)),
    (re.compile(rf"{_N} answered late"), ("late",)),
    (re.compile(rf"{_N} with no response"), ("none",)),
    (re.compile(rf"{_N} with no answer within (\d+) days"), ("unanswered", "days")),
    (re.compile(r"[Nn]o answer within (\d+) days on (\d+)%"), ("days", "share")),
)


def _int(s: str) -> int:
    return int(s.replace(",", ""))


def outcome_faults(text: str, o: Outcomes, days: int) -> Iterator[str]:
    """Each count of outside PRs `text` states that their rows contradict."""
    truth = {"answered": o.answered, "n": o.n, "silent": o.silent, "late": o.late, "none": o.none,
             "unanswered": o.unanswered, "days": days, "share": figures.share_of(o.unanswered, o.n).rstrip("%")}
    for rx, keys in _PHRASES:
        for m in rx.finditer(text):
            for key, value in zip(keys, m.groups()):
                want = truth[key]
                got = value if key == "share" else _int(value)
                if str(got) != str(want):
                    yield f"{m.group(0)!r}: the PRs' rows give {key} = {want}"
    if re.search(r"\bno response\b", text) and not o.none and "with no response" in text:
        yield "says 'no response' but every unanswered PR was answered late"


# --- what a project page claims -----------------------------------------------------------------


@claim("outcomes", "what became of the project's outside PRs: answered in time, closed without an answer, answered late, no response")
def _outcomes(ctx: Context, c: Claim) -> Iterator[str]:
    o = ctx.by_repo[c.of].outcomes if c.of else ctx.outcomes
    if o is not None:
        yield from outcome_faults(c.text, o, ctx.days)


@claim("median", "the time within which half (and 9 in 10) of the outside PRs were answered, over all of them")
def _median(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    hours = [r["hours_to_response"] if r["outcome"] == "answered" else None for r in p.outside_prs]
    for q, rx in ((0.5, r"Half were answered within ([^,.]+(?:\.\d [a-z]+)?)"), (0.9, r"9 in 10 within ([^,.]+(?:\.\d [a-z]+)?)")):
        m = re.search(rx, c.text)
        want = quantile_or_never(hours, q)
        if m and (want is None or m.group(1).strip() != figures.duration(want)):
            yield f"{m.group(0)!r}: its PRs give {figures.duration(want) if want is not None else 'no such time'}"
    if "no median" in c.text and quantile_or_never(hours, 0.5) is not None:
        yield "says there is no median, but half were answered in time"


@claim("verdict", "the project's status, and when ranked its default score, rank and share measured")
def _verdict(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    if p.status != "ranked":
        if c.text.split(":")[0].strip().lower() != p.words.split(":")[0].lower():
            yield f"its status is {p.words!r}"
        return
    d = p.profiles.get("default", {})
    want = f"score {figures.score(d.get('score'))}, rank {d.get('rank')} in the default ranking; {figures.share(d.get('coverage'))}"
    if want not in c.text:
        yield f"its default goal gives {want!r}"


@claim("explain", "a component that moves the project in a goal: a strength or a weak spot by its score against the ranked "
       "projects' median, counting for more or less by the goal's weight, and only when the weight changed")
def _explain(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    component, goal = c.of, c.args.get("data-goal", "")
    weights, default = ctx.site.settings.profiles.get(goal, {}), ctx.site.settings.profiles["default"]
    w, w0 = weights.get(component, 0), default.get(component, 0)
    if w == w0:
        yield f"{component} weighs {w:g} in both goals, so it does not explain a move"
        return
    way = "more" if w > w0 else "less"
    if f"counts for {way} here" not in c.text:
        yield f"{component} weighs {w:g} in {goal} against {w0:g}: it counts for {way}"
    score = (p.components.get(component) or {}).get("score")
    stand = standing(score, ctx.medians.get(component))
    for said in ("a strength", "a weak spot", "about average"):
        if said in c.text and said != stand:
            yield f"its {COMPONENT_LABELS.get(component, component)} score {figures.score(score)} against the ranked " \
                  f"projects' median {figures.score(ctx.medians.get(component))} makes it {stand or 'neither'}"


@claim("components", "each component's score, 'missing' where none, and what could not be measured")
def _components(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    label_of = {v: k for k, v in COMPONENT_LABELS.items()}
    for row in re.findall(r"<tr>(.*?)</tr>", c.inner, re.DOTALL):
        runs = text_runs(row)
        if not runs or runs[0] not in label_of:
            continue
        comp = p.components.get(label_of[runs[0]], {})
        if p.status == "ranked":
            want = "missing" if comp.get("score") is None else figures.score(comp["score"])
            if runs[1] != want:
                yield f"{runs[0]} shows {runs[1]!r}; its score is {want}"
        missing = re.search(r"\(not measured: ([^)]*)\)", comp.get("reason") or "")
        if missing and f"not measured: {forge_words(missing.group(1), p.forge)}" not in " ".join(runs):
            yield f"{runs[0]} does not say what could not be measured: {missing.group(1)}"


@claim("goals", "each goal's score, share measured and rank")
def _goals(ctx: Context, c: Claim) -> Iterator[str]:
    from porchlamp.publish.site import PROFILE_LABELS

    p = ctx.project
    assert p is not None
    said = " ".join(text_runs(c.inner))
    for name, d in p.profiles.items():
        label = PROFILE_LABELS.get(name, name)
        want = f"{label} {figures.score(d.get('score'))} {figures.share(d.get('coverage'))} {d.get('tier') or '–'} {d.get('rank') or '–'}"
        if want not in said:
            yield f"the {label} goal gives {want!r}"


@claim("times", "outside PRs, answered in time and the median first response, of first-timers and of the others")
def _times(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    text = " ".join(text_runs(c.inner))
    for label, first in (("first-timers", True), ("others", False)):
        group = [r for r in p.outside_prs if bool(r["first_timer"]) == first]
        answered = sum(1 for r in group if r["outcome"] == "answered")
        median = quantile_or_never([r["hours_to_response"] if r["outcome"] == "answered" else None for r in group], 0.5)
        want = f"{label} {figures.number(len(group))} {figures.number(answered)} {figures.duration(median)}"
        if want not in text:
            yield f"its PRs give {want!r}"


@claim("evidence-count", "how many outside PRs the table lists")
def _evidence_count(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    m = re.match(r"([\d,]+) ", c.text)
    if not m or _int(m.group(1)) != len(p.outside_prs):
        yield f"it has {len(p.outside_prs)} outside {p.pr_word}s"


@claim("evidence", "each outside PR's number, outcome and first response, a late answer never called 'no response'")
def _evidence(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    rows = {r["number"]: r for r in p.outside_prs}
    mark = re.escape(p.change_mark)
    cell = re.compile(r'<td class="c-pr"><a href="[^"]*">([^<]*)</a>.*?data-label="Outcome">([^<]*)<', re.DOTALL)
    for tr in re.findall(r"<tr\b.*?</tr>", c.inner, re.DOTALL):
        found = cell.search(tr)
        shown = html.unescape(found.group(1)) if found else tr[:40]
        m = re.fullmatch(rf"{mark}(\d+)", shown)
        if not m or found is None:
            yield f"{shown!r} is not one of its {p.pr_word}s ({p.change_mark}N)"
            continue
        r = rows.get(int(m.group(1)))
        if r is None:
            yield f"{shown} is not one of its outside {p.pr_word}s"
            continue
        outcome = found.group(2)
        responded = r["response_kind"] is not None
        if outcome == "no response" and responded:
            yield f"{shown} says 'no response' but had a {r['response_kind']} after {figures.duration(r['hours_to_response'])}"
        if outcome == "answered" and r["outcome"] != "answered":
            yield f"{shown} says answered; its outcome is {r['outcome']}"
        if outcome == "answered late" and not (responded and r["outcome"] == "unanswered"):
            yield f"{shown} says answered late; its outcome is {r['outcome']}"


@claim("excluded", "how many of its PRs were left out, and why")
def _excluded(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    for label, n in p.excluded_counts():
        label = forge_words(label, p.forge)
        if f"{label}: {n}" not in c.text:
            yield f"{label}: {n}"


@claim("bot", "why an account was taken for a bot (one reason, the one that held, in its forge's words) and what its "
       "latest PR says, as a reader sees it")
def _bot(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    b = next((b for b in p.bot_authors if b["login"] == c.of), None)
    if b is None:
        yield f"{c.of} is not an account whose PRs were left out as a bot's"
        return
    if f"{figures.count(b['prs'], p.pr_word)}:" not in c.text:
        yield f"{c.of} opened {figures.count(b['prs'], p.pr_word)}"
    if ", or " in c.text.split(":", 1)[-1].split("…")[0].split(p.change_mark)[0]:
        yield "gives two reasons where one held"
    if p.forge == "forgejo" and "of type Bot" in c.text:
        yield "Forgejo has no account type: it cannot be 'of type Bot'"
    quote = c.inner.split("<blockquote", 1)[1].split(">", 1)[1] if "<blockquote" in c.inner else ""
    if quote:
        said = " ".join(text_runs(quote))
        if re.search(r"<!--|-->|\|\s*-{3}|\]\(https?:|^#+ |\*\*", said):
            yield "its quote shows raw markup"
        if b.get("number") is not None and f"{p.change_mark}{b['number']}" not in said:
            yield f"its quote's link is not {p.change_mark}{b['number']}"


@claim("badge", "the badge snippets a maintainer can paste: absolute addresses, or none at all when the site has no address")
def _badge(ctx: Context, c: Claim) -> Iterator[str]:
    if not ctx.site_url:
        yield "the site has no address, so a snippet cannot work in a README"
        return
    for link in re.findall(r"\]\((.*?)\)|(?:href|src)=&#34;(.*?)&#34;", c.inner):
        url = next(u for u in link if u)
        if not url.startswith(ctx.site_url):
            yield f"{url!r} is not under the site's address {ctx.site_url}"


@claim("home", "what the project that a mirror points to answered (checked once every project is known)")
def _home(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None and p.home is not None
    ctx.homes.append((project_files(p.repo).page, p.home["repo"], c.text))
    return iter(())


@claim("sample", "how many quotes of how many PRs pointed elsewhere")
def _sample(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    og = p.evidence().get("off_github", {})
    want = f"{figures.count(len(og.get('quotes', [])), 'quote')}, from {og.get('quoted_prs')} of the " \
           f"{figures.count(og.get('prs_pointed_elsewhere', 0), p.pr_word)}"
    if want not in c.text:
        yield f"its evidence gives {want!r}"


@claim("quotes", "what says review happens elsewhere, each quote with the PRs it was posted on")
def _quotes(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    known = {r["number"] for r in p.outside_prs}
    for source in re.findall(r'<p class="meta">(.*?)</p>', c.inner, re.DOTALL):
        for n in re.findall(rf"{re.escape(p.change_mark)}(\d+)", " ".join(text_runs(source))):
            if int(n) not in known:
                yield f"{p.change_mark}{n} is not one of its {p.pr_word}s"


@claim("elsewhere", "where the project's review happens, as its evidence says")
def _elsewhere(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    at = p.row.get("review_happens") or ""
    for url in re.findall(r"https?://\S+?(?=[\s.]*$|[\s.] )", c.text):
        if url not in at:
            yield f"its evidence says review happens at {at or 'no address'}"


@claim("mirrors", "the repositories that mirror this project, or send their PRs to it")
def _mirrors(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    named = re.findall(r'<a href="[^"]*">(.*?)</a>', c.inner)
    if sorted(named) != sorted(p.mirrors):
        yield f"its mirrors are {', '.join(p.mirrors) or 'none'}"


@claim("issues", "good first issues the accessibility component found open")
def _issues(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    known = {i["number"] for i in p.issues}
    for n in re.findall(r"#(\d+)", c.text):
        if int(n) not in known:
            yield f"#{n} is not one of its good first issues"


@claim("setting", "a figure of the method's settings (days, thresholds, weights)")
def _setting(ctx: Context, c: Claim) -> Iterator[str]:
    known = _setting_values(ctx.site)
    for n in re.findall(r"\d+(?:\.\d+)?", c.text):
        if float(n) not in known:
            yield f"{n} is no setting's value"


@claim("name", "the project's name, as its forge gives it")
def _name(ctx: Context, c: Claim) -> Iterator[str]:
    want = c.of or (ctx.project.repo if ctx.project else "")
    if c.text != want:
        yield f"the project is {want}"


@claim("forge", "which forge and host the project lives on, and what stands in there for what the method reads on GitHub")
def _forge(ctx: Context, c: Claim) -> Iterator[str]:
    from porchlamp import forges

    p = ctx.project
    assert p is not None
    want = f"on {p.forge_name} ({forges.host_of(p.repo)})"
    if not c.text.startswith(want):
        yield f"it is {want}"
    if p.forge == "forgejo" and "no bot flag" in c.text and any("of type Bot" in (b["reason"] or "") for b in p.bot_authors):
        yield "says Forgejo flags no bots beside an account taken for one by its type"


@claim("description", "the project's description, as its forge gives it")
def _description(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    if c.text != " ".join((p.row["description"] or "").split()):
        yield "its forge describes it otherwise"


@claim("topics", "the project's topics, as its forge gives them")
def _topics(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    if text_runs(c.inner) != [" ".join(t.split()) for t in p.topics if t.strip()]:
        yield f"its topics are {', '.join(p.topics)}"


@claim("meta", "the project's ecosystem, language and stars")
def _meta(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    if figures.count(p.row["stars"], "star") not in c.text:
        yield f"it has {figures.count(p.row['stars'], 'star')}"
    if not c.text.startswith(str(p.row["ecosystem"])):
        yield f"its ecosystem is {p.row['ecosystem']}"


@claim("stars", "a listed project's stars")
def _stars(ctx: Context, c: Claim) -> Iterator[str]:
    t = ctx.by_repo.get(c.of)
    if t is None:
        yield f"{c.of} is not a project of this snapshot"
    elif c.text != figures.number(t.stars):
        yield f"{c.of} has {figures.number(t.stars)} stars"


@claim("change", "how the project moved since the previous snapshot")
def _change(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    if p.change is None:
        yield "the snapshots show no change"
    elif p.change.words not in c.text:
        yield f"the snapshots give {p.change.words!r}"


@claim("own-bot", "an account taken for the project's own bot: on how many of the PRs it commented on it posts one message")
def _own_bot(ctx: Context, c: Claim) -> Iterator[str]:
    p = ctx.project
    assert p is not None
    b = next((b for b in p.evidence().get("own_bots", []) if b["login"] == c.of), None)
    if b is None:
        yield f"{c.of} is not one of its own bots"
    elif f"on {b['prs']} of the {figures.count(b['of_prs'], p.pr_word)}" not in c.text:
        yield f"{c.of} posts it on {b['prs']} of the {figures.count(b['of_prs'], p.pr_word)}"


@claim("list-count", "how many projects a list holds, and which of them this page shows")
def _list_count(ctx: Context, c: Claim) -> Iterator[str]:
    m = re.match(r"([\d,]+) projects?(?:, ([\d,]+)–([\d,]+) on page)?", c.text)
    if not m:
        yield "a count of projects"
        return
    total = _int(m.group(1))
    if m.group(2) and not 1 <= _int(m.group(2)) <= _int(m.group(3)) <= total:
        yield f"the rows shown must lie within the {total} listed"
    if c.of:
        by_status = ctx.statuses()
        want = sum(by_status.values()) - by_status.get("ranked", 0) if c.of == "not_ranked" else by_status.get(c.of, 0)
        if want != total:
            yield f"the snapshot has {want} such projects"


@claim("pager", "which page of how many a list is on")
def _pager(ctx: Context, c: Claim) -> Iterator[str]:
    m = re.fullmatch(r"page (\d+) of (\d+)", c.text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        yield "a page number between 1 and the number of pages"


@claim("paths", "where a named project's badge and Shields endpoint are")
def _paths(ctx: Context, c: Claim) -> Iterator[str]:
    files = project_files(c.of)
    for rel in (files.badge, files.shields):
        if rel not in c.text:
            yield f"{c.of}'s file is at {rel}"


# --- what the site's own pages claim ------------------------------------------------------------


@claim("report-times", "how many judged outside PRs were first answered within each time, exactly 14 days within")
def _report_times(ctx: Context, c: Claim) -> Iterator[str]:
    if ctx.report_hours is None:
        return
    text = " ".join(text_runs(c.inner))
    for label, n in ctx.report_hours.items():
        shown = "no response" if label == "never" else label
        if f"{shown} {figures.number(n)}" not in text:
            yield f"the judged PRs' rows give {shown}: {figures.number(n)}"


@claim("report", "a figure of the report, as the snapshot's report holds it")
def _report(ctx: Context, c: Claim) -> Iterator[str]:
    text = c.text.replace(ctx.site.as_of.isoformat(), "")  # the report's own date, and the buckets' names
    for label, _, _ in RESPONSE_BUCKETS:
        text = text.replace(label, "")
    found = list(_numbers(ctx.site.report))
    values = {figures.number(v) for v in found if isinstance(v, int)} | {
        f(v) for v in found if isinstance(v, float) for f in (figures.share, figures.score)}
    from porchlamp.publish.site import report_sums

    values |= {figures.number(v) for v in report_sums(ctx.site.report).values()}
    values |= {figures.number(sum(f.values())) for f in (ctx.site.report.get("funnel_by_forge") or {}).values()}
    values.add("100")  # "the top 100 of the default ranking": the report's fixed measure
    values |= {figures.number(int(v)) for v in _setting_values(ctx.site) if v == int(v)}
    for n in re.findall(r"\d[\d,]*(?:\.\d+)?%?", text):
        if n not in values and not any(n == figures.share_of(a, b) for a, b in _pairs(ctx.site.report)):
            yield f"{n} is not a figure of the report"


def _numbers(x: Any) -> Iterator[Any]:
    if isinstance(x, bool):
        return
    if isinstance(x, (int, float)):
        yield x
    elif isinstance(x, Mapping):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from _numbers(v)


def _pairs(report: Mapping[str, Any]) -> Iterator[tuple[int, int]]:
    yield report.get("black_holes_among_judged", 0), report.get("judged_for_black_hole", 0)


_SETTINGS: dict[int, set[float]] = {}


def _setting_values(site: SiteData) -> set[float]:
    key = id(site)
    if key not in _SETTINGS:
        from porchlamp.publish.data import HISTORY_DAYS

        _SETTINGS[key] = {float(v) for v in _numbers(json.loads(site.settings.model_dump_json()))} | {float(HISTORY_DAYS)}
    return _SETTINGS[key]


# --- the page-wide checks ------------------------------------------------------------------------

_COUNTED = ["PR", "MR", "pull request", "merge request", "project", "repository", "maintainer", "contributor", "package",
            "issue", "star", "fork", "place", "black hole", "person", "comment", "review", "account", "bot", "snapshot",
            "day", "quote", "mirror", "row", "page", "change", "author", "commit", "file", "goal", "week", "month"]
_VERBS = {"review", "change", "fork", "star", "comment", "file", "mirror", "page", "quote", "commit"}
_PLURALS = sorted({plural_of(n) for n in _COUNTED}, key=len, reverse=True)
_NOUNS = "|".join(map(re.escape, sorted({*_PLURALS, *_COUNTED}, key=len, reverse=True)))
_BETWEEN = (r"(?:(?!(?:of|in|on|to|and|or|per|from|out|than|at|by|for|with|after|before|h|min|" + _NOUNS + r")\b)"
            r"[a-z][a-z,-]* ){0,4}?")
_ONE_MANY = re.compile(rf"(?<![\d.,#!/:–-])\b1 {_BETWEEN}(?:{'|'.join(map(re.escape, _PLURALS))})\b")
_MANY_ONE = re.compile(rf"(?<![\d.,#!/:–-])\b(?:0|[2-9]|[1-9]\d+|\d{{1,3}}(?:,\d{{3}})+) {_BETWEEN}"
                       rf"(?:{'|'.join(map(re.escape, sorted(set(_COUNTED) - _VERBS, key=len, reverse=True)))})\b"
                       rf"(?![\w'’-]| (?:{_NOUNS}|template)\b)")


_DIGIT = re.compile(r"\d")


def plural_faults(runs: list[str]) -> Iterator[tuple[str, str]]:
    """Each "1 <plural noun>" and "<n≠1> <singular noun>" in `runs`, with its run."""
    for run in runs:
        if not _DIGIT.search(run):
            continue
        for rx in (_ONE_MANY, _MANY_ONE):
            for m in rx.finditer(run):
                yield run, f"{m.group(0)!r}: a count and its noun disagree"


_FOREIGN = {"gitlab": re.compile(r"\b(?:pull requests?|PRs?|GitHub)\b"), "forgejo": re.compile(r"\b(?:GitHub|merge requests?|MRs?)\b")}


def forge_faults(main: str, forge: str) -> Iterator[tuple[str, str]]:
    """Words of another forge on a page about a project on `forge`, outside what is marked as being
    about a project elsewhere (`data-forge`)."""
    rx = _FOREIGN.get(forge)
    if rx is None:
        return
    main = re.sub(r'<(\w+)[^>]*\sdata-forge="[a-z-]+"[^>]*>.*?</\1>', " ", main, flags=re.DOTALL)
    for run in text_runs(main):
        m = rx.search(run)
        if m:
            yield run, f"{m.group(0)!r} is not what {FORGE_NAMES.get(forge, forge)} calls it"


# --- the audit -----------------------------------------------------------------------------------


@dataclass
class AuditSummary:
    pages: int
    claims: int
    contradictions: list[Contradiction]

    @property
    def ok(self) -> bool:
        return not self.contradictions


def component_medians_of(site: SiteData) -> dict[str, float]:
    """Each component's median score over the ranked projects, read from the snapshot's rows."""
    if site.files is None:
        return {}
    ranked = [p.repo for p in site.projects if p.status == "ranked"]
    table = pq.read_table(site.files / "components.parquet", columns=["repo", "component", "score"])
    table = table.filter(pc.and_(pc.is_in(table["repo"], value_set=pa.array(ranked, pa.string())), pc.is_valid(table["score"])))
    by: dict[str, list[float]] = {}
    for comp, score in zip(table["component"].to_pylist(), table["score"].to_pylist()):
        by.setdefault(comp, []).append(score)
    return {comp: round(quantile(vs, 0.5) or 0.0, 1) for comp, vs in by.items()}


def outcomes_of(p: Project) -> Outcomes:
    o = Outcomes(n=len(p.outside_prs))
    for r in p.outside_prs:
        if r["outcome"] == "answered":
            o.answered += 1
        elif r["outcome"] == "closed_silently":
            o.silent += 1
        elif r["response_kind"] is not None:
            o.late += 1
        else:
            o.none += 1
    return o


JUDGED = ("ranked", "unrated", "black_hole")


# From this many projects their pages are audited on every core (forked: each child reads its part).
PARALLEL_FROM = 1_000


@dataclass
class _Part:
    """What auditing a part of the projects found: its contradictions, what it learned of each project
    for the claims other pages make of them, its judged PRs by time to first response, the claims a
    mirror's page makes of its project (checked once every project is known), and its counts."""

    found: list[Contradiction] = field(default_factory=list)
    by_repo: dict[str, RepoTruth] = field(default_factory=dict)
    hours: dict[str, int] = field(default_factory=lambda: {label: 0 for label, _, _ in RESPONSE_BUCKETS} | {"never": 0})
    homes: list[tuple[str, str, str]] = field(default_factory=list)  # (page, project, what it says)
    pages: int = 0
    claims: int = 0


def audit_site(root: str | Path, site: SiteData, site_url: str = "", progress: Callable[[int], None] | None = None,
               only: Collection[str] | None = None, workers: int | None = None) -> AuditSummary:
    """Every claim of the site at `root` checked against `site` (the snapshot it was published from):
    each project's page and record (on `workers` forked processes, default every core, for a large
    site), then the site's own pages and data files. With `only`, the pages and records of those
    projects alone (a day's publish: the others' files are those an audited generation holds), and
    the site's own pages, whose claims of the others are checked against their stored counts."""
    root = Path(root)
    medians = component_medians_of(site)
    search = _search_rows(root)
    repos = [p.repo for p in site.projects] if only is None else sorted(only)
    workers = workers or cores()
    if workers > 1 and len(repos) >= PARALLEL_FROM and can_fork():
        size = part_size(len(repos), 2_000, workers)
        chunks = [repos[i:i + size] for i in range(0, len(repos), size)]

        def audit_part(chunk: list[str]) -> _Part:
            return _audit_projects(root, site, site_url, medians, search, chunk)

        parts = []
        for chunk, part in zip(chunks, fork_map(audit_part, chunks, workers, lambda c: f"auditing {c[0]}…")):
            parts.append(part)
            if progress:
                progress(len(chunk))
    else:
        parts = [_audit_projects(root, site, site_url, medians, search, repos, progress)]
    whole = _Part()
    for part in parts:
        whole.found += part.found
        whole.by_repo.update(part.by_repo)
        whole.homes += part.homes
        whole.pages += part.pages
        whole.claims += part.claims
        for k, n in part.hours.items():
            whole.hours[k] += n
    known = whole.by_repo if only is None else {**listed_truth(site), **whole.by_repo}
    for page, home, said in whole.homes:  # a mirror's page, of the project its review happens on
        h = known.get(home)
        m = re.search(rf"answered {_N} of {_N} outside", said)
        if h and m and (_int(m.group(1)), _int(m.group(2))) != (h.outcomes.answered, h.outcomes.n):
            whole.found.append(Contradiction(page, "home", said, f"{home} answered {h.outcomes.answered} of {h.outcomes.n}"))
    ctx = Context(site, site_url, medians, None, None, known, response_buckets(site) if only is not None else whole.hours)
    for rel in _site_pages(root):
        n, bad = _audit_page(root, rel, ctx)
        whole.pages, whole.claims = whole.pages + 1, whole.claims + n
        whole.found += bad
    return AuditSummary(whole.pages, whole.claims, whole.found)


# A project's own folders (audited with its part) and the data files' (no pages): not walked.
_NOT_SITE_PAGES = frozenset({"projects", "history", "data", "badges", "static", "charts", "feeds"})


def _site_pages(root: Path) -> list[str]:
    """The site's own pages, relative to `root`, in order."""
    out = []
    for folder, dirs, files in os.walk(root):
        if folder == str(root):
            dirs[:] = [d for d in dirs if d not in _NOT_SITE_PAGES]
        at = os.path.relpath(folder, root)
        out += [f if at == "." else f"{at}/{f}".replace(os.sep, "/") for f in files if f.endswith(".html")]
    return sorted(out)


def _audit_projects(root: Path, site: SiteData, site_url: str, medians: Mapping[str, float], search: Mapping[str, list[Any]],
                    repos: Collection[str], progress: Callable[[int], None] | None = None) -> _Part:
    out = _Part()
    for p in site.detailed(repos):
        o = outcomes_of(p)
        out.by_repo[p.repo] = RepoTruth(p.status, p.forge, p.row["stars"] or 0, o)
        if p.status in JUDGED:
            for r in p.outside_prs:
                out.hours[_bucket(r["hours_to_response"])] += 1
        ctx = Context(site, site_url, medians, p, o, out.by_repo, homes=out.homes)
        files = project_files(p.repo)
        n, bad = _audit_page(root, files.page, ctx)
        out.pages, out.claims = out.pages + 1, out.claims + n
        out.found += bad
        out.found += _audit_record(root, files.record, ctx)
        history = f"{history_href(p.repo)}.html"
        if (root / history).exists():
            n, bad = _audit_page(root, history, ctx)
            out.pages, out.claims = out.pages + 1, out.claims + n
            out.found += bad
        row = search.get(p.repo)
        if row is not None:
            out.found += [Contradiction("data/v1/search.json", "outcomes", row[3], f"{p.repo}: {why}")
                          for why in outcome_faults(row[3] or "", o, ctx.days)]
            out.found += [Contradiction("data/v1/search.json", "forge-words", row[2], f"{p.repo}: {why}")
                          for _, why in forge_faults(f"<main><p>{row[2]}</p></main>", p.forge)]
        if progress:
            progress(1)
    return out


def listed_truth(site: SiteData) -> dict[str, RepoTruth]:
    """Each project as its stored result counts it: what the site's own pages are checked against for
    the projects whose PR rows were not read."""
    out = {}
    for p in site.projects:
        r = p.row
        late = r.get("answered_late") or 0
        out[p.repo] = RepoTruth(p.status, p.forge, r["stars"] or 0,
                                Outcomes(r["outside_prs"] or 0, r["answered"] or 0, r["closed_silently"] or 0, late,
                                         (r["unanswered"] or 0) - late))
    return out


def response_buckets(site: SiteData) -> dict[str, int]:
    """The judged projects' outside PRs by time to first response, from the snapshot's PR rows at once."""
    hours = {label: 0 for label, _, _ in RESPONSE_BUCKETS} | {"never": 0}
    if site.prs_file is None:
        return hours
    judged = pa.array([p.repo for p in site.projects if p.status in JUDGED], pa.string())
    t = pq.read_table(site.prs_file, columns=["repo", "excluded", "hours_to_response"])
    t = t.filter(pc.and_(pc.is_null(t["excluded"]), pc.is_in(t["repo"], value_set=judged)))
    for h in t["hours_to_response"].to_pylist():
        hours[_bucket(h)] += 1
    return hours


def _bucket(h: float | None) -> str:
    if h is None:
        return "never"
    return next(label for label, lo, hi in RESPONSE_BUCKETS if lo < h <= hi)


def _search_rows(root: Path) -> dict[str, list[Any]]:
    path = root / "data" / "v1" / "search.json"
    if not path.exists():
        return {}
    return {r[0]: r for r in json.loads(path.read_text(encoding="utf-8")).get("rows", [])}


def _audit_page(root: Path, rel: str, ctx: Context) -> tuple[int, list[Contradiction]]:
    try:
        page = (root / rel).read_text(encoding="utf-8")
    except FileNotFoundError:
        return 0, [Contradiction(rel, "page", "", "the page is missing")]
    main = main_of(page)
    found, rest = claims_in(main)
    out = []
    for c in found:
        known = CLAIMS.get(c.name)
        if known is None:
            out.append(Contradiction(rel, c.name, c.text, "no check is registered for this claim"))
            continue
        if c.name == "outcomes" and c.of and c.of not in ctx.by_repo:
            out.append(Contradiction(rel, c.name, c.text, f"{c.of} is not a project of this snapshot"))
            continue
        out += [Contradiction(rel, c.name, c.text, why) for why in known[1](ctx, c)]
    if any(rx.match(rel) for rx in COVERED):
        out += [Contradiction(rel, "unchecked", run, "states a figure that no claim checks") for run in figures_in(rest)]
    out += [Contradiction(rel, "plural", run, why) for run, why in plural_faults(text_runs(main))]
    if ctx.project is not None:
        out += [Contradiction(rel, "forge-words", run, why) for run, why in forge_faults(main, ctx.project.forge)]
    return len(found), out


def _audit_record(root: Path, rel: str, ctx: Context) -> list[Contradiction]:
    p, o = ctx.project, ctx.outcomes
    assert p is not None and o is not None
    try:
        record = json.loads((root / rel).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [Contradiction(rel, "record", "", "the record is missing")]
    out = []
    for key in ("reason",):
        out += [Contradiction(rel, "outcomes", record.get(key) or "", why) for why in outcome_faults(record.get(key) or "", o, ctx.days)]
    counts = record.get("outcome_counts") or {}
    said = counts.get("in_words") or ""
    out += [Contradiction(rel, "outcomes", said, why) for why in outcome_faults(said, o, ctx.days)]
    late = counts.get("answered_late")
    if late is not None and late != o.late:
        out.append(Contradiction(rel, "outcomes", f"answered_late: {late}", f"the PRs' rows give {o.late}"))
    out += [Contradiction(rel, "forge-words", record.get("status_words", ""), why)
            for _, why in forge_faults(f"<main><p>{record.get('status_words', '')}</p></main>", p.forge)]
    return out


def audit_message(summary: AuditSummary, then: str, shown: int = 20) -> str:
    """What failed, for a person: how many contradictions on how many pages, the first `shown` of
    them each on a line, and what happens next."""
    bad = summary.contradictions
    pages = len({c.page for c in bad})
    lines = [c.line() for c in bad[:shown]]
    more = f"\n… and {len(bad) - shown:,} more" if len(bad) > shown else ""
    return (f"the site contradicts its data: {len(bad):,} contradiction{'s' if len(bad) != 1 else ''} on "
            f"{pages:,} page{'s' if pages != 1 else ''} ({summary.claims:,} claims on {summary.pages:,} pages checked); "
            f"{then}:\n" + "\n".join(lines) + more)
