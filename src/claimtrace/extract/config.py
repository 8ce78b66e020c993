"""Context-configuration presets (the published study's settings) and how each selects context.

A preset says which part of the paper an extractor sees for a query: the full text, the top-k
retrieved paragraphs (hybrid BM25 + dense, optionally M candidates reranked down to k), or the gold
paragraphs (``oracle``, which needs gold in the input). LLM presets also say whether the prompt asks
for reasoning first (chain of thought).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from claimtrace.errors import ClaimtraceError

ContextMode = Literal["fulltext", "rag", "oracle"]


@dataclass(frozen=True)
class ContextConfig:
    """One named context configuration."""

    name: str
    mode: ContextMode
    k: int | None = None
    candidates: int | None = None  # M: retrieved before reranking down to k
    reranker: str | None = None  # None or "default": rerank the M candidates to k (ContextSelector picks the reranker)
    retriever: str | None = None  # None: the selector's retriever (hybrid); "finetuned": the fine-tuned retriever
    cot: bool = False
    selector: str = "fulltext"  # the retrieval layer's selector preset (claimtrace.retrieval.selectors)
    description: str = ""


PRESETS: dict[str, ContextConfig] = {
    c.name: c
    for c in (
        ContextConfig("fulltext-zeroshot", "fulltext", selector="fulltext", description="the whole body; zero-shot prompt"),
        ContextConfig("fulltext-cot", "fulltext", cot=True, selector="fulltext", description="the whole body; reason first, then answer"),
        ContextConfig("rag-k5", "rag", k=5, selector="top5", description="top-5 paragraphs by hybrid retrieval"),
        ContextConfig("rag-k10", "rag", k=10, selector="top10", description="top-10 paragraphs by hybrid retrieval"),
        ContextConfig("rag-k20", "rag", k=20, selector="top20", description="top-20 paragraphs by hybrid retrieval"),
        ContextConfig("rag-rerank", "rag", k=5, candidates=30, reranker="default", selector="rerank30to5",
                      description="top-30 paragraphs by hybrid retrieval, reranked to 5"),
        ContextConfig("finetuned-rerank", "rag", k=5, candidates=30, reranker="default", retriever="finetuned",
                      selector="rerank30to5",
                      description="top-30 paragraphs by the fine-tuned retriever (evidence task), reranked to 5"),
        ContextConfig("oracle", "oracle", selector="oracle", description="the gold paragraphs (needs gold in the batch manifest)"),
    )
}

# what measured best for the embedded extractor on EI validation (see docs/results/extract.md)
EMBEDDED_DEFAULT = "fulltext-zeroshot"
LLM_DEFAULT = "rag-k10"


def get_preset(name: str) -> ContextConfig:
    """The preset with this name (a one-line error listing the names otherwise)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ClaimtraceError(f"unknown context configuration {name!r}; choose one of: {', '.join(PRESETS)}") from None
