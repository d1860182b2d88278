"""Renders the static site from an evaluated snapshot: rankings (pre-rendered per goal, ecosystem
and page, so every view works without JavaScript), not ranked, one page per project, the
report with its charts, the method and the data page; then swaps it into place whole.

Jinja2 autoescapes everything; links are only ever http(s) URLs or the site's own paths.
"""

from __future__ import annotations

import html
import itertools
import multiprocessing
import os
import string
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import date
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from jinja2.filters import do_truncate
from markupsafe import Markup

from porchlamp import killpoints
from porchlamp import figures, forges
from porchlamp.config import COMPONENTS
from porchlamp.evaluate import components as components_mod
from porchlamp.forks import cores
from porchlamp.laps import Laps
from porchlamp.errors import AuditError
from porchlamp.publish import api, generations, place, reuse
from porchlamp.publish.charts import NARROW_MEDIA, report_charts
from porchlamp.publish import words
from porchlamp.publish.changes import KIND_TITLES, KINDS, Changes
from porchlamp.publish.feed import atom_feed
from porchlamp.publish.history import histories, history_href, history_svg
from porchlamp.publish.audit import audit_message, audit_site
from porchlamp.publish.data import HISTORY_DAYS, PROJECT_TREES, Project, SiteData, project_files, safe_url, slug, start_issues
from porchlamp.publish.listing import LISTING_ROWS, Listing, View

if TYPE_CHECKING:
    from porchlamp.cluster import DaskRunner

PAGE_SIZE = 50
# Rows on a page of the not-ranked and A–Z lists (about 100 KB): at 100,000 repositories one page of
# every project not ranked was 26 MB, more than a phone should be asked to load for a list.
LIST_PAGE = 250
CHANGE_LIMIT = 200  # per kind on the page; changes.json holds them all
NOT_RANKED_ORDER = ("black_hole", "undecided", "unrated", "stale", "no_license", "not_real_project", "not_software")
PROFILE_LABELS = {"default": "Default", "first-contribution": "First contribution", "career": "Career", "systems": "Systems",
                  "ai-assisted": "AI-assisted"}
DEFAULT_ISSUES_URL = "https://github.com/porchlamp/porchlamp/issues/new"


@dataclass(frozen=True)
class PublishSummary:
    out: Path
    pages: int
    projects: int
    bytes: int
    seconds: float
    reused: int = 0  # projects whose files were linked unchanged from the previous site
    steps: dict[str, float] = field(default_factory=dict)  # seconds by step: plan, prune, site_pages, projects, dataset, swap
    placed: int = 0  # projects whose files were the previous site's with only their place written again


def project_href(p: Project) -> str:
    return repo_href(p.repo)


def repo_href(repo: str) -> str:
    return project_files(repo).page


def rank_href(profile: str, eco: str | None, page: int) -> str:
    if profile == "default" and not eco and page == 1:
        return "index.html"
    return f"rankings/{slug(profile)}/{slug(eco) if eco else 'all'}/page-{page}.html"


def list_href(first: str, page: int) -> str:
    """Page `page` of a list whose first page is `first` (`not-ranked.html` → `not-ranked/page-2.html`,
    `all/a.html` → `all/a/page-2.html`)."""
    return first if page == 1 else f"{first.removesuffix('.html')}/page-{page}.html"


def _show(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v)) or "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return "–" if v is None else str(v)


def _delta(d: int | None) -> str:
    return "–" if d is None else ("0" if d == 0 else f"{d:+d}")


def _tierclass(tier: str | None) -> str:
    return (tier or "none").replace(" (capped)", "-capped").lower()


