"""The reference list and in-text citations of a Document, with provenance.

XML sources give both as markup: TEI ``listBibl/biblStruct`` with ``ref type="bibr" target="#b3"``, JATS
``ref-list/ref`` with ``xref ref-type="bibr" rid="B3"``. A citation is placed in the paragraph it sits in
by reading that paragraph again with markers around each citation (the reader's own inline-text rules),
so its offsets index ``body_text``/``abstract_text`` exactly. PDF, HTML, text and Markdown give the
reference section as text (the ``references`` blocks the readers exclude): it is split into entries
(numbered, or author-year by the author list before each year) and the body's author-year and numbered
citations are linked to them. Citations the XML left unlinked are linked the same way.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable
from copy import deepcopy
from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimtrace.documents.builder import clean_text
from claimtrace.documents.model import Citation, Document, Reference, Scope
from claimtrace.patterns import bind_lazy, lazy

if TYPE_CHECKING:  # lxml loads with the XML readers (jats, tei) that call the XML functions below, not for
    from lxml import etree  # a text file's reference list (the start-up of a one-page `claimtrace stats`)

_BEGIN = 0xF0000  # supplementary private-use code points: one per citation in a paragraph
_END = "\ue001"
_XML_NS = "{http://www.w3.org/XML/1998/namespace}id"

DOI_RE = lazy(r"\b10\.\d{4,9}/[^\s\"<>]+", re.I)
_DOI_PREFIX = lazy(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.I)


def normalize_doi(doi: str | None) -> str | None:
    """A DOI lower-cased, without ``https://doi.org/``/``doi:`` and trailing punctuation (None if empty)."""
    if not doi:
        return None
    d = _DOI_PREFIX.sub("", doi.strip()).strip()
    d = d.rstrip(".,;)]}>").lower()
    return d or None


def fold(name: str) -> str:
    """A surname folded for matching: accents dropped, case-folded, letters only."""
    s = unicodedata.normalize("NFKD", name)
    return re.sub(r"[^a-z]", "", "".join(c for c in s if not unicodedata.combining(c)).casefold())


# ---- XML ----------------------------------------------------------------------------------------

_PARA_TAGS = frozenset(["p", "item", "list-item", "td", "th", "figDesc", "caption", "title", "head", "cell",
                        "note", "fn", "label"])


@dataclass
class _Placed:
    scope: Scope | None
    start: int | None
    end: int | None
    unit_id: str | None
    page: int | None


def _marked(el: etree._Element, cites: list[etree._Element]) -> etree._Element:
    """A copy of ``el`` with a begin marker before and an end marker after each citation's text."""
    copy = deepcopy(el)
    copy.tail = None
    originals = list(el.iter())
    copies = list(copy.iter())
    index = {id(o): c for o, c in zip(originals, copies, strict=True)}
    for i, cite in enumerate(cites):
        c = index.get(id(cite))
        if c is None:
            continue
        c.text = chr(_BEGIN + i) + (c.text or "")
        kids = list(c)
        if kids:
            kids[-1].tail = (kids[-1].tail or "") + _END
        else:
            c.text += _END
    return copy


_MARKS = lazy("([\U000F0000-\U000FFFFD\ue001])")


def _strip_markers(text: str) -> tuple[str, dict[int, tuple[int, int]]]:
    """The text without markers (spaces re-collapsed as ``clean_text`` does) and each citation's span."""
    out: list[str] = []
    n = 0  # characters in ``out``
    last = ""  # the last character written
    spans: dict[int, tuple[int, int]] = {}
    open_: list[tuple[int, int]] = []
    for piece in _MARKS.split(text):
        if not piece:
            continue
        if len(piece) == 1 and (piece == _END or ord(piece) >= _BEGIN):
            if piece == _END:
                if open_:
                    i, a = open_.pop()
                    spans[i] = (a, n)
            else:
                open_.append((ord(piece) - _BEGIN, n))
            continue
        if piece[0] == " " and (n == 0 or last == " "):
            piece = piece.lstrip(" ")
            if not piece:
                continue
        out.append(piece)
        n += len(piece)
        last = piece[-1]
    joined = "".join(out)
    stripped = joined.rstrip(" ")
    n = len(stripped)
    fixed = {}
    for i, (a, b) in spans.items():
        a, b = min(a, n), min(b, n)
        seg = stripped[a:b]
        a += len(seg) - len(seg.lstrip())
        b -= len(seg) - len(seg.rstrip())
        fixed[i] = (a, max(a, b))
    return stripped, fixed


