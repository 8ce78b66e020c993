"""Run the statistics engine over a Document: results located by scope, sentence and section."""

from __future__ import annotations

from typing import Literal

from claimtrace.documents.model import AbstractSection, Document, Paragraph
from claimtrace.stats.check import check
from claimtrace.stats.model import DocumentStat
from claimtrace.stats.parser import one_tailed_in_sentence, one_tailed_scope, parse


def analyze_document(doc: Document, *, alpha: float = 0.05,
                     scope: Literal["all", "body", "abstract"] = "all") -> list[DocumentStat]:
    """Parse and check every result of a Document; offsets index ``body_text`` or ``abstract_text``."""
    # one-tailed scope: a statement for the whole paper, else the result's own sentence
    one_tailed = one_tailed_scope(doc.abstract_text) or one_tailed_scope(doc.body_text)
    units: list[tuple[Literal["body", "abstract"], AbstractSection | Paragraph]] = []
    if scope in ("all", "abstract"):
        units.extend(("abstract", sec) for sec in doc.abstract)
    if scope in ("all", "body"):
        units.extend(("body", par) for par in doc.paragraphs)
    out: list[DocumentStat] = []
    for sc, unit in units:
        for res in parse(unit.text):
            ctx = one_tailed or one_tailed_in_sentence(unit.text, res.start, res.end)
            checked = check(res, alpha=alpha, one_tailed_context=ctx).shifted(unit.start)
            sent_id = None
            for sent in unit.sentences:
                if sent.start <= checked.start < sent.end:
                    sent_id = sent.id
                    break
            section = unit.label if isinstance(unit, AbstractSection) else unit.section
            out.append(DocumentStat(**checked.model_dump(), scope=sc, unit_id=sent_id or unit.id,
                                    paragraph_id=unit.id, section=section))
    return out
