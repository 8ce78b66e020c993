"""Tables in PDFs: find table grids on the pages that carry a table caption, with page and bbox.

Readers (``CLAIMTRACE_PDF_TABLES``; measured in bench/pdf_tables.py, see docs/tables.md):

- ``auto`` (default): ``pdfplumber-lines`` first; on a captioned page where it finds no table (an
  unruled table), ``camelot-stream`` when camelot is installed, else ``pdfplumber-text``.
- ``pdfplumber-lines``: pdfplumber's table finder on ruling lines (MIT, already a core dependency).
  Finds ruled tables; an unruled "booktabs" table (three rules, no vertical lines) has too few lines to
  make cells.
- ``pdfplumber-text``: pdfplumber's finder on text alignment, limited to the region under (or over) the
  caption; reads unruled tables, splits cells more often.
- ``camelot-stream`` / ``camelot-lattice``: camelot (MIT; pulls OpenCV and pandas: the ``pdf-tables``
  extra) in stream mode (text alignment) or lattice mode (ruling lines).
- ``off``: no PDF tables.

Only pages with a caption line ("Table 2", "TABLE 2.") are searched, so a paper without tables costs
nothing, and a found table takes the caption's label and text.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from claimtrace.documents.model import BBox
from claimtrace.documents.tables import RawCell, RawTable
from claimtrace.errors import ClaimtraceError

PDF_TABLE_READERS = ("auto", "pdfplumber-lines", "pdfplumber-text", "camelot-stream", "camelot-lattice", "off")
DEFAULT_PDF_TABLES = "auto"
_CAPTION = re.compile(r"^\s*(table|tab\.)\s*([A-Z]?\d+[a-z]?)\s*[.:|]?\s*(.*)$", re.I)


@dataclass
class Caption:
    """A table caption line found by the layout analysis: page (1-based), label, text and box."""

    page: int
    label: str
    text: str
    top: float
    bottom: float


def pdf_tables_reader() -> str:
    """The PDF table reader the environment selects (``CLAIMTRACE_PDF_TABLES``), checked."""
    name = os.environ.get("CLAIMTRACE_PDF_TABLES", DEFAULT_PDF_TABLES)
    if name not in PDF_TABLE_READERS:
        raise ClaimtraceError(f"CLAIMTRACE_PDF_TABLES={name!r}: expected one of {', '.join(PDF_TABLE_READERS)}")
    return name


def caption_of(text: str) -> tuple[str, str] | None:
    """(label, caption) of a table caption line ("Table 2. Results of ..."), or None."""
    m = _CAPTION.match(text)
    if not m:
        return None
    return f"Table {m.group(2)}", m.group(3).strip()


def read_pdf_tables(data: bytes, captions: Sequence[Caption], reader: str | None = None) -> list[RawTable]:
    """Tables on the captioned pages of a PDF, each with the nearest caption's label, page and bbox."""
    reader = reader or pdf_tables_reader()
    if reader == "off" or not captions:
        return []
    pages = sorted({c.page for c in captions})
    if reader == "auto":
        found = _pdfplumber(data, pages, captions, text=False)
        rest = [n for n in pages if n not in {f[0] for f in found}]
        if rest:
            try:
                import camelot  # noqa: F401

                found += _camelot(data, rest, flavor="stream")
            except ImportError:
                found += _pdfplumber(data, rest, captions, text=True)
        reader = "auto"
    elif reader.startswith("pdfplumber"):
        found = _pdfplumber(data, pages, captions, text=reader == "pdfplumber-text")
    else:
        found = _camelot(data, pages, flavor=reader.split("-", 1)[1])
    out: list[RawTable] = []
    for page, bbox, rows in found:
        cap = _nearest(captions, page, bbox)
        cells = [[RawCell(" ".join((t or "").split())) for t in row] for row in rows]
        cells = [r for r in cells if any(c.text for c in r)]
        if len(cells) < 2 or max(len(r) for r in cells) < 2:
            continue
        out.append(RawTable(rows=cells, label=cap.label if cap else None, caption=cap.text if cap else None,
                            page=page, bbox=bbox, reader=reader))
    return out


def _nearest(captions: Sequence[Caption], page: int, bbox: BBox) -> Caption | None:
    same = [c for c in captions if c.page == page]
    if not same:
        return None
    return min(same, key=lambda c: min(abs(c.bottom - bbox.top), abs(c.top - bbox.bottom)))


def _pdfplumber(data: bytes, pages: list[int], captions: Sequence[Caption], *,
                text: bool) -> list[tuple[int, BBox, list[list[str | None]]]]:
    import pdfplumber

    settings: dict[str, Any] = {"vertical_strategy": "text", "horizontal_strategy": "text",
                                "snap_tolerance": 3, "join_tolerance": 3, "text_x_tolerance": 2} if text else {}
    out: list[tuple[int, BBox, list[list[str | None]]]] = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for n in pages:
            if not 1 <= n <= len(pdf.pages):
                continue
            page = pdf.pages[n - 1]
            regions = [page]
            if text:  # alignment finds "tables" in any running text: look only under/over each caption
                regions = []
                for c in (c for c in captions if c.page == n):
                    below = (0, min(c.bottom + 1, page.height), page.width, page.height)
                    regions.append(page.crop(below))
            for region in regions:
                for t in region.find_tables(settings):
                    rows = t.extract()
                    x0, top, x1, bottom = t.bbox
                    out.append((n, BBox(x0=x0, top=top, x1=x1, bottom=bottom), rows))
                    if text:
                        break  # the first table under the caption
    return out


def _camelot(data: bytes, pages: list[int], *, flavor: str) -> list[tuple[int, BBox, list[list[str | None]]]]:
    try:
        import camelot
    except ImportError:
        raise ClaimtraceError("PDF table reader camelot needs the 'pdf-tables' extra: pip install 'claimtrace-sci[pdf-tables]'") from None
    out: list[tuple[int, BBox, list[list[str | None]]]] = []
    with tempfile.NamedTemporaryFile(suffix=".pdf") as fh:
        fh.write(data)
        fh.flush()
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(data)
        try:
            heights = {n: doc[n - 1].get_height() for n in pages if 1 <= n <= len(doc)}
        finally:
            doc.close()
        if not heights:
            return out
        tables = camelot.read_pdf(fh.name, pages=",".join(map(str, heights)), flavor=flavor)
        for t in tables:
            n = int(t.page)
            x0, y0, x1, y1 = t._bbox  # PDF coordinates, origin bottom-left
            h = heights.get(n, 0.0)
            rows: list[list[str | None]] = [[str(v) for v in r] for r in t.df.values.tolist()]
            out.append((n, BBox(x0=x0, top=h - y1, x1=x1, bottom=h - y0), rows))
    return out
