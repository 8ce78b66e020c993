"""Deterministic evidence-component parser: statistics patterns plus variable and relationship cues.

Test family, degrees of freedom, sample sizes and confidence intervals come from the statistics
engine (``claimtrace.stats``) and from the patterns below (the union, de-duplicated); significance and
direction cues come from ``claimtrace.cues``. Variables are noun-phrase chunks left once statistics, numbers, function words
and comparison cues are removed; relationships are one per sentence carrying a direction or a
significance cue. The parser is an approximation of the published GPT-4 parse; docs/evaluation.md
reports how often it agrees with the LLM parser.
"""

from __future__ import annotations

import re

from claimtrace.cues import (
    DECREASE_LOOSE,
    INCREASE_LOOSE,
    STOP_WORDS,
    TEST_FAMILIES,
    stated_direction,
    stated_significance,
)
from claimtrace.documents.sentences import split_sentences
from claimtrace.evaluate.evidence import EvidenceComponents, Interval, Relationship
from claimtrace.stats import StatResult, parse

_NUM = r"-?(?:\d+(?:\.\d+)?|\.\d+)"
_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-",
                         "\u00a0": " ", "\u2009": " ", "\u202f": " "})

_CI = [
    # 95% CI 1.2-3.4 | 95% confidence interval [CI]: 1.2 to 3.4 | (95% CI, -0.5, 0.3)
    re.compile(rf"(?P<level>\d{{2}}(?:\.\d+)?)\s*%\s*(?:CI|C\.I\.|confidence intervals?|confidence limits?)"
               rf"(?:\s*\[CI\])?[^0-9\-+]{{0,20}}?\+?(?P<low>{_NUM})\s*%?\s*(?:to|,|;|-|and)\s*\+?(?P<high>{_NUM})", re.I),
    # CI 95% 1.2-3.4 | CI95%: ...
    re.compile(rf"\bCI\s*(?P<level>\d{{2}})\s*%?[^0-9\-]{{0,12}}?(?P<low>{_NUM})\s*%?\s*(?:to|,|;|-)\s*\+?(?P<high>{_NUM})"),
    # CI: 1.2-3.4 (level unstated)
    re.compile(rf"\b(?:CI|confidence interval)s?\b[^0-9\-%]{{0,12}}?(?P<low>{_NUM})\s*%?\s*(?:to|,|;|-)\s*\+?(?P<high>{_NUM})", re.I),
]

_FAMILY_OF_TEST = {"t": "t", "f": "anova", "chi2": "chi2", "x2": "chi2", "r": "correlation", "rho": "correlation",
                   "z": "z", "u": "nonparametric", "w": "nonparametric", "h": "nonparametric",
                   "b": "regression", "beta": "regression", "or": "odds ratio", "hr": "survival", "rr": "risk ratio"}

_N = re.compile(r"(?<![A-Za-z])[nN]\s*=\s*(\d[\d,]*)(?!\.\d)")
_DF_T = re.compile(r"\b(?:t|r|χ2|χ²|chi2|X2)\s*\(\s*(\d+(?:\.\d+)?)\s*(?:,\s*[nN]\s*=\s*(\d[\d,]*))?\s*\)")
_DF_F = re.compile(r"\bF\s*\(\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*\)")
_DF_WORD = re.compile(r"\b(?:df|d\.f\.)\s*=\s*(\d+(?:\.\d+)?)", re.I)

_STOP = STOP_WORDS | frozenset([
    "against", "al", "all", "also", "although", "among", "analyses", "analysis", "any", "associated",
    "association", "being", "better", "between", "both", "but", "ci", "comparable", "compare", "compared",
    "comparing", "comparison", "confidence", "decrease", "decreased", "decreases", "decreasing",
    "demonstrated", "did", "differ", "differed", "difference", "differences", "different", "do", "does",
    "e.g", "effect", "effects", "either", "et", "fewer", "five", "found", "four", "furthermore", "greater",
    "had", "has", "have", "hazard", "he", "her", "higher", "his", "however", "i.e", "improve", "improved",
    "improvement", "improves", "increase", "increased", "increases", "increasing", "indicated", "interval",
    "intervals", "into", "it", "less", "likely", "linear", "logistic", "lower", "means", "median", "model",
    "models", "more", "moreover", "no", "nor", "not", "noted", "observed", "odds", "one", "onto", "other",
    "our", "over", "overall", "p", "ratio", "ratios", "reduce", "reduced", "reduces", "reduction", "regard",
    "regression", "relative", "reported", "respect", "respectively", "revealed", "same", "seen", "she",
    "show", "showed", "shows", "significance", "significant", "significantly", "similar", "since", "six",
    "some", "statistical", "statistically", "study", "test", "tests", "them", "then", "there", "they",
    "three", "trial", "two", "under", "unlikely", "until", "us", "value", "values", "via", "vs.", "we",
    "what", "when", "where", "whereas", "while", "whom", "whose", "within", "without", "worse", "you",
    "your"
])
_WORD = re.compile(r"[A-Za-zα-ωΑ-Ω][A-Za-z0-9α-ωΑ-Ω'/+\-]*")
_PAREN_STATS = re.compile(r"[(\[][^()\[\]]*\d[^()\[\]]*[)\]]")


