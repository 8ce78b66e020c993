"""Turn a context configuration into the paragraphs an extractor may read (a thin adapter over retrieval).

Paragraph units and the selectors come from ``claimtrace.retrieval``; the retriever is built once per
document and reused for both stages and every finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claimtrace.documents.model import Document
from claimtrace.errors import ClaimtraceError
from claimtrace.extract.config import ContextConfig
from claimtrace.retrieval.rerank import RetrieverReranker  # noqa: F401  (its home moved to retrieval)

#: the reranker used for rag-rerank / finetuned-rerank when none is given (no LLM needed): after hybrid
#: retrieval, the fine-tuned bi-encoder's rescoring; after fine-tuned retrieval, rescoring by the RRF of
#: BM25 and the fine-tuned retriever over the M candidates
DEFAULT_RERANKERS = {None: "finetuned", "finetuned": "rescore:hybrid-finetuned"}


#: stage 1's fusion: the weight of the reranker's relevance (min-max over the M candidates) next to a paragraph's
#: hypothesis-likeness; the embedded extractor's weight of the similarity to the finding (``W_SIM_HYP``)
W_STAGE1_RELEVANCE = 0.7


class HypothesisReranker:
    """Stage 1's reranker: the base reranker's relevance to the finding (the trained retriever's hypothesis head by
    default), min-max scaled over the M candidates and weighted by ``W_STAGE1_RELEVANCE``, plus how much the
    paragraph reads like the paper's hypothesis or aim (its best sentence's ``hypothesis_likeness``: classifier,
    cues, section, the introduction's end). The hypothesis is seldom the paragraph closest to the finding; it
    is the aim paragraph about the finding's variables."""

    name = "hypothesis"

    def __init__(self, base: Any, likeness: dict[str, float], w_relevance: float = W_STAGE1_RELEVANCE) -> None:
        self.base = base
        self.likeness = likeness
        self.w_relevance = w_relevance

    @property
    def last_invocation_ids(self) -> list[str]:
        """The base reranker's LLM invocation ids (RankGPT), for the trace."""
        return list(getattr(self.base, "last_invocation_ids", []) or [])

    def rerank(self, query: str, hits: Sequence[Any], k: int | None = None) -> list[Any]:
        """The hits ranked by relevance and hypothesis-likeness together, cut to k."""
        import numpy as np

        if not hits:
            return []
        ranked = self.base.rerank(query, hits, len(hits))
        rel = np.array([h.score for h in ranked], dtype=np.float64)
        if not np.all(np.isfinite(rel)) or np.ptp(rel) == 0:  # no usable scores: the base order
            rel = np.linspace(1.0, 0.0, len(ranked)) if len(ranked) > 1 else np.ones(1)
        else:
            rel = (rel - rel.min()) / np.ptp(rel)
        fused = self.w_relevance * rel + np.array([self.likeness.get(h.unit_id, 0.0) for h in ranked])
        order = sorted(range(len(ranked)), key=lambda i: -fused[i])[: k if k is not None else len(ranked)]
        return [ranked[i].model_copy(update={"rank": r, "score": float(fused[i])}) for r, i in enumerate(order, 1)]


#: stage 1's bonus for a paragraph of the paper's introduction by position (before the first Methods or Results
#: paragraph): Psychological Science introductions often carry no heading, so the section prior misses them, and
#: the aim paragraphs of the Methods outrank the prediction (dev, rag-k5 hypothesis hits: 25 of the full text's 28
#: without the bonus)
W_INTRO_POSITION = 0.3

#: stage 2's paragraph prior (``paragraph_evidence_likeness``): a paragraph holding a result the statistics engine
#: checks (a parsed one counts half), in a Results section, in the finding's own study's Results
W_EV_STAT, W_EV_RESULTS, W_EV_OWN_STUDY = 0.5, 0.3, 0.3


def paragraph_evidence_likeness(doc: Document, finding: str) -> dict[str, float]:
    """Per body paragraph id: how much it reads like the place of a finding's test (stage 2's prior): its best
    sentence's statistics-engine level (checked 1, parsed 0.5) times ``W_EV_STAT``, plus ``W_EV_RESULTS`` in a
    Results section, plus ``W_EV_OWN_STUDY`` in the Results of the study the finding names (else the first)."""
    from claimtrace.documents.studies import studies
    from claimtrace.extract.statistics import sentence_statistics
    from claimtrace.extract.trace_ranker import finding_study, same_study

    levels = sentence_statistics(doc)
    ref = finding_study(finding, studies(doc))
    out: dict[str, float] = {}
    for p in doc.paragraphs:
        level = max((levels.get(s.id, 0) for s in p.sentences), default=0)
        results = p.section_kind == "results"
        out[p.id] = (W_EV_STAT * level / 2 + W_EV_RESULTS * results
                     + W_EV_OWN_STUDY * (results and ref is not None and same_study(p.study, ref)))
    return out