class _Units:
    """Look paragraph texts up in a Document (body and abstract) to place citations."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.by_text: dict[str, list[tuple[Scope, int, str | None]]] = {}
        for par in doc.paragraphs:
            self.by_text.setdefault(par.text, []).append(("body", par.start, None))
        for sec in doc.abstract:
            self.by_text.setdefault(sec.text, []).append(("abstract", sec.start, None))

    def place(self, para_text: str, a: int, b: int) -> _Placed:
        hits = self.by_text.get(para_text)
        if hits:
            scope, base, _ = hits[0]
            return self._placed(scope, base + a, base + b)
        snippet = para_text[max(0, a - 40): b + 40]
        for scope, text in (("body", self.doc.body_text), ("abstract", self.doc.abstract_text)):
            pos = text.find(snippet) if len(snippet) > b - a + 10 else -1
            if pos >= 0:
                off = pos + (a - max(0, a - 40))
                return self._placed(scope, off, off + (b - a))
        return _Placed(None, None, None, None, None)

    def _placed(self, scope: Scope, start: int, end: int) -> _Placed:
        sent = self.doc.locate_offset(start, scope)
        return _Placed(scope, start, end, sent.id if sent else None, sent.page if sent else None)


def _container(el: etree._Element) -> etree._Element:
    from claimtrace.documents.readers._xml import local

    cur = el.getparent()
    while cur is not None and local(cur.tag) not in _PARA_TAGS:
        cur = cur.getparent()
    return cur if cur is not None else el


def place_xml_citations(doc: Document, cites: list[etree._Element],
                        inline: Callable[[etree._Element], str]) -> list[tuple[str, _Placed]]:
    """Each citation element's text and place, reading its paragraph with the reader's ``inline`` rules."""
    units = _Units(doc)
    groups: dict[int, tuple[etree._Element, list[etree._Element]]] = {}
    for c in cites:
        box = _container(c)
        groups.setdefault(id(box), (box, []))[1].append(c)
    placed: dict[int, tuple[str, _Placed]] = {}
    for box, members in groups.values():
        text, spans = _strip_markers(clean_text(inline(_marked(box, members))))
        for i, c in enumerate(members):
            mention = clean_text("".join(str(t) for t in c.itertext()))
            if i in spans:
                a, b = spans[i]
                placed[id(c)] = (text[a:b] or mention, units.place(text, a, b))
            else:
                placed[id(c)] = (mention, _Placed(None, None, None, None, None))
    return [placed[id(c)] for c in cites]


def _txt(el: etree._Element | None) -> str | None:
    """An element's text with whitespace collapsed (entry fields: no offsets depend on it)."""
    if el is None:
        return None
    return " ".join(" ".join(str(t) for t in el.itertext()).split()) or None


def tei_bibliography(root: etree._Element, doc: Document,
                     inline: Callable[[etree._Element], str]) -> Document:
    """The Document with its TEI reference list (``listBibl/biblStruct``) and ``ref type="bibr"`` citations."""
    from claimtrace.documents.readers._xml import local

    refs: list[Reference] = []
    tag = root.tag if isinstance(root.tag, str) else ""
    ns = tag[: tag.index("}") + 1] if tag.startswith("{") else ""
    for lb in root.iter(ns + "listBibl"):
        for bs in lb:
            if local(bs.tag) not in ("biblStruct", "bibl"):
                continue
            refs.append(_tei_entry(bs, len(refs)))
    skip = {ns + "teiHeader", ns + "listBibl"}
    cites = [e for e in root.iter(ns + "ref") if e.get("type") == "bibr"
             and not any(a.tag in skip for a in e.iterancestors())]
    known = {r.id for r in refs}
    placed = place_xml_citations(doc, cites, inline)
    out: list[Citation] = []
    for el, (mention, pl) in zip(cites, placed, strict=True):
        targets = [t.lstrip("#") for t in (el.get("target") or "").split()]
        ids = [t for t in targets if t in known]
        out.append(_citation(len(out), mention, ids, pl, "xml"))
    return _finish(doc, refs, out)


