"""Run the statistics engine over a Document: results located by scope, sentence and section."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from claimtrace.documents.model import AbstractSection, Document, Paragraph
from claimtrace.stats.check import check
from claimtrace.stats.model import DocumentStat, StatResult
from claimtrace.stats.parser import (
    one_tailed_in_sentence,
    parse,
    sentence_sample,
    stated_samples,
    states_one_tailed,
)

_NO_DF_TESTS = frozenset({"r", "rho", "tau"})


def analyze_document(doc: Document, *, alpha: float = 0.05,
                     scope: Literal["all", "body", "abstract"] = "all") -> list[DocumentStat]:
    """Parse and check every result of a Document; offsets index ``body_text`` or ``abstract_text``.

    A result counts as one-tailed where the text says so for it (``one_tailed_scopes``): its own sentence, a
    statement in its paragraph, or a statement earlier in its study (a methods or results paragraph)."""
    paper_ns = stated_samples(doc.body_text)  # the paper's stated N, for an r without df or N
    units: list[tuple[Literal["body", "abstract"], AbstractSection | Paragraph]] = []
    if scope in ("all", "abstract"):
        units.extend(("abstract", sec) for sec in doc.abstract)
    if scope in ("all", "body"):
        units.extend(("body", par) for par in doc.paragraphs)
    parsed = [(sc, unit, parse(unit.text)) for sc, unit in units]
    statements = _one_tailed_statements(parsed)
    out: list[DocumentStat] = []
    for sc, unit, results in parsed:
        for res in results:
            where = _one_tailed_scope_of(unit, res.start, res.end, statements)
            sent_n = sentence_sample(unit.text, res.start, res.end) if res.test in _NO_DF_TESTS else None
            checked = check(res, alpha=alpha, one_tailed_context=where is not None, sentence_n=sent_n,
                            paper_ns=paper_ns).shifted(unit.start)
            if where is not None and "consistent only as a one-tailed test" in checked.flags:
                checked.flags.append(f"one-tailed as stated in {where}")
            sent_id = None
            for sent in unit.sentences:
                if sent.start <= checked.start < sent.end:
                    sent_id = sent.id
                    break
            section = unit.label if isinstance(unit, AbstractSection) else unit.section
            out.append(DocumentStat(**checked.model_dump(), scope=sc, unit_id=sent_id or unit.id,
                                    paragraph_id=unit.id, section=section))
    return out


@dataclass(frozen=True, slots=True)
class _Statement:
    """A sentence stating that tests are one-tailed, with where it holds."""

    unit_id: str
    index: int  # the paragraph's index (abstract sections: -1, before every paragraph)
    study: str | None
    sentence_id: str
    rule: bool  # in a methods or results paragraph (or the abstract): it holds for the study


#: section kinds whose statements set a study's one-tailed scope (an introduction or discussion musing about a
#: one-sided test sets none)
_RULE_KINDS = frozenset({"methods", "results", "other"})


def _one_tailed_statements(parsed: Sequence[tuple[str, AbstractSection | Paragraph, list[StatResult]]]) -> list[_Statement]:
    """Sentences that state a one-tailed rule and report no result themselves (``states_one_tailed``)."""
    out: list[_Statement] = []
    for _sc, unit, results in parsed:
        if "tailed" not in unit.text and "sided" not in unit.text and "irectional" not in unit.text:
            continue  # quick (upper-case spellings are rare enough to ask the full test only here)
        for sent in unit.sentences:
            a, b = sent.start - unit.start, sent.end - unit.start
            if any(a <= r.start < b for r in results) or not states_one_tailed(sent.text):
                continue
            par = unit if isinstance(unit, Paragraph) else None
            out.append(_Statement(unit.id, par.index if par is not None else -1,
                                  par.study if par is not None else None, sent.id,
                                  par is None or par.section_kind in _RULE_KINDS))
    return out


def _one_tailed_scope_of(unit: AbstractSection | Paragraph, start: int, end: int,
                         statements: list[_Statement]) -> str | None:
    """Where the text says a result (at ``start:end`` of ``unit``) is one-tailed: "its sentence", "its paragraph
    (sentence id)", "its study (sentence id)", or None."""
    if one_tailed_in_sentence(unit.text, start, end):
        return "its sentence"
    if not statements:
        return None
    for st in statements:
        if st.unit_id == unit.id:
            return f"its paragraph ({st.sentence_id})"
    if not isinstance(unit, Paragraph):
        return None
    for st in statements:
        if st.index < unit.index and st.rule and st.study in (None, "general", unit.study):
            return f"its study ({st.sentence_id})"
    return None
