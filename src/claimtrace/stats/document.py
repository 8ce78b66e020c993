"""Run the statistics engine over a Document: results located by scope, sentence and section."""

from __future__ import annotations

from typing import Literal

from claimtrace.documents.model import AbstractSection, Document, Paragraph
from claimtrace.stats.check import check
from claimtrace.stats.model import DocumentStat
from claimtrace.stats.parser import mentions_one_tailed, parse


def analyze_document(doc: Document, *, alpha: float = 0.05,
                     scope: Literal["all", "body", "abstract"] = "all") -> list[DocumentStat]:
    """Parse and check every result of a Document; offsets index ``body_text`` or ``abstract_text``."""
    one_tailed = mentions_one_tailed(doc.abstract_text) or mentions_one_tailed(doc.body_text)
    units: list[tuple[Literal["body", "abstract"], AbstractSection | Paragraph]] = []
    if scope in ("all", "abstract"):
        units.extend(("abstract", sec) for sec in doc.abstract)
    if scope in ("all", "body"):
        units.extend(("body", par) for par in doc.paragraphs)
    out: list[DocumentStat] = []
    for sc, unit in units:
        for res in parse(unit.text):
            checked = check(res, alpha=alpha, one_tailed_context=one_tailed).shifted(unit.start)
            sent_id = None
            for sent in unit.sentences:
                if sent.start <= checked.start < sent.end:
                    sent_id = sent.id
                    break
            section = unit.label if isinstance(unit, AbstractSection) else unit.section
            out.append(DocumentStat(**checked.model_dump(), scope=sc, unit_id=sent_id or unit.id,
                                    paragraph_id=unit.id, section=section))
    return out