def _tei_entry(bs: etree._Element, i: int) -> Reference:
    from claimtrace.documents.readers._xml import children, first

    rid = bs.get(_XML_NS) or f"b{i}"
    analytic = first(bs, "analytic")
    monogr = first(bs, "monogr")
    holder = analytic if analytic is not None and children(analytic, "author") else monogr
    authors: list[str] = []
    if holder is not None:
        for a in children(holder, "author"):
            sur = next(a.iter("{*}surname"), None)  # "{*}": any namespace or none, as local() compares
            name = _txt(sur)
            if name:
                authors.append(name)
    title = None
    for part in (analytic, monogr):
        t = first(part, "title") if part is not None else None
        if t is not None and _txt(t):
            title = _txt(t)
            break
    venue = _txt(first(monogr, "title")) if analytic is not None and first(analytic, "title") is not None else None
    date = next(bs.iter("{*}date"), None)
    year = None
    if date is not None:
        m = re.match(r"\d{4}", date.get("when") or _txt(date) or "")
        year = m.group(0) if m else None
    doi = next((e.text.strip() for e in bs.iter("{*}idno") if (e.get("type") or "").upper() == "DOI" and e.text), None)
    raw_el = next((n for n in bs.iter("{*}note") if n.get("type") == "raw_reference"), None)
    raw = _txt(raw_el) or _txt(bs) or ""
    if year and raw:
        m = re.search(rf"\b{year}([a-z])\b", raw)
        if m:
            year += m.group(1)
    return Reference(id=rid, authors=authors, year=year, title=title, venue=venue, doi=doi, raw=raw)


def jats_bibliography(root: etree._Element, doc: Document,
                      inline: Callable[[etree._Element], str]) -> Document:
    """The Document with its JATS reference list (``ref-list/ref``) and ``xref ref-type="bibr"`` citations."""
    from claimtrace.documents.readers._xml import local

    refs: list[Reference] = []
    for rl in root.iter("ref-list"):
        for ref in rl.iter("ref"):
            refs.append(_jats_entry(ref, len(refs)))
    order = {r.id: i for i, r in enumerate(refs)}
    cites = [e for e in root.iter("xref") if e.get("ref-type") == "bibr"
             and not any(local(a.tag) == "ref-list" for a in e.iterancestors())]
    placed = place_xml_citations(doc, cites, inline)
    out: list[Citation] = []
    for el, (mention, pl) in zip(cites, placed, strict=True):
        ids = [t for t in (el.get("rid") or "").split() if t in order]
        prev = el.getprevious()
        if (prev is not None and prev in cites and ids and re.fullmatch(r"\s*[-\u2013\u2014]\s*", prev.tail or "")):
            first = [t for t in (prev.get("rid") or "").split() if t in order]
            if first and order[first[-1]] < order[ids[0]]:  # "1–4": the entries between are cited too
                ids = [refs[k].id for k in range(order[first[-1]] + 1, order[ids[0]])] + ids
        out.append(_citation(len(out), mention, ids, pl, "xml"))
    return _finish(doc, refs, out)


