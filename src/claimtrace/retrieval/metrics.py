"""Retrieval metrics: re-exported from their one home, :mod:`claimtrace.metrics` (import from there)."""

from claimtrace.metrics import aggregate, relevance, scores_for

__all__ = ["aggregate", "relevance", "scores_for"]
