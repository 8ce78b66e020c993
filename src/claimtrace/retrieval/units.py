"""Retrieval units: the paragraphs or sentences of a Document's body (and abstract, on request)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from claimtrace.documents.model import Document, Scope, SectionKind
from claimtrace.errors import ClaimtraceError

UnitKind = Literal["paragraph", "sentence"]


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


class Hit(BaseModel):
    """A ranked unit returned by a retriever or reranker."""

    model_config = ConfigDict(extra="forbid")

    unit_id: str
    rank: int
    score: float
    text: str
    section: str | None = None
    scope: Scope
    start: int
    end: int


def document_units(doc: Document, unit: UnitKind = "paragraph", include_abstract: bool = False) -> list[Unit]:
    """The units of a document: body paragraphs or sentences, abstract first when included."""
    if unit not in ("paragraph", "sentence"):
        raise ClaimtraceError(f"unknown unit {unit!r} (expected 'paragraph' or 'sentence')")
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
    return [u for u in out if u.text.strip()]


def make_hits(units: list[Unit], order: list[int], scores: list[float]) -> list[Hit]:
    """Hits for the units at ``order`` (indices into ``units``) with their scores, ranked from 1."""
    return [
        Hit(unit_id=units[i].id, rank=r, score=float(s), text=units[i].text, section=units[i].section,
            scope=units[i].scope, start=units[i].start, end=units[i].end)
        for r, (i, s) in enumerate(zip(order, scores, strict=True), 1)
    ]
