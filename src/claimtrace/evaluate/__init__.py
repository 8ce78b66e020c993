"""Evaluation: the published claim-trace metrics (hypothesis, evidence components), τ calibration,
diagnostics (RSP, transitions), datasets, and the experiment runner."""

from claimtrace.evaluate.diagnostics import (
    PaperOutcome,
    TransitionReport,
    relevant_sentence_proportion,
    transitions,
)
from claimtrace.evaluate.evidence import (
    ComponentParser,
    EvidenceComponents,
    EvidenceScore,
    compare_components,
    micro_evidence,
    score_evidence,
    score_evidences,
)
from claimtrace.evaluate.hypothesis import (
    DEFAULT_TAU,
    CalibrationResult,
    Rating,
    calibrate,
    calibrate_from_scores,
    f1_curve,
    hypothesis_sims,
    read_ratings,
    score_hypotheses,
    score_hypothesis,
    tau_grid,
)
from claimtrace.metrics import PRF, micro, prf
from claimtrace.retrieval.embeddings import CachedEmbedder, Embedder, default_embedder

__all__ = [
    "DEFAULT_TAU",
    "PRF",
    "CachedEmbedder",
    "CalibrationResult",
    "ComponentParser",
    "Embedder",
    "EvidenceComponents",
    "EvidenceScore",
    "PaperOutcome",
    "Rating",
    "TransitionReport",
    "calibrate",
    "calibrate_from_scores",
    "compare_components",
    "default_embedder",
    "f1_curve",
    "hypothesis_sims",
    "micro",
    "micro_evidence",
    "prf",
    "read_ratings",
    "relevant_sentence_proportion",
    "score_evidence",
    "score_evidences",
    "score_hypotheses",
    "score_hypothesis",
    "tau_grid",
    "transitions",
]
