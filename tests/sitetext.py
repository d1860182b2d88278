"""What a page says, as a reader sees it, and the checks every page's words must pass: counts that
agree with their nouns, and the same figure worded the same wherever it appears. The rules are the
audit's own (`publish.claims.text_runs`, `publish.audit.plural_faults`), so the tests and a publish
read a page alike."""

from __future__ import annotations

from porchlamp.publish.audit import plural_faults as _plural_faults
from porchlamp.publish.claims import text_runs

__all__ = ["plural_faults", "text_runs"]


def plural_faults(runs: list[str]) -> list[str]:
    """Every "1 <plural noun>" and "<n≠1> <singular noun>" in the runs, with its run."""
    return [f"{why.split(':')[0]} in {run[:160]!r}" for run, why in _plural_faults(runs)]
