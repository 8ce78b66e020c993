"""JATS / NLM XML (PMC ``.nxml``): title, authors, structured abstract, body paragraphs by section.

Tables, figures, captions, display formulas, footnotes, acknowledgements, the reference list and
secondary abstracts (summaries, highlights...) go to ``excluded`` with their kind. Paragraph text
keeps inline markup (italics, superscripts, citation xrefs, inline formulas) in reading order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from claimtrace.documents.bibliography import jats_bibliography
from claimtrace.documents.builder import DocumentBuilder, clean_text
from claimtrace.documents.model import Document, ExcludedKind, SectionKind, SourceFormat
from claimtrace.documents.readers._xml import inline_text as walk_inline
from claimtrace.documents.readers._xml import local, parse_xml
from claimtrace.documents.sections import excluded_heading, section_kind
from claimtrace.documents.tables import RawCell, RawTable, cell_span, indented
from claimtrace.errors import InputError

MML = "{http://www.w3.org/1998/Math/MathML}"

# elements that interrupt a paragraph's running text (handled as blocks of their own)
_BLOCKS = frozenset([
    "table-wrap", "table-wrap-group", "fig", "fig-group", "disp-formula", "disp-formula-group", "list",
    "boxed-text", "supplementary-material", "def-list", "disp-quote", "graphic", "media", "array",
    "chem-struct-wrap", "preformat", "code", "statement", "speech", "verse-group", "table",
])
# inline elements whose text is dropped from running text
_SKIP_INLINE = frozenset(["inline-graphic", "private-char", "alt-text", "long-desc", "object-id", "fn", "target"])
# sec-type values that mark a section left out of the body
_EXCLUDED_SEC_TYPES: dict[str, ExcludedKind] = {
    "supplementary-material": "other",
    "display-objects": "other",
    "COI-statement": "acknowledgements",
    "ethics-statement": "acknowledgements",
    "data-availability": "acknowledgements",
    "funding-information": "acknowledgements",
    "author-contributions": "acknowledgements",
}
_MAIN_ABSTRACT_TYPES = frozenset(["", "normal", "structured", "abstract", "main"])
# end-matter headings that journals nest inside the last section ("Financial support and sponsorship")
_MORE_EXCLUDED = re.compile(
    r"\b(abbreviations|financial\s+support|sponsorship|conflicts?\s+of\s+interests?|competing\s+interests?"
    r"|funding|acknowledge?ments?|sources?\s+of\s+support|disclosures?|supplementary\s+(material|information|data)"
    r"|declaration\s+of\s+interests?|author\s+contributions?)\b", re.I)


def excluded_kind(heading: str | None) -> ExcludedKind | None:
    """The excluded-block kind a section heading introduces (end matter, abbreviations...), if any."""
    if not heading:
        return None
    kind = excluded_heading(heading)
    if kind:
        return kind
    if len(heading.split()) <= 6:
        m = _MORE_EXCLUDED.search(heading)
        if m:
            word = m.group(1).lower()
            return "other" if word.startswith(("abbreviations", "supplementary")) else "acknowledgements"
    return None


def inline_text(el: etree._Element, *, with_tail: bool = False) -> str:
    """The running text of an element, inline markup kept in reading order, blocks skipped."""
    text = walk_inline(el, _child_text)
    return text + el.tail if with_tail and el.tail else text


def _child_text(child: etree._Element, tag: str) -> str | None:
    """The text an inline child stands for ("" to skip it); None: its own text, walked the same way."""
    if not tag or tag in _SKIP_INLINE or tag in _BLOCKS:
        return ""
    if tag == "break":
        return " "
    if tag == "alternatives":
        return walk_inline(_best_alternative(child), _child_text)
    if tag == "math" or child.tag == f"{MML}math":
        return _math_text(child)
    if tag == "tex-math":
        return _tex_text(child)
    return None


def _best_alternative(el: etree._Element) -> etree._Element:
    kids = [c for c in el if local(c.tag)]
    for want in ("math", "mml:math", "tex-math"):
        for c in kids:
            if local(c.tag) == want:
                return c
    wrapper = etree.Element("span")
    for c in kids:
        if local(c.tag) not in ("graphic", "inline-graphic", "media"):
            wrapper.append(_copy(c))
            break
    return wrapper


def _copy(el: etree._Element) -> etree._Element:
    from copy import deepcopy

    new = deepcopy(el)
    new.tail = None
    return new


def _math_text(el: etree._Element) -> str:
    """MathML as plain text: token text in order, without spaces between tokens."""
    out: list[str] = []
    for node in el.iter():
        if node is el:
            continue
        tag = local(node.tag)
        if tag in ("mi", "mn", "mo", "mtext", "ms") and node.text:
            out.append(node.text)
        elif tag == "mspace":
            out.append(" ")
        elif tag == "annotation" or tag == "annotation-xml":
            continue
    return "".join(out).strip()


def _tex_text(el: etree._Element) -> str:
    text = "".join(str(t) for t in el.itertext())
    if "\\begin{document}" in text:
        text = text.split("\\begin{document}", 1)[1].split("\\end{document}", 1)[0]
    return text.replace("$", "").strip()


_SPACED = frozenset([
    "p", "title", "label", "td", "th", "tr", "ref", "list-item", "caption", "sec", "fn", "mixed-citation",
    "element-citation", "citation", "name", "break", "def-item", "term", "def", "table-wrap-foot",
    "person-group", "source", "year", "article-title", "disp-formula", "attrib",
])


def all_text(el: etree._Element) -> str:
    """All the text under an element (blocks separated by a space), whitespace normalised."""
    parts: list[str] = []
    _all(el, parts)
    return clean_text("".join(parts))


def _all(el: etree._Element, parts: list[str]) -> None:
    tag = local(el.tag)
    if tag == "math":
        parts.append(_math_text(el))
        return
    spaced = tag in _SPACED
    if spaced:
        parts.append(" ")
    if el.text:
        parts.append(el.text)
    for child in el:
        if local(child.tag):
            _all(child, parts)
        if child.tail:
            parts.append(child.tail)
    if spaced:
        parts.append(" ")


def table_text(table_wrap: etree._Element) -> str:
    """A table's cells: tab between cells, newline between rows."""
    rows: list[str] = []
    for tr in table_wrap.iter("tr"):
        cells = [clean_text(inline_text(c)) for c in tr if local(c.tag) in ("td", "th")]
        if any(cells):
            rows.append("\t".join(cells))
    if not rows:  # a table given as an image, or as plain text: whatever is not label/caption/foot
        rest = [inline_text(c) for c in table_wrap
                if local(c.tag) not in ("label", "caption", "table-wrap-foot", "graphic", "object-id")]
        return clean_text(" ".join(rest))
    return "\n".join(rows)


