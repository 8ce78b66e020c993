"""Tables in PDFs: find table grids on the pages that carry a table caption, with page and bbox.

Readers (``CLAIMTRACE_PDF_TABLES``; measured in bench/pdf_tables.py, see docs/tables.md):

- ``auto`` (default): ``pdfplumber-lines`` first; on a captioned page where it finds no table (an
  unruled table), ``camelot-stream`` when camelot is installed, else ``pdfplumber-text``. Where camelot glues
  the numbers of tight columns into one cell ("84.2 88.4 91.5": ``merged_cells``), ``pdfplumber-text``'s reading of
  the same region is taken when it glues fewer, its leading text-only columns joined into the stub (``join_stub``).
  Where the line finder stacks several rows into one cell per column (a table ruled only vertically or between
  groups of rows: ``stacked_rows``), the unruled reading of the same region is taken when it reads more rows.
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

The text-alignment readers (``pdfplumber-text``, ``camelot-stream``) read the region of each caption's table
(``table_region``), not the page: the caption's column (the page's half on a two-column page, unless the
caption spans the middle), and the lines next to the caption, above or below it, up to the first line of running
text (a line as wide as the column with no column gap and few digits) or the page's running head (its first line,
set apart, with the page number at one end: ``_running_head``). Without it, on a two-column page they read the
running text of a column as a two-column "table".
"""

from __future__ import annotations

import io
import itertools
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
_CAPTION_WORD = re.compile(r"^(table|tab\.)\s*([A-Z]?\d+[a-z]?)?[.:|]?$|^table\d", re.I)
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


class _Source:
    """A PDF's bytes and its pdfplumber document, opened on first use and shared by every reading of the call, so
    that each page is parsed once (``auto`` reads a page with the line finder, then with the text finder)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._pdf: Any = None

    def plumber(self) -> Any:
        """The open pdfplumber document."""
        if self._pdf is None:
            import pdfplumber

            self._pdf = pdfplumber.open(io.BytesIO(self.data))
        return self._pdf

    def __enter__(self) -> _Source:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pdf is not None:
            self._pdf.close()
            self._pdf = None


def read_pdf_tables(data: bytes, captions: Sequence[Caption], reader: str | None = None) -> list[RawTable]:
    """Tables on the captioned pages of a PDF, each with the nearest caption's label, page and bbox."""
    reader = reader or pdf_tables_reader()
    if reader == "off" or not captions:
        return []
    pages = sorted({c.page for c in captions})
    with _Source(data) as src:
        if reader == "auto":
            found = _unstack(src, _pdfplumber(src, pages, captions, text=False), captions)
            rest = [n for n in pages if n not in {f[0] for f in found}]
            if rest:
                found += _stream(src, rest, captions)
        elif reader.startswith("pdfplumber"):
            found = _pdfplumber(src, pages, captions, text=reader == "pdfplumber-text")
        else:
            found = _camelot(src, pages, flavor=reader.split("-", 1)[1], captions=captions)
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


_MERGED = re.compile(r"^[-\u2212\u2013]?\d[\d.,]*%?(?:\s+[-\u2212\u2013]?\d[\d.,]*%?)+$")


def merged_cells(rows: Sequence[Sequence[str | None]]) -> int:
    """How many cells hold two or more bare numbers ("84.2 88.4"): columns a reader glued together."""
    return sum(bool(_MERGED.match((t or "").strip())) for row in rows for t in row)


_NUMBER = re.compile(r"^[-\u2212\u2013(]?[\d.,]+")


def join_stub(rows: list[list[str | None]]) -> list[list[str | None]]:
    """Rows whose leading text-only columns are joined into one stub cell (pdfplumber-text cuts a row label at each
    word gap shared by every row: "SciBERT | fine-tune | on | co-view")."""
    body = rows[1:] or rows
    width = min((len(r) for r in rows), default=0)
    k = next((j for j in range(width) if any(_NUMBER.match((r[j] or "").strip()) for r in body)), width)
    if k < 2 or k == width:
        return rows
    return [[" ".join(t.strip() for t in r[:k] if t and t.strip()), *r[k:]] for r in rows]