def _f(x: str) -> float:
    return float(x.replace(",", ""))


def _stats_records(text: str) -> list[StatResult]:
    """The statistics engine's records of ``text``."""
    return parse(text)


def intervals_of(text: str) -> list[Interval]:
    """Confidence intervals stated in ``text`` (patterns plus the statistics engine)."""
    t = text.translate(_DASHES)
    out: list[Interval] = []
    taken: list[tuple[int, int]] = []
    for pat in _CI:
        for m in pat.finditer(t):
            if any(a <= m.start() < b for a, b in taken):
                continue
            taken.append(m.span())
            level = m.groupdict().get("level")
            iv = Interval(level=float(level) if level else None, low=_f(m.group("low")), high=_f(m.group("high")))
            if iv.low <= iv.high or iv.low < 0 or iv.high < 0:
                out.append(iv)
    for r in _stats_records(text):
        low, high = r.ci_low, r.ci_high
        if low is not None and high is not None:
            lvl = r.ci_level
            lvl = float(lvl) * 100 if lvl is not None and float(lvl) <= 1 else lvl
            iv = Interval(level=float(lvl) if lvl is not None else None, low=float(low), high=float(high))
            if not any(abs(iv.low - o.low) < 1e-9 and abs(iv.high - o.high) < 1e-9 for o in out):
                out.append(iv)
    return out


def families_of(text: str) -> list[str]:
    """Test / model families named or implied in ``text`` (in a fixed order)."""
    t = text.translate(_DASHES)
    fams = [name for name, words, symbols in TEST_FAMILIES if words.search(t) or (symbols and symbols.search(t))]
    for r in _stats_records(text):
        test = (r.test or "").lower()
        fam = _FAMILY_OF_TEST.get(test)
        if fam and fam not in fams:
            fams.append(fam)
    return fams


def sizes_of(text: str) -> list[str]:
    """Sample sizes and degrees of freedom as tokens ("N=120", "df=98", "df=1,96")."""
    t = text.translate(_DASHES)
    out: list[str] = []

    def add(tok: str) -> None:
        if tok not in out:
            out.append(tok)

    for m in _DF_F.finditer(t):
        add(f"df={_num(m.group(1))},{_num(m.group(2))}")
    for m in _DF_T.finditer(t):
        add(f"df={_num(m.group(1))}")
        if m.group(2):
            add(f"N={int(_f(m.group(2)))}")
    for m in _DF_WORD.finditer(t):
        add(f"df={_num(m.group(1))}")
    for m in _N.finditer(t):
        add(f"N={int(_f(m.group(1)))}")
    for r in _stats_records(text):
        df1, df2, n = r.df1, r.df2, r.n
        if df1 is not None and df2 is not None:
            add(f"df={_num(str(df1))},{_num(str(df2))}")
        elif df1 is not None:
            add(f"df={_num(str(df1))}")
        if n is not None:
            add(f"N={int(float(n))}")
    return out


def _num(s: str) -> str:
    v = _f(s)
    return str(int(v)) if v == int(v) else f"{v:g}"


def variables_of(text: str) -> list[str]:
    """Variable-like noun-phrase chunks (statistics, numbers, function words and cues removed)."""
    t = _PAREN_STATS.sub(" , ", text.translate(_DASHES))
    t = re.sub(r"\bp\s*[<>=≤≥]\s*\S+", " , ", t)
    out: list[str] = []
    seen: set[str] = set()
    for clause in re.split(r"[,;:.()\[\]\"“”]|\s-\s", t):
        chunk: list[str] = []
        for tok in [*re.findall(r"\S+", clause), ""]:
            w = tok.strip("'’")
            is_word = bool(_WORD.fullmatch(w)) and w.lower() not in _STOP and len(w) > 1 \
                and not INCREASE_LOOSE.fullmatch(w) and not DECREASE_LOOSE.fullmatch(w)
            if is_word:
                chunk.append(w)
                continue
            if chunk:
                phrase = " ".join(chunk[:5])
                key = phrase.lower()
                if any(len(x) >= 3 for x in chunk) and key not in seen:
                    seen.add(key)
                    out.append(phrase)
            chunk = []
    return out


def relationships_of(text: str) -> list[Relationship]:
    """One relationship per sentence with a direction or significance cue."""
    t = text.translate(_DASHES)
    out: list[Relationship] = []
    for a, b in split_sentences(t):
        s = t[a:b]
        d, sig = stated_direction(s), stated_significance(s)
        if d is None and sig is None:
            continue
        out.append(Relationship(direction=d, significant=sig, variables=variables_of(s)))
    return out


class DeterministicParser:
    """The default, free and deterministic component parser."""

    name = "deterministic"

    def parse(self, text: str) -> EvidenceComponents:
        """The five component types of ``text``."""
        text = text or ""
        if not text.strip():
            return EvidenceComponents(parser=self.name)
        return EvidenceComponents(
            variables=variables_of(text), relationships=relationships_of(text), intervals=intervals_of(text),
            test_family=families_of(text), sample_size=sizes_of(text), parser=self.name,
        )
