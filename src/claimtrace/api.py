"""The public Python API: one typed function per job, the same defaults as the CLI (offline unless an LLM
is passed). ``import claimtrace`` re-exports these; heavy layers load on first use.

Papers are given as a path or an already loaded :class:`~claimtrace.documents.Document`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimtrace.documents import Document, load_document

if TYPE_CHECKING:
    from claimtrace.conclude.model import ConcludeResult
    from claimtrace.evaluate.evidence import EvidenceScore
    from claimtrace.evaluate.metrics import PRF
    from claimtrace.extract.model import ClaimTrace
    from claimtrace.graph.model import EmpiricalGraph
    from claimtrace.graph.scores import GraphEvaluation
    from claimtrace.llm import LLMClient
    from claimtrace.retrieval.units import Hit
    from claimtrace.stats.model import DocumentStat

PaperLike = str | Path | Document


def _doc(paper: PaperLike) -> Document:
    return paper if isinstance(paper, Document) else load_document(paper)


def _is_file(value: str) -> bool:
    if "\n" in value or len(value) > 1024:
        return False
    try:
        return Path(value).is_file()
    except OSError:
        return False


def analyze_statistics(paper: PaperLike, *, alpha: float = 0.05) -> list[DocumentStat]:
    """Every statistical result of a paper, parsed and checked (recomputed p, consistency, decision errors)."""
    from claimtrace.stats import analyze_document

    return analyze_document(_doc(paper), alpha=alpha)


def analyze_text(text: str, *, alpha: float = 0.05) -> list[DocumentStat]:
    """The statistical results of a piece of text, parsed and checked (offsets index ``text``)."""
    from claimtrace.stats import check, mentions_one_tailed, parse
    from claimtrace.stats.model import DocumentStat

    ctx = mentions_one_tailed(text)
    return [DocumentStat(**check(r, alpha=alpha, one_tailed_context=ctx).model_dump(), scope="text")
            for r in parse(text)]


def retrieve(paper: PaperLike, query: str, *, k: int = 5, retriever: str = "default", reranker: str = "none",
             units: str = "paragraph", include_abstract: bool = False, task: str = "evidence") -> list[Hit]:
    """The ``k`` units of a paper most relevant to a query, with ``claimtrace retrieve``'s defaults."""
    from claimtrace.retrieval.pipeline import RetrievalPipeline

    pipe = RetrievalPipeline(retriever, reranker=reranker, unit=units,  # type: ignore[arg-type]
                             include_abstract=include_abstract, task=task)
    return pipe.retrieve(_doc(paper), query, k)


def extract_traces(paper: PaperLike, findings: Sequence[str] | None = None, *, llm: LLMClient | None = None,
                   config: str | None = None) -> list[ClaimTrace]:
    """Claim traces (finding -> hypothesis -> statistical evidence); findings default to those detected in the
    abstract. Offline (the embedded extractor) unless an ``LLMClient`` is given."""
    from claimtrace.extract.pipeline import extract_traces as run

    extractor: Any = None
    if llm is not None:
        from claimtrace.extract.llm_extractor import LLMExtractor

        extractor = LLMExtractor(llm)
    return run(_doc(paper), list(findings) if findings else None, extractor=extractor, config=config)


def build_graph(paper_or_text: PaperLike, *, method: str = "offline", llm: LLMClient | None = None,
                doc_id: str = "") -> EmpiricalGraph:
    """A paper's empirical relation graph from its abstract (or from a text given as ``str`` that is not a
    path): variables and typed relations. ``method``: offline, staged or direct (the last two need ``llm``)."""
    if isinstance(paper_or_text, Document | Path) or _is_file(paper_or_text):
        doc = _doc(paper_or_text)
        text = doc.abstract_text.strip() or doc.body_text.strip()
        doc_id = doc_id or Path(doc.source.path).stem
    else:
        text = paper_or_text
    if method == "offline":
        from claimtrace.graph.offline import extract_offline

        return extract_offline(text, doc_id)
    from claimtrace.errors import ClaimtraceError

    if llm is None:
        raise ClaimtraceError(f"method {method!r} needs an LLM client (llm=...), or use method='offline'")
    from claimtrace.graph.pipeline import run_direct, run_staged

    if method == "staged":
        return run_staged(text, doc_id, client=llm)
    if method == "direct":
        return run_direct(text, doc_id, client=llm)
    raise ClaimtraceError(f"unknown method {method!r} (choose offline, staged or direct)")


def conclude(papers: Sequence[PaperLike], *, intervention: str, comparator: str, outcome: str,
             method: str = "offline", llm: LLMClient | None = None,
             higher_is_better: bool | None = None) -> ConcludeResult:
    """What one study (one or more papers) found for an intervention vs a comparator on an outcome."""
    from claimtrace.conclude.pipeline import conclude as run

    question = {"intervention": intervention, "comparator": comparator, "outcome": outcome}
    return run(question, [_doc(p) for p in papers], method=method, client=llm, higher_is_better=higher_is_better)


def evaluate_hypotheses(pairs: Sequence[tuple[str | None, str | None]], *, tau: float | None = None) -> PRF:
    """Hypothesis P/R/F1 over (predicted, gold) text pairs: sentences match at cosine >= tau (local MiniLM)."""
    from claimtrace.evaluate.hypothesis import DEFAULT_TAU, score_hypotheses
    from claimtrace.retrieval.embeddings import default_embedder

    return score_hypotheses(pairs, default_embedder(), DEFAULT_TAU if tau is None else tau)


def evaluate_evidence(pairs: Sequence[tuple[str | None, str | None]]) -> EvidenceScore:
    """Evidence P/R/F1 over (predicted, gold) text pairs, by statistical component (deterministic parser)."""
    from claimtrace.evaluate.evidence import score_evidences

    return score_evidences(pairs)


def evaluate_retrieval(hits: Sequence[Sequence[Hit]], gold_units: Sequence[Sequence[str]],
                       ks: Sequence[int] = (1, 3, 5, 10)) -> dict[str, float]:
    """recall@k, hit@k, MRR and nDCG@k averaged over queries: each query's hits against its gold unit ids."""
    from claimtrace.retrieval.metrics import aggregate, scores_for

    rows = [scores_for([h.model_dump() for h in hs], list(g), (), ks) for hs, g in zip(hits, gold_units, strict=True)]
    return aggregate(rows)


def evaluate_graphs(preds: dict[str, EmpiricalGraph], golds: dict[str, EmpiricalGraph]) -> GraphEvaluation:
    """Predicted graphs against gold graphs with the same ids (structure-first alignment, micro/macro F1)."""
    from claimtrace.graph.scores import evaluate_graphs as run

    return run(preds, golds)
