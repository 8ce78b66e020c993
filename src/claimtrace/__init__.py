"""claimtrace: extract claim traces (finding -> hypothesis -> statistical evidence) from scientific papers.

The public API (see the README's "Python API"): ``load_document``, ``analyze_statistics``, ``analyze_text``,
``retrieve``, ``extract_traces``, ``build_graph``, ``conclude`` and ``evaluate_*``.
"""

import sys
import types

from claimtrace.api import (
    analyze_statistics,
    analyze_text,
    build_graph,
    conclude,
    evaluate_evidence,
    evaluate_graphs,
    evaluate_hypotheses,
    evaluate_retrieval,
    extract_traces,
    retrieve,
)
from claimtrace.documents import (
    Document,
    Paragraph,
    ReaderSettings,
    Sentence,
    Span,
    load_document,
    read_bytes,
    use_reader_settings,
)
from claimtrace.errors import ClaimtraceError, InputError

__version__ = "0.1.0"

__all__ = [
    "ClaimtraceError",
    "Document",
    "InputError",
    "Paragraph",
    "ReaderSettings",
    "Sentence",
    "Span",
    "__version__",
    "analyze_statistics",
    "analyze_text",
    "build_graph",
    "conclude",
    "evaluate_evidence",
    "evaluate_graphs",
    "evaluate_hypotheses",
    "evaluate_retrieval",
    "extract_traces",
    "load_document",
    "read_bytes",
    "retrieve",
    "use_reader_settings",
]


class _Package(types.ModuleType):
    """``claimtrace.conclude`` stays the API function after the ``claimtrace.conclude`` subpackage is imported
    (the import system would otherwise rebind the name to the subpackage; it still lives in sys.modules)."""

    @property
    def conclude(self) -> object:
        """The public ``conclude`` function."""
        from claimtrace.api import conclude as fn

        return fn

    @conclude.setter
    def conclude(self, value: object) -> None:
        """Ignore the import system's binding of the subpackage (it stays in ``sys.modules``)."""


del conclude
sys.modules[__name__].__class__ = _Package