def raw_table(table_wrap: etree._Element) -> RawTable | None:
    """The grid of a table-wrap (its ``table``, also inside ``alternatives``): cells with spans, thead rows."""
    tables = [t for t in table_wrap.iter() if local(t.tag) == "table"]
    if local(table_wrap.tag) == "table":
        tables = [table_wrap]
    if not tables:
        return None
    rows: list[list[RawCell]] = []
    head = 0
    for tab in tables[:1] if len(tables) > 1 and _same_tables(tables) else tables:
        for tr in tab.iter():
            if local(tr.tag) != "tr":
                continue
            cells = []
            for c in tr:
                if local(c.tag) in ("td", "th"):
                    raw_text = inline_text(c)
                    cells.append(RawCell(clean_text(raw_text), cell_span(c.get("rowspan")), cell_span(c.get("colspan")),
                                         header=local(c.tag) == "th", indent=indented(raw_text, c.get("style"))))
            parent = tr.getparent()
            if parent is not None and local(parent.tag) == "thead" and len(rows) == head:
                head += 1
            rows.append(cells)
    if not rows:
        return None
    return RawTable(rows=rows, header_rows=head or None, reader="jats")


def _tables_only(el: etree._Element, b: DocumentBuilder, section: str | None) -> None:
    """The table grids of an excluded section (its text is already kept in ``excluded``)."""
    for tw in el.iter("table-wrap"):
        raw = raw_table(tw)
        if raw is not None:
            lab = tw.find("label")
            cap = _caption(tw)
            raw.label = clean_text(inline_text(lab)) if lab is not None else tw.get("id")
            raw.caption, raw.section, raw.footnotes = cap or None, section, _footnotes(tw)
            b.add_table(raw)


