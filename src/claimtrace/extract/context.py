"""Turn a context configuration into the paragraphs an extractor may read (a thin adapter over retrieval).

Paragraph units and the selectors come from ``claimtrace.retrieval``; the retriever is built once per
document and reused for both stages and every finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from claimtrace.documents.model import Document
from claimtrace.errors import ClaimtraceError
from claimtrace.extract.config import ContextConfig


@dataclass
class ContextSelector:
    """Selects paragraphs for a query under a preset; caches the per-document index."""

    retriever_spec: str = "hybrid"
    reranker_spec: str | None = None
    _cache: dict[str, tuple[list[Any], Any, Any]] = field(default_factory=dict)
    _retriever: Any = None
    _reranker: Any = None

    def _prepare(self, doc: Document) -> tuple[list[Any], Any, Any]:
        if doc.id not in self._cache:
            from claimtrace.retrieval.pipeline import get_retriever
            from claimtrace.retrieval.units import document_units

            if self._retriever is None:
                self._retriever = get_retriever(self.retriever_spec)
            units = document_units(doc, "paragraph")
            index = self._retriever.build(units) if units else None
            self._cache.clear()  # one document at a time
            self._cache[doc.id] = (units, index, self._retriever)
        return self._cache[doc.id]

    def paragraphs(self, doc: Document, query: str, config: ContextConfig,
                   gold_paragraph_ids: Sequence[str] | None = None) -> list[str] | None:
        """Paragraph ids to read, best first (None: the whole body)."""
        if config.mode == "fulltext":
            return None
        if config.mode == "oracle":
            if not gold_paragraph_ids:
                raise ClaimtraceError("the oracle configuration needs gold paragraph ids (gold_paragraph_ids in the manifest)")
            known = {p.id for p in doc.paragraphs}
            ids = [g.split(".")[0] for g in gold_paragraph_ids]
            bad = [g for g in ids if g not in known]
            if bad:
                raise ClaimtraceError(f"oracle: unknown paragraph ids {bad[:5]}")
            return list(dict.fromkeys(ids))
        from claimtrace.retrieval.selectors import PRESETS, select

        units, index, retriever = self._prepare(doc)
        if not units:
            return []
        reranker = None
        if config.reranker:
            reranker = self._get_reranker(config)
        hits = select(PRESETS[config.selector], units, query, retriever=retriever, reranker=reranker, index=index)
        return [h.unit_id for h in hits]

    def _get_reranker(self, config: ContextConfig) -> Any:
        from claimtrace.retrieval.rerank import NoReranker, get_reranker

        if self._reranker is None:
            spec = self.reranker_spec
            if config.reranker == "finetuned" and not (spec and spec.startswith("cross-encoder:")):
                raise ClaimtraceError("finetuned-rerank needs --reranker cross-encoder:PATH (a fine-tuned cross-encoder)")
            self._reranker = get_reranker(spec) if spec else NoReranker()
        return self._reranker
