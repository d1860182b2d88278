"""The report's charts, drawn at build time to SVG with Altair and vl-convert (no JS at view time)."""

from __future__ import annotations

from typing import Any

import altair as alt
import vl_convert as vlc

# Two drawings of each chart: one for a wide screen and one as wide as a phone shows it (a 390 px
# screen has 358 px for it), so no text is scaled below 11 px on screen (text is 12 px, titles 14).
WIDTH, NARROW = 520, 180
NARROW_MEDIA = "(max-width: 44rem)"  # below this the wide drawing would be scaled down: the narrow one is shown
FONT, TITLE_FONT, NARROW_LABELS = 12, 14, 160


def _svg(chart: alt.Chart | alt.LayerChart) -> str:
    svg: str = vlc.vegalite_to_svg(chart.to_json())
    return svg


def _bars(values: list[dict[str, Any]], x: str, y: str, title: str, x_title: str, y_title: str, pct: bool = False,
          narrow: bool = False) -> str:
    axis = alt.Axis(format="%") if pct else alt.Axis()
    # The narrow drawing leaves the title to the page's caption and cuts long labels with an ellipsis.
    chart = alt.Chart(alt.Data(values=values), title="" if narrow else title, width=NARROW if narrow else WIDTH,
                      height=max(120, 26 * len(values))).mark_bar(color="#c77d16").encode(
        y=alt.Y(f"{x}:N", sort=None, title=x_title, axis=alt.Axis(labelLimit=NARROW_LABELS) if narrow else alt.Axis()),
        x=alt.X(f"{y}:Q", title=y_title, axis=axis),
        tooltip=[f"{x}:N", f"{y}:Q"],
    )
    return _svg(chart.configure_axis(labelFontSize=FONT, titleFontSize=FONT).configure_title(fontSize=TITLE_FONT))


def report_charts(report: dict[str, Any]) -> dict[str, str]:
    """name -> SVG text for every chart of the report page, and name-narrow -> its drawing for phones."""
    funnel = [{"gate": k.replace("_", " "), "projects": v} for k, v in report["funnel"].items()]
    eco = [{"ecosystem": k, "share": v["share"] or 0.0} for k, v in
           sorted(report["black_hole_by_ecosystem"].items(), key=lambda x: -(x[1]["share"] or 0))]
    stars = [{"stars": k, "share": v["share"] or 0.0} for k, v in report["black_hole_by_stars"].items()]
    ttfr = [{"within": k, "prs": v} for k, v in report["time_to_first_response"].items()]
    tiers = [{"tier": k, "projects": v["projects"]} for k, v in report["score_by_tier"].items()]
    charts = {
        "funnel": (funnel, "gate", "projects", "Why projects are not ranked", "", "projects", False),
        "black_hole_by_ecosystem": (eco, "ecosystem", "share", "Black holes among judged projects, by ecosystem", "", "share", True),
        "black_hole_by_stars": (stars, "stars", "share", "Black holes among judged projects, by stars", "", "share", True),
        "time_to_first_response": (ttfr, "within", "prs", "Time to first human response", "", "outside PRs", False),
        "score_by_tier": (tiers, "tier", "projects", "Ranked projects by tier (default profile)", "", "projects", False),
    }
    out = {}
    for name, (values, x, y, title, x_title, y_title, pct) in charts.items():
        out[name] = _bars(values, x, y, title, x_title, y_title, pct)
        out[f"{name}-narrow"] = _bars(values, x, y, title, x_title, y_title, pct, narrow=True)
    return out
