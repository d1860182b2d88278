"""A snapshot's results as the columns of the store's result tables: each repository's row,
its components' rows and its profiles' rows, evidence and explanations as JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from porchlamp.columns import Columns
from porchlamp.evaluate.engine import RepoResult
from porchlamp.evaluate.ranking import ProfileScore


def as_json(value: Any) -> str:
    """JSON as the store keeps it: keys sorted, text as it is."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def profile_columns(as_of: date, items: Iterable[tuple[str, Mapping[str, ProfileScore]]]) -> Columns:
    """Columns of `profile_results` from (repo, {profile: score}) pairs."""
    cols: Columns = {k: [] for k in ("as_of", "repo", "profile", "score", "coverage", "tier", "rank", "delta", "explain")}
    for repo, profiles in items:
        for name, p in profiles.items():
            for k, v in (("as_of", as_of), ("repo", repo), ("profile", name), ("score", p.score), ("coverage", p.coverage),
                         ("tier", p.tier), ("rank", p.rank), ("delta", p.delta), ("explain", as_json(list(p.explain)))):
                cols[k].append(v)
    return cols


def result_rows(as_of: date, results: Iterable[RepoResult]) -> tuple[Columns, Columns]:
    """Repositories' results as columns of the store's `results` and `component_results`."""
    res: Columns = {}
    comps: Columns = {}

    def put(cols: Columns, row: dict[str, Any]) -> None:
        for k, v in row.items():
            cols.setdefault(k, []).append(v)

    for r in results:
        f = r.figures
        put(res, {
            "as_of": as_of, "repo": r.repo, "status": r.status, "kind": r.kind, "reason": r.reason, "ecosystem": r.ecosystem,
            "ecosystem_why": r.ecosystem_why, "star_bucket": r.star_bucket, "stars": r.stars, "forks": r.forks,
            "language": r.language, "description": r.description, "judged": r.judged, "borderline": r.borderline,
            "fork_note": r.fork_note, "review_happens": r.review_happens, "outside_prs": f.outside_prs,
            "answered": f.answered, "closed_silently": f.closed_silently, "unanswered": f.unanswered,
            "answered_late": f.answered_late,
            "median_hours": f.median_hours, "p90_hours": f.p90_hours,
            "evidence": as_json(r.evidence()), "maintainers": as_json(r.maintainers), "forge": r.forge,
        })
        for name, c in r.components.items():
            put(comps, {"as_of": as_of, "repo": r.repo, "component": name, "score": c.score, "inputs": as_json(c.inputs), "reason": c.reason})
    return res, comps