def stacked_rows(rows: Sequence[Sequence[str | None]]) -> int:
    """How many rows below the first hold two or more cells of several text lines each: the rows of a table ruled
    only between groups (or only vertically), which the line finder stacks into one cell per column."""
    return sum(sum(len((t or "").strip().splitlines()) > 1 for t in row) >= 2 for row in rows[1:])


def _stream(src: _Source, pages: list[int], captions: Sequence[Caption]) -> list[tuple[int, BBox, list[list[str | None]]]]:
    """The unruled-table reading of ``auto``: camelot stream mode (with ``_unmerge``), else pdfplumber's text finder."""
    try:
        import camelot  # noqa: F401
    except ImportError:
        return _pdfplumber(src, pages, captions, text=True)
    return _unmerge(src, _camelot(src, pages, flavor="stream", captions=captions), captions)


def _unstack(src: _Source, found: list[tuple[int, BBox, list[list[str | None]]]],
             captions: Sequence[Caption]) -> list[tuple[int, BBox, list[list[str | None]]]]:
    """Line-finder tables, each with stacked rows (``stacked_rows``) replaced by the unruled reading of the same region
    where that reads more rows and stacks none (found on the vertically ruled tables of real R vignettes)."""
    out = []
    for page, bbox, rows in found:
        if stacked_rows(rows):
            alt = [t for t in _stream(src, [page], [c for c in captions if c.page == page]) if _overlap(t[1], bbox) > 0]
            best = max(alt, key=lambda t: _overlap(t[1], bbox), default=None)
            if best is not None and not stacked_rows(best[2]) and len(best[2]) > len(rows):
                page, bbox, rows = best
        out.append((page, bbox, rows))
    return out


def _overlap(a: BBox, b: BBox) -> float:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.bottom, b.bottom) - max(a.top, b.top)
    return max(0.0, w) * max(0.0, h)


def _unmerge(src: _Source, found: list[tuple[int, BBox, list[list[str | None]]]],
             captions: Sequence[Caption]) -> list[tuple[int, BBox, list[list[str | None]]]]:
    """camelot-stream tables, each replaced by pdfplumber-text's table of the same region where that glues fewer columns."""
    out = []
    for page, bbox, rows in found:
        merged = merged_cells(rows)
        if merged:
            alt = [t for t in _pdfplumber(src, [page], [c for c in captions if c.page == page], text=True)
                   if _overlap(t[1], bbox) > 0]
            best = max(alt, key=lambda t: _overlap(t[1], bbox), default=None)
            if best is not None and merged_cells(best[2]) < merged:
                rows = join_stub(best[2])
                bbox = best[1]
        out.append((page, bbox, rows))
    return out


#: a gap between two words wider than this (points) separates table columns, not words of running text
COLUMN_GAP = 7.0


@dataclass
class _Line:
    top: float
    bottom: float
    x0: float
    x1: float
    text: str
    max_gap: float


def _lines(words: list[dict[str, Any]]) -> list[_Line]:
    """Text lines from pdfplumber words (grouped by their top, to 2 points)."""
    rows: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (round(float(w["top"])), float(w["x0"]))):
        if rows and abs(float(rows[-1][0]["top"]) - float(w["top"])) <= 2:
            rows[-1].append(w)
        else:
            rows.append([w])
    out = []
    for r in rows:
        r.sort(key=lambda w: float(w["x0"]))
        gaps = [float(b["x0"]) - float(a["x1"]) for a, b in itertools.pairwise(r)]
        out.append(_Line(top=min(float(w["top"]) for w in r), bottom=max(float(w["bottom"]) for w in r),
                         x0=float(r[0]["x0"]), x1=float(r[-1]["x1"]), text=" ".join(str(w["text"]) for w in r),
                         max_gap=max(gaps, default=0.0)))
    return out


def _split(words: list[dict[str, Any]], x0: float, x1: float) -> list[_Line]:
    """Lines of the words inside [x0, x1], each cut at a column gap wider than a running-text gutter is narrow."""
    return _lines([w for w in words if float(w["x0"]) >= x0 - 1 and float(w["x1"]) <= x1 + 1])


