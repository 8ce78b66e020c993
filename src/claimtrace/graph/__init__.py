"""Empirical relation graphs: model, Label Studio loader, offline and LLM extractors, evaluation."""

from claimtrace.graph.align import (
    AlignResult,
    GraphEvaluation,
    align_graphs,
    annotator_agreement,
    evaluate_graphs,
    label_similarity,
    score_pair,
)
from claimtrace.graph.labelstudio import load_labelstudio, parse_relation_label
from claimtrace.graph.model import (
    GRAPH_SCHEMA_VERSION,
    RELATION_TYPES,
    STATUSES,
    Edge,
    EmpiricalGraph,
    Mention,
    Variable,
    load_graphs,
    normalise_name,
)
from claimtrace.graph.offline import extract_offline

__all__ = [
    "GRAPH_SCHEMA_VERSION",
    "RELATION_TYPES",
    "STATUSES",
    "AlignResult",
    "Edge",
    "EmpiricalGraph",
    "GraphEvaluation",
    "Mention",
    "Variable",
    "align_graphs",
    "annotator_agreement",
    "evaluate_graphs",
    "extract_offline",
    "label_similarity",
    "load_graphs",
    "load_labelstudio",
    "normalise_name",
    "parse_relation_label",
    "score_pair",
]
