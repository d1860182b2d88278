"""The report of SPEC section 11, as data: the funnel with kinds, outside PRs and authors,
black-hole share by ecosystem and by star bucket, the top-100 overlap and distributions.

Pure over plain rows, so the command line, the site and tests all read the same figures.
Keys of the JSON form are only ever added, never renamed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from porchlamp.evaluate.engine import STATUS_ORDER
from porchlamp.evaluate.slices import STAR_BUCKETS

# Each bucket holds the times above its first bound up to and including its second, as the deadline
# does (SPEC 7: an answer at exactly 14 days is in time), so "7 to 14 days" are answered PRs and
# "over 14 days" the PRs answered late, as the project pages count them.
RESPONSE_BUCKETS = (
    ("1 hour or less", -1.0, 1),
    ("1 to 24 hours", 1, 24),
    ("1 to 3 days", 24, 72),
    ("3 to 7 days", 72, 168),
    ("7 to 14 days", 168, 336),
    ("over 14 days", 336, float("inf")),
)
TIERS = ("A", "B", "B (capped)", "C", "D")


def build_report(
    as_of: date,
    projects: Sequence[dict[str, Any]],
    profiles: Sequence[dict[str, Any]],
    outside_prs: int,
    outside_authors: int,
    hours: Iterable[float | None],
    per_project: bool = True,
) -> dict[str, Any]:
    """The report's figures and, with `per_project`, its list of every project (`project_entry`),
    which the site writes from the rows it holds instead of holding it twice."""
    funnel = {s: 0 for s in STATUS_ORDER}
    kinds: dict[str, dict[str, int]] = {s: {} for s in STATUS_ORDER}
    by_forge: dict[str, dict[str, int]] = {}  # the funnel of each forge's projects (SPEC section 13)
    for p in projects:
        funnel[p["status"]] += 1
        kinds[p["status"]][p["kind"]] = kinds[p["status"]].get(p["kind"], 0) + 1
        forge = by_forge.setdefault(p.get("forge") or "github", {s: 0 for s in STATUS_ORDER})
        forge[p["status"]] += 1
    judged = [p for p in projects if p["judged"] and p["status"] in ("black_hole", "ranked", "unrated")]

    def share(rows: list[dict[str, Any]], key: str, order: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for k in order or sorted({r[key] for r in rows}):
            group = [r for r in rows if r[key] == k]
            bh = sum(1 for r in group if r["status"] == "black_hole")
            out[k] = {"judged": len(group), "black_holes": bh, "share": round(bh / len(group), 4) if group else None}
        return out

    default = {p["repo"]: p for p in profiles if p["profile"] == "default"}
    by_stars = sorted(projects, key=lambda p: (-p["stars"], p["repo"]))[:100]
    overlap = sum(1 for p in by_stars if (default.get(p["repo"]) or {}).get("rank") and default[p["repo"]]["rank"] <= 100)
    dist = {label: 0 for label, _, _ in RESPONSE_BUCKETS}
    dist["never"] = 0
    for h in hours:
        if h is None:
            dist["never"] += 1
            continue
        for label, lo, hi in RESPONSE_BUCKETS:
            if lo < h <= hi:
                dist[label] += 1
                break
    tiers: dict[str, dict[str, Any]] = {}
    for t in TIERS:
        scores = [p["score"] for p in default.values() if p["tier"] == t and p["rank"] is not None]
        tiers[t] = {"projects": len(scores), "mean_score": round(sum(scores) / len(scores), 1) if scores else None,
                    "min_score": min(scores) if scores else None, "max_score": max(scores) if scores else None}
    report = {
        "as_of": as_of.isoformat(),
        "projects_total": len(projects),
        "funnel": funnel,
        "funnel_kinds": kinds,
        "funnel_by_forge": {f: by_forge[f] for f in sorted(by_forge, key=lambda f: (f != "github", f))},
        "judged_for_black_hole": len(judged),
        "black_holes_among_judged": sum(1 for p in judged if p["status"] == "black_hole"),
        "outside_prs": outside_prs,
        "outside_authors": outside_authors,
        "black_hole_by_ecosystem": share(judged, "ecosystem"),
        "black_hole_by_stars": share(judged, "star_bucket", STAR_BUCKETS),
        "top100_overlap": overlap,
        "top100_by_stars": len(by_stars),
        "time_to_first_response": dist,
        "judged_prs": sum(dist.values()),  # the outside PRs `time_to_first_response` counts
        "score_by_tier": tiers,
    }
    if per_project:
        prof_by_repo: dict[str, dict[str, Mapping[str, Any]]] = {}
        for p in profiles:
            prof_by_repo.setdefault(p["repo"], {})[p["profile"]] = p
        report["projects"] = [project_entry(p, prof_by_repo.get(p["repo"], {})) for p in projects]
    return report


def project_entry(p: Mapping[str, Any], prof: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A project's entry in the report: its result row `p` with its goals' rows `prof` by name."""
    d = prof.get("default", {})
    return {
        "repo": p["repo"],
        "status": p["status"],
        "kind": p["kind"],
        "reason": p["reason"],
        "ecosystem": p["ecosystem"],
        "stars": p["stars"],
        "tier": d.get("tier") if p["status"] == "ranked" else None,
        "score": d.get("score") if p["status"] == "ranked" else None,
        "coverage": d.get("coverage"),
        "ranks": {k: v["rank"] for k, v in prof.items() if v.get("rank") is not None},
        "delta": {k: v["delta"] for k, v in prof.items() if v.get("delta") is not None},
        "outside_prs": p["outside_prs"],
        "borderline": bool(p["borderline"]),
        "review_happens": p["review_happens"],
        "review_at": p.get("review_at"),  # the project of this snapshot where a mirror's review happens
    }
