"""Assemble a Document from the blocks a reader finds: offsets, sentence ids and section kinds."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

from claimtrace.documents.model import (
    AbstractSection,
    BBox,
    Document,
    ExcludedBlock,
    ExcludedKind,
    Paragraph,
    SectionKind,
    Sentence,
    Source,
    SourceFormat,
)
from claimtrace.documents.sections import section_kind
from claimtrace.documents.sentences import split_sentences
from claimtrace.documents.studies import assign_studies
from claimtrace.documents.tables import RawTable, build_table

PARAGRAPH_SEPARATOR = "\n\n"

_SPACE_CHARS = dict.fromkeys(map(ord, "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\t\r\x0b\x0c"), " ")
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_DASHES = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"), "-")


def content_hash(data: bytes) -> str:
    """The document id: sha256 hex digest of the source bytes."""
    return hashlib.sha256(data).hexdigest()


# the same mappings as regex character classes: a class scan in C is faster than str.translate's per-character lookup
_SPACE_RX = re.compile("[" + "".join(map(re.escape, map(chr, _SPACE_CHARS))) + "]")
_ZERO_WIDTH_RX = re.compile("[" + "".join(map(re.escape, map(chr, _ZERO_WIDTH))) + "]")
_DASH_RX = re.compile("[" + "".join(map(re.escape, map(chr, _DASHES))) + "]")
_NEWLINE = re.compile(r"[ ]*\n[ ]*")
_SPACES = re.compile(r" {2,}")


def clean_text(text: str, *, dashes: bool = False) -> str:
    """Normalise whitespace and invisible characters; optionally map unicode minus/dashes to '-'."""
    if text.isascii():  # no invisible character, ligature or unicode dash; ASCII is NFC already
        text = _SPACE_RX.sub(" ", text)
    else:
        text = _SPACE_RX.sub(" ", _ZERO_WIDTH_RX.sub("", text))
        text = unicodedata.normalize("NFC", text)
        text = text.replace("\ufb00", "ff").replace("\ufb01", "fi").replace("\ufb02", "fl")
        text = text.replace("\ufb03", "ffi").replace("\ufb04", "ffl").replace("\ufb05", "st").replace("\ufb06", "st")
        if dashes:
            text = _DASH_RX.sub("-", text)
    if "\n" in text:
        text = _NEWLINE.sub(" ", text)
    return (_SPACES.sub(" ", text) if "  " in text else text).strip()


@dataclass
class _Para:
    text: str
    section: str | None
    kind: SectionKind | None
    page: int | None
    pages: list[int]
    bbox: BBox | None
    source_start: int | None
    source_end: int | None


@dataclass
class DocumentBuilder:
    """Collects abstract sections, body paragraphs and excluded blocks, then builds a Document."""

    source_path: str
    source_format: SourceFormat
    source_bytes: bytes
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    encoding: str | None = None  # the text encoding detected by a text reader
    _abstract: list[tuple[str | None, str, int | None]] = field(default_factory=list)
    _paras: list[_Para] = field(default_factory=list)
    _excluded: list[ExcludedBlock] = field(default_factory=list)
    _tables: list[RawTable] = field(default_factory=list)

    def add_abstract(self, text: str, label: str | None = None, page: int | None = None) -> None:
        """Add one abstract section (label when the abstract is structured)."""
        text = clean_text(text)
        if text:
            self._abstract.append((label.strip().rstrip(":") if label else None, text, page))

    def add_paragraph(
        self,
        text: str,
        section: str | None = None,
        *,
        kind: SectionKind | None = None,
        page: int | None = None,
        pages: list[int] | None = None,
        bbox: BBox | None = None,
        source_start: int | None = None,
        source_end: int | None = None,
        clean: bool = True,
    ) -> None:
        """Add one body paragraph under a section heading."""
        if clean:
            text = clean_text(text)
        if not text:
            return
        self._paras.append(
            _Para(text, clean_text(section) if section else None, kind, page, pages or ([page] if page else []),
                  bbox, source_start, source_end)
        )

    def add_excluded(self, kind: ExcludedKind, text: str, *, label: str | None = None,
                     section: str | None = None, page: int | None = None) -> None:
        """Record a block that is left out of the body (table, caption, references...)."""
        text = text.strip()
        if text:
            self._excluded.append(ExcludedBlock(kind=kind, text=text, label=label, section=section, page=page))

    def add_table(self, table: RawTable) -> None:
        """Add a table (a grid of raw cells); its grid, headers and stub are resolved in ``build``."""
        rows = [[c for c in row] for row in table.rows]
        for row in rows:
            for c in row:
                c.text = clean_text(c.text)
        table.rows = [row for row in rows if row]
        if table.label:
            table.label = clean_text(table.label).rstrip(" .:") or None
        if any(c.text for row in table.rows for c in row):
            self._tables.append(table)

    @property
    def paragraph_count(self) -> int:
        """Number of body paragraphs added so far."""
        return len(self._paras)

    def build(self) -> Document:
        """Compute offsets, split sentences, assign ids and return the Document."""
        abstract: list[AbstractSection] = []
        pos = 0
        for i, (label, text, page) in enumerate(self._abstract):
            if i:
                pos += len(PARAGRAPH_SEPARATOR)
            sid = f"a{i + 1}"
            abstract.append(AbstractSection(
                id=sid, index=i, label=label, text=text, start=pos, end=pos + len(text), page=page,
                sentences=_sentences(text, pos, sid, "abstract", page)))
            pos += len(text)
        abstract_text = PARAGRAPH_SEPARATOR.join(t for _, t, _ in self._abstract)

        paragraphs: list[Paragraph] = []
        pos = 0
        for i, p in enumerate(self._paras):
            if i:
                pos += len(PARAGRAPH_SEPARATOR)
            pid = f"p{i + 1}"
            paragraphs.append(Paragraph(
                id=pid, index=i, section=p.section, section_kind=p.kind or section_kind(p.section),
                text=p.text, start=pos, end=pos + len(p.text), page=p.page, pages=p.pages, bbox=p.bbox,
                source_start=p.source_start, source_end=p.source_end,
                sentences=_sentences(p.text, pos, pid, "body", p.page)))
            pos += len(p.text)
        body_text = PARAGRAPH_SEPARATOR.join(p.text for p in self._paras)

        tables = []
        pos = 0
        for i, raw in enumerate(self._tables):
            if i:
                pos += len(PARAGRAPH_SEPARATOR)
            t = build_table(raw, i, pos)
            tables.append(t)
            pos = t.end
        doc = Document(
            id=content_hash(self.source_bytes),
            source=Source(path=self.source_path, format=self.source_format, size=len(self.source_bytes),
                          encoding=self.encoding),
            title=clean_text(self.title) if self.title else None,
            authors=self.authors,
            metadata=self.metadata,
            abstract=abstract,
            abstract_text=abstract_text,
            paragraphs=paragraphs,
            body_text=body_text,
            excluded=self._excluded,
            tables=tables,
            tables_text=PARAGRAPH_SEPARATOR.join(t.text for t in tables),
            warnings=self.warnings,
        )
        return assign_studies(doc)


def _sentences(text: str, offset: int, parent: str, scope: str, page: int | None) -> list[Sentence]:
    return [
        Sentence(id=f"{parent}.s{j + 1}", text=text[a:b], start=offset + a, end=offset + b,
                 scope="abstract" if scope == "abstract" else "body", page=page)
        for j, (a, b) in enumerate(split_sentences(text))
    ]
