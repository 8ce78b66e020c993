"""Context-configuration presets (the published study's settings) and how each selects context.

A preset says which part of the paper an extractor sees for a query: the full text, the top-k
retrieved paragraphs (hybrid BM25 + dense, optionally M candidates reranked down to k), or the gold
paragraphs (``oracle``, which needs gold in the input). LLM presets also say whether the prompt asks
for reasoning first (chain of thought).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from claimtrace.errors import ClaimtraceError
from claimtrace.presets import preset_data
from claimtrace.retrieval.selectors import PRESETS as SELECTORS

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


def _context(name: str, raw: dict[str, Any]) -> ContextConfig:
    """A context configuration from the presets file: k and M (candidates) come from its selector."""
    sel = SELECTORS[raw["selector"]]
    k = sel.k if sel.preset in ("topk", "rerank", "uniform") else None
    candidates = sel.m if sel.preset == "rerank" else None
    return ContextConfig(name=name, k=k, candidates=candidates, **raw)


#: the named context configurations (``resources/presets.yaml``, section ``contexts``)
PRESETS: dict[str, ContextConfig] = {name: _context(name, raw) for name, raw in preset_data()["contexts"].items()}

# what measured best for each extractor on EI validation (see docs/results/extract.md)
EMBEDDED_DEFAULT: str = preset_data()["defaults"]["embedded"]
LLM_DEFAULT: str = preset_data()["defaults"]["llm"]


def get_preset(name: str) -> ContextConfig:
    """The preset with this name (a one-line error listing the names otherwise)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ClaimtraceError(f"unknown context configuration {name!r}; choose one of: {', '.join(PRESETS)}") from None
