"""Readers turn source bytes into a Document. One Protocol; the format is chosen by content sniffing."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Protocol

from claimtrace.documents.builder import content_hash
from claimtrace.documents.model import Document, SourceFormat
from claimtrace.documents.readers.options import ReaderSettings, current_settings, use_reader_settings
from claimtrace.errors import InputError

__all__ = ["DEFAULT_MAX_BYTES", "Reader", "ReaderSettings", "get_reader", "load_document", "read_bytes", "sniff_format",
           "use_reader_settings"]

DEFAULT_MAX_BYTES = 100 * 1024 * 1024


class Reader(Protocol):
    """Reads one format. ``read`` raises InputError for unusable input, never returns an empty Document."""

    format: SourceFormat

    def read(self, data: bytes, path: str) -> Document:
        """Parse the source bytes into a Document."""
        ...


_READER_MODULES: dict[SourceFormat, str] = {
    "jats": "claimtrace.documents.readers.jats",
    "tei": "claimtrace.documents.readers.tei",
    "pdf": "claimtrace.documents.readers.pdf",
    "html": "claimtrace.documents.readers.html",
    "text": "claimtrace.documents.readers.text",
    "markdown": "claimtrace.documents.readers.text",
    "docx": "claimtrace.documents.readers.docx",
}


def get_reader(fmt: SourceFormat) -> Reader:
    """The reader for a format."""
    module = importlib.import_module(_READER_MODULES[fmt])
    reader: Reader = module.get_reader(fmt)
    return reader


def sniff_format(data: bytes, path: str = "") -> SourceFormat:
    """Decide the format from the content (the extension only breaks ties for text vs Markdown)."""
    head = data[:4096]
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"%PDF") or b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        from claimtrace.documents.readers.docx import is_docx

        if is_docx(data):
            return "docx"
        raise InputError(path, "unsupported format (a ZIP archive that is not a Word .docx file)")
    lower = stripped[:4096].lower()
    if lower.startswith(b"<?xml") or lower.startswith(b"<!doctype") or lower.startswith(b"<"):
        if re.search(rb"<tei[\s>]|http://www\.tei-c\.org/ns", lower):
            return "tei"
        if re.search(rb"<!doctype html|<html[\s>]", lower):  # HTML5 pages may hold an <article>
            return "html"
        if re.search(rb"<article[\s>]|jats|nlm//dtd|<pmc-articleset", lower) or re.match(rb"<(abstract|sec)[\s>]", stripped):
            return "jats"
        if re.search(rb"<html[\s>]|<!doctype html|<body[\s>]|<head[\s>]|<p[\s>]|<div[\s>]", lower):
            return "html"
        if lower.startswith(b"<?xml") or lower.startswith(b"<!doctype"):
            raise InputError(path, "unsupported XML format (expected JATS/NLM, GROBID TEI or HTML)")
    if _looks_binary(data):
        raise InputError(path, "unsupported format (binary file that is not a PDF)")
    suffix = Path(path).suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if re.search(rb"(?m)^#{1,6} \S", head):
        return "markdown"
    return "text"


def _looks_binary(data: bytes) -> bool:
    """Not text in any encoding the text reader detects (UTF-8/16/32 with a BOM, UTF-8, legacy 8-bit)."""
    from claimtrace.documents.readers.text import bom_encoding, decode_text

    head = data[:4096]
    if bom_encoding(head) is not None:
        return False
    try:
        head.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 4 and b"\x00" not in head:
            return False  # a multi-byte character cut at the 4 KiB boundary is still text
    try:
        decode_text(data[:65536])
    except InputError:
        return True
    return False


def load_document(path: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES, fmt: SourceFormat | None = None,
                  settings: ReaderSettings | None = None) -> Document:
    """Read a paper from disk (JATS, TEI, PDF, HTML, Word .docx, text, Markdown) into a Document.

    ``settings`` choose the PDF reader and OCR (default: :func:`use_reader_settings`, else the environment)."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    if p.is_dir():
        raise InputError(p, "is a directory, not a file")
    size = p.stat().st_size
    if size == 0:
        raise InputError(p, "empty file")
    if size > max_bytes:
        raise InputError(p, f"file is {size:,} bytes, over the size limit of {max_bytes:,} bytes")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(p, f"cannot read file ({exc.strerror or exc})") from None
    return read_bytes(data, str(p), fmt=fmt, settings=settings)


def read_bytes(data: bytes, path: str = "<bytes>", *, fmt: SourceFormat | None = None,
               settings: ReaderSettings | None = None) -> Document:
    """Parse in-memory source bytes into a Document (``settings``: the PDF reader and OCR, as for load_document)."""
    if not data.strip():
        raise InputError(path, "empty file")
    fmt = fmt or sniff_format(data, path)
    if fmt == "pdf":
        doc = read_pdf(data, path, settings or current_settings())
    else:
        doc = get_reader(fmt).read(data, path)
    if fmt not in ("jats", "tei") and not doc.references:
        from claimtrace.documents.bibliography import text_bibliography

        doc = text_bibliography(doc)
    return doc


def read_pdf(data: bytes, path: str, settings: ReaderSettings) -> Document:
    """A PDF through the reader the settings choose, its pages without a text layer OCR'd first if asked."""
    ocr_pages: list[int] = []
    source = data
    if settings.ocr:
        from claimtrace.documents.readers import ocr

        _n_pages, ocr_pages = ocr.pages_without_text(data, path)
        if ocr_pages:
            data = ocr.ocr_pages(data, path, ocr_pages, language=settings.ocr_language)
    reader: Reader
    if settings.pdf_reader == "grobid":
        from claimtrace.documents.readers.grobid import GrobidReader

        assert settings.grobid_url  # the settings check it
        reader = GrobidReader(settings.grobid_url, timeout=settings.grobid_timeout)
    else:
        reader = get_reader("pdf")
    doc = reader.read(data, path)
    if not ocr_pages:
        return doc
    which = ("page " if len(ocr_pages) == 1 else "pages ") + ", ".join(map(str, ocr_pages))
    return doc.model_copy(update={
        "id": content_hash(source),
        "source": doc.source.model_copy(update={"size": len(source)}),
        "metadata": {**doc.metadata, "ocr_pages": ",".join(map(str, ocr_pages)), "ocr": "ocrmypdf+tesseract"},
        "warnings": [*doc.warnings, f"text of {which} recognised by OCR (tesseract): it may hold recognition errors"],
    })
