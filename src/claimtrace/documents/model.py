"""The Document model: a paper as abstract sections, body paragraphs and sentences, with offsets.

Offsets are character offsets into ``Document.body_text`` (body units) or ``Document.abstract_text``
(abstract units). ``body_text`` is the body paragraphs joined by a blank line ("\\n\\n"); likewise
``abstract_text`` for the abstract sections. Unit ids are stable for the same input: paragraphs
``p1, p2, ...`` (1-based; ``Paragraph.index`` is 0-based), sentences ``p12.s3``, abstract sections
``a1, a2, ...`` and abstract sentences ``a2.s1``. Tables are ``t1, t2, ...`` with rows ``t2.r5`` and
cells ``t2.r5.c3`` and row groups ``t2.g1``; their offsets index ``Document.tables_text`` (scope ``"table"``).
Figure legends are ``f1, f2, ...`` (``Document.figure_legends``); their offsets index ``Document.figures_text``
(scope ``"figure"``).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from claimtrace.schema_version import SCHEMA_VERSION

Scope = Literal["body", "abstract", "table", "figure"]
SectionKind = Literal["introduction", "methods", "results", "discussion", "conclusion", "other"]
SourceFormat = Literal["jats", "tei", "pdf", "html", "text", "markdown", "docx"]
ExcludedKind = Literal[
    "references",
    "table",
    "figure",
    "caption",
    "equation",
    "acknowledgements",
    "footnote",
    "front matter",
    "header",
    "other",
]


class StrictModel(BaseModel):
    """The base of claimtrace's typed models: unknown fields are an error, not silently kept."""

    model_config = ConfigDict(extra="forbid")


class Span(StrictModel):
    """A character span in a document: ``scope`` says which text the offsets index."""

    scope: Scope
    start: int
    end: int
    unit_id: str | None = None


class BBox(StrictModel):
    """A box on a PDF page in PDF points (x0, top, x1, bottom), origin top-left."""

    x0: float
    top: float
    x1: float
    bottom: float


class Sentence(StrictModel):
    """One sentence, with offsets into ``body_text`` or ``abstract_text`` (see ``scope``)."""

    id: str
    text: str
    start: int
    end: int
    scope: Scope = "body"
    page: int | None = None


class Paragraph(StrictModel):
    """One body paragraph; ``start``/``end`` index ``Document.body_text``."""

    id: str
    index: int
    section: str | None = None
    section_kind: SectionKind = "other"
    text: str
    sentences: list[Sentence] = Field(default_factory=list)
    start: int
    end: int
    page: int | None = None
    pages: list[int] = Field(default_factory=list)
    bbox: BBox | None = None
    source_start: int | None = None
    source_end: int | None = None
    study: str | None = Field(None, description="the study or experiment it belongs to ('1', '2a', 'pilot', 'general')")


class AbstractSection(StrictModel):
    """One section of the abstract (label set when the abstract is structured)."""

    id: str
    index: int
    label: str | None = None
    text: str
    sentences: list[Sentence] = Field(default_factory=list)
    start: int
    end: int
    page: int | None = None


class ExcludedBlock(StrictModel):
    """A block left out of the body (references, table, caption...), kept so nothing is lost."""

    kind: ExcludedKind
    text: str
    label: str | None = None
    section: str | None = None
    page: int | None = None


class TableCell(StrictModel):
    """One cell of a table grid: position, spans, text, and its row label and column header path.

    ``start``/``end`` index ``Document.tables_text``; ``id`` is ``t2.r5.c3`` (1-based row and column of
    the cell's top-left grid position).
    """

    id: str
    row: int
    col: int
    rowspan: int = 1
    colspan: int = 1
    text: str
    header: bool = False
    stub: bool = False
    row_label: str | None = None
    column_path: list[str] = Field(default_factory=list)
    start: int
    end: int
    bbox: BBox | None = None