def _same_tables(tables: list[etree._Element]) -> bool:
    """Alternatives holding the same table twice (e.g. two encodings): read it once."""
    return any(local(a.tag) == "alternatives" for t in tables for a in t.iterancestors())


def _footnotes(table_wrap: etree._Element) -> list[str]:
    """The notes under a table (each ``fn`` or ``p`` of its table-wrap-foot on its own)."""
    out: list[str] = []
    for foot in table_wrap.iter("table-wrap-foot"):
        items = [x for x in foot if local(x.tag) in ("fn", "p", "fn-group", "attrib")]
        for x in items:
            if local(x.tag) == "fn-group":
                out.extend(t for t in (all_text(f) for f in x if local(f.tag) == "fn") if t)
            elif t := all_text(x):
                out.append(t)
        if not items and (t := all_text(foot)):
            out.append(t)
    return out


@dataclass
class _Ctx:
    builder: DocumentBuilder
    chain: tuple[str, ...] = ()
    kind: SectionKind | None = None

    def section(self) -> str | None:
        return " / ".join(self.chain) if self.chain else None

    def sub(self, heading: str) -> _Ctx:
        chain = (*self.chain, heading) if heading else self.chain
        kind = self.kind
        if kind is None:
            k = section_kind(heading)
            kind = k if k != "other" else None
        return _Ctx(self.builder, chain, kind)


_FRAGMENT_START = re.compile(rb"^\s*(<\?xml[^>]*\?>\s*)?<(abstract|sec)[\s>]")


def is_fragment(data: bytes) -> bool:
    """True for a JATS fragment: top-level ``<abstract>`` and/or ``<sec>`` elements, no ``<article>``."""
    return bool(_FRAGMENT_START.match(data[:512]))


def wrap_fragment(data: bytes) -> bytes:
    """Wrap a JATS fragment (abstract + result sections, as in Yun et al.'s rct-numeric set) in an article."""
    if not is_fragment(data):
        return data
    data = re.sub(rb"^\s*<\?xml[^>]*\?>", b"", data)
    end = data.find(b"</abstract>")
    abstract, rest = (data[: end + 11], data[end + 11 :]) if end >= 0 else (b"", data)
    return (b'<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML">'
            b"<front><article-meta>" + abstract + b"</article-meta></front><body>" + rest
            + b"</body></article>")


