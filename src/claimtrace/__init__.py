"""claimtrace: extract claim traces (finding -> hypothesis -> statistical evidence) from scientific papers.

The public API (see the README's "Python API"): ``load_document``, ``Paper``, ``analyze_statistics``,
``analyze_text``, ``extract_numbers``, ``retrieve``, ``extract_traces``, ``build_graph``, ``conclude_study``,
``run_corpus`` and ``evaluate_*``. ``import claimtrace`` is cheap: each name loads its module on first use
(PEP 562), so a script that only parses statistics never imports the retrieval or LLM layers.

``claimtrace.conclude`` is the subpackage (study-level conclusions); the API function is ``conclude_study``
(``claimtrace.api.conclude`` still works, with a ``DeprecationWarning``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from claimtrace.errors import ClaimtraceError, InputError

#: public name -> the module that defines it
_LAZY = {
    **dict.fromkeys(
        ["Paper", "analyze_statistics", "analyze_text", "build_graph", "conclude_study", "evaluate_evidence",
         "evaluate_graphs", "evaluate_hypotheses", "evaluate_retrieval", "extract_numbers", "extract_traces",
         "retrieve", "run_corpus"], "claimtrace.api"),
    **dict.fromkeys(["Document", "Paragraph", "ReaderSettings", "Sentence", "Span", "load_document", "read_bytes",
                     "use_reader_settings"], "claimtrace.documents"),
    "Settings": "claimtrace.settings",
    "__version__": "claimtrace.version",
}

__all__ = [
    "ClaimtraceError",
    "Document",
    "InputError",
    "Paper",
    "Paragraph",
    "ReaderSettings",
    "Sentence",
    "Settings",
    "Span",
    "__version__",
    "analyze_statistics",
    "analyze_text",
    "build_graph",
    "conclude_study",
    "evaluate_evidence",
    "evaluate_graphs",
    "evaluate_hypotheses",
    "evaluate_retrieval",
    "extract_numbers",
    "extract_traces",
    "load_document",
    "read_bytes",
    "retrieve",
    "run_corpus",
    "use_reader_settings",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'claimtrace' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy public ones included."""
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from claimtrace.api import (
        Paper,
        analyze_statistics,
        analyze_text,
        build_graph,
        conclude_study,
        evaluate_evidence,
        evaluate_graphs,
        evaluate_hypotheses,
        evaluate_retrieval,
        extract_numbers,
        extract_traces,
        retrieve,
        run_corpus,
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
    from claimtrace.settings import Settings
    from claimtrace.version import __version__