class TableRow(StrictModel):
    """One grid row: its id (``t2.r5``), row label, cells, and its rendering as a retrieval unit.

    ``text`` is the row rendered with the table label, row label and column headers
    ("Table 2 › Dominant party × Security › Model 3: −0.009 (0.004)**"); ``start``/``end`` index
    ``Document.tables_text`` (the row's line there); ``cell_ids`` name the cells the rendering uses
    (a standard-error row below an estimate row is folded into it).
    """

    id: str
    index: int
    header: bool = False
    label: str | None = None
    group: str | None = None
    text: str
    cell_ids: list[str] = Field(default_factory=list)
    start: int
    end: int


class TableRowGroup(StrictModel):
    """Rows that belong together under one heading: a sub-table heading row and the rows below it, the rows an
    indented stub puts under a row, or the rows a spanning stub cell covers.

    ``id`` is ``t2.g1``; ``heading`` the heading row's id (None when a spanning stub cell makes the group);
    ``text`` renders the heading and every member row in one line; ``start``/``end`` index
    ``Document.tables_text`` (the heading's line to the last member's).
    """

    id: str
    label: str
    heading: str | None = None
    row_ids: list[str] = Field(default_factory=list)
    text: str
    cell_ids: list[str] = Field(default_factory=list)
    start: int
    end: int


class Table(StrictModel):
    """A table: label, caption, footnotes, and a grid of cells with header rows and stub resolved.

    ``text`` is the grid as plain text (a tab between cells, a newline between rows); ``start``/``end``
    index ``Document.tables_text`` (the tables' texts joined by a blank line).
    """

    id: str
    index: int
    label: str | None = None
    caption: str | None = None
    footnotes: list[str] = Field(default_factory=list)
    section: str | None = None
    n_rows: int = 0
    n_cols: int = 0
    header_rows: int = 0
    stub_column: bool = False
    cells: list[TableCell] = Field(default_factory=list)
    rows: list[TableRow] = Field(default_factory=list)
    groups: list[TableRowGroup] = Field(default_factory=list)
    text: str = ""
    start: int = 0
    end: int = 0
    page: int | None = None
    bbox: BBox | None = None
    reader: str | None = None

    def cell(self, row: int, col: int) -> TableCell | None:
        """The cell covering a grid position (1-based row and column), if any."""
        for c in self.cells:
            if c.row <= row < c.row + c.rowspan and c.col <= col < c.col + c.colspan:
                return c
        return None


class Reference(StrictModel):
    """One entry of the reference list: ``authors`` are surnames in order; ``raw`` the entry as printed."""

    id: str
    label: str | None = None  # the printed number of a numbered list ("12")
    authors: list[str] = Field(default_factory=list)
    year: str | None = None  # "2014", "2014a", "in press"
    title: str | None = None
    venue: str | None = None
    doi: str | None = None  # as printed (normalise with ``claimtrace.documents.bibliography.normalize_doi``)
    raw: str = ""


class Citation(StrictModel):
    """An in-text citation: the mention as read, the entries it links to, and where it is.

    ``start``/``end`` index the text of ``scope`` (None when the mention sits outside the body and
    abstract, e.g. in a table caption); ``via`` says how it was linked ("xml": the source's own link,
    "text": matched by author-year or number).
    """

    id: str
    text: str
    ref_ids: list[str] = Field(default_factory=list)
    scope: Scope | None = "body"
    unit_id: str | None = None  # the sentence id
    start: int | None = None
    end: int | None = None
    page: int | None = None
    via: Literal["xml", "text"] = "text"


class Source(StrictModel):
    """Where a Document came from."""

    path: str
    format: SourceFormat
    size: int | None = None
    encoding: str | None = None  # text formats: the encoding detected (utf-8, utf-16-le, cp1252...)


class FigureLegend(StrictModel):
    """A figure's legend (its caption), as a unit of its own: id ``f1``, the figure's label, and offsets into
    ``Document.figures_text``; ``block`` is the index of the excluded block it comes from."""

    id: str
    label: str | None = None
    text: str
    section: str | None = None
    page: int | None = None
    block: int
    start: int
    end: int


#: a caption that names a figure ("Figure 2.", "Fig. 3", "Supplementary Figure S1", "Figs 2-3")
_FIGURE_LABEL = re.compile(r"^\s*(?:Supplementa(?:ry|l)\s+)?(?:Fig(?:ure)?s?\.?|Plate)\s*S?\d", re.I)


