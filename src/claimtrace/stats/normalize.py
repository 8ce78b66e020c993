"""Repair PDF-conversion damage before parsing, keeping a map back to the original offsets.

``normalize(text)`` returns the repaired text and ``offsets`` (an ``OffsetMap``): ``offsets[i]`` is the index in
the original text of repaired character ``i`` (``offsets[len(repaired)] == len(text)``). Repairs:
unicode minus signs and dashes -> ``-``; thin, narrow and non-breaking spaces -> space; zero-width
characters and soft hyphens dropped; ligatures expanded (``ﬁ`` -> ``fi``); superscript/subscript
digits flattened (``χ²`` -> ``χ2``); the glyphs statcheck's PDF import maps (U+2AFD ``=``, U+2B0D
``<``, U+2AFA ``-``, U+2439 ``χ``, ``¼`` for ``=``); a middle dot between digits -> decimal point; a
control character or ``?`` standing where a minus sign belongs (after ``=``, ``<``, ``(``, ``[``, ``,``
and before a digit) -> ``-``, other control characters -> space; a minus sign or dash that went through
UTF-8 read as Mac Roman (``‚àí``, ``‚Äì``, ``‚Äî``) -> ``-``. Comparators turned into letters
(``pb.001``, ``p ! .01``, ``p p .05``) are repaired by the parser, which knows the context.

Font-substituted symbols (a math font whose glyphs extract as other characters) are repaired only where the
context makes them certain (``FONT_REPAIRS``; the parser names each on the result's ``repaired``): ``:`` as a
decimal point in a number right after ``¼``, in a p-value (``p < 0:001``) and in a named statistic's value
(``F = 20:9``, ``t52 ¼ 0:71``); ``Z`` as ``=`` and ``K`` as a minus after a p or a named statistic with its df
(``t143Z2.10``, ``pZ0.019``, ``ZK2.04``); a spaced comma as ``<`` before a p-value (``p , .001``); ``À`` as a
minus where a minus belongs (after a comparator or an opening bracket, before a digit), and so is ``Ϫ`` (U+03EA,
which GROBID writes for a minus).
"""

from __future__ import annotations

import re
from bisect import bisect_right

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
_MINUS_SLOT = re.compile(r"(?:[=<>≤≥\u2264\u2265\u2afd\u00bc(\[,:]|\bto|\sp)\s*$")
_MINUS_NEXT = re.compile(r"\s?\.?\d")
_CHI_LOST = re.compile(r"\??\?\s?2\s*\(\s*\d")
# a minus sign or dash written as UTF-8 and read back as Mac Roman ("b=‚àí.050": U+2212 as "‚àí"); "‚" opens each
_MOJIBAKE_DASHES = frozenset({"\u201a\u00e0\u00ed", "\u201a\u00c4\u00ec", "\u201a\u00c4\u00ee"})
_NEEDS_MAP = re.compile("[" + "".join(re.escape(k) for k in _MAP) + r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd?·\u201a\u00c0\u03ea]")


# named statistics whose value a font substitution may damage ("F = 20:9", "t52 ¼ 0:71", "χ2(1) = 3:84")
_STAT = r"(?<![A-Za-z])(?:t|F|r|z|Z|χ2|χ²|chi2|b|B|β|d|R2|OR|HR|U|W|H)"
_DF = r"(?:\s?\(\s?\d+(?:\s?,\s?\d+)?\s?\)|\s?\d+(?:\s?,\s?\d+)?)?"
_PNAME = r"(?<![A-Za-z])p"
#: (pattern, {group: replacement}): each group's one character is replaced where the pattern matches
FONT_REPAIRS: tuple[tuple[re.Pattern[str], dict[str, str]], ...] = (
    (re.compile(r"\u00bc\s?-?\d+(?P<c>:)\d"), {"c": "."}),
    (re.compile(_PNAME + r"\s?[=<>≤≥\u00bc]\s?\d?(?P<c>:)\d"), {"c": "."}),
    (re.compile(_STAT + _DF + r"\s?[=<>≤≥\u00bc]\s?-?\d+(?P<c>:)\d"), {"c": "."}),
    (re.compile(r"(?<![A-Za-z])(?:t|F|r|χ2)\s?\d+(?:\s?,\s?\d+)?\s?(?P<z>Z)\s?(?P<k>K)?\s?\.?\d"), {"z": "=", "k": "-"}),
    (re.compile(_PNAME + r"\s?(?P<z>Z)\s?(?P<k>K)?\s?0?\.\d"), {"z": "=", "k": "-"}),
    (re.compile(_PNAME + r"\s(?P<c>,)\s?0?\.\d"), {"c": "<"}),
)
_FONT_HINT = re.compile(r"\d:\d|\dZ|pZ|p\s,|p ?Z")
# the same test as _FONT_HINT, each pattern opening with its literal (scanned for fast) and looking back
_HINT_COLON = re.compile(r":(?<=\d:)\d")
_HINT_Z = re.compile(r"Z(?:(?<=\dZ)|(?<=pZ)|(?<=p Z))")
_HINT_COMMA = re.compile(r",(?<=p\s,)")


