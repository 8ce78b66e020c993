"""PDF reader: words with positions and fonts -> lines -> columns -> blocks -> Document.

Backends: ``pypdfium2`` (default; Apache-2.0/BSD, about 8x faster than pdfminer here) and ``pdfplumber``
(MIT, pdfminer.six; ``CLAIMTRACE_PDF_BACKEND=pdfplumber``). Both only supply words with boxes, font
size and boldness; the layout analysis below is shared:

* two-column reading order: a gutter is looked for per page in the x-coverage of the line segments;
  full-width lines (title, wide figures, page footers) split the page into bands, each band is read
  left column, then right column;
* running headers/footers (lines near the top/bottom edge repeating across pages, digits ignored)
  and bare page numbers are removed (kept in ``excluded`` as ``header``);
* hyphenation at line ends is joined (the hyphen kept only where the document spells the word with
  one elsewhere), ligatures expanded, unicode minus/hyphens/dashes mapped to "-";
* math-font glyphs placed on their baseline and tiny superscript pieces put back into their line, so
  inline math does not break a line (or paragraph) apart;
* paragraphs from vertical gaps (also a slightly wider line pitch after a sentence end: list items),
  first-line indentation and short last lines; paragraphs broken by a column/page break, a figure or a
  footnote are joined again (not across a paragraph gap in the same column); display equations (indented
  formula lines, equation numbers, flush-left symbol lines) go to ``excluded`` and the text after one
  ("where ...") starts a new paragraph; short-line blocks stacked on a table caption are table cells;
* headings from font size, bold and numbering; the abstract from an "Abstract" heading (or run-in
  "Abstract."), captions, tables (lines of several cells, dense numeric lines), figure text (small
  font), footnotes, display equations and the reference list go to ``excluded``.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from claimtrace.documents.builder import DocumentBuilder, clean_text
from claimtrace.documents.model import BBox, Document, ExcludedKind, SourceFormat
from claimtrace.documents.sections import excluded_heading, section_kind
from claimtrace.errors import InputError
from claimtrace.lexicons import pattern, patterns

# ----------------------------------------------------------------------------------------------
# words


@dataclass
class Word:
    """One word on a page: text, box (PDF points, origin top-left), font size, bold."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool


@dataclass
class PageWords:
    """The words of one page (rotated text is set apart)."""

    number: int
    width: float
    height: float
    words: list[Word]
    rotated: list[str] = field(default_factory=list)
    lone_surrogates: int = 0  # unpaired UTF-16 surrogates replaced by U+FFFD


