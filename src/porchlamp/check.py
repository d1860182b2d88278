"""`porchlamp check OWNER/REPO`: one repository collected with the real collector, judged with
the same evaluation, and explained; it need not be in any snapshot.

Ranks need a population, so a checked project gets its scores, tiers and verdict, not a rank. What
is read across a snapshot's repositories is read over this one alone: an account known as a bot only
by what it does in many repositories (templates it posts, one PR description it opens again and
again) is seen only by what it does here.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from porchlamp import forges
from porchlamp.collect import CollectOptions, Collector, GraphQLClient
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.snapshot import evaluate_store
from porchlamp.store import Store


class CheckError(PorchlampError):
    """The repository could not be checked; the message says why."""


@dataclass(frozen=True)
class CheckResult:
    verdict: dict[str, Any]
    as_of: date
    points: int

    def as_dict(self) -> dict[str, Any]:
        return {**self.verdict, "as_of": self.as_of.isoformat(), "points_used": self.points}


def _verdict(store: Store, as_of: date, repo: str) -> dict[str, Any]:
    """The stored snapshot of one repository, as `check` shows it."""
    r = store.query("SELECT status, kind, reason, ecosystem, stars, borderline, review_happens, forge FROM results "
                    "WHERE as_of = ? AND repo = ?", [as_of, repo])[0]
    profiles = store.query("SELECT profile, score, coverage, tier FROM profile_results WHERE as_of = ? AND repo = ? "
                           "ORDER BY profile", [as_of, repo])
    components = store.query("SELECT component, score, inputs, reason FROM component_results WHERE as_of = ? AND repo = ? "
                             "ORDER BY component", [as_of, repo])
    prs = store.query("SELECT number, author, created_at, excluded, outcome, response_kind, response_actor FROM pr_results "
                      "WHERE as_of = ? AND repo = ? ORDER BY number", [as_of, repo])
    excluded: dict[str, int] = {}
    for v in prs:
        if v["excluded"]:
            excluded[v["excluded"]] = excluded.get(v["excluded"], 0) + 1
    return {
        "repo": repo, **r,
        "profiles": {p["profile"]: {"score": p["score"], "coverage": p["coverage"], "tier": p["tier"]} for p in profiles},
        "components": {c["component"]: {"score": c["score"], "inputs": json.loads(c["inputs"]), "reason": c["reason"]}
                       for c in components},
        "outside_prs": [{"number": v["number"], "url": forges.change_url(repo, v["number"], r["forge"]), "author": v["author"],
                         "opened": v["created_at"].isoformat(), "outcome": v["outcome"], "first_response": v["response_kind"],
                         "responder": v["response_actor"]} for v in prs if v["excluded"] is None],
        "excluded_prs": dict(sorted(excluded.items())),
    }


def check_repo(repo: str, client: GraphQLClient | Mapping[str, Any], as_of: date, settings: Settings,
               dependents_api: str | None = None) -> CheckResult:
    """Collect one repository into a throwaway store and evaluate it there, as a snapshot of one.
    Alone, a repository still shows its own automated templates (the same text within minutes of
    each PR); texts repeated across other projects need a snapshot."""
    with tempfile.TemporaryDirectory() as tmp:
        with Store(Path(tmp) / "check.duckdb") as store:
            summary = Collector(store, client, CollectOptions(as_of=as_of, window_days=settings.window.days,
                                                              dependents_api=dependents_api), settings).run([repo])
            if summary.failures:
                reason = summary.failures[0]["reason"].replace("_", " ")
                host = forges.host_of(repo)
                where = "GitHub" if host == forges.GITHUB_HOST else host
                raise CheckError(f"{repo}: {reason} on {where} (check the name, or whether the token can see it)")
            evaluate_store(store, as_of, settings)
            name = store.repo_names()[0]
            verdict = _verdict(store, as_of, name)
    return CheckResult(verdict, as_of, summary.points)
