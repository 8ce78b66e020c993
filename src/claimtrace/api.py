r"""The public Python API: one typed function per job, the same defaults as the CLI (offline unless an LLM
is passed). ``import claimtrace`` re-exports these; heavy layers load on first use (this module sits at the
top of the layer order, beside the CLI, and its function-local imports are that lazy loading).

Each function is the code its CLI command runs (``claimtrace stats`` calls :func:`analyze_text` and
:func:`analyze_statistics`, ``claimtrace numbers`` :func:`extract_numbers`, ``claimtrace run`` the same
``claimtrace.corpus.runner.run_corpus``), so the two cannot disagree.

Papers are given as a path, an already loaded :class:`~claimtrace.documents.Document`, or a :class:`Paper`
(a document kept parsed and indexed for repeated calls). Options are typed (``Literal``\ s, and the specs of
:mod:`claimtrace.specs` for retrievers and rerankers); a value outside them is a
:class:`~claimtrace.errors.ClaimtraceError`, as on the command line. Where a function takes a
``settings=`` (:class:`claimtrace.Settings`), its section gives the options not passed explicitly, as a
settings file or the environment does for the CLI (``claimtrace.Settings.load()`` reads both).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimtrace.documents import Document, load_document
from claimtrace.errors import ClaimtraceError

if TYPE_CHECKING:
    from claimtrace.conclude.model import ConcludeResult, Method
    from claimtrace.corpus.runner import RunSummary
    from claimtrace.evaluate.evidence import EvidenceScore
    from claimtrace.extract.model import ClaimTrace
    from claimtrace.graph.model import EmpiricalGraph
    from claimtrace.graph.scores import GraphEvaluation
    from claimtrace.llm import LLMClient, LLMSettings
    from claimtrace.metrics import PRF
    from claimtrace.numbers.model import NumbersResult
    from claimtrace.retrieval.pipeline import RetrievalPipeline
    from claimtrace.retrieval.units import Hit
    from claimtrace.settings import Settings
    from claimtrace.specs import Spec
    from claimtrace.stats.model import DocumentStat

from claimtrace.types import (
    GRAPH_METHODS,
    Engine,
    Extractor,
    GraphMethod,
    RerankerName,
    RetrieverName,
    Step,
    Task,
    UnitKind,
)

# the choices have one home, claimtrace.types (the settings sections and the CLI read it too); a retriever or
# reranker is one of its plain names, a spec of claimtrace.specs (``specs.FinetunedRetriever(arg=DIR)``,
# ``specs.RescoreReranker(arg=specs.BM25Retriever())``) or the CLI's spelling (``"finetuned:DIR"``)
if TYPE_CHECKING:
    Retriever = RetrieverName | Spec
    Reranker = RerankerName | Spec
else:  # claimtrace.specs loads on first use (``claimtrace stats`` never needs it); the names alone at run time
    Retriever = RetrieverName
    Reranker = RerankerName
#: one unit kind, or several (``claimtrace retrieve --units paragraphs,table-rows``)
Units = UnitKind | Sequence[UnitKind]

__all__ = ["Engine", "Extractor", "GraphMethod", "Paper", "PaperLike", "Reranker", "Retriever", "Step",
           "Task", "Units", "analyze_statistics", "analyze_text", "build_graph", "conclude_study",
           "evaluate_evidence", "evaluate_graphs", "evaluate_hypotheses", "evaluate_retrieval", "extract_numbers",
           "extract_traces", "retrieve", "run_corpus"]


class Paper:
    """A paper parsed once and kept, with its statistics and retrieval indexes, for repeated calls."""

    def __init__(self, source: str | Path | Document) -> None:
        self.document: Document = source if isinstance(source, Document) else load_document(source)
        self._stats: dict[float, list[DocumentStat]] = {}
        self._pipes: dict[tuple[Any, ...], RetrievalPipeline] = {}

    def __repr__(self) -> str:
        return f"Paper({self.document.source.path!r})"

    @property
    def title(self) -> str:
        """The paper's title."""
        return self.document.title or ""

    def statistics(self, *, alpha: float = 0.05) -> list[DocumentStat]:
        """Every statistical result, parsed and checked (computed once per ``alpha``)."""
        if alpha not in self._stats:
            self._stats[alpha] = analyze_statistics(self.document, alpha=alpha)
        return self._stats[alpha]

    def retrieve(self, query: str, *, k: int | None = None, retriever: Retriever | None = None,
                 reranker: Reranker | None = None, units: Units | None = None, include_abstract: bool | None = None,
                 task: Task | None = None, settings: Settings | None = None) -> list[Hit]:
        """The ``k`` most relevant units (the index of each retriever setting is built once); options not
        given come from ``settings.retrieval`` (default: the defaults: k 5, retriever default, no reranker)."""
        r = _retrieval(settings, k=k, retriever=retriever, reranker=reranker, units=units,
                       include_abstract=include_abstract, task=task)
        key = (str(r.retriever), str(r.reranker), tuple(r.units) if isinstance(r.units, list) else r.units,
               r.include_abstract, r.task, r.m)
        if key not in self._pipes:
            from claimtrace.retrieval.pipeline import RetrievalPipeline

            self._pipes[key] = RetrievalPipeline(r.retriever, reranker=r.reranker, unit=r.units,
                                                 include_abstract=r.include_abstract, task=r.task, m=r.m)
        return self._pipes[key].retrieve(self.document, query, r.k)

    def traces(self, findings: Sequence[str] | None = None, *, llm: LLMClient | None = None,
               config: str | None = None, settings: Settings | None = None) -> list[ClaimTrace]:
        """Claim traces of this paper (see :func:`extract_traces`)."""
        return extract_traces(self.document, findings, llm=llm, config=config, settings=settings)

    def graph(self, *, method: GraphMethod = "offline", llm: LLMClient | None = None) -> EmpiricalGraph:
        """The empirical relation graph of the abstract (see :func:`build_graph`)."""
        return build_graph(self.document, method=method, llm=llm)

    def numbers(self, *, intervention: str, comparator: str, outcome: str,
                llm: LLMClient | None = None) -> NumbersResult:
        """Per-arm numbers and effect sizes for one ICO (see :func:`extract_numbers`)."""
        return extract_numbers(self.document, intervention=intervention, comparator=comparator, outcome=outcome,
                               llm=llm)


