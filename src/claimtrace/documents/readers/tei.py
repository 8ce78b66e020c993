"""GROBID TEI XML: header title/authors/abstract, body ``div``s with their ``head`` as sections.

Figures, tables, formulas and notes go to ``excluded``; ``back`` (acknowledgements, annexes) and
the bibliography (``listBibl``) too, one block per reference. GROBID's divs are flat, so a
numbered sub-section ("2.1 Overview") takes its section kind from its numbered parent ("2 Model").

Where GROBID was asked for coordinates (``teiCoordinates``), its ``coords="page,x,y,w,h;..."``
attributes (PDF points, origin top-left; on a paragraph, or on its ``<s>`` sentences) give paragraphs
their page, pages and box, abstract sections, excluded blocks and tables their page (and tables their
box), as the PDF reader does. Sentences (``<s>``, from ``segmentSentences``) are separated by a space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from claimtrace.documents.bibliography import tei_bibliography
from claimtrace.documents.builder import DocumentBuilder, clean_text
from claimtrace.documents.model import BBox, Document, ExcludedKind, SectionKind, SourceFormat
from claimtrace.documents.readers._xml import children, first, local, parse_xml
from claimtrace.documents.readers._xml import inline_text as walk_inline
from claimtrace.documents.sections import excluded_heading, section_kind
from claimtrace.documents.tables import RawCell, RawTable, cell_span
from claimtrace.errors import InputError

_SKIP_INLINE = frozenset(["note", "figure", "formula", "table", "graphic", "listBibl"])
_BACK_KINDS: dict[str, ExcludedKind] = {
    "acknowledgement": "acknowledgements",
    "acknowledgements": "acknowledgements",
    "funding": "acknowledgements",
    "availability": "acknowledgements",
    "annex": "other",
    "references": "references",
}


_children = children
_first = first


def _descendants(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el.iter() if local(c.tag) == name]


def inline_text(el: etree._Element) -> str:
    """The running text of an element: inline refs kept, notes/figures/formulas skipped."""
    return walk_inline(el, _child_text)


def _child_text(child: etree._Element, tag: str) -> str | None:
    """A line break is a space; skipped and unnamed children give nothing; other inline markup its text."""
    if tag == "lb":
        return " "
    if tag == "s":
        return f" {inline_text(child)} "
    return None if tag and tag not in _SKIP_INLINE else ""


def all_text(el: etree._Element) -> str:
    """All text under an element, blocks separated by a space."""
    return clean_text(" ".join(str(t) for t in el.itertext()))


@dataclass
class TeiReader:
    """Reader for GROBID TEI XML."""

    format: SourceFormat = "tei"

    def read(self, data: bytes, path: str) -> Document:
        """Parse TEI bytes into a Document."""
        return self.read_tei(data, path)

    def read_tei(self, data: bytes, path: str, *, source: bytes | None = None, fmt: SourceFormat = "tei",
                 metadata: dict[str, str] | None = None) -> Document:
        """Parse TEI bytes into a Document whose source is ``source`` (the PDF GROBID read; default the TEI)."""
        root = parse_xml(data, path)
        if local(root.tag) != "TEI":
            tei = next((e for e in root.iter() if local(e.tag) == "TEI"), None)
            if tei is None:
                raise InputError(path, f"not a TEI document (root element <{local(root.tag)}>)")
            root = tei
        b = DocumentBuilder(path, fmt, data if source is None else source)
        b.metadata.update(metadata or {})
        header = _first(root, "teiHeader")
        if header is not None:
            self._header(header, b)
        text = _first(root, "text")
        if text is None:
            raise InputError(path, "TEI document has no <text> element")
        body = _first(text, "body")
        self._divs(body if body is not None else text, b)
        back = _first(text, "back")
        if back is not None:
            self._back(back, b)
        if b.paragraph_count == 0:
            if not b._abstract:
                raise InputError(path, "no text found in this TEI document (empty body and abstract)")
            b.warnings.append("the document has no body text (abstract only)")
        return tei_bibliography(root, b.build(), inline_text)

    def _header(self, header: etree._Element, b: DocumentBuilder) -> None:
        title = _first(header, "fileDesc", "titleStmt", "title")
        if title is not None:
            b.title = clean_text(inline_text(title)) or None
        analytic = _first(header, "fileDesc", "sourceDesc", "biblStruct", "analytic")
        if analytic is not None:
            for author in _children(analytic, "author"):
                pers = _first(author, "persName")
                if pers is None:
                    continue
                names = [clean_text(inline_text(c)) for c in pers if local(c.tag) in ("forename", "surname")]
                full = " ".join(n for n in names if n)
                if full:
                    b.authors.append(full)
        idno = _first(header, "fileDesc", "sourceDesc", "biblStruct")
        if idno is not None:
            for el in _descendants(idno, "idno"):
                if el.get("type") and el.text:
                    b.metadata[str(el.get("type")).lower()] = el.text.strip()
        abstract = _first(header, "profileDesc", "abstract")
        if abstract is not None:
            divs = [d for d in abstract.iter() if local(d.tag) == "div"]
            if not divs:
                divs = [abstract]
            for div in divs:
                head = _first(div, "head")
                label = clean_text(inline_text(head)).rstrip(":").upper() if head is not None else None
                ps = _children(div, "p")
                for p in ps:
                    b.add_abstract(inline_text(p), label=label or None, page=_place(p)[0])
                if not ps and div is abstract:
                    b.add_abstract(inline_text(div), page=_place(div)[0])

    def _divs(self, container: etree._Element, b: DocumentBuilder) -> None:
        kinds: dict[str, SectionKind] = {}
        last_kind: SectionKind | None = None
        cur_kind: SectionKind = "other"
        section: str | None = None
        for div in container:
            tag = local(div.tag)
            if tag == "listBibl":
                self._bibl(div, b)
                continue
            if tag in ("figure", "formula", "note", "table"):
                _excluded_block(div, b, section)
                continue
            if tag != "div":
                continue
            bibls = [e for e in div.iter() if local(e.tag) == "listBibl"]
            if bibls and (div.get("type") == "references" or not _children(div, "p")):
                for lb in bibls:
                    self._bibl(lb, b)
                continue
            head = _first(div, "head")
            heading = clean_text(inline_text(head)) if head is not None else ""
            n = head.get("n") if head is not None else None
            if n and heading and not heading.startswith(n):
                heading = f"{n} {heading}"
            kind_excl = excluded_heading(re.sub(r"^[0-9.]+\s*", "", heading)) if heading else None
            div_type = div.get("type") or ""
            if kind_excl or div_type in _BACK_KINDS:
                b.add_excluded(kind_excl or _BACK_KINDS[div_type], all_text(div), section=heading or div_type)
                continue
            if heading:
                section = heading
                kind = section_kind(heading)
                top = n.rstrip(".").split(".")[0] if n else None
                if kind == "other" and top and n and "." in n.rstrip("."):
                    kind = kinds.get(top, "other")
                if kind == "other" and not n and last_kind is not None and _looks_sub(heading):
                    kind = last_kind
                if top and kind != "other":
                    kinds.setdefault(top, kind)
                cur_kind = kind
                if kind != "other":
                    last_kind = kind
            self._div_content(div, b, section, cur_kind)

    def _div_content(self, div: etree._Element, b: DocumentBuilder, section: str | None, kind: SectionKind) -> None:
        has_blocks = False
        for child in div:
            tag = local(child.tag)
            if tag == "p":
                has_blocks = True
                page, pages, box = _place(child)
                b.add_paragraph(inline_text(child), section, kind=kind, page=page, pages=pages, bbox=box)
                for note in child.iter():
                    if local(note.tag) in ("note", "figure", "formula"):
                        _excluded_block(note, b, section)
            elif tag == "list":
                has_blocks = True
                for item in _children(child, "item"):
                    page, pages, box = _place(item)
                    b.add_paragraph(inline_text(item), section, kind=kind, page=page, pages=pages, bbox=box)
            elif tag in ("figure", "formula", "note", "table"):
                has_blocks = True
                _excluded_block(child, b, section)
            elif tag == "div":
                has_blocks = True
                self._div_content(child, b, section, kind)
            elif tag == "listBibl":
                has_blocks = True
                self._bibl(child, b)
        if not has_blocks:
            # GROBID's full-text model on patents and the like: the div holds the text itself
            b.add_paragraph(inline_text(div), section, kind=kind)

    def _back(self, back: etree._Element, b: DocumentBuilder) -> None:
        for el in back.iter():
            tag = local(el.tag)
            if tag == "listBibl":
                self._bibl(el, b)
        for div in back:
            if local(div.tag) != "div":
                continue
            div_type = div.get("type") or ""
            if div_type == "references" or any(local(e.tag) == "listBibl" for e in div.iter()):
                continue
            head = _first(div, "head")
            if head is None:
                head = next((e for e in div.iter() if local(e.tag) == "head"), None)
            heading = clean_text(inline_text(head)) if head is not None else None
            kind = _BACK_KINDS.get(div_type) or excluded_heading(heading) or "other"
            text = all_text(div)
            if text:
                b.add_excluded(kind, text, section=heading or div_type or None, label=div_type or None)

    def _bibl(self, list_bibl: etree._Element, b: DocumentBuilder) -> None:
        for bs in list_bibl:
            if local(bs.tag) not in ("biblStruct", "bibl"):
                continue
            raw = next((n for n in bs.iter() if local(n.tag) == "note" and n.get("type") == "raw_reference"), None)
            text = all_text(raw) if raw is not None else all_text(bs)
            ref_id = bs.get("{http://www.w3.org/XML/1998/namespace}id")
            b.add_excluded("references", text, label=ref_id, page=_place(bs)[0])


def _looks_sub(heading: str) -> bool:
    """A heading with no kind of its own that continues the previous section (not a new part)."""
    return not re.match(r"^(appendix|supplement|study\s*\d|experiment\s*\d|part\s)", heading, re.I)


def _coords(el: etree._Element) -> list[tuple[int, BBox]]:
    """GROBID's boxes of an element (``coords="page,x,y,w,h;..."``), else those of its ``<s>`` sentences."""
    raws = [el.get("coords") or ""]
    if not raws[0]:
        raws = [s.get("coords") or "" for s in el.iter() if local(s.tag) == "s"]
    boxes: list[tuple[int, BBox]] = []
    for raw in raws:
        for part in raw.split(";"):
            bits = part.split(",")
            if len(bits) != 5:
                continue
            try:
                page, x, y, w, h = int(float(bits[0])), *(float(v) for v in bits[1:])
            except ValueError:
                continue
            if page >= 1 and w >= 0 and h >= 0:
                boxes.append((page, BBox(x0=x, top=y, x1=x + w, bottom=y + h)))
    return boxes