@dataclass
class JatsReader:
    """Reader for JATS / NLM XML (PubMed Central)."""

    format: SourceFormat = "jats"

    def read(self, data: bytes, path: str) -> Document:
        """Parse JATS bytes into a Document."""
        fragment = is_fragment(data)  # cut-out sections may be unbalanced: parse those leniently
        root = parse_xml(wrap_fragment(data), path, recover=fragment)
        article = root if local(root.tag) == "article" else next(root.iter("article"), None)
        if article is None:
            raise InputError(path, f"not a JATS article (root element <{local(root.tag)}>)")
        b = DocumentBuilder(path, "jats", data)
        front = article.find("front")
        if front is not None:
            self._front(front, b)
        body = article.find("body")
        if body is not None:
            self._container(body, _Ctx(b))
        back = article.find("back")
        if back is not None:
            self._back(back, _Ctx(b))
        for floats in article.findall("floats-group"):
            self._container(floats, _Ctx(b))
        for sub in article.findall("sub-article"):
            title = sub.find(".//article-title")
            b.add_excluded("other", clean_text(inline_text(sub)) if body is None else all_text(sub),
                           label=clean_text(inline_text(title)) if title is not None else "sub-article")
        if b.paragraph_count == 0:
            if not b._abstract:
                raise InputError(path, "no text found in this JATS article (no body and no abstract)")
            b.warnings.append("the article has no body text (abstract only)")
        if fragment:
            b.warnings.append("a JATS fragment (abstract and sections without <article>), read leniently")
        return jats_bibliography(root, b.build(), inline_text)

    # ---- front matter ---------------------------------------------------------------------
    def _front(self, front: etree._Element, b: DocumentBuilder) -> None:
        meta = front.find("article-meta")
        if meta is None:
            return
        title = meta.find("title-group/article-title")
        if title is not None:
            b.title = clean_text(inline_text(title))
        for contrib in meta.iter("contrib"):
            if contrib.get("contrib-type", "author") != "author":
                continue
            name = contrib.find("name")
            if name is not None:
                full = " ".join(clean_text(inline_text(x)) for x in (name.find("given-names"), name.find("surname"))
                                if x is not None).strip()
            else:
                collab = contrib.find("collab")
                full = clean_text(inline_text(collab)) if collab is not None else ""
            if full:
                b.authors.append(full)
        for aid in meta.findall("article-id"):
            kind = aid.get("pub-id-type")
            if kind in ("pmid", "pmc", "doi", "publisher-id") and aid.text:
                b.metadata["pmcid" if kind == "pmc" else kind] = aid.text.strip()
        journal = front.find("journal-meta//journal-title")
        if journal is not None and journal.text:
            b.metadata["journal"] = clean_text(journal.text)
        year = meta.find("pub-date/year")
        if year is not None and year.text:
            b.metadata["year"] = year.text.strip()

        abstracts = meta.findall("abstract")
        main = next((a for a in abstracts if (a.get("abstract-type") or "").lower() in _MAIN_ABSTRACT_TYPES), None)
        if main is None and abstracts:
            main = abstracts[0]
        for a in abstracts:
            if a is main:
                self._abstract(a, b)
            else:
                b.add_excluded("front matter", clean_text(" ".join(inline_text(p) for p in a.iter("p")) or inline_text(a)),
                               label=a.get("abstract-type") or "abstract")
        for a in meta.findall("trans-abstract"):
            b.add_excluded("front matter", clean_text(" ".join(inline_text(p) for p in a.iter("p"))),
                           label="trans-abstract")

    def _abstract(self, abstract: etree._Element, b: DocumentBuilder) -> None:
        def walk(el: etree._Element, label: str | None) -> None:
            for child in el:
                tag = local(child.tag)
                if tag == "sec":
                    t = child.find("title")
                    heading = clean_text(inline_text(t)) if t is not None else ""
                    if not heading:
                        lab = child.find("label")
                        heading = clean_text(inline_text(lab)) if lab is not None else ""
                    walk(child, heading.rstrip(":").upper() if heading else label)
                elif tag == "p":
                    b.add_abstract(inline_text(child), label=label)
                elif tag == "list":
                    for item in child.iter("list-item"):
                        b.add_abstract(" ".join(inline_text(p) for p in item.iter("p")) or inline_text(item), label=label)
                elif tag in _BLOCKS:
                    _excluded_block(child, b, None)

        walk(abstract, None)

    # ---- body -----------------------------------------------------------------------------
    def _container(self, el: etree._Element, ctx: _Ctx) -> None:
        b = ctx.builder
        run: ExcludedKind | None = None  # after a paragraph that is an end-matter pseudo-heading
        for child in el:
            tag = local(child.tag)
            if not tag or tag in ("title", "label", "sec-meta", "object-id"):
                continue
            if tag == "p" and run is None:
                text = clean_text(inline_text(child))
                if len(text) < 60 and not text.endswith(".") and (kind := excluded_kind(text.rstrip(":"))):
                    run = kind
            if run is not None and tag != "sec":
                b.add_excluded(run, all_text(child), section=ctx.section())
                continue
            if tag == "sec":
                heading = _heading(child)
                kind = excluded_kind(heading) or _EXCLUDED_SEC_TYPES.get(child.get("sec-type") or "")
                if kind:
                    b.add_excluded(kind, _untitled_text(child), section=heading or None)
                    _tables_only(child, b, heading or None)
                    continue
                self._container(child, ctx.sub(heading))
            elif tag == "p":
                self._paragraph(child, ctx)
            elif tag in ("list",):
                self._list(child, ctx)
            elif tag in ("disp-quote", "statement", "speech", "verse-group"):
                self._container(child, ctx)
            elif tag == "boxed-text":
                cap = child.find("caption/title")
                heading = clean_text(inline_text(cap)) if cap is not None else ""
                self._container(child, ctx.sub(heading) if heading else ctx)
            elif tag == "caption":
                continue
            elif tag == "def-list":
                for item in child.iter("def-item"):
                    term = item.find("term")
                    dfn = item.find("def")
                    text = " ".join(clean_text(inline_text(x)) for x in (term, dfn) if x is not None)
                    b.add_excluded("other", text, label="definition", section=ctx.section())
            elif tag in ("ack",):
                b.add_excluded("acknowledgements", all_text(child), section="Acknowledgements")
            elif tag in ("ref-list",):
                self._refs(child, b)
            elif tag in ("fn-group", "fn"):
                for fn in child.iter("fn") if tag == "fn-group" else [child]:
                    b.add_excluded("footnote", all_text(fn), label=fn.get("id"))
            elif tag in _BLOCKS:
                _excluded_block(child, b, ctx.section())
            else:
                text = clean_text(inline_text(child))
                if text:
                    b.add_paragraph(text, ctx.section(), kind=ctx.kind or "other")

    def _paragraph(self, p: etree._Element, ctx: _Ctx) -> None:
        """A <p>: running text around blocks; tables/figures/formulas go to excluded, lists split it."""
        b = ctx.builder
        parts: list[str] = []
        if p.text:
            parts.append(p.text)
        for child in p:
            tag = local(child.tag)
            if tag in ("list", "def-list", "disp-quote", "boxed-text", "statement"):
                self._flush(parts, ctx)
                parts = []
                if tag == "list":
                    self._list(child, ctx)
                else:
                    self._container(etree_wrap(child), ctx)
            elif tag in _BLOCKS:
                _excluded_block(child, b, ctx.section())
            elif tag in ("fn",):
                b.add_excluded("footnote", all_text(child), label=child.get("id"), section=ctx.section())
            elif tag:
                parts.append(_inline_one(child))
            if child.tail:
                parts.append(child.tail)
        self._flush(parts, ctx)

    def _flush(self, parts: list[str], ctx: _Ctx) -> None:
        text = clean_text("".join(parts))
        if text:
            ctx.builder.add_paragraph(text, ctx.section(), kind=ctx.kind or "other", clean=False)

    def _list(self, lst: etree._Element, ctx: _Ctx) -> None:
        for item in lst:
            if local(item.tag) != "list-item":
                continue
            label = item.find("label")
            prefix = clean_text(inline_text(label)) + " " if label is not None else ""
            kids = [c for c in item if local(c.tag) not in ("label",)]
            if kids and all(local(c.tag) in ("p", "list") for c in kids):
                first = True
                for c in kids:
                    if local(c.tag) == "list":
                        self._list(c, ctx)
                    else:
                        sub_parts = [prefix if first else ""]
                        self._paragraph_into(c, sub_parts, ctx)
                        first = False
            else:
                self._flush([prefix, inline_text(item)], ctx)

    def _paragraph_into(self, p: etree._Element, prefix: list[str], ctx: _Ctx) -> None:
        if prefix and prefix[0]:
            p = _copy(p)
            p.text = prefix[0] + (p.text or "")
        self._paragraph(p, ctx)

    def _back(self, back: etree._Element, ctx: _Ctx) -> None:
        b = ctx.builder
        for child in back:
            tag = local(child.tag)
            if tag == "ack":
                b.add_excluded("acknowledgements", all_text(child), section="Acknowledgements")
            elif tag == "ref-list":
                self._refs(child, b)
            elif tag in ("fn-group",):
                for fn in child.iter("fn"):
                    b.add_excluded("footnote", all_text(fn), label=fn.get("id"))
            elif tag in ("notes", "sec", "app-group", "app", "glossary", "bio"):
                heading = _heading(child)
                kind = excluded_kind(heading) or ("acknowledgements" if tag == "notes" else "other")
                for tw in child.iter("table-wrap", "fig"):
                    _excluded_block(tw, b, heading or tag)
                    parent = tw.getparent()
                    if parent is not None:
                        tail = tw.tail
                        tw.tail = None
                        parent.remove(tw)
                        if tail:
                            parent.text = (parent.text or "") + tail
                b.add_excluded(kind, all_text(child), section=heading or tag, label=tag)
            elif tag in _BLOCKS:
                _excluded_block(child, b, None)
            elif tag in ("title", "label"):
                continue
            else:
                text = all_text(child)
                if text:
                    b.add_excluded("other", text, label=tag)

    def _refs(self, ref_list: etree._Element, b: DocumentBuilder) -> None:
        refs = list(ref_list.iter("ref"))
        for ref in refs:
            label = ref.find("label")
            b.add_excluded("references", all_text(ref if label is None else _without(ref, label)),
                           label=clean_text(inline_text(label)) if label is not None else ref.get("id"))
        if not refs:
            b.add_excluded("references", all_text(ref_list))