class Document(StrictModel):
    """A parsed paper: abstract kept apart, body paragraphs and sentences, excluded blocks."""

    schema_version: str = SCHEMA_VERSION
    id: str
    source: Source
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    metadata: dict[str, str] = Field(default_factory=dict)
    abstract: list[AbstractSection] = Field(default_factory=list)
    abstract_text: str = ""
    paragraphs: list[Paragraph] = Field(default_factory=list)
    body_text: str = ""
    excluded: list[ExcludedBlock] = Field(default_factory=list)
    tables: list[Table] = Field(default_factory=list)
    tables_text: str = ""
    references: list[Reference] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    _units: dict[str, Paragraph | AbstractSection | Sentence] | None = PrivateAttr(default=None)

    # ---- navigation helpers -------------------------------------------------------------
    def sentences(self, scope: Scope | Literal["all"] = "body") -> list[Sentence]:
        """All sentences of the body, the abstract, or both (abstract first)."""
        out: list[Sentence] = []
        if scope in ("abstract", "all"):
            for sec in self.abstract:
                out.extend(sec.sentences)
        if scope in ("body", "all"):
            for par in self.paragraphs:
                out.extend(par.sentences)
        return out

    def figure_legends(self) -> list[FigureLegend]:
        """The figures' legends, in reading order: the excluded ``figure`` blocks of a structured source (JATS, TEI,
        HTML, DOCX hold a figure's caption there), and ``caption`` blocks that name a figure (a PDF's, a figure
        group's). A PDF's ``figure`` blocks are the text inside a chart (axis labels), not legends."""
        out: list[FigureLegend] = []
        pos = 0
        for i, b in enumerate(self.excluded):
            if b.kind == "figure" and self.source.format != "pdf":
                pass
            elif not (b.kind == "caption" and (_FIGURE_LABEL.match(b.label or "") or _FIGURE_LABEL.match(b.text))):
                continue
            text = b.text
            if (b.label and b.label[:1].isupper() and _FIGURE_LABEL.match(b.label)
                    and not text.lower().startswith(b.label.lower())):
                text = f"{b.label}. {text}"
            if not text.strip():
                continue
            if out:
                pos += 2  # the "\n\n" between legends in ``figures_text``
            out.append(FigureLegend(id=f"f{len(out) + 1}", label=b.label, text=text, section=b.section, page=b.page,
                                    block=i, start=pos, end=pos + len(text)))
            pos += len(text)
        return out

    @property
    def figures_text(self) -> str:
        """The figure legends joined by a blank line (what scope ``"figure"`` offsets index)."""
        return "\n\n".join(f.text for f in self.figure_legends())

    def unit(self, unit_id: str) -> Paragraph | AbstractSection | Sentence:
        """Look a paragraph, abstract section or sentence up by its id."""
        index = self._unit_index()
        try:
            return index[unit_id]
        except KeyError:
            raise KeyError(f"no unit {unit_id!r} in document {self.id[:12]}") from None

    def paragraph_of(self, unit_id: str) -> Paragraph | AbstractSection:
        """The paragraph (or abstract section) that holds a unit."""
        unit = self.unit(unit_id.split(".")[0])
        assert not isinstance(unit, Sentence)
        return unit

    def text_of(self, span: Span) -> str:
        """The text a span covers."""
        text = {"body": self.body_text, "abstract": self.abstract_text, "table": self.tables_text,
                "figure": self.figures_text}[span.scope]
        return text[span.start : span.end]

    def locate_offset(self, offset: int, scope: Scope = "body") -> Sentence | None:
        """The sentence that contains a character offset."""
        for sent in self.sentences(scope):
            if sent.start <= offset < sent.end:
                return sent
        return None

    def _unit_index(self) -> dict[str, Paragraph | AbstractSection | Sentence]:
        cached = self._units
        if cached is None:
            cached = {}
            for sec in self.abstract:
                cached[sec.id] = sec
                for s in sec.sentences:
                    cached[s.id] = s
            for par in self.paragraphs:
                cached[par.id] = par
                for s in par.sentences:
                    cached[s.id] = s
            self._units = cached
        return cached
