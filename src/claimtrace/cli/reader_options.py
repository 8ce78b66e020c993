"""Shared PDF-reading options for every command that reads a paper: ``--pdf-reader``, ``--grobid-url``, ``--ocr``.

Use in a command: decorate it (below ``@app.command()``); the decorator adds the options and runs the
command with the :class:`~claimtrace.documents.readers.options.ReaderSettings` they give in force, so
every PDF the command reads (``load_document``) goes through the chosen reader::

    @app.command()
    @with_reader_options()
    def stats(paper: str = ..., ...) -> None: ...

Flags > environment (``CLAIMTRACE_PDF_READER``, ``CLAIMTRACE_GROBID_URL``, ``CLAIMTRACE_OCR``) > defaults
(claimtrace's own reader, no OCR). A GROBID URL without the grobid reader, or the grobid reader without
a URL, is a one-line error before any work starts.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from pydantic import ValidationError

from claimtrace.cli.common import fail, set_signature
from claimtrace.documents.readers.options import (
    PDF_READERS,
    ReaderSettings,
    settings_error,
    settings_from_env,
    use_reader_settings,
)
from claimtrace.errors import ClaimtraceError

PDF_READER = typer.Option(
    None, "--pdf-reader", metavar="NAME",
    help="How PDFs are read: claimtrace (its own reader, the default) or grobid (a GROBID server, see "
         "--grobid-url; env CLAIMTRACE_PDF_READER).")
GROBID_URL = typer.Option(
    None, "--grobid-url", metavar="URL",
    help="With --pdf-reader grobid: the GROBID server, e.g. http://localhost:8070 (env CLAIMTRACE_GROBID_URL).")
OCR = typer.Option(
    False, "--ocr",
    help="OCR PDF pages that have no text layer (scanned pages) first: needs the [ocr] extra and Debian's "
         "tesseract-ocr and ghostscript (env CLAIMTRACE_OCR=1).")

_PARAMS: dict[str, tuple[Any, Any]] = {
    "pdf_reader": (str | None, PDF_READER),
    "grobid_url": (str | None, GROBID_URL),
    "ocr": (bool, OCR),
}

F = TypeVar("F", bound=Callable[..., Any])


def reader_settings(pdf_reader: str | None, grobid_url: str | None, ocr: bool) -> ReaderSettings:
    """The settings the flags give over the environment's; a bad combination is a one-line error (exit 2)."""
    if pdf_reader is not None and pdf_reader not in PDF_READERS:
        fail(f"--pdf-reader: unknown reader {pdf_reader!r} (choose {' or '.join(PDF_READERS)})")
    if grobid_url is not None and (pdf_reader or "") != "grobid":
        fail("--grobid-url is only used with --pdf-reader grobid")
    try:
        base = settings_from_env()
    except ClaimtraceError as exc:  # a bad environment: one line, unless the flags say it all
        if pdf_reader is None:
            fail(str(exc))
        base = ReaderSettings()
    reader = pdf_reader or base.pdf_reader
    url = grobid_url or (base.grobid_url if reader == "grobid" else None)
    if reader == "grobid" and not url:
        fail("--pdf-reader grobid needs --grobid-url URL (or CLAIMTRACE_GROBID_URL)")
    try:
        return ReaderSettings(pdf_reader=reader, grobid_url=url, ocr=ocr or base.ocr)
    except ValidationError as exc:
        fail(f"--grobid-url: {settings_error(exc)}")


def with_reader_options() -> Callable[[F], F]:
    """Give a command ``--pdf-reader``, ``--grobid-url`` and ``--ocr``, in force while it runs."""

    def decorate(fn: F) -> F:
        hints = typing.get_type_hints(fn, include_extras=True)
        sig = inspect.signature(fn)
        params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values()]
        params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
                   for name, (kind, option) in _PARAMS.items()]

        @functools.wraps(fn)
        def command(*a: Any, **kw: Any) -> Any:
            settings = reader_settings(kw.pop("pdf_reader"), kw.pop("grobid_url"), kw.pop("ocr"))
            with use_reader_settings(settings):
                return fn(*a, **kw)

        return set_signature(command, sig, params, hints)

    return decorate
