"""Per-group numbers as trials report them: "n/N (%)", "n (%)", "mean ± SD", "mean (SD)", "M = 3.2, SD = 1.1".

One reader for a group's numbers, in a table cell or in running text. It builds on the engine's own
descriptives (``parse(text, descriptives=True)``: counts "k/n" and "k of n", percentages, "mean ± SD",
"M = …", "SD = …", "SEM …") and adds the two forms tables use that the engine does not read on its own:
"k (p%)" / "k (p)" under an "n (%)" header (events before a percentage) and "mean (SD)". A parenthesised
range ("(2–7)") is never an SD. Offsets index the text as given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from claimtrace.stats.normalize import map_span, normalize
from claimtrace.stats.parser import parse

GroupKind = Literal["binary", "continuous", ""]
#: a number after normalisation ("−1·5" is "-1.5" by then)
_N = r"-?\d+(?:\.\d+)?"
# "12 (21.1%)", "12 (21.1)", "3.2 (1.1)", "3.2 (SD 1.1)", "3.2 [1.1]"
_PAIR = re.compile(rf"(?<![\d.\w/])(?P<a>{_N})\s*[(\[]\s*(?P<sdw>SD\s*[=:]?\s*|SEM?\s*[=:]?\s*)?(?P<b>{_N})\s*(?P<pct>%)?\s*[)\]]")
_RANGE_AFTER = re.compile(rf"\s*(?:[-–,;]|to)\s*{_N}")
_PCT_AFTER = re.compile(r"\s*[(\[]\s*(\d+(?:[.·]\d+)?)\s*%?\s*[)\]]")
_PLAIN = re.compile(rf"^\s*(?P<a>{_N})\s*(?P<pct>%)?\s*(?:\(n\))?\s*[*†‡§#¶]{{0,3}}\s*$")  # footnote marks after


@dataclass
class GroupNumbers:
    """What one group's cell or phrase says; ``start``/``end`` index the text read, ``text`` is that span.

    ``plain`` is a lone number whose meaning (a mean, a count, an SD...) only its column header can tell."""

    kind: GroupKind
    start: int
    end: int
    text: str
    events: float | None = None
    total: float | None = None
    percent: str | None = None  # as written, to check the rounding
    mean: float | None = None
    sd: float | None = None
    se_labelled: bool = False  # the dispersion is written as an SE/SEM
    plain: float | None = None


def find_group_numbers(text: str, *, percent_pairs: bool = False) -> list[GroupNumbers]:
    """Every per-group number pattern in a text, in order: events with a total or a percentage, or a mean
    with its SD. ``percent_pairs``: read "k (p)" (no % sign) as events and a percentage (an "n (%)" column)."""
    norm, offsets = normalize(text)
    out: list[GroupNumbers] = []
    taken: list[tuple[int, int]] = []
    descs = [d for r in parse(text, descriptives=True) for d in r.descriptives]
    descs.sort(key=lambda d: d.start)
    i = 0
    while i < len(descs):
        d = descs[i]
        nxt = descs[i + 1] if i + 1 < len(descs) else None
        gap = text[d.end:nxt.start] if nxt is not None else ""
        if d.kind == "count" and d.total is not None:
            g = GroupNumbers("binary", d.start, d.end, d.text, events=d.value, total=float(d.total))
            after = _PCT_AFTER.match(text, d.end)
            if nxt is not None and nxt.kind == "percent" and re.fullmatch(r"\s*[(\[,]?\s*", gap):
                g.percent, g.end = _pct_text(nxt.text), nxt.end
                close = re.match(r"\s*[)\]]", text[g.end:])
                g.end += close.end() if close else 0
                i += 1
            elif after is not None:  # "40/57 (70.2)": a percentage without its sign
                g.percent, g.end = after.group(1).replace("·", "."), after.end()
            g.text = text[g.start:g.end]
            out.append(g)
        elif d.kind == "mean" and nxt is not None and nxt.kind in ("sd", "se") and len(gap) <= 12 \
                and re.fullmatch(r"[\s,;(±+/\-]*(?:SD|SEM|s\.d\.)?[\s=:]*", gap):
            out.append(GroupNumbers("continuous", d.start, nxt.end, text[d.start:nxt.end], mean=d.value,
                                    sd=nxt.value, se_labelled=nxt.kind == "se"))
            i += 1
        i += 1
    taken = [(g.start, g.end) for g in out]
    for m in _PAIR.finditer(norm):
        s, e = map_span(offsets, m.start(), m.end())
        if any(a < e and s < b for a, b in taken) or _RANGE_AFTER.match(norm, m.end("b")):
            continue
        a, b = float(m.group("a")), float(m.group("b"))
        is_pct = bool(m.group("pct")) or (percent_pairs and not m.group("sdw"))
        if is_pct and a.is_integer() and a >= 0 and 0 <= b <= 100:
            out.append(GroupNumbers("binary", s, e, text[s:e], events=a, percent=m.group("b")))
        elif not m.group("pct") and b >= 0:
            se = bool(m.group("sdw") and m.group("sdw").upper().startswith("SE"))
            out.append(GroupNumbers("continuous", s, e, text[s:e], mean=a, sd=b, se_labelled=se))
        taken.append((s, e))
    out.sort(key=lambda g: g.start)
    return out


def read_group_numbers(text: str, *, percent_pairs: bool = False) -> GroupNumbers | None:
    """One group's numbers in a table cell (the first pattern), or a lone number as ``plain``; None if none."""
    found = find_group_numbers(text, percent_pairs=percent_pairs)
    if found:
        return found[0]
    norm, offsets = normalize(text)
    m = _PLAIN.match(norm)
    if m is None:
        return None
    s, e = map_span(offsets, m.start("a"), m.end())
    if m.group("pct"):
        return GroupNumbers("binary", s, e, text[s:e], percent=m.group("a"))
    return GroupNumbers("", s, e, text[s:e], plain=float(m.group("a")))


def _pct_text(written: str) -> str:
    """The percentage's digits as written ("70%" -> "70")."""
    norm, _ = normalize(written)
    m = re.search(_N, norm)
    return m.group(0) if m else written


def sample_sizes(text: str) -> list[tuple[int, int, int]]:
    """Each group or sample size written as "n = 30" (or "N = 1,024") in a text: (n, start, end)."""
    from claimtrace.stats.scanners import _N_RE

    return [(int(m.group("n").replace(",", "")), m.start(), m.end()) for m in _N_RE.finditer(text)]


def find_percentages(text: str) -> list[GroupNumbers]:
    """Bare percentages ("61% of patients in the control group"), each as a binary read with only ``percent``;
    those inside a pattern that :func:`find_group_numbers` reads ("12 (21%)", "40/57 (70%)") are left out,
    and so are a CI's level and bounds (the engine's descriptives do not count them)."""
    taken = [(g.start, g.end) for g in find_group_numbers(text)]
    out: list[GroupNumbers] = []
    for r in parse(text, descriptives=True):
        for d in r.descriptives:
            if d.kind != "percent" or any(a <= d.start < b for a, b in taken):
                continue
            taken.append((d.start, d.end))
            out.append(GroupNumbers("binary", d.start, d.end, d.text, percent=_pct_text(d.text)))
    out.sort(key=lambda g: g.start)
    return out
