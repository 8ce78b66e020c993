"""The papers of one study: loading, retrieval units, uniform (per-paper quota) and pooled retrieval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from claimtrace.documents import Document, load_document
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.retrieval.base import Retriever, rank
from claimtrace.retrieval.selectors import uniform_quota
from claimtrace.retrieval.units import Unit, UnitKind, document_units

DEFAULT_K = 10
DEFAULT_BETA = 2.0
DEFAULT_N_MAX = 40


def per_paper_quota(k: int, n_papers: int, beta: float = DEFAULT_BETA, n_max: int = DEFAULT_N_MAX) -> int:
    """URCA's per-paper quota: k_s = ceil(min(k + beta * ln S, N_max) / S) for S papers."""
    if n_papers < 1:
        raise ClaimtraceError("at least one paper is needed")
    return uniform_quota(k, n_papers, beta, n_max)  # the retrieval module's selector, one formula


@dataclass
class Paper:
    """One loaded paper of the study and its retrieval units (with the built index, once)."""

    index: int
    path: str
    doc: Document
    units: list[Unit]
    _index: Any = field(default=None, repr=False)

    def abstract(self) -> str:
        """The abstract text (empty when the reader found none)."""
        return self.doc.abstract_text


@dataclass
class Passage:
    """A retrieved unit with the paper it comes from and its score."""

    paper: int
    unit: Unit
    score: float

    @property
    def text(self) -> str:
        """The unit's text."""
        return self.unit.text


def load_papers(papers: Sequence[str | Path | Document], unit: UnitKind = "sentence",
                include_abstract: bool = True) -> list[Paper]:
    """Load the study's papers (paths or Documents) and cut them into retrieval units."""
    if not papers:
        raise ClaimtraceError("no papers given")
    out: list[Paper] = []
    for i, p in enumerate(papers):
        doc = p if isinstance(p, Document) else load_document(p)
        units = document_units(doc, unit, include_abstract)
        if not units and not doc.abstract_text.strip():
            raise InputError(doc.source.path, "no text to read (empty body and abstract)")
        out.append(Paper(index=i, path=str(doc.source.path if isinstance(p, Document) else p), doc=doc, units=units))
    return out


def _scores(retriever: Retriever, paper: Paper, query: str) -> np.ndarray:
    if paper._index is None:
        paper._index = retriever.build(paper.units)
    return np.asarray(retriever.scores(paper._index, query), dtype=np.float64)


def uniform_retrieve(papers: Sequence[Paper], query: str, retriever: Retriever, k: int = DEFAULT_K,
                     beta: float = DEFAULT_BETA, n_max: int = DEFAULT_N_MAX) -> tuple[list[Passage], int]:
    """Each paper's top k_s units (URCA's uniform retrieval); returns the passages and k_s."""
    ks = per_paper_quota(k, len(papers), beta, n_max)
    out: list[Passage] = []
    for p in papers:
        if not p.units:
            continue
        s = _scores(retriever, p, query)
        out.extend(Passage(p.index, p.units[i], float(s[i])) for i in rank(s, ks))
    return out, ks


def pooled_retrieve(papers: Sequence[Paper], query: str, retriever: Retriever, k: int = DEFAULT_K) -> list[Passage]:
    """Standard RAG: the top k units of all papers pooled into one index (a long paper can take them all)."""
    pooled: list[tuple[int, Unit]] = [(p.index, u) for p in papers for u in p.units]
    if not pooled:
        return []
    index = retriever.build([u for _, u in pooled])
    s = np.asarray(retriever.scores(index, query), dtype=np.float64)
    return [Passage(pooled[i][0], pooled[i][1], float(s[i])) for i in rank(s, k)]


def units_per_paper(passages: Sequence[Passage], n_papers: int) -> list[int]:
    """How many passages came from each paper."""
    counts = [0] * n_papers
    for p in passages:
        counts[p.paper] += 1
    return counts


def format_passages(passages: Sequence[Passage], papers: Sequence[Paper]) -> str:
    """Passages as numbered lines for a prompt, each tagged with its paper."""
    multi = len(papers) > 1
    lines = []
    for i, p in enumerate(passages, 1):
        tag = f"[{i}{f' paper {p.paper + 1}' if multi else ''}]"
        lines.append(f"{tag} {p.text}")
    return "\n".join(lines)