def _place(el: etree._Element) -> tuple[int | None, list[int] | None, BBox | None]:
    """Page, pages and box (on the first page, as the PDF reader gives them) from an element's coords."""
    boxes = _coords(el)
    if not boxes:
        return None, None, None
    page = boxes[0][0]
    first = [bx for p, bx in boxes if p == page]
    box = BBox(x0=round(min(bx.x0 for bx in first), 2), top=round(min(bx.top for bx in first), 2),
               x1=round(max(bx.x1 for bx in first), 2), bottom=round(max(bx.bottom for bx in first), 2))
    return page, list(dict.fromkeys(p for p, _ in boxes)), box


def _excluded_block(el: etree._Element, b: DocumentBuilder, section: str | None) -> None:
    tag = local(el.tag)
    page = _place(el)[0]
    if tag == "figure":
        head = _first(el, "head")
        label = clean_text(inline_text(head)) if head is not None else None
        desc = _first(el, "figDesc")
        cap = clean_text(inline_text(desc)) if desc is not None else ""
        if el.get("type") == "table":
            if cap:
                b.add_excluded("caption", cap, label=label or None, section=section, page=page)
            rows = []
            for row in el.iter():
                if local(row.tag) == "row":
                    rows.append("\t".join(clean_text(inline_text(c)) for c in row if local(c.tag) == "cell"))
            if rows:
                b.add_excluded("table", "\n".join(rows), label=label or None, section=section, page=page)
            note = _first(el, "note")
            foot = clean_text(inline_text(note)) if note is not None else ""
            if foot:
                b.add_excluded("footnote", foot, label=label or None, section=section, page=page)
            grid = [[RawCell(clean_text(inline_text(c)), cell_span(c.get("rows")), cell_span(c.get("cols")),
                             header=c.get("role") == "label")
                     for c in row if local(c.tag) == "cell"] for row in el.iter() if local(row.tag) == "row"]
            if grid:
                b.add_table(RawTable(rows=grid, label=label or None, caption=cap or None,
                                     footnotes=[foot] if foot else [], section=section, reader="tei",
                                     page=page, bbox=_place(el)[2]))
        else:
            b.add_excluded("figure", cap or all_text(el), label=label or None, section=section, page=page)
    elif tag == "formula":
        b.add_excluded("equation", all_text(el), label=el.get("{http://www.w3.org/XML/1998/namespace}id"),
                       section=section, page=page)
    elif tag == "note":
        b.add_excluded("footnote", all_text(el), label=el.get("n"), section=section, page=page)
    else:
        b.add_excluded("other", all_text(el), label=tag, section=section, page=page)


def get_reader(fmt: SourceFormat) -> TeiReader:
    """Reader factory used by the registry."""
    return TeiReader()