def _jats_entry(ref: etree._Element, i: int) -> Reference:
    from claimtrace.documents.readers._xml import local

    rid = ref.get("id") or f"ref{i + 1}"
    cit = next((e for e in ref.iter() if local(e.tag) in ("element-citation", "mixed-citation", "citation",
                                                           "nlm-citation")), ref)
    authors = [_txt(s) or "" for s in cit.iter("surname")]
    if not authors:
        authors = [_txt(c) or "" for c in cit.iter("collab")]
    year_el = next(cit.iter("year"), None)
    year = _txt(year_el)
    title = _txt(next(cit.iter("article-title"), None)) or _txt(next(cit.iter("chapter-title"), None))
    source = _txt(next(cit.iter("source"), None))
    if title is None:
        title, source = source, None
    doi = next((_txt(p) for p in cit.iter("pub-id") if p.get("pub-id-type") == "doi"), None)
    if doi is None:
        ext = next((e for e in cit.iter("ext-link") if "doi" in (e.get("{http://www.w3.org/1999/xlink}href") or "")),
                   None)
        doi = _txt(ext)
    label = _txt(ref.find("label"))
    raw = _txt(cit) or ""
    return Reference(id=rid, label=label.strip("[]. ") if label else None, authors=[a for a in authors if a],
                     year=year, title=title, venue=source, doi=doi, raw=raw)


def _citation(i: int, mention: str, ids: list[str], pl: _Placed, via: str) -> Citation:
    return Citation(id=f"c{i + 1}", text=mention, ref_ids=ids, scope=pl.scope, unit_id=pl.unit_id, start=pl.start,
                    end=pl.end, page=pl.page, via="xml" if via == "xml" else "text")


def _finish(doc: Document, refs: list[Reference], cites: list[Citation]) -> Document:
    """Link what the markup left unlinked by author-year, then attach both lists to the Document."""
    index = _AuthorYearIndex(refs)
    fixed = []
    for c in cites:
        if not c.ref_ids:
            ids = [rid for item in _split_items(c.text) for rid in index.match(item)]
            if ids:
                c = c.model_copy(update={"ref_ids": list(dict.fromkeys(ids)), "via": "text"})
        fixed.append(c)
    return doc.model_copy(update={"references": refs, "citations": fixed})


# ---- reference sections given as text ---------------------------------------------------------------

_NAME = r"[A-Z\u00c0-\u017f][\w'\u2019\u00c0-\u017f-]+(?:\s(?:van|von|de|der|den|la|le|da|di|du|Van|De)\s?[A-Z]?[\w'\u2019-]*)*"
_INITIALS = r"(?:[A-Z\u00c0-\u017f]\.[\s-]?){1,4}"
_PARTICLE = r"(?:(?:van|von|de|der|den|di|da|du|del|della|le|la|ten|ter)\s)"
_APA_AUTHOR = rf"{_PARTICLE}{{0,2}}{_NAME}(?:\s{_NAME})?,\s{_INITIALS}"
_APA_START = lazy(
    rf"(?:(?<=\s)|^)({_APA_AUTHOR}(?:,?\s(?:&\s|\.\.\.\s)?{_APA_AUTHOR})*,?\s*(?:et al\.\s*)?)"
    rf"\((\d{{4}}[a-z]?|n\.\s?d\.|in press|forthcoming)[^)]*\)")
_NUMBERED = lazy(r"(?:(?<=\s)|^)(?:\[(\d{1,3})\]|(\d{1,3})\.)\s+(?=\S)")
_YEAR = lazy(r"\b(1[89]\d{2}|20\d{2})([a-z])?\b")


def reference_text(doc: Document) -> str:
    """The reference section as the readers kept it (the ``references`` blocks, in order, one per line)."""
    return "\n".join(e.text for e in doc.excluded if e.kind == "references")


