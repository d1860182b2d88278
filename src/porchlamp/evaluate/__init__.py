"""Evaluation (SPEC sections 3-11): pure functions from stored rows and `as_of` to verdicts.

Imports models, config and its own rules only; never the collector, the store or publish.
"""

from porchlamp.evaluate.engine import RepoResult, Snapshot, evaluate_repo, evaluate_snapshot, rerank, templates_of

__all__ = ["RepoResult", "Snapshot", "evaluate_repo", "evaluate_snapshot", "rerank", "templates_of"]