PaperLike = str | Path | Document | Paper


def _doc(paper: PaperLike) -> Document:
    if isinstance(paper, Paper):
        return paper.document
    return paper if isinstance(paper, Document) else load_document(paper)


def _retrieval(settings: Settings | None, **given: Any) -> Any:
    """The retrieval section: the arguments given (not None) over ``settings.retrieval`` (or the defaults)."""
    from claimtrace.settings import section_with

    if isinstance(given.get("units"), Sequence) and not isinstance(given["units"], str):
        given["units"] = list(given["units"])
    return section_with("retrieval", settings.retrieval if settings is not None else None, **given)


def _is_file(value: str) -> bool:
    if "\n" in value or len(value) > 1024:
        return False
    try:
        return Path(value).is_file()
    except OSError:
        return False


def _alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ClaimtraceError(f"alpha must be between 0 and 1, got {alpha}")


def analyze_statistics(paper: PaperLike, *, alpha: float = 0.05) -> list[DocumentStat]:
    """Every statistical result of a paper, parsed and checked (recomputed p, consistency, decision errors)."""
    from claimtrace.stats import analyze_document

    _alpha(alpha)
    if isinstance(paper, Paper):
        return paper.statistics(alpha=alpha)
    return analyze_document(_doc(paper), alpha=alpha)


