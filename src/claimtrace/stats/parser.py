"""Find and parse every reported statistical result in a text (``parse``).

The text is first repaired (``normalize``), then scanned for components: test statistics
(``t(37) = -4.93``), effect estimates (``OR 2.1``), p-values (``p < .001``, ``n.s.``), confidence
intervals, standard errors, sample sizes and group descriptives. Components are grouped into results
left to right: a test statistic or effect estimate opens a result and takes the p-value, CI, SE, N
and effect sizes that follow it closely in the same sentence; a p-value or CI that follows no open
result opens its own. Descriptives (means, SDs, percentages, counts) written before a result in the
same sentence belong to it. Offsets always refer to the text as given.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from claimtrace.stats.model import (
    EFFECT_SIZES,
    RATIO_TESTS,
    ComponentSpan,
    Descriptive,
    EffectSize,
    StatResult,
    built,
)
from claimtrace.stats.normalize import OffsetMap, map_span, normalize_ascii

# ---------------------------------------------------------------------------------------------
# building blocks
NUM = r"(?:\d+(?:\.\d+)?|\.\d+)"
SNUM = r"(?:[-+]\s?)?" + NUM
BOUND = r"(?:[-+]\s?)?(?:\d{1,3}(?:,\d{3})+(?![\d.])|" + NUM + ")"
DF = r"(?:[0-9lI][0-9lI]*(?:\.\d+)?)"
# NUM not preceded by a digit or a point, written to open with a character class (fast scanning)
_NUM_ALONE = r"[\d.](?<![\d.][\d.])(?:(?<=\d)\d*(?:\.\d+)?|(?<=\.)\d+)"

# test names: (regex, canonical). Order matters (longest first). Single letters are guarded below.
_TEST_NAMES: list[tuple[str, str]] = [
    (r"partial\s+(?:η|eta)\s*[- ]?(?:2|squared)|η\s*p\s*2|ηp\s*2|η\s*2\s*p|ηp|partial\s+eta2", "partial_eta2"),
    (r"(?:η|eta)\s*[- ]?(?:2|squared)|η", "eta2"),
    (r"(?:ω|omega)\s*[- ]?(?:2|squared)", "omega2"),
    (r"(?:adjusted\s+|adj\.?\s*)?R\s*[- ]?(?:2|squared)|Radj2", "R2"),
    (r"Cohen'?s\s+f\s*2|f\s*2", "f2"),
    (r"χ\s*\^?\s*2|χ|chi\s*\^?\s*2|[Cc]hi[- ]?squared?(?:\s+value)?|X\s*2|x\s*2|G\s*2", "chi2"),
    (r"Mann[- ]Whitney(?:\s+U)?|U", "U"),
    (r"Wilcoxon(?:\s+signed[- ]ranks?)?(?:\s+[WTZ])?|W", "W"),
    (r"Kruskal[- ]Wallis(?:\s+H)?|H", "H"),
    (r"Q\s*(?:between|within|error|total|residual|B|W|E|T|R|b|w|e|t)(?![a-z])|Q", "Q"),
    (r"Cohen'?s\s+d|d", "d"),
    (r"Hedges'?\s*g|g", "g"),
    (r"Spearman'?s\s+(?:rho|ρ|r)|r\s*s(?![a-z])|rho|ρ", "rho"),
    (r"Kendall'?s\s+(?:tau|τ)(?:\s*-?\s*b)?|tau|τ", "tau"),
    (r"t", "t"),
    (r"F", "F"),
    (r"r|R", "r"),
    (r"z|Z", "z"),
    (r"β|beta|Beta", "beta"),
    (r"b|B", "b"),
    (r"(?:adjusted\s+)?odds\s+ratios?|a?ORs?|adj\.?\s*OR", "OR"),
    (r"(?:adjusted\s+)?(?:risk|rate)\s+ratios?|relative\s+risks?|a?RRs?", "RR"),
    (r"(?:adjusted\s+)?hazards?\s+ratios?|a?HRs?", "HR"),
    (r"incidence\s+rate\s+ratios?|a?IRRs?", "IRR"),
    (r"standardi[sz]ed\s+mean\s+differences?|SMD", "SMD"),
    (r"(?:weighted\s+)?mean\s+differences?|W?MD", "MD"),
    (r"risk\s+differences?|RD", "RD"),
]
# One group around all names (not one group per name): the regex engine then skips names whose first
# character does not fit without entering them. Which name matched is found again with
# ``_NAME_RES`` (the first that matches the name's text whole is the one the alternation took).
_NAME_ALT = "(?P<name>" + "|".join(rx for rx, _ in _TEST_NAMES) + ")"
_NAME_RES = [re.compile(f"(?:{rx})") for rx, _ in _TEST_NAMES]
# The same alternatives, in the same order, each written to open with a plain character (optional
# prefixes and leading groups spelled out).
_NAME_FORMS: list[str] = [
    r"partial\s+(?:η|eta)\s*[- ]?(?:2|squared)", r"η\s*p\s*2", r"ηp\s*2", r"η\s*2\s*p", r"ηp", r"partial\s+eta2",
    r"η\s*[- ]?(?:2|squared)", r"eta\s*[- ]?(?:2|squared)", r"η",
    r"ω\s*[- ]?(?:2|squared)", r"omega\s*[- ]?(?:2|squared)",
    r"adjusted\s+R\s*[- ]?(?:2|squared)", r"adj\.?\s*R\s*[- ]?(?:2|squared)", r"R\s*[- ]?(?:2|squared)", r"Radj2",
    r"Cohen'?s\s+f\s*2", r"f\s*2",
    r"χ\s*\^?\s*2", r"χ", r"chi\s*\^?\s*2", r"Chi[- ]?squared?(?:\s+value)?", r"chi[- ]?squared?(?:\s+value)?",
    r"X\s*2", r"x\s*2", r"G\s*2",
    r"Mann[- ]Whitney(?:\s+U)?", r"U",
    r"Wilcoxon(?:\s+signed[- ]ranks?)?(?:\s+[WTZ])?", r"W",
    r"Kruskal[- ]Wallis(?:\s+H)?", r"H",
    r"Q\s*(?:between|within|error|total|residual|B|W|E|T|R|b|w|e|t)(?![a-z])", r"Q",
    r"Cohen'?s\s+d", r"d",
    r"Hedges'?\s*g", r"g",
    r"Spearman'?s\s+(?:rho|ρ|r)", r"r\s*s(?![a-z])", r"rho", r"ρ",
    r"Kendall'?s\s+(?:tau|τ)(?:\s*-?\s*b)?", r"tau", r"τ",
    r"t", r"F", r"r", r"R", r"z", r"Z", r"β", r"beta", r"Beta", r"b", r"B",
    r"adjusted\s+odds\s+ratios?", r"odds\s+ratios?", r"aORs?", r"ORs?", r"adj\.?\s*OR",
    r"adjusted\s+(?:risk|rate)\s+ratios?", r"risk\s+ratios?", r"rate\s+ratios?", r"relative\s+risks?", r"aRRs?",
    r"RRs?",
    r"adjusted\s+hazards?\s+ratios?", r"hazards?\s+ratios?", r"aHRs?", r"HRs?",
    r"incidence\s+rate\s+ratios?", r"aIRRs?", r"IRRs?",
    r"standardi[sz]ed\s+mean\s+differences?", r"SMD",
    r"weighted\s+mean\s+differences?", r"mean\s+differences?", r"WMD", r"MD",
    r"risk\s+differences?", r"RD",
]
assert all(f[0] not in "\\([.?*+|^$" for f in _NAME_FORMS)
# Grouped by first character (order kept within a group; groups exclude one another, so which
# alternative matches is unchanged): the engine tests each first character once, not once per name.
_BY_FIRST: dict[str, list[str]] = {}
for _form in _NAME_FORMS:
    _BY_FIRST.setdefault(_form[0], []).append(_form[1:])
# The "not after a letter, digit..." check comes first, once for all names: inside a word (most positions
# of a text) it fails at once, before the engine enters the alternation (faster than a first-character
# scan that enters the alternation at every letter a name can open with).
_NAME_ALT_FAST = r"(?<![A-Za-z0-9_.'’-])(?P<name>" + "|".join(
    re.escape(c) + ("(?:" + "|".join(rest) + ")" if rest != [""] else "")
    for c, rest in _BY_FIRST.items()) + ")"
_SINGLE = frozenset({"t", "F", "r", "R", "z", "Z", "U", "W", "H", "Q", "d", "g", "b", "B", "η", "χ"})
_ESTIMATE_TESTS = RATIO_TESTS | {"MD", "SMD", "RD"}
_LOOSE_OK = _ESTIMATE_TESTS | {"b", "beta", "r", "rho"} | EFFECT_SIZES

_TEST_RE = re.compile(
    _NAME_ALT_FAST + r"(?![A-Za-z])"
    r"(?:\s*(?P<open>[(\[])\s*(?:df\s*=\s*)?(?P<df1>" + DF + r")(?:\s*[,;/]\s*(?P<df2>" + DF + r"))?"
    r"(?:\s*[,;]\s*[Nn]\s*=\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+))?\s*[)\]]"
    r"|(?P<sdf1>(?<=[tFχ2])\s?\d+(?:\.\d+)?)(?:,\s?(?P<sdf2>\d+(?:\.\d+)?))?)?"
    r"\s*(?P<cmp><=|>=|≤|≥|=|<|>|(?<=\s)p(?=\s)|(?<=\s)!(?=\s)|:|,|(?:\s(?:of|was|is|were))(?=\s)|(?=\s))"
    r"\s*(?P<value>[-+]?\s?" + NUM + r")(?![\d.]\d)"
)

_PNUM = (
    r"(?P<pval>\d*\.\d+|\d+(?:[.,/]\d+)?)"
    r"(?:\s*(?:[×x*]|\\times)\s*10\s*(?:\^\s*)?(?:\(\s*)?(?P<exp>[-+]?\s?\d{1,3})(?:\s*\))?"
    r"|\s?[eE](?P<exp2>[-+]?\d{1,3}))?"
)
# Patterns open with a character class (the lookbehind after it) so that the regex engine can skip
# ahead to candidate characters instead of trying a match at every position.
_WORD_START_RE = re.compile(r"[^\W\d_](?<![A-Za-z0-9_.'’-].)")
_P_RE = re.compile(
    r"(?P<pname>[pP](?<![A-Za-z0-9][pP])(?:[\s-]*values?)?)"
    r"(?P<psub>[\s_-]*(?:for\s+)?(?:trend|interaction|heterogeneity|overall|diff(?:erence)?)\b)?"
    r"(?:\s*\(\s*(?P<ptail>one|two|1|2)[- ](?:tailed|sided)\s*\))?"
    r"\s*(?:"
    r"(?P<pcmp><\s*or\s*=|>\s*or\s*=|<=|>=|=<|=>|≤|≥|<|>|=|:|b(?=\s*\.?\d)|!|(?<=\s)p(?=\s)|N(?=\s*\.?\d)"
    r"|(?<=[ \t])(?:of|was|is|were)(?=\s))\s*" + _PNUM +
    r"|(?P<pns>=?\s*(?:n\.\s?s\.?|NS|ns)(?![A-Za-z])))"
)
# _P_RE as two patterns that open with one letter each ("p", "P"): the regex engine jumps from one such letter to
# the next much faster than it tests every character against a class; _p_matches merges their matches
_P_ONE_CASE = tuple(
    re.compile(_P_RE.pattern.replace("[pP](?<![A-Za-z0-9][pP])", f"{c}(?<![A-Za-z0-9]{c})", 1)) for c in "pP")
assert all(rx.pattern != _P_RE.pattern for rx in _P_ONE_CASE)


def _p_matches(t: str) -> list[re.Match[str]]:
    """``list(_P_RE.finditer(t))``: the leftmost match of either one-letter pattern, again from the end of each."""
    lower, upper = _P_ONE_CASE
    out: list[re.Match[str]] = []
    lo = lower.search(t)
    up = upper.search(t) if "P" in t else None
    while lo is not None or up is not None:
        m = lo if up is None or (lo is not None and lo.start() < up.start()) else up
        assert m is not None
        out.append(m)
        pos = m.end()  # never empty (the name is one letter at least)
        if lo is not None and lo.start() < pos:
            lo = lower.search(t, pos)
        if up is not None and up.start() < pos:
            up = upper.search(t, pos)
    return out


_NS_RE = re.compile(r"(?<![A-Za-z])(?:n\.\s?s\.|(?<=\()\s*(?:NS|ns|n\.s)(?=\s*\))|(?<=[,;]\s)(?:NS|ns)(?=\s*[);]))")
_SIGLEVEL_RE = re.compile(
    r"significan\w*\s+at\s+(?:the\s+)?(?:(?P<pct>\d{1,2}(?:\.\d+)?)\s*%|(?:[pP]\s*[<=]\s*)?(?P<frac>0?\.\d+))"
    r"(?:\s+(?:level|significance\s+level))?"
)
_CI_RE = re.compile(
    r"(?:(?P<lvl>\d{2}(?:\.\d+)?)\s*%\s*|(?P<lvlf>0?\.\d{2})\s+)?"
    r"(?P<ciname>CIs?|C\.I\.|CrI|[Cc]onfidence\s+[Ii]ntervals?|[Cc]redible\s+[Ii]ntervals?|UI|[Uu]ncertainty\s+[Ii]nterval)"
    r"(?:\s*\(\s*(?:CI|CrI)\s*\))?(?:\s+for\s+[A-Za-z ]{1,30}?)?"
    r"\s*(?:[:=,]|\s(?:was|of|is|from|were))?\s*[\[(]?\s*"
    r"(?P<lo>" + BOUND + r")\s*(?:%|(?!to\b|and\b)[a-zA-Zμµ]{1,6}(?:/[a-zA-Z0-9]+)?)?"
    r"\s*(?:-|to|,|;|and|–)\s*"
    r"(?P<hi>" + BOUND + r")(?![\d.]\d)\s*(?:%|(?!to\b|and\b)[a-zA-Zμµ]{1,6}(?:/[a-zA-Z0-9]+)?)?\s*[\])]?"
)
_BARE_CI_RE = re.compile(
    r"\s*[,;]?\s*[\[(]\s*(?P<lo>" + SNUM + r")\s*(?:-|to|,|;)\s*(?P<hi>" + SNUM + r")\s*[\])]"
)
_N_RE = re.compile(
    r"[Nn](?<![A-Za-z0-9][Nn])\s*=\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?![\d.]\d)"
    r"(?P<per>\s*(?:per|in\s+each|each)\s+(?:group|arm|condition|cell))?"
)
_SE_RE = re.compile(r"(?<![A-Za-z])(?:SE|S\.E\.|standard\s+error)\s*(?:[=:]|\sof\s|\s)\s*(?P<v>" + SNUM + r")")
_MEAN_RE = re.compile(r"[Mm](?<![A-Za-z][Mm])(?:(?<=M)|ean)\s*[=:]\s*(?P<v>" + SNUM + r")")
_SD_RE = re.compile(r"(?<![A-Za-z])(?P<k>SD|s\.d\.|SEM)\s*[=:]?\s*(?P<v>" + NUM + r")")
_PM_RE = re.compile(r"(?P<m>" + SNUM + r")\s*(?:[a-zA-Zμµ%]{1,5}\s*)?(?:±|\+/-|\+-)\s*(?P<s>" + NUM + r")")
_PCT_RE = re.compile(r"(?P<v>" + _NUM_ALONE + r")\s?%(?!\s*(?:CI|C\.I|[Cc]onfidence|[Cc]redible|CrI|UI))")
_VS_PCT_RE = re.compile(r"(?P<v>" + _NUM_ALONE + r")\s*(?:vs\.?|versus|to)\s*" + NUM + r"\s?%")
_COUNT_RE = re.compile(
    r"(?P<k>\d(?<![\d./]\d)\d*)\s*(?:/|\s+of\s+|\s+out\s+of\s+)(?P<n>\d+)(?![\d/]|\.\d)"
)
_MEDIAN_RE = re.compile(r"(?<![A-Za-z])[Mm]edian\s*(?:[=:]|\s(?:of|was|is))?\s*(?P<v>" + SNUM + r")")
# r"\b(?:one|1)[- ](?:tailed|sided)\b" with re.I, spelled out (ı and İ match i, ſ matches s under re.I) so
# that it opens with a character class: the regex engine skips ahead instead of trying every position
_ONE_TAILED_RE = re.compile(
    r"[oO1](?<!\w.)(?:(?<=[oO])[nN][eE]|(?<=1))[- ](?:[tT][aA][iIıİ][lL][eE][dD]|[sSſ][iIıİ][dD][eE][dD])\b"
)
_BREAK_RE = re.compile(r"[.!?]\s+[\"'(\[]?[A-Z]|\n\s*\n")
_THRESHOLD_BEFORE = re.compile(
    r"(?:significan\w*|alpha|α)\s*(?:level\s*|threshold\s*)?(?:was|were|is|of|at|set|defined|accepted|"
    r"considered|taken|as|to\s+be|a|an|the|value|level|\s|,)*$|"
    r"(?:with|when|if|a|an|two-sided|two-tailed)\s*$",
    re.I,
)
_THRESHOLD_AFTER = re.compile(
    r"^\s*(?:\(\s*two[- ](?:sided|tailed)\s*\)\s*)?(?:was|were|is|are)\s+(?:considered|regarded|accepted|"
    r"taken|defined|set|used|deemed|chosen)|^\s*(?:level|threshold)\b|^\s*(?:was|were)\s+(?:statistically\s+)?significant\b"
    r"|^\s*(?:indicat|denot|defin)\w*\s+(?:statistical\s+)?significan",
    re.I,
)
_Q_DETAIL = {"b": "between", "between": "between", "w": "within", "within": "within", "e": "error",
             "error": "error", "t": "total", "total": "total", "r": "residual", "residual": "residual"}
_PCMP = {"=": "=", "<": "<", ">": ">", "≤": "<=", "≥": ">=", "<=": "<=", ">=": ">=", "=<": "<=",
         "=>": ">=", ":": "=", "b": "<", "!": "<", "p": "=", "N": ">", "of": "=", "was": "=", "is": "=",
         "were": "="}


def _num(s: str) -> float:
    s = s.replace(" ", "").replace("\n", "").replace(",", "")
    if s.startswith("+"):
        s = s[1:]
    return float(s)


def _df(s: str) -> float:
    return float(s.replace("l", "1").replace("I", "1"))


@dataclass
class _Tok:
    kind: str  # test, p, ci, n, se, desc
    start: int
    end: int
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Res:
    kind: str
    start: int
    end: int
    last: int
    fields: dict[str, Any] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    effects: list[tuple[str, float, int, int]] = field(default_factory=list)
    descs: list[_Tok] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# scanners
def _scan_tests(t: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _TEST_RE.finditer(t):
        ns, ne = m.span("name")
        idx = _name_index(m.group("name"))
        canon = _TEST_NAMES[idx][1]
        name = m.group("name")
        cmp_raw = (m.group("cmp") or "").strip()
        has_df = m.group("df1") is not None or m.group("sdf1") is not None
        if m.group("sdf1") is not None and canon not in ("t", "F", "chi2"):
            continue
        loose = cmp_raw in ("", ",", "of", "was", "is", "were", ":")
        if loose and canon not in _LOOSE_OK and not (cmp_raw == ":" and has_df):
            continue
        if cmp_raw in ("", ",", "of", "was", "is", "were") and name.strip() in _SINGLE:
            continue
        if m.group("open") == "[" and canon not in ("t", "F", "chi2", "r", "Q", "H"):
            continue
        value_s = m.group("value")
        try:
            value = _num(value_s)
        except ValueError:
            continue
        data: dict[str, Any] = {"test": canon, "test_text": name, "value": value, "has_df": has_df}
        repaired: list[str] = []
        if canon == "Q":
            sub = name[1:].strip().lower()
            if sub:
                data["test_detail"] = _Q_DETAIL.get(sub, sub)
        cmp = {"p": "=", "!": "<", "≤": "<=", "≥": ">="}.get(cmp_raw, cmp_raw)
        if cmp_raw in ("p", "!"):
            repaired.append(f"comparator '{cmp_raw}' read as '{cmp}'")
        if cmp not in ("=", "<", ">", "<=", ">="):
            cmp = "="
        data["comparison"] = cmp
        spans: dict[str, tuple[int, int]] = {"test": (ns, ne), "value": m.span("value")}
        for g_df, g_sdf, key in (("df1", "sdf1", "df1"), ("df2", "sdf2", "df2")):
            g = g_df if m.group(g_df) is not None else g_sdf
            if m.group(g) is not None:
                raw = m.group(g).strip()
                if re.search("[lI]", raw):
                    repaired.append(f"'{raw}' in df read as a number")
                data[key] = _df(raw)
                s, e = m.span(g)
                spans[key] = (s + (len(m.group(g)) - len(m.group(g).lstrip())), e)
        if m.group("n") is not None:
            data["n"] = int(m.group("n").replace(",", ""))
            spans["n"] = m.span("n")
        data["spans"] = spans
        data["repaired"] = repaired
        end = m.end()
        if canon in _ESTIMATE_TESTS | {"b", "beta", "d", "g"}:
            bm = _BARE_CI_RE.match(t, end)
            if bm and not _CI_RE.match(t, bm.start() + 1):
                lo, hi = _num(bm.group("lo")), _num(bm.group("hi"))
                if lo <= value <= hi:
                    data["ci"] = (None, lo, hi, bm.start("lo") - (1 if t[bm.start("lo") - 1] in "([" else 0), bm.end())
                    end = bm.end()
        toks.append(_Tok("test", m.start(), end, data))
    return toks


def _finditer_at(pattern: re.Pattern[str], t: str, starts: re.Pattern[str]) -> list[re.Match[str]]:
    """``pattern.finditer(t)`` where every match begins at a match of ``starts`` (tried only there)."""
    out: list[re.Match[str]] = []
    end = 0
    match = pattern.match
    for c in starts.finditer(t):
        i = c.start()
        if i < end:
            continue
        m = match(t, i)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


_NAME_INDEX: dict[str, int] = {}


def _name_index(name: str) -> int:
    """Index in _TEST_NAMES of the name the alternation took (depends on the name's text only)."""
    idx = _NAME_INDEX.get(name)
    if idx is None:
        idx = next(i for i, rx in enumerate(_NAME_RES) if rx.fullmatch(name))
        if len(_NAME_INDEX) < 10000:
            _NAME_INDEX[name] = idx
    return idx


_ZERO_COMMA = re.compile(r"0,\d+")
_P_SUB_SEP = re.compile(r"[\s_-]+")
_NOT_NS_BEFORE = re.compile(r"saline|sodium|nervous|system", re.I)
_DIGIT = re.compile(r"\d")


def _p_value(m: re.Match[str]) -> float | None:
    raw = m.group("pval")
    if raw.startswith("0/"):
        raw = "0." + raw[2:]
    elif "," in raw and _ZERO_COMMA.fullmatch(raw):
        raw = raw.replace(",", ".")
    elif "," in raw or "/" in raw:
        return None
    try:
        v = float(raw)
    except ValueError:
        return None
    exp = m.group("exp") or m.group("exp2")
    if exp is not None:
        e = int(exp.replace(" ", ""))
        if e > 0 and v * 10**e > 1:
            e = -e  # a superscript minus lost in conversion
        v = v * 10.0**e
    if v > 1 or v < 0:
        return None
    return v


def _scan_p(t: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _p_matches(t):
        pname, psub, ptail, pcmp, pns = m.group("pname", "psub", "ptail", "pcmp", "pns")
        data: dict[str, Any] = {}
        if pns is not None:
            data.update(p_comparison="ns", p_value=None)
            vspan = m.span("pns")
        else:
            raw_cmp = "".join(pcmp.split())
            if raw_cmp in ("<or=", ">or="):
                cmp = "<=" if raw_cmp[0] == "<" else ">="
            else:
                cmp = _PCMP.get(raw_cmp, "=")
            if raw_cmp in ("b", "!", "p", "N"):
                data["repaired"] = [f"p comparator '{raw_cmp}' read as '{cmp}'"]
            elif raw_cmp in ("of", "was", "is", "were") and "value" not in pname.lower():
                continue
            pv = _p_value(m)
            if pv is None:
                continue
            data.update(p_comparison=cmp, p_value=pv)
            vspan = (m.start("pval"), m.end())
        if psub:
            data["p_detail"] = _P_SUB_SEP.sub(" ", psub).strip()
        if ptail in ("one", "1"):
            data["one_tailed"] = True
        s, e = m.span()
        if _is_threshold(t, s, e):
            continue
        data["spans"] = {"p": (s, e), "p_value": vspan}
        toks.append(_Tok("p", s, e, data))
    taken = [(tk.start, tk.end) for tk in toks]
    for m in _NS_RE.finditer(t) if ("ns" in t or "NS" in t or "n.s" in t or "n. s" in t) else ():
        if any(s <= m.start() < e for s, e in taken):
            continue
        before = t[max(0, m.start() - 40) : m.start()]
        if _NOT_NS_BEFORE.search(before) or not _DIGIT.search(before):
            continue
        toks.append(_Tok("p", m.start(), m.end(), {"p_comparison": "ns", "p_value": None,
                                                   "spans": {"p": m.span(), "p_value": m.span()}}))
    for m in _SIGLEVEL_RE.finditer(t) if "significan" in t else ():  # the pattern opens with that word
        v = float(m.group("pct")) / 100 if m.group("pct") else float(m.group("frac"))
        if 0 < v < 0.5 and not _is_threshold(t, m.start(), m.end()):
            toks.append(_Tok("p", m.start(), m.end(), {"p_comparison": "<", "p_value": v,
                                                       "spans": {"p": m.span(), "p_value": m.span()}}))
    return toks


def _is_threshold(t: str, s: int, e: int) -> bool:
    if _THRESHOLD_AFTER.match(t[e : e + 60]):
        return True
    before = t[max(0, s - 70) : s]
    if not _threshold_word(before):  # nor then in the part of it after a sentence break (cut below)
        return False
    cut = max(before.rfind(". "), before.rfind("; "))
    if cut >= 0:
        before = before[cut + 2 :]
    if _threshold_word(before) and _threshold_set(before):
        return not _THRESHOLD_REACHED.search(before)
    return False


_THRESHOLD_WORD = re.compile(r"significan|alpha|α|level", re.I)  # cheap pre-check for _THRESHOLD_SET


def _threshold_word(before: str) -> bool:
    """``_THRESHOLD_WORD.search(before)``; plain substring tests for ASCII text (where re.I adds nothing)."""
    if before.isascii():
        low = before.lower()
        return "significan" in low or "alpha" in low or "level" in low
    return _THRESHOLD_WORD.search(before) is not None
# "up to 4 words" as ``\w+(?:\s+\w+){0,3}\s*`` (the language of ``(?:\w+\s*){0,4}``, which splits a word into
# pieces in every possible way and backtracks through all of them before it fails)
_THRESHOLD_SET = re.compile(
    r"(?:significan\w*|alpha|α|level)\s*(?:\w+(?:\s+\w+){0,3}\s*)?(?:at|of|as|was|to|:|=)\s*(?:a\s+|an\s+|the\s+)?$",
    re.I)
# how a text that _THRESHOLD_SET matches ends, whitespace aside (its last word, lower-cased)
_THRESHOLD_SET_ENDS = ("at", "of", "as", "to", ":", "=", "a", "an", "the")


def _threshold_set(before: str) -> bool:
    """``_THRESHOLD_SET.search(before)``, with a quick check of how an ASCII text ends (re.I adds nothing there)."""
    if before.isascii() and not before.rstrip().lower().endswith(_THRESHOLD_SET_ENDS):
        return False
    return _THRESHOLD_SET.search(before) is not None


_THRESHOLD_REACHED = re.compile(
    r"\b(?:reached|showed|achieved|was|were|found|observed)\s+(?:statistical\s+)?significan\w*\s*\(?\s*$", re.I)


def _ci_starts(t: str) -> list[int]:
    """Where ``_CI_RE`` can match: at a CI name, or in the number (level) written just before it."""
    names = _find_all(t, "C") + _find_all(t, "UI")
    for word in ("onfidence", "redible", "ncertainty"):
        names += [i - 1 for i in _find_all(t, word) if i >= 1]
    out: set[int] = set()
    for q in names:
        out.add(q)
        j = _before_space(t, q)
        if j >= 0 and t[j] == "%":
            j = _before_space(t, j)
        while j >= 0 and (t[j].isdecimal() or t[j] == "."):
            out.add(j)
            j -= 1
    return sorted(out)


def _scan_ci(t: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _matches_at(_CI_RE, t, _ci_starts(t)):
        lo, hi = _num(m.group("lo")), _num(m.group("hi"))
        lvl: float | None = None
        if m.group("lvl"):
            lvl = float(m.group("lvl"))
        elif m.group("lvlf"):
            lvl = float(m.group("lvlf")) * 100
        if lvl is not None and not 50 <= lvl < 100:
            continue
        if lo > hi:
            if re.match(r"-", m.group("hi")) and -hi >= lo:
                continue
            lo, hi = hi, lo  # written high first; kept, flagged by check
        start = m.start("lvl") if m.group("lvl") else (m.start("lvlf") if m.group("lvlf") else m.start("ciname"))
        toks.append(_Tok("ci", start, m.end(), {"ci": (lvl, lo, hi, m.start("lo"), m.end("hi")),
                                               "swapped": _num(m.group("lo")) > _num(m.group("hi"))}))
    return toks


def _matches_at(pattern: re.Pattern[str], t: str, cands: list[int]) -> list[re.Match[str]]:
    """``list(pattern.finditer(t))`` when every match starts at one of ``cands`` (sorted; tried only there)."""
    out: list[re.Match[str]] = []
    end = 0
    match = pattern.match
    for i in cands:
        if i < end:
            continue
        m = match(t, i)
        if m is not None:
            out.append(m)
            end = m.end()
    return out


def _before_space(t: str, q: int) -> int:
    """Index of the last character before ``q`` that is not whitespace (``\\s``), or -1."""
    j = q - 1
    while j >= 0 and t[j].isspace():
        j -= 1
    return j


def _n_starts(t: str) -> list[int]:
    """Where ``_N_RE`` can match: an N or n, then whitespace, then "="."""
    out = []
    for q in _find_all(t, "="):
        j = _before_space(t, q)
        if j >= 0 and t[j] in "Nn":
            out.append(j)
    return out


def _mean_starts(t: str) -> list[int]:
    """Where ``_MEAN_RE`` can match: "M" or "mean"/"Mean", then whitespace, then "=" or ":"."""
    out = []
    for q in _find_all(t, "=") + _find_all(t, ":"):
        j = _before_space(t, q)
        if j >= 0 and t[j] == "M":
            out.append(j)
        elif j >= 3 and t[j - 3 : j + 1] in ("mean", "Mean"):
            out.append(j - 3)
    out.sort()
    return out


def _pct_starts(t: str) -> list[int]:
    """Where ``_PCT_RE`` can match: the first of a run of digits and points, then one optional space, then "%"."""
    out = []
    for q in _find_all(t, "%"):
        for j in (q - 1, q - 2):
            if j < 0 or (j == q - 2 and not t[q - 1].isspace()):
                break
            c = t[j]
            if c.isdecimal() or c == ".":
                while j > 0 and (t[j - 1].isdecimal() or t[j - 1] == "."):
                    j -= 1
                out.append(j)
                break
    return out


def _run_before(t: str, q: int, points: bool) -> int:
    """Start of the run of digits (and points, with ``points``) that ends, whitespace aside, just before ``q``; or -1."""
    j = _before_space(t, q)
    if j < 0 or not (t[j].isdecimal() or (points and t[j] == ".")):
        return -1
    while j > 0 and (t[j - 1].isdecimal() or (points and t[j - 1] == ".")):
        j -= 1
    return j


def _vs_starts(t: str) -> list[int]:
    """Where ``_VS_PCT_RE`` can match: its first number takes a whole run of digits and points (a digit or point
    next to it would stop the match), which ends, whitespace aside, just before "vs", "versus" or "to"."""
    out = {_run_before(t, q, True) for word in ("vs", "versus", "to") for q in _find_all(t, word)}
    out.discard(-1)
    return sorted(out)


def _count_starts(t: str) -> list[int]:
    """Where ``_COUNT_RE`` can match: its count takes a whole run of digits, which ends, whitespace aside, just
    before "/", or before whitespace and "of" or "out"."""
    out = {_run_before(t, q, False) for q in _find_all(t, "/")}
    for word in ("of", "out"):
        out.update(_run_before(t, q, False) for q in _find_all(t, word) if q > 0 and t[q - 1].isspace())
    out.discard(-1)
    return sorted(out)


_UNIT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZμµ%")  # _PM_RE's [a-zA-Zμµ%]


def _pm_matches(t: str) -> list[re.Match[str]]:
    """``list(_PM_RE.finditer(t))``, searched only around each "±", "+/-" or "+-".

    A match is a number, whitespace, an optional unit of 1-5 letters (a whole run of letters: a letter before it
    would stop the match), whitespace, the sign, whitespace and a number. Walking back from the sign over that
    shape gives the first place a match with this sign can start (the run of digits and points of the number,
    or the "+"/"-" and one space before it); walking forward gives where it must end: no match can start
    between the last match and that place, so searching from there finds the same next match.
    """
    signs = sorted({*_find_all(t, "±"), *_find_all(t, "+/-"), *_find_all(t, "+-")})
    out: list[re.Match[str]] = []
    pos = 0
    for q in signs:
        if q < pos:
            continue
        j = _before_space(t, q)
        k = j
        while k >= 0 and t[k] in _UNIT_CHARS:
            k -= 1
        if k < j:  # a unit: at most 5 letters, then whitespace before it
            if j - k > 5:
                continue
            j = _before_space(t, k + 1)
        if j < 0 or not t[j].isdecimal():
            continue
        while j > 0 and (t[j - 1].isdecimal() or t[j - 1] == "."):
            j -= 1
        if j >= 1 and t[j - 1] in "+-":
            j -= 1
        elif j >= 2 and t[j - 1].isspace() and t[j - 2] in "+-":
            j -= 2
        e = q + (3 if t.startswith("+/-", q) else 2 if t[q] == "+" else 1)
        while e < len(t) and t[e].isspace():
            e += 1
        while e < len(t) and (t[e].isdecimal() or t[e] == "."):
            e += 1
        m = _PM_RE.search(t, max(pos, j), e)
        if m is not None:
            out.append(m)
            pos = m.end()
    return out


def _scan_misc(t: str) -> list[_Tok]:
    toks: list[_Tok] = []
    if "=" not in t and "±" not in t and "%" not in t and "/" not in t and " of " not in t and "SD" not in t:
        return toks
    for m in _matches_at(_N_RE, t, _n_starts(t)):
        toks.append(_Tok("n", m.start(), m.end(), {"n": int(m.group("n").replace(",", "")), "per": bool(m.group("per"))}))
    for m in _SE_RE.finditer(t) if ("SE" in t or "S.E" in t or "standard error" in t) else ():
        toks.append(_Tok("se", m.start(), m.end(), {"se": _num(m.group("v"))}))
    for m in _matches_at(_MEAN_RE, t, _mean_starts(t)):
        toks.append(_Tok("desc", m.start(), m.end(), {"kind": "mean", "value": _num(m.group("v"))}))
    for m in _SD_RE.finditer(t) if ("SD" in t or "s.d." in t or "SEM" in t) else ():
        kind = "se" if m.group("k") == "SEM" else "sd"
        toks.append(_Tok("desc", m.start(), m.end(), {"kind": kind, "value": _num(m.group("v"))}))
    for m in _pm_matches(t) if ("±" in t or "+/-" in t or "+-" in t) else ():
        toks.append(_Tok("desc", m.start("m"), m.end("m"), {"kind": "mean", "value": _num(m.group("m"))}))
        toks.append(_Tok("desc", m.start("s"), m.end("s"), {"kind": "sd", "value": _num(m.group("s"))}))
    for m in _MEDIAN_RE.finditer(t) if "edian" in t else ():
        toks.append(_Tok("desc", m.start(), m.end(), {"kind": "median", "value": _num(m.group("v"))}))
    for m in _matches_at(_PCT_RE, t, _pct_starts(t)):
        v = float(m.group("v"))
        if v <= 100:
            toks.append(_Tok("desc", m.start(), m.end(), {"kind": "percent", "value": v}))
    for m in _matches_at(_VS_PCT_RE, t, _vs_starts(t)) if "%" in t else ():
        v = float(m.group("v"))
        if v <= 100:
            toks.append(_Tok("desc", m.start("v"), m.end("v"), {"kind": "percent", "value": v}))
    for m in _matches_at(_COUNT_RE, t, _count_starts(t)) if ("/" in t or " of " in t) else ():
        k, n = int(m.group("k")), int(m.group("n"))
        if n > 0 and k <= n and not (1900 <= n <= 2100 and "/" in m.group(0)):
            toks.append(_Tok("desc", m.start(), m.end(), {"kind": "count", "value": float(k), "total": n}))
    return toks


# ---------------------------------------------------------------------------------------------
# grouping
def _gap_ok(t: str, a: int, b: int, limit: int) -> bool:
    if b < a:
        return True
    # _BREAK_RE has no anchors or lookarounds: searching t between a and b is searching t[a:b]
    return min(b, len(t)) - a <= limit and not _BREAK_RE.search(t, a, b)


def _group(t: str, toks: list[_Tok]) -> list[_Res]:
    primary = [tk for tk in toks if tk.kind in ("test", "p", "ci")]
    primary.sort(key=lambda tk: (tk.start, -tk.end))
    # drop primaries nested inside an earlier one (a CI inside a test's bare CI, a "p" inside a name)
    kept: list[_Tok] = []
    for tk in primary:
        if kept and tk.start < kept[-1].end and tk.kind == kept[-1].kind:
            continue
        if kept and tk.kind == "ci" and kept[-1].kind == "test" and "ci" in kept[-1].data and tk.start < kept[-1].end:
            continue
        if kept and tk.kind == "test" and kept[-1].kind == "p" and tk.start < kept[-1].end:
            continue
        kept.append(tk)
    # a minor token overlaps a kept one iff some kept token starting before its end ends after its start
    # (``kept`` is sorted by start: bisect on the starts, running maximum of the ends)
    starts = [tk.start for tk in kept]
    max_end: list[int] = []
    for tk in kept:
        max_end.append(max(max_end[-1], tk.end) if max_end else tk.end)
    minor = sorted((tk for tk in toks if tk.kind not in ("test", "p", "ci")
                    and not ((k := bisect_left(starts, tk.end)) > 0 and max_end[k - 1] > tk.start)),
                   key=lambda tk: tk.start)
    # descriptives: drop those overlapping one another (keep the first, longest)
    descs: list[_Tok] = []
    for tk in sorted((tk for tk in minor if tk.kind == "desc"),
                     key=lambda tk: (tk.start, tk.data["kind"] not in ("mean", "sd"), -tk.end)):
        if descs and tk.start < descs[-1].end:
            continue
        descs.append(tk)
    others = [tk for tk in minor if tk.kind != "desc"]
    events = sorted(kept + descs + others, key=lambda tk: (tk.start, 0 if tk.kind in ("test", "p", "ci") else 1))

    results: list[_Res] = []
    cur: _Res | None = None
    pending_desc: list[_Tok] = []
    pending_n: _Tok | None = None

    def open_result(kind: str, tk: _Tok) -> _Res:
        nonlocal pending_desc, pending_n
        r = _Res(kind, tk.start, tk.end, tk.end)
        if pending_desc and _gap_ok(t, pending_desc[-1].end, tk.start, 120):
            # keep the descriptives of this sentence only
            r.descs = [d for d in pending_desc if _gap_ok(t, d.end, tk.start, 400)]
            if r.descs:
                r.start = min(r.start, r.descs[0].start)
        pending_desc = []
        if pending_n is not None and _gap_ok(t, pending_n.end, tk.start, 60):
            r.fields["n"] = pending_n.data["n"]
            r.fields["n_per_group"] = pending_n.data["per"]
            r.spans["n"] = (pending_n.start, pending_n.end)
            r.start = min(r.start, pending_n.start)
        pending_n = None
        results.append(r)
        return r

    for tk in events:
        # "close" (the gap to the open result: _gap_ok(t, cur.last, tk.start, 45)) is asked last in each test below
        if tk.kind == "test":
            d = tk.data
            if (cur is not None and d["test"] in EFFECT_SIZES and cur.kind == "test"
                    and cur.fields.get("test") not in EFFECT_SIZES and not d.get("has_df")
                    and _gap_ok(t, cur.last, tk.start, 45)):
                cur.effects.append((d["test"], d["value"], tk.start, tk.end))
                cur.last = cur.end = max(cur.end, tk.end)
                continue
            cur = open_result("estimate" if d["test"] in _ESTIMATE_TESTS else "test", tk)
            for key in ("test", "test_text", "test_detail", "value", "df1", "df2", "n", "comparison"):
                if key in d:
                    cur.fields[key] = d[key]
            cur.spans.update(d["spans"])
            cur.repaired.extend(d["repaired"])
            if "ci" in d:
                _set_ci(cur, d["ci"])
        elif tk.kind == "p":
            if cur is not None and "p_comparison" not in cur.fields and _gap_ok(t, cur.last, tk.start, 45):
                target = cur
            else:
                cur = target = open_result("p", tk)
            target.fields["p_comparison"] = tk.data["p_comparison"]
            target.fields["p_value"] = tk.data["p_value"]
            if tk.data.get("one_tailed"):
                target.fields["one_tailed"] = True
            if tk.data.get("p_detail") and "test_detail" not in target.fields:
                target.fields["test_detail"] = tk.data["p_detail"]
            target.spans["p"] = tk.data["spans"]["p_value"]
            target.spans["p_full"] = tk.data["spans"]["p"]
            target.repaired.extend(tk.data.get("repaired", []))
            target.last = target.end = max(target.end, tk.end)
        elif tk.kind == "ci":
            if cur is not None and "ci_low" not in cur.fields and (
                    "p_comparison" not in cur.fields or cur.kind in ("test", "estimate")) and _gap_ok(t, cur.last, tk.start, 35):
                target = cur
            else:
                cur = target = open_result("estimate", tk)
                _estimate_before(t, target, tk.start)
            _set_ci(target, tk.data["ci"])
            if tk.data.get("swapped"):
                target.repaired.append("CI bounds written high first")
            target.spans["ci_full"] = (tk.start, tk.end)
            target.last = target.end = max(target.end, tk.end)
        elif tk.kind == "n":
            if cur is not None and "n" not in cur.fields and _gap_ok(t, cur.last, tk.start, 45):
                cur.fields["n"] = tk.data["n"]
                cur.fields["n_per_group"] = tk.data["per"]
                cur.spans["n"] = (tk.start, tk.end)
                cur.last = cur.end = max(cur.end, tk.end)
            else:
                pending_n = tk
        elif tk.kind == "se":
            if cur is not None and "se" not in cur.fields and _gap_ok(t, cur.last, tk.start, 45):
                cur.fields["se"] = tk.data["se"]
                cur.spans["se"] = (tk.start, tk.end)
                cur.last = cur.end = max(cur.end, tk.end)
        elif tk.kind == "desc":
            pending_desc = [d for d in pending_desc if _gap_ok(t, d.end, tk.start, 400)]
            pending_desc.append(tk)
    return results


def _set_ci(r: _Res, ci: tuple[float | None, float, float, int, int]) -> None:
    lvl, lo, hi, s, e = ci
    r.fields["ci_level"] = lvl
    r.fields["ci_low"] = lo
    r.fields["ci_high"] = hi
    r.spans["ci"] = (s, e)
    r.end = max(r.end, e)
    r.last = max(r.last, e)


_EST_BEFORE = re.compile(
    r"(?P<v>(?:[-+]\s?)?" + NUM + r")(?![\d.])\s*(?:%|[a-zA-Zμµ]{1,10}(?:/[a-zA-Z0-9]+)?)?\s*[,;:(\[]?\s*$"
)


def _estimate_before(t: str, r: _Res, ci_start: int) -> None:
    """A CI that opens a result: take the point estimate written just before it, if any."""
    window = t[max(0, ci_start - 30) : ci_start]
    m = _EST_BEFORE.search(window)
    if not m:
        return
    base = ci_start - len(window)
    if window[max(0, m.start("v") - 1) : m.start("v")] in ("/", ":") or re.search(r"\d\s*(?:/|of)\s*$", window[: m.start("v")]):
        return  # the denominator of a count ("20/339; 95% CI ...") is no point estimate
    r.fields["value"] = _num(m.group("v"))
    r.spans["value"] = (base + m.start("v"), base + m.end("v"))
    r.start = min(r.start, base + m.start("v"))
    ctx = t[max(0, ci_start - 80) : ci_start].lower()
    if "mean difference" in ctx:
        r.fields.setdefault("test", "MD")
    elif "risk difference" in ctx:
        r.fields.setdefault("test", "RD")


# ---------------------------------------------------------------------------------------------
def _keep(r: _Res) -> bool:
    f = r.fields
    test = f.get("test")
    has_support = "p_comparison" in f or "ci_low" in f or "se" in f
    v = f.get("value")
    if r.kind == "p":
        return "p_comparison" in f
    if r.kind == "estimate" and test is None:
        return "ci_low" in f
    if test is None or v is None:
        return False
    has_df = "df1" in f
    if test in ("r", "rho", "tau") and abs(v) > 1:
        return False
    if test in ("eta2", "partial_eta2", "omega2", "R2") and not 0 <= v <= 1:
        return False
    if test in ("F", "chi2", "Q", "H", "U", "W", "f2") and v < 0:
        return False
    if test in RATIO_TESTS and not (0 < v < 50):
        return False
    if test in ("d", "g") and abs(v) >= 10:
        return False
    if test in _ESTIMATE_TESTS or test in ("b", "beta"):
        return has_support
    if has_df:
        return True
    if test in ("r", "rho", "tau", "d", "g", "eta2", "partial_eta2", "omega2", "R2", "f2"):
        return True
    return has_support


# Component models get every field, so their set of given fields never changes (setting a field adds a
# name already there): one shared set each, which spares an allocation per component.
_SPAN_SET = {"start", "end", "text"}
_DESC_SET = {"kind", "value", "total", "start", "end", "text"}
_EFFECT_SET = {"measure", "value", "start", "end", "text"}
_RESULT_SET = frozenset({
    "kind", "text", "start", "end", "test", "test_text", "test_detail", "df1", "df2", "comparison", "value",
    "p_comparison", "p_value", "one_tailed", "ci_level", "ci_low", "ci_high", "se", "n", "n_per_group",
    "effects", "descriptives", "spans", "repaired"})


# every field of a StatResult, in field order, at its default (lists and dicts filled in per result)
_RESULT_TEMPLATE: dict[str, Any] = dict.fromkeys(StatResult.model_fields)


def _finish(text: str, norm: str, offsets: OffsetMap, r: _Res) -> StatResult:
    """The StatResult of a grouped result (built without validation: every value here is already typed)."""
    ident = offsets.identity
    if ident:
        start, end = r.start, max(r.start, r.end)
    else:
        start, end = map_span(offsets, r.start, r.end)
    spans: dict[str, ComponentSpan] = {}
    for k, (s, e) in r.spans.items():
        if ident:
            e = max(s, e)
        else:
            s, e = map_span(offsets, s, e)
        spans[k] = built(ComponentSpan, {"start": s, "end": e, "text": text[s:e]}, _SPAN_SET)
    descs: list[Descriptive] = []
    for d in r.descs:
        ds, de = (d.start, max(d.start, d.end)) if ident else map_span(offsets, d.start, d.end)
        dd = d.data
        descs.append(built(Descriptive, {"kind": dd["kind"], "value": dd["value"], "total": dd.get("total"),
                                         "start": ds, "end": de, "text": text[ds:de]}, _DESC_SET))
    effects: list[EffectSize] = []
    for measure, value, s, e in r.effects:
        es, ee = (s, max(s, e)) if ident else map_span(offsets, s, e)
        effects.append(built(EffectSize, {"measure": measure, "value": value, "start": es, "end": ee,
                                          "text": text[es:ee]}, _EFFECT_SET))
    f = r.fields
    one_tailed = bool(f.get("one_tailed")) or mentions_one_tailed(norm[max(0, r.start - 60) : r.end + 40])
    repaired = list(r.repaired)
    if norm is not text and norm[r.start : r.end] != text[start:end]:
        repaired.append("text repaired (unicode minus, spaces, ligatures or control characters)")
    # the fields grouping set (all StatResult fields, see _group), over the template: field order is kept
    values = _RESULT_TEMPLATE.copy()
    values.update(f)
    values.update(kind=r.kind, text=text[start:end], start=start, end=end, one_tailed=one_tailed,
                  n_per_group=bool(f.get("n_per_group")), effects=effects, descriptives=descs, spans=spans,
                  repaired=repaired, flags=[])
    return built(StatResult, values, set(_RESULT_SET))


# the last letter of "tailed" or "sided" in any case (as _ONE_TAILED_RE spells them): scans that jump from one
# "d" (or "D") to the next
_TAILED_ENDS = (
    re.compile(r"d(?:(?<=[tT][aA][iIıİ][lL][eE]d)|(?<=[sSſ][iIıİ][dD][eE]d))"),
    re.compile(r"D(?:(?<=[tT][aA][iIıİ][lL][eE]D)|(?<=[sSſ][iIıİ][dD][eE]D))"),
)


def mentions_one_tailed(text: str) -> bool:
    """Whether a text says that (some) tests were one-tailed / one-sided."""
    if len(text) < 2000:
        if "tailed" not in text and "sided" not in text and "TAILED" not in text and "SIDED" not in text:
            return False
        return bool(_ONE_TAILED_RE.search(text))
    # long texts: a match ends with "tailed" or "sided" (any case) and opens with "one-" or "1-" just before it;
    # the scans for their last letter find every such word, and with them the words of the quick check above
    # ("tailed", "sided", "TAILED" or "SIDED" written so: none, no match)
    ends = [m.start() for rx in _TAILED_ENDS for m in rx.finditer(text)]
    if not any(text[e - 5 : e + 1] in _TAIL_WORDS or text[e - 4 : e + 1] in _TAIL_WORDS for e in ends):
        return False
    match = _ONE_TAILED_RE.match
    for e in ends:
        for i in (e - 9, e - 7, e - 8, e - 6):
            if i >= 0 and match(text, i):
                return True
    return False


_TAIL_WORDS = frozenset({"tailed", "sided", "TAILED", "SIDED"})


_TRIGGER_DAMAGED_P = re.compile(rb"[pP] ?[bN!p] ?\.?\d|[)\d] [p!] [-.\d]")
# where _TRIGGER_DAMAGED_P can start: found with patterns that open with one plain character (the regex
# engine jumps from one such character to the next); (pattern, offsets from the match start to try)
_DAMAGED_CANDS: tuple[tuple[re.Pattern[bytes], tuple[int, ...]], ...] = (
    (re.compile(rb"p(?= ?[bN!p] ?\.?\d| [-.\d])"), (0, -2)),
    (re.compile(rb"P(?= ?[bN!p] ?\.?\d)"), (0,)),
)
# "!" is rare: a byte search for it, then this pattern at each one, is faster than a regex scan
_DAMAGED_BANG = re.compile(rb"!(?= [-.\d])")  # candidate start: 2 before it


def _find_all(hay: str | bytes, needle: str | bytes) -> list[int]:
    """Every position of ``needle`` in ``hay`` (overlapping ones included)."""
    out: list[int] = []
    find = hay.find
    i = find(needle)  # type: ignore[arg-type]
    while i >= 0:
        out.append(i)
        i = find(needle, i + 1)  # type: ignore[arg-type]
    return out


def _damaged_p(tb: bytes) -> list[tuple[int, int]]:
    """Spans of ``_TRIGGER_DAMAGED_P.finditer(tb)``, trying the pattern only where it can match."""
    found = {m.start() + shift for rx, shifts in _DAMAGED_CANDS for m in rx.finditer(tb) for shift in shifts
             if m.start() + shift >= 0}
    found.update(i - 2 for i in _find_all(tb, b"!") if i >= 2 and _DAMAGED_BANG.match(tb, i))
    cands = sorted(found)
    out: list[tuple[int, int]] = []
    end = 0
    for i in cands:
        if i < end:
            continue
        m = _TRIGGER_DAMAGED_P.match(tb, i)
        if m is not None:
            out.append(m.span())
            end = m.end()
    return out


# The trigger words, each found by a pattern that opens with plain characters (fast scanning: the regex engine
# jumps to the next place they occur; a lookbehind checks the letters before them): (pattern, characters of
# the word before the match start). No word can overlap another of its own list.
_CI_WORDS: tuple[tuple[re.Pattern[bytes], int], ...] = (
    (re.compile(rb"C(?:I|\.I|rI)"), 0), (re.compile(rb"fidence int(?<=onfidence int)"), 2),
    (re.compile(rb"b(?<=redib)le int"), 4),
)
_NS_WORDS: tuple[tuple[re.Pattern[bytes], int], ...] = (
    (re.compile(rb"\)(?<=NS\)|ns\))"), 2), (re.compile(rb"\.(?<=n\.) ?s"), 1),
    (re.compile(rb"g(?<=sig)nificant at"), 2), (re.compile(rb"value"), 0),
)
_P_ENDINGS = ("p", "P", "value", "values", "Value", "trend", "interaction", "heterogeneity", "overall", "difference",
              "tailed)", "sided)")


def _p_before(before: str) -> bool:
    b = before.rstrip()
    if not b.endswith(_P_ENDINGS):
        return False
    return len(b) < 2 or b[-1] not in "pP" or not b[-2].isalpha()


def _n_before(before: str) -> bool:
    b = before.rstrip()
    return b.endswith(("n", "N")) and (len(b) < 2 or not b[-2].isalpha())


def _word_hits(t: str, tb: bytes, words: tuple[tuple[re.Pattern[bytes], int], ...]) -> list[int]:
    """Positions of whole-ish words; ``tb`` is ``t`` as ASCII with one byte per character (fast scanning).

    A word of up to 3 characters is not followed by a letter, nor preceded by one when it opens with a
    capital.
    """
    pos: list[int] = []
    for rx, back in words:
        for m in rx.finditer(tb):
            i = m.start() - back
            k = m.end() - i
            if k > 3 or (not (i > 0 and t[i - 1].isalpha() and 65 <= tb[i] <= 90)
                         and not t[i + k : i + k + 1].isalpha()):
                pos.append(i)
    return pos


def _merge(ranges: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The ranges clipped to [0, n] (a range may still end below 0: kept as it is) and joined where they touch."""
    out: list[tuple[int, int]] = []
    if not ranges:
        return out
    ranges = sorted(ranges)
    cur_a, cur_b = ranges[0]
    cur_a, cur_b = max(0, cur_a), min(n, cur_b)
    for a, b in ranges[1:]:
        if a < 0:
            a = 0
        if b > n:
            b = n
        if a <= cur_b:
            if b > cur_b:
                cur_b = b
        else:
            out.append((cur_a, cur_b))
            cur_a, cur_b = a, b
    out.append((cur_a, cur_b))
    return out


def _scan_in(t: str, ranges: list[tuple[int, int]], scan: Any) -> list[_Tok]:
    toks: list[_Tok] = []
    for a, b in ranges:
        for tk in scan(t[a:b]):
            tk.start += a
            tk.end += a
            if "spans" in tk.data:
                tk.data["spans"] = {k: (x + a, y + a) for k, (x, y) in tk.data["spans"].items()}
            if "ci" in tk.data:
                lvl, lo, hi, cs, ce = tk.data["ci"]
                tk.data["ci"] = (lvl, lo, hi, cs + a, ce + a)
            toks.append(tk)
    return toks


def _dedupe(toks: list[_Tok]) -> list[_Tok]:
    seen: set[tuple[str, int, int]] = set()
    out: list[_Tok] = []
    for tk in toks:
        key = (tk.kind, tk.start, tk.end)
        if key not in seen:
            seen.add(key)
            out.append(tk)
    return out


def _sentence_start(t: str, lo: int, hi: int) -> int:
    """The last sentence break ('. ' before a capital, not after an abbreviation) in t[lo:hi], or -1."""
    j = t.rfind(". ", lo, hi) if hi > lo else -1
    while j >= 0 and (not t[j + 2 : j + 3].isupper() or t[max(0, j - 3) : j].lower().lstrip() in _ABBREV):
        j = t.rfind(". ", lo, j)
    return j


_ABBREV = frozenset({"vs", "al", "e.g", "i.e", "fig", "no", "ref", "eq", "ca", "cf", "resp", "s.d", "n.s"})


def _tokens(t: str, tb: bytes | None = None) -> list[_Tok]:
    """Scan only where a result can be: around comparators, CI words, ns and estimate names.

    ``tb``: ``t.encode("ascii", "replace")`` when the caller has it (one byte per character: same offsets).
    """
    n = len(t)
    if tb is None:
        tb = t.encode("ascii", "replace")
    test_r: list[tuple[int, int]] = []
    p_r: list[tuple[int, int]] = []
    cmp_pos = _find_all(tb, b"=") + _find_all(tb, b"<") + _find_all(tb, b">")
    if not t.isascii():
        # "≤" and "≥" are "?" in ``tb``: a byte search for "?" is much faster than a search of a non-ASCII str
        cmp_pos += [i for i in _find_all(tb, b"?") if t[i] in "≤≥"]
    cmp_pos.sort()
    for i in cmp_pos:
        before = t[max(0, i - 16) : i]
        if _p_before(before):
            p_r.append((i - 40, i + 40))
        elif not _n_before(before):
            test_r.append((i - 50, i + 45))
    for ms, me in _damaged_p(tb):
        p_r.append((ms - 30, me + 30))
        test_r.append((ms - 50, me + 12))
    for i in _word_hits(t, tb, _NS_WORDS):
        p_r.append((i - 45, i + 45))
    ci_hits = _word_hits(t, tb, _CI_WORDS)
    ci_r = [(i - 16, i + 110) for i in ci_hits]
    # estimates named without a comparator ("OR 2.1 (95% CI ...)", "hazard ratio 0.8; p = .01") sit just
    # before a CI or p-value
    test_r.extend((i - 70, i + 2) for i in ci_hits)
    test_r.extend((a - 45, a + 2) for a, _ in p_r)
    primary = _dedupe(_scan_in(t, _merge(test_r, n), _scan_tests) + _scan_in(t, _merge(p_r, n), _scan_p)
                      + _scan_in(t, _merge(ci_r, n), _scan_ci))
    if not primary:
        return []
    misc_r = []
    for tk in primary:
        lo = max(0, tk.start - 300)
        cut = max(_sentence_start(t, lo, tk.start - 30), t.rfind("\n\n", lo, tk.start))
        misc_r.append((cut + 1 if cut >= 0 else lo, tk.end + 60))
    misc = _dedupe(_scan_in(t, _merge(misc_r, n), _scan_misc))
    return primary + misc


def parse(text: str, *, descriptives: bool = False) -> list[StatResult]:
    """Every statistical result reported in ``text``, in order, with offsets into ``text`` as given."""
    if not text:
        return []
    norm, offsets, norm_ascii = normalize_ascii(text)
    toks = _tokens(norm, norm_ascii)
    out = [_finish(text, norm, offsets, r) for r in _group(norm, toks) if _keep(r)]
    if descriptives:
        out = _with_standalone_descriptives(text, norm, offsets, _scan_misc(norm), out)
    return out


def _with_standalone_descriptives(text: str, norm: str, offsets: OffsetMap, toks: list[_Tok],
                                  results: list[StatResult]) -> list[StatResult]:
    used = {(d.start, d.end) for r in results for d in r.descriptives}
    covered = [(r.start, r.end) for r in results]
    extra: list[StatResult] = []
    for tk in sorted((tk for tk in toks if tk.kind == "desc"), key=lambda tk: tk.start):
        s, e = map_span(offsets, tk.start, tk.end)
        if (s, e) in used or any(a <= s < b for a, b in covered):
            continue
        d = Descriptive(kind=tk.data["kind"], value=tk.data["value"], total=tk.data.get("total"),
                        start=s, end=e, text=text[s:e])
        if extra and s - extra[-1].end <= 40 and not _BREAK_RE.search(text[extra[-1].end : s]):
            last = extra[-1]
            last.descriptives.append(d)
            last.end = e
            last.text = text[last.start : e]
            continue
        extra.append(StatResult(kind="descriptives", text=text[s:e], start=s, end=e, descriptives=[d]))
    return sorted([*results, *extra], key=lambda r: r.start)
