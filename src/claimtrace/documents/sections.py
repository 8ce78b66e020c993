"""Section kinds from headings: IMRaD with the usual synonyms, for every input format."""

from __future__ import annotations

import re

from claimtrace.documents.model import ExcludedKind, SectionKind

_KIND_PATTERNS: list[tuple[SectionKind, re.Pattern[str]]] = [
    ("methods", re.compile(
        r"\b(materials?\s+and\s+methods?|methods?|methodology|patients\s+and\s+methods|subjects\s+and\s+methods"
        r"|experimental\s+(procedures?|design|section|setup)|study\s+design|participants|procedures?"
        r"|statistical\s+analys[ie]s|data\s+analys[ie]s|measures|materials|design|sample|stimuli|setting"
        r"|trial\s+design|interventions?|outcome\s+measures|data\s+collection|analysis\s+plan)\b", re.I)),
    ("results", re.compile(r"\b(results?|findings|outcomes)\b", re.I)),
    ("discussion", re.compile(r"\b(discussion|general\s+discussion|interpretation|limitations?|comments?)\b", re.I)),
    ("conclusion", re.compile(r"\b(conclusions?|concluding\s+remarks|summary|implications)\b", re.I)),
    ("introduction", re.compile(
        r"\b(introduction|background|overview|motivation|rationale|related\s+work|literature\s+review"
        r"|theoretical\s+(background|framework)|the\s+present\s+stud(y|ies)|current\s+stud(y|ies)|aims?|objectives?"
        r"|hypothes[ie]s)\b", re.I)),
]

_EXCLUDED_HEADINGS: list[tuple[ExcludedKind, re.Pattern[str]]] = [
    ("references", re.compile(r"^\s*(\d+\.?\s*)?(references?|bibliography|literature\s+cited|works\s+cited|reference\s+list)\s*$", re.I)),
    ("acknowledgements", re.compile(
        r"^\s*(\d+\.?\s*)?(acknowledge?ments?|funding|funding\s+(sources?|statement|information)|competing\s+interests?"
        r"|conflicts?\s+of\s+interests?|declaration\s+of\s+(competing\s+)?interests?|author(s'|s’)?\s+contributions?"
        r"|authors'?\s+information|financial\s+disclosures?|disclosures?|pre-publication\s+history"
        r"|abbreviations|supplementary\s+(material|information|data)|data\s+availability(\s+statement)?"
        r"|ethics\s+(statement|approval)|open\s+access)\s*$", re.I)),
]


def section_kind(heading: str | None) -> SectionKind:
    """Map a section heading to introduction / methods / results / discussion / conclusion / other."""
    if not heading:
        return "other"
    text = re.sub(r"^\s*([0-9IVX]+(\.[0-9]+)*\.?|[A-Z]\.)\s+", "", heading.strip())
    text = re.sub(r"\s+", " ", text)
    # "Results and discussion" is a results section; "Study 2 Results" too.
    best: tuple[int, SectionKind] | None = None
    for kind, pattern in _KIND_PATTERNS:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), kind)
    return best[1] if best else "other"


def excluded_heading(heading: str | None) -> ExcludedKind | None:
    """The excluded-block kind a heading introduces (references, acknowledgements...), if any."""
    if not heading:
        return None
    for kind, pattern in _EXCLUDED_HEADINGS:
        if pattern.match(heading.strip().rstrip(":")):
            return kind
    return None
