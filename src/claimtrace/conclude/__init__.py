"""Study-level conclusions across papers: URCA, baselines and a statistics-based offline method.

Public API (see docs/conclude.md):

- ``conclude(question, papers, method="offline"|"urca"|"rag"|"uniform"|"raptor"|"abstracts"|"none", ...)
  -> ConcludeResult``: the EI label, the conclusion, a rationale and located quotes.
- ``Question``, ``ConcludeResult``, ``Quote``, ``Estimate``, ``ClusterInfo``, ``RetrievalInfo``: the data model;
  ``ConcludeResult.record()`` is the batch line.
- ``per_paper_quota(k, S, beta, N_max)``: URCA's k_s; ``load_papers``, ``uniform_retrieve``, ``pooled_retrieve``.
- ``cluster_vectors`` / ``choose_method``: UMAP + GMM, PCA + GMM or none, chosen automatically and reported.
- ``locate_quotes``: LLM quotes -> located quotes and the unlocated ones (flagged, never kept as real).
- ``conclusion_for(label, higher_is_better)``, ``forest_plot(rows, path)``, ``forest_rows(results)``.
"""

from claimtrace.conclude.cluster import choose_method, cluster_vectors
from claimtrace.conclude.model import (
    EI_LABELS,
    INSUFFICIENT,
    METHODS,
    SCHEMA_VERSION,
    ClusterInfo,
    ConcludeResult,
    Estimate,
    Question,
    Quote,
    RetrievalInfo,
    conclusion_for,
)
from claimtrace.conclude.papers import Paper, load_papers, per_paper_quota, pooled_retrieve, uniform_retrieve
from claimtrace.conclude.pipeline import conclude, forest_rows, parse_polarity
from claimtrace.plots import ForestRow, forest_plot

__all__ = [
    "EI_LABELS",
    "INSUFFICIENT",
    "METHODS",
    "SCHEMA_VERSION",
    "ClusterInfo",
    "ConcludeResult",
    "Estimate",
    "ForestRow",
    "Paper",
    "Question",
    "Quote",
    "RetrievalInfo",
    "choose_method",
    "cluster_vectors",
    "conclude",
    "conclusion_for",
    "forest_plot",
    "forest_rows",
    "load_papers",
    "locate_quotes",
    "parse_polarity",
    "per_paper_quota",
    "pooled_retrieve",
    "uniform_retrieve",
]


def __getattr__(name: str) -> object:
    if name == "locate_quotes":  # imports the LLM layer: only on use
        from claimtrace.conclude.llm_methods import locate_quotes

        return locate_quotes
    raise AttributeError(name)