def _font_hint(text: str) -> bool:
    """Whether ``_FONT_HINT`` matches somewhere in the text (three literal-first searches, same answer)."""
    return bool(_HINT_COLON.search(text) or _HINT_Z.search(text) or _HINT_COMMA.search(text))
#: the note a repaired result carries for each (damaged, repaired) character pair
FONT_NOTES: dict[tuple[str, str], str] = {
    (":", "."): "':' read as a decimal point (font substitution)",
    ("Z", "="): "'Z' read as '=' (font substitution)",
    ("K", "-"): "'K' read as a minus sign (font substitution)",
    (",", "<"): "',' read as '<' before a p-value (font substitution)",
    ("\u00bc", "="): "'¼' read as '=' (font substitution)",
    ("\u00c0", "-"): "'À' read as a minus sign (font substitution)",
    ("\u03ea", "-"): "'Ϫ' read as a minus sign (GROBID's symbol for it)",
}


#: for each of ``FONT_REPAIRS``, a pattern every text it matches also matches: it opens with a character (set),
#: which the regex engine scans for fast, while the repair patterns open with a look-behind tried everywhere
_FONT_NEEDS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\u00bc\s?-?\d+:\d"),
    re.compile(r"[=<>≤≥\u00bc]\s?\d?:\d"),
    re.compile(r"[=<>≤≥\u00bc]\s?-?\d+:\d"),
    re.compile(r"\d\s?Z"),
    re.compile(r"p\s?Z"),
    re.compile(r"p\s,"),
)


def font_repairs(text: str) -> list[tuple[int, str]]:
    """(position, replacement) of every font-substituted symbol ``FONT_REPAIRS`` is certain of."""
    out: list[tuple[int, str]] = []
    for (pat, groups), need in zip(FONT_REPAIRS, _FONT_NEEDS, strict=True):
        if need.search(text) is None:
            continue
        for m in pat.finditer(text):
            for g, rep in groups.items():
                if m.start(g) >= 0:
                    out.append((m.start(g), rep))
    return out


class OffsetMap:
    """Maps offsets of the repaired text to the original: ``omap[i]`` (step function, compact)."""

    __slots__ = ("_deltas", "_idx", "identity", "length")

    def __init__(self, idx: list[int], deltas: list[int], length: int) -> None:
        self._idx = idx
        self._deltas = deltas
        self.length = length
        self.identity = not idx  # every offset maps to itself

    def __getitem__(self, i: int) -> int:
        if not self._idx:
            return i
        k = bisect_right(self._idx, i) - 1
        return i + (self._deltas[k] if k >= 0 else 0)


def _replacement(text: str, i: int, ch: str) -> str:
    rep = _MAP.get(ch)
    if rep is not None:
        return rep
    if ch == "·":
        ok = 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        return "." if ok else ch
    if ch in "\u00c0\u03ea":  # "À" (a math font's), "Ϫ" (GROBID's): a minus where a minus belongs, else kept
        ok = bool(_MINUS_NEXT.match(text[i + 1 : i + 3]) and _MINUS_SLOT.search(text[max(0, i - 6) : i]))
        return "-" if ok else ch
    # "?2(20)", "??2(10)": a lost χ (read by the parser), not a minus
    if ch == "?" and _CHI_LOST.match(text, i):
        return ch
    # a control character or "?" where a minus sign belongs
    if _MINUS_NEXT.match(text[i + 1 : i + 3]) and _MINUS_SLOT.search(text[max(0, i - 6) : i]):
        return "-"
    return ch if ch == "?" else " "


