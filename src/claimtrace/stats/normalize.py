"""Repair PDF-conversion damage before parsing, keeping a map back to the original offsets.

``normalize(text)`` returns the repaired text and ``offsets``: ``offsets[i]`` is the index in the
original text of repaired character ``i`` (``offsets[len(repaired)] == len(text)``). Repairs:
unicode minus signs and dashes -> ``-``; thin, narrow and non-breaking spaces -> space; zero-width
characters and soft hyphens dropped; ligatures expanded (``ﬁ`` -> ``fi``); superscript/subscript
digits flattened (``χ²`` -> ``χ2``); the glyphs statcheck's PDF import maps (U+2AFD ``=``, U+2B0D
``<``, U+2AFA ``-``, U+2439 ``χ``, ``¼`` for ``=``); a middle dot between digits -> decimal point; a
control character or ``?`` standing where a minus sign belongs (after ``=``, ``<``, ``(``, ``[``, ``,``
and before a digit) -> ``-``, other control characters -> space. Comparators turned into letters
(``pb.001``, ``p ! .01``, ``p p .05``) are repaired by the parser, which knows the context.
"""

from __future__ import annotations

import re

_MAP: dict[str, str] = {
    "\u2212": "-", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    "\u2015": "-", "\ufe63": "-", "\uff0d": "-", "\u2afa": "-", "\u02d7": "-",
    "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ", "\u2006": " ",
    "\u2007": " ", "\u2008": " ", "\u2009": " ", "\u200a": " ", "\u202f": " ", "\u205f": " ",
    "\u3000": " ", "\r": " ",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "", "\u00ad": "",
    "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
    "\ufb06": "st",
    "\u2afd": "=", "\u00bc": "=", "\u2b0d": "<", "\u2439": "χ", "\uff1d": "=", "\uff1c": "<", "\uff1e": ">",
    "\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4", "\u2075": "5",
    "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9", "\u207b": "-", "\u207a": "+",
    "\u2080": "0", "\u2081": "1", "\u2082": "2", "\u2083": "3", "\u2084": "4", "\u2085": "5",
    "\u2086": "6", "\u2087": "7", "\u2088": "8", "\u2089": "9", "\u209a": "p",
    "\u2032": "'", "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
    "\u2264": "≤", "\u2a7d": "≤", "\u2266": "≤", "\u2265": "≥", "\u2a7e": "≥", "\u2267": "≥",
    "\u03c7": "χ", "\u1d61": "χ", "\u00d7": "×",
}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")
# a damaged minus: control char / "?" after a comparator or opening bracket, before a number
_MINUS_SLOT = re.compile(r"(?:[=<>≤≥(\[,:]|\bto)\s*$")
_NEEDS_MAP = re.compile("[" + "".join(re.escape(k) for k in _MAP) + r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd?·]")


def normalize(text: str) -> tuple[str, list[int]]:
    """Repair PDF damage; returns the repaired text and the map of its offsets to the original."""
    if not _NEEDS_MAP.search(text):
        return text, list(range(len(text) + 1))
    out: list[str] = []
    offsets: list[int] = []
    n = len(text)
    for i, ch in enumerate(text):
        rep = _MAP.get(ch)
        if rep is None:
            if _CONTROL.match(ch) or ch == "?":
                nxt = text[i + 1 : i + 3]
                if re.match(r"\s?\.?\d", nxt) and _MINUS_SLOT.search("".join(out[-6:])):
                    rep = "-"
                elif ch == "?":
                    rep = ch
                else:
                    rep = " "
            elif ch == "·" and 0 < i < n - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
                rep = "."
            else:
                rep = ch
        for c in rep:
            out.append(c)
            offsets.append(i)
    offsets.append(n)
    return "".join(out), offsets


def map_span(offsets: list[int], start: int, end: int) -> tuple[int, int]:
    """Map a span of the repaired text back to the original text."""
    if end <= start:
        o = offsets[start]
        return o, o
    return offsets[start], offsets[end - 1] + 1