def paragraph_hypothesis_likeness(doc: Document) -> dict[str, float]:
    """Per body paragraph id: its best sentence's hypothesis-likeness."""
    from claimtrace.extract.hypothesis_classifier import hypothesis_likeness

    per = hypothesis_likeness(doc)
    return {p.id: max((per[s.id] for s in p.sentences), default=0.0) for p in doc.paragraphs}


def default_finetuned_dir() -> Path:
    """Where the fine-tuned evidence retriever lives by default (``<models dir>/ei-evidence``)."""
    from claimtrace.retrieval.embeddings import models_dir

    return models_dir() / "ei-evidence"


def check_finetuned_dir(path: str | Path | None) -> Path:
    """The fine-tuned retriever folder (none given: the user's trained one, else the shipped trained retriever),
    or a one-line error when it is missing."""
    from claimtrace.retrieval.embeddings import RETRIEVER_MANIFEST, shipped_retriever_dir

    d = Path(path).expanduser() if path else default_finetuned_dir()
    if not path and not (d / "claimtrace_retriever.json").is_file():
        d = shipped_retriever_dir()
    if not (d / "claimtrace_retriever.json").is_file() and not (d / RETRIEVER_MANIFEST).is_file():
        raise ClaimtraceError(f"no fine-tuned retriever in {d} (train one with `claimtrace train-retriever`, "
                              "or give its folder as extractor_options.finetuned_model in an experiment config)")
    return d


