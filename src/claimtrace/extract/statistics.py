"""Statistics in candidate sentences and evidence spans: a fast cue score, and the statistics engine's records.

``stat_strength`` is a quick regex score used to shortlist evidence candidates; ``span_statistics``
runs the statistics engine (``claimtrace.stats``) on a chosen span and returns its records, with
offsets into ``body_text``, and their consistency checks.
"""

from __future__ import annotations

import re
from typing import Any

from claimtrace.cues import P_MENTION, RESULT_WORDS
from claimtrace.documents.model import Document
from claimtrace.extract.model import StatisticsSummary

_CI = re.compile(r"\b(9[059]\s*%\s*(CI|C\.I\.|confidence interval)|CI\s*[:=]?\s*[\[(]?-?\d)", re.I)
_TEST = re.compile(r"(\b[tFzZrQUWH]\s*\(\s*\d[\d.,\s]*\)\s*[=<>]|\b(χ2|χ²|chi2|chi-square|chi2)\s*\(?\d*|"
                   r"\b(OR|RR|HR|aOR|aHR|IRR|RD|MD|SMD|β|beta)\s*[=:,]?\s*-?\d|\b[rRdg]\s*=\s*-?0?\.\d)")
_DESC = re.compile(r"(\d\s*(±|\+/-|\+-)\s*\d|\d+(\.\d+)?\s*%|\(\s*\d+(\.\d+)?\s*%?\s*(vs\.?|versus)\s)")


def stat_strength(text: str) -> float:
    """0..1: how much a sentence looks like it reports a statistical result (p, CI, test > numbers > words)."""
    s = 0.0
    if P_MENTION.search(text):
        s += 0.5
    if _CI.search(text):
        s += 0.3
    if _TEST.search(text):
        s += 0.3
    if _DESC.search(text):
        s += 0.25
    if RESULT_WORDS.search(text):
        s += 0.15
    return min(s, 1.0)


def span_statistics(doc: Document, start: int, end: int, *, alpha: float = 0.05) -> tuple[list[dict[str, Any]], StatisticsSummary]:
    """The statistics engine's checked records for ``body_text[start:end]``, offsets into ``body_text``."""
    from claimtrace.stats import DocumentStat, analyze

    text = doc.body_text[start:end]
    records: list[dict[str, Any]] = []
    summary = StatisticsSummary()
    for r in analyze(text, alpha=alpha):
        shifted = r.shifted(start)
        sent = doc.locate_offset(shifted.start, "body")
        par = doc.paragraph_of(sent.id) if sent else None
        ds = DocumentStat(**shifted.model_dump(), scope="body", unit_id=sent.id if sent else None,
                          paragraph_id=par.id if par else None, section=getattr(par, "section", None))
        rec = ds.record()
        records.append(rec)
        summary.results += 1
        if ds.consistent is not None:
            summary.checked += 1
            if ds.consistent is False:
                summary.inconsistent += 1
        if ds.decision_error:
            summary.decision_errors += 1
    return records, summary


def count_statistics(text: str) -> int:
    """How many statistical results the engine parses in a text."""
    from claimtrace.stats import parse

    return len(parse(text))


def is_checked(record: dict[str, Any]) -> bool:
    """Whether a statistics record was checked: a recomputed p or any consistency verdict."""
    if record.get("computed_p") is not None:
        return True
    return any(v is not None for k, v in record.items() if k.endswith("consistent"))


def sentence_statistics(doc: Document, *, alpha: float = 0.05) -> dict[str, int]:
    """Body sentence id -> 2 when the engine checks a result starting in it, 1 when it only parses one."""
    from claimtrace.stats import analyze_document

    out: dict[str, int] = {}
    for ds in analyze_document(doc, alpha=alpha, scope="body"):
        if ds.unit_id is None:
            continue
        level = 2 if is_checked(ds.record()) else 1
        out[ds.unit_id] = max(out.get(ds.unit_id, 0), level)
    return out


def row_statistics_records(doc: Document, row_id: str, *, alpha: float = 0.05) -> tuple[list[dict[str, Any]], StatisticsSummary]:
    """Records for a table-row evidence span: the table results of the row (``source: "table"``, cells named)
    and the statistics engine's results in each of its cells (a test written in a cell, e.g. "t(46) = 0.46")."""
    from claimtrace.stats import analyze
    from claimtrace.stats.tables import row_statistics

    records: list[dict[str, Any]] = []
    summary = StatisticsSummary()
    for ts in row_statistics(doc, row_id):
        if ts.kind != "coefficient":
            continue
        records.append(ts.model_dump(mode="json"))
        summary.results += 1
        if ts.consistent is not None:
            summary.checked += 1
            summary.inconsistent += ts.consistent is False
    table = next((t for t in doc.tables if t.id == row_id.split(".")[0]), None)
    row = next((r for r in table.rows if r.id == row_id), None) if table is not None else None
    cells = {c.id: c for c in table.cells} if table is not None else {}
    for cid in row.cell_ids if row is not None else []:
        cell = cells[cid]
        for r in analyze(cell.text, alpha=alpha):
            rec = r.shifted(cell.start).model_dump(mode="json")
            rec.update({"source": "table", "scope": "table", "table_id": table.id if table else None,
                        "row_id": row_id, "cell_ids": [cid]})
            records.append(rec)
            summary.results += 1
            if r.consistent is not None:
                summary.checked += 1
                summary.inconsistent += r.consistent is False
            summary.decision_errors += bool(r.decision_error)
    return records, summary