def _astral(hi: int, lo: int) -> str:
    """The character of a surrogate pair; mathematical alphanumerics (U+1D400-U+1D7FF) as their plain letter."""
    ch = chr(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
    return unicodedata.normalize("NFKC", ch) if 0x1D400 <= ord(ch) <= 0x1D7FF else ch


def _pdfium_pages(data: bytes, path: str) -> list[PageWords]:
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower() or "security" in msg.lower():
            raise InputError(path, "encrypted PDF (a password is needed to open it)") from None
        raise InputError(path, f"corrupt PDF ({_pdfium_reason(msg)})") from None
    try:
        return _pdfium_read(pdf, raw)
    except pdfium.PdfiumError as exc:
        raise InputError(path, f"corrupt PDF ({_pdfium_reason(str(exc))})") from None
    finally:
        pdf.close()


def _pdfium_read(pdf: Any, raw: Any) -> list[PageWords]:
    """Words of every page of an open pdfium document."""
    pages: list[PageWords] = []
    font_bold: dict[int, bool] = {}
    name_buf = ctypes.create_string_buffer(256)
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    matrix = raw.FS_MATRIX()
    rect = raw.FS_RECTF()
    # the per-character calls, bound once and given the raw handle (each call is made for every character);
    # the text object's address as a plain int (a c_void_p result), not a pointer cast per character
    get_unicode, get_loose_box, get_box = raw.FPDFText_GetUnicode, raw.FPDFText_GetLooseCharBox, raw.FPDFText_GetCharBox
    get_object = raw.FPDFText_GetTextObject
    object_address = ctypes.cast(get_object, ctypes.CFUNCTYPE(ctypes.c_void_p, *get_object.argtypes))
    for index in range(len(pdf)):
        page = pdf[index]
        width, height = page.get_size()
        crop = page.get_cropbox()
        ox, oy_top = crop[0], crop[3]
        textpage = page.get_textpage()
        tp = textpage.raw
        n = textpage.count_chars()
        words: list[Word] = []
        rotated: list[str] = []
        cur: list[_Char] = []

        def flush(cur: list[_Char] = cur, words: list[Word] = words) -> None:
            if cur:
                words.append(_word(cur))
                cur.clear()

        rot_buf: list[str] = []
        obj_props: dict[int, tuple[float, bool, bool]] = {}
        lone = 0
        skip = -1
        for i in range(n):
            if i == skip:
                continue
            u = get_unicode(tp, i)
            if 0xD800 <= u < 0xE000:  # UTF-16 surrogates: a pair is one character (mathematical italics)
                u2 = get_unicode(tp, i + 1) if i + 1 < n and u < 0xDC00 else 0
                if 0xDC00 <= u2 < 0xE000:
                    ch, skip = _astral(u, u2), i + 1
                else:
                    ch, lone = "\ufffd", lone + 1
            else:
                ch = chr(u) if u else ""
            if not ch or ch.isspace() or (u < 0x20 and u != 0x02) or u in (0xFFFE, 0xFFFF):
                flush()
                continue
            okey = object_address(tp, i) or 0
            props = obj_props.get(okey) if okey else None
            if props is None:
                props = _char_props(raw, tp, i, get_object(tp, i) if okey else None, matrix, font_bold, name_buf)
                if okey:
                    obj_props[okey] = props
            size, bold, upright = props
            if not upright:
                flush()
                rot_buf.append(ch)
                continue
            if rot_buf:
                rotated.append("".join(rot_buf))
                rot_buf = []
            if get_loose_box(tp, i, rect) and rect.right > rect.left:
                t_, b_ = oy_top - rect.top, oy_top - rect.bottom
                x0_, x1_ = rect.left - ox, rect.right - ox
                if b_ - t_ > 1.5 * max(size, 4) and get_box(tp, i, left, right, bottom, top):
                    # math fonts declare huge ascent/descent: place the glyph on its baseline instead
                    # (from the tight box), so inline symbols stay on their text line
                    b_ = oy_top - bottom.value + 0.2 * size
                    t_ = b_ - 0.9 * size
            else:
                get_box(tp, i, left, right, bottom, top)
                t_, b_ = oy_top - top.value, oy_top - bottom.value
                x0_, x1_ = left.value - ox, right.value - ox
            if cur:
                prev = cur[-1]
                gap = x0_ - prev[2]
                overlap = min(b_, prev[4]) - max(t_, prev[3])
                if gap > 0.3 * max(size, 4) or gap < -max(size, 4) or overlap < -0.5:
                    flush()
            cur.append((ch, x0_, x1_, t_, b_, size, bold))
        flush()
        if rot_buf:
            rotated.append("".join(rot_buf))
        pages.append(PageWords(index + 1, width, height, words, rotated, lone))
        textpage.close()
        page.close()
    return pages


_Char = tuple[str, float, float, float, float, float, bool]  # text, x0, x1, top, bottom, size, bold


_SOFT_HYPHEN_RUN = re.compile("[-\u2010\u2011]\u00ad[-\u2010\u2011]?|\u00ad[-\u2010\u2011]")


def _word(cur: list[_Char]) -> Word:
    """A word from its characters; its vertical extent from the full-size ones (not superscripts)."""
    chars, x0s, x1s, tops, bottoms, sizes, bolds = zip(*cur, strict=True)
    size = max(sizes)
    if min(sizes) < size - 0.6:  # superscripts among them: the extent from the full-size characters
        tops = tuple(t for t, z in zip(tops, sizes, strict=True) if z >= size - 0.6)
        bottoms = tuple(b for b, z in zip(bottoms, sizes, strict=True) if z >= size - 0.6)
    text = "".join(chars)
    if "\u00ad" in text:  # Word's hyphen "-", soft hyphen, "‐" (three glyphs for one): one hyphen
        text = _SOFT_HYPHEN_RUN.sub("-", text)
    return Word(text, min(x0s), max(x1s), _median(tops), _median(bottoms), size, sum(bolds) * 2 > len(cur))


def _median(xs: tuple[float, ...]) -> float:
    """``statistics.median`` of a few numbers, without its generality (called for every word)."""
    n = len(xs)
    if n == 1:
        return xs[0]
    s = sorted(xs)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _char_props(raw: Any, tp: Any, i: int, obj: Any, matrix: Any, font_bold: dict[int, bool],
                name_buf: Any) -> tuple[float, bool, bool]:
    """Font size (text matrix applied), boldness and uprightness of a character's text object."""
    size = raw.FPDFText_GetFontSize(tp, i)
    upright = True
    if raw.FPDFText_GetMatrix(tp, i, matrix):
        scale = (matrix.b ** 2 + matrix.d ** 2) ** 0.5
        if scale > 0.01:
            size *= scale
        upright = abs(matrix.b) < 0.05 * max(abs(matrix.a), 1e-6) and matrix.a > 0
    font = raw.FPDFTextObj_GetFont(obj) if obj else None
    key = ctypes.cast(font, ctypes.c_void_p).value or 0 if font else 0
    bold = font_bold.get(key)
    if bold is None:
        bold = False
        if font:
            n = raw.FPDFFont_GetBaseFontName(font, name_buf, 256)
            name = name_buf.raw[: max(0, n - 1)].decode("latin-1", "replace").lower()
            bold = bool(re.search(r"bold|black|heavy|semibold|demi|medi|bd$|bd-|\.b$|-b$|cmbx", name))
            if not name.strip():
                bold = raw.FPDFFont_GetWeight(font) >= 700
        font_bold[key] = bold
    return size, bold, upright


def _pdfium_reason(msg: str) -> str:
    msg = msg.strip().rstrip(".")
    m = re.search(r"\(([^)]*)\)", msg)
    reason = (m.group(1) if m else msg).replace("PDFium: ", "")
    return reason or "cannot be opened"


def _pdfplumber_pages(data: bytes, path: str) -> list[PageWords]:
    import io

    import pdfplumber
    from pdfminer.pdfdocument import PDFPasswordIncorrect
    from pdfminer.psparser import PSException

    pages: list[PageWords] = []
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for i, page in enumerate(pdf.pages):
                words: list[Word] = []
                rotated: list[str] = []
                for w in page.extract_words(extra_attrs=["fontname", "size", "upright"], keep_blank_chars=False,
                                            x_tolerance=1.5):
                    if not w["upright"]:
                        rotated.append(w["text"])
                        continue
                    bold = bool(re.search(r"bold|black|heavy|semibold|demi|medi|bd$|bd-|cmbx", w["fontname"].lower()))
                    words.append(Word(w["text"], w["x0"], w["x1"], w["top"], w["bottom"], w["size"], bold))
                pages.append(PageWords(i + 1, float(page.width), float(page.height), words, rotated))
    except PDFPasswordIncorrect:
        raise InputError(path, "encrypted PDF (a password is needed to open it)") from None
    except (PSException, ValueError, KeyError, TypeError) as exc:
        raise InputError(path, f"corrupt PDF ({type(exc).__name__})") from None
    return pages


# ----------------------------------------------------------------------------------------------
# lines and columns


@dataclass
class Line:
    """A line of one column (or a full-width line) on a page."""

    words: list[Word]
    page: int
    col: int  # 0 left, 1 right, -1 full width / single column
    col_x0: float = 0.0
    col_x1: float = 0.0
    cells: int = 1  # segments separated by wide gaps (tables)

    @cached_property
    def x0(self) -> float:
        """Left edge."""
        return min(w.x0 for w in self.words)

    @cached_property
    def x1(self) -> float:
        """Right edge."""
        return max(w.x1 for w in self.words)

    @cached_property
    def top(self) -> float:
        """Top edge."""
        return min(w.top for w in self.words)

    @cached_property
    def bottom(self) -> float:
        """Bottom edge."""
        return max(w.bottom for w in self.words)

    @cached_property
    def size(self) -> float:
        """Font size of most of the line's characters."""
        c: Counter[float] = Counter()
        for w in self.words:
            c[round(w.size * 2) / 2] += len(w.text)
        return c.most_common(1)[0][0]

    @cached_property
    def bold(self) -> bool:
        """Whether (almost) all characters are bold."""
        letters = [(w.bold, sum(map(str.isalpha, w.text))) for w in self.words]
        n = sum(k for _, k in letters)
        return n > 0 and sum(k for bold, k in letters if bold) >= 0.9 * n

    @cached_property
    def baseline(self) -> float:
        """Median bottom of the line's full-size words (sub- and superscripts aside)."""
        return statistics.median(w.bottom for w in self.words if w.size >= self.size - 0.6)

    @cached_property
    def text(self) -> str:
        """The line's text."""
        return " ".join(w.text for w in self.words)


def _segments(words: list[Word]) -> list[list[Word]]:
    """Words grouped into horizontal segments: same baseline, small gaps."""
    words = sorted(words, key=lambda w: (round(w.bottom), w.x0))
    rows: list[list[Word]] = []
    for w in sorted(words, key=lambda w: w.bottom):
        placed = False
        for row in reversed(rows[-6:]):
            ref = row[0]
            h = min(ref.bottom - ref.top, w.bottom - w.top)
            if abs(ref.bottom - w.bottom) <= max(1.5, 0.3 * h):
                row.append(w)
                placed = True
                break
        if not placed:
            rows.append([w])
    segs: list[list[Word]] = []
    for row in rows:
        row.sort(key=lambda w: w.x0)
        seg = [row[0]]
        for w in row[1:]:
            prev = seg[-1]
            if w.x0 - prev.x1 > max(1.0 * max(prev.size, w.size), 6.0):
                segs.append(seg)
                seg = [w]
            else:
                seg.append(w)
        segs.append(seg)
    return segs


def _x_span(words: list[Word]) -> tuple[float, float]:
    """The left and right edges of a run of words."""
    return min(w.x0 for w in words), max(w.x1 for w in words)


def _find_gutter(segs: list[list[Word]], width: float) -> float | None:
    """The x of a two-column gutter on the page, or None for a single-column page."""
    spans = [_x_span(s) for s in segs if sum(len(w.text) for w in s) >= 3]
    if len(spans) < 12:
        return None
    lo, hi = int(width * 0.35), int(width * 0.65)
    covers = [(sum(1 for a, b in spans if a < x < b), x) for x in range(lo, hi + 1, 2)]
    cover = min(c for c, _ in covers)
    gx = float(next(x for c, x in covers if c == cover))  # the first x of the least cover
    # widen to the middle of the empty strip
    xs = [x for c, x in covers if c == cover]
    run = [x for x in xs if abs(x - gx) <= 40]
    gx = (min(run) + max(run)) / 2 if run else gx
    left = [s for s in spans if s[1] <= gx]
    right = [s for s in spans if s[0] >= gx]
    if len(left) < 0.2 * len(spans) or len(right) < 0.2 * len(spans):
        return None
    if cover > 0.25 * len(spans) and _interleaved(segs, gx, width) > 0.1 * len(spans):
        # many lines cross the gutter, and not only in bands above or below the columns (a full-width
        # abstract over a two-column body is banded; one-column text with a gap down the middle is not)
        return None
    # both columns must hold real text lines (not one narrow figure label column)
    if sum(1 for a, b in left if b - a >= 0.25 * width) < 5 or sum(1 for a, b in right if b - a >= 0.25 * width) < 5:
        return None
    return gx


def _interleaved(segs: list[list[Word]], gx: float, width: float) -> int:
    """How many segments crossing the gutter ``gx`` stand between two-column lines: with column text lines
    (a quarter of the page wide or more) of both sides above and below them."""
    rows = [(*_x_span(s), statistics.median(w.bottom for w in s)) for s in segs if sum(len(w.text) for w in s) >= 3]
    left = sorted(y for a, b, y in rows if b <= gx and b - a >= 0.25 * width)
    right = sorted(y for a, b, y in rows if a >= gx and b - a >= 0.25 * width)
    if not left or not right:
        return 0
    top, bottom = max(left[0], right[0]), min(left[-1], right[-1])
    return sum(1 for a, b, y in rows if a < gx < b and top < y < bottom)


def _page_lines(pw: PageWords) -> list[Line]:
    """The page's lines in reading order."""
    if not pw.words:
        return []
    segs = _segments(pw.words)
    gutter = _find_gutter(segs, pw.width)
    if gutter is None:
        return _rows_to_lines(segs, pw.number, -1)
    full, left, right = [], [], []
    for s in segs:
        a, b = _x_span(s)
        if b <= gutter:
            left.append(s)
        elif a >= gutter:
            right.append(s)
        else:
            full.append(s)
    # bands: full-width segments split the page; within a band, left column then right column
    full_rows = _rows_to_lines(full, pw.number, -1)
    out: list[Line] = []
    left_lines = _rows_to_lines(left, pw.number, 0)
    right_lines = _rows_to_lines(right, pw.number, 1)
    breaks = [ln.top for ln in full_rows] + [float("inf")]
    prev_break = -float("inf")
    fi = 0
    for br in breaks:
        band_l = [ln for ln in left_lines if prev_break <= ln.top < br]
        band_r = [ln for ln in right_lines if prev_break <= ln.top < br]
        out.extend(band_l)
        out.extend(band_r)
        if fi < len(full_rows):
            out.append(full_rows[fi])
            prev_break = full_rows[fi].top
            fi += 1
    return out


def _rows_to_lines(segs: list[list[Word]], page: int, col: int) -> list[Line]:
    """Segments on the same baseline merged into lines (cells counted), sorted top to bottom."""
    segs = sorted(segs, key=lambda s: (statistics.median(w.bottom for w in s), s[0].x0))
    lines: list[Line] = []
    for s in segs:
        b = statistics.median(w.bottom for w in s)
        if lines:
            last = lines[-1]
            lb = statistics.median(w.bottom for w in last.words)
            h = min(last.bottom - last.top, max(w.bottom - w.top for w in s))
            if abs(lb - b) <= max(1.5, 0.3 * h):
                lines[-1] = Line(sorted(last.words + s, key=lambda w: w.x0), page, col)
                continue
        lines.append(Line(list(s), page, col))
    lines = _attach_superscripts(lines, page, col)
    for ln in lines:
        ln.cells = 1 + sum(1 for a, c in zip(ln.words, ln.words[1:], strict=False)
                           if c.x0 - a.x1 > 1.0 * max(a.size, c.size, 4))
    if lines:
        x0s = Counter(round(ln.x0) for ln in lines if len(ln.text) > 20)
        left = min(x0s, key=lambda x: (-x0s[x], x)) if x0s else min(ln.x0 for ln in lines)
        left = min([left, *[ln.x0 for ln in lines if len(ln.text) > 20 and ln.x0 >= left - 3]])
        x1s = Counter(round(ln.x1) for ln in lines if len(ln.text) > 20)
        right = max(ln.x1 for ln in lines)
        if x1s:  # the common right margin (a code line or URL running into the gutter is not the edge)
            mode_r = min(x1s, key=lambda x: (-x1s[x], -x))
            if sum(x1s.values()) >= 5 and x1s[mode_r] >= 0.2 * sum(x1s.values()):
                right = max(ln.x1 for ln in lines if len(ln.text) > 20 and ln.x1 <= mode_r + 3)
        for ln in lines:
            ln.col_x0, ln.col_x1 = left, right
    return lines


def _attach_superscripts(lines: list[Line], page: int, col: int) -> list[Line]:
    """Tiny small-font "lines" (superscripts, footnote marks, "+" of P+) put back into the text line they overlap."""
    out = list(lines)
    k = 0
    while k < len(out):
        ln = out[k]
        chars = len(ln.text.replace(" ", ""))
        if chars <= 3 and len(out) > 1:
            best, best_ov = -1, 0.0
            for j in (k - 1, k + 1):
                if 0 <= j < len(out):
                    o = out[j]
                    ov = min(ln.bottom, o.bottom) - max(ln.top, o.top)
                    if (ov >= 0.4 * (ln.bottom - ln.top) and ln.size <= o.size - 1.0
                            and len(o.text) > 10 and o.x0 - 2 <= ln.x0 and ln.x1 <= o.x1 + 3 * o.size and ov > best_ov):
                        best, best_ov = j, ov
            if best >= 0:
                o = out[best]
                out[best] = Line(sorted(o.words + ln.words, key=lambda w: w.x0), page, col)
                del out[k]
                continue
        k += 1
    return out


# ----------------------------------------------------------------------------------------------
# blocks


@dataclass
class Block:
    """Consecutive lines of one paragraph, heading or excluded item."""

    lines: list[Line]
    kind: str = "body"  # body, heading, caption, table, figure, footnote, equation, header, title
    indented: bool = False
    col_top: bool = False

    @property
    def page(self) -> int:
        """First page."""
        return self.lines[0].page

    @cached_property
    def size(self) -> float:
        """Most common font size."""
        c: Counter[float] = Counter()
        for ln in self.lines:
            c[ln.size] += len(ln.text)
        return c.most_common(1)[0][0]


# cue patterns: resources/lexicons/documents.readers.pdf.yaml
_CAPTION = pattern("documents.readers.pdf", "CAPTION")
_NUMBERED = re.compile(r"^((\d+(\.\d+)*)\.?|[IVX]+\.|[A-H]\.(\d+\.?)*)\s+\S")
_ABSTRACT_HEAD = re.compile(r"^\s*(abstract|summary)\s*[:.]?\s*$", re.I)
_ABSTRACT_RUNIN = re.compile(r"^\s*(abstract|summary)\s*([.:—–-]|\s(?=[A-Z]))\s*", re.I)
_KEYWORDS = re.compile(r"^\s*(key\s*words?|index\s+terms|jel\s+classification)\b", re.I)
_PAGE_NUM = re.compile(r"^\s*(page\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?\s*((of|/)\s*\d{1,4})?\s*$", re.I)
_EQ_NUM = re.compile(r"\(\s*\d{1,3}[a-z]?\s*\)$")
_SENT_END = re.compile(r"[.!?:][\"'”’)\]]*$")


def _norm_repeat(text: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", text.strip().lower()))


def _mark_headers(pages: list[list[Line]], heights: dict[int, float]) -> set[int]:
    """ids of lines that are running headers/footers or page numbers."""
    out: set[int] = set()
    edge_lines: list[tuple[Line, str]] = []
    for lines in pages:
        if not lines:
            continue
        h = heights[lines[0].page]
        for ln in lines:
            near_top = ln.top < 0.1 * h
            near_bottom = ln.bottom > 0.9 * h
            if near_top or near_bottom:
                edge_lines.append((ln, _norm_repeat(ln.text)))
                if _PAGE_NUM.match(ln.text) or ln.bottom < 0.025 * h or ln.top > 0.975 * h or ln.size < 3:
                    out.add(id(ln))  # a page number, or a stamp in the page's margin (SAGE's "...PSSXXX10.1177/...")
    n_pages = len([p for p in pages if p])
    if n_pages >= 2:
        counts = Counter(k for _, k in edge_lines)
        repeated: list[set[str]] = []
        for ln, k in edge_lines:
            if counts[k] >= 2 and counts[k] >= 0.3 * n_pages and len(k) <= 200:
                out.add(id(ln))
                repeated.append(set(k.split()))
        # a piece of a running head (the head of odd pages split by the gutter: "L. M. DeBruine 921" | "Context-
        # specific effects ..."): every word of it in one repeated head
        for ln, k in edge_lines:
            words = set(k.split())
            if id(ln) not in out and len(words) >= 2 and any(words <= r for r in repeated):
                out.add(id(ln))
    return out


def _is_tabular(ln: Line, body_size: float) -> bool:
    text = ln.text
    digits = sum(map(str.isdigit, text))
    alpha = sum(map(str.isalpha, text))
    if ln.cells >= 3:
        return True
    if ln.cells >= 2 and (digits >= alpha or ln.size < body_size - 0.6):
        return True
    tokens = text.split()
    numeric = sum(1 for t in tokens if re.fullmatch(r"[-+±−]?[\d.,%()±]+[*†‡]*", t))
    return len(tokens) >= 4 and numeric >= 0.6 * len(tokens)


def _heading_like(ln: Line, body_size: float) -> bool:
    text = ln.text.strip()
    words = text.split()
    if not words or len(text) > 110 or len(words) > 14 or not re.search(r"[A-Za-z]{3}", text):
        return False
    letters = sum(map(str.isalpha, text))
    if letters < 0.6 * len(text.replace(" ", "")):
        return False
    if _CAPTION.match(text) or text.endswith((",", ";")) or text[0].islower():
        return False
    if text.endswith(".") and len(words) > 3 and not _ABSTRACT_HEAD.match(text):
        return False  # sentences end with periods; headings rarely do
    bigger = ln.size >= body_size + 0.9
    caps = sum(map(str.isupper, text)) >= 0.8 * sum(map(str.isalpha, text)) and len(text) >= 4
    if ln.bold or bigger:
        return True
    return bool(caps and (_NUMBERED.match(text) or excluded_heading(text) or section_kind(text) != "other"
                          or _ABSTRACT_HEAD.match(text)))


_MATH = pattern("documents.readers.pdf", "MATH")
_CITATION = re.compile(r"\bet\s+al\b|\b(1[89]|20)\d\d[a-z]?\b")
_WORD = re.compile(r"[A-Za-z][a-z]{2,}[,.;:]?")


def _display_math(ln: Line, body_size: float) -> bool:
    """A display-equation line (or a stray piece of one: big delimiters, "max"), not prose."""
    text = ln.text.strip()
    toks = text.split()
    if not toks or _CAPTION.match(text) or _CITATION.search(text):
        return False
    indent_l = ln.x0 - ln.col_x0
    indent_r = ln.col_x1 - ln.x1
    words = sum(1 for t in toks if _WORD.fullmatch(t))
    mathy = bool(_MATH.search(text))
    if _EQ_NUM.search(text) and mathy and words <= 0.5 * len(toks) and (
            indent_l > 1.5 * body_size or len(toks) <= 8 or words <= 0.2 * len(toks)):
        return True
    alpha_toks = sum(1 for t in toks if re.search(r"[A-Za-z]", t))
    if len(toks) >= 8 and words <= 0.1 * len(toks) and alpha_toks >= 0.5 * len(toks) and ln.cells == 1 and (
            re.search(r"[;/(\[]", text)):
        return True  # a formula set flush left: symbols and punctuation, hardly a word
    if indent_l > 1.2 * body_size and indent_r > body_size:  # set off on both sides, like a display
        if (mathy and words <= 0.4 * len(toks)) or (len(toks) >= 4 and words <= 0.2 * len(toks)):
            return True
        if indent_l > 2 * body_size and len(toks) <= 3 and sum(map(str.isalpha, text)) <= 6 and not _SENT_END.search(text):
            return True
    return False


def _tabular_lines(lines: list[Line], body_size: float, pitch: float) -> list[bool]:
    """``_is_tabular`` of each line, except a lone "tabular" line inside running prose: a justified line whose
    gaps a statistic's spacing widened ("t52 ¼ 0:71, p ¼ 0:48,   women:") between two prose lines of its column,
    same size, at the line pitch, is prose."""
    tabs = [_is_tabular(ln, body_size) for ln in lines]
    out = list(tabs)
    for k in range(1, len(lines) - 1):
        if not tabs[k] or tabs[k - 1] or tabs[k + 1]:
            continue
        a, ln, c = lines[k - 1], lines[k], lines[k + 1]
        if (a.page == ln.page == c.page and a.col == ln.col == c.col and a.size == ln.size == c.size
                and 0 < ln.bottom - a.bottom < 1.45 * pitch and 0 < c.bottom - ln.bottom < 1.45 * pitch
                and sum(map(str.isalpha, ln.text)) >= 0.15 * len(ln.text.replace(" ", ""))):
            out[k] = False
    return out


def _blocks(lines: list[Line], body_size: float, pitch: float) -> list[Block]:
    """Group reading-ordered lines into blocks."""
    blocks: list[Block] = []
    prev: Line | None = None
    prev_math = False
    tabs = _tabular_lines(lines, body_size, pitch)
    for k, ln in enumerate(lines):
        heading = _heading_like(ln, body_size)
        math = not heading and _display_math(ln, body_size)
        tab = tabs[k]
        near = [o for o in (lines[k - 1] if k else None, lines[k + 1] if k + 1 < len(lines) else None)
                if o is not None and o.page == ln.page and o.col == ln.col and abs(o.top - ln.top) < 2.5 * pitch]
        ref_x0 = min((o.x0 for o in near), default=ln.col_x0)
        ref_x1 = max((o.x1 for o in near), default=ln.col_x1)
        indent = ln.x0 - ref_x0
        indented = 0.8 * min(ln.size, body_size) <= indent <= 6 * body_size and ln.x1 >= ref_x1 - 3 * body_size
        new = prev is None
        col_top = False
        if prev is not None:
            same_col = prev.page == ln.page and prev.col == ln.col
            if not same_col or ln.top < prev.top - 1:
                new, col_top = True, True
            else:
                gap = ln.top - prev.bottom
                line_pitch = ln.bottom - prev.bottom
                if line_pitch > 1.45 * pitch or (
                        _SENT_END.search(prev.text) and ln.baseline - prev.baseline > pitch + 0.2 * body_size
                        and ln.size == prev.size == body_size) or gap > 0.9 * max(ln.size, body_size) or abs(ln.size - prev.size) >= 1.0 or heading != _heading_like(prev, body_size) or heading or tab != tabs[k - 1] or (indented and not tab) or (_SENT_END.search(prev.text) and prev.x1 < prev.col_x1 - 2.5 * body_size and not tab) or _CAPTION.match(ln.text) or math != prev_math:
                    new = True
        if new:
            blocks.append(Block([ln], indented=indented, col_top=col_top))
        else:
            blocks[-1].lines.append(ln)
        prev = ln
        prev_math = math
    return blocks


def _classify(blocks: list[Block], body_size: float, pitch: float) -> None:
    """Set each block's kind."""
    for i, b in enumerate(blocks):
        text = " ".join(ln.text for ln in b.lines).strip()
        first = b.lines[0]
        n_chars = len(text)
        if _CAPTION.match(text):
            b.kind = "caption"
        elif all(_heading_like(ln, body_size) for ln in b.lines) and len(b.lines) <= 3 and n_chars <= 160:
            b.kind = "heading"
        elif all(_display_math(ln, body_size) for ln in b.lines) and _EQ_NUM.search(text):
            b.kind = "equation"
        elif sum(_is_tabular(ln, body_size) for ln in b.lines) >= max(1, 0.5 * len(b.lines)) and (
                len(b.lines) >= 2 or first.cells >= 3):
            b.kind = "table"
        elif len(b.lines) <= 2 and _EQ_NUM.search(text) and (
                first.x0 > first.col_x0 + 2 * body_size or len(text) < 60):
            b.kind = "equation"
        elif b.size <= body_size - 1.2:
            # small print: footnote at the foot of a column, otherwise figure text
            later_same_col = [x for x in blocks[i + 1:] if x.page == b.page and x.lines[0].col == first.col]
            below_body = any(x.size > body_size - 0.6 and len(" ".join(ln.text for ln in x.lines)) > 40
                             for x in later_same_col)
            b.kind = "figure" if below_body else "footnote"
        elif _figure_text(b, body_size):
            b.kind = "figure"
        elif all(_display_math(ln, body_size) for ln in b.lines) and not all(
                _is_tabular(ln, body_size) for ln in b.lines):
            b.kind = "equation"
    _table_cells_near_captions(blocks, pitch)
    _rejoin_false_headings(blocks, body_size)
    _headings_inside_sentences(blocks)


def _headings_inside_sentences(blocks: list[Block]) -> None:
    """Headings between a paragraph that stops mid-sentence and the body block that goes on with it (lowercase, or
    after a dangling operator), with only figure, table, caption, footnote or equation blocks around them, are no
    section headings: a chart's title, a footnote's label ("Corresponding Author:"). A section never begins
    inside a sentence."""
    skip = ("figure", "table", "caption", "footnote", "equation", "heading")
    i = 0
    while i < len(blocks):
        if blocks[i].kind != "body":
            i += 1
            continue
        j = i + 1
        while j < len(blocks) and blocks[j].kind in skip:
            j += 1
        between = [k for k in range(i + 1, j) if blocks[k].kind == "heading"]
        if between and j < len(blocks):
            last = blocks[i].lines[-1].text.rstrip()
            nxt = blocks[j].lines[0].text.lstrip()
            if not _SENT_END.search(last) and (nxt[:1].islower() or (_DANGLING.search(last) and not nxt[:1].isupper())):
                for k in between:
                    head = " ".join(ln.text for ln in blocks[k].lines)
                    if _ABSTRACT_HEAD.match(head) or _KEYWORDS.match(head) or _NUMBERED.match(head):
                        continue
                    blocks[k].kind = "footnote" if blocks[k + 1].kind == "footnote" else "figure"
        i = j


def _rejoin_false_headings(blocks: list[Block], body_size: float) -> None:
    """A one-line "heading" that is a paragraph's first line (bold prose: a bold abstract, a lead paragraph): the
    block right below it in the same column, same size and weight, goes on in lowercase. Merged into one body block."""
    k = 0
    while k + 1 < len(blocks):
        h, nb = blocks[k], blocks[k + 1]
        a, c = h.lines[-1], nb.lines[0]
        if (h.kind == "heading" and len(h.lines) == 1 and nb.kind == "body" and c.text[:1].islower()
                and not _SENT_END.search(a.text) and a.page == c.page and a.col == c.col and a.size == c.size
                and a.bold == c.bold and 0 <= c.top - a.bottom < 0.9 * max(a.size, body_size)
                and len(a.text) >= 50 and sum(len(ln.text) for ln in nb.lines) >= 150):
            blocks[k] = Block(h.lines + nb.lines, kind="body", indented=h.indented, col_top=h.col_top)
            del blocks[k + 1]
            continue
        k += 1


def _table_cells_near_captions(blocks: list[Block], pitch: float) -> None:
    """Body blocks of short lines stacked right above or below a table caption are the table's cells."""
    def short(b: Block) -> bool:
        return all(ln.x1 - ln.x0 < 0.75 * max(1.0, ln.col_x1 - ln.col_x0) for ln in b.lines)

    for i, cap in enumerate(blocks):
        if cap.kind != "caption" or not re.match(r"(?i)tab", cap.lines[0].text):
            continue
        for step in (-1, 1):
            edge = cap.lines[0] if step < 0 else cap.lines[-1]
            j = i + step
            while 0 <= j < len(blocks):
                b = blocks[j]
                near = b.lines[-1] if step < 0 else b.lines[0]
                if (b.page != cap.page or near.col != edge.col or b.kind not in ("body", "table", "equation", "figure")
                        or not short(b) or abs(near.top - edge.top) > 4 * pitch):
                    break
                if b.kind in ("body", "equation"):
                    b.kind = "table"
                edge = b.lines[0] if step < 0 else b.lines[-1]
                j += step


def _figure_text(b: Block, body_size: float) -> bool:
    """A stray label inside a figure (axis ticks, "+", "(a)") rather than prose or a statistic."""
    text = " ".join(ln.text for ln in b.lines)
    if len(b.lines) > 1 or len(text) >= 25 or re.search(r"[=<>≤≥]", text):
        return False
    alpha = sum(map(str.isalpha, text))
    return alpha < 0.5 * len(text) or b.lines[0].size < body_size - 0.6 or (len(text.split()) <= 2 and not _SENT_END.search(text))


# ----------------------------------------------------------------------------------------------
# text assembly


_HYPHEN_END = re.compile(r"([A-Za-z\u00C0-\u024F]+)[-\u00AD\u2010\x02]$")
_TOKEN = re.compile(r"[A-Za-z\u00C0-\u024F]+(?:-[A-Za-z\u00C0-\u024F]+)*")


def _join_lines(lines: list[Line], vocab: Counter[str]) -> str:
    """Join a block's lines, undoing end-of-line hyphenation."""
    out = ""
    for ln in lines:
        text = ln.text
        if not out:
            out = text
            continue
        m = _HYPHEN_END.search(out)
        nxt = re.match(r"[a-z\u00DF-\u00FF]+", text)
        if m and nxt:
            a, b = m.group(1), nxt.group(0)
            joined = (a + b).lower()
            hyphenated = f"{a}-{b}".lower()
            keep = vocab[hyphenated] > 0 and vocab[hyphenated] >= vocab[joined]
            if not keep and vocab[joined] == 0 and "-" in out[max(0, m.start() - 30):m.start()].split(" ")[-1]:
                keep = True  # "state-of-the-" + "art"
            out = out[: m.end(1)] + ("-" if keep else "") + text
        elif _DANGLING_MINUS.search(out) and _NUMBER_START.match(text):
            out = out + text  # "t(97) = -" + "3.37": the minus belongs to the number
        else:
            out = out + " " + text
    return out


# a line that ends inside a statement: an operator, an opening bracket, a minus waiting for its number
_DANGLING = re.compile(r"(?:[=<>≤≥±×+(\[{,]|(?:^|[\s=<>(\[,])[-−–])$")
_DANGLING_MINUS = re.compile(r"(?:^|[\s=<>(\[,])[-−–]$")
_NUMBER_START = re.compile(r"\.?\d")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _normalise(text: str) -> str:
    text = _SURROGATE.sub("\ufffd", text.replace("\x02", "-"))
    return clean_text(text, dashes=True)


def _bbox(lines: list[Line]) -> BBox:
    page = lines[0].page
    ls = [ln for ln in lines if ln.page == page]
    return BBox(x0=round(min(ln.x0 for ln in ls), 2), top=round(min(ln.top for ln in ls), 2),
                x1=round(max(ln.x1 for ln in ls), 2), bottom=round(max(ln.bottom for ln in ls), 2))


# ----------------------------------------------------------------------------------------------
# reader


@dataclass
class PdfReader:
    """Reader for PDF files (see the module docstring for the layout analysis)."""

    format: SourceFormat = "pdf"
    backend: str = field(default_factory=lambda: os.environ.get("CLAIMTRACE_PDF_BACKEND", "pypdfium2"))

    def read(self, data: bytes, path: str) -> Document:
        """Parse PDF bytes into a Document."""
        _check_pdf_bytes(data, path)
        if self.backend == "pdfplumber":
            pages = _pdfplumber_pages(data, path)
        else:
            pages = _pdfium_pages(data, path)
        if not pages:
            raise InputError(path, "PDF has no pages")
        empty = [p.number for p in pages if sum(len(w.text) for w in p.words) < 5]
        if len(empty) == len(pages):
            raise InputError(path, "no text layer (scanned PDF?); --ocr reads it (the [ocr] extra)")
        return _build(pages, empty, data, path, self.format)


def _check_pdf_bytes(data: bytes, path: str) -> None:
    head = data[:1024]
    if b"%PDF-" not in head:
        raise InputError(path, "not a PDF (no %PDF header)")
    if b"%%EOF" not in data[-2048:]:
        raise InputError(path, "truncated PDF (no %%EOF marker at the end)")


def _build(pages: list[PageWords], empty: list[int], data: bytes, path: str, fmt: SourceFormat) -> Document:
    b = DocumentBuilder(path, fmt, data)
    lone = sum(p.lone_surrogates for p in pages)
    if lone:
        b.warnings.append(f"{lone} unpaired UTF-16 surrogate(s) in the text layer replaced by U+FFFD")
    if empty:
        which = ("page " if len(empty) == 1 else "pages ") + ", ".join(map(str, empty))
        b.warnings.append(f"no text layer on {which} (scanned?): text missing from the document (--ocr reads it)")
    heights = {p.number: p.height for p in pages}
    page_lines = [_page_lines(p) for p in pages]
    for p in pages:
        if p.rotated:
            b.add_excluded("other", " ".join(p.rotated), label="rotated text", page=p.number)

    # body font size and line pitch
    sizes: Counter[float] = Counter()
    for pl in page_lines:
        for ln in pl:
            sizes[ln.size] += len(ln.text)
    body_size = sizes.most_common(1)[0][0] if sizes else 10.0
    pitches: Counter[float] = Counter()
    for pl in page_lines:
        for a, c in itertools.pairwise(pl):
            if a.col == c.col and a.size == body_size == c.size and 0 < c.bottom - a.bottom < 3 * body_size:
                pitches[round(c.bottom - a.bottom, 1)] += 1
    pitch = pitches.most_common(1)[0][0] if pitches else 1.2 * body_size

    headers = _mark_headers(page_lines, heights)
    lines: list[Line] = []
    for pl in page_lines:
        for ln in pl:
            if id(ln) in headers:
                b.add_excluded("header", ln.text, page=ln.page)
            else:
                lines.append(ln)
    if headers:  # what was kept out of the text (each line is in ``excluded`` as a "header")
        b.metadata["removed_header_lines"] = str(len(headers))

    # title: the largest font on page 1, upper part
    title_ids: set[int] = set()
    p1 = [ln for ln in lines if ln.page == pages[0].number and ln.top < 0.5 * heights[ln.page]]
    if p1:
        big = max(ln.size for ln in p1)
        if big >= body_size + 1.5:
            tl = sorted((ln for ln in p1 if ln.size >= big - 0.5), key=lambda ln: ln.top)
            run = tl[:1]
            for ln in tl[1:5]:  # the title's lines: one vertical run (column lines may interleave in reading order)
                if ln.top - run[-1].bottom > 1.2 * big:
                    break
                run.append(ln)
            b.title = " ".join(ln.text for ln in run)
            title_ids = {id(ln) for ln in run}
    lines = [ln for ln in lines if id(ln) not in title_ids]

    blocks = _blocks(lines, body_size, pitch)
    _classify(blocks, body_size, pitch)
    vocab: Counter[str] = Counter()
    for ln in lines:
        for tok in _TOKEN.findall(ln.text):
            vocab[tok.lower()] += 1
            if "-" in tok:
                vocab[tok.replace("-", "").lower()] += 0
    body_blocks = [bl for bl in blocks if bl.kind == "body"]
    indent_style = sum(bl.indented for bl in body_blocks) >= 0.3 * max(1, len(body_blocks))
    _emit(b, blocks, vocab, indent_style)
    if b.paragraph_count == 0 and not b._abstract:
        raise InputError(path, "no body text found in the PDF")
    _add_tables(b, data, blocks)
    return b.build()


def _add_tables(b: DocumentBuilder, data: bytes, blocks: list[Block]) -> None:
    """Table grids on the pages with a table caption (readers/pdf_tables.py)."""
    from claimtrace.documents.readers.pdf_tables import Caption, caption_of, read_pdf_tables

    caps = []
    for bl in blocks:
        text = " ".join(ln.text for ln in bl.lines)
        if bl.kind == "caption" and (lc := caption_of(text)):
            box = _bbox(bl.lines)
            caps.append(Caption(page=bl.page, label=lc[0], text=lc[1], top=box.top, bottom=box.bottom))
    for raw in read_pdf_tables(data, caps):
        b.add_table(raw)


def _emit(b: DocumentBuilder, blocks: list[Block], vocab: Counter[str], indent_style: bool) -> None:
    """Walk the blocks: front matter, abstract, sections, excluded blocks and body paragraphs."""
    first_page = blocks[0].page if blocks else 1
    texts = [_text(bl, vocab) for bl in blocks]
    # front matter (authors, affiliations...): page-1 blocks before the abstract, the first section
    # heading or the first long paragraph
    front_until = 0
    for i, bl in enumerate(blocks):
        if bl.page != first_page:
            break
        text = texts[i]
        # (a back-matter heading on page 1, like BMC's "Open Access" banner, does not end the front matter)
        if (bl.kind == "heading" and _section_heading(text) and not excluded_heading(text)) \
                or _ABSTRACT_RUNIN.match(text) or (bl.kind == "body" and len(text) >= 250):
            front_until = i
            break
    # an "Abstract" heading in any style on the first pages (an APA manuscript's plain centred line, page 2)
    head_at = next((i for i, bl in enumerate(blocks) if bl.page <= first_page + 2 and _ABSTRACT_HEAD.match(texts[i])
                    and len(bl.lines) == 1), None)
    unlabelled = None if head_at is not None else _unlabelled_abstract(blocks, texts, first_page)
    abstract_at = head_at if head_at is not None else (unlabelled[0][0] if unlabelled else None)
    if abstract_at is not None:
        # what stands before the abstract on its page (title, authors, affiliations) is front matter; so is a
        # title page before it that holds no paragraph
        apage = blocks[abstract_at].page
        title_page = all(bl.kind != "body" or len(texts[k]) < 250 for k, bl in enumerate(blocks[:abstract_at])
                         if bl.page < apage)
        front_until = max(front_until, sum(1 for bl in blocks[:abstract_at] if bl.page == apage or title_page))
        if not title_page:
            front_until = max(front_until, 0)
    if unlabelled:
        b.metadata["abstract_source"], conf = "unlabelled", unlabelled[1]
    elif head_at is not None:
        b.metadata["abstract_source"], conf = "heading", 0.95
    else:
        conf = 0.0
    abstract_idx = set(unlabelled[0]) if unlabelled else set()
    if not b.authors:
        b.authors = _authors(blocks[:front_until], texts[:front_until], b.title)
    keywords_next = False  # the block after a "Keywords" heading holds the keywords

    mode = "body"  # body | abstract | excluded
    abstract_page = first_page  # the page the abstract starts on
    abstract_chars = 0
    excl_kind: ExcludedKind = "references"
    section: str | None = None
    pending: list[Line] = []  # the body paragraph being assembled
    pending_section: str | None = None
    abstract: list[tuple[str | None, list[Line]]] = []  # (label, lines) of the abstract
    ref_entry: list[Line] = []

    def flush_para() -> None:
        nonlocal pending
        if pending:
            text = _normalise(_join_lines(pending, vocab))
            pages = sorted({ln.page for ln in pending})
            b.add_paragraph(text, pending_section, page=pending[0].page, pages=pages, bbox=_bbox(pending),
                            clean=False)
        pending = []

    def flush_refs() -> None:
        nonlocal ref_entry
        if ref_entry:
            b.add_excluded(excl_kind, _normalise(_join_lines(ref_entry, vocab)), section=section,
                           page=ref_entry[0].page)
        ref_entry = []

    for i, bl in enumerate(blocks):
        text = texts[i]
        if i in abstract_idx:
            if abstract:
                abstract[-1][1].extend(bl.lines)
            else:
                abstract.append((None, list(bl.lines)))
            continue
        if i < front_until:
            if _KEYWORDS.match(text):
                b.metadata.setdefault("keywords", _KEYWORDS.sub("", text, count=1).strip(" :.—–-"))
            b.add_excluded("front matter", text, page=bl.page)
            continue
        if i == head_at:
            flush_para()
            mode, abstract_page = "abstract", bl.page
            continue
        if mode == "abstract" and (_KEYWORDS.match(text) or (abstract and _layout_changes(abstract, bl))):
            mode = "body"  # a Keywords line, or the text set differently (columns, font size): the body begins
        if bl.kind == "heading":
            flush_para()
            kind = excluded_heading(text)
            if mode == "excluded" and excl_kind == "references" and kind is None and not _APPENDIX.match(text):
                ref_entry.extend(bl.lines)  # a heading inside the reference list
                continue
            flush_refs()
            if _ABSTRACT_HEAD.match(text):
                mode, abstract_page = "abstract", bl.page
            elif kind is not None:
                mode, excl_kind, section = "excluded", kind, text
            elif _KEYWORDS.match(text):
                b.add_excluded("front matter", text, page=bl.page)
                keywords_next = True
                if mode == "abstract":
                    mode = "body"
            else:
                mode, section = "body", text
            continue
        if mode == "excluded":
            if excl_kind == "references":
                for ln in bl.lines:
                    if ref_entry and _new_reference(ln, ref_entry[-1]):
                        flush_refs()
                    ref_entry.append(ln)
            else:
                b.add_excluded(excl_kind, text, section=section, page=bl.page)
            continue
        if bl.kind != "body":
            b.add_excluded(_KIND_MAP.get(bl.kind, "other"), text, section=section, page=bl.page)
            if bl.kind == "equation" and (len(text.replace(" ", "")) >= 8 or _EQ_NUM.search(text)):
                flush_para()  # text after a display equation starts a new paragraph ("where ..."); not after
                # a stray symbol of inline math ("cite" over an arrow)
            continue
        if _KEYWORDS.match(text) or (keywords_next and len(text) < 300 and not _SENT_END.search(text)):
            b.metadata.setdefault("keywords", _KEYWORDS.sub("", text, count=1).strip(" :.—–-"))
            b.add_excluded("front matter", text, page=bl.page)
            keywords_next = False
            continue
        keywords_next = False
        m = _ABSTRACT_RUNIN.match(text)
        if m and not abstract and bl.page == first_page and mode == "body" and section is None:
            mode, abstract_page, abstract_chars = "abstract", bl.page, len(text)
            abstract.append((None, list(bl.lines)))
            continue
        if mode == "abstract":
            label = _STRUCTURED_LABEL.match(text)
            if abstract and (_abstract_ends(bl.page, abstract_page, abstract_chars + len(text), bool(label))
                             or (bl.indented and indent_style and not label and abstract[0][0] is None
                                 and abstract_chars >= ABSTRACT_PARAGRAPH_CHARS)):
                mode = "body"  # the abstract cannot swallow the paper: the rest is body text
            else:
                abstract_chars += len(text)
                if label or not abstract:
                    abstract.append((label.group(1) if label else None, list(bl.lines)))
                else:
                    abstract[-1][1].extend(bl.lines)
                continue
        adjacent = i > 0 and bool(pending) and blocks[i - 1].lines[-1] is pending[-1]
        if pending and section == pending_section and _continues(pending, bl, text, indent_style, adjacent):
            pending.extend(bl.lines)
            continue
        flush_para()
        pending = list(bl.lines)
        pending_section = section
    flush_para()
    flush_refs()
    for abs_label, lns in abstract:
        text = _normalise(_join_lines(lns, vocab))
        if abs_label is None and _ABSTRACT_RUNIN.match(text):
            text = _ABSTRACT_RUNIN.sub("", text, count=1)
        if abs_label:
            text = _STRUCTURED_LABEL.sub("", text, count=1)
        text = _COPYRIGHT_TAIL.sub("", text)
        b.add_abstract(text, label=abs_label.upper() if abs_label else None, page=lns[0].page)
    if abstract and "abstract_source" not in b.metadata:
        b.metadata["abstract_source"], conf = "run-in", 0.9
    b.metadata["abstract_confidence"] = f"{conf:.2f}" if abstract else "0.00"
    if not abstract:
        b.warnings.append("no abstract found in the PDF (no 'Abstract' heading and no block set apart as one)")
    elif conf < 0.8:
        b.warnings.append(f"the abstract is a guess: a block without an 'Abstract' heading (confidence {conf:.2f})")


# "© 2004 Elsevier Inc. All rights reserved." (the © often extracted as "D" or "(c)") closing an abstract
_COPYRIGHT_TAIL = re.compile(r"\s*(?:©|\(c\)|D|Copyright)\s*(?:\d{4}\s+)?[^.]{0,80}\.\s*All rights reserved\.?\s*$", re.I)


def _layout_changes(abstract: list[tuple[str | None, list[Line]]], bl: Block) -> bool:
    """Whether a block is set unlike the (unstructured) abstract before it: the abstract ran the full width of a
    two-column page and the block sits in a column, or its font size differs."""
    if abstract[0][0] is not None or len(bl.lines) < 2:
        return False
    lines = [ln for _, lns in abstract for ln in lns]
    full = sum(1 for ln in lines if ln.col == -1) >= 0.8 * len(lines)
    in_col = all(ln.col >= 0 for ln in bl.lines)
    size = Counter(ln.size for ln in lines).most_common(1)[0][0]
    return (full and in_col and bl.page == lines[-1].page) or abs(bl.size - size) >= 0.8


def _set_apart(cand: list[Block], after: Block | None, body_size: float) -> bool:
    """Whether candidate abstract blocks are set apart from the body text that follows them: bold, another font
    size, the full width over a column, or indented on both sides."""
    lines = [ln for bl in cand for ln in bl.lines]
    if all(ln.bold for ln in lines) or abs(Counter(ln.size for ln in lines).most_common(1)[0][0] - body_size) >= 0.5:
        return True
    if after is None:
        return False
    full = sum(1 for ln in lines if ln.col == -1) >= 0.8 * len(lines)
    if full and all(ln.col >= 0 for ln in after.lines):
        return True
    x0 = statistics.median(ln.x0 for ln in lines)
    x1 = statistics.median(ln.x1 for ln in lines)
    return x0 > after.lines[0].col_x0 + 0.8 * body_size and x1 < after.lines[0].col_x1 - 0.8 * body_size


_NOT_NAME, _NAME = patterns("documents.readers.pdf", "NOT_NAME", "NAME")


def _authors(blocks: list[Block], texts: list[str], title: str | None) -> list[str]:
    """Author names from the front matter: blocks of body size or larger, not in capitals, that are lists of names
    (two to five capitalised words or initials each, affiliation marks dropped), before any "Corresponding author"
    line; lines of the title skipped."""
    if not blocks:
        return []
    body = Counter(ln.size for bl in blocks for ln in bl.lines).most_common(1)[0][0]
    sizes = sorted(ln.size for bl in blocks for ln in bl.lines)
    floor = min(body, sizes[len(sizes) // 2]) if sizes else body
    out: list[str] = []
    for bl, text in zip(blocks, texts, strict=True):
        if re.match(r"(?i)\s*(correspond|e-?mail|keywords)", text):
            break
        if title and text in title:
            continue  # a line of the title
        if bl.size < floor or sum(map(str.isupper, text)) > 0.6 * max(1, sum(map(str.isalpha, text))):
            continue
        clean = re.sub(r"[\d*†‡§¶∗#]+(?=[\s,&]|$)|(?<=[a-z])[\d*†‡§¶∗,]+", " ", text)
        parts = [p.strip(" ,;") for p in re.split(r",|;|\band\b|&", clean)]
        parts = [" ".join(p.split()) for p in parts if p.strip(" ,;")]
        if not parts or len(parts) > 30 or _NOT_NAME.search(clean):
            continue
        if all(2 <= len(p.split()) <= 5 and all(_NAME.match(w) for w in p.split()) for p in parts):
            out.extend(p for p in parts if p not in out)
    return out


_NUMBERED_CITE = re.compile(r"\[\d{1,3}(?:\s?[,–-]\s?\d{1,3})*\]")


def _unlabelled_abstract(blocks: list[Block], texts: list[str], first_page: int) -> tuple[list[int], float] | None:
    """The blocks of an abstract printed without a heading, with a confidence, or None.

    The candidate is the first paragraph of 300 characters or more on the first two pages, before any section
    heading or Keywords line, with body text after it; it is an abstract when a Keywords line or a section heading
    (not back matter) follows it, or it is set apart from the body after it (``_set_apart``). A candidate with three
    or more citations (an introduction's opening) needs both. Confidence: 0.9 with both signs, else 0.75.
    """
    for i, bl in enumerate(blocks):
        if bl.page > first_page + 2:
            break
        if _ABSTRACT_RUNIN.match(texts[i]):
            return None
    start = None
    for i, bl in enumerate(blocks):
        t = texts[i]
        if bl.page > first_page + 1 or _KEYWORDS.match(t) or (
                bl.kind == "heading" and _section_heading(t) and not excluded_heading(t)):
            return None
        if bl.kind == "body" and len(t) >= 300 and t[:1].isupper():
            start = i
            break
    if start is None:
        return None
    idx, text, j = [start], texts[start], start + 1
    while j < len(blocks) and not _SENT_END.search(text.rstrip()) and blocks[j].kind == "body" and len(idx) < 4:
        idx.append(j)
        text += " " + texts[j]
        j += 1
    if not _SENT_END.search(text.rstrip()) or len(text) > ABSTRACT_MAX_CHARS:
        return None
    follows = False
    after: Block | None = None
    for k in range(j, min(len(blocks), j + 4)):
        t = texts[k]
        if _KEYWORDS.match(t) or (blocks[k].kind == "heading" and _section_heading(t) and not excluded_heading(t)):
            follows = True
        if blocks[k].kind == "body" and len(t) >= 100 and not _KEYWORDS.match(t):
            after = blocks[k]
            break
    if after is None:
        return None  # the paper's only text (a one-page abstract) is its body
    apart = _set_apart([blocks[i] for i in idx], after, Counter(ln.size for bl in blocks for ln in bl.lines
                                                                   ).most_common(1)[0][0])
    cited = len(_CITATION.findall(text)) + len(_NUMBERED_CITE.findall(text)) >= 3
    if (follows and apart) or ((follows or apart) and not cited):
        return idx, 0.9 if follows and apart else 0.75
    return None


#: the longest plausible abstract (structured abstracts run to about 450 words, some 3,000 characters)
ABSTRACT_MAX_CHARS = 3500
#: an unstructured abstract this long is whole: an indented paragraph after it starts the body
ABSTRACT_PARAGRAPH_CHARS = 800


def _abstract_ends(page: int, start_page: int, chars: int, labelled: bool) -> bool:
    """Whether a block no longer belongs to the abstract: the abstract ends at the first body heading
    (handled by the caller), at the page break after its start (a structured abstract's next labelled
    part may cross it) or where it would grow past a plausible length. (The caller also ends an
    unstructured abstract of ABSTRACT_PARAGRAPH_CHARS or more at the next indented paragraph of a paper
    whose paragraphs are indented.)"""
    return chars > ABSTRACT_MAX_CHARS or (page > start_page and not labelled)


_APPENDIX = pattern("documents.readers.pdf", "APPENDIX")
_KIND_MAP: dict[str, ExcludedKind] = {"caption": "caption", "table": "table", "figure": "figure",
                                      "footnote": "footnote", "equation": "equation"}
_STRUCTURED_LABEL = pattern("documents.readers.pdf", "STRUCTURED_LABEL")


def _new_reference(ln: Line, prev: Line) -> bool:
    """Whether a line in the reference list starts a new entry."""
    if re.match(r"^\s*(\[\d+\]|\d{1,3}\.\s)", ln.text):
        return True
    if ln.page != prev.page or ln.col != prev.col:
        return ln.x0 <= ln.col_x0 + 2 and bool(_SENT_END.search(prev.text))
    if ln.x0 < prev.x0 - 3:
        return True  # hanging indent: the first line of an entry sticks out
    return bool(_SENT_END.search(prev.text)) and ln.x0 <= prev.x0 + 1 and prev.x1 < prev.col_x1 - 15


def _section_heading(text: str) -> bool:
    """A heading that starts the abstract or a section (not a bold author line)."""
    return bool(_ABSTRACT_HEAD.match(text) or _NUMBERED.match(text) or excluded_heading(text)
                or section_kind(text) != "other")


def _text(bl: Block, vocab: Counter[str]) -> str:
    return _normalise(_join_lines(bl.lines, vocab))


def _continues(pending: list[Line], bl: Block, text: str, indent_style: bool, adjacent: bool) -> bool:
    """Whether a body block continues the previous paragraph (broken by a column/page/figure)."""
    last = pending[-1]
    if text[:1].islower() or _DANGLING.search(last.text.rstrip()):
        return True
    first = bl.lines[0]
    if adjacent and first.page == last.page and first.col == last.col and (
            first.top - last.bottom > 0.9 * max(last.size, first.size)):
        return False  # the next block right below, after a paragraph gap
    if bl.indented or last.x1 < last.col_x1 - 3 * max(last.size, 6):
        return False  # a new indented paragraph, or the previous one ended with a short line
    if not _SENT_END.search(last.text.rstrip()):
        return True
    # a column that ended with a full line, continued unindented at the top of the next one
    broken = bl.lines[0].page != last.page or bl.lines[0].col != last.col
    return broken and bl.col_top and last.x1 >= last.col_x1 - 2 * max(last.size, 6) and indent_style


def get_reader(fmt: SourceFormat) -> PdfReader:
    """Reader factory used by the registry."""
    return PdfReader(format=fmt)