@dataclass
class ContextSelector:
    """Selects paragraphs for a query under a preset; caches the per-document index.

    Rerank configurations retrieve M candidates (hybrid, or the fine-tuned retriever for
    ``finetuned-rerank``) and rerank them to k with ``reranker_spec`` (``llm``: RankGPT,
    ``cross-encoder:PATH``, ``finetuned:DIR``: fine-tuned bi-encoder rescoring, ``dense``: MiniLM
    bi-encoder rescoring, ``rescore:RETRIEVER``: a retriever run over the candidates). Without one:
    ``finetuned`` rescoring after hybrid retrieval, ``rescore:hybrid-finetuned`` (BM25 + fine-tuned RRF)
    after fine-tuned retrieval (``DEFAULT_RERANKERS``). Stage 1 (``task="hypothesis"``) wraps the reranker in
    ``HypothesisReranker`` (relevance + hypothesis-likeness) unless ``hypothesis_prior`` is False.
    """

    retriever_spec: str = "hybrid"
    reranker_spec: str | None = None
    finetuned_dir: str | None = None
    #: stage 1 (``task="hypothesis"``) ranks with ``HypothesisReranker`` around the reranker (top-k: around the
    #: retriever's ranking of every paragraph); False: the retriever / reranker alone
    hypothesis_prior: bool = True
    #: stage 2 likewise, with ``paragraph_evidence_likeness`` as the prior; False: the retriever / reranker alone
    evidence_prior: bool = True
    llm_client: Any = None  # the LLM client RankGPT uses (``llm`` reranker); None: the configured default
    _cache: dict[tuple[str, str], tuple[list[Any], Any, Any]] = field(default_factory=dict)
    #: the selections made for the current document (an extractor and the experiment's diagnostics ask
    #: for the same context: the second request costs nothing, RankGPT calls included)
    _selected: dict[tuple[str, str, str, str], list[str]] = field(default_factory=dict)
    _retrievers: dict[str, Any] = field(default_factory=dict)
    _rerankers: dict[str, Any] = field(default_factory=dict)
    _invocations: dict[tuple[str, str, str, str], list[str]] = field(default_factory=dict)
    _likeness: tuple[str, dict[str, float]] | None = None
    _ev_likeness: tuple[str, str, dict[str, float]] | None = None
    #: LLM ledger invocation ids of the reranking behind the latest ``paragraphs`` answer (RankGPT), for the trace
    last_invocation_ids: list[str] = field(default_factory=list)

    def retriever_for(self, config: ContextConfig) -> str:
        """The retriever spec a configuration uses."""
        if config.retriever == "finetuned":
            return f"finetuned:{check_finetuned_dir(self.finetuned_dir)}"
        return self.retriever_spec

    def reranker_for(self, config: ContextConfig) -> str | None:
        """The reranker spec a configuration uses (None: no reranking)."""
        if not config.reranker:
            return None
        if self.reranker_spec:
            return self.reranker_spec
        default = DEFAULT_RERANKERS[config.retriever]
        if default in ("finetuned", "rescore:hybrid-finetuned"):
            return f"{default}:{check_finetuned_dir(self.finetuned_dir)}"
        return default

    def _prepare(self, doc: Document, spec: str, task: str = "evidence") -> tuple[list[Any], Any, Any]:
        key = (doc.id, f"{spec} ({task})")
        if key not in self._cache:
            from claimtrace.retrieval.pipeline import get_retriever
            from claimtrace.retrieval.units import document_units

            if key[1] not in self._retrievers:
                self._retrievers[key[1]] = get_retriever(spec, task=task)
            retriever = self._retrievers[key[1]]
            units = document_units(doc, "paragraph")
            index = retriever.build(units) if units else None
            for k in [k for k in self._cache if k[0] != doc.id]:  # one document at a time
                del self._cache[k]
            self._cache[key] = (units, index, retriever)
        return self._cache[key]

    def paragraphs(self, doc: Document, query: str, config: ContextConfig,
                   gold_paragraph_ids: Sequence[str] | None = None, task: str = "evidence") -> list[str] | None:
        """Paragraph ids to read, best first (None: the whole body); ``task`` picks the trained retriever's head
        (``hypothesis`` for stage 1's finding query, ``evidence`` for stage 2)."""
        self.last_invocation_ids = []
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
        from claimtrace.retrieval.base import search
        from claimtrace.retrieval.rerank import NoReranker
        from claimtrace.retrieval.selectors import PRESETS, select

        retriever_spec = self.retriever_for(config)
        units, index, retriever = self._prepare(doc, retriever_spec, task)
        if not units:
            return []
        spec = self.reranker_for(config)
        sel = PRESETS[config.selector]
        fuse = sel.preset in ("topk", "rerank") and (self.hypothesis_prior if task == "hypothesis" else self.evidence_prior)
        key = (doc.id, query, config.selector, f"{retriever_spec} -> {spec}{f' + {task} prior' if fuse else ''} ({task})")
        if key not in self._selected:
            for k in [k for k in self._selected if k[0] != doc.id]:  # one document at a time
                del self._selected[k]
            reranker = self._get_reranker(spec, task) if spec else None
            if fuse:
                reranker = HypothesisReranker(reranker or NoReranker(), self._prior(doc, query, task))
            if reranker is not None and fuse and sel.preset == "topk":
                # top-k with the stage's prior: the retriever ranks every paragraph, the prior joins, k are kept
                hits = reranker.rerank(query, search(retriever, units, query, len(units), index), sel.k)
            else:
                hits = select(sel, units, query, retriever=retriever, reranker=reranker, index=index)
            self._selected[key] = [h.unit_id for h in hits]
            self._invocations[key] = list(getattr(reranker, "last_invocation_ids", []) or [])
        self.last_invocation_ids = list(self._invocations.get(key, []))
        return list(self._selected[key])

    def _prior(self, doc: Document, query: str, task: str) -> dict[str, float]:
        """The stage's paragraph prior: hypothesis-likeness plus ``W_INTRO_POSITION`` before the paper's first
        Methods or Results paragraph (stage 1), or evidence-likeness for the finding (the composite query's first
        line, stage 2); computed once per document (and finding)."""
        if task == "hypothesis":
            if self._likeness is None or self._likeness[0] != doc.id:
                like = paragraph_hypothesis_likeness(doc)
                first = next((i for i, p in enumerate(doc.paragraphs) if p.section_kind in ("methods", "results")),
                             len(doc.paragraphs))
                self._likeness = (doc.id, {p.id: like[p.id] + W_INTRO_POSITION * (i < first)
                                           for i, p in enumerate(doc.paragraphs)})
            return self._likeness[1]
        finding = query.split("\n", 1)[0]
        if self._ev_likeness is None or self._ev_likeness[:2] != (doc.id, finding):
            self._ev_likeness = (doc.id, finding, paragraph_evidence_likeness(doc, finding))
        return self._ev_likeness[2]

    def _get_reranker(self, spec: str, task: str = "evidence") -> Any:
        key = f"{spec} ({task})"
        if key not in self._rerankers:
            from claimtrace.retrieval.rerank import get_reranker

            kwargs: dict[str, Any] = {}
            if spec == "llm" and self.llm_client is not None:
                kwargs["client"] = self.llm_client
            self._rerankers[key] = get_reranker(spec, task=task, **kwargs)
        return self._rerankers[key]
