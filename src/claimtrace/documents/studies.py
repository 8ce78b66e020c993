"""Study structure of a paper: which study or experiment each body paragraph belongs to.

Multi-study papers (psychology: "Study 1", "Experiment 2a", "Pilot Study", "General Discussion") report each
study's method and results under its own heading; the sub-headings that follow ("Method", "Results",
"Participants") belong to it. ``assign_studies`` labels every paragraph with the study it sits in (carried
forward from the last study heading), ``"general"`` for a General Discussion / General Results part, and
``None`` before the first study (the introduction) or in a paper without study headings. A "Method" heading
that follows a study's Results with no new study heading starts the next study (GROBID sometimes drops the
"Study 2" heading), and a Method or Results part before a first study heading of "Study 2" (or later) is the study
before it (GROBID dropped the "Study 1" heading). ``study_named`` reads the study a sentence names ("In Study 2, ...").
Boxes that are not part of the argument ("Statement of Relevance", "Open Practices", "Transparency") are
recognised by ``is_box_heading``.
"""

from __future__ import annotations

import re

from claimtrace.documents.model import Document
from claimtrace.patterns import bind_lazy, lazy

_NUM = r"(\d+[a-z]?|[IVX]+\b|one|two|three|four|five|six)"
STUDY_HEADING = lazy(
    r"^\s*(?:(pilot)\s+(?:study|experiment)(?:\s*" + _NUM + r")?|(?:stud(?:y|ies)|experiments?)\s*" + _NUM + r"\b)",
    re.I)
GENERAL_HEADING = lazy(r"^\s*general\s+(discussion|results|conclusions?)\b", re.I)
STUDY_MENTION = lazy(r"\b(?:(pilot)\s+(?:study|experiment)|(?:study|experiment)\s*" + _NUM + r")\b", re.I)
#: journal boxes beside the argument (Psychological Science's "Statement of Relevance", open-science badges)
BOX_HEADING = lazy(
    r"^\s*(statement of relevance|open practices?( statement)?|transparency|action editor|declaration of conflicting|"
    r"author contributions?|funding|acknowledg|supplemental material|data availability|preregistration statement|"
    r"research transparency|constraints on generality|ethics)", re.I)
_METHOD = lazy(r"^\s*(general\s+)?methods?\b", re.I)
_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
          "i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6"}


def _label(num: str | None, pilot: str | None) -> str:
    if pilot:
        return "pilot" + (_WORDS.get((num or "").lower(), num or "") or "")
    n = (num or "").lower()
    return _WORDS.get(n, n)


def heading_study(heading: str | None) -> str | None:
    """The study a heading opens ("Experiment 2a: Method" -> "2a", "Pilot Study" -> "pilot"), or None."""
    if not heading:
        return None
    if GENERAL_HEADING.search(heading):
        return "general"
    m = STUDY_HEADING.search(heading)
    if not m:
        return None
    return _label(m.group(2) or m.group(3), m.group(1))


def study_named(text: str) -> str | None:
    """The first study a sentence names ("In Experiment 2, ..." -> "2"), or None."""
    m = STUDY_MENTION.search(text)
    if not m:
        return None
    return _label(m.group(2), m.group(1))


#: one or more studies named together ("Studies 1 and 2", "Experiments 2a-2c", "Study 3")
STUDIES_MENTION = lazy(r"\b(?:studies|experiments|study|experiment)\s*(" + _NUM +
                             r"(?:\s*(?:,|and|&|-|–|to)\s*(?:and\s+)?\d+[a-z]?\b)*)", re.I)


def studies_named(text: str) -> list[str]:
    """Every study a sentence names, plurals included ("In Studies 1 and 2, ..." -> ["1", "2"])."""
    out: list[str] = []
    for m in STUDIES_MENTION.finditer(text):
        for num in re.findall(r"\d+[a-z]?|[IVX]+\b|one|two|three|four|five|six", m.group(1), re.I):
            label = _label(num, None)
            if label not in out:
                out.append(label)
    if re.search(r"\bpilot\s+(?:study|experiment)", text, re.I):
        out.append("pilot")
    return out


#: what a paragraph of a box says (GROBID files the introduction's next paragraphs under the box's heading)
BOX_TEXT = lazy(r"osf\.io|preregist|pre-regist|badge|(data|materials|code)[^.]{0,40}(are|is|have been) (publicly )?"
                      r"available|conflicts? of interest|declared no|funding|grant|https?://", re.I)


def is_box_heading(heading: str | None) -> bool:
    """Whether a section heading is a journal box, not part of the paper's argument."""
    return bool(heading and BOX_HEADING.search(heading))


_PLURAL = lazy(r"^\s*(studies|experiments)\b", re.I)


def _num(label: str | None) -> int:
    m = re.match(r"\d+", label or "")
    return int(m.group(0)) if m else 0


def _next_label(label: str | None) -> str:
    m = re.match(r"(\d+)", label or "")
    return str(int(m.group(1)) + 1) if m else "2"


def assign_studies(doc: Document) -> Document:
    """Set ``Paragraph.study`` on every body paragraph (in place) and return the Document."""
    current: str | None = None
    seen_results = False
    highest = 0  # the highest study number seen so far
    for p in doc.paragraphs:
        if is_box_heading(p.section):
            p.study = current
            continue
        opened = heading_study(p.section)
        if opened not in (None, "general") and _PLURAL.match(p.section or "") and _num(opened) < highest:
            opened = "general"  # "Studies 1 and 2: Combined Data Analysis" after Study 2: a part over both
        if opened is not None and opened != current:
            current, seen_results = opened, False
        elif opened is None and current not in (None, "general") and seen_results and _METHOD.search(p.section or ""):
            current, seen_results = _next_label(current), False
        if p.section_kind == "results":
            seen_results = True
        p.study = current
        highest = max(highest, _num(current))
    _first_study_without_heading(doc)
    return doc


def _first_study_without_heading(doc: Document) -> None:
    """GROBID often drops the first study's heading: when the first study heading opens study N > 1 ("Study 2",
    "Experiment 3") and a Method or Results part precedes it, that part (from its first Method or Results
    paragraph on) is study N - 1."""
    pars = doc.paragraphs
    first = next((i for i, p in enumerate(pars) if p.study not in (None, "general")), None)
    if first is None:
        return
    m = re.fullmatch(r"(\d+)[a-z]?", pars[first].study or "")
    if not m or int(m.group(1)) < 2:
        return
    start = next((i for i, p in enumerate(pars[:first]) if p.section_kind in ("methods", "results")), None)
    if start is None:
        return
    for p in pars[start:first]:
        p.study = str(int(m.group(1)) - 1)


def studies(doc: Document) -> list[str]:
    """The studies of a paper in order of first appearance (without "general")."""
    out: list[str] = []
    for p in doc.paragraphs:
        if p.study and p.study != "general" and p.study not in out:
            out.append(p.study)
    return out


def box_paragraphs(doc: Document) -> set[str]:
    """Ids of the paragraphs that are journal boxes: the first paragraph under a box heading, and any later one
    under it that reads like one (data availability, preregistration, conflicts, funding, links)."""
    out: set[str] = set()
    prev: str | None = None
    for p in doc.paragraphs:
        if is_box_heading(p.section) and (p.section != prev or BOX_TEXT.search(p.text)):
            out.add(p.id)
        prev = p.section
    return out


bind_lazy(globals())  # the patterns above compile on first use (claimtrace.patterns)
