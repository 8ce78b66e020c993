"""Documents: read PDF / JATS / TEI / HTML / text into one Document model of paragraphs and sentences."""

from claimtrace.documents.builder import DocumentBuilder, clean_text, content_hash
from claimtrace.documents.model import (
    SCHEMA_VERSION,
    AbstractSection,
    BBox,
    Document,
    ExcludedBlock,
    Paragraph,
    Sentence,
    Source,
    Span,
)
from claimtrace.documents.readers import (
    Reader,
    ReaderSettings,
    load_document,
    read_bytes,
    sniff_format,
    use_reader_settings,
)
from claimtrace.documents.sections import section_kind
from claimtrace.documents.sentences import split_sentences

__all__ = [
    "SCHEMA_VERSION",
    "AbstractSection",
    "BBox",
    "Document",
    "DocumentBuilder",
    "ExcludedBlock",
    "Paragraph",
    "Reader",
    "ReaderSettings",
    "Sentence",
    "Source",
    "Span",
    "clean_text",
    "content_hash",
    "load_document",
    "read_bytes",
    "section_kind",
    "sniff_format",
    "split_sentences",
    "use_reader_settings",
]
