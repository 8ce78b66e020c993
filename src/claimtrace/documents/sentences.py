"""Sentence splitting for scientific prose, with exact character offsets.

Survives abbreviations (et al., e.g., i.e., Fig., Eq., vs., approx., cf.), initials, decimals and
statistics (``p < .05``, ``t(98) = 2.45``, ``95% CI [1.2, 3.4]``, ``OR = 0.56 (0.32-0.97)``) and
bracketed citations: a period inside brackets never ends a sentence, and a boundary needs
whitespace followed by a plausible sentence start. Abbreviations that often end a sentence too
("et al.", "etc.", "U.S.", units such as "12 mo.") end one when a typical sentence opener follows.
Two splits without whitespace are recognised: a superscript citation glued to the period
("... previously.1,2 The next") and a missing space ("... the end.Another sentence"). A list bullet ("•") before a
capital starts a sentence, with or without a period before it: GROBID merges a bulleted list ("• Hypothesis 1: ...
• Hypothesis 2: ...") into one paragraph, and each item is a statement of its own.
"""

from __future__ import annotations

import re

# never end a sentence (the next word belongs to the same sentence)
STRONG_ABBREVIATIONS = frozenset([
    "e.g", "eg", "i.e", "ie", "fig", "figs", "eq", "eqs", "vs", "v", "approx", "ca", "cf", "no", "nos",
    "vol", "vols", "pp", "p", "ref", "refs", "dr", "mr", "mrs", "ms", "prof", "st", "sr", "dept", "univ",
    "exp", "expt", "expts", "ver", "sect", "ch", "chap", "tab", "tabs", "suppl", "viz", "n.b", "nr", "ser",
    "approx.", "incl", "excl", "abbr", "corr", "coeff", "avg", "std", "est", "al.", "esp", "lit", "orig",
    "cit", "ibid", "op", "dist", "div", "gen", "govt", "mt", "ft", "pt", "pts", "subsp", "var",
    "cv", "ssp", "mol", "wt", "conc", "temp", "ed", "eds", "rev", "repr", "transl", "comp", "trans",
])
# may end a sentence: end one only when a typical sentence opener follows
WEAK_ABBREVIATIONS = frozenset([
    "al", "etc", "inc", "ltd", "co", "corp", "jr", "resp", "u.s", "u.k", "e.u", "u.s.a", "min", "max",
    "mo", "mos", "yr", "yrs", "wk", "wks", "hr", "hrs", "sec", "d", "h", "jan", "feb", "mar", "apr",
    "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "sp", "spp", "bros", "llc", "gmbh", "plc", "a.g",
])
ABBREVIATIONS = STRONG_ABBREVIATIONS | WEAK_ABBREVIATIONS
_UNITS = frozenset(["min", "max", "mo", "mos", "yr", "yrs", "wk", "wks", "hr", "hrs", "sec", "d", "h"])
_OPENERS = frozenset([
    "the", "this", "these", "that", "those", "there", "thus", "then", "therefore", "however", "in", "on",
    "at", "for", "from", "to", "as", "after", "before", "during", "we", "our", "it", "its", "they",
    "their", "he", "she", "his", "her", "a", "an", "all", "no", "none", "of", "one", "two", "three",
    "four", "five", "six", "seven", "eight", "nine", "ten", "both", "each", "most", "some", "such",
    "since", "although", "though", "while", "when", "whereas", "furthermore", "moreover", "finally",
    "overall", "similarly", "additionally", "also", "other", "only", "here", "data", "table", "figure",
    "fig", "patients", "participants", "subjects", "results", "addition", "consequently", "hence",
    "accordingly", "nevertheless", "nonetheless", "conversely", "importantly", "notably", "interestingly",
    "specifically", "first", "second", "third", "lastly", "further", "given", "because", "if", "unlike",
    "using", "with", "without", "among", "between", "across", "compared", "despite", "following", "based",
    "many", "several", "few", "more", "less",
])