def etree_wrap(el: etree._Element) -> etree._Element:
    """A fresh container holding a copy of one element (to walk it as a block list)."""
    wrapper = etree.Element("wrap")
    wrapper.append(_copy(el))
    return wrapper


def _inline_one(el: etree._Element) -> str:
    tag = local(el.tag)
    got = None if tag in _BLOCKS else _child_text(el, tag)
    return inline_text(el) if got is None else got


def _without(el: etree._Element, drop: etree._Element) -> etree._Element:
    new = _copy(el)
    for c in new:
        if local(c.tag) == local(drop.tag):
            new.remove(c)
            break
    return new


def _untitled_text(sec: etree._Element) -> str:
    """A section's text without its title and label (the heading is kept as ``section``)."""
    parts = [all_text(c) for c in sec if local(c.tag) not in ("title", "label")]
    return clean_text(" ".join(p for p in parts if p))


def _heading(sec: etree._Element) -> str:
    title = sec.find("title")
    label = sec.find("label")
    t = clean_text(inline_text(title)) if title is not None else ""
    lab = clean_text(inline_text(label)) if label is not None else ""
    if lab and t:
        return f"{lab} {t}"
    return t or lab


def _caption(el: etree._Element) -> str:
    cap = el.find("caption")
    if cap is None:
        return ""
    return clean_text(" ".join(inline_text(c) for c in cap if local(c.tag) in ("title", "p")) or inline_text(cap))


