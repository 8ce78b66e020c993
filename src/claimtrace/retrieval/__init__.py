"""Retrieval and context selection over a Document's paragraphs or sentences.

Retrievers (BM25, dense, hybrid RRF, fine-tuned multi-task bi-encoder), rerankers (none, cross-encoder,
RankGPT listwise LLM) and context-selection presets. See docs/retrieval.md.
"""

from claimtrace.retrieval.base import Retriever, rank, search
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.dense import DenseRetriever
from claimtrace.retrieval.embeddings import (
    CachedEmbedder,
    Embedder,
    EmbeddingCache,
    OnnxMiniLM,
    SentenceTransformerEmbedder,
    get_embedder,
)
from claimtrace.retrieval.hybrid import HybridRetriever, rrf_scores
from claimtrace.retrieval.pipeline import RetrievalPipeline, get_retriever
from claimtrace.retrieval.rerank import (
    CrossEncoderReranker,
    LLMListwiseReranker,
    NoReranker,
    Reranker,
    get_reranker,
    parse_permutation,
    sliding_windows,
)
from claimtrace.retrieval.selectors import PRESETS, SelectorConfig, select, select_uniform, uniform_quota
from claimtrace.retrieval.units import Hit, Unit, document_units

__all__ = [
    "PRESETS",
    "BM25Retriever",
    "CachedEmbedder",
    "CrossEncoderReranker",
    "DenseRetriever",
    "Embedder",
    "EmbeddingCache",
    "Hit",
    "HybridRetriever",
    "LLMListwiseReranker",
    "NoReranker",
    "OnnxMiniLM",
    "Reranker",
    "RetrievalPipeline",
    "Retriever",
    "SelectorConfig",
    "SentenceTransformerEmbedder",
    "Unit",
    "document_units",
    "get_embedder",
    "get_reranker",
    "get_retriever",
    "parse_permutation",
    "rank",
    "rrf_scores",
    "search",
    "select",
    "select_uniform",
    "sliding_windows",
    "uniform_quota",
]
