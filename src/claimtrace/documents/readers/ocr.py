"""OCR for PDF pages without a text layer (scanned pages): OCRmyPDF with Debian's tesseract, the ``[ocr]`` extra.

Only the pages without text (fewer than MIN_PAGE_CHARS characters) are recognised: OCRmyPDF's
``force`` mode on those pages alone, since its ``skip`` mode passes over a page with an empty text
object; pages with a text layer are copied as they are. The PDF reader (claimtrace's own or GROBID) then reads the result. The Document keeps
the original PDF's id (its hash) and says which pages were recognised (``metadata['ocr_pages']`` and a
warning: recognised text may hold errors).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from pathlib import Path

from claimtrace.errors import ClaimtraceError, InputError

log = logging.getLogger(__name__)

#: a page with fewer non-space characters than this has no text layer (as the PDF reader counts them)
MIN_PAGE_CHARS = 5
#: Debian packages OCRmyPDF calls: the OCR engine (with its English model) and Ghostscript
DEBIAN_PACKAGES = "tesseract-ocr tesseract-ocr-eng ghostscript"


class OcrUnavailableError(ClaimtraceError):
    """OCR was asked for but the ``[ocr]`` extra or the programs it calls are missing."""


def pages_without_text(data: bytes, path: str) -> tuple[int, list[int]]:
    """The number of pages and the (1-based) pages that have no text layer."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError:
        return 0, []  # the PDF reader says what is wrong with it
    empty: list[int] = []
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            tp = page.get_textpage()
            text = tp.get_text_range()
            if sum(1 for ch in text if not ch.isspace()) < MIN_PAGE_CHARS:
                empty.append(i + 1)
            tp.close()
            page.close()
        return len(pdf), empty
    finally:
        pdf.close()


def check_ocr_available() -> None:
    """Raise OcrUnavailableError (one line naming the extra and the Debian packages) when OCR cannot run."""
    # their INFO lines are not the command's output; OCRmyPDF's warnings are about its own choices (a tagged
    # PDF loses its structure on the re-OCR'd pages: they have no text to structure), its errors are raised
    for name, level in (("ocrmypdf", logging.ERROR), ("pikepdf", logging.WARNING), ("fontTools", logging.WARNING),
                        ("PIL", logging.WARNING)):
        logging.getLogger(name).setLevel(level)
    try:
        import ocrmypdf  # noqa: F401
    except ImportError:
        raise OcrUnavailableError(
            "--ocr needs the optional dependency 'ocrmypdf': pip install 'claimtrace-sci[ocr]' "
            f"(and on Debian/Ubuntu: apt-get install {DEBIAN_PACKAGES})") from None
    missing = [prog for prog in ("tesseract", "gs") if shutil.which(prog) is None]
    if missing:
        raise OcrUnavailableError(
            f"--ocr needs the program(s) {', '.join(missing)} on PATH: on Debian/Ubuntu apt-get install {DEBIAN_PACKAGES}")


def ocr_pages(data: bytes, path: str, pages: list[int], *, language: str = "eng") -> bytes:
    """The PDF with a recognised text layer on the given pages (others copied unchanged)."""
    check_ocr_available()
    import ocrmypdf

    with tempfile.TemporaryDirectory(prefix="claimtrace-ocr-") as tmp:
        src, dst = Path(tmp) / "in.pdf", Path(tmp) / "out.pdf"
        src.write_bytes(data)
        try:
            with contextlib.redirect_stdout(None):
                code = ocrmypdf.ocr(src, dst, language=language.split("+"), mode="force",
                                    pages=",".join(map(str, pages)), output_type="pdf", optimize=0,
                                    progress_bar=False, jobs=1, rasterizer="pypdfium")
        except ocrmypdf.exceptions.MissingDependencyError as exc:
            raise OcrUnavailableError(f"--ocr: {' '.join(str(exc).split())[:200]} "
                                      f"(on Debian/Ubuntu apt-get install {DEBIAN_PACKAGES})") from None
        except ocrmypdf.exceptions.ExitCodeException as exc:
            raise InputError(path, f"OCR failed ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None
        if int(code) != 0 or not dst.exists():
            raise InputError(path, f"OCR failed (OCRmyPDF exit code {int(code)})")
        return dst.read_bytes()
