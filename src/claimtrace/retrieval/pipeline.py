"""Load retrievers and rerankers by name once; parse and index each document once; answer queries."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from claimtrace import specs
from claimtrace.documents import Document, load_document
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.base import Retriever, search
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.rerank import NoReranker, Reranker, get_reranker
from claimtrace.retrieval.two_stage import TwoStageSettings
from claimtrace.retrieval.units import Hit, Unit, UnitKind, document_units, parse_units

#: the retriever spellings (from the registry, ``claimtrace.specs.RETRIEVERS``)
RETRIEVERS = specs.RETRIEVERS.spellings()
#: what ``default`` means for the evidence task: ``two-stage`` (the ``hybrid-trained`` candidates reranked by the
#: shipped cross-encoder, settings ``TWO_STAGE`` chosen on EI train development papers by
#: bench/retrieval_two_stage.py); for the hypothesis task (the cross-encoder is trained on evidence only)
#: ``hybrid-trained``: BM25 fused with the shipped trained retriever (equal-weight RRF, fixed before measuring)
DEFAULT_RETRIEVER_BY_TASK = {"evidence": "two-stage", "hypothesis": "hybrid-trained"}
DEFAULT_RETRIEVER = DEFAULT_RETRIEVER_BY_TASK["evidence"]
#: the fusion of BM25 and the trained retriever in ``hybrid-trained``: (method, BM25 weight, trained weight,
#: whether a unit scores its best sentence)
TRAINED_FUSION: tuple[str, float, float, bool] = ("rrf", 1.0, 1.0, False)
#: the ``two-stage`` settings (sentence units, paragraph units), chosen on EI train development papers that
#: neither shipped model trained on (bench/retrieval_two_stage.py; bench/results/retrieval_two_stage_dev.json)
#: sentences: the top 20, the cross-encoder's rank fused with the first stage's (RRF, equal weights); paragraphs: the
#: top 15, each scored by the cross-encoder on the paragraph and on its best sentence (the two ranks fused), that
#: rank fused with the first stage's at weight 2
TWO_STAGE: tuple[TwoStageSettings, TwoStageSettings] = (
    TwoStageSettings(m=20, fusion="rrf", ce_weight=1.0, unit_score="unit"),
    TwoStageSettings(m=15, fusion="rrf", ce_weight=2.0, unit_score="unit+maxsent"))


#: how each registered retriever spec (``claimtrace.specs.RETRIEVERS``) is built: spec class -> builder
_BUILDERS: dict[type[specs.Spec], Callable[..., Retriever]] = {}
B = TypeVar("B", bound=Callable[..., Retriever])


def builds(spec_cls: type[specs.Spec]) -> Callable[[B], B]:
    """Register the builder of one retriever spec class (``builder(spec, task=..., embedder=..., weights=...)``)."""

    def register(fn: B) -> B:
        _BUILDERS[spec_cls] = fn
        return fn

    return register


def retriever_builders() -> dict[type[specs.Spec], Callable[..., Retriever]]:
    """The registered builders by spec class (every kind in ``RETRIEVERS`` has one; a test holds it)."""
    return dict(_BUILDERS)


def get_retriever(spec: str | specs.Spec = "default", *, task: str = "evidence", embedder: str | None = None,
                  weights: tuple[float, float] = (1.0, 1.0)) -> Retriever:
    """A retriever from a spec (a spelling or a :mod:`claimtrace.specs` spec): default, two-stage (hybrid-trained,
    then the shipped cross-encoder), bm25, dense, hybrid (bm25 + dense RRF), trained (the shipped trained
    retriever), hybrid-trained (bm25 + trained), finetuned:DIR, hybrid-finetuned:DIR."""
    parsed = specs.RETRIEVERS.parse(spec)
    return _BUILDERS[type(parsed)](parsed, task=task, embedder=embedder, weights=weights)


@builds(specs.DefaultRetriever)
def _default(spec: specs.Spec, *, task: str, **kw: Any) -> Retriever:
    return get_retriever(DEFAULT_RETRIEVER_BY_TASK.get(task, DEFAULT_RETRIEVER), task=task, **kw)


@builds(specs.TwoStageRetriever)
def _two_stage(spec: specs.Spec, *, task: str, **kw: Any) -> Retriever:
    from claimtrace.retrieval.cross_encoder import OnnxCrossEncoder
    from claimtrace.retrieval.two_stage import TwoStageRetriever

    sentence, paragraph = TWO_STAGE
    return TwoStageRetriever(get_retriever("hybrid-trained", task=task), OnnxCrossEncoder(), sentence, paragraph)


@builds(specs.TrainedRetriever)
@builds(specs.HybridTrainedRetriever)
def _trained(spec: specs.Spec, *, task: str, **kw: Any) -> Retriever:
    from claimtrace.retrieval.embeddings import shipped_retriever_dir
    from claimtrace.retrieval.finetuned import FinetunedRetriever

    fusion, w_bm25, w_trained, max_sentence = TRAINED_FUSION
    trained = FinetunedRetriever(shipped_retriever_dir(), task=task, max_sentence=max_sentence)
    if isinstance(spec, specs.TrainedRetriever):
        return trained
    from claimtrace.retrieval.hybrid import HybridRetriever

    return HybridRetriever([BM25Retriever(), trained], (w_bm25, w_trained), fusion=fusion)


@builds(specs.BM25Retriever)
def _bm25(spec: specs.Spec, **kw: Any) -> Retriever:
    return BM25Retriever()


@builds(specs.DenseRetriever)
@builds(specs.HybridRetriever)
def _dense(spec: specs.Spec, *, embedder: str | None, weights: tuple[float, float], **kw: Any) -> Retriever:
    from claimtrace.retrieval.dense import DenseRetriever

    if isinstance(spec, specs.DenseRetriever):
        return DenseRetriever(embedder)
    from claimtrace.retrieval.hybrid import HybridRetriever

    return HybridRetriever([BM25Retriever(), DenseRetriever(embedder)], weights)


@builds(specs.FinetunedRetriever)
@builds(specs.HybridFinetunedRetriever)
def _finetuned(spec: specs.Spec, *, task: str, weights: tuple[float, float], **kw: Any) -> Retriever:
    from claimtrace.retrieval.finetuned import FinetunedRetriever

    ft = FinetunedRetriever(spec.argument() or "", task=task)
    if isinstance(spec, specs.HybridFinetunedRetriever):
        from claimtrace.retrieval.hybrid import HybridRetriever

        return HybridRetriever([BM25Retriever(), ft], weights)
    return ft


class RetrievalPipeline:
    """A retriever (+ reranker) with a small cache of parsed, indexed documents."""

    def __init__(self, retriever: str | specs.Spec | Retriever = "default", *,
                 reranker: str | specs.Spec | Reranker | None = "none",
                 unit: UnitKind | Sequence[UnitKind] = "paragraph", include_abstract: bool = False, task: str = "evidence",
                 m: int = 30, max_docs: int = 16, reranker_options: dict[str, Any] | None = None) -> None:
        self.retriever = get_retriever(retriever, task=task) if isinstance(retriever, str | specs.Spec) else retriever
        if reranker is None or isinstance(reranker, str | specs.Spec):
            opts = dict(reranker_options or {})
            opts.setdefault("task", task)
            self.reranker = get_reranker(reranker, **opts)
        else:
            self.reranker = reranker
        self.units: list[UnitKind] = parse_units([unit] if isinstance(unit, str) else unit)
        self.unit: UnitKind = self.units[0]
        self.include_abstract = include_abstract
        self.m = m
        self.max_docs = max_docs
        self._docs: OrderedDict[str, tuple[Document, list[Unit], Any]] = OrderedDict()

    def prepare(self, doc: str | Path | Document) -> tuple[Document, list[Unit], Any]:
        """Parse (if a path) and index a document, reusing earlier work for the same path."""
        key = str(Path(doc).resolve()) if not isinstance(doc, Document) else f"doc:{doc.id}"
        if key in self._docs:
            self._docs.move_to_end(key)
            return self._docs[key]
        d = load_document(doc) if not isinstance(doc, Document) else doc
        units = document_units(d, self.units, self.include_abstract)
        if not units:
            raise InputError(d.source.path, f"no {', '.join(self.units)} units to retrieve from (empty body?)")
        entry = (d, units, self.retriever.build(units))
        self._docs[key] = entry
        while len(self._docs) > self.max_docs:
            self._docs.popitem(last=False)
        return entry

    def retrieve(self, doc: str | Path | Document, query: str, k: int = 5) -> list[Hit]:
        """The top-k units of a document for a query (retrieve M then rerank when a reranker is set)."""
        if not query or not query.strip():
            raise ClaimtraceError("empty query")
        if k < 1:
            raise ClaimtraceError("k must be at least 1")
        _, units, index = self.prepare(doc)
        if isinstance(self.reranker, NoReranker):
            return search(self.retriever, units, query, k, index)
        cands = search(self.retriever, units, query, max(self.m, k), index)
        return self.reranker.rerank(query, cands, k)
