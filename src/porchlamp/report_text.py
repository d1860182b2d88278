"""The report as Rich tables for the terminal, laid out the way the write-ups show the figures."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from porchlamp.forges import FORGE_NAMES

GATE_LABELS = (
    ("not_software", "1. Is it software?"),
    ("not_real_project", "2. Is it still a real project?"),
    ("no_license", "3. Open-source license?"),
    ("stale", "4. Is anyone still working on it?"),
    ("black_hole", "5. Does anyone answer outside PRs? (black hole)"),
    ("undecided", "— undecided (review happens elsewhere)"),
    ("unrated", "— unrated (too little to score fairly)"),
    ("ranked", "— ranked"),
)


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{share * 100:.1f}%"


def print_report(data: dict[str, Any], console: Console) -> None:
    total = data["projects_total"]
    f = data["funnel"]
    console.print(f"[bold]Porchlamp snapshot {data['as_of']}[/]: {f['ranked']:,} of {total:,} projects ranked; "
                  f"the other {total - f['ranked']:,} are listed with their reason.")
    t = Table(title="The funnel", title_justify="left")
    t.add_column("gate")
    t.add_column("projects", justify="right")
    t.add_column("kinds")
    for key, label in GATE_LABELS:
        kinds = ", ".join(f"{k.replace('_', ' ')} {n:,}" for k, n in sorted(data["funnel_kinds"][key].items()))
        t.add_row(label, f"{f[key]:,}", kinds)
    console.print(t)
    by_forge = data.get("funnel_by_forge") or {}
    if len(by_forge) > 1:  # one forge's funnel is the funnel
        ft = Table(title="The funnel by forge", title_justify="left")
        ft.add_column("gate")
        for forge in by_forge:
            ft.add_column(FORGE_NAMES.get(forge, forge), justify="right")
        for key, label in GATE_LABELS:
            ft.add_row(label, *(f"{by_forge[forge][key]:,}" for forge in by_forge))
        ft.add_row("projects", *(f"{sum(by_forge[forge].values()):,}" for forge in by_forge))
        console.print(ft)
    judged, bh = data["judged_for_black_hole"], data["black_holes_among_judged"]
    console.print(f"Outside pull requests followed: {data['outside_prs']:,} PRs from {data['outside_authors']:,} people.")
    console.print(f"Black holes: {bh:,} of {judged:,} judged projects ({_pct(bh / judged if judged else None)}).")
    e = Table(title="Which ecosystems leave your pull request hanging", title_justify="left")
    e.add_column("Ecosystem")
    e.add_column("Projects judged", justify="right")
    e.add_column("Black holes", justify="right")
    for eco, row in sorted(data["black_hole_by_ecosystem"].items(), key=lambda x: -(x[1]["share"] or 0)):
        e.add_row(eco, f"{row['judged']:,}", _pct(row["share"]))
    console.print(e)
    s = Table(title="More stars, more silence", title_justify="left")
    s.add_column("Stars")
    s.add_column("Projects judged", justify="right")
    s.add_column("Black holes", justify="right")
    for bucket, row in data["black_hole_by_stars"].items():
        s.add_row(bucket, f"{row['judged']:,}", _pct(row["share"]))
    console.print(s)
    console.print(f"Of the {data['top100_by_stars']} most-starred projects, {data['top100_overlap']} reach the top 100 "
                  "of the default ranking.")
    r = Table(title="Time to first human response (outside PRs)", title_justify="left")
    r.add_column("within")
    r.add_column("PRs", justify="right")
    for label, n in data["time_to_first_response"].items():
        r.add_row(label, f"{n:,}")
    console.print(r)
    top = sorted((p for p in data["projects"] if p["status"] == "ranked"), key=lambda p: p["ranks"].get("default", 10**9))[:10]
    if top:
        k = Table(title="Top of the default ranking", title_justify="left")
        for col in ("rank", "project", "tier", "score", "ecosystem"):
            k.add_column(col)
        for p in top:
            k.add_row(str(p["ranks"].get("default")), p["repo"], p["tier"] or "", f"{p['score']:.1f}", p["ecosystem"])
        console.print(k)
    failures = data.get("collection_failures") or []
    if failures:
        c = Table(title=f"Not collected, so not judged ({len(failures):,}): run collect again to retry them first", title_justify="left")
        for col in ("repository", "step", "error"):
            c.add_column(col)
        for f in failures:
            c.add_row(escape(f["repo"]), f["step"] or "", escape((f["error"] or "")[:160]))
        console.print(c)


def print_check(data: dict[str, Any], console: Console) -> None:
    """One checked repository: verdict, components, and the PRs behind it."""
    from rich.markup import escape

    repo = escape(data["repo"])
    if data["status"] == "ranked":
        d = data["profiles"]["default"]
        console.print(f"[bold]{repo}[/]: tier {escape(str(d['tier']))}, score {d['score']:.1f} "
                      f"({d['coverage']:.0%} of the default profile measured), as of {data['as_of']}")
    else:
        console.print(f"[bold]{repo}[/]: {escape(data['status'].replace('_', ' '))} ({escape(data['kind'].replace('_', ' '))}), "
                      f"as of {data['as_of']}")
    console.print(escape(data["reason"]))
    if data.get("borderline"):
        console.print("borderline: more than half unanswered, but too few PRs to call it a black hole")
    if data.get("review_happens"):
        console.print(f"review happens at: {escape(data['review_happens'])}")
    if data["components"]:
        t = Table(title="Components", title_justify="left")
        for col in ("component", "score", "measured"):
            t.add_column(col)
        for name, c in sorted(data["components"].items()):
            t.add_row(name.replace("_", " "), "missing" if c["score"] is None else f"{c['score']:.1f}", escape(c["reason"]))
        console.print(t)
        p = Table(title="Every goal", title_justify="left")
        for col in ("goal", "score", "coverage", "tier"):
            p.add_column(col)
        for name, v in data["profiles"].items():
            p.add_row(name, "–" if v["score"] is None else f"{v['score']:.1f}", f"{v['coverage']:.0%}", escape(str(v["tier"] or "–")))
        console.print(p)
    e = Table(title=f"Outside PRs behind the verdict ({len(data['outside_prs'])})", title_justify="left")
    for col in ("PR", "author", "opened", "outcome", "first response"):
        e.add_column(col)
    for x in data["outside_prs"][:50]:
        e.add_row(escape(x["url"]), escape(x["author"] or ""), x["opened"][:10], x["outcome"] or "",
                  escape(f"{x['first_response']} by {x['responder']}" if x["first_response"] else "none"))
    console.print(e)
    if data["excluded_prs"]:
        console.print("left out: " + ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in data["excluded_prs"].items()))
