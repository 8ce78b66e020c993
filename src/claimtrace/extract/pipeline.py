"""The two-stage pipeline: finding -> (stage 1) hypothesis -> (stage 2, composite query) evidence.

``extract_traces`` takes a Document and findings (detected from the abstract when none are given);
a hypothesis given with a finding skips stage 1. The evidence span's statistics are parsed and
checked by the statistics engine; when a prose span holds no checkable result and cites a table ("Table 2")
whose row holds one of its numbers, that row's checked results are added to the evidence's statistics
(marked ``linked_from: "prose"``, with their table, row and cell ids); the span stays the prose.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

from claimtrace.documents.model import Document, StrictModel
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.extract.config import EMBEDDED_DEFAULT, LLM_DEFAULT, ContextConfig, get_preset
from claimtrace.extract.embedded import EmbeddedExtractor, StageOutput
from claimtrace.extract.findings import detect_findings
from claimtrace.extract.locate import locate_quote, normalise
from claimtrace.extract.model import ClaimTrace, Evidence, Finding, Flag, TraceSpan
from claimtrace.extract.statistics import (
    is_checked,
    linked_row_records,
    row_statistics_records,
    span_statistics,
)

DEFAULT_MAX_EVIDENCE_SENTENCES = 3


class FindingInput(StrictModel):
    """A finding to trace, optionally with its hypothesis (skips stage 1) and gold context (oracle)."""

    text: str
    hypothesis: str | None = None
    #: gold paragraphs of the evidence (the oracle context of stage 2; of stage 1 too unless the next is set)
    gold_paragraph_ids: list[str] | None = None
    #: gold paragraphs of the hypothesis (the oracle context of stage 1)
    hypothesis_gold_paragraph_ids: list[str] | None = None


class Extractor(Protocol):
    """Both stages of an extractor (embedded or LLM)."""

    name: str

    def hypothesis(self, doc: Document, finding: str, config: ContextConfig,
                   gold: Sequence[str] | None = None) -> StageOutput:
        """Stage 1."""
        ...

    def evidence(self, doc: Document, query: str, config: ContextConfig,
                 gold: Sequence[str] | None = None, max_sentences: int | None = None) -> StageOutput:
        """Stage 2."""
        ...


def parse_findings(raw: Any, where: str = "findings") -> list[FindingInput]:
    """Findings from a manifest value: a list of strings or of {"text", "hypothesis"?} objects."""
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise InputError(None, f"{where}: expected a list of strings or of {{'text', 'hypothesis'}} objects")
    out: list[FindingInput] = []
    for i, f in enumerate(raw):
        if isinstance(f, str):
            f = {"text": f}
        if not isinstance(f, dict) or not isinstance(f.get("text"), str) or not f["text"].strip():
            raise InputError(None, f"{where}[{i}]: each finding needs a non-empty 'text'")
        try:
            out.append(FindingInput.model_validate(f))
        except ValueError as exc:
            raise InputError(None, f"{where}[{i}]: {str(exc).splitlines()[0]}") from None
    return out


def _abstract_sentence_id(doc: Document, text: str) -> str | None:
    t = normalise(text)
    for s in doc.sentences("abstract"):
        if normalise(s.text) == t:
            return s.id
    return None


def _given_hypothesis(doc: Document, text: str) -> tuple[TraceSpan, list[Flag]]:
    span = locate_quote(doc, text)
    if span is not None:
        return span, []
    return (TraceSpan(text=text, located="user"),
            [Flag(code="hypothesis_not_in_paper", stage="hypothesis",
                  message="the given hypothesis was not found verbatim in the body; used as given")])


def _rerank_invocations(extractor: Extractor) -> list[str]:
    """LLM invocation ids of the reranking (RankGPT) that chose the context of the stage just run (taken once)."""
    selector = getattr(extractor, "selector", None)
    ids = list(getattr(selector, "last_invocation_ids", None) or [])
    if ids:
        selector.last_invocation_ids = []  # type: ignore[union-attr]
    return ids


def _keep(out: StageOutput, extractor: Extractor, flags: list[Flag], inv: list[str], models: list[str]) -> None:
    """Add what one stage gave to the trace's lists: its flags, the LLM invocations of its reranking and its own,
    its model."""
    flags.extend(out.flags)
    inv.extend(_rerank_invocations(extractor))
    inv.extend(out.invocation_ids)
    if out.model:
        models.append(out.model)


def trace_finding(doc: Document, finding: Finding, extractor: Extractor, config: ContextConfig, *,
                  hypothesis: str | None = None, gold: Sequence[str] | None = None,
                  hypothesis_gold: Sequence[str] | None = None,
                  max_evidence_sentences: int = DEFAULT_MAX_EVIDENCE_SENTENCES) -> ClaimTrace:
    """One ClaimTrace: stage 1 (unless a hypothesis is given), then stage 2 with the composite query
    (``gold``/``hypothesis_gold``: the oracle paragraphs of the evidence / of the hypothesis)."""
    timings: dict[str, float] = {}
    flags: list[Flag] = []
    inv: list[str] = []
    models: list[str] = []
    t0 = time.perf_counter()
    hyp: TraceSpan | None
    if not doc.paragraphs:  # an abstract-only article: nothing to trace into, said so in a flag
        return ClaimTrace(doc_id=doc.id, doc_path=doc.source.path, finding=finding,
                          hypothesis=TraceSpan(text=hypothesis.strip(), located="user") if hypothesis else None,
                          configuration=config.name, extractor="llm" if extractor.name == "llm" else "embedded",
                          flags=[Flag(code="no_body", stage="evidence",
                                      message="the document has no body text (abstract only): no hypothesis or evidence to trace")])
    if hypothesis and hypothesis.strip():
        hyp, fl = _given_hypothesis(doc, hypothesis.strip())
        flags.extend(fl)
    else:
        out1 = extractor.hypothesis(doc, finding.text, config, hypothesis_gold or gold)
        hyp = out1.span
        _keep(out1, extractor, flags, inv, models)
    t1 = time.perf_counter()
    timings["hypothesis_s"] = round(t1 - t0, 4)
    query = finding.text if hyp is None else f"{finding.text}\n{hyp.text}"  # the composite query
    out2 = extractor.evidence(doc, query, config, gold, max_evidence_sentences)
    _keep(out2, extractor, flags, inv, models)
    t2 = time.perf_counter()
    timings["evidence_s"] = round(t2 - t1, 4)
    evidence: Evidence | None = None
    if out2.span is not None:
        sp = out2.span
        records: list[dict[str, Any]] = []
        summary = None
        if sp.start is not None and sp.end is not None and sp.scope == "body":
            records, summary = span_statistics(doc, sp.start, sp.end)
            if not any(is_checked(r) for r in records):  # the test may sit in the table the prose cites
                par = " ".join(p.text for p in doc.paragraphs if p.id in sp.paragraph_ids)
                row_id, linked = linked_row_records(doc, sp.text, par)
                if row_id is not None:
                    records = [*records, *linked]
                    summary.results += len(linked)
                    summary.checked += sum(is_checked(r) for r in linked)
                    summary.inconsistent += sum(r.get("consistent") is False for r in linked)
        elif sp.scope == "table" and sp.row_id:
            records, summary = row_statistics_records(doc, sp.row_id)
        evidence = Evidence(**sp.model_dump(), statistics=records, **({"statistics_summary": summary} if summary else {}))
        if summary is not None and summary.inconsistent:
            flags.append(Flag(code="inconsistent_statistics", stage="evidence",
                              message=f"{summary.inconsistent} of {summary.checked} checked results are inconsistent"))
        if not records and not any(f.code == "no_statistics" for f in flags):
            flags.append(Flag(code="no_statistics", stage="evidence",
                              message="the statistics engine parsed no result in the evidence span"))
    elif not any(f.stage == "evidence" and f.code != "context_truncated" for f in flags):
        flags.append(Flag(code="no_evidence", stage="evidence", message="no evidence span was extracted"))
    timings["statistics_s"] = round(time.perf_counter() - t2, 4)
    return ClaimTrace(doc_id=doc.id, doc_path=doc.source.path, finding=finding, hypothesis=hyp, evidence=evidence,
                      configuration=config.name, extractor="llm" if extractor.name == "llm" else "embedded",
                      model=models[0] if models else None, invocation_ids=inv, timings=timings, flags=flags)


def extract_traces(doc: Document, findings: Sequence[FindingInput | str] | None = None, *,
                   extractor: Extractor | None = None, config: str | ContextConfig | None = None,
                   max_evidence_sentences: int = DEFAULT_MAX_EVIDENCE_SENTENCES,
                   max_findings: int = 5) -> list[ClaimTrace]:
    """ClaimTraces for the given findings (or the findings detected in the abstract)."""
    ex: Extractor = extractor or EmbeddedExtractor(max_evidence_sentences=max_evidence_sentences)
    if config is None:
        config = LLM_DEFAULT if ex.name == "llm" else EMBEDDED_DEFAULT
    cfg = get_preset(config) if isinstance(config, str) else config
    items = [FindingInput(text=f) if isinstance(f, str) else f for f in (findings or [])]
    traces: list[ClaimTrace] = []
    if items:
        for it in items:
            if not it.text.strip():
                raise ClaimtraceError("empty finding text")
            fnd = Finding(text=it.text.strip(), sentence_id=_abstract_sentence_id(doc, it.text), source="user",
                          how_chosen="given by the user")
            traces.append(trace_finding(doc, fnd, ex, cfg, hypothesis=it.hypothesis, gold=it.gold_paragraph_ids,
                                        hypothesis_gold=it.hypothesis_gold_paragraph_ids,
                                        max_evidence_sentences=max_evidence_sentences))
        return traces
    t0 = time.perf_counter()
    detected = [c for c in detect_findings(doc, max_findings=max_findings) if c.chosen]
    dt = round(time.perf_counter() - t0, 4)
    for c in detected:
        fnd = Finding(text=c.text, sentence_id=c.sentence_id, source="discussion" if c.source == "discussion" else "detected",
                      how_chosen=c.reason, score=c.score)
        tr = trace_finding(doc, fnd, ex, cfg, max_evidence_sentences=max_evidence_sentences)
        tr.timings["findings_s"] = dt
        traces.append(tr)
    return traces
