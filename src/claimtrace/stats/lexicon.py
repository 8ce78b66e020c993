"""The lexicon of the statistics engine: number forms, statistic names and their canonical tests."""

from __future__ import annotations

import re

from claimtrace.patterns import lazy
from claimtrace.stats.model import (
    EFFECT_SIZES,
    RATIO_TESTS,
)

# ---------------------------------------------------------------------------------------------
# building blocks
NUM = r"(?:\d+(?:\.\d+)?|\.\d+)"
SNUM = r"(?:[-+]\s?)?" + NUM
BOUND = r"(?:[-+]\s?)?(?:\d{1,3}(?:,\d{3})+(?![\d.])|" + NUM + ")"
# a number with thousands separators ("1,705.7", "1,012.58"): groups of exactly three digits after the comma
THOUSANDS = r"\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?"
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
    # Cohen's f (a bare "f" is one of _SINGLE; it takes no df, and alone it is a result only with a p, CI or SE, or
    # planned in a power analysis: see scanners._scan_tests and parser.parse)
    (r"Cohen'?s\s+f|f", "f"),
    (r"Wald\s+(?:χ\s*\^?\s*2|chi[_\s]*\^?\s*2|[Cc]hi[- ]?squared?|X\s*2)|Wald(?:\s+(?:tests?|statistics?))?", "chi2"),
    (r"χ\s*\^?\s*2|χ|chi[_\s]*\^?\s*2|[Cc]hi[- ]?squared?(?:\s+value)?|X\s*2|x\s*2|G\s*2|\?{1,2}\s?2|c\s?2", "chi2"),
    (r"Mann[- ]Whitney(?:\s+U)?|U", "U"),
    (r"Wilcoxon(?:\s+signed[- ]ranks?)?(?:\s+[WTZ])?|W", "W"),
    (r"Kruskal[- ]Wallis(?:\s+H)?|H", "H"),
    (r"Q\s*-?\s*(?:between|within|error|total|residual|Between|Within|Error|Total|Residual|B|W|E|T|R|b|w|e|t)(?![a-z])|Q",
     "Q"),
    (r"Cohen'?s\s+d(?:\s?_?(?:z|av|rm)(?![A-Za-z]))?|d\s?_?(?:z|av|rm)(?![A-Za-z])|d", "d"),
    (r"Hedges'?s?\s*g(?:\s?_?(?:z|av|rm)(?![A-Za-z]))?|g\s?_?(?:z|av|rm)(?![A-Za-z])|g", "g"),
    (r"Spearman'?s\s+(?:rho|ρ|r)|r\s*s(?![a-z])|rho[- ]hat|rho|ρ", "rho"),
    (r"Kendall'?s\s+(?:tau|τ)(?:\s*-?\s*b)?|tau|τ", "tau"),
    (r"t[- ](?:stat(?:istic)?s?|values?|ratios?|tests?)|t", "t"),
    (r"F[- ](?:stat(?:istic)?s?|values?|ratios?|tests?)|BF|Fs|F", "F"),
    (r"(?:Pearson(?:'s)?\s+)?[Cc]orrelation(?:\s+coefficient)?|partial\s+correlation|pr|r|R", "r"),
    (r"z[- ](?:stat(?:istic)?s?|values?|ratios?|tests?)|z|Z", "z"),
    (r"standardi[sz]ed\s+(?:regression\s+)?coefficient|β|beta|Beta", "beta"),
    (r"(?:unstandardi[sz]ed\s+|regression\s+)?[Cc]oefficient|[Cc]oef\.|[Mm]arginal\s+effect|"
     r"(?:[Pp]arameter\s+|OLS\s+)?[Ee]stimate|γ|gamma|b|B", "b"),
    (r"(?:[Aa]djusted\s+)?(?:odds|Odds)\s+ratios?|[aA]?ORs?|adj\.?\s*OR", "OR"),
    (r"(?:[Aa]djusted\s+)?(?:[Rr]isk|[Rr]ate)\s+ratios?|[Rr]elative\s+risks?|a?RRs?", "RR"),
    (r"(?:[Aa]djusted\s+)?[Hh]azards?\s+ratios?|a?HRs?", "HR"),
    (r"[Ii]ncidence\s+rate\s+ratios?|a?IRRs?", "IRR"),
    (r"[Ss]tandardi[sz]ed\s+mean\s+differences?|SMD", "SMD"),
    (r"(?:[Ww]eighted\s+)?(?:mean|Mean)\s+differences?|W?MD", "MD"),
    (r"risk\s+differences?|RD", "RD"),
]
# One group around all names (not one group per name): the regex engine then skips names whose first
# character does not fit without entering them. Which name matched is found again with
# ``_NAME_RES`` (the first that matches the name's text whole is the one the alternation took).
_NAME_ALT = "(?P<name>" + "|".join(rx for rx, _ in _TEST_NAMES) + ")"
_NAME_RES = [lazy(f"(?:{rx})") for rx, _ in _TEST_NAMES]
# The same alternatives, in the same order, each written to open with a plain character (optional
# prefixes and leading groups spelled out).
_NAME_FORMS: list[str] = [
    r"partial\s+(?:η|eta)\s*[- ]?(?:2|squared)", r"η\s*p\s*2", r"ηp\s*2", r"η\s*2\s*p", r"ηp", r"partial\s+eta2",
    r"η\s*[- ]?(?:2|squared)", r"eta\s*[- ]?(?:2|squared)", r"η",
    r"ω\s*[- ]?(?:2|squared)", r"omega\s*[- ]?(?:2|squared)",
    r"adjusted\s+R\s*[- ]?(?:2|squared)", r"adj\.?\s*R\s*[- ]?(?:2|squared)", r"R\s*[- ]?(?:2|squared)", r"Radj2",
    r"Cohen'?s\s+f\s*2", r"f\s*2", r"Cohen'?s\s+f", r"f",
    r"Wald\s+(?:χ\s*\^?\s*2|chi[_\s]*\^?\s*2|[Cc]hi[- ]?squared?|X\s*2)", r"Wald(?:\s+(?:tests?|statistics?))?(?![A-Za-z])",
    r"χ\s*\^?\s*2", r"χ", r"chi[_\s]*\^?\s*2", r"Chi[- ]?squared?(?:\s+value)?", r"chi[- ]?squared?(?:\s+value)?",
    r"X\s*2", r"x\s*2", r"G\s*2", r"?\??\s?2(?=\s*\()",
    r"c\s?2(?=\s*\(\s*\d)",  # χ² whose χ a PDF font turned into "c": "c 2 (4) = 14.56"
    r"Mann[- ]Whitney(?:\s+U)?", r"U",
    r"Wilcoxon(?:\s+signed[- ]ranks?)?(?:\s+[WTZ])?", r"W",
    r"Kruskal[- ]Wallis(?:\s+H)?", r"H",
    r"Q\s*-?\s*(?:between|within|error|total|residual|Between|Within|Error|Total|Residual|B|W|E|T|R|b|w|e|t)(?![a-z])",
    r"Q",
    # Cohen's d_z (paired), d_av, d_rm: "Cohen's d z = 0.30" is a d, not a z test
    r"Cohen'?s\s+d\s?_?(?:z|av|rm)(?![A-Za-z])", r"Cohen'?s\s+d", r"d\s?_?(?:z|av|rm)(?![A-Za-z])", r"d",
    r"Hedges'?s?\s*g\s?_?(?:z|av|rm)(?![A-Za-z])", r"Hedges'?s?\s*g", r"g\s?_?(?:z|av|rm)(?![A-Za-z])", r"g",
    r"Spearman'?s\s+(?:rho|ρ|r)", r"r\s*s(?![a-z])", r"rho[- ]hat", r"rho", r"ρ",
    r"Kendall'?s\s+(?:tau|τ)(?:\s*-?\s*b)?", r"tau", r"τ",
    r"t[- ](?:stat(?:istic)?s?|values?|ratios?|tests?)", r"t", r"F[- ](?:stat(?:istic)?s?|values?|ratios?|tests?)", r"BF(?=\s*\(\s*\d+\s*,)", r"Fs", r"F",
    r"Pearson(?:'s)?\s+[Cc]orrelation(?:\s+coefficient)?", r"Correlation(?:\s+coefficient)?",
    r"correlation(?:\s+coefficient)?", r"partial\s+correlation", r"pr(?=\s*=)", r"r", r"R",
    r"z[- ](?:stat(?:istic)?s?|values?|ratios?|tests?)", r"z", r"Z",
    r"standardi[sz]ed\s+(?:regression\s+)?coefficient", r"β", r"beta", r"Beta",
    r"unstandardi[sz]ed\s+[Cc]oefficient", r"regression\s+[Cc]oefficient", r"Coefficient", r"coefficient",
    r"Coef\.", r"coef\.", r"Marginal\s+effect", r"marginal\s+effect", r"Parameter\s+[Ee]stimate",
    r"parameter\s+[Ee]stimate", r"OLS\s+[Ee]stimate", r"Estimate", r"estimate", r"γ", r"gamma", r"b", r"B",
    r"adjusted\s+(?:odds|Odds)\s+ratios?", r"Adjusted\s+(?:odds|Odds)\s+ratios?", r"odds\s+ratios?", r"Odds\s+ratios?",
    r"aORs?", r"AORs?", r"ORs?", r"adj\.?\s*OR",
    r"adjusted\s+(?:[Rr]isk|[Rr]ate)\s+ratios?", r"Adjusted\s+(?:[Rr]isk|[Rr]ate)\s+ratios?", r"risk\s+ratios?",
    r"Risk\s+ratios?", r"rate\s+ratios?", r"Rate\s+ratios?", r"relative\s+risks?", r"Relative\s+risks?", r"aRRs?",
    r"RRs?",
    r"adjusted\s+[Hh]azards?\s+ratios?", r"Adjusted\s+[Hh]azards?\s+ratios?", r"hazards?\s+ratios?",
    r"Hazards?\s+ratios?", r"aHRs?", r"HRs?",
    r"incidence\s+rate\s+ratios?", r"Incidence\s+rate\s+ratios?", r"aIRRs?", r"IRRs?",
    r"standardi[sz]ed\s+mean\s+differences?", r"Standardi[sz]ed\s+mean\s+differences?", r"SMD",
    r"weighted\s+(?:mean|Mean)\s+differences?", r"Weighted\s+(?:mean|Mean)\s+differences?", r"mean\s+differences?",
    r"Mean\s+differences?", r"WMD", r"MD",
    r"risk\s+differences?", r"RD",
]
# (a form may open with "?": the first characters are escaped below)
assert all(f[0] not in "\\([.*+|^$" for f in _NAME_FORMS)
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
_NAME_FIRST_CHARS = frozenset(_BY_FIRST)  # every character a test name can open with
_SINGLE = frozenset({"t", "F", "r", "R", "z", "Z", "U", "W", "H", "Q", "d", "g", "b", "B", "η", "χ", "f"})
_ESTIMATE_TESTS = RATIO_TESTS | {"MD", "SMD", "RD"}
_LOOSE_OK = _ESTIMATE_TESTS | {"b", "beta", "r", "rho"} | EFFECT_SIZES

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



_NAME_INDEX: dict[str, int] = {}


def _name_index(name: str) -> int:
    """Index in _TEST_NAMES of the name the alternation took (depends on the name's text only)."""
    idx = _NAME_INDEX.get(name)
    if idx is None:
        idx = next(i for i, rx in enumerate(_NAME_RES) if rx.fullmatch(name))
        if len(_NAME_INDEX) < 10000:
            _NAME_INDEX[name] = idx
    return idx

