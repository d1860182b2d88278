"""A project's history: its answered share and median first response in each stored snapshot of
the last 90 days, as an SVG drawn at build time and a page that gives the same figures as text.

They are files of their own (history/<owner>/<name>.svg and .html), linked from the project's page
by a fixed address: a new day's point rewrites them, never the project's page.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date, timedelta
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from markupsafe import escape

from porchlamp.publish.data import HISTORY_DAYS, slug
from porchlamp.publish import words

# A panel per figure, stacked: share above, median below. Drawn as wide as a phone shows it (a
# 390 px screen has 358 px for it), so its 12 px text is never scaled below 11 px on screen.
W, H, PAD, GAP = 356, 96, 52, 30


def history_href(repo: str) -> str:
    """The address of a project's history, without its extension (.svg: the chart, .html: the page)."""
    owner, _, name = repo.partition("/")
    return f"history/{slug(owner)}/{slug(name)}"


def _x(day: date, as_of: date) -> float:
    return PAD + (W - PAD - 10) * (1 - (as_of - day).days / HISTORY_DAYS)


def _panel(top: float, label: str, ticks: list[tuple[float, str]], points: list[tuple[float, float | None]]) -> list[str]:
    """One panel: its frame, labelled ticks (share of height, text), and the line with a dot per point;
    a point with no value (no median) breaks the line and is marked on the axis instead."""
    out = [f'<text x="4" y="{top - 8}" class="label">{escape(label)}</text>',
           f'<line x1="{PAD}" y1="{top + H}" x2="{W - 10}" y2="{top + H}" class="axis"/>']
    for frac, text in ticks:
        y = top + H * (1 - frac)
        out.append(f'<line x1="{PAD}" y1="{y:.1f}" x2="{W - 10}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{PAD - 4}" y="{y + 4:.1f}" class="tick">{escape(text)}</text>')
    run: list[str] = []
    for x, frac in points + [(0.0, None)]:
        if frac is None:
            if len(run) > 1:
                out.append(f'<polyline points="{" ".join(run)}" class="line"/>')
            run = []
            if x:
                out.append(f'<text x="{x:.1f}" y="{top + H - 4}" class="none">–</text>')
            continue
        y = top + H * (1 - frac)
        run.append(f"{x:.1f},{y:.1f}")
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" class="dot"/>')
    return out


def history_svg(repo: str, rows: list[dict[str, Any]], as_of: date, response_days: int = 14) -> str:
    """The chart: the answered share (0 to 100%) and the median first response (on a log scale of
    hours, 1 h to the response window of `response_days`) at each snapshot, dated on a 90-day axis
    ending at `as_of`."""
    top1, top2 = 24, 24 + H + GAP + 8
    height = top2 + H + 26
    share = [(_x(r["as_of"], as_of), r["answered"] / r["outside_prs"]) for r in rows]
    cap = math.log1p(response_days * 24)
    median = [(_x(r["as_of"], as_of), None if r["median_hours"] is None else min(1.0, math.log1p(r["median_hours"]) / cap))
              for r in rows]
    hour_ticks = [(math.log1p(h) / cap, text) for h, text in ((1, "1 h"), (24, "1 day"), (response_days * 24, f"{response_days} days"))]
    first = as_of - timedelta(days=HISTORY_DAYS)
    title = f"{repo}: answered share and median first response, last {HISTORY_DAYS} days"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="{W}" height="{height}" role="img" '
             f'aria-labelledby="t">',
             f"<title id=\"t\">{escape(words.xml_text(title))}</title>",
             "<style>.label{font:600 12px sans-serif;fill:#1f1d1a}.tick,.date{font:12px sans-serif;fill:#5f5a52}"
             ".tick{text-anchor:end}.axis{stroke:#5f5a52}.grid{stroke:#e6dfd2}.line{fill:none;stroke:#8a4b00;stroke-width:2}"
             ".dot{fill:#8a4b00}.none{font:12px sans-serif;fill:#a12f2f;text-anchor:middle}</style>"]
    parts += _panel(top1, f"Answered within {response_days} days (share)", [(0, "0%"), (0.5, "50%"), (1, "100%")], share)
    parts += _panel(top2, "Median first response (–: under half answered)", hour_ticks, median)
    parts.append(f'<text x="{PAD}" y="{height - 6}" class="date">{first:%Y-%m-%d}</text>'
                 f'<text x="{W - 10}" y="{height - 6}" class="date" text-anchor="end">{as_of:%Y-%m-%d}</text>')
    parts.append("</svg>")
    return "".join(parts)


def histories(path: Path | None) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each project's rows of the history file, a project at a time (the file is by repo, then date)."""
    if path is None or not path.exists():
        return
    rows = (r for batch in pq.ParquetFile(path).iter_batches() for r in batch.to_pylist())
    for repo, group in groupby(rows, key=itemgetter("repo")):
        yield repo, list(group)
