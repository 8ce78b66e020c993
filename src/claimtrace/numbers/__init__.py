"""Numbers for meta-analysis: per-arm results for an ICO, effect sizes, derived values and pooling.

Public API: :func:`extract_numbers` (offline), :func:`claimtrace.numbers.llm.extract_numbers_llm`,
:func:`claimtrace.numbers.meta.pool` and the models in :mod:`claimtrace.numbers.model`.
"""

from claimtrace.numbers.extract import extract_numbers
from claimtrace.numbers.model import SCHEMA_VERSION, MetaResult, NumbersResult

__all__ = ["SCHEMA_VERSION", "MetaResult", "NumbersResult", "extract_numbers"]