def split_entries(text: str) -> list[tuple[str | None, str]]:
    """The entries of a reference section given as text: ``(label, raw)``; numbered or author-year."""
    flat = re.sub(r"(\w)-\n(\w)", r"\1\2", text)
    flat = re.sub(r"\s+", " ", flat).strip()
    if not flat:
        return []
    numbered = _numbered_entries(flat)
    apa = [m.start(1) for m in _APA_START.finditer(flat)]
    if numbered and len(numbered) >= max(3, len(apa) // 2):
        return numbered
    if apa:
        cuts = [*apa, len(flat)]
        return [(None, flat[a:b].strip()) for a, b in itertools.pairwise(cuts) if flat[a:b].strip()]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return [(None, ln) for ln in lines if _YEAR.search(ln)]


def _numbered_entries(flat: str) -> list[tuple[str | None, str]]:
    """Entries of a numbered list: the labels 1, 2, 3... in sequence mark the cuts."""
    cuts: list[tuple[int, int, str]] = []
    want = 1
    for m in _NUMBERED.finditer(flat):
        num = int(m.group(1) or m.group(2))
        if num == want:
            cuts.append((m.start(), m.end(), str(num)))
            want += 1
    if len(cuts) < 2:
        return []
    out: list[tuple[str | None, str]] = []
    for k, (_, body, label) in enumerate(cuts):
        end = cuts[k + 1][0] if k + 1 < len(cuts) else len(flat)
        out.append((label, flat[body:end].strip()))
    return out


def _trim_doi(doi: str) -> str:
    """A DOI without the punctuation the sentence put after it (an unbalanced closing bracket too)."""
    while doi and (doi[-1] in ".,;" or (doi[-1] in ")]" and doi.count("(") + doi.count("[") < doi.count(")")
                                                             + doi.count("]"))):
        doi = doi[:-1]
    return doi


def join_doi_breaks(text: str) -> str:
    """DOIs a PDF line break cut ("doi:10.1093/ cercor/bhv229", "10.1016/j .cub", "10. 1098/rspb") joined again."""
    text = re.sub(r"(doi\.org/|doi:)\s+(?=10\.)", r"\1", text, flags=re.I)
    text = re.sub(r"\b10\.\s(\d{4,9}/)", r"10.\1", text)
    text = re.sub(r"(\b10\.\d{4,9}/)\s(?=[\w(])", r"\1", text)
    return re.sub(r"(\b10\.\d{4,9}/\S*[\w])\s(?=[.\-_]\w)", r"\1", text)


def parse_entry(raw: str, rid: str, label: str | None = None) -> Reference:
    """A reference entry read from its printed text: authors' surnames, year, title, venue and DOI."""
    doi_m = DOI_RE.search(join_doi_breaks(raw))
    doi = _trim_doi(doi_m.group(0)) if doi_m else None
    year = None
    authors: list[str] = []
    title = venue = None
    m = _APA_START.match(raw)
    if m:
        year = m.group(2)
        authors = [re.split(r",", a)[0].strip() for a in re.findall(_APA_AUTHOR, m.group(1))]
        rest = raw[m.end():].lstrip(". ")
        parts = re.split(r"(?<=\.)\s+(?=[A-Z])", rest, maxsplit=1)
        title = parts[0].rstrip(".") or None
        if len(parts) > 1:
            venue = re.split(r",\s*\d|\.\s", parts[1], maxsplit=1)[0].strip(" .") or None
    else:
        ym = _YEAR.search(raw)
        if ym:
            year = ym.group(1) + (ym.group(2) or "")
        head = raw[: ym.start()] if ym else raw[:80]
        authors = [a for a in (re.split(r",|\s", x.strip())[0] for x in re.split(r",\s(?=[A-Z])|\band\b|&", head))
                   if len(a) > 1 and a[0].isupper() and not re.fullmatch(r"(?:[A-Z]\.)+", a)][:8]
    return Reference(id=rid, label=label, authors=authors, year=year, title=title, venue=venue, doi=doi, raw=raw)


# ---- in-text citations ------------------------------------------------------------------------------

_PAREN = lazy(r"\(([^()]{4,400})\)")
_YEAR_ITEM = r"(?:\d{4}[a-z]?(?![.\d]\d)|in press|n\.\s?d\.)"
_ITEM = lazy(
    rf"(?P<names>{_NAME}(?:(?:,\s|\s(?:and|&)\s|,\s(?:and|&)\s){_NAME})*(?:\s+et\s+al\.?)?),?\s+"
    rf"(?P<years>{_YEAR_ITEM}(?:,\s*{_YEAR_ITEM})*)")
_NARRATIVE = lazy(
    rf"(?P<names>{_NAME}(?:(?:,\s|\s(?:and|&)\s|,\s(?:and|&)\s){_NAME})*(?:\s+et\s+al\.?)?)[\u2019']?s?\s+"
    rf"\((?P<years>{_YEAR_ITEM}(?:[,;]\s*{_YEAR_ITEM})*)\)")
_BRACKET = lazy(r"\[(\d{1,3}(?:\s*[-\u2013,]\s*\d{1,3})*)\]")
_NOT_NAMES = frozenset(["version", "study", "experiment", "table", "figure", "fig", "see", "eg", "ie", "cf", "also", "and",
                        "in", "the", "for", "review", "meta", "sample", "wave", "time", "year", "since", "from",
                        "between", "during", "until", "before", "after", "january", "february", "march", "april",
                        "may", "june", "july", "august", "september", "october", "november", "december"])


_ADVERBS = frozenset(["similarly", "however", "moreover", "additionally", "specifically", "finally", "notably",
                      "importantly", "recently", "previously", "indeed", "thus", "therefore", "although", "whereas",
                      "while", "because", "but", "yet", "also", "furthermore", "likewise", "conversely", "first",
                      "second", "third", "here", "later", "then", "instead", "accordingly", "consequently"])


# right after an article the capitalised words are a thing's name, not an author ("the Devil Task, Slovic, 1966")
_AFTER_ARTICLE = lazy(r"(?:^|[\s(])(?:the|a|an)\s+(?:[A-Z][\w-]*\s+)*$")


@dataclass(frozen=True)
class CiteItem:
    """One cited work in an author-year mention: surnames (first author first), et al., years."""

    names: tuple[str, ...]
    et_al: bool
    years: tuple[str, ...]


def _split_items(mention: str) -> list[CiteItem]:
    """The author-year items of a mention ("(e.g., Smith & Doe, 2010; Lee et al., 2012a, 2013)").

    Without a comma before the year an item counts only inside parentheses ("(Smith 2010)"): a bare
    "Born 1883" in a table is a date, not a citation.
    """
    items: list[CiteItem] = []
    for m in list(_ITEM.finditer(mention)) + list(_NARRATIVE.finditer(mention)):
        if m.re is _ITEM and "," not in m.group(0)[len(m.group("names")):] and "(" not in mention[: m.start() + 1]:
            continue
        item = _item(m.group("names"), m.group("years"))
        if item and len(item.names) > 1 and _AFTER_ARTICLE.search(mention, 0, m.start()):
            item = CiteItem(item.names[1:], item.et_al, item.years)  # "(the Devil Task, Slovic, 1966)": a name
        if item and item not in items:
            items.append(item)
    return items


def _item(names: str, years: str) -> CiteItem | None:
    et_al = bool(re.search(r"et\s+al", names))
    names = re.sub(r"\s+et\s+al\.?", "", names)
    parts = [re.sub(r"[\u2019']s$", "", p.strip()) for p in re.split(r",\s(?:and|&)\s|,\s|\s(?:and|&)\s", names)
             if p.strip()]
    while parts and fold(parts[0]) in _ADVERBS:
        parts.pop(0)  # "Similarly, Dubey (1991)": the sentence's first word is no author
    if not parts or fold(parts[0]) in _NOT_NAMES:
        return None
    ys = tuple(y.strip() for y in re.split(r"[,;]", years) if y.strip())
    return CiteItem(tuple(parts), et_al, ys)


class _AuthorYearIndex:
    """Entries by first author's surname and year, to link author-year citations."""

    def __init__(self, refs: Iterable[Reference]) -> None:
        self.by_key: dict[tuple[str, str], list[Reference]] = {}
        for r in refs:
            if r.authors and r.year:
                self.by_key.setdefault((fold(r.authors[0]), r.year.lower()), []).append(r)
                if r.year[-1:].isalpha() and r.year[:4].isdigit():
                    self.by_key.setdefault((fold(r.authors[0]), r.year[:4]), []).append(r)

    def match(self, item: CiteItem) -> list[str]:
        out: list[str] = []
        first = fold(item.names[0])
        for y in item.years:
            cands = self.by_key.get((first, y.lower().replace(" ", "")), [])
            if not cands and len(first) > 3:  # a surname of several words printed with one ("Della Sala")
                cands = [r for (s, yy), rs in self.by_key.items() if yy == y.lower() and s.endswith(first)
                         for r in rs]
            if len(cands) > 1 and len(item.names) > 1:
                second = fold(item.names[1])
                narrowed = [r for r in cands if len(r.authors) > 1 and fold(r.authors[1]) == second]
                cands = narrowed or cands
            if len(cands) > 1 and not item.et_al:
                narrowed = [r for r in cands if len(r.authors) == len(item.names)]
                cands = narrowed or cands
            out.extend(r.id for r in cands[:1])
        return list(dict.fromkeys(out))


def text_bibliography(doc: Document) -> Document:
    """The Document with a reference list split from its reference section's text and linked citations."""
    entries = split_entries(reference_text(doc))
    refs = [parse_entry(raw, f"r{i + 1}", label) for i, (label, raw) in enumerate(entries)]
    numbered = bool(refs) and all(r.label for r in refs)
    index = _AuthorYearIndex(refs)
    by_label = {r.label: r.id for r in refs if r.label}
    cites: list[Citation] = []
    scopes: tuple[Scope, ...] = ("abstract", "body")
    for scope in scopes:
        for sent in doc.sentences(scope):
            found: list[tuple[int, int, str, list[str]]] = []
            if numbered:
                for m in _BRACKET.finditer(sent.text):
                    found.append((m.start(), m.end(), m.group(0),
                                  [by_label[n] for n in _expand(m.group(1)) if n in by_label]))
            else:
                for m in _PAREN.finditer(sent.text):
                    items = _split_items(m.group(0))
                    if items:
                        ids = [rid for it in items for rid in index.match(it)]
                        found.append((m.start(), m.end(), m.group(0), ids))
                        if len(ids) < len(items):
                            found[-1] = (*found[-1][:3], ids)
                for m in _NARRATIVE.finditer(sent.text):
                    if any(a <= m.start() < b for a, b, _, _ in found):
                        continue
                    item = _item(m.group("names"), m.group("years"))
                    if item:
                        found.append((m.start(), m.end(), m.group(0), index.match(item)))
            for a, b, text, ids in sorted(found):
                cites.append(Citation(id=f"c{len(cites) + 1}", text=text, ref_ids=list(dict.fromkeys(ids)),
                                      scope=sent.scope, unit_id=sent.id, start=sent.start + a,
                                      end=sent.start + b, page=sent.page, via="text"))
    return doc.model_copy(update={"references": refs, "citations": cites})


def numbers_of(mention: str) -> list[str]:
    """The entry numbers a bracketed citation names ("[2, 4-6]" gives 2, 4, 5, 6)."""
    m = _BRACKET.search(mention)
    return _expand(m.group(1)) if m else []


def _expand(spec: str) -> list[str]:
    out: list[str] = []
    for part in re.split(r"\s*,\s*", spec):
        m = re.fullmatch(r"(\d+)\s*[-\u2013]\s*(\d+)", part)
        if m and int(m.group(1)) < int(m.group(2)) <= int(m.group(1)) + 50:
            out.extend(str(k) for k in range(int(m.group(1)), int(m.group(2)) + 1))
        elif part.strip().isdigit():
            out.append(part.strip())
    return out


def unmatched_items(citation: Citation, doc: Document) -> list[CiteItem]:
    """The author-year items of a citation that match no entry of the Document's reference list."""
    index = _AuthorYearIndex(doc.references)
    return [it for it in _split_items(citation.text) if not index.match(it)]


bind_lazy(globals())  # the patterns above compile on first use (claimtrace.patterns)