def _running_text(line: _Line, width: float) -> bool:
    """A line of running text: as wide as the column, no column gap, few digits."""
    digits = sum(ch.isdigit() for ch in line.text) / max(1, len(line.text))
    return line.x1 - line.x0 >= 0.6 * width and line.max_gap < COLUMN_GAP and digits < 0.25


def _running_head(lines: list[_Line], line_h: float) -> float | None:
    """The top of the page's running head, or None: its first line, set apart from the next by more than a line's
    height, with the page number at one end ("24 Regression Models for Count Data in R", "Michael Hahsler, ... 13")."""
    if len(lines) < 2:
        return None
    words = lines[0].text.split()
    if lines[1].top - lines[0].bottom > line_h and words and (words[0].isdigit() or words[-1].isdigit()):
        return lines[0].top
    return None


def _caption_span(words: list[dict[str, Any]], caption: Caption) -> tuple[float, float] | None:
    """(x0, x1) of a caption's first line: from its "Table" word rightwards while the words run on."""
    starts = [w for w in words if _CAPTION_WORD.match(str(w["text"])) and abs(float(w["top"]) - caption.top) <= 4]
    if not starts:
        return None
    first = min(starts, key=lambda w: abs(float(w["top"]) - caption.top))
    line = sorted((w for w in words if abs(float(w["top"]) - float(first["top"])) <= 2 and float(w["x0"]) >= float(first["x0"])),
                  key=lambda w: float(w["x0"]))
    x1 = float(first["x1"])
    for w in line[1:]:
        if float(w["x0"]) - x1 > 2 * COLUMN_GAP:
            break
        x1 = max(x1, float(w["x1"]))
    return float(first["x0"]), x1