def analyze_text(text: str, *, alpha: float = 0.05) -> list[DocumentStat]:
    """The statistical results of a piece of text, parsed and checked (offsets index ``text``): what
    ``claimtrace stats -`` reports for the same text."""
    from claimtrace.stats import analyze
    from claimtrace.stats.model import DocumentStat

    _alpha(alpha)
    # analyze scopes "one-tailed" to each result's sentence (or a scope the text states), and gives an r
    # without df the N its sentence or the text states
    return [DocumentStat(**r.model_dump(), scope="text") for r in analyze(text, alpha=alpha)]


def retrieve(paper: PaperLike, query: str, *, k: int | None = None, retriever: Retriever | None = None,
             reranker: Reranker | None = None, units: Units | None = None, include_abstract: bool | None = None,
             task: Task | None = None, settings: Settings | None = None) -> list[Hit]:
    """The ``k`` units of a paper most relevant to a query, with ``claimtrace retrieve``'s defaults (or those of
    ``settings.retrieval``)."""
    p = paper if isinstance(paper, Paper) else Paper(_doc(paper))
    return p.retrieve(query, k=k, retriever=retriever, reranker=reranker, units=units,
                      include_abstract=include_abstract, task=task, settings=settings)


def extract_traces(paper: PaperLike, findings: Sequence[str] | None = None, *, llm: LLMClient | None = None,
                   config: str | None = None, settings: Settings | None = None) -> list[ClaimTrace]:
    """Claim traces (finding -> hypothesis -> statistical evidence); findings default to those detected in the
    abstract. Offline (the embedded extractor) unless an ``LLMClient`` is given; ``config`` defaults to
    ``settings.extract.config`` (``Settings.from_preset(name)``)."""
    from claimtrace.extract.pipeline import extract_traces as run

    if config is None and settings is not None:
        config = settings.extract.config

    extractor: Any = None
    if llm is not None:
        from claimtrace.extract.llm_extractor import LLMExtractor

        extractor = LLMExtractor(llm)
    return run(_doc(paper), list(findings) if findings else None, extractor=extractor, config=config)


def build_graph(paper_or_text: PaperLike, *, method: GraphMethod = "offline", llm: LLMClient | None = None,
                doc_id: str = "") -> EmpiricalGraph:
    """A paper's empirical relation graph from its abstract (or from a text given as ``str`` that is not a
    path): variables and typed relations. ``method``: offline, staged or direct (the last two need ``llm``)."""
    if isinstance(paper_or_text, Document | Path | Paper) or _is_file(paper_or_text):
        doc = _doc(paper_or_text)
        text = doc.abstract_text.strip() or doc.body_text.strip()
        doc_id = doc_id or Path(doc.source.path).stem
    else:
        text = paper_or_text
    if method not in GRAPH_METHODS:  # claimtrace graph --method's message
        raise ClaimtraceError(f"unknown method {method!r} (choose from {', '.join(GRAPH_METHODS)})")
    if method == "offline":
        from claimtrace.graph.offline import extract_offline

        return extract_offline(text, doc_id)
    if llm is None:
        raise ClaimtraceError(f"method {method!r} needs an LLM client (llm=...), or use method='offline'")
    from claimtrace.graph.pipeline import run_direct, run_staged

    if method == "staged":
        return run_staged(text, doc_id, client=llm)
    return run_direct(text, doc_id, client=llm)


def conclude_study(papers: Sequence[PaperLike], *, intervention: str, comparator: str, outcome: str,
                   method: Method = "offline", llm: LLMClient | None = None,
                   higher_is_better: bool | None = None, retriever: Retriever = "bm25") -> ConcludeResult:
    """What one study (one or more papers) found for an intervention vs a comparator on an outcome (``retriever``:
    which passages it reads, a spec of ``claimtrace.specs.RETRIEVERS`` as ``claimtrace conclude --retriever``)."""
    from claimtrace.conclude.pipeline import conclude as run
    from claimtrace.specs import RETRIEVERS

    spec = RETRIEVERS.parse(retriever)  # a bad spelling before any paper is read
    question = {"intervention": intervention, "comparator": comparator, "outcome": outcome}
    return run(question, [_doc(p) for p in papers], method=method, client=llm, higher_is_better=higher_is_better,
               retriever=spec)


