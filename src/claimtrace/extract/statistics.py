"""Statistics in candidate sentences and evidence spans: a fast cue score, and the statistics engine's records.

``stat_strength`` is a quick regex score used to shortlist evidence candidates; ``span_statistics``
runs the statistics engine (``claimtrace.stats``) on a chosen span and returns its records, with
offsets into ``body_text``, and their consistency checks.
"""

from __future__ import annotations

import re
from typing import Any

from claimtrace.documents.model import Document
from claimtrace.extract.model import StatisticsSummary

_P = re.compile(r"\b[pP]\s*(?:-?value)?\s*[<=>≤≥]\s*[0-9.]|\b[pP]\s*[<=>≤≥]\s*\.\d|\bP\s*=\s*0\.|\bn\.?s\.?\b|NS\b")
_CI = re.compile(r"\b(9[059]\s*%\s*(CI|C\.I\.|confidence interval)|CI\s*[:=]?\s*[\[(]?-?\d)", re.I)
_TEST = re.compile(r"(\b[tFzZrQUWH]\s*\(\s*\d[\d.,\s]*\)\s*[=<>]|\b(χ2|χ²|chi2|chi-square|chi2)\s*\(?\d*|"
                   r"\b(OR|RR|HR|aOR|aHR|IRR|RD|MD|SMD|β|beta)\s*[=:,]?\s*-?\d|\b[rRdg]\s*=\s*-?0?\.\d)")
_DESC = re.compile(r"(\d\s*(±|\+/-|\+-)\s*\d|\d+(\.\d+)?\s*%|\(\s*\d+(\.\d+)?\s*%?\s*(vs\.?|versus)\s)")
_TEXTUAL = re.compile(r"\b(significant(ly)?|did not differ|no differences?|not differ|comparable|similar between|"
                      r"statistically|was associated|were associated|increased|decreased|reduced|higher|lower)\b", re.I)


def stat_strength(text: str) -> float:
    """0..1: how much a sentence looks like it reports a statistical result (p, CI, test > numbers > words)."""
    s = 0.0
    if _P.search(text):
        s += 0.5
    if _CI.search(text):
        s += 0.3
    if _TEST.search(text):
        s += 0.3
    if _DESC.search(text):
        s += 0.25
    if _TEXTUAL.search(text):
        s += 0.15
    return min(s, 1.0)


def _engine() -> Any:
    """The statistics engine module, or None where it is not installed in this build."""
    try:
        import claimtrace.stats as stats
    except ImportError:  # pragma: no cover - the engine ships with the package
        return None
    return stats if hasattr(stats, "parse") else None


def engine_available() -> bool:
    """Whether the statistics engine can parse text here."""
    return _engine() is not None


def span_statistics(doc: Document, start: int, end: int) -> tuple[list[dict[str, Any]], StatisticsSummary]:
    """The statistics engine's records for ``body_text[start:end]`` (offsets into body_text), checked."""
    stats = _engine()
    if stats is None:
        return [], StatisticsSummary()
    text = doc.body_text[start:end]
    results = stats.parse(text)
    check = getattr(stats, "check", None)
    records: list[dict[str, Any]] = []
    summary = StatisticsSummary()
    for r in results:
        if check is not None:
            checked = check(r)
            r = checked if checked is not None else r
        r = r.shifted(start) if hasattr(r, "shifted") else r
        rec = r.model_dump(mode="json") if hasattr(r, "model_dump") else dict(r)
        rec["scope"] = "body"
        records.append(rec)
        summary.results += 1
        if rec.get("consistent") is not None:
            summary.checked += 1
            if rec.get("consistent") is False:
                summary.inconsistent += 1
        if rec.get("decision_error"):
            summary.decision_errors += 1
    return records, summary


def count_statistics(text: str) -> int:
    """How many statistical results the engine parses in a text (0 where the engine is absent)."""
    stats = _engine()
    if stats is None:
        return 0
    return len(stats.parse(text))
