"""The output of extraction: one ``ClaimTrace`` per finding (finding -> hypothesis -> evidence).

Every span points back into the Document: ``start``/``end`` are character offsets into
``Document.body_text`` (``scope="body"``), with the sentence and paragraph ids and the PDF page.
A quote that could not be located in the paper is never presented as a span: its text is kept only
in a ``quote_not_found`` flag.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from claimtrace.documents.model import StrictModel
from claimtrace.schema_version import SCHEMA_VERSION
from claimtrace.types import Extractor

FindingSource = Literal["user", "detected", "manifest", "discussion"]
LocateMethod = Literal["exact", "normalised", "fuzzy", "extracted", "user"]
FlagCode = Literal[
    "quote_not_found",
    "no_hypothesis",
    "no_evidence",
    "no_statistics",
    "inconsistent_statistics",
    "evidence_truncated",
    "hypothesis_not_in_paper",
    "no_abstract",
    "no_body",
    "llm_error",
    "context_truncated",
]


class Finding(StrictModel):
    """The abstract finding a trace starts from."""

    text: str
    sentence_id: str | None = Field(None, description="abstract sentence id (a2.s3) when the finding is one")
    source: FindingSource = "detected"
    how_chosen: str = Field("", description="why this finding was chosen (detector score and cues, or 'given')")
    score: float | None = None


class TraceSpan(StrictModel):
    """One or more consecutive sentences of the paper, verbatim, with provenance."""

    text: str
    sentence_ids: list[str] = Field(default_factory=list)
    paragraph_ids: list[str] = Field(default_factory=list)
    scope: Literal["body", "abstract", "table"] = "body"
    start: int | None = Field(None, description="offset into Document.body_text (or abstract_text, or tables_text)")
    end: int | None = None
    page: int | None = None
    section: str | None = None
    section_kind: str | None = None
    score: float | None = None
    located: LocateMethod = "extracted"
    match_score: float | None = Field(None, description="fuzzy match score (0-100) when located fuzzily")
    table_id: str | None = Field(None, description="the table, when the span is a table row (scope 'table')")
    row_id: str | None = Field(None, description="the table row (t2.r5), when the span is one")
    cell_ids: list[str] = Field(default_factory=list, description="the cells the table row's text renders")
    study: str | None = Field(None, description="the study or experiment the span sits in ('1', '2a', 'general')")
    how_chosen: str = Field("", description="why this span was chosen (the features that decided, or 'given')")


class StatisticsSummary(StrictModel):
    """Counts over the statistics found in an evidence span."""

    results: int = 0
    checked: int = 0
    inconsistent: int = 0
    decision_errors: int = 0


class Evidence(TraceSpan):
    """The evidence span, with the statistical results the statistics engine parsed from it."""

    statistics: list[dict[str, Any]] = Field(default_factory=list)
    statistics_summary: StatisticsSummary = Field(default_factory=StatisticsSummary)


class Flag(StrictModel):
    """Something the user must know about a trace (an unlocatable quote, a missing stage...)."""

    code: FlagCode
    stage: Literal["findings", "hypothesis", "evidence"]
    message: str
    quote: str | None = None


class ClaimTrace(StrictModel):
    """Finding -> core hypothesis -> statistical evidence, for one finding of one paper."""

    schema_version: str = SCHEMA_VERSION
    doc_id: str
    doc_path: str | None = None
    finding: Finding
    hypothesis: TraceSpan | None = None
    evidence: Evidence | None = None
    configuration: str
    extractor: Extractor
    model: str | None = None
    invocation_ids: list[str] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    flags: list[Flag] = Field(default_factory=list)


def trace_json_schema() -> dict[str, Any]:
    """The JSON Schema of a ClaimTrace."""
    return ClaimTrace.model_json_schema()


def write_json_schema(path: str) -> None:
    """Write the ClaimTrace JSON Schema to a file."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(trace_json_schema(), fh, indent=2)
        fh.write("\n")