def environment() -> Environment:
    env = Environment(loader=PackageLoader("porchlamp.publish", "templates"), autoescape=select_autoescape(default=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update({
        "pct": figures.share, "hours": figures.duration, "show": _show, "safe_url": safe_url,
        "thousands": figures.number, "delta": _delta, "tierclass": _tierclass, "counted": figures.count, "noun": figures.noun,
        "num": figures.score, "forge": words.forge_words, "quote_text": words.quote_text,
        "day": lambda t: t.strftime("%Y-%m-%d") if t else "–",
    })
    env.globals.update({
        "project_href": project_href, "repo_href": repo_href, "rank_href": rank_href, "slug": slug, "profile_labels": PROFILE_LABELS,
        "status_labels": words.STATUS_LABELS, "short_status": words.SHORT_STATUS, "kind_label": words.kind_label,
        "checks": words.CHECKS, "funnel_rows": FUNNEL_ROWS, "tier_words": words.TIER_WORDS,
        "component_labels": words.COMPONENT_LABELS, "component_words": words.COMPONENT_WORDS, "input_lines": words.input_lines,
        "explain_words": words.explain_words, "delta_words": words.delta_words, "goal_words": words.goal_words, "history_href": history_href,
        "evidence_rows": evidence_rows, "ranking_rows": ranking_rows, "not_ranked_rows": not_ranked_rows, "az_rows": az_rows,
        "forge_names": forges.FORGE_NAMES, "history_days": HISTORY_DAYS,
    })
    return env


FUNNEL_ROWS = (*words.CHECKS, ("undecided", "Undecided: reviews happen elsewhere"),
               ("unrated", "Unrated: too little to score fairly"), ("ranked", "Ranked"))
OUTCOME_WORDS = {"answered": "answered", "closed_silently": "closed without an answer", "unanswered": "no response", None: "–"}


def response_words(outcome: str | None, kind: str | None, hours: float | None, days: int, judged: bool = True) -> tuple[str, str]:
    """(outcome, first response) of one outside PR, as one account: a reply after the window reads
    "answered late" beside "comment after 15.3 days", never "no response" beside a
    response, and a reply just past the window never reads as its end ("14.0 days" is in time).
    A PR that was not `judged` (its project reviews elsewhere) has no window to be in or out of."""
    if not judged:
        return "not judged", f"{kind} after {figures.duration(hours)}" if kind else "none"
    if not kind:
        return OUTCOME_WORDS[outcome], "none"
    if outcome == "answered":
        return "answered", f"{kind} after {figures.duration(hours)}"
    late = f"{kind} after {figures.late_duration(hours, days)}" if hours is not None else kind
    return ("closed without an answer" if outcome == "closed_silently" else "answered late"), late


LETTERS = tuple((c, c.upper()) for c in "abcdefghijklmnopqrstuvwxyz") + (("0-9", "0–9"), ("other", "other"))
_PLAIN = Environment()  # for `truncate`'s policies, which are the defaults in every environment here


def escape_text(value: Any) -> str:
    """What markupsafe's `escape` gives, as a plain string: for the rows written in Python, which
    escape millions of cells a publish. Making each a `Markup` cost more than escaping it (4.0 of the
    8.5 s its 4 million calls took in a day's project pages, under the profiler); a test holds the
    two equal."""
    if type(value) is not str:
        if hasattr(value, "__html__"):
            return str(value.__html__())
        value = str(value)
    return value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace('"', "&#34;")


def evidence_rows(outside: list[dict[str, Any]], p: Project, undecided: bool, days: int = 14) -> Markup:
    """The rows of a project's evidence table: one per outside PR, each linked on its forge, every value
    escaped. Written here rather than as a template loop because a project can list thousands and this
    is the site's hottest loop (the same bytes; a test renders both)."""
    e = escape_text
    base, mark = e(forges.change_prefix(p.repo, p.forge)), e(p.change_mark)
    out = []
    for x in outside:
        created, kind = x["created_at"], x["response_kind"]
        judged, answer = map(e, response_words(x["outcome"], kind, x["hours_to_response"], days, not undecided))
        out.append(
            f'<tr class="outcome-{e(x["outcome"])}"><td class="c-pr"><a href="{base}{e(x["number"])}">{mark}{e(x["number"])}</a></td>'
            f'<td class="title">{e(do_truncate(_PLAIN, x["title"], 120))}</td><td class="c-author" data-label="Author">{e(x["author"])}</td>'
            f'<td class="num c-opened" data-label="Opened">{e(created.strftime("%Y-%m-%d") if created else "–")}</td>\n'
            f'<td class="c-outcome" data-label="Outcome">{judged}</td><td class="c-response" data-label="First response">{answer}</td>'
            f'<td class="c-by" data-label="By">{e(words.actor_words(x["response_actor"]))}</td></tr>\n')
    return Markup("".join(out))


def _project_link(p: Project, root: str) -> str:
    return f'<a href="{escape_text(root)}{escape_text(project_href(p))}">{escape_text(p.repo)}</a>'


def _tier_badge(tier: str | None) -> str:
    return f'<span class="tier tier-{escape_text(_tierclass(tier))}">{escape_text(tier)}</span>'


def ranking_rows(rows: Sequence[Project], profile: str, root: str) -> Markup:
    """The rows of a rankings table in `profile`, every value escaped. In Python for the same reason
    as `evidence_rows`: the rankings are hundreds of pages of rows, rendered every publish (the same
    bytes as the template loop they replaced; a test renders both)."""
    e = escape_text
    out = []
    for p in rows:
        d, r = p.profiles[profile], p.row
        flags = "".join(f' <span class="flag">{e(f)}</span>' for f in p.flags)
        out.append(
            "    <tr>\n"
            f'      <td class="c-rank" data-label="Rank">{e(d["rank"])}</td>\n'
            f'      <td class="c-project">{_project_link(p, root)}{flags}</td>\n'
            f'      <td class="c-tier" data-label="Tier">{_tier_badge(d["tier"])}</td>\n'
            f'      <td class="c-score" data-label="Score">{e(figures.score(d["score"]))}</td>\n'
            f'      <td class="c-answered" data-label="Answered">{e(p.answered_of)}</td>\n'
            f'      <td class="c-trend" data-label="30 days">{e(words.trend(r["trend"]))}</td>\n'
            f'      <td class="c-median" data-label="Median first response">{e(figures.duration(r["median_hours"]))}</td>\n'
            f'      <td class="c-prs" data-label="PRs">{e(figures.number(r["outside_prs"]))}</td>\n'
            f'      <td class="c-eco" data-label="Ecosystem">{e(r["ecosystem"])}</td>\n'
            f'      <td class="c-stars" data-label="Stars">{e(figures.number(r["stars"]))}</td>\n'
            f'      <td class="c-delta" data-label="Δ rank">{e(_delta(d["delta"]))}</td>\n'
            "    </tr>\n")
    return Markup("".join(out))


def not_ranked_rows(rows: Sequence[Project], root: str) -> Markup:
    """The rows of a list of projects not ranked, with their reasons, every value escaped (Python,
    as `ranking_rows`; a test renders the template loop they replaced)."""
    e = escape_text
    return Markup("".join(
        f'    <tr data-status="{e(p.status)}"><td class="c-project" data-claim="name" data-of="{e(p.repo)}">{_project_link(p, root)}</td>'
        f'<td data-label="Status">{e(p.words)}</td>\n'
        f'      <td class="reason" data-label="Reason" data-claim="outcomes" data-of="{e(p.repo)}">{e(p.row["reason"])}</td>'
        f'<td class="num" data-label="Stars" data-claim="stars" data-of="{e(p.repo)}">{e(figures.number(p.row["stars"]))}</td></tr>\n'
        for p in rows))


def az_rows(rows: Sequence[Project], root: str) -> Markup:
    """The rows of an A–Z list of every project, every value escaped (as `not_ranked_rows`)."""
    e = escape_text
    out = []
    for p in rows:
        if p.status == "ranked":
            d = p.profiles["default"]
            status = f'Ranked {e(d["rank"])} · {_tier_badge(d["tier"])}'
        else:
            status = e(p.words)
        out.append(f'    <tr><td class="c-project">{_project_link(p, root)}</td>\n'
                   f'      <td>{status}</td>\n'
                   f'      <td class="num">{e(figures.number(p.row["stars"]))}</td></tr>\n')
    return Markup("".join(out))


def letter_of(repo: str) -> str:
    """The A–Z page a project is listed on: by its own name, not its host's (gitlab.com/kit/x under K)."""
    c = forges.path_of(repo)[:1].lower()
    return c if "a" <= c <= "z" else "0-9" if c.isdigit() else "other"


def letters_of(projects: View) -> pa.Array:
    """`letter_of` each project of `projects`, in its order, made a batch of names at a time."""
    names = projects.values("repo")
    return pa.concat_arrays([pa.array([letter_of(r) for r in names.slice(i, LISTING_ROWS).to_pylist()], pa.string())
                             for i in range(0, len(names), LISTING_ROWS)] or [pa.array([], pa.string())])


def report_sums(report: dict[str, Any]) -> dict[str, int]:
    """The report's totals so that they add up to the funnel: stopped by a check, undecided, judged
    (black holes and answering) and not judged (ranked on few PRs or unrated)."""
    f = report["funnel"]
    passed = f["black_hole"] + f["undecided"] + f["unrated"] + f["ranked"]
    judged, holes = report["judged_for_black_hole"], report["black_holes_among_judged"]
    return {"stopped": report["projects_total"] - passed, "passed": passed, "undecided": f["undecided"], "judged": judged,
            "black_holes": holes, "answering": judged - holes, "not_judged": passed - f["undecided"] - judged}


# Each byte as `urllib.parse.quote_plus` writes it in a query, as a table for `str.translate`: a
# text is quoted in one pass in C where quote_plus goes a byte at a time in Python (a dispute link's
# 2,200 characters: 96 → 55 µs, of about 3.4 ms a project's files take; a test holds the two equal).
_QUERY = {b: "+" if b == 0x20 else chr(b) if chr(b) in string.ascii_letters + string.digits + "_.-~" else f"%{b:02X}"
          for b in range(256)}


def query_text(fields: Mapping[str, str]) -> str:
    """`fields` as a URL's query: what `urllib.parse.urlencode(fields)` gives."""
    return "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in fields.items())


def _quoted(text: str) -> str:
    return text.encode("utf-8").decode("latin-1").translate(_QUERY)


def dispute_url(p: Project, issues_url: str) -> str:
    lines = [f"Project: {p.web_url}", f"Verdict: {p.status} ({p.row['kind']})", f"Reason: {p.row['reason']}", "",
             "The outside pull requests behind it:"]
    lines += [f"- {p.change_url(x['number'])} ({x['outcome']})" for x in p.outside()[:30]]
    lines += ["", "Which of these show otherwise, and why:"]
    return f"{issues_url}?{query_text({'title': f'Verdict on {p.repo}', 'body': chr(10).join(lines)})}"


class _Writer:
    def __init__(self, root: Path, env: Environment, common: dict[str, Any]) -> None:
        self.root, self.env, self.common = root, env, common
        self.pages = 0

    def render(self, rel: str, template: str, **ctx: Any) -> str:
        return self.env.get_template(template).render(**self.common, root="../" * rel.count("/"), page_rel=rel, **ctx)

    def page(self, rel: str, template: str, **ctx: Any) -> int:
        """The page written at `rel`; returns its bytes."""
        self.pages += 1
        return api.write_text(self.root / rel, self.render(rel, template, **ctx))

    def pages_of(self, first: str, rows: Sequence[Project], template: str, **ctx: Any) -> None:
        """A list in pages of LIST_PAGE rows, the first at `first`, each linked to its neighbours."""
        pages = max(1, -(-len(rows) // LIST_PAGE))
        for page in range(1, pages + 1):
            self.page(list_href(first, page), template, rows=rows[(page - 1) * LIST_PAGE: page * LIST_PAGE], total=len(rows),
                      page=page, pages=pages, offset=(page - 1) * LIST_PAGE,
                      prev_href=list_href(first, page - 1) if page > 1 else None,
                      next_href=list_href(first, page + 1) if page < pages else None, **ctx)


def render_site(site: SiteData, out: Path, issues_url: str = DEFAULT_ISSUES_URL, site_url: str = "") -> int:
    """Write every page that covers the whole snapshot into `out` (which must exist); returns how
    many. Each project's own page is `write_projects`'."""
    env = environment()
    ranked_default = site.ranked("default")
    ecosystems = sorted(pc.unique(ranked_default.values("ecosystem")).to_pylist())
    languages = sorted(lang for lang in pc.unique(ranked_default.values("language")).to_pylist() if lang)
    # The forges ranked projects live on, GitHub's first: a filter only where there are two or more.
    present = {f or "github" for f in pc.unique(ranked_default.values("forge")).to_pylist()}
    ranked_forges = [(f, forges.FORGE_NAMES.get(f, f)) for f in forges.FORGES if f in present]
    common = {**_project_common(site), "as_of": site.as_of, "page_as_of": site.as_of, "report": site.report,
              "ecosystems": ecosystems, "languages": languages, "ranked_forges": ranked_forges, "site_url": site_url}
    profiles = common["profiles"]
    w = _Writer(out, env, common)
    # Each listing is a view of the listing file in its order: a page makes only its own rows.
    for profile in profiles:
        ordered = site.ranked(profile)
        for eco in [None, *ecosystems]:
            rows = ordered if eco is None else ordered.where("ecosystem", eco)
            pages = max(1, -(-len(rows) // PAGE_SIZE))
            for page in range(1, pages + 1):
                w.page(rank_href(profile, eco, page), "rankings.html", profile=profile, eco=eco, page=page, pages=pages,
                       total=len(rows), rows=rows[(page - 1) * PAGE_SIZE: page * PAGE_SIZE])
    not_ranked = site.listing.not_ranked(NOT_RANKED_ORDER)
    w.pages_of("not-ranked.html", not_ranked, "not_ranked.html", status=None)
    for status in NOT_RANKED_ORDER:
        w.pages_of(f"not-ranked/{status}.html", not_ranked.where("status", status), "not_ranked.html", status=status)
    by_name = site.listing.by_name()
    letters = letters_of(by_name)
    for key, label in LETTERS:
        w.pages_of(f"all/{key}.html", by_name.subset(pc.equal(letters, key)), "az.html", letter=key, letter_label=label, letters=LETTERS,
                   all_total=len(site.projects))
    charts = out / "charts"
    charts.mkdir(parents=True, exist_ok=True)
    for name, svg in report_charts(site.report).items():
        (charts / f"{name}.svg").write_text(svg, encoding="utf-8")
    starts = start_issues(site)  # each call walks the default ranking, making its projects
    start_ecos = sorted({i["project"].row["ecosystem"] for i in starts})
    start_langs = sorted({i["project"].row["language"] for i in starts if i["project"].row["language"]})
    w.page("start.html", "start.html", issues=starts, eco=None, start_ecosystems=start_ecos, start_languages=start_langs)
    for eco in start_ecos:
        w.page(f"start/{slug(eco)}.html", "start.html", issues=start_issues(site, eco), eco=eco, start_ecosystems=start_ecos,
               start_languages=start_langs)
    write_histories(site, w)
    feed_ecos = write_feeds(site, out, site_url)
    w.page("changes.html", "changes.html", changes=site.changes, change_kinds=KINDS, change_titles=KIND_TITLES,
           change_limit=CHANGE_LIMIT, feed_ecosystems=feed_ecos)
    w.page("report.html", "report.html", sums=report_sums(site.report), narrow_media=NARROW_MEDIA)
    w.page("method.html", "method.html", transforms=(components_mod.__doc__ or "").strip())
    w.page("data.html", "data.html", schema_version=api.SCHEMA_VERSION, rank_part_rows=api.RANK_PART_ROWS, schemas=api.schema_names(),
           example=project_files("gitlab.com/kit/x"))
    static = resources.files("porchlamp.publish").joinpath("static")
    (out / "static").mkdir(parents=True, exist_ok=True)
    for f in static.iterdir():
        if f.is_file():
            (out / "static" / f.name).write_bytes(f.read_bytes())
    return w.pages


def write_histories(site: SiteData, w: _Writer) -> int:
    """Each project's history chart and page (`publish.history`); returns how many projects have one.
    Not counted among the pages: they are a project's files, rewritten with each new point."""
    n = 0
    listing = site.listing
    forge_of = dict(zip(listing.column("repo").to_pylist(), listing.column("forge").to_pylist()))
    for repo, rows in histories(site.history_file):
        if rows[-1]["as_of"] != site.as_of:  # not judged in this snapshot: its page shows no history
            continue
        href = history_href(repo)
        svg = history_svg(repo, rows, site.as_of, site.settings.window.response_days)
        api.write_text(w.root / f"{href}.svg", svg)
        api.write_text(w.root / f"{href}.html", w.render(f"{href}.html", "history.html", repo=repo, rows=rows, days=HISTORY_DAYS,
                                                         href=href, page_href=repo_href(repo),
                                                         pr_word=forges.change_words(forge_of.get(repo) or "github")[1]))
        n += 1
    return n


def write_feeds(site: SiteData, out: Path, site_url: str) -> list[str]:
    """feeds/changes.atom and one feed per ecosystem (feeds/changes/<ecosystem>.atom), written even
    with nothing to compare yet, so a reader can subscribe on day one. Returns the ecosystems."""
    changes = site.changes or Changes(site.as_of, None)
    listing = site.listing
    eco_of = dict(zip(listing.column("repo").to_pylist(), listing.column("ecosystem").to_pylist()))
    ecos = sorted({e for e in eco_of.values() if e})
    folder = out / "feeds" / "changes"
    folder.mkdir(parents=True, exist_ok=True)

    def write(rel: str, eco: str | None) -> None:
        depth = "../" * rel.count("/")  # relative addresses resolve against the feed's own (RFC 4287 §4.2.7.1)
        base = site_url or depth
        of = None if eco is None else [c for c in changes.items if eco_of.get(c.repo) == eco]
        xml = atom_feed(changes, lambda repo: base + repo_href(repo), (site_url + rel) if site_url else rel.rsplit("/", 1)[-1],
                        base + "changes.html", eco, of)
        (out / rel).write_bytes(xml)

    write("feeds/changes.atom", None)
    for eco in ecos:
        write(f"feeds/changes/{slug(eco)}.atom", eco)
    return ecos


def _project_common(site: SiteData) -> dict[str, Any]:
    """What a project's page may read besides the project: settings and the names of goals and
    components. Nothing of the day (not even its date) so that an unchanged project's page is too."""
    profiles = list(site.settings.profiles)
    labels = {name: PROFILE_LABELS.get(name, name.replace("-", " ").capitalize()) for name in profiles}
    return {"settings": site.settings, "profiles": profiles, "components": COMPONENTS, "profile_labels": labels}


def write_projects(site: SiteData, out: Path, plan: reuse.Plan, previous: Path | None, issues_url: str = DEFAULT_ISSUES_URL,
                   site_url: str = "", progress: Callable[[int], None] | None = None,
                   kept: np.ndarray | None = None, workers: int = 1, cluster: DaskRunner | None = None,
                   run: generations.Run | None = None) -> tuple[int, int]:
    """Each project's page, record and badges: none for the projects `kept` (a mask over the plan's
    projects: `out` holds their files already), linked from the `previous` site where the plan says
    they hold, the previous site's with their place written again where only that moved (`place`),
    written otherwise (one pass over the PRs, read only for those; in parts on `workers` processes
    when there are enough, or on the `cluster`'s workers whatever their number), each part stopping
    if `run` no longer holds the site. Returns the project pages, and how many of them were given
    their place only; the bytes of each project's files go into the plan's `size` (those it holds
    already, from the manifests it was planned and `held` with)."""
    kept = np.zeros(len(plan.repos), bool) if kept is None else kept
    done = plan.reuse | kept
    placed = plan.placed & ~done if previous is not None else np.zeros(len(done), bool)

    gone: list[int] = []  # linked projects of which a file was not in the previous site after all

    def carry() -> None:
        if previous is not None:
            at = np.flatnonzero(plan.reuse & ~kept)
            gone.extend(at[reuse.carry_files(reuse.names_at(plan.repos, at), previous, out)].tolist())

    finished = int(done.sum())
    if progress and finished:
        progress(finished)
    at = np.flatnonzero(~done)
    listed = site.projects.view(pa.array(at)) if isinstance(site.projects, Listing) else (site.projects[i] for i in at)
    todo = zip(map(int, at), listed)  # made as the parts are handed out
    # A project given its place costs about a third of one written whole.
    if cluster is not None or (workers > 1 and len(at) - int(placed.sum()) * 2 // 3 >= PARALLEL_FROM):
        # The unchanged projects are linked while the writing processes start and write.
        written, given = _write_in_parts(site, out, todo, plan, issues_url, site_url, progress, workers, placed, previous,
                                         meanwhile=carry, cluster=cluster, run=run)
    else:
        carry()
        written, given = _write_in_parts(site, out, todo, plan, issues_url, site_url, progress, 0, placed, previous, run=run)
    if gone:
        # Written whole here, with the date they had (their pages were counted as done).
        plan.reuse[gone] = False
        listed = site.projects.view(pa.array(gone)) if isinstance(site.projects, Listing) else (site.projects[i] for i in gone)
        _write_in_parts(site, out, zip(gone, listed), plan, issues_url, site_url, None, 0, np.zeros(len(done), bool), run=run)
    return written + finished, given


class Written(NamedTuple):
    """What a part of the projects wrote: its project pages, how many of them were given their place
    only, and the bytes of each project's files."""

    pages: int
    placed: int
    sizes: dict[str, int]


# Projects to write before a second process pays for its start (about a second), and projects a task.
PARALLEL_FROM = 1_000
PART = 200


def _part(site: SiteData, projects: list[Project] | None) -> SiteData:
    """What writing these projects' files (all of them: None) needs of the snapshot, small enough
    to hand to a process when they are a part."""
    changes = None if site.changes is None else Changes(site.changes.as_of, site.changes.previous)
    return replace(site, report={}, projects=site.projects if projects is None else projects, changes=changes)


def project_context(p: Project, page_as_of: date, previous: date | None, issues_url: str, site_url: str) -> dict[str, Any]:
    """What project.html reads of one project read whole (`SiteData.detailed`), its page dated `page_as_of`."""
    return dict(p=p, page_as_of=page_as_of, previous=previous if p.change else None, web=p.web_url,
                outside=p.outside(), excluded=p.excluded_counts(), times=p.response_times(), issues=p.good_first_issues(),
                dispute=dispute_url(p, issues_url), site_url=site_url, badge=badge_snippets(p, site_url))


def badge_snippets(p: Project, site_url: str) -> dict[str, str]:
    """A project's badge as its maintainers paste it: the image and a link to its page, in Markdown
    and HTML, with the site's full address (`--site-url`), or relative to the site when none is set."""
    image = f"{site_url}badges/{slug(p.owner)}/{slug(p.name)}.svg"
    page = f"{site_url}{project_href(p)}"
    alt = f"Porchlamp: {p.words}"
    return {"image": image, "page": page, "markdown": f"[![{alt}]({image})]({page})",
            "html": f'<a href="{html.escape(page)}"><img src="{html.escape(image)}" alt="{html.escape(alt)}"></a>',
            "full": "yes" if site_url else ""}


def _write_part(site: SiteData, out: Path, since: Mapping[str, date], issues_url: str, site_url: str,
                progress: Callable[[int], None] | None = None, placed: Mapping[str, date] | None = None,
                previous_dir: Path | None = None, run: generations.Run | None = None) -> Written:
    """The files of every project of `site` (a part: a list): those of `placed` (with the date
    their files show in `previous_dir`) given their place in those files (`place`), unless they are
    not the template's; the rest written whole. Before each project, a SiteError if `run` (the
    publish this part is of) no longer holds the site."""
    with run.writing() if run is not None else nullcontext():
        check = run.check if run is not None else None
        env, common = environment(), _project_common(site)
        given: set[str] = set()
        sizes: dict[str, int] = {}
        if placed and previous_dir is not None:
            whole, sizes = place.write_placed(env, common, site, previous_dir, out, placed, check)
            given = set(placed) - set(whole)
            if progress and given:
                progress(len(given))
        w = _Writer(out, env, common)
        previous = site.changes.previous if site.changes else None
        # A part names its projects, so that the detail files' other row groups go unread.
        for p in site.detailed(only=[p.repo for p in site.projects if p.repo not in given]):
            if check:
                check()
            sizes[p.repo] = (w.page(project_href(p), "project.html", **project_context(p, since[p.repo], previous, issues_url, site_url))
                             + api.write_project(out, p, site, since[p.repo]))
            killpoints.reach("project_written")
            if progress:
                progress(1)
        return Written(w.pages + len(given), len(given), sizes)


def _write_in_parts(site: SiteData, out: Path, todo: Iterator[tuple[int, Project]], plan: reuse.Plan, issues_url: str,
                    site_url: str, progress: Callable[[int], None] | None, workers: int, placed: np.ndarray,
                    previous_dir: Path | None = None, meanwhile: Callable[[], None] | None = None,
                    cluster: DaskRunner | None = None, run: generations.Run | None = None) -> tuple[int, int]:
    """The projects of `todo` (each with its position in the plan) in parts of PART, in name order,
    each a task for a pool of fresh processes (not forked: this one may hold threads and their locks),
    or for the `cluster`'s workers (each part written whole again if its worker dies); at most two
    parts per process are handed out at once, so what waits to be written is never the whole
    snapshot. No pool (`workers` 0, no cluster): written here, a part after another. As `_write_part`,
    those of `placed` given their place; `meanwhile` is run here once the first parts are handed out.
    Each project's bytes go into the plan's `size`."""
    here = not workers and cluster is None

    def sized(chunk: list[tuple[int, Project]], written: Written) -> tuple[int, int]:
        for i, p in chunk:
            plan.size[i] = written.sizes[p.repo]
        return written.pages, written.placed

    def task(chunk: list[tuple[int, Project]]) -> tuple[Any, ...]:
        projects = [p for _, p in chunk]
        return (_part(site, projects), out, {p.repo: plan.since_at(i) for i, p in chunk}, issues_url, site_url,
                progress if here else None, {p.repo: plan.shown_at(i) for i, p in chunk if placed[i]}, previous_dir, run)

    parts = iter(lambda: list(itertools.islice(todo, PART)), [])
    pages = given = 0
    if here:
        for chunk in parts:
            written, placed_here = sized(chunk, _write_part(*task(chunk)))
            pages, given = pages + written, given + placed_here
        return pages, given
    with _writers(workers, cluster) as (pool, slots):
        running: dict[Future[Written], list[tuple[int, Project]]] = {}
        while True:
            for chunk in itertools.islice(parts, 2 * slots - len(running)):
                running[pool.submit(_write_part, *task(chunk))] = chunk
            if meanwhile is not None:
                meanwhile()
                meanwhile = None
            if not running:
                return pages, given
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = running.pop(future)
                written, placed_here = sized(chunk, _outcome(future, cluster))
                pages, given = pages + written, given + placed_here
                if progress:
                    progress(len(chunk))


@contextmanager
def _writers(workers: int, cluster: DaskRunner | None) -> Iterator[tuple[Executor, int]]:
    """Where parts are written, and how many write at once: the cluster's workers, or a pool of
    `workers` fresh processes that end with this one."""
    if cluster is not None:
        yield cluster.executor(), max(1, cluster.workers)
        return
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=_exit_with,
                             initargs=(os.getpid(),)) as pool:
        yield pool, workers


def _outcome(future: Future[Written], cluster: DaskRunner | None) -> Written:
    try:
        return future.result()
    except Exception as e:
        from porchlamp.cluster import worker_lost

        lost = None if cluster is None else worker_lost(e, "writing project pages", "a part", "the project it was writing")
        if lost is None:
            raise
        raise lost from e


def _exit_with(parent: int) -> None:
    """In a writing process: exit once the publish that started it is gone (killed, say), rather
    than wait for parts that will never come."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _site_bytes(root: Path, sizes: np.ndarray) -> int:
    """Bytes of every file of the site at `root`, whose projects' files have the bytes `sizes` (-1:
    not known): those listed apart from the rest, which a day's publish mostly leaves untouched
    (listing them took 0.6-0.8 s at 11,000 projects, and 6.6 s where the disk had to be read)."""
    if (sizes < 0).any():
        return _tree_bytes(root)
    trees = {os.path.join(str(root), *rel.split("/")) for rel in PROJECT_TREES}
    return int(sizes.sum()) + _tree_bytes(root, trees)


def _tree_bytes(root: str | Path, skip: Collection[str] = ()) -> int:
    """Bytes of every file under `root` but in the folders `skip`: one stat per file, directory types
    from the listing. On strings: a path object per folder made it 1.5 times as slow (44,000
    folders at 11,000 projects)."""
    total = 0
    for entry in os.scandir(root):
        if entry.is_dir(follow_symlinks=False):
            if entry.path not in skip:
                total += _tree_bytes(entry.path, skip)
        else:
            total += entry.stat(follow_symlinks=False).st_size
    return total


def site_address(url: str) -> str:
    """The site's address as pages join it to a path: ending in a slash, or empty when there is none."""
    url = url.strip()
    return url + ("/" if url and not url.endswith("/") else "")


def publish(site: SiteData, out: str | Path, issues_url: str = DEFAULT_ISSUES_URL, site_url: str = "",
            progress: Callable[[int], None] | None = None, full: bool = False, workers: int | None = None,
            cluster: str | None = None, audit: bool = True) -> PublishSummary:
    """Complete the standby generation of the site at `out` and swap it into place in one rename: a
    crash midway leaves the live site as it was (`generations`). A project's files that would be
    written the same are kept where the standby already holds them, or linked from the live site
    (`full`: written all the same, to the same bytes). Projects are written on `workers` processes
    (default: one per core this process may run on) when there are enough of them, or on the
    workers of the Dask scheduler at `cluster`: they must read and write `out`'s folder and read the
    snapshot's detail files (`load_site_data`'s `beside`), as on a shared file system. `site_url`
    (else the settings' `[site] url`) makes badge snippets, feed and canonical links absolute.
    Before the switch the new generation is audited (`publish.audit`): on a contradiction the live
    site stays, and AuditError lists what failed (`audit=False` switches it in unaudited)."""
    site_url = site_address(site_url or site.settings.site.url)
    runner = None
    if cluster:
        from porchlamp.cluster import DaskRunner

        runner = DaskRunner(address=cluster)  # reached before anything is written: an unreachable one changes nothing
    try:
        return _publish(site, out, issues_url, site_url, progress, full, workers, runner, audit)
    finally:
        if runner is not None:
            runner.close()


def _publish(site: SiteData, out: str | Path, issues_url: str, site_url: str, progress: Callable[[int], None] | None,
             full: bool, workers: int | None, cluster: DaskRunner | None, audit: bool = True) -> PublishSummary:
    t0 = time.perf_counter()
    lap = Laps()
    target = generations.shared_folder(out) / Path(out).name  # the last part may be the link: never resolved
    slots = generations.prepare(target)
    with generations.locked(slots) as run:
        basis = reuse.site_basis(site, issues_url, site_url)
        plan = reuse.plan(site, slots.live, basis, full)
        lap("plan")
        standby = reuse.read_manifest(slots.standby)
        # Kept only from a generation this code wrote: an earlier code may have given a project other files.
        kept = (reuse.held(plan, standby) if not full and standby.basis == basis
                else np.zeros(len(plan.repos), bool))
        # The standby's manifest goes before anything of it changes: a generation has one only once it
        # is complete, so after a crash from here on nothing of it is trusted.
        (slots.standby / reuse.MANIFEST).unlink(missing_ok=True)
        if kept.any():
            # Complete and this code's: its project folders hold its manifest's projects' files and
            # nothing else, so they are not listed; the files of the projects not kept are moved
            # (the folders of those written again stay, to be written into).
            generations.prune(slots.standby, set(), PROJECT_TREES, reuse.dropped(standby, plan.repos.filter(pa.array(kept)), plan.repos))
        else:
            generations.prune(slots.standby, set())
        del standby
        lap("prune")
        root = slots.standby
        pages = render_site(site, root, issues_url, site_url)
        lap("site_pages")
        written, placed = write_projects(site, root, plan, slots.live, issues_url, site_url, progress, kept,
                                         workers or cores(), cluster, run)
        pages += written
        lap("projects")
        api.write_dataset(root, site)
        lap("dataset")
        if audit:
            # The projects whose files were written now: the others' are those of a generation this
            # code wrote and audited, held or linked unchanged.
            same = plan.reuse | kept
            written = None if not same.any() else plan.repos.filter(pa.array(~same)).to_pylist()
            audited = audit_site(root, site, site_url, only=written, workers=workers or cores())
            lap("audit")
            if not audited.ok:
                # No manifest: this generation is not complete, so nothing of it is kept for the next run.
                raise AuditError(audit_message(audited, "the live site is kept; fix these, or publish with --no-audit"),
                                 list(audited.contradictions))
        plan.write_manifest(root)
        generations.swap(slots)
        generations.discard(target)
        lap("swap")
    size = _site_bytes(target, plan.size)
    return PublishSummary(target, pages, len(site.projects), size, round(time.perf_counter() - t0, 2), int((plan.reuse | kept).sum()),
                          lap.steps, placed)
