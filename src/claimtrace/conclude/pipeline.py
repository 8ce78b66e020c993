"""``conclude()``: one question, the papers of one study, a method -> :class:`ConcludeResult`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimtrace.conclude.model import (
    INSUFFICIENT,
    LLM_METHODS,
    METHODS,
    ConcludeResult,
    Question,
    Quote,
    RetrievalInfo,
    conclusion_for,
)
from claimtrace.conclude.offline import decide
from claimtrace.conclude.papers import (
    DEFAULT_BETA,
    DEFAULT_N_MAX,
    Paper,
    load_papers,
    uniform_retrieve,
    units_per_paper,
)
from claimtrace.documents import Document, load_document
from claimtrace.errors import ClaimtraceError
from claimtrace.numbers.extract import extract_numbers
from claimtrace.plots import ForestRow
from claimtrace.retrieval.base import Retriever
from claimtrace.retrieval.pipeline import get_retriever as _get
from claimtrace.specs import Spec

if TYPE_CHECKING:
    from claimtrace.llm import LLMClient

logger = logging.getLogger(__name__)

OFFLINE_K = 20


def get_retriever(spec: str | Spec | Retriever = "bm25") -> Retriever:
    """A retriever from a spec of ``claimtrace.specs.RETRIEVERS`` (its spelling, e.g. ``bm25``, or the spec), or
    the retriever given."""
    return _get(spec) if isinstance(spec, str | Spec) else spec


def parse_polarity(value: str | bool | None) -> bool | None:
    """--higher-is-better yes|no (or a bool) -> True/False; None when not given."""
    if value is None or isinstance(value, bool):
        return value
    v = value.strip().lower()
    if v in ("yes", "y", "true", "1", "higher"):
        return True
    if v in ("no", "n", "false", "0", "lower"):
        return False
    if v in ("", "unknown", "auto"):
        return None
    raise ClaimtraceError(f"--higher-is-better must be yes or no, not {value!r}")


def _check_question(q: Question) -> None:
    for name in ("intervention", "comparator", "outcome"):
        if not getattr(q, name).strip():
            raise ClaimtraceError(f"the question's {name} is empty")


def conclude(
    question: Question | dict[str, str],
    papers: Sequence[str | Path | Document] | Sequence[Paper],
    *,
    method: str = "offline",
    higher_is_better: str | bool | None = None,
    client: LLMClient | None = None,
    retriever: str | Spec | Retriever = "bm25",
    k: int | None = None,
    beta: float = DEFAULT_BETA,
    n_max: int = DEFAULT_N_MAX,
    clustering: str = "auto",
    alpha: float = 0.05,
) -> ConcludeResult:
    """Answer a question for one study (one or more papers) with the given method."""
    q = question if isinstance(question, Question) else Question.model_validate(question)
    _check_question(q)
    if method not in METHODS:
        raise ClaimtraceError(f"unknown method {method!r} (expected one of {', '.join(METHODS)})")
    hib = parse_polarity(higher_is_better)
    ps = _as_papers(papers)
    if method in LLM_METHODS:
        if client is None:
            raise ClaimtraceError(f"method {method!r} needs an LLM (configure one, or use --method offline)")
        from claimtrace.conclude.llm_methods import run_llm_method

        return run_llm_method(method, q, ps, client, hib, retriever=get_retriever(retriever), k=k, beta=beta,
                              n_max=n_max, clustering=clustering)
    return conclude_offline(q, ps, hib, retriever=get_retriever(retriever), k=k or OFFLINE_K, beta=beta,
                            n_max=n_max, alpha=alpha)


def _as_papers(papers: Sequence[str | Path | Document] | Sequence[Paper]) -> list[Paper]:
    loaded = [p for p in papers if isinstance(p, Paper)]
    if loaded and len(loaded) == len(papers):
        return loaded
    return load_papers([p for p in papers if not isinstance(p, Paper)])


def conclude_offline(q: Question, papers: Sequence[Paper], higher_is_better: bool | None, *,
                     retriever: Retriever, k: int = OFFLINE_K, beta: float = DEFAULT_BETA,
                     n_max: int = DEFAULT_N_MAX, alpha: float = 0.05) -> ConcludeResult:
    """The statistics-based offline method (no LLM)."""
    query = f"{q.outcome} {q.outcome} {q.intervention} {q.comparator}"
    passages, ks = uniform_retrieve(papers, query, retriever, k, beta, n_max)
    d = decide(q, passages, papers, alpha=alpha)
    quotes = [_passage_quote(r.passage, papers) for r in d.support]
    warnings = []
    if d.label != INSUFFICIENT and d.label != "no significant difference" and higher_is_better is None:
        warnings.append("outcome polarity unknown (give --higher-is-better yes|no): conclusion 'unknown direction'")
    return ConcludeResult(
        method="offline", question=q, papers=[p.path for p in papers], label=d.label,
        conclusion=conclusion_for(d.label, higher_is_better), rationale=d.rationale, quotes=quotes,
        higher_is_better=higher_is_better, polarity_source="user" if higher_is_better is not None else "none",
        retrieval=RetrievalInfo(strategy="uniform", k=k, per_paper_quota=ks,
                                units_per_paper=units_per_paper(passages, len(papers))),
        estimates=d.estimates, warnings=warnings,
    )


def _passage_quote(passage: Any, papers: Sequence[Paper]) -> Quote:
    u = passage.unit
    return Quote(text=u.text, paper=papers[passage.paper].path, paper_index=passage.paper, located=True,
                 scope=u.scope, start=u.start, end=u.end, sentence_ids=[u.id], match="retrieved")


def announce_method(method: str | None, llm_ready: bool) -> str:
    """The method to use by default (urca with an LLM, else offline), said on stderr."""
    if method:
        return method
    chosen = "urca" if llm_ready else "offline"
    logger.info("conclude: method %s (%s)", chosen, "an LLM is configured" if llm_ready else "no LLM configured")
    return chosen


def add_numbers(res: ConcludeResult, papers: Sequence[str]) -> None:
    """``--with-numbers``: the per-arm numbers and effect sizes for the question (offline), from the first
    paper of the study that gives an effect (else the first paper's result, with its abstentions)."""

    q = res.question
    for path in papers:
        got = extract_numbers(load_document(path), q.intervention, q.comparator, q.outcome)
        if res.numbers is None or (got.effects and not res.numbers.effects):
            res.numbers = got
        if got.effects:
            break


def forest_rows(results: Sequence[tuple[str, ConcludeResult]]) -> list[ForestRow]:
    """One forest-plot row per result that has a parsed estimate with a CI (ratios or differences, the commoner);
    with ``--with-numbers`` also a row for the effect computed from the extracted numbers (OR or SMD)."""
    rows = [ForestRow(label=name, value=r.estimates[0].value, ci_low=r.estimates[0].ci_low,
                      ci_high=r.estimates[0].ci_high, ratio=r.estimates[0].ratio)
            for name, r in results if r.estimates]
    for name, r in results:
        eff = next((e for e in (r.numbers.effects if r.numbers else []) if e.measure in ("OR", "SMD")), None)
        if eff is not None:
            rows.append(ForestRow(label=f"{name} (extracted numbers, {eff.measure})", value=eff.value,
                                  ci_low=eff.ci_low, ci_high=eff.ci_high, ratio=eff.log_scale))
    n_ratio = sum(r.ratio for r in rows)
    keep_ratio = n_ratio * 2 >= len(rows) and n_ratio > 0
    return [r for r in rows if r.ratio == keep_ratio]
