"""The report's charts, drawn at build time to SVG with Altair and vl-convert (no JS at view time)."""

from __future__ import annotations

from typing import Any

import altair as alt
import vl_convert as vlc

WIDTH = 520


def _svg(chart: alt.Chart) -> str:
    svg: str = vlc.vegalite_to_svg(chart.to_json())
    return svg


def _bars(values: list[dict[str, Any]], x: str, y: str, title: str, x_title: str, y_title: str, pct: bool = False) -> str:
    axis = alt.Axis(format="%") if pct else alt.Axis()
    chart = alt.Chart(alt.Data(values=values), title=title, width=WIDTH, height=max(120, 26 * len(values))).mark_bar(color="#c77d16").encode(
        y=alt.Y(f"{x}:N", sort=None, title=x_title),
        x=alt.X(f"{y}:Q", title=y_title, axis=axis),
        tooltip=[f"{x}:N", f"{y}:Q"],
    )
    return _svg(chart)


def report_charts(report: dict[str, Any]) -> dict[str, str]:
    """name -> SVG text for every chart of the report page."""
    funnel = [{"gate": k.replace("_", " "), "projects": v} for k, v in report["funnel"].items()]
    eco = [{"ecosystem": k, "share": v["share"] or 0.0} for k, v in
           sorted(report["black_hole_by_ecosystem"].items(), key=lambda x: -(x[1]["share"] or 0))]
    stars = [{"stars": k, "share": v["share"] or 0.0} for k, v in report["black_hole_by_stars"].items()]
    ttfr = [{"within": k, "prs": v} for k, v in report["time_to_first_response"].items()]
    tiers = [{"tier": k, "projects": v["projects"]} for k, v in report["score_by_tier"].items()]
    return {
        "funnel": _bars(funnel, "gate", "projects", "Why projects are not ranked", "", "projects"),
        "black_hole_by_ecosystem": _bars(eco, "ecosystem", "share", "Black holes among judged projects, by ecosystem", "", "share", pct=True),
        "black_hole_by_stars": _bars(stars, "stars", "share", "Black holes among judged projects, by stars", "", "share", pct=True),
        "time_to_first_response": _bars(ttfr, "within", "prs", "Time to first human response", "", "outside PRs"),
        "score_by_tier": _bars(tiers, "tier", "projects", "Ranked projects by tier (default profile)", "", "projects"),
    }
