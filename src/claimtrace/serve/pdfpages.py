"""PDF pages for the paper page: PNG renders (pypdfium2, cached on disk) and highlight boxes for text.

A sentence's box is found on its page (the sentence provenance from the Document) by matching its
letters and digits against the page's characters (pypdfium2's text page), so hyphenation, line breaks
and ligature spacing do not matter; the boxes of the matched characters are merged line by line. When
the text cannot be matched, the caller falls back to the paragraph's box (the paragraph provenance).
PDFium is not thread-safe: every call here holds one process-wide lock.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from pydantic import BaseModel

_LOCK = threading.Lock()
#: render scale: 1.5 x 72 dpi
SCALE = 1.5


class Box(BaseModel):
    """A rectangle on a page in PDF points, origin top-left."""

    x0: float
    top: float
    x1: float
    bottom: float


def page_sizes(pdf: Path) -> list[tuple[float, float]]:
    """Width and height (points) of every page."""
    import pypdfium2 as pdfium

    with _LOCK:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            return [(float(w), float(h)) for w, h in (doc[i].get_size() for i in range(len(doc)))]
        finally:
            doc.close()


def render_page(pdf: Path, page: int, out: Path, scale: float = SCALE) -> Path:
    """Render page ``page`` (1-based) to a PNG at ``out`` (written atomically) and return it."""
    import pypdfium2 as pdfium

    with _LOCK:
        if out.is_file():
            return out
        doc = pdfium.PdfDocument(str(pdf))
        try:
            if not 1 <= page <= len(doc):
                raise IndexError(page)
            img = doc[page - 1].render(scale=scale).to_pil()
        finally:
            doc.close()
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        img.save(tmp, format="PNG", optimize=False)
        os.replace(tmp, out)
        return out


def _compact(text: str) -> tuple[str, list[int]]:
    keep = [(ch.lower(), i) for i, ch in enumerate(text) if ch.isalnum()]
    return "".join(c for c, _ in keep), [i for _, i in keep]


def find_text_boxes(pdf: Path, requests: list[tuple[int, str]]) -> list[list[Box]]:
    """For each (page, text): the boxes (one per line) where the text is on that page; [] when not found."""
    import pypdfium2 as pdfium

    out: list[list[Box]] = [[] for _ in requests]
    by_page: dict[int, list[int]] = {}
    for k, (page, _text) in enumerate(requests):
        by_page.setdefault(page, []).append(k)
    with _LOCK:
        doc = pdfium.PdfDocument(str(pdf))
        try:
            for page, ks in by_page.items():
                if not 1 <= page <= len(doc):
                    continue
                pg = doc[page - 1]
                height = pg.get_size()[1]
                tp = pg.get_textpage()
                n = tp.count_chars()
                full = tp.get_text_range(0, n) if n else ""
                if len(full) != n:  # generated characters: indices would not line up
                    continue
                hay, idx = _compact(full)
                for k in ks:
                    needle, _ = _compact(requests[k][1])
                    if len(needle) < 4:
                        continue
                    spans = _locate(hay, needle)
                    boxes: list[Box] = []
                    for a, b in spans:  # every character from the first matched to the last, spaces left out
                        chars = range(idx[a], idx[b - 1] + 1)
                        boxes += _line_boxes([tp.get_charbox(i) for i in chars if not full[i].isspace()], height)
                    out[k] = boxes
        finally:
            doc.close()
    return out


def _locate(hay: str, needle: str) -> list[tuple[int, int]]:
    at = hay.find(needle)
    if at >= 0:
        return [(at, at + len(needle))]
    # the sentence runs over a page break or differs inside: match its beginning and its end separately
    spans = []
    head, tail = needle[:60], needle[-60:]
    a = hay.find(head)
    b = hay.find(tail, max(a, 0))
    if 0 <= a < b and b + len(tail) - a <= 2 * len(needle):  # both ends found, in order: the whole span
        return [(a, b + len(tail))]
    if a >= 0:
        spans.append((a, a + len(head)))
    b = hay.find(tail)
    if b >= 0 and tail != head:
        spans.append((b, b + len(tail)))
    return spans


def _line_boxes(chars: list[tuple[float, float, float, float]], height: float) -> list[Box]:
    lines: list[list[float]] = []  # x0, bottom(pdf), x1, top(pdf)
    for left, bottom, right, top in chars:
        if right <= left and top <= bottom:
            continue
        mid = (bottom + top) / 2
        if lines and lines[-1][1] - 2 <= mid <= lines[-1][3] + 2 and left >= lines[-1][0] - 2:  # same line
            ln = lines[-1]
            ln[0], ln[1], ln[2], ln[3] = min(ln[0], left), min(ln[1], bottom), max(ln[2], right), max(ln[3], top)
        else:
            lines.append([left, bottom, right, top])
    return [Box(x0=x0 - 1, top=height - t - 1, x1=x1 + 1, bottom=height - b + 1) for x0, b, x1, t in lines]
