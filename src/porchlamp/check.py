"""`porchlamp check OWNER/REPO`: one repository collected with the real collector, judged with
the same evaluation, and explained; it need not be in any snapshot.

Ranks need a population, so a checked project gets its scores, tiers and verdict, not a rank.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from porchlamp.collect import CollectOptions, Collector, GraphQLClient
from porchlamp.config import Settings
from porchlamp.errors import PorchlampError
from porchlamp.evaluate import evaluate_repo, templates_of
from porchlamp.evaluate.engine import RepoResult
from porchlamp.evaluate.ranking import profile_score, scores_of
from porchlamp.evaluate.rules import load_rules
from porchlamp.store import Store


class CheckError(PorchlampError):
    """The repository could not be checked; the message says why."""


@dataclass(frozen=True)
class CheckResult:
    result: RepoResult
    as_of: date
    points: int

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        return {
            "repo": r.repo, "as_of": self.as_of.isoformat(), "status": r.status, "kind": r.kind, "reason": r.reason,
            "ecosystem": r.ecosystem, "stars": r.stars, "borderline": r.borderline, "review_happens": r.review_happens,
            "profiles": {k: {"score": v.score, "coverage": v.coverage, "tier": v.tier} for k, v in r.profiles.items()},
            "components": {k: {"score": c.score, "inputs": c.inputs, "reason": c.reason} for k, c in r.components.items()},
            "outside_prs": [{"number": v.number, "url": v.url, "author": v.author, "opened": v.created_at.isoformat(),
                             "outcome": v.outcome, "first_response": v.response.kind if v.response else None,
                             "responder": v.response.actor if v.response else None} for v in r.outside],
            "excluded_prs": {k: sum(1 for v in r.prs if v.excluded == k) for k in sorted({v.excluded for v in r.prs if v.excluded})},
            "points_used": self.points,
        }


def check_repo(repo: str, client: GraphQLClient, as_of: date, settings: Settings, dependents_api: str | None = None) -> CheckResult:
    """Collect one repository into a throwaway store and evaluate it."""
    with tempfile.TemporaryDirectory() as tmp:
        with Store(Path(tmp) / "check.duckdb") as store:
            summary = Collector(store, client, CollectOptions(as_of=as_of, window_days=settings.window.days,
                                                              dependents_api=dependents_api), settings).run([repo])
            if summary.failures:
                reason = summary.failures[0]["reason"].replace("_", " ")
                raise CheckError(f"{repo}: {reason} on GitHub (check the name, or whether the token can see it)")
            data = next(store.iter_repo_data())
            rules = load_rules(settings)
            # Alone, a repository still shows its own automated templates (the same text within
            # minutes of each PR); texts repeated across other projects need a snapshot.
            result = evaluate_repo(data, store.accounts(), settings, rules, as_of, templates_of([data], settings, rules))
    if result.components:
        from dataclasses import replace

        result = replace(result, profiles={p: profile_score(scores_of(result.components), p, settings) for p in settings.profiles})
    return CheckResult(result, as_of, summary.points)
