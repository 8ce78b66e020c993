"""Scanners, one per component kind: test statistics, p-values, CIs and the minor components (N, SE, descriptives).

Each scanner takes a (repaired) text window and returns its tokens (``_Tok``) with offsets into it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from claimtrace.patterns import bind_lazy, lazy
from claimtrace.stats.lexicon import (
    _ESTIMATE_TESTS,
    _LOOSE_OK,
    _NAME_ALT_FAST,
    _NAME_FIRST_CHARS,
    _NUM_ALONE,
    _PCMP,
    _Q_DETAIL,
    _SINGLE,
    _TEST_NAMES,
    BOUND,
    DF,
    NUM,
    SNUM,
    THOUSANDS,
    _df,
    _name_index,
    _num,
)

_TEST_RE = lazy(
    # no subscript label after F: "F_1, 177 = 2.42" is F with its df written as a subscript (udf1, udf2 below)
    _NAME_ALT_FAST + r"(?![A-Za-z])(?P<sub>(?<!F)_[A-Za-z0-9]{1,8})?"
    # a header in parentheses: "OR (95% CI) = 1.11 (1.01-1.21)", "B (SE) = .026 (.009)"
    r"(?:\s*\(\s*(?:(?P<cilvl>\d{2}(?:\.\d+)?)\s*%\s*CI"
    r"|(?P<sehdr>SE|S\.E\.|s\.e\.|se|[Ss]tandard\s+[Ee]rror))\s*\))?"
    r"(?:\s*(?P<open>[(\[])\s*(?:df\s*=\s*)?(?P<df1>" + DF + r")(?:\s*[,;/]\s*(?P<df2>" + DF + r"))?"
    r"(?:\s*[,;]\s*[Nn]\s*(?:=|\sp\s)\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+))?\s*[)\]]"
    r"|(?P<sdf1>(?<=[tFχ2])\s?\d+(?:\.\d+)?)(?:,\s?(?P<sdf2>\d+(?:\.\d+)?))?"
    r"|(?<=F)_(?P<udf1>\d+),\s?(?P<udf2>\d+))?"
    r"\s*(?P<cmp><=|>=|≤|≥|=|<|>|(?<=\s)p(?=\s)|(?<=\s)!(?=\s)|(?<=\))[bN](?=\s*[-.\d])|:|,"
    r"|(?:\s(?:of|was|is|were))(?=\s)|(?=\s))"
    # a minus garbled into a run of symbols ("%^&2.20")
    r"\s*(?P<garb>[%^&#@~$]{2,4})?(?P<value>[-+]?\s?(?:" + THOUSANDS + "|" + NUM + r")(?:e-?\d{1,2}(?![\d.]))?)(?![\d.]\d)"
)

def _after_re(pattern: re.Pattern[str], lookbehind: str, firsts: str) -> re.Pattern[str]:
    """``pattern`` (which opens with ``lookbehind``, a negative look-behind at one character class, then its name
    group) with the character before the name consumed instead, and the name's first character (one of ``firsts``)
    looked ahead at: it opens with a character class, which the regex engine jumps to (a space, a punctuation
    mark) instead of trying a match at every position. See ``_word_matches``."""
    assert pattern.pattern.startswith(lookbehind) and lookbehind.startswith("(?<![") and lookbehind.endswith("])")
    return lazy("[^" + lookbehind[5:-2] + "](?=[" + "".join(re.escape(c) for c in sorted(firsts)) + "])"
                      + pattern.pattern[len(lookbehind) :])


def _word_matches(pattern: re.Pattern[str], after: re.Pattern[str], t: str) -> list[re.Match[str]]:
    """``list(pattern.finditer(t))`` for a ``pattern`` that opens with a look-behind (no character of a class before
    it), searched with ``after = _after_re(pattern, ...)``: a match's own start is its first group's start
    (``m.start()`` is the character before it, except for a match at 0, which ``pattern`` finds).

    finditer goes on from the end of each match; ``after`` from the character before it (the last character of
    the match, which ``after`` consumes where the look-behind would accept it), so that the next match may start
    right where the one before ends.
    """
    out: list[re.Match[str]] = []
    m = pattern.match(t)
    if m is not None:
        out.append(m)
    search = after.search
    m = search(t, m.end() - 1 if m is not None else 0)
    while m is not None:
        out.append(m)
        m = search(t, m.end() - 1)
    return out


_TEST_AFTER_RE = _after_re(_TEST_RE, r"(?<![A-Za-z0-9_.'’-])", "".join(_NAME_FIRST_CHARS))


_PNUM = (
    # a bare power of ten ("p < 10^-4", "p < 10−4" with its minus repaired): read in _p_value
    r"(?P<pten>10\s*(?:\^\s*\(?\s*-\s?|-)(?P<pexp>\d{1,2})(?![\d.])\)?)?"
    r"(?(pten)|(?P<pval>\d*\.\d+|\d+(?:[.,/]\d+)?)"
    r"(?:\s*(?:[×x*]|\\times)\s*10\s*(?:\^\s*)?(?:\(\s*)?(?P<exp>[-+]?\s?\d{1,3})(?:\s*\))?"
    r"|\s?[eE](?P<exp2>[-+]?\d{1,3}))?)"
)
# Patterns open with a character class (the lookbehind after it) so that the regex engine can skip
# ahead to candidate characters instead of trying a match at every position.
_WORD_START_RE = lazy(r"[^\W\d_](?<![A-Za-z0-9_.'’-].)")
_P_RE = lazy(
    r"(?P<pname>[pP](?<![A-Za-z0-9][pP])(?:(?P<pv>[\s-]*[Vv]alues?)|(?:s|'s|’s)(?=\s*[<>=bN!]))?)"
    r"(?P<psub>[\s_-]*(?:for\s+)?(?:trend|interaction|heterogeneity|overall|diff(?:erence)?)\b)?"
    r"(?:\s*\(\s*(?P<ptail>one|two|1|2)[- ]?(?:tailed|sided)\s*\))?"
    # a table's column number after "p value": "Difference: p-Value (4) = .002"; or the null hypothesis it tests:
    # "p value (beta_m = beta_c) = .000"
    r"(?(pv)(?:\s*\((?:[^()<>=\s]{1,3}|(?P<phyp>[^()<>=;,]{1,30}=[^()<>=;,]{1,30}))\))?)"
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


_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _ns_word(t: str) -> bool:
    """Whether ``_NS_RE`` is searched in ``t``: one of "ns", "NS", "n.s", "n. s" is in it (the quick check), and the
    pattern can match: every match holds "ns", "NS" or "n." whose "n" follows no ASCII letter (the pattern's
    look-behinds: none, "(", whitespace), so "means" or "patients" alone never match."""
    if not ("ns" in t or "NS" in t or "n.s" in t or "n. s" in t):
        return False
    for w in ("ns", "NS", "n."):
        i = t.find(w)
        while i >= 0:
            if i == 0 or t[i - 1] not in _ASCII_LETTERS:
                return True
            i = t.find(w, i + 1)
    return False


_NS_RE = lazy(
    r"(?<![A-Za-z])(?:n\.\s?s\.|(?<=\()\s*(?:NS|ns|n\.s)(?=\s*\))|(?<=[,;]\s)(?:NS|ns)(?=\s*[);.,]|\s*$))")
# "significant at the 1 percent level", "Significant at 5 percent.", "significance at the...1%...levels"
_SIGLEVEL_RE = lazy(
    r"(?:[Ss]ignifican\w*\s+at|[Ss]ignifican\w*\s*\((?=[^()]{0,20}levels?\s*\))|[Ss]ig\.\s+at)\s*(?:the\s*)?(?:\.{3}\s*)?"
    r"(?:(?P<pct>\d{1,2}(?:\.\d+)?|one|five|ten)\s*(?:%|-?percent|per\s+cent)|(?:[pP]\s*[<=]\s*)?(?P<frac>0?\.\d+))"
    r"(?:\s*(?:\.{3}\s*)?(?:levels?|significance\s+level))?"
)
_NUMBER_WORDS = {"one": 1.0, "five": 5.0, "ten": 10.0}
# SPSS output: "Sig. (2-tailed) = .000", "Sig < .001"
_SPSS_SIG_RE = lazy(
    r"(?<![A-Za-z])Sig(?:\.|nificance)?(?:\s*\(\s*(?P<ptail>1|2|one|two)[- ]?tailed\s*\))?\s*:?\s*"
    r"(?P<pcmp><=|>=|=|<|>)\s*(?P<pval>\d*\.\d+|\d+)(?![\d.]\d)"
)
_CI_RE = lazy(
    r"(?:(?P<lvl>\d{2}(?:\.\d+)?)\s*%\s*|(?P<lvlf>0?\.\d{2})\s+)?"
    r"(?P<ciname>CIs?|C\.I\.|CrI|HPD|HDI|[Cc]onfidence\s+[Ii]ntervals?|[Cc]redib(?:le|ility)\s+[Ii]ntervals?|UI|[Uu]ncertainty\s+[Ii]nterval)"
    r"(?:\s*\(\s*(?:CI|CrI)\s*\))?(?:\s+for\s+[A-Za-z ]{1,30}?)?"
    r"\s*(?:[:=,]|\s(?:was|of|is|from|were))?\s*[\[(]?\s*(?:LL\s*[=:]\s*)?"
    r"(?P<lo>" + BOUND + r")\s*(?:%|(?!to\b|and\b|UL\b)[a-zA-Zμµ]{1,6}(?:/[a-zA-Z0-9]+)?)?"
    r"\s*(?:-|to|,|;|and|–)\s*(?:UL\s*[=:]\s*)?"
    r"(?P<hi>" + BOUND + r")(?![\d.]\d)\s*(?:%|(?!to\b|and\b)[a-zA-Zμµ]{1,6}(?:/[a-zA-Z0-9]+)?)?\s*[\])]?"
)
# an SE in parentheses or brackets after a coefficient ("B = .026 (.009)", "Beta_1 = -0.283 [0.202]")
_PAREN_SE_RE = lazy(r"\s*[(\[]\s*(?P<se>" + NUM + r")\s*[)\]]")
# a number just before a standard error ("Development index: -1.61, Standard error = 0.83"): a coefficient
_SE_WORD = (r"(?:(?:[Rr]obust|[Cc]lustered|[Bb]ootstrapped?|[Pp]anel[- ]corrected)\s+)?"
            # (the SE of a coefficient may be named after it, APA's "SE B", "SEB", "SE(B)", "SE_b": "B = .21, SE B = .05")
            r"(?:SE(?:\s?[Bbβ]|\s?\(\s*[Bbβ]\s*\)|_[Bbβ])?|S\.E\.|se|s\.e\.|[Ss]tandard\s+[Ee]rrors?"
            r"|[Ss]td\.?\s*[Ee]rr(?:or|\.)?)(?![A-Za-z])"
            # "robust SE clustered at the rural community = 0.390": the clustering named before the value
            r"(?:\s+clustered\s+(?:at|by|on)\s+(?:the\s+)?[A-Za-z][A-Za-z -]{0,40}?(?=\s*[=:]))?")
_SE_NEXT = lazy(r"\s*[,;]?\s*" + _SE_WORD)  # a standard error word right after a value
# (a unit may follow the value: "difference = 4.2 percentage points (s.e. = 1.8)"; the value may follow a label
# word instead of ":" or "=" where the label names an estimate: "coefficient on treatment 0.056, standard error
# 0.021", see _scan_coef)
_COEF_RE = lazy(
    r"(?:[:=]|(?<=[A-Za-z)])(?P<word>\s))(?P<pre>\s*)(?P<v>(?:[-+]\s?)?" + NUM + r")(?![\d.])"
    r"(?:\s*(?:percentage\s+points?|pp|p\.p\.|percent|points?|%)(?![A-Za-z]))?\s*[,;]?\s*(?:\(\s*)?(?="
    + _SE_WORD + r"\s*(?:[=:]|\s)\s*\.?\d)"
)
# a p-value whose "p" was lost, right after a statistic: "t = -3.11, < 0.01" (only < and >: "= .03" is ambiguous)
_BARE_P_RE = lazy(r"\s*[,;]\s*(?P<pcmp><=|>=|<|>)\s*(?P<pval>0?\.\d+)(?![\d.])")
_BARE_CI_RE = lazy(
    r"\s*[,;]?\s*[\[(]\s*(?P<lo>" + SNUM + r")\s*(?:-|to|,|;)\s*(?P<hi>" + SNUM + r")\s*[\])]"
)
_N_RE = lazy(
    r"[Nn](?<![A-Za-z0-9][Nn])\s*=\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?![\d.]\d)"
    r"(?P<per>\s*(?:per|in\s+each|each)\s+(?:group|arm|condition|cell))?"
)
_SE_RE = lazy(r"(?<![A-Za-z])(?P<sew>" + _SE_WORD + r")\s*(?:[=:]|\s(?:of|is|was)\s|\s)\s*(?P<v>" + SNUM + r")")
_SE_AFTER_RE = _after_re(_SE_RE, r"(?<![A-Za-z])", "RrCcBbPpSs")
_MEAN_RE = lazy(r"[Mm](?<![A-Za-z][Mm])(?:(?<=M)|ean)\s*[=:]\s*(?P<v>" + SNUM + r")")
_SD_RE = lazy(r"(?<![A-Za-z])(?P<k>SD|s\.d\.|SEM)\s*[=:]?\s*(?P<v>" + NUM + r")")
_SD_AFTER_RE = _after_re(_SD_RE, r"(?<![A-Za-z])", "Ss")
_PM_RE = lazy(r"(?P<m>" + SNUM + r")\s*(?:[a-zA-Zμµ%]{1,5}\s*)?(?:±|\+/-|\+-)\s*(?P<s>" + NUM + r")")
_PCT_RE = lazy(r"(?P<v>" + _NUM_ALONE + r")\s?%(?!\s*(?:CI|C\.I|[Cc]onfidence|[Cc]redible|CrI|UI))")
_VS_PCT_RE = lazy(r"(?P<v>" + _NUM_ALONE + r")\s*(?:vs\.?|versus|to)\s*" + NUM + r"\s?%")
_COUNT_RE = lazy(
    r"(?P<k>\d(?<![\d./]\d)\d*)\s*(?:/|\s+of\s+|\s+out\s+of\s+)(?P<n>\d+)(?![\d/]|\.\d)"
)
_MEDIAN_RE = lazy(r"(?<![A-Za-z])[Mm]edian\s*(?:[=:]|\s(?:of|was|is))?\s*(?P<v>" + SNUM + r")")
# r"\b(?:one|1)[- ](?:tailed|sided)\b" with re.I, spelled out (ı and İ match i, ſ matches s under re.I) so
# that it opens with a character class: the regex engine skips ahead instead of trying every position
_ONE_TAILED_RE = lazy(
    r"[oO1](?<!\w.)(?:(?<=[oO])[nN][eE]|(?<=1))[- ]?(?:[tT][aA][iIıİ][lL][eE][dD]|[sSſ][iIıİ][dD][eE][dD])\b"
)
# a sentence or paragraph break: r"[.!?]\s+[\"'(\[]?[A-Z]|\n\s*\n", written to open with one character class (the
# regex engine jumps to it); its look-behinds look only at the character it has just matched
_BREAK_RE = lazy(r"[.!?\n](?:(?<=[.!?])\s+[\"'(\[]?[A-Z]|(?<=\n)\s*\n)")
_THRESHOLD_BEFORE = lazy(
    r"(?:significan\w*|alpha|α)\s*(?:level\s*|threshold\s*)?(?:was|were|is|of|at|set|defined|accepted|"
    r"considered|taken|as|to\s+be|a|an|the|value|level|\s|,)*$|"
    r"(?:with|when|if|a|an|two-sided|two-tailed)\s*$",
    re.I,
)
_THRESHOLD_AFTER = lazy(
    r"^\s*(?:\(\s*two[- ](?:sided|tailed)\s*\)\s*)?(?:was|were|is|are)\s+(?:considered|regarded|accepted|"
    r"taken|defined|set|used|deemed|chosen)|^\s*(?:level|threshold)\b|^\s*(?:was|were)\s+(?:statistically\s+)?significant\b"
    r"|^\s*(?:indicat|denot|defin)\w*\s+(?:statistical\s+)?significan",
    re.I,
)


def _named_statistic(name: str) -> bool:
    """A test statistic named in full ("t-statistic", "t value", "z-ratio"): a result without df or comparator."""
    return len(name) > 2 and ("stat" in name or "value" in name or "ratio" in name)


_SE_OF_B_BEFORE = lazy(r"(?<![A-Za-z])SE\s?\(?\s*$")


@dataclass(slots=True)
class _Tok:
    kind: str  # test, p, ci, n, se, desc
    start: int
    end: int
    data: dict[str, Any] = field(default_factory=dict)



# ---------------------------------------------------------------------------------------------
# scanners
def _scan_tests(t: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _word_matches(_TEST_RE, _TEST_AFTER_RE, t):
        ns, ne = m.span("name")
        idx = _name_index(m.group("name"))
        canon = _TEST_NAMES[idx][1]
        name = m.group("name")
        cmp_raw = (m.group("cmp") or "").strip()
        has_df = m.group("df1") is not None or m.group("sdf1") is not None or m.group("udf1") is not None
        if m.group("sdf1") is not None and canon not in ("t", "F", "chi2"):
            continue
        if canon == "f" and has_df:
            continue  # "f(1) = 3.2", "f(x)": a function, not Cohen's f (an effect size has no df)
        loose = cmp_raw in ("", ",", "of", "was", "is", "were", ":")
        if (loose and canon not in _LOOSE_OK and not (cmp_raw == ":" and has_df)
                and not (cmp_raw != "," and _named_statistic(name) and "\n" not in t[ne : m.start("value")])):
            continue  # (but "t-statistic of 2.10", "z value 2.4" on one line: a table's header is not its cell)
        if cmp_raw in ("", ",", "of", "was", "is", "were") and name.strip() in _SINGLE:
            continue
        if m.group("open") == "[" and canon not in ("t", "F", "chi2", "r", "Q", "H"):
            continue
        if cmp_raw == ":" and canon in ("r", "rho") and _SE_NEXT.match(t, m.end()):
            continue  # "r: -.037, Standard error = .013": a coefficient whose row label is "r" (_scan_coef reads it)
        if canon == "b" and ns >= 2 and _SE_OF_B_BEFORE.search(t, ns - 4 if ns > 4 else 0, ns):
            continue  # "SE B = .05": the standard error of B (an SE token), not a second coefficient
        value_s = m.group("value")
        try:
            value = _num(value_s)
        except ValueError:
            continue
        data: dict[str, Any] = {"test": canon, "test_text": name, "value": value, "has_df": has_df}
        repaired: list[str] = []
        if canon == "F" and name == "BF":
            if m.group("df2") is None:
                continue  # a Bayes factor, not F with a stray glyph
            repaired.append("stray glyph 'B' before F")
        if name.startswith("?"):
            repaired.append(f"'{name}' read as χ2 (symbol lost)")
        if canon == "b" or canon == "beta":
            low = name.lower()
            for word in ("marginal effect", "gamma", "γ", "estimate", "unstandardi", "standardi", "coef"):
                if word in low:
                    data["test_detail"] = {"coef": "coefficient", "γ": "gamma", "standardi": "standardized coefficient",
                                           "unstandardi": "coefficient"}.get(word, word)
                    break
        if canon in ("d", "g") and name[-1] in "zvm" and re.search(r"[dg]\s?_?(?:z|av|rm)$", name):
            data["test_detail"] = canon + "_" + re.sub(r"^.*[dg]\s?_?", "", name)  # d_z, d_av, d_rm, g_z
        if canon == "r" and ("partial" in name or name == "pr"):
            data["test_detail"] = "partial"
        if canon == "Q":
            sub = name[1:].strip(" -").lower()
            if sub:
                data["test_detail"] = _Q_DETAIL.get(sub, sub)
        cmp = {"p": "=", "!": "<", "≤": "<=", "≥": ">="}.get(cmp_raw, cmp_raw)
        if cmp_raw in ("b", "N"):
            cmp = "<" if cmp_raw == "b" else ">"
        if cmp_raw in ("p", "!", "b", "N"):
            repaired.append(f"comparator '{cmp_raw}' read as '{cmp}'")
        if cmp not in ("=", "<", ">", "<=", ">="):
            cmp = "="
        data["comparison"] = cmp
        if m.group("garb"):
            value = -abs(value)
            repaired.append(f"minus sign garbled into '{m.group('garb')}'")
            data["value"] = value
        spans: dict[str, tuple[int, int]] = {"test": (ns, ne), "value": m.span("value")}
        for g_df, g_sdf, g_udf, key in (("df1", "sdf1", "udf1", "df1"), ("df2", "sdf2", "udf2", "df2")):
            g = g_df if m.group(g_df) is not None else g_sdf if m.group(g_sdf) is not None else g_udf
            if m.group(g) is not None:
                raw = m.group(g).strip()
                if re.search("[lI]", raw):
                    repaired.append(f"'{raw}' in df read as a number")
                data[key] = _df(raw)
                s, e = m.span(g)
                spans[key] = (s + (len(m.group(g)) - len(m.group(g).lstrip())), e)
        if m.group("udf1") is not None:
            repaired.append("df written as a subscript ('F_1, 177') read as F(1, 177)")
        if m.group("n") is not None:
            data["n"] = int(m.group("n").replace(",", ""))
            spans["n"] = m.span("n")
        data["spans"] = spans
        data["repaired"] = repaired
        end = m.end()
        if not has_df and canon in ("t", "F", "chi2"):
            dm = _DF_AFTER_RE.match(t, end)
            # F takes two df ("df = 2, 145"); t and χ2 one ("with 120 degrees of freedom", "(df = 1)")
            if dm is not None and (dm.group("b") is not None) == (canon == "F"):
                a_g = "a" if dm.group("a") is not None else "c"
                data["df1"] = _df(dm.group(a_g))
                spans["df1"] = dm.span(a_g)
                if dm.group("b") is not None:
                    data["df2"] = _df(dm.group("b"))
                    spans["df2"] = dm.span("b")
                data["has_df"] = has_df = True
                end = dm.end()
        if canon in ("t", "F", "z", "chi2", "r"):
            pm = _BARE_P_RE.match(t, end)
            if pm is not None:
                data["p_comparison"] = pm.group("pcmp")
                data["p_value"] = float(pm.group("pval"))
                spans["p"] = pm.span("pval")
                spans["p_full"] = (pm.start("pcmp"), pm.end())
                repaired.append("p-value without its 'p' read after the statistic")
                end = pm.end()
        if canon in ("b", "beta") and t.startswith("*", end):
            # significance stars on the coefficient ("B = .12*", "coefficient 0.23***"): a result, p not read (the
            # stars' levels are the table's legend)
            k = end
            while k < len(t) and k < end + 3 and t[k] == "*":
                k += 1
            if not t.startswith("*", k):
                spans["stars"] = (end, k)
                end = k
        if canon in ("b", "beta") or (canon in ("MD", "SMD", "RD") and m.group("sehdr")):
            # ("mean difference (SE): 219 (73)": a difference with its SE header reads its SE as a coefficient does)
            sm = _PAREN_SE_RE.match(t, end)
            if sm is not None:
                data["se"] = _num(sm.group("se"))
                spans["se"] = sm.span("se")
                end = sm.end()
            elif m.group("sehdr"):
                continue  # "B (SE) = .026" without its SE
        if canon in _ESTIMATE_TESTS | {"b", "beta", "d", "g"} and "se" not in data:
            bm = _BARE_CI_RE.match(t, end)
            if bm and not _CI_RE.match(t, bm.start() + 1):
                lo, hi = _num(bm.group("lo")), _num(bm.group("hi"))
                if lo <= value <= hi:
                    lvl = float(m.group("cilvl")) if m.group("cilvl") else None
                    data["ci"] = (lvl, lo, hi, bm.start("lo") - (1 if t[bm.start("lo") - 1] in "([" else 0), bm.end())
                    end = bm.end()
        toks.append(_Tok("test", ns, end, data))
    return toks


# df written after the statistic's value: "χ2 = 5.2 (df = 1)", "chi-square = 12.3, df = 2", "t = 3.02 with 120
# degrees of freedom", "χ2 = 18.2 with 4 df", "F = 4.1, df = 2, 145" (a parenthesis opened is closed)
_DF_AFTER_RE = lazy(
    r"(?P<open>\s*\(\s*)?(?(open)|\s*(?:[,;]\s*)?(?:with\s+)?)"
    r"(?:df\s*[=:]\s*(?P<a>\d+(?:\.\d+)?)(?:\s*,\s*(?P<b>\d+(?:\.\d+)?)(?![\d.]))?"
    r"|(?P<c>\d+(?:\.\d+)?)\s+(?:degrees?\s+of\s+freedom|d\.\s?f\.|df)(?![A-Za-z]))(?(open)\s*\))(?![\d.]\d)")


_DESC_LABEL = lazy(r"(?<![A-Za-z])(?:M|Mean|mean|Mdn|[Mm]edian|[Aa]verage|SD|Mode|Md)\s*$")


def _has_se_word(t: str) -> bool:
    """Quick check (plain substring tests) that ``t`` may hold a standard error word (``_SE_WORD``)."""
    return ("SE" in t or "rror" in t or "S.E" in t or "s.e." in t or " se " in t or " se=" in t or "(se" in t
            or " se:" in t or "td. err" in t or "td err" in t or "td.err" in t)


def _scan_coef(t: str, has_se: bool | None = None) -> list[_Tok]:
    """Coefficients written as a bare number before their standard error ("Income: 0.0694, Standard error = 0.0390")."""
    toks: list[_Tok] = []
    if not (_has_se_word(t) if has_se is None else has_se):  # has_se: the caller knows ``_has_se_word(t)``
        return toks
    for m in _COEF_RE.finditer(t):
        if _DESC_LABEL.search(t, max(0, m.start() - 12), m.start() + (1 if m.group("word") else 0)):
            continue  # "M = 3.07, SE = 0.023": a mean and its standard error, not a coefficient
        if m.group("word"):
            lo = max(0, m.start() - 60)
            brk = _LABEL_BREAK.search(t, lo, m.start())
            if not _ESTIMATE_WORD.search(t, brk.end() if brk else lo, m.start()):
                continue  # a number after a word is a coefficient only where its label names one
        s, e = m.span("v")
        data: dict[str, Any] = {"test": "b", "test_text": None, "test_detail": "coefficient", "value": _num(m.group("v")),
                                "has_df": False, "comparison": "=", "spans": {"value": (s, e)}, "repaired": []}
        toks.append(_Tok("test", s, e, data))
    return toks


# A coefficient with a number in parentheses or brackets, as regression tables print it: "Dominant party ×
# Security: -0.009 (0.004)**", "Treatment effect: schools in first quartile = 3.225 (1.395)", "Model 2: 0.045***
# (0.012)". The number is read as the SE (the convention of
# such tables) only where the row marks the estimate: after ":" or "=", stars on it (before or after the
# parentheses) or an estimate word ("effect", "coefficient", "estimate") in its label; or right after that word
# ("the estimate is 0.557 (0.125)", "treatment effect -0.19 (0.10)"). A number with stars and no label ("48.7*
# (4.3)") is no coefficient: tables of means (SD) star them too. The SE must be unsigned (a negative number in
# parentheses is a t or z, never an SE). Years, page ranges and "(N = 120)" never fit: the parentheses hold only
# a number, and the number before them is marked as above.
_ESTIMATE_WORD_RX = r"(?:[Ee]ffects?|[Cc]oefficients?|[Cc]oef(?:f|\.)?|[Ee]stimates?)(?![A-Za-z])"
_PAREN_COEF_TAIL = (r"\s*(?P<v>(?:[-+]\s?)?(?<![\d.])" + NUM + r")(?P<stars0>\*{1,3}|†{1,2})?\s*[(\[]\s*(?P<se>" + NUM
                    + r")\s*[)\]](?P<stars>\*{1,3}|†{1,2})?(?![\d.%]|\s*%)")
_PAREN_COEF_RE = lazy(r"[:=]" + _PAREN_COEF_TAIL)
# the same right after an estimate word; it opens with the word's first letter (the regex engine jumps to it)
_PAREN_COEF_WORD_RE = lazy(r"(?P<word>[EeCc](?<![A-Za-z][EeCc])(?:ffects?|oefficients?|oef(?:f|\.)?|stimates?)"
                                 r"(?![A-Za-z]))(?:\s+(?:is|was|of|equals|at))?" + _PAREN_COEF_TAIL)
_ESTIMATE_WORD = lazy(r"(?<![A-Za-z])" + _ESTIMATE_WORD_RX)
_LABEL_BREAK = lazy(r"[;.](?!\d)(?=[^;.]*$)")  # the last ";" or sentence point (not a decimal point)


def _scan_paren_coef(t: str) -> list[_Tok]:
    """Coefficients with their SE in parentheses after a row label (``_PAREN_COEF_RE``), flagged as read by convention."""
    toks: list[_Tok] = []
    found = list(_PAREN_COEF_RE.finditer(t))
    if "ffect" in t or "oef" in t or "stimate" in t:
        ends = [m.end() for m in found]
        found += [m for m in _PAREN_COEF_WORD_RE.finditer(t) if m.end() not in ends]
        found.sort(key=lambda m: m.start("v"))
    for m in found:
        stars = m.group("stars") or m.group("stars0")
        lo = max(0, m.start() - 80)
        brk = _LABEL_BREAK.search(t, lo, m.start())
        label = t[brk.end() if brk else lo : m.start()]
        if _DESC_LABEL.search(label):
            continue  # "M = 3.2 (1.1)": a mean and its SD
        if m.re is _PAREN_COEF_WORD_RE:
            if "\n" in t[m.end("word") : m.start("v")] or t[m.start("se") - 1 : m.start("se")] == "[":
                continue  # "Side effects\n47 (65.3)": a row label over a cell; "coefficient 1.34 [14]": a citation
        elif not stars and not _ESTIMATE_WORD.search(label):
            continue
        se = _num(m.group("se"))
        if se <= 0:
            continue
        s, e = m.span("v")
        spans = {"value": (s, e), "se": m.span("se")}
        if stars:
            spans["stars"] = m.span("stars") if m.group("stars") else m.span("stars0")
        data: dict[str, Any] = {"test": "b", "test_text": None, "test_detail": "coefficient", "value": _num(m.group("v")),
                                "has_df": False, "comparison": "=", "se": se, "spans": spans,
                                "repaired": ["number in parentheses after a coefficient read as its SE (the table convention)"]}
        toks.append(_Tok("test", s, m.end(), data))
    return toks



# what may stand just before a starred estimate (whitespace aside): a row label's last letter or parenthesis,
# ":", "=", ",", ";"; not a comparator, a digit or a sign of a descriptive
_STAR_LABEL_END = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ):=,;([")


def _after_row_label(t: str, s: int) -> bool:
    """Whether the estimate at ``s`` follows a row label's end (``_STAR_LABEL_END``, whitespace aside; a letter
    not glued to it) that is no descriptive label ("M = 3.2*"). No label (a table cell alone: the table reader
    reads its stars), a comparator or a digit before it: no."""
    b = s - 1
    while b >= 0 and t[b].isspace():
        b -= 1
    if b < 0 or t[b] not in _STAR_LABEL_END or (b == s - 1 and t[b].isalpha()):
        return False
    return not _DESC_LABEL.search(t, max(0, b - 12), b + 1 if t[b] not in ":=" else b)


def _scan_starred(t: str, digits: list[int]) -> list[_Tok]:
    """Estimates printed with significance stars and no name, as regression tables flattened to text print them:
    "log income 0.214***", "female: -0.087**", "-0.214*** (-3.41)". ``digits``: where a digit is followed by "*".

    A decimal number (an integer with stars is a count or a year), one to three stars, nothing after the stars
    that continues the number, and before it (whitespace aside) a row label's end (``_STAR_LABEL_END``), not a
    descriptive label ("M = 3.2*"). A starred number with no label (a table cell read alone) is left to the table
    reader, which reads its stars by the table's legend. Read as a coefficient whose stars make it a result (p
    not read: the stars' levels are the table's legend); the caller drops those that another token holds.
    """
    toks: list[_Tok] = []
    n = len(t)
    for i in digits:
        k = i + 1
        while k < n and k < i + 4 and t[k] == "*":
            k += 1
        if k < n and (t[k] == "*" or t[k].isdigit() or t[k] == "."):
            continue
        j = i
        while j > 0 and (t[j - 1].isdigit() or t[j - 1] == "."):
            j -= 1
        raw = t[j : i + 1]
        if "." not in raw or raw.count(".") > 1 or raw.endswith("."):
            continue
        s = j
        if s > 0 and t[s - 1] in "-+":
            s -= 1
        if not _after_row_label(t, s):
            continue
        try:
            value = _num(t[s : i + 1])
        except ValueError:
            continue
        toks.append(_Tok("test", s, k, {"test": "b", "test_text": None, "test_detail": "coefficient", "value": value,
                                        "has_df": False, "comparison": "=",
                                        "spans": {"value": (s, i + 1), "stars": (i + 1, k)}, "repaired": []}))
    return toks


# an estimate with a number in parentheses and stars after them: "female -0.087 (0.032)***", "-0.034 (0.015)**"
_STAR_PAREN_RE = lazy(r"(?<![\w.])(?P<v>[-+]?(?:\d+\.\d+|\.\d+))\s*[(\[]\s*[-+]?" + NUM + r"\s*[)\]](?P<stars>\*{1,3})(?![*\d])")


def _scan_starred_paren(t: str, closes: list[int]) -> list[_Tok]:
    """Estimates with stars after the number in parentheses that follows them (``_STAR_PAREN_RE``; ``closes``:
    where ")*" or "]*" is), read as ``_scan_starred`` reads them: a result by its stars, the number in parentheses
    not read (an SE, a t or an SD: without an estimate word or ":" before it, ``_scan_paren_coef`` leaves it)."""
    toks: list[_Tok] = []
    for i in closes:
        m = next((x for x in _STAR_PAREN_RE.finditer(t, max(0, i - 40), min(len(t), i + 5)) if x.start("stars") == i + 1),
                 None)
        if m is None:
            continue
        s = m.start("v")
        if not _after_row_label(t, s):
            continue
        toks.append(_Tok("test", s, m.end(), {"test": "b", "test_text": None, "test_detail": "coefficient",
                                              "value": _num(m.group("v")), "has_df": False, "comparison": "=",
                                              "spans": {"value": m.span("v"), "stars": m.span("stars")},
                                              "repaired": []}))
    return toks


_ZERO_COMMA = lazy(r"0,\d+")
_P_SUB_SEP = lazy(r"[\s_-]+")
_NOT_NS_BEFORE = lazy(r"saline|sodium|nervous|system", re.I)
_DIGIT = lazy(r"\d")


def _p_value(m: re.Match[str]) -> float | None:
    if m.group("pten") is not None:
        return 10.0 ** -int(m.group("pexp"))
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
            vspan = (m.start("pval") if m.group("pval") is not None else m.start("pten"), m.end())
        if psub:
            data["p_detail"] = _P_SUB_SEP.sub(" ", psub).strip()
        elif m.group("phyp"):
            data["p_detail"] = "H0: " + " ".join(m.group("phyp").split())
        if ptail in ("one", "1"):
            data["one_tailed"] = True
        s, e = m.span()
        if _is_threshold(t, s, e) or _is_p_range(t, s):
            continue
        data["spans"] = {"p": (s, e), "p_value": vspan}
        toks.append(_Tok("p", s, e, data))
    taken = [(tk.start, tk.end) for tk in toks]
    for m in _NS_RE.finditer(t) if _ns_word(t) else ():
        if any(s <= m.start() < e for s, e in taken):
            continue
        before = t[max(0, m.start() - 40) : m.start()]
        if _NOT_NS_BEFORE.search(before) or not _DIGIT.search(before):
            continue
        toks.append(_Tok("p", m.start(), m.end(), {"p_comparison": "ns", "p_value": None,
                                                   "spans": {"p": m.span(), "p_value": m.span()}}))
    for m in _SPSS_SIG_RE.finditer(t) if "Sig" in t else ():
        if any(s <= m.start() < e for s, e in taken):
            continue
        pv = float(m.group("pval"))
        if pv > 1:
            continue
        sdata: dict[str, Any] = {"p_comparison": _PCMP.get(m.group("pcmp"), "="), "p_value": pv,
                                 "spans": {"p": m.span(), "p_value": m.span("pval")}}
        if m.group("ptail") in ("1", "one"):
            sdata["one_tailed"] = True
        toks.append(_Tok("p", m.start(), m.end(), sdata))
    if "reject" in t:
        toks.extend(_scan_reject(t))
    for m in _SIGLEVEL_RE.finditer(t) if ("ignifican" in t or "ig. at" in t) else ():  # every match holds one
        pct = m.group("pct")
        v = _NUMBER_WORDS.get(pct, 0.0) / 100 or float(pct) / 100 if pct else float(m.group("frac"))
        if 0 < v < 0.5 and not _is_threshold(t, m.start(), m.end()):
            toks.append(_Tok("p", m.start(), m.end(), {"p_comparison": "<", "p_value": v,
                                                       "spans": {"p": m.span(), "p_value": m.span()}}))
    return toks


# "we reject the null at the 5% level" (p below that level), "cannot reject ... at the 10 percent level" (above it)
_REJECT_RE = lazy(
    r"(?P<neg>(?<![A-Za-z])(?:can\s*not|can't|could\s+not|fail(?:s|ed)?\s+to|do(?:es)?\s+not|did\s+not|not)\s+)?"
    r"(?<![A-Za-z])reject(?:s|ed|ing)?(?![A-Za-z])(?:[^.;]|\.(?=\d)){0,80}?(?<![A-Za-z])at\s+(?:the\s+)?"
    r"(?:(?P<pct>\d{1,2}(?:\.\d+)?)\s*(?:%|percent|per\s+cent)|(?P<frac>0?\.\d+))\s*(?:significance\s+)?levels?(?![A-Za-z])"
)


def _scan_reject(t: str) -> list[_Tok]:
    """A null rejected (or not) at a stated level: a p-value bound ("<" that level, or ">" it when not rejected)."""
    toks: list[_Tok] = []
    for m in _REJECT_RE.finditer(t):
        v = float(m.group("pct")) / 100 if m.group("pct") else float(m.group("frac"))
        if not 0 < v < 0.5:
            continue
        lvl = m.span("pct") if m.group("pct") else m.span("frac")
        toks.append(_Tok("p", m.start(), m.end(), {"p_comparison": ">" if m.group("neg") else "<", "p_value": v,
                                                   "spans": {"p": m.span(), "p_value": lvl}}))
    return toks


# A test named in words with a verdict of no significance and no numbers: "Independent samples t-tests for all
# comparisons ... were not statistically significant", "a chi-square test revealed no significant difference".
# Read as that test's p-value reported as "ns" (a result of kind "p" with its test named).
_VERBAL_NS_RE = lazy(
    r"(?<![A-Za-z0-9])(?P<name>(?P<tz>[tzF])[- ]tests?|(?:[Cc]hi[- ]?squared?|χ\s*2)(?:\s+tests?)?"
    r"|Mann[- ]Whitney(?:\s+U)?(?:\s+tests?)?|Wilcoxon(?:\s+signed[- ]ranks?)?(?:\s+tests?)?"
    r"|Kruskal[- ]Wallis(?:\s+H)?(?:\s+tests?)?|Kolmogorov[- ]Smirnov(?:\s+tests?)?|Fisher'?s\s+exact\s+tests?|ANOVAs?)"
    r"(?![A-Za-z])[^.;:\d=<>]{0,100}?(?<![A-Za-z])(?:(?:was|were|is|are)\s+not|(?:showed|revealed|indicated|yielded|found|detected)\s+no)\s+"
    r"(?:statistically\s+)?(?P<verdict>significan(?:t|ce)(?![A-Za-z])|significantly\s+differ\w*)"
)
_VERBAL_NS_AFTER_RE = _after_re(_VERBAL_NS_RE, r"(?<![A-Za-z0-9])", "tzFCcχMWKA")
_VERBAL_TEST = (("Mann", "U"), ("Wilcoxon", "W"), ("Kruskal", "H"), ("ANOVA", "F"), ("hi", "chi2"), ("χ", "chi2"))


def _scan_verbal_ns(t: str) -> list[_Tok]:
    """Tests named in words and reported not significant, without numbers (see ``_VERBAL_NS_RE``)."""
    toks: list[_Tok] = []
    for m in _word_matches(_VERBAL_NS_RE, _VERBAL_NS_AFTER_RE, t):
        name = m.group("name")
        tz = m.group("tz")
        test = tz if tz else next((canon for key, canon in _VERBAL_TEST if key in name), None)
        ns = m.start("name")
        toks.append(_Tok("p", ns, m.end(), {
            "p_comparison": "ns", "p_value": None, "verbal": True, "test": test, "test_text": name,
            "spans": {"p": (ns, m.end()), "p_value": m.span("verdict"), "test": m.span("name")}}))
    return toks


# "accounted for 4.6% of the variance": the share of variance explained, an R2
_VAR_EXPLAINED_RE = lazy(
    r"(?P<v>(?<![\d.])\d{1,3}(?:\.\d+)?\s*(?:%|percent|per\s+cent))\s+of\s+(?P<name>(?:the\s+)?(?:total\s+|overall\s+)?"
    r"variance)(?![A-Za-z])"
)


# "effect size (using Cohen's d) was .69", "effect size (η2) = .05": the measure named in parentheses
_EFFECT_NAMED_RE = lazy(
    r"(?<![A-Za-z])[Ee]ffect\s+sizes?\s*\(\s*(?:using\s+|i\.e\.,?\s+|as\s+)?"
    r"(?P<name>Cohen'?s\s+d|Cohen'?s\s+f\s*2|Cohen'?s\s+f|Hedges'?\s*g|partial\s+(?:η|eta)\s*[- ]?(?:2|squared)|η\s*p\s*2|ηp\s*2|(?:η|eta)\s*[- ]?(?:2|squared)"
    r"|(?:ω|omega)\s*[- ]?(?:2|squared)|f\s*2|d|f|g|r)\s*\)\s*(?P<cmp>=|:|(?:was|is|were)(?=\s))\s*(?P<v>" + SNUM + r")(?![\d.]\d)"
)


# a planned effect size (a power analysis), not a result: "80% power to detect an effect size (d) of 0.5"
_PLANNED_BEFORE = lazy(
    r"(?<![A-Za-z])(?:power|detect\w*|assum\w*|expect\w*|anticipat\w*|hypothesi[sz]ed|minimum|smallest|sample\s+size)"
    r"(?![A-Za-z])[^.;]*$", re.I)


def _scan_effect_named(t: str) -> list[_Tok]:
    """An effect size whose measure is named in parentheses after "effect size" (``_EFFECT_NAMED_RE``); one planned
    in a power analysis (``_PLANNED_BEFORE`` in the 80 characters before it, same sentence) is marked ``planned``."""
    toks: list[_Tok] = []
    for m in _EFFECT_NAMED_RE.finditer(t):
        name = m.group("name")
        data: dict[str, Any] = {"test": _TEST_NAMES[_name_index(name)][1], "test_text": name, "value": _num(m.group("v")),
                                "has_df": False, "comparison": "=",
                                "spans": {"test": m.span("name"), "value": m.span("v")}, "repaired": []}
        if _PLANNED_BEFORE.search(t, max(0, m.start() - 80), m.start()):
            data["planned"] = True
        toks.append(_Tok("test", m.start(), m.end(), data))
    return toks


_NUM_START = lazy(r"\d+(?:\.\d+)?")


def _scan_variance_explained(t: str) -> list[_Tok]:
    """Shares of variance explained ("12% of the variance"), read as R2 (``test_detail`` "variance explained")."""
    toks: list[_Tok] = []
    for m in _VAR_EXPLAINED_RE.finditer(t):
        v = float(_NUM_START.match(m.group("v")).group())  # type: ignore[union-attr]  # the group opens with it
        if v > 100:
            continue
        data: dict[str, Any] = {"test": "R2", "test_text": m.group("name"), "test_detail": "variance explained",
                                "value": round(v / 100, 10), "has_df": False, "comparison": "=",
                                "spans": {"test": m.span("name"), "value": m.span("v")}, "repaired": []}
        toks.append(_Tok("test", m.start(), m.end(), data))
    return toks


# the first character (after whitespace) of a text that _THRESHOLD_AFTER matches (re.I: "i" also matches "İ" and "ı")
_THRESHOLD_AFTER_FIRST = frozenset("(wWiIİıaAlLtTdD")


# ".05 < p ≤ .10": a bound written before the p makes a range of p values, not a result
_P_RANGE_BEFORE = lazy(r"(?<![\w.])(?:0?\.\d+|[01](?:\.\d+)?)\s*(?:<|≤|<=|=<)\s*$")


def _is_p_range(t: str, s: int) -> bool:
    """Whether the p at ``s`` has a lower bound written before it (".05 < p ≤ .10")."""
    prev = t[max(0, s - 3) : s].rstrip()
    return bool(prev) and prev[-1] in "<≤=" and _P_RANGE_BEFORE.search(t, max(0, s - 16), s) is not None


# "FDR-corrected ... for multiple comparisons at p < .05", "Bonferroni-corrected at the p < .01 level": the
# level a correction was run at, not a result
_CORRECTED_AT = lazy(r"(?:correct(?:ed|ion)|comparisons)(?:\s+[\w-]+){0,3}?\s+at\s+(?:the\s+|a\s+)?$", re.I)


def _is_threshold(t: str, s: int, e: int) -> bool:
    after = t[e : e + 60]
    rest = after.lstrip()
    if rest and rest[0] in _THRESHOLD_AFTER_FIRST and _THRESHOLD_AFTER.match(after):
        return True
    before = t[max(0, s - 70) : s]
    if ("orrect" in before or "omparison" in before) and _CORRECTED_AT.search(before):
        return True
    if not _threshold_word(before):  # nor then in the part of it after a sentence break (cut below)
        return False
    cut = max(before.rfind(". "), before.rfind("; "))
    if cut >= 0:
        before = before[cut + 2 :]
    if _threshold_word(before) and _threshold_set(before):
        return not _THRESHOLD_REACHED.search(before)
    return False


_THRESHOLD_WORD = lazy(r"significan|alpha|α|level", re.I)  # cheap pre-check for _THRESHOLD_SET


def _threshold_word(before: str) -> bool:
    """``_THRESHOLD_WORD.search(before)``; plain substring tests for ASCII text (where re.I adds nothing)."""
    if before.isascii():
        low = before.lower()
        return "significan" in low or "alpha" in low or "level" in low
    return _THRESHOLD_WORD.search(before) is not None
# "up to 4 words" as ``\w+(?:\s+\w+){0,3}\s*`` (the language of ``(?:\w+\s*){0,4}``, which splits a word into
# pieces in every possible way and backtracks through all of them before it fails)
_THRESHOLD_SET = lazy(
    r"(?:significan\w*|alpha|α|level)\s*(?:\w+(?:\s+\w+){0,3}\s*)?(?:at|of|as|was|to|:|=)\s*(?:a\s+|an\s+|the\s+)?$",
    re.I)
# how a text that _THRESHOLD_SET matches ends, whitespace aside (its last word, lower-cased)
_THRESHOLD_SET_ENDS = ("at", "of", "as", "to", ":", "=", "a", "an", "the")


def _threshold_set(before: str) -> bool:
    """``_THRESHOLD_SET.search(before)``, with a quick check of how an ASCII text ends (re.I adds nothing there)."""
    if before.isascii() and not before.rstrip().lower().endswith(_THRESHOLD_SET_ENDS):
        return False
    return _THRESHOLD_SET.search(before) is not None


_THRESHOLD_REACHED = lazy(
    r"\b(?:reached|showed|achieved|was|were|found|observed)\s+(?:statistical\s+)?significan\w*\s*\(?\s*$", re.I)


def _ci_starts(t: str) -> list[int]:
    """Where ``_CI_RE`` can match: at a CI name, or in the number (level) written just before it."""
    names = _find_all(t, "C") + _find_all(t, "UI") + _find_all(t, "HPD") + _find_all(t, "HDI")
    for word in ("onfidence", "redible", "redibility", "ncertainty"):
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


def _before_each(t: str, ch: str) -> list[int]:
    """``_before_space(t, q)`` for every ``ch`` in ``t`` (at q), in order."""
    out: list[int] = []
    find = t.find
    q = find(ch)
    while q >= 0:
        j = q - 1
        while j >= 0 and t[j].isspace():
            j -= 1
        out.append(j)
        q = find(ch, q + 1)
    return out


def _n_starts(t: str, before_eq: list[int] | None = None) -> list[int]:
    """Where ``_N_RE`` can match: an N or n, then whitespace, then "=". ``before_eq``: ``_before_each(t, "=")``
    when the caller has it."""
    return [j for j in (_before_each(t, "=") if before_eq is None else before_eq) if j >= 0 and t[j] in "Nn"]


def _mean_starts(t: str, before_eq: list[int] | None = None) -> list[int]:
    """Where ``_MEAN_RE`` can match: "M" or "mean"/"Mean", then whitespace, then "=" or ":". ``before_eq``:
    ``_before_each(t, "=")`` when the caller has it."""
    out = []
    for j in (_before_each(t, "=") if before_eq is None else before_eq) + _before_each(t, ":"):
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


def _runs_before(t: str, word: str, points: bool, after_space: bool = False) -> set[int]:
    """``{_run_before(t, q, points) for q in _find_all(t, word)}`` without -1; ``after_space``: only the ``q`` with
    whitespace just before them. (Inlined: most words have a letter before them, rejected at the first look.)"""
    out: set[int] = set()
    find = t.find
    q = find(word)
    while q >= 0:
        j = q - 1
        if j >= 0 and (t[j].isspace() or not after_space):
            while j >= 0 and t[j].isspace():
                j -= 1
            if j >= 0 and (t[j].isdecimal() or (points and t[j] == ".")):
                while j > 0 and (t[j - 1].isdecimal() or (points and t[j - 1] == ".")):
                    j -= 1
                out.add(j)
        q = find(word, q + 1)
    return out


def _vs_starts(t: str) -> list[int]:
    """Where ``_VS_PCT_RE`` can match: its first number takes a whole run of digits and points (a digit or point
    next to it would stop the match), which ends, whitespace aside, just before "vs", "versus" or "to"."""
    return sorted(_runs_before(t, "vs", True) | _runs_before(t, "versus", True) | _runs_before(t, "to", True))


def _count_starts(t: str) -> list[int]:
    """Where ``_COUNT_RE`` can match: its count takes a whole run of digits, which ends, whitespace aside, just
    before "/", or before whitespace and "of" or "out"."""
    return sorted(_runs_before(t, "/", False) | _runs_before(t, "of", False, True) | _runs_before(t, "out", False, True))


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


def _scan_misc(t: str, has_se: bool | None = None) -> list[_Tok]:
    toks: list[_Tok] = []
    se_word = _has_se_word(t) if has_se is None else has_se
    if ("=" not in t and "±" not in t and "%" not in t and "/" not in t and " of " not in t and "SD" not in t
            and not se_word):  # (an SE needs no "=": "coefficient 0.21 (SE 0.05)")
        return toks
    before_eq = _before_each(t, "=")
    for m in _matches_at(_N_RE, t, _n_starts(t, before_eq)):
        toks.append(_Tok("n", m.start(), m.end(), {"n": int(m.group("n").replace(",", "")), "per": bool(m.group("per"))}))
    for m in _word_matches(_SE_RE, _SE_AFTER_RE, t) if se_word else ():
        # the span of the SE is its number (as for "B = .026 (.009)"): its decimals give the rounding; kept relative
        # to the token's start (windows move tokens, not the data)
        toks.append(_Tok("se", m.start("sew"), m.end(), {"se": _num(m.group("v")),
                                                            "num_at": (m.start("v") - m.start("sew"), m.end("v") - m.start("sew"))}))
    for m in _matches_at(_MEAN_RE, t, _mean_starts(t, before_eq)):
        toks.append(_Tok("desc", m.start(), m.end(), {"kind": "mean", "value": _num(m.group("v"))}))
    for m in _word_matches(_SD_RE, _SD_AFTER_RE, t) if ("SD" in t or "s.d." in t or "SEM" in t) else ():
        kind = "se" if m.group("k") == "SEM" else "sd"
        toks.append(_Tok("desc", m.start("k"), m.end(), {"kind": kind, "value": _num(m.group("v"))}))
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


def _find_all(hay: str | bytes, needle: str | bytes) -> list[int]:
    """Every position of ``needle`` in ``hay`` (overlapping ones included)."""
    out: list[int] = []
    find = hay.find
    i = find(needle)  # type: ignore[arg-type]
    while i >= 0:
        out.append(i)
        i = find(needle, i + 1)  # type: ignore[arg-type]
    return out


bind_lazy(globals())  # the patterns above compile on first use (claimtrace.patterns)