_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
# a superscript citation glued to the period: "previously.1,2 The", "trials.3-5 We"
_GLUED_CITATION = re.compile(r"(?<=[A-Za-z)\]])[.](?:\d{1,3}(?:[,–-]\d{1,3})*)(?=\s+[A-Z])")
# a missing space: "the end.Another" (a word of 2+ lower-case letters, then a capitalised word)
_NO_SPACE = re.compile(r"[.!?](?=[A-Z][a-z]{2,}\s)")
_BULLETS = "•▪●◦‣∙"
_START = re.compile(rf"\s+(?:[{_BULLETS}]\s*)*[\"'“‘(\[]?[A-Z0-9ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ]")
# a list bullet after a word, before a capital: the previous item ends (no period needed), the bullet opens the next
_BULLET = re.compile(rf"(?<=[^\s{_BULLETS}])\s+(?=(?:[{_BULLETS}]\s*)+[\"'“‘(\[]?[A-Z0-9])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_NEXT_WORD = re.compile(r"\s*[\"'“‘(\[]?([A-Za-z]+)")
_ENUMERATOR = re.compile(r"(?:^|:)\s*\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,5})[.)]\s*$")
_ENUM_TAIL = 24
_BRACKET = re.compile(r"[()\[\]{}]")
_OPEN = "([{"
_CLOSE = ")]}"


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences; returns (start, end) offsets with surrounding space trimmed."""
    candidates = _candidates(text)
    spans: list[tuple[int, int]] = []
    depth = 0
    pos = 0
    start = 0
    n = len(text)
    for dot, end, next_start, kind in candidates:
        if dot < start:
            continue
        # bracket depth between the last position and the candidate
        if pos < dot:
            depth = _depth_after(text, pos, dot, depth)
        pos = dot
        if depth > 0:
            # a whole parenthesised sentence "(This was expected.)" closes its brackets itself
            closers = text[dot:end].count(")") + text[dot:end].count("]")
            if not (closers >= depth and text[start:dot].lstrip()[:1] in "([" and kind == "space"):
                continue
            for ch in text[dot:end]:
                if ch in _CLOSE and depth > 0:
                    depth -= 1
            pos = end
        if kind not in ("cite", "bullet") and _is_abbreviation(text, dot, text[dot:end], next_start):
            continue
        if _ENUMERATOR.search(text[max(start, end - _ENUM_TAIL) : end]) and (
                end - _ENUM_TAIL <= start or ":" in text[end - _ENUM_TAIL : dot]):
            continue  # "2. Does X lead to Y?": a list number is not a sentence
        if text[start:end].strip():
            spans.append(_trim(text, start, end))
        start = next_start
    if start < n and text[start:].strip():
        spans.append(_trim(text, start, n))
    return [s for s in spans if s[1] > s[0]]


def _candidates(text: str) -> list[tuple[int, int, int, str]]:
    """Possible boundaries: (punctuation start, sentence end, next sentence start, kind)."""
    out: list[tuple[int, int, int, str]] = []
    for m in _BOUNDARY.finditer(text):
        nxt = _START.match(text, m.end())
        if nxt:
            out.append((m.start(), m.end(), nxt.start() + len(nxt.group()) - len(nxt.group().lstrip()), "space"))
    if "." in text:
        for m in _GLUED_CITATION.finditer(text):
            nxt = _START.match(text, m.end())
            if nxt:
                out.append((m.start(), m.end(), nxt.start() + len(nxt.group()) - len(nxt.group().lstrip()), "cite"))
        for m in _NO_SPACE.finditer(text):
            d = m.start()
            if d >= 2 and text[d - 1].islower() and text[d - 2].islower():
                out.append((d, d + 1, d + 1, "nospace"))
    if any(b in text for b in _BULLETS):
        for m in _BULLET.finditer(text):
            out.append((m.start(), m.start(), m.end(), "bullet"))
    out.sort()
    return out


def _depth_after(text: str, start: int, end: int, depth: int) -> int:
    """Bracket depth after ``text[start:end]`` (closers never take it below zero)."""
    for m in _BRACKET.finditer(text, start, end):
        if m.group() in _OPEN:
            depth += 1
        elif depth > 0:
            depth -= 1
    return depth


def _is_abbreviation(text: str, dot: int, punct: str, next_start: int) -> bool:
    """True when the period at ``dot`` belongs to an abbreviation or initial (no sentence end)."""
    if not punct.startswith(".") or len(punct.rstrip("\"'”’)]")) > 1:
        return False
    m = _WORD_BEFORE.search(text, max(0, dot - 20), dot + 1)
    if not m:
        return False
    raw = m.group(1)
    word = raw.lower().rstrip(".")
    nw = _NEXT_WORD.match(text, next_start)
    next_word = nw.group(1) if nw else ""
    opener = next_word.lower() in _OPENERS and next_word[:1].isupper()
    if word in WEAK_ABBREVIATIONS:
        if word in _UNITS or word == "etc":
            # "for 12 mo. Outcomes were", "2200 kcal/d. Protein", "pears, etc. The": a capital ends it
            return not next_word[:1].isupper()
        return not opener
    if word in STRONG_ABBREVIATIONS:
        return True
    # initials ("J. Smith", "A.B. Jones") and single capital letters ("group A. The" ends, though)
    if len(word.replace(".", "")) == 1 and raw[0].isupper():
        if m.start() > 0 and text[m.start() - 1] in "°0123456789":
            return False  # "37 °C." and "5 M." are units, not initials
        return not (opener and len(raw) == 1 and not _initial_context(text, m.start()))
    # dotted abbreviations like "e.g" or "U.S"
    if re.fullmatch(r"(?:[a-z]\.)+[a-z]", word):
        return not opener
    return False


def _initial_context(text: str, pos: int) -> bool:
    """A single capital before the period looks like an initial (a name follows or precedes)."""
    before = text[max(0, pos - 3) : pos]
    return bool(re.search(r"[A-Z]\.\s?$", before))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
