"""Retrieval units: the paragraphs, sentences, table rows, table row groups or figure legends of a Document's body
(and abstract, on request).

A table-row unit (``t2.r5``) is the row rendered with its table label, row label and column headers
("Table 2 › Dominant party × Security: Model 3: −0.009 (0.004)**"); its offsets index
``Document.tables_text`` (scope ``"table"``), ``paragraph_id`` is the table id and ``cell_ids`` name the
cells it renders. A row-group unit (``t2.g1``) is a sub-table: a heading row with the rows under it
(``Table.groups``), same scope and ids. A figure-legend unit (``f3``) is a figure's caption
(``Document.figure_legends``); its offsets index ``Document.figures_text`` (scope ``"figure"``) and
``section`` is the figure's label.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from claimtrace.documents.model import Document, Scope, SectionKind, StrictModel
from claimtrace.errors import ClaimtraceError
from claimtrace.types import UNIT_KINDS, UnitKind

_UNIT_NAMES: dict[str, UnitKind] = {"paragraph": "paragraph", "paragraphs": "paragraph", "sentence": "sentence",
                                    "sentences": "sentence", "table-row": "table-row", "table-rows": "table-row",
                                    "row-group": "row-group", "row-groups": "row-group",
                                    "figure-legend": "figure-legend", "figure-legends": "figure-legend"}
_EXPECTED = "paragraphs, sentences, table-rows, row-groups and/or figure-legends"


def parse_units(spec: str | Sequence[str]) -> list[UnitKind]:
    """Unit kinds from ``paragraphs,sentences,table-rows`` (singular or plural names; order kept)."""
    names = [x.strip() for x in (spec.split(",") if isinstance(spec, str) else spec) if x.strip()]
    out: list[UnitKind] = []
    for n in names:
        if n not in _UNIT_NAMES:
            raise ClaimtraceError(f"unknown unit {n!r} (expected {_EXPECTED})")
        if _UNIT_NAMES[n] not in out:
            out.append(_UNIT_NAMES[n])
    if not out:
        raise ClaimtraceError(f"no units given (expected {_EXPECTED})")
    return out


class Unit(BaseModel):
    """One retrievable piece of a Document, with its offsets and where it sits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    text: str
    scope: Scope
    start: int
    end: int
    section: str | None = None
    section_kind: SectionKind = "other"
    paragraph_id: str
    cell_ids: tuple[str, ...] = ()


class Hit(StrictModel):
    """A ranked unit returned by a retriever or reranker."""

    unit_id: str
    rank: int
    score: float
    text: str
    section: str | None = None
    scope: Scope
    start: int
    end: int
    cell_ids: list[str] = Field(default_factory=list)


def table_row_units(doc: Document) -> list[Unit]:
    """One unit per table row that holds data (header rows left out), rendered with labels and headers."""
    out: list[Unit] = []
    for t in doc.tables:
        for r in t.rows:
            if r.header or not r.text.strip():
                continue
            out.append(Unit(id=r.id, text=r.text, scope="table", start=r.start, end=r.end,
                            section=t.label or t.id, section_kind="results", paragraph_id=t.id,
                            cell_ids=tuple(r.cell_ids)))
    return out


def row_group_units(doc: Document) -> list[Unit]:
    """One unit per row group of a table (a sub-table heading with its rows), rendered in one line."""
    return [Unit(id=g.id, text=g.text, scope="table", start=g.start, end=g.end, section=t.label or t.id,
                 section_kind="results", paragraph_id=t.id, cell_ids=tuple(g.cell_ids))
            for t in doc.tables for g in t.groups if g.text.strip()]


def figure_legend_units(doc: Document) -> list[Unit]:
    """One unit per figure legend (a figure's caption), its label as the section."""
    return [Unit(id=f.id, text=f.text, scope="figure", start=f.start, end=f.end, section=f.label or f.id,
                 section_kind="results", paragraph_id=f.id) for f in doc.figure_legends()]


def document_units(doc: Document, unit: UnitKind | Sequence[UnitKind] = "paragraph",
                   include_abstract: bool = False) -> list[Unit]:
    """The units of a document: body paragraphs, sentences, table rows, row groups and/or figure legends, abstract
    first when included."""
    kinds = [unit] if isinstance(unit, str) else list(unit)
    bad = [k for k in kinds if k not in UNIT_KINDS]
    if bad or not kinds:
        raise ClaimtraceError(f"unknown unit {bad[0] if bad else ''!r} (expected {_EXPECTED})")
    out: list[Unit] = []
    for k in kinds:
        if k == "table-row":
            out.extend(table_row_units(doc))
        elif k == "row-group":
            out.extend(row_group_units(doc))
        elif k == "figure-legend":
            out.extend(figure_legend_units(doc))
        else:
            out.extend(_text_units(doc, k, include_abstract))
    return [u for u in out if u.text.strip()]


def _text_units(doc: Document, unit: UnitKind, include_abstract: bool) -> list[Unit]:
    out: list[Unit] = []
    if include_abstract:
        for sec in doc.abstract:
            if unit == "paragraph":
                out.append(Unit(id=sec.id, text=sec.text, scope="abstract", start=sec.start, end=sec.end,
                                section=sec.label or "Abstract", section_kind="other", paragraph_id=sec.id))
            else:
                for s in sec.sentences:
                    out.append(Unit(id=s.id, text=s.text, scope="abstract", start=s.start, end=s.end,
                                    section=sec.label or "Abstract", section_kind="other", paragraph_id=sec.id))
    for par in doc.paragraphs:
        if unit == "paragraph":
            out.append(Unit(id=par.id, text=par.text, scope="body", start=par.start, end=par.end,
                            section=par.section, section_kind=par.section_kind, paragraph_id=par.id))
        else:
            for s in par.sentences:
                out.append(Unit(id=s.id, text=s.text, scope="body", start=s.start, end=s.end,
                                section=par.section, section_kind=par.section_kind, paragraph_id=par.id))
    return out


def make_hits(units: list[Unit], order: list[int], scores: list[float]) -> list[Hit]:
    """Hits for the units at ``order`` (indices into ``units``) with their scores, ranked from 1."""
    return [
        Hit(unit_id=units[i].id, rank=r, score=float(s), text=units[i].text, section=units[i].section,
            scope=units[i].scope, start=units[i].start, end=units[i].end, cell_ids=list(units[i].cell_ids))
        for r, (i, s) in enumerate(zip(order, scores, strict=True), 1)
    ]
