"""The LLM extractor: one prompt per stage (``prompts/extract_hypothesis.yaml``, ``extract_evidence.yaml``),
zero-shot or chain of thought, schema-constrained answers that quote the paper.

Each quote is located in the Document (exact, normalised, fuzzy; ``extract.locate``). A quote that
cannot be located is reported in a ``quote_not_found`` flag and the stage returns no span: an
unlocatable quote is never kept as if it were in the paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from claimtrace.documents.model import Document
from claimtrace.extract.config import ContextConfig
from claimtrace.extract.context import ContextSelector
from claimtrace.extract.embedded import StageOutput
from claimtrace.extract.locate import locate_quote, span_from_offsets
from claimtrace.extract.model import ClaimTrace, Flag

TASK = "extraction"
DEFAULT_MAX_CONTEXT_CHARS = 12000



#: failure kinds that say the LLM was not reached (the server, not the model's answer): a batch records the
#: paper as failed, so that ``--out`` resumes ask it again
UNREACHED = ("LLM connection", "LLM timeout")


def unreached_reason(traces: Sequence[ClaimTrace]) -> str | None:
    """The first ``llm_error`` flag of ``traces`` that says the LLM was not reached, else None."""
    for t in traces:
        for f in t.flags:
            if f.code == "llm_error" and (f.message or "").startswith(UNREACHED):
                return f.message
    return None


class QuoteAnswer(BaseModel):
    """A zero-shot answer: whether the paper states it, and the verbatim quote."""

    found: bool
    quote: str = Field(description="one or more consecutive sentences copied verbatim from the passages")


class QuoteAnswerCoT(BaseModel):
    """A chain-of-thought answer: reasoning first, then the verbatim quote."""

    reasoning: str
    found: bool
    quote: str = Field(description="one or more consecutive sentences copied verbatim from the passages")


def render_context(doc: Document, paragraph_ids: list[str] | None, max_chars: int) -> tuple[str, bool]:
    """The passages shown to the model: ``[p12] (Section) text`` per paragraph, cut at ``max_chars``."""
    pars = doc.paragraphs if paragraph_ids is None else [doc.unit(p) for p in paragraph_ids]
    out: list[str] = []
    used = 0
    truncated = False
    for p in pars:
        line = f"[{p.id}] ({getattr(p, 'section', None) or 'body'}) {p.text}"
        if used + len(line) > max_chars:
            truncated = True
            if not out:
                out.append(line[:max_chars])
            break
        out.append(line)
        used += len(line) + 2
    return "\n\n".join(out), truncated


class LLMExtractor:
    """Extractor that asks an LLM (the LLM layer's ``extraction`` task) for verbatim quotes."""

    name = "llm"

    def __init__(self, client: Any = None, *, selector: ContextSelector | None = None, max_evidence_sentences: int = 3,
                 max_context_chars: int = DEFAULT_MAX_CONTEXT_CHARS) -> None:
        if client is None:
            from claimtrace.llm import LLMClient

            client = LLMClient()  # raises LLMNotConfiguredError (one line) when no LLM is configured
        self.client = client
        self.selector = selector or ContextSelector()
        self.max_evidence_sentences = max(1, max_evidence_sentences)
        self.max_context_chars = max_context_chars

    def _model(self) -> str | None:
        try:
            return str(self.client.backend(TASK).model or "") or None
        except Exception:  # the model name is bookkeeping only
            return None

    def _ask(self, stage: str, prompt: str, variables: dict[str, Any], cot: bool, doc: Document,
             max_sentences: int | None) -> StageOutput:
        schema: type[BaseModel] = QuoteAnswerCoT if cot else QuoteAnswer
        res = self.client.structured(prompt, {**variables, "cot": cot}, schema, task=TASK)
        st = "hypothesis" if stage == "hypothesis" else "evidence"
        out = StageOutput(None, invocation_ids=list(res.invocation_ids), model=self._model())
        if not res.ok:
            out.flags.append(Flag(code="llm_error", stage=st, message=str(res.error)))
            return out
        ans = res.value
        quote = (ans.quote or "").strip()
        if not ans.found or not quote:
            out.flags.append(Flag(code="no_hypothesis" if st == "hypothesis" else "no_evidence", stage=st,
                                  message="the model found none in the context"))
            return out
        span = locate_quote(doc, quote)
        if span is None:
            out.flags.append(Flag(code="quote_not_found", stage=st, quote=quote,
                                  message="the model's quote is not in the paper (not even fuzzily); discarded"))
            return out
        if max_sentences and len(span.sentence_ids) > max_sentences and span.start is not None:
            first = [doc.unit(s) for s in span.sentence_ids[:max_sentences]]
            kept = span_from_offsets(doc, span.start, first[-1].end, method=span.located)
            out.flags.append(Flag(code="evidence_truncated", stage=st,
                                  message=f"the quote spans {len(span.sentence_ids)} sentences; kept the first {max_sentences}"))
            span = kept.model_copy(update={"match_score": span.match_score})
        out.span = span
        return out

    def _context(self, doc: Document, query: str, config: ContextConfig, gold: Sequence[str] | None,
                 stage: str) -> tuple[str, list[Flag], list[str] | None]:
        pids = self.selector.paragraphs(doc, query, config, gold, task="hypothesis" if stage == "hypothesis" else "evidence")
        text, truncated = render_context(doc, pids, self.max_context_chars)
        flags = []
        if truncated:
            flags.append(Flag(code="context_truncated", stage="hypothesis" if stage == "hypothesis" else "evidence",
                              message=f"the context was cut at {self.max_context_chars} characters"))
        return text, flags, pids

    def hypothesis(self, doc: Document, finding: str, config: ContextConfig,
                   gold: Sequence[str] | None = None) -> StageOutput:
        """Stage 1: ask for the core hypothesis, verbatim, and locate it."""
        ctx, flags, pids = self._context(doc, finding, config, gold, "hypothesis")
        out = self._ask("hypothesis", "extract_hypothesis", {"finding": finding, "context": ctx}, config.cot, doc, 2)
        out.flags = flags + out.flags
        out.context_paragraphs = pids
        return out

    def evidence(self, doc: Document, query: str, config: ContextConfig,
                 gold: Sequence[str] | None = None, max_sentences: int | None = None) -> StageOutput:
        """Stage 2: ask for the statistical evidence, verbatim, and locate it."""
        limit = max_sentences or self.max_evidence_sentences
        ctx, flags, pids = self._context(doc, query, config, gold, "evidence")
        finding, _, hyp = query.partition("\n")
        out = self._ask("evidence", "extract_evidence",
                        {"finding": finding, "hypothesis": hyp or "(none given)", "context": ctx, "max_sentences": limit},
                        config.cot, doc, limit)
        out.flags = flags + out.flags
        out.context_paragraphs = pids
        return out
