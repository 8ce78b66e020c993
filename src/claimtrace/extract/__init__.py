"""Claim tracing: finding -> core hypothesis (stage 1) -> statistical evidence (stage 2), with provenance.

Public API (see docs/extract.md): ``extract_traces``, ``trace_finding``, ``FindingInput``,
``EmbeddedExtractor``, ``LLMExtractor`` (imported lazily: it needs a configured LLM), ``detect_findings``,
``hypothesis_score``, ``locate_quote``, ``PRESETS`` / ``get_preset``, the ``ClaimTrace`` model and
``trace_json_schema``.
"""

from __future__ import annotations

from typing import Any

from claimtrace.extract.config import EMBEDDED_DEFAULT, LLM_DEFAULT, PRESETS, ContextConfig, get_preset
from claimtrace.extract.embedded import EmbeddedExtractor, StageOutput
from claimtrace.extract.findings import FindingCandidate, detect_findings
from claimtrace.extract.hypothesis_classifier import hypothesis_cues, hypothesis_score
from claimtrace.extract.locate import locate_quote
from claimtrace.extract.model import (
    SCHEMA_VERSION,
    ClaimTrace,
    Evidence,
    Finding,
    Flag,
    StatisticsSummary,
    TraceSpan,
    trace_json_schema,
)
from claimtrace.extract.pipeline import FindingInput, extract_traces, parse_findings, trace_finding

__all__ = [
    "EMBEDDED_DEFAULT",
    "LLM_DEFAULT",
    "PRESETS",
    "SCHEMA_VERSION",
    "ClaimTrace",
    "ContextConfig",
    "EmbeddedExtractor",
    "Evidence",
    "Finding",
    "FindingCandidate",
    "FindingInput",
    "Flag",
    "LLMExtractor",
    "StageOutput",
    "StatisticsSummary",
    "TraceSpan",
    "detect_findings",
    "extract_traces",
    "get_preset",
    "hypothesis_cues",
    "hypothesis_score",
    "locate_quote",
    "parse_findings",
    "trace_finding",
    "trace_json_schema",
]


def __getattr__(name: str) -> Any:
    if name == "LLMExtractor":
        from claimtrace.extract.llm_extractor import LLMExtractor

        return LLMExtractor
    raise AttributeError(name)