def conclude(papers: Sequence[PaperLike], *, intervention: str, comparator: str, outcome: str,
             method: Method = "offline", llm: LLMClient | None = None,
             higher_is_better: bool | None = None) -> ConcludeResult:
    """Deprecated name of :func:`conclude_study` (``claimtrace.conclude`` is the subpackage)."""
    warnings.warn("claimtrace.api.conclude is deprecated; use claimtrace.conclude_study", DeprecationWarning,
                  stacklevel=2)
    return conclude_study(papers, intervention=intervention, comparator=comparator, outcome=outcome,
                          method=method, llm=llm, higher_is_better=higher_is_better)


def extract_numbers(paper: PaperLike, *, intervention: str, comparator: str, outcome: str,
                    llm: LLMClient | None = None) -> NumbersResult:
    """Per-arm numbers (events/group sizes or means/SDs), effect sizes and flags for one ICO in a paper:
    offline rules, or checked LLM numbers when an ``LLMClient`` is given (``claimtrace numbers``)."""
    doc = _doc(paper)
    if llm is not None:
        from claimtrace.numbers.llm import extract_numbers_llm

        return extract_numbers_llm(doc, intervention, comparator, outcome, client=llm)
    from claimtrace.numbers.extract import extract_numbers as run

    return run(doc, intervention, comparator, outcome)


def run_corpus(corpus: str | Path, out: str | Path, *, steps: Sequence[Step] | None = None,
               config: str | None = None, extractor: Extractor | None = None, graph_method: GraphMethod | None = None,
               conclude_method: Method | None = None, llm: LLMSettings | None = None, workers: int | None = None,
               engine: Engine = "local", batch_size: int = 32, settings: Settings | None = None) -> RunSummary:
    """Run steps over a corpus (a folder, a glob or a list file) into a results folder of Parquet tables,
    resuming what an earlier run left (``claimtrace run``). Options not given come from ``settings.corpus``
    (default: parse, stats, traces with the embedded extractor, offline graphs and conclusions), the LLM of
    an LLM step from ``settings.llm``."""
    from claimtrace.corpus.runner import check_engine, discover
    from claimtrace.corpus.runner import run_corpus as run
    from claimtrace.settings import section_with

    check_engine(engine)  # then the corpus section checks the rest, as for claimtrace run
    rs = section_with("corpus", settings.corpus if settings is not None else None,
                      steps=list(steps) if steps is not None else None, config=config, extractor=extractor,
                      graph_method=graph_method, conclude_method=conclude_method)
    if llm is None and settings is not None and settings.llm.configured():
        needs_llm = (("traces" in rs.steps and rs.extractor == "llm") or
                     ("graphs" in rs.steps and rs.graph_method != "offline") or
                     ("conclusions" in rs.steps and rs.conclude_method != "offline"))
        llm = settings.llm if needs_llm else None
    items = discover(str(corpus))
    if llm is not None:
        rs = rs.model_copy(update={"llm": llm.model_dump(mode="json"),
                                   "llm_model": llm.for_task("extraction").model or rs.llm_model})
    Path(out).mkdir(parents=True, exist_ok=True)
    return run(items, out, rs, workers=workers, engine=engine, batch_size=batch_size, corpus_name=str(corpus))


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
    from claimtrace.metrics import aggregate, scores_for

    rows = [scores_for([h.model_dump() for h in hs], list(g), (), ks) for hs, g in zip(hits, gold_units, strict=True)]
    return aggregate(rows)


def evaluate_graphs(preds: dict[str, EmpiricalGraph], golds: dict[str, EmpiricalGraph]) -> GraphEvaluation:
    """Predicted graphs against gold graphs with the same ids (structure-first alignment, micro/macro F1)."""
    from claimtrace.graph.scores import evaluate_graphs as run

    return run(preds, golds)
