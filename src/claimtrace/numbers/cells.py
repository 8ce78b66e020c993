"""Reading per-arm numbers from a cell's or a phrase's text: n/N (%), n (%), mean ± SD, mean (SD)."""

from __future__ import annotations

import re
from dataclasses import dataclass

NUM = r"[-−–]?\d+(?:[.·]\d+)?"
_FRAC = re.compile(rf"(?<![\d.])(\d+)\s*/\s*(\d+)(?:\s*\(\s*({NUM})\s*%?\s*\))?")
_COUNT_PCT = re.compile(rf"(?<![\d./])(\d+)\s*(?:\(n\)\s*)?\(\s*({NUM})\s*%\s*\)|(?<![\d./])(\d+)\s*\(\s*({NUM})\s*\)(?=\s*$)")
_PM = re.compile(rf"({NUM})\s*(?:±|\+/-|\+/−|\+-|\u2213)\s*({NUM})")
_PAREN = re.compile(rf"({NUM})\s*\(\s*(?:SD\s*[=:]?\s*)?({NUM})\s*\)")
_RANGE = re.compile(rf"\(\s*{NUM}\s*(?:[-–−,;]|to)\s*{NUM}\s*\)")
_PLAIN = re.compile(rf"^\s*({NUM})\s*%?\s*(?:\(n\))?\s*$")
_N_EQ = re.compile(r"\b[nN]\s*=\s*(\d+)")


def num(text: str) -> float:
    """A number's value ('−1·5' -> -1.5)."""
    return float(text.replace("−", "-").replace("–", "-").replace("·", "."))


@dataclass
class Read:
    """What one arm's cells (or one phrase) say; ``spans`` map a field to (start, end, text) in ``source``."""

    kind: str  # "binary" | "continuous" | ""
    events: float | None = None
    group_size: float | None = None
    percent: str | None = None
    mean: float | None = None
    sd: float | None = None
    sd_is_se: bool = False
    source: str = ""


def read_binary(text: str) -> Read | None:
    """n/N (%), or n (%) in a phrase."""
    m = _FRAC.search(text)
    if m and int(m.group(2)) >= int(m.group(1)) and int(m.group(2)) > 0:
        return Read("binary", events=float(m.group(1)), group_size=float(m.group(2)), percent=m.group(3), source=text)
    m = _COUNT_PCT.search(text)
    if m:
        e, p = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if m.group(1) or (m.group(3) and 0 <= num(p) <= 100 and "." in p):
            return Read("binary", events=float(e), percent=p, source=text)
    return None


def read_continuous(text: str) -> Read | None:
    """mean ± SD or mean (SD) in a phrase (a parenthesised range is not an SD)."""
    m = _PM.search(text)
    if m:
        return Read("continuous", mean=num(m.group(1)), sd=num(m.group(2)), source=text)
    m = _PAREN.search(text)
    if m and not _RANGE.search(text) and "%" not in text:
        return Read("continuous", mean=num(m.group(1)), sd=num(m.group(2)), source=text)
    return None


_N_PCT = re.compile(r"\b(n|no\.?|number)\s*\(\s*%\s*\)|\(\s*%\s*\)|,\s*%\s*$|percent", re.I)


def read_cells(cells: list[tuple[str, str]], context: str, row_label: str = "", *, counts: bool = False) -> Read | None:
    """One arm's cells in a table row, each as (column sub-header, text); ``context`` is caption + headers.

    ``counts``: the outcome is a count of patients (plain integers are events, not means)."""
    nonempty = [(h, t) for h, t in cells if t.strip() and t.strip() not in ("-", "–", "—", "NA", "n.a.")]
    if not nonempty:
        return None
    ctx = context.lower()
    se = bool(re.search(r"\bs\.?e\.?m?\b|standard error", ctx))
    for _, t in nonempty:  # one cell holding both numbers
        r = read_binary(t)
        if r and (r.percent is not None or "/" in t):
            return r
        r = read_continuous(t)
        if r:
            n_pct = bool(re.search(r"n\s*\(%\)|no\.\s*\(%\)|number\s*\(%\)", ctx + " " + row_label.lower()))
            if (n_pct or counts) and r.mean is not None and float(r.mean).is_integer() and r.sd is not None \
                    and 0 <= r.sd <= 100 and not re.search(r"\bsd\b|mean", row_label.lower()):
                return Read("binary", events=r.mean, percent=str(r.sd), source=t)
            r.sd_is_se = se and not re.search(r"\bsd\b|standard deviation", ctx)
            return r
    plain: list[tuple[str, str, re.Match[str]]] = []
    for h, t in nonempty:
        pm = _PLAIN.match(t)
        if pm is not None:
            plain.append((h.lower(), t, pm))
    if not plain:
        return None
    out = Read("", source=" | ".join(t for _, t, _ in plain))
    for h, t, m in plain:
        v = num(m.group(1))
        if "%" in t or re.search(r"%|percent", h) or (len(plain) == 1 and _N_PCT.search(row_label)
                                                      and "(n)" not in t):
            out.percent = m.group(1)
            out.kind = "binary"
        elif re.search(r"\bs\.?d\.?\b|standard deviation", h):
            out.sd = v
            out.kind = "continuous"
        elif re.search(r"\bs\.?e\.?m?\b|standard error", h):
            out.sd, out.sd_is_se, out.kind = v, True, "continuous"
        elif "(n)" in t or re.fullmatch(r"\s*(n|no\.?|number)\s*", h):
            out.events, out.kind = v, "binary"
        elif out.mean is None and out.events is None:
            out.mean = v
    if out.kind == "binary" and out.events is None and out.mean is not None and float(out.mean).is_integer():
        out.events, out.mean = out.mean, None
    if out.kind == "" and counts and out.mean is not None and float(out.mean).is_integer():
        out.events, out.mean, out.kind = out.mean, None, "binary"
    if out.kind == "":
        out.kind = "continuous" if out.mean is not None else ""
    return out if (out.events is not None or out.mean is not None or out.percent is not None) else None


def group_size_in(text: str) -> float | None:
    """A group size written as "n = 30" in a header or phrase."""
    m = _N_EQ.search(text)
    return float(m.group(1)) if m else None