# ASCII characters _NEEDS_MAP matches besides "?": control characters and "\r"
_ASCII_NEEDS = bytes(range(0x00, 0x09)) + b"\x0b\x0c\r" + bytes(range(0x0e, 0x20)) + b"\x7f"
_NEEDS_SET = frozenset(_MAP) | frozenset(_ASCII_NEEDS.decode("ascii")) | frozenset("?·\ufffd\u201a\u00c0\u03ea")


def _needs(text: str, tb: bytes) -> list[int]:
    """Positions where ``_NEEDS_MAP`` matches, in order; ``tb`` is ``text`` as ASCII, "?" for the rest.

    Fast path: in ``tb`` (same offsets) the candidates are the "?" (found with a plain byte search)
    unless a control character is present.
    """
    if len(tb.translate(None, _ASCII_NEEDS)) != len(tb):
        return [m.start() for m in _NEEDS_MAP.finditer(text)]
    out: list[int] = []
    find = tb.find
    i = find(b"?")
    while i >= 0:
        if text[i] in _NEEDS_SET:
            out.append(i)
        i = find(b"?", i + 1)
    return out


def normalize(text: str) -> tuple[str, OffsetMap]:
    """Repair PDF damage; returns the repaired text and the map of its offsets to the original."""
    norm, offsets, _ = normalize_ascii(text)
    return norm, offsets


def normalize_ascii(text: str) -> tuple[str, OffsetMap, bytes]:
    """``normalize`` plus the repaired text as ASCII bytes, "?" for any other character (same offsets)."""
    tb = text.encode("ascii", "replace")
    reps: list[tuple[int, str]] = []
    get = _MAP.get
    for i in _needs(text, tb):
        ch = text[i]
        if ch == "\u201a":  # "‚": Mac Roman mojibake of a minus or dash when two more characters follow, else kept
            if text[i : i + 3] in _MOJIBAKE_DASHES:
                reps += [(i, "-"), (i + 1, ""), (i + 2, "")]
            continue
        rep = get(ch)
        if rep is None:
            rep = _replacement(text, i, ch)
        if rep != ch:
            reps.append((i, rep))
    if _font_hint(text):
        font = font_repairs(text)
        if font:
            reps = sorted(dict([*reps, *font]).items())
    if not reps:
        return text, OffsetMap([], [], len(text)), tb
    out: list[str] = []
    pos = 0
    if all(len(rep) == 1 for _, rep in reps):  # the common case: no offset moves, the ASCII copy is patched
        ba = bytearray(tb)
        for i, rep in reps:
            out.append(text[pos:i])
            out.append(rep)
            pos = i + 1
            ba[i] = ord(rep) if rep < "\x80" else 63  # "?"
        out.append(text[pos:])
        return "".join(out), OffsetMap([], [], len(text)), bytes(ba)
    outb: list[bytes] = []
    idx: list[int] = []
    deltas: list[int] = []
    npos = delta = 0
    for i, rep in reps:
        out.append(text[pos:i])
        outb.append(tb[pos:i])
        npos += i - pos
        pos = i + 1
        if rep:
            outb.append(rep.encode("ascii", "replace"))
        if len(rep) == 1:
            out.append(rep)
            npos += 1
        elif not rep:
            delta += 1
            idx.append(npos)
            deltas.append(delta)
        else:
            out.append(rep)
            for k in range(1, len(rep)):
                idx.append(npos + k)
                deltas.append(delta - k)
            delta -= len(rep) - 1
            npos += len(rep)
            idx.append(npos)
            deltas.append(delta)
    out.append(text[pos:])
    outb.append(tb[pos:])
    return "".join(out), OffsetMap(idx, deltas, len(text)), b"".join(outb)


def map_span(offsets: OffsetMap, start: int, end: int) -> tuple[int, int]:
    """Map a span of the repaired text back to the original text."""
    if end <= start:
        o = offsets[start]
        return o, o
    return offsets[start], offsets[end - 1] + 1