def _excluded_block(el: etree._Element, b: DocumentBuilder, section: str | None) -> None:
    """Record a table, figure, formula or other block in ``excluded``."""
    tag = local(el.tag)
    lab_el = el.find("label")
    label = clean_text(inline_text(lab_el)) if lab_el is not None else el.get("id")
    if tag in ("table-wrap-group", "fig-group"):
        cap = _caption(el)
        if cap:
            b.add_excluded("caption", cap, label=label, section=section)
        for c in el:
            if local(c.tag) in ("table-wrap", "fig"):
                _excluded_block(c, b, section)
        return
    if tag == "table-wrap" or tag == "table":
        cap = _caption(el)
        if cap:
            b.add_excluded("caption", cap, label=label, section=section)
        b.add_excluded("table", table_text(el), label=label, section=section)
        feet = [all_text(foot) for foot in el.iter("table-wrap-foot")]
        for foot in feet:
            b.add_excluded("footnote", foot, label=label, section=section)
        raw = raw_table(el)
        if raw is not None:
            raw.label, raw.caption, raw.section = label, cap or None, section
            raw.footnotes = _footnotes(el) or feet
            b.add_table(raw)
    elif tag == "fig":
        b.add_excluded("figure", _caption(el) or all_text(el), label=label, section=section)
    elif tag in ("disp-formula", "disp-formula-group", "array"):
        body = _without(el, lab_el) if lab_el is not None else el
        b.add_excluded("equation", clean_text(inline_text(body)) or all_text(body), label=label, section=section)
    elif tag in ("supplementary-material", "media", "graphic"):
        text = _caption(el) or all_text(el)
        if text:
            b.add_excluded("caption", text, label=label or tag, section=section)
    else:
        b.add_excluded("other", all_text(el), label=label or tag, section=section)


def get_reader(fmt: SourceFormat) -> JatsReader:
    """Reader factory used by the registry."""
    return JatsReader()
