"""claimtrace: extract claim traces (finding -> hypothesis -> statistical evidence) from scientific papers."""

from claimtrace.documents import Document, Paragraph, Sentence, Span, load_document, read_bytes
from claimtrace.errors import ClaimtraceError, InputError

__version__ = "0.1.0"

__all__ = [
    "ClaimtraceError",
    "Document",
    "InputError",
    "Paragraph",
    "Sentence",
    "Span",
    "__version__",
    "load_document",
    "read_bytes",
]
