"""The statistics engine: find, parse and check every statistical result in a text or Document.

Public API (see docs/statistics.md):

- ``parse(text) -> list[StatResult]``: every reported result with offsets of the result and of each
  component into ``text`` as given (PDF damage is repaired internally).
- ``check(result, alpha=.05, one_tailed_context=False) -> StatResult``: recomputed p, consistency,
  decision error, CI checks, ``significant``.
- ``analyze(text, alpha=.05) -> list[StatResult]``: ``parse`` then ``check``.
- ``analyze_document(doc, alpha=.05, scope="all") -> list[DocumentStat]``: the same over a Document's
  abstract and body, each result with ``scope``, ``unit_id`` (sentence id) and offsets into
  ``abstract_text`` / ``body_text``.
"""

from claimtrace.stats.check import analyze, check, compute_p
from claimtrace.stats.document import analyze_document
from claimtrace.stats.model import (
    SCHEMA_VERSION,
    TESTS,
    ComponentSpan,
    Descriptive,
    DocumentStat,
    EffectSize,
    StatResult,
)
from claimtrace.stats.normalize import normalize
from claimtrace.stats.parser import mentions_one_tailed, one_tailed_scope, parse

__all__ = [
    "SCHEMA_VERSION",
    "TESTS",
    "ComponentSpan",
    "Descriptive",
    "DocumentStat",
    "EffectSize",
    "StatResult",
    "analyze",
    "analyze_document",
    "check",
    "compute_p",
    "mentions_one_tailed",
    "normalize",
    "one_tailed_scope",
    "parse",
]
