"""Empirical relation graphs: model, Label Studio loader, offline and LLM extractors, evaluation."""

from claimtrace.graph.align import AlignResult, align_graphs, label_similarity
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
from claimtrace.graph.scores import GraphEvaluation, annotator_agreement, evaluate_graphs, score_pair

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
