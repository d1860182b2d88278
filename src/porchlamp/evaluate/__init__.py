"""Evaluation (SPEC sections 3-11): per-PR judging as SQL relations over the stored rows, then each
repository's gates, components and ranks in Python over what those relations counted.

Never the collector or publish; `as_of` is always an argument, never the clock.
"""

from porchlamp.evaluate.engine import RepoResult, Snapshot, evaluate_repo, rerank

__all__ = ["RepoResult", "Snapshot", "evaluate_repo", "rerank"]