def table_region(words: list[dict[str, Any]], width: float, height: float, caption: Caption,
                 others: Sequence[Caption] = ()) -> BBox | None:
    """The region of a caption's table on its page (top-left origin), or None when no table-like line is next to it."""
    mid = width / 2
    span = _caption_span(words, caption)
    lines = _lines(words)
    straddle = sum(any(float(w["x0"]) < mid < float(w["x1"]) for w in words if abs(float(w["top"]) - ln.top) <= 2)
                   for ln in lines)
    two_columns = straddle < 0.3 * max(1, len(lines))
    if not two_columns or span is None or span[0] < mid - 10 < mid + 10 < span[1]:
        x0, x1 = 0.0, width
    else:
        x0, x1 = (0.0, mid) if (span[0] + span[1]) / 2 < mid else (mid, width)
    band = _split(words, x0, x1)
    if not band:
        return None
    col_w = max(ln.x1 - ln.x0 for ln in band)
    line_h = sorted(ln.bottom - ln.top for ln in band)[len(band) // 2]
    head = _running_head(lines, line_h)
    stops = []  # the other captions in this band
    for c in others:
        cs = _caption_span(words, c) if c is not caption else None
        if cs is not None and cs[0] < x1 and cs[1] > x0:
            stops.append(c)
    best: list[_Line] = []
    for direction in (-1, 1):  # above the caption, then below it
        side = [ln for ln in band if (ln.bottom <= caption.top + 1 if direction < 0 else ln.top >= caption.bottom - 1)]
        side.sort(key=lambda ln: -ln.top if direction < 0 else ln.top)
        block: list[_Line] = []
        for ln in side:
            edge = block[-1] if block else None
            gap = (edge.top - ln.bottom if direction < 0 else ln.top - edge.bottom) if edge else 0.0
            if _running_text(ln, col_w) or gap > 2.5 * line_h or (head is not None and abs(ln.top - head) <= 2) or any(
                    (c.top - 1 <= ln.top <= c.bottom + 1) or (direction < 0 and ln.bottom <= c.bottom <= caption.top)
                    or (direction > 0 and caption.bottom <= c.top <= ln.top) for c in stops):
                break
            block.append(ln)
        if _table_lines(block) > _table_lines(best):
            best = block
    if len(best) < 2:
        return None
    return BBox(x0=max(0.0, min(ln.x0 for ln in best) - 2), top=max(0.0, min(ln.top for ln in best) - 2),
                x1=min(width, max(ln.x1 for ln in best) + 2), bottom=min(height, max(ln.bottom for ln in best) + 2))


def _table_lines(block: list[_Line]) -> int:
    """How many lines of a block look like table rows (a column gap or a digit)."""
    return sum(ln.max_gap >= COLUMN_GAP or any(ch.isdigit() for ch in ln.text) for ln in block)


def _stream_areas(src: _Source, page_no: int, captions: Sequence[Caption]) -> list[BBox]:
    """The table regions of the captions on one page (top-left origin)."""
    page = src.plumber().pages[page_no - 1]
    words = page.extract_words()
    boxes = [table_region(words, float(page.width), float(page.height), c, captions) for c in captions]
    return [b for b in boxes if b is not None]


def _nearest(captions: Sequence[Caption], page: int, bbox: BBox) -> Caption | None:
    same = [c for c in captions if c.page == page]
    if not same:
        return None
    return min(same, key=lambda c: min(abs(c.bottom - bbox.top), abs(c.top - bbox.bottom)))


def _pdfplumber(src: _Source, pages: list[int], captions: Sequence[Caption], *,
                text: bool) -> list[tuple[int, BBox, list[list[str | None]]]]:
    settings: dict[str, Any] = {"vertical_strategy": "text", "horizontal_strategy": "text",
                                "snap_tolerance": 3, "join_tolerance": 3, "text_x_tolerance": 2} if text else {}
    out: list[tuple[int, BBox, list[list[str | None]]]] = []
    pdf = src.plumber()
    for n in pages:
        if not 1 <= n <= len(pdf.pages):
            continue
        page = pdf.pages[n - 1]
        regions = [page]
        if text:  # alignment finds "tables" in any running text: look only at each caption's table region
            regions = []
            words = page.extract_words()
            on_page = [c for c in captions if c.page == n]
            for c in on_page:
                box = table_region(words, float(page.width), float(page.height), c, on_page)
                if box is not None:
                    regions.append(page.crop((box.x0, box.top, box.x1, box.bottom)))
        for region in regions:
            for t in region.find_tables(settings):
                rows = t.extract()
                x0, top, x1, bottom = t.bbox
                out.append((n, BBox(x0=x0, top=top, x1=x1, bottom=bottom), rows))
                if text:
                    break  # the first table under the caption
    return out


def _camelot(src: _Source, pages: list[int], *, flavor: str,
             captions: Sequence[Caption] = ()) -> list[tuple[int, BBox, list[list[str | None]]]]:
    try:
        import camelot
    except ImportError:
        raise ClaimtraceError("PDF table reader camelot needs the 'pdf-tables' extra: pip install 'claimtrace-sci[pdf-tables]'") from None
    out: list[tuple[int, BBox, list[list[str | None]]]] = []
    with tempfile.NamedTemporaryFile(suffix=".pdf") as fh:
        fh.write(src.data)
        fh.flush()
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(src.data)
        try:
            heights = {n: doc[n - 1].get_height() for n in pages if 1 <= n <= len(doc)}
        finally:
            doc.close()
        if not heights:
            return out
        if flavor == "stream" and captions:  # each caption's table region (a page's running text is no table)
            tables = []
            for n, h in heights.items():
                areas = _stream_areas(src, n, [c for c in captions if c.page == n])
                if areas:
                    tables += list(camelot.read_pdf(fh.name, pages=str(n), flavor=flavor,
                                                    table_areas=[f"{b.x0},{h - b.top},{b.x1},{h - b.bottom}" for b in areas]))
        else:
            tables = list(camelot.read_pdf(fh.name, pages=",".join(map(str, heights)), flavor=flavor))
        for t in tables:
            n = int(t.page)
            x0, y0, x1, y1 = t._bbox  # PDF coordinates, origin bottom-left
            h = heights.get(n, 0.0)
            rows: list[list[str | None]] = [[str(v) for v in r] for r in t.df.values.tolist()]
            out.append((n, BBox(x0=x0, top=h - y1, x1=x1, bottom=h - y0), rows))
    return out
