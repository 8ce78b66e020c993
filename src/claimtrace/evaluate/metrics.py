"""Precision, recall and F1: re-exported from their one home, :mod:`claimtrace.metrics` (import from there)."""

from claimtrace.metrics import PRF, binary_prf, micro, prf, prf_from_sizes

__all__ = ["PRF", "binary_prf", "micro", "prf", "prf_from_sizes"]
