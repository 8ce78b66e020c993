"""How PDFs are read: claimtrace's own reader or a GROBID server, and OCR for pages without a text layer.

One :class:`ReaderSettings` per run. It is given to ``load_document(..., settings=...)`` or set for a
block of code with :func:`use_reader_settings` (the CLI does that from ``--pdf-reader``, ``--grobid-url``
and ``--ocr``, so every paper a command reads goes the same way). Without either, the environment
decides (``CLAIMTRACE_PDF_READER``, ``CLAIMTRACE_GROBID_URL``, ``CLAIMTRACE_OCR=1``), else claimtrace's
own reader without OCR.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from claimtrace.errors import ClaimtraceError

PdfReaderName = Literal["claimtrace", "grobid"]
PDF_READERS: tuple[PdfReaderName, ...] = ("claimtrace", "grobid")


class ReaderSettings(BaseModel):
    """The PDF reader to use (``claimtrace`` or ``grobid``), the GROBID server, and OCR."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pdf_reader: PdfReaderName = Field("claimtrace", description="claimtrace's own PDF reader, or a GROBID server")
    grobid_url: str | None = Field(None, description="the GROBID server's base URL, e.g. http://localhost:8070")
    grobid_timeout: float = Field(300.0, gt=0, description="seconds to wait for GROBID's answer to one PDF")
    ocr: bool = Field(False, description="OCR the pages that have no text layer (OCRmyPDF and tesseract)")
    ocr_language: str = Field("eng", description="tesseract language(s), e.g. eng or eng+deu")

    @model_validator(mode="after")
    def _check(self) -> ReaderSettings:
        if self.pdf_reader == "grobid":
            if not self.grobid_url:
                raise ValueError("the grobid PDF reader needs the server's URL (--grobid-url, CLAIMTRACE_GROBID_URL)")
            check_grobid_url(self.grobid_url)
        elif self.grobid_url:
            raise ValueError("a GROBID URL is only used with the grobid PDF reader (--pdf-reader grobid)")
        return self


def check_grobid_url(url: str) -> str:
    """The URL when it is an http(s) URL with a host; ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL for the GROBID server: {url!r} (e.g. http://localhost:8070)")
    return url


_CURRENT: ContextVar[ReaderSettings | None] = ContextVar("claimtrace_reader_settings", default=None)


def settings_from_env() -> ReaderSettings:
    """Settings from ``CLAIMTRACE_PDF_READER``, ``CLAIMTRACE_GROBID_URL``, ``CLAIMTRACE_OCR`` (defaults otherwise)."""
    reader = os.environ.get("CLAIMTRACE_PDF_READER") or "claimtrace"
    url = os.environ.get("CLAIMTRACE_GROBID_URL") or None
    ocr = (os.environ.get("CLAIMTRACE_OCR") or "").lower() in ("1", "true", "yes")
    try:
        return ReaderSettings(pdf_reader=reader, grobid_url=url if reader == "grobid" else None,
                              ocr=ocr)
    except ValidationError as exc:
        raise ClaimtraceError(f"CLAIMTRACE_PDF_READER/CLAIMTRACE_GROBID_URL: {settings_error(exc)}") from None


def settings_error(exc: ValidationError) -> str:
    """The first problem of a settings ValidationError, as one line."""
    err = exc.errors()[0]
    return str(err.get("ctx", {}).get("error") or err["msg"])


def current_settings() -> ReaderSettings:
    """The settings in force: those set by :func:`use_reader_settings`, else from the environment."""
    return _CURRENT.get() or settings_from_env()


@contextlib.contextmanager
def use_reader_settings(settings: ReaderSettings) -> Iterator[ReaderSettings]:
    """Read every PDF in this block with these settings."""
    token = _CURRENT.set(settings)
    try:
        yield settings
    finally:
        _CURRENT.reset(token)
