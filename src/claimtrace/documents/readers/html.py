"""HTML papers (journal pages, Word's "Save as HTML", statcheck's test papers).

Headings ``h1``-``h6`` (and short bold paragraphs that name a known section) become sections; an
"Abstract" heading or an element whose class/id says abstract marks the abstract; ``p``/``li``/
``div`` text becomes paragraphs; tables and figures go to ``excluded``; scripts, styles and
navigation are dropped; everything after a "References" heading is cut off into ``excluded``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree, html

from claimtrace.documents.builder import DocumentBuilder, clean_text
from claimtrace.documents.model import Document, ExcludedKind, SectionKind, SourceFormat
from claimtrace.documents.readers._xml import check_entities
from claimtrace.documents.sections import excluded_heading, section_kind
from claimtrace.documents.tables import RawCell, RawTable, cell_span, indented
from claimtrace.errors import InputError

_DROP = frozenset(["script", "style", "noscript", "nav", "form", "svg", "iframe", "template", "button", "select",
                   "input", "textarea", "head", "meta", "link", "object", "embed", "canvas", "map"])
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_PARA = frozenset(["p", "li", "blockquote", "pre", "dd", "dt", "address", "figcaption", "caption", "td", "th"])
_CONTAINERS = frozenset(["body", "div", "section", "article", "main", "ul", "ol", "dl", "header", "footer",
                         "aside", "center", "font", "span", "blockquote", "html"])
_BLOCK_TAGS = _PARA | _CONTAINERS | frozenset(["table", "figure", "hr", "img"]) | frozenset(_HEADINGS)
_ABSTRACT = re.compile(r"^\s*(abstract|summary)\s*:?\s*$", re.I)
_ABSTRACT_ATTR = re.compile(r"(^|[\s_-])abstract($|[\s_-])", re.I)
_ASIDE_ATTR = re.compile(r"(^|[\s_-])(nav|menu|breadcrumb|sidebar|cookie|footer|masthead)($|[\s_-])", re.I)
_INLINE_LABEL = re.compile(
    r"^(BACKGROUND|OBJECTIVES?|AIMS?|PURPOSE|INTRODUCTION|METHODS?|DESIGN|SETTING|PARTICIPANTS|RESULTS?|"
    r"FINDINGS|CONCLUSIONS?|INTERPRETATION)\s*[:.]\s*", re.I)


def node_text(el: etree._Element) -> str:
    """The text of an element with line breaks as spaces and dropped elements left out."""
    parts: list[str] = []
    _text(el, parts)
    return clean_text("".join(parts))


def _text(el: etree._Element, parts: list[str]) -> None:
    if el.text:
        parts.append(el.text)
    for child in el:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "br":
            parts.append(" ")
        elif tag and tag not in _DROP:
            if tag in _BLOCK_TAGS and tag not in ("span", "font"):
                parts.append(" ")
            _text(child, parts)
            if tag in _BLOCK_TAGS and tag not in ("span", "font"):
                parts.append(" ")
        if child.tail:
            parts.append(child.tail)


@dataclass
class _State:
    builder: DocumentBuilder
    stack: list[tuple[int, str]] = field(default_factory=list)
    in_abstract: bool = False
    abstract_level: int = 0
    excluded: ExcludedKind | None = None
    excluded_level: int = 0
    abstract_label: str | None = None

    def section(self) -> str | None:
        return " / ".join(h for _, h in self.stack) or None

    def kind(self) -> SectionKind:
        for _, h in self.stack:
            k = section_kind(h)
            if k != "other":
                return k
        return "other"


@dataclass
class HtmlReader:
    """Reader for HTML papers."""

    format: SourceFormat = "html"

    def read(self, data: bytes, path: str) -> Document:
        """Parse HTML bytes into a Document."""
        check_entities(data, path)
        parser = html.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
        try:
            root = html.document_fromstring(data, parser=parser)
        except (etree.ParserError, ValueError) as exc:
            raise InputError(path, f"cannot parse HTML: {' '.join(str(exc).split())}") from None
        b = DocumentBuilder(path, "html", data)
        title_el = root.find(".//title")
        if title_el is not None:
            b.title = node_text(title_el) or None
        for meta in root.iter("meta"):
            name = (meta.get("name") or "").lower()
            content = meta.get("content") or ""
            if name == "citation_title" and content:
                b.title = clean_text(content)
            elif name == "citation_author" and content:
                b.authors.append(clean_text(content))
            elif name in ("citation_doi", "dc.identifier") and content:
                b.metadata["doi"] = content.strip()
        body = root.find("body")
        st = _State(b)
        self._walk(body if body is not None else root, st)
        if b.paragraph_count == 0:
            if not b._abstract:
                raise InputError(path, "no text found in this HTML document")
            b.warnings.append("the document has no body text (abstract only)")
        return b.build()

    def _walk(self, el: etree._Element, st: _State) -> None:
        run: list[str] = []  # loose inline text between blocks
        if el.text:
            run.append(el.text)
        for child in el:
            tag = child.tag if isinstance(child.tag, str) else ""
            if not tag or tag in _DROP or _ASIDE_ATTR.search(f"{child.get('class', '')} {child.get('id', '')}"):
                if child.tail:
                    run.append(child.tail)
                continue
            if tag in _BLOCK_TAGS and tag not in ("span", "font"):
                self._emit("".join(run), st)
                run = []
                self._block(child, tag, st)
            elif tag == "br":
                run.append(" ")
            else:
                parts: list[str] = []
                _text(child, parts)
                run.append("".join(parts))
            if child.tail:
                run.append(child.tail)
        self._emit("".join(run), st)

    def _block(self, el: etree._Element, tag: str, st: _State) -> None:
        b = st.builder
        if tag in _HEADINGS:
            self._heading(node_text(el), _HEADINGS[tag], st)
            return
        if tag == "table":
            if _layout_table(el):
                self._walk_cells(el, st)
            else:
                self._table(el, st)
            return
        if tag == "figure":
            cap = el.find(".//figcaption")
            b.add_excluded("figure", node_text(cap if cap is not None else el), section=st.section())
            return
        if tag in ("hr", "img"):
            return
        attrs = f"{el.get('class', '')} {el.get('id', '')}"
        if tag in ("div", "section", "article", "aside") and _ABSTRACT_ATTR.search(attrs) and not st.in_abstract:
            saved = (st.in_abstract, st.abstract_level, st.excluded)
            st.in_abstract, st.abstract_level, st.excluded = True, 0, None
            self._walk(el, st)
            st.in_abstract, st.abstract_level, st.excluded = saved
            return
        if tag in _PARA and not any(isinstance(c.tag, str) and c.tag in _BLOCK_TAGS - {"span", "font"} - _PARA
                                    for c in el.iter() if c is not el):
            text = node_text(el)
            if self._para_heading(el, text, st):
                return
            self._emit(text, st)
            return
        self._walk(el, st)

    def _para_heading(self, el: etree._Element, text: str, st: _State) -> bool:
        """A short bold paragraph naming a known section ("Abstract", "Method", "References")."""
        if not text or len(text) > 60 or text.endswith((".", ",", ";")) or len(text.split()) > 8:
            return False
        known = bool(_ABSTRACT.match(text)) or excluded_heading(text) is not None or (
            section_kind(text) != "other" and len(text.split()) <= 4)
        if known and el.tag in ("p", "div", "dt"):
            self._heading(text, 7, st)
            return True
        return False

    def _heading(self, text: str, level: int, st: _State) -> None:
        b = st.builder
        if not text:
            return
        if level == 1 and not st.stack and b.paragraph_count == 0 and b.title in (None, text):
            b.title = text
            return
        if st.excluded and level > st.excluded_level:
            st.builder.add_excluded(st.excluded, text, section=st.section())
            return
        if st.in_abstract and st.abstract_level and level > st.abstract_level:
            st.abstract_label = text.rstrip(":").upper()
            return
        st.excluded = None
        st.in_abstract = False
        st.abstract_label = None
        while st.stack and st.stack[-1][0] >= level:
            st.stack.pop()
        if _ABSTRACT.match(text):
            st.in_abstract, st.abstract_level = True, level
            return
        kind = excluded_heading(text)
        if kind:
            st.excluded, st.excluded_level = kind, level
            st.stack.append((level, text))
            return
        st.stack.append((level, text))

    def _emit(self, text: str, st: _State) -> None:
        text = clean_text(text)
        if not text:
            return
        b = st.builder
        if st.in_abstract:
            m = _INLINE_LABEL.match(text)
            if m:
                b.add_abstract(text[m.end():], label=m.group(1).upper())
            else:
                b.add_abstract(text, label=st.abstract_label)
        elif st.excluded:
            b.add_excluded(st.excluded, text, section=st.section())
        else:
            b.add_paragraph(text, st.section(), kind=st.kind())

    def _walk_cells(self, table: etree._Element, st: _State) -> None:
        for cell in table.iter("td", "th"):
            if not any(a.tag in ("td", "th") for a in cell.iterancestors() if a is not table and
                       any(x is table for x in a.iterancestors())):
                self._walk(cell, st)

    def _table(self, table: etree._Element, st: _State) -> None:
        b = st.builder
        cap = table.find("caption")
        if cap is not None and node_text(cap):
            b.add_excluded("caption", node_text(cap), section=st.section())
        rows = []
        for tr in table.iter("tr"):
            cells = [node_text(c) for c in tr if c.tag in ("td", "th")]
            if any(cells):
                rows.append("\t".join(cells))
        if rows:
            b.add_excluded("table", "\n".join(rows), section=st.section())
        grid: list[list[RawCell]] = []
        head = 0
        for tr in table.iter("tr"):
            if any(a.tag == "table" and a is not table for a in tr.iterancestors() if any(x is table for x in a.iterancestors())):
                continue  # a row of a nested table
            parent = tr.getparent()
            if parent is not None and parent.tag == "thead" and len(grid) == head:
                head += 1
            grid.append([RawCell(node_text(c), cell_span(c.get("rowspan")), cell_span(c.get("colspan")), header=c.tag == "th",
                                 indent=indented("".join(str(x) for x in c.itertext()), c.get("style")))
                         for c in tr if c.tag in ("td", "th")])
        if grid:
            label = None
            caption = node_text(cap) if cap is not None else None
            if caption and (m := re.match(r"^(table\s*[A-Z]?\d+[a-z]?)[.:]?\s*", caption, re.I)):
                label, caption = m.group(1), caption[m.end():] or None
            b.add_table(RawTable(rows=grid, label=label, caption=caption, header_rows=head or None,
                                 section=st.section(), reader="html"))


def _layout_table(table: etree._Element) -> bool:
    """A table used for page layout (cells holding paragraphs or headings), not a data table."""
    for el in table.iter():
        if el is table or not isinstance(el.tag, str):
            continue
        if el.tag in _HEADINGS or el.tag in ("div", "table") or (el.tag == "p" and len(node_text(el)) > 200):
            return True
    return any(len(node_text(c)) > 400 for c in table.iter("td"))


def get_reader(fmt: SourceFormat) -> HtmlReader:
    """Reader factory used by the registry."""
    return HtmlReader()
