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
from typing import Any

import ahocorasick_rs

from claimtrace.patterns import bind_lazy, lazy
from claimtrace.stats.grouping import Res, group_tokens, is_kept
from claimtrace.stats.model import (
    EFFECT_SIZES,
    ComponentSpan,
    Descriptive,
    EffectSize,
    StatResult,
    built,
)
from claimtrace.stats.normalize import FONT_NOTES, OffsetMap, map_span, normalize_ascii
from claimtrace.stats.scanners import (
    _BREAK_RE,
    _ONE_TAILED_RE,
    _PAREN_COEF_RE,
    _PAREN_COEF_WORD_RE,
    _find_all,
    _matches_at,
    _n_starts,
    _scan_ci,
    _scan_coef,
    _scan_effect_named,
    _scan_misc,
    _scan_p,
    _scan_paren_coef,
    _scan_starred,
    _scan_starred_paren,
    _scan_tests,
    _scan_variance_explained,
    _scan_verbal_ns,
    _Tok,
)

# Component models get every field, so their set of given fields never changes (setting a field adds a
# name already there): one shared set each, which spares an allocation per component.
_SPAN_SET = {"start", "end", "text"}
_DESC_SET = {"kind", "value", "total", "start", "end", "text"}
_EFFECT_SET = {"measure", "value", "start", "end", "text"}
_RESULT_SET = frozenset({
    "kind", "text", "start", "end", "test", "test_text", "test_detail", "df1", "df2", "comparison", "value",
    "p_comparison", "p_value", "one_tailed", "ci_level", "ci_low", "ci_high", "se", "n", "n_per_group",
    "effects", "descriptives", "spans", "repaired", "planned"})


# every field of a StatResult, in field order, at its default (lists and dicts filled in per result)
_RESULT_TEMPLATE: dict[str, Any] = dict.fromkeys(StatResult.model_fields)


def _finish(text: str, norm: str, offsets: OffsetMap, r: Res, tails: list[tuple[int, int]] | None = None) -> StatResult:
    """The StatResult of a grouped result (built without validation: every value here is already typed).

    ``tails``: (start, end) of every word of ``norm`` that ``one_tailed_in_sentence`` looks for first, sorted (None:
    not known); a result with none of them within its reach is not one-tailed by its sentence.
    """
    ident = offsets.identity
    if ident:
        start, end = r.start, (r.end if r.end > r.start else r.start)
    else:
        start, end = map_span(offsets, r.start, r.end)
    spans: dict[str, ComponentSpan] = {}
    for k, (s, e) in r.spans.items():
        if not ident:
            s, e = map_span(offsets, s, e)
        elif e < s:
            e = s
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
    one_tailed = bool(f.get("one_tailed")) or (
        (tails is None or bool(tails)) and _near(tails, r.start - 60 if r.start > 60 else 0, r.end + 40)
        and one_tailed_in_sentence(norm, r.start, r.end, before=60, after=40))
    repaired = r.repaired  # the result's own list (grouping fills it): no copy needed
    if norm is not text and norm[r.start : r.end] != text[start:end]:
        repaired.extend(_repair_notes(text, norm, offsets, r.start, r.end))
    for key in ("value", "p"):
        se = r.spans.get(key)
        if se is not None and se[1] < len(norm) - 1 and norm[se[1]] == ":" and norm[se[1] + 1].isdigit():
            tail = re.match(r":\d+", norm[se[1] :])
            repaired.append(f"doubtful: the {key} '{norm[se[0] : se[1]]}{tail.group(0) if tail else ''}' may hold a "
                            "decimal point damaged into ':' (not repaired, not checked)")
    # the fields grouping set (all StatResult fields, see group_tokens), over the template: field order is kept
    values = _RESULT_TEMPLATE.copy()
    values.update(f)
    values["kind"] = r.kind
    values["text"] = text[start:end]
    values["start"] = start
    values["end"] = end
    values["one_tailed"] = one_tailed
    values["n_per_group"] = bool(f.get("n_per_group"))
    values["effects"] = effects
    values["descriptives"] = descs
    values["spans"] = spans
    _minus_from_ci(values, repaired)
    values["repaired"] = repaired
    values["flags"] = []
    values["planned"] = bool(f.get("planned")) or (f.get("test") in _PLANNABLE and _planned(norm, r))
    return built(StatResult, values, set(_RESULT_SET))


def _minus_from_ci(values: dict[str, Any], repaired: list[str]) -> None:
    """A positive estimate between two negative CI bounds lost its minus sign (a dropped glyph): restore it."""
    v, lo, hi = values.get("value"), values.get("ci_low"), values.get("ci_high")
    if v is not None and lo is not None and hi is not None and v > 0 and lo < 0 and hi < 0 and lo <= -v <= hi \
            and values.get("test") in _CI_OF_VALUE:
        values["value"] = -v
        repaired.append("minus sign restored from the CI (both bounds negative, the estimate printed positive)")


# estimates whose CI is their own (a t or z next to a CI of a mean difference may differ in sign from it)
_CI_OF_VALUE = frozenset({"b", "beta", "d", "g", "r", "rho"})


def _repair_notes(text: str, norm: str, offsets: OffsetMap, start: int, end: int) -> list[str]:
    """What the repair of a result's text changed: each font substitution named, else one general note."""
    notes: list[str] = []
    other = False
    for i in range(start, end):
        j = offsets[i]
        a, b = (text[j] if j < len(text) else ""), norm[i]
        if a != b:
            note = FONT_NOTES.get((a, b))
            if note is None:
                other = True
            elif note not in notes:
                notes.append(note)
    if other or not notes:
        notes.append("text repaired (unicode minus, spaces, ligatures or control characters)")
    return notes


# what makes an effect size one planned in a power analysis, in the 80 characters before it (same sentence):
# "80% power to detect", "a power of .80", "power analysis", "to detect", "detectable", "assuming", "sensitivity
# analysis", "smallest effect size of interest". Narrower than the words a result sentence can hold ("as expected").
_POWER_BEFORE = lazy(
    r"(?<![A-Za-z])(?:\d+(?:\.\d+)?\s*%\s*power|power\s+(?:of\s+)?(?:0?\.\d+|\d+(?:\.\d+)?\s*%)|power\s+(?:analys\w+|calculations?)"
    r"|to\s+detect|detectable|assum(?:e|ed|es|ing)|sensitivity\s+analys\w+|(?:smallest|minimum|minimal)\s+effect\s+sizes?)"
    r"(?![A-Za-z])[^.;!?]*$", re.I)
# effect measures a power analysis plans
_PLANNABLE = EFFECT_SIZES | {"r", "rho", "OR", "RR", "HR", "MD", "SMD"}


def _planned(norm: str, r: Res) -> bool:
    """An effect size with nothing inferential (no p, CI, SE or df) after power-analysis words (``_POWER_BEFORE``)."""
    f = r.fields
    if r.kind not in ("test", "estimate") or f.get("test") not in _PLANNABLE:
        return False
    if any(f.get(k) is not None for k in ("p_comparison", "ci_low", "se", "df1")):
        return False
    at = (r.spans.get("test") or r.spans.get("value") or (r.start, r.end))[0]  # the statistic, not a descriptive before it
    return _POWER_BEFORE.search(norm, max(0, at - 80), at) is not None


def _near(words: list[tuple[int, int]] | None, lo: int, hi: int) -> bool:
    """Whether one of ``words`` (sorted spans; None: not known, so yes) lies whole within ``[lo, hi)``."""
    if words is None:
        return True
    k = bisect_left(words, (lo, -1))
    while k < len(words) and words[k][0] < hi:
        if words[k][1] <= hi:
            return True
        k += 1
    return False


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
        for i in (e - 9, e - 7, e - 8, e - 6, e - 5):  # "one-tailed" ... "1sided"
            if i >= 0 and match(text, i):
                return True
    return False


_TAIL_WORDS = frozenset({"tailed", "sided", "TAILED", "SIDED"})
_DIRECTIONAL_RE = lazy(r"\bdirectional\s+(?:(?:t[- ])?tests?|p[- ]?values?|significance\s+tests?|hypothesis\s+tests?)",
                             re.I)
# a statement that the tests of a text are one-tailed ("All tests were one-tailed", "one-tailed tests were used
# throughout", "p values are one-tailed unless stated otherwise")
_SCOPE_RE = lazy(
    r"\b(?:all|every|each)\b[^.;]{0,60}?\b(?:one|1)[- ]?(?:tailed|sided)"
    r"|\b(?:one|1)[- ]?(?:tailed|sided)[^.;]{0,60}?\b(?:throughout|unless\s+(?:otherwise\s+)?(?:stated|noted|indicated|"
    r"specified)|(?:were|are)\s+(?:used|reported|conducted|applied|performed)\b)"
    r"|\bdirectional\s+(?:tests?|p[- ]?values?)\s+(?:were|are)\s+(?:used|reported)",
    re.I,
)
_SENT_END = lazy(r"[.!?]\s+(?=[\"'(\[]?[A-Z])|\n\s*\n")
# a sentence that states a rule for tests it does not report itself: "one-tailed tests were used", "For a one-sided
# independent Mann-Whitney U test with an alpha of .05, the minimum sample size is 428", "p values are one-tailed";
# ``_SCOPE_RE``'s statements too
# (a "one-sided hypothesis" is a direction, not a rule for p: Bayes factors test them too)
_TEST_WORDS = (r"(?:tests?|t[- ]tests?|p[- ]?values?|p|ps|α|alpha|contrasts?|comparisons?|analys[ie]s|significance|"
               r"criterion|threshold|level)")
_STATEMENT_RE = lazy(
    _SCOPE_RE.pattern
    + r"|\b(?:one|1)[- ]?(?:tailed|sided)\s+(?:[\w-]+\s+){0,4}?" + _TEST_WORDS + r"(?![\w-])"
    + r"|(?<![\w-])" + _TEST_WORDS + r"\s+(?:[\w()-]+\s+){0,5}?(?:were|was|are|is)\s+(?:all\s+|always\s+)?"
      r"(?:one|1)[- ]?(?:tailed|sided)\b",
    re.I,
)


def states_one_tailed(sentence: str) -> bool:
    """Whether a sentence states that tests (of its study or paper) are one-tailed / one-sided / directional:
    a rule or an analysis plan, not a mention in passing ("a one-sided view")."""
    if not mentions_one_tailed(sentence) and "irectional" not in sentence:
        return False
    if _EQUIVALENCE_RE.search(sentence):
        return False  # two one-sided tests of equivalence (TOST), one-sided Bayes factors: no rule for p
    return _STATEMENT_RE.search(sentence) is not None


_EQUIVALENCE_RE = lazy(r"\bequivalen|\bTOST\b|\btwo\s+one[- ]?sided|\bBayes|\bBF", re.I)


def one_tailed_scope(text: str) -> bool:
    """Whether a text states that its tests (all of them) are one-tailed / one-sided / directional."""
    if not mentions_one_tailed(text) and "irectional" not in text:
        return False
    return _SCOPE_RE.search(text) is not None


def one_tailed_in_sentence(text: str, start: int, end: int, *, before: int = 300, after: int = 300) -> bool:
    """Whether the sentence of ``text[start:end]`` (at most ``before``/``after`` characters around it) says
    one-tailed, one-sided or directional test."""
    lo = max(0, start - before)
    near = text[lo : end + after]
    if ("tailed" not in near and "sided" not in near and "TAILED" not in near and "SIDED" not in near
            and "irectional" not in near):
        return False  # quick: none of the words near the result
    cut = max(_sentence_start(text, lo, start), text.rfind("\n\n", lo, start))
    a = cut + 1 if cut >= 0 else lo
    m = _SENT_END.search(text, end, min(len(text), end + after))
    b = m.start() + 1 if m is not None else min(len(text), end + after)
    window = text[a:b]
    if mentions_one_tailed(window):
        return True
    return "irectional" in window and _DIRECTIONAL_RE.search(window) is not None


# a sample size: "N = 1,234", "n = 45" (not "n = 20 per group"); the paper's total sample is a capital N
_SAMPLE_RE = lazy(r"(?<![A-Za-z0-9])(?P<k>[Nn])\s*=\s*(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?!\d|[.,]\d)"
                        r"(?!\s*(?:per|in\s+each|each)\s+(?:group|arm|condition|cell))")


def _sample_values(text: str, capital_only: bool) -> set[int]:
    # a match opens with the N or n just before an "=" (whitespace aside): the pattern is tried only there
    return {int(m.group("n").replace(",", "")) for m in _matches_at(_SAMPLE_RE, text, _n_starts(text))
            if not capital_only or m.group("k") == "N"}


def stated_samples(text: str) -> tuple[int, ...]:
    """The total sample sizes a text states ("N = ..."), distinct and sorted."""
    if "N" not in text:
        return ()
    return tuple(sorted(_sample_values(text, capital_only=True)))


def sentence_sample(text: str, start: int, end: int, *, before: int = 300, after: int = 300) -> int | None:
    """The one sample size ("N = ...", "n = ...") stated in the sentence of ``text[start:end]`` (None when
    none or several values)."""
    lo = max(0, start - before)
    cut = max(_sentence_start(text, lo, start), text.rfind("\n\n", lo, start))
    a = cut + 1 if cut >= 0 else lo
    m = _SENT_END.search(text, end, min(len(text), end + after))
    b = m.start() + 1 if m is not None else min(len(text), end + after)
    values = _sample_values(text[a:b], capital_only=False)
    return values.pop() if len(values) == 1 else None


_TRIGGER_DAMAGED_P = re.compile(rb"[pP]s? ?[bN!p] ?\.?\d|[)\d] [p!] [-.\d]")
# where _TRIGGER_DAMAGED_P can start: at a "p" or "P" that these patterns match (offsets from there to try), or
# 2 before a "!" that _DAMAGED_BANG matches
_DAMAGED_CANDS: dict[int, tuple[re.Pattern[bytes], tuple[int, ...]]] = {
    ord("p"): (re.compile(rb"p(?=s? ?[bN!p] ?\.?\d| [-.\d])"), (0, -2)),
    ord("P"): (re.compile(rb"P(?= ?[bN!p] ?\.?\d)"), (0,)),
}
_DAMAGED_BANG = re.compile(rb"!(?= [-.\d])")  # candidate start: 2 before it

# Every trigger word of the scan, found in one pass over the text (an Aho-Corasick automaton of all of them,
# overlapping matches included) instead of one search per word. (word, kind):
# - "ns", "ci": words that open a p-value or CI window (``_word_ok``: a word of up to 3 characters is not
#   followed by a letter, nor preceded by one when it opens with a capital);
# - "nsp": ", ns" after a result and SPSS's "Sig." (not followed by a letter);
# - "se": a standard error word may be in the text (``_has_se_word``: the coefficient scanner runs);
# - "dmg": where a damaged p comparator ("pb.001", "p ! .01") can start (checked with _DAMAGED_CANDS /
#   _DAMAGED_BANG, then _TRIGGER_DAMAGED_P).
_TRIGGER_WORDS: list[tuple[bytes, str]] = [
    *((w, "ns") for w in (b"NS)", b"ns)", b"n.s", b"n. s", b"significant at", b"Significant at",
                          b"significance at", b"Significance at", b"value", b"Value", b"ig. at", b"ignificant (")),
    *((w, "ci") for w in (b"CI", b"C.I", b"CrI", b"onfidence int", b"redible int", b"redibility int",
                          b"HPD", b"HDI")),  # HPD/HDI: Bayesian highest-(posterior-)density intervals
    *((w, "nsp") for w in (b", ns", b", NS", b"Sig")),
    # "reject(ed) ... at the 5% level"; a named test "... not (statistically) significant"; "12% of the variance"
    (b"reject", "rej"),
    *((w, "vns") for w in (b"not significan", b"not statistically significan", b"no significan",
                           b"no statistically significan")),
    *((w, "var") for w in (b"of the variance", b"of variance", b"of the total variance", b"of the overall variance")),
    (b"ffect size", "esz"),  # "effect size (Cohen's d) was .69"
    # a coefficient with its SE in parentheses: stars after it, or an estimate word in its row label
    *((w, "pse") for w in (b")*", b"]*", b")?", b"* (", b"*(", b"ffect", b"oefficient", b"oef", b"stimate")),
    # estimates that can stand without a comparator, CI word or p: a statistic named in full ("t-statistic of 2.1",
    # "0.21 (t-stat 2.45)"), a ratio before its bare CI ("OR 1.5 [1.1-2.0]", "relative risk 1.2 (1.1 to 1.4)"), a
    # number with significance stars ("coefficient 0.23***")
    *((c + sep + w, "est") for c in (b"t", b"z", b"F") for sep, words in ((b"-", (b"stat", b"val", b"rat")),
                                                                         (b" ", (b"stat", b"val")))
      for w in words),
    *((w, "est") for w in (b"OR ", b"ORs ", b"HR ", b"HRs ", b"RR ", b"RRs ", b"IRR", b"AOR", b"aOR", b" ratio",
                           b"elative risk", b"OR:", b"HR:", b"RR:",
                           # a coefficient named with "of" before its p ("a coefficient of 0.14 (p < .01)")
                           b"oefficient of", b"stimate of")),
    *((bytes([d]) + b"*", "est") for d in range(48, 58)),
    # the words ``one_tailed_in_sentence`` looks for first (where none is near a result, it says no at once)
    *((w, "tail") for w in (b"tailed", b"sided", b"TAILED", b"SIDED", b"irectional")),
    *((w, "se") for w in (b"SE", b"rror", b"S.E", b"s.e.", b" se ", b" se=", b"(se", b" se:", b"td. err", b"td err",
                          b"td.err")),
    # "p" or "P", an optional "s" (after "p") and space, then b, N, !, p; "p" or "!", a space, then -, . or a digit
    *((c + s + sp + x, "dmg") for c in (b"p", b"P") for s in ((b"", b"s") if c == b"p" else (b"",))
      for sp in (b"", b" ") for x in (b"b", b"N", b"!", b"p")),
    *((c + b" " + x, "dmg") for c in (b"p", b"!") for x in (b"-", b".", *(bytes([d]) for d in range(48, 58)))),
]
_DIGIT_NEAR = lazy(r"\d")  # a window after a name or SE word is scanned only where a number follows it
_STAT_VALUE_END = lazy(r"(?<![A-Za-z])[tzF][- ]?value$")
# a DFA, named: the library picks one by itself only for up to 100 patterns, and its NFA scans this text ~3x slower
_TRIGGERS = ahocorasick_rs.BytesAhoCorasick([w for w, _ in _TRIGGER_WORDS], implementation=ahocorasick_rs.Implementation.DFA)
_TRIGGER_KIND = [k for _, k in _TRIGGER_WORDS]
_TRIGGER_LEN = [len(w) for w, _ in _TRIGGER_WORDS]


class _Triggers:
    """What one pass of ``_TRIGGERS`` found in a text (positions in text order within each list)."""

    __slots__ = ("ci", "damaged", "est", "esz", "ns", "nsp", "pse", "rej", "se", "tail", "var", "vns")

    def __init__(self, t: str, tb: bytes) -> None:
        self.ns: list[int] = []
        self.ci: list[int] = []
        self.nsp: list[int] = []
        self.rej: list[int] = []
        self.vns: list[int] = []
        self.var: list[int] = []
        self.esz: list[int] = []
        self.pse: list[int] = []
        self.est: list[int] = []
        self.tail: list[tuple[int, int]] = []  # (start, end) of each tail word
        self.se: list[tuple[int, int]] = []  # (start, end) of each standard-error word
        at: set[int] = set()  # where a damaged-p word starts
        simple = {"rej": self.rej, "vns": self.vns, "var": self.var, "esz": self.esz, "pse": self.pse, "est": self.est}
        for idx, i, e in _TRIGGERS.find_matches_as_indexes(tb, overlapping=True):
            kind = _TRIGGER_KIND[idx]
            if kind in simple:
                simple[kind].append(i)
            elif kind == "dmg":
                at.add(i)
            elif kind == "ns" or kind == "ci":
                if _word_ok(t, tb, i, e - i):
                    (self.ns if kind == "ns" else self.ci).append(i)
            elif kind == "nsp":
                if not tb[e : e + 1].isalpha():
                    self.nsp.append(i)
            elif kind == "se":
                self.se.append((i, e))
            elif kind == "tail":
                self.tail.append((i, e))
        self.tail.sort()
        self.se.sort()
        self.damaged: list[tuple[int, int]] = []
        if at:
            dmg: set[int] = set()
            for i in at:
                c = tb[i]
                if c == 33:  # "!"
                    if i >= 2 and _DAMAGED_BANG.match(tb, i):
                        dmg.add(i - 2)
                else:
                    rx, shifts = _DAMAGED_CANDS[c]
                    if rx.match(tb, i):
                        dmg.update(i + s for s in shifts if i + s >= 0)
            self.damaged = _damaged_spans(tb, sorted(dmg))


def _damaged_spans(tb: bytes, cands: list[int]) -> list[tuple[int, int]]:
    """Spans of ``_TRIGGER_DAMAGED_P.finditer(tb)``, given every place (sorted) where it can start."""
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


def _word_ok(t: str, tb: bytes, i: int, k: int) -> bool:
    """A trigger word of ``k`` characters at ``i`` stands as a word (see _TRIGGER_WORDS)."""
    return k > 3 or (not (i > 0 and t[i - 1].isalpha() and 65 <= tb[i] <= 90) and not t[i + k : i + k + 1].isalpha())


_P_ENDINGS = ("p", "P", "ps", "p's", "p’s", "value", "values", "Value", "Sig", "Sig.", "trend", "interaction", "heterogeneity", "overall", "difference",
              "tailed)", "sided)")


def _p_before(before: str) -> bool:
    b = before.rstrip()
    if not b.endswith(_P_ENDINGS):
        return False
    return len(b) < 2 or b[-1] not in "pP" or not b[-2].isalnum()  # "η2p = .06" is no p


def _n_before(before: str) -> bool:
    b = before.rstrip()
    return b.endswith(("n", "N")) and (len(b) < 2 or not b[-2].isalpha())


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


def _scan_in(t: str, ranges: list[tuple[int, int]], scan: Any,
             se: list[tuple[int, int]] | None = None) -> list[_Tok]:
    """``scan`` each window of ``t``, offsets moved to ``t``; ``se``: the spans of every standard-error word of ``t``
    (``_Triggers.se``), given to ``scan`` as whether its window holds one (``_has_se_word`` of the window)."""
    toks: list[_Tok] = []
    for a, b in ranges:
        found = scan(t[a:b]) if se is None else scan(t[a:b], _near(se, a, b))
        if not a:
            toks += found
            continue
        for tk in found:
            tk.start += a
            tk.end += a
            d = tk.data
            sp = d.get("spans")
            if sp is not None:
                for k, (x, y) in sp.items():  # the token's own dict: moved in place
                    sp[k] = (x + a, y + a)
            if "ci" in d:
                lvl, lo, hi, cs, ce = d["ci"]
                d["ci"] = (lvl, lo, hi, cs + a, ce + a)
        toks += found
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


def _tokens(t: str, tb: bytes | None = None, trig: _Triggers | None = None) -> list[_Tok]:
    """Scan only where a result can be: around comparators, CI words, ns and estimate names.

    ``tb``: ``t.encode("ascii", "replace")`` when the caller has it (one byte per character: same offsets);
    ``trig``: ``_Triggers(t, tb)`` when the caller has it.
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
        # _p_before / _n_before of the 16 characters before, inlined (a call each per comparator is this loop's cost)
        b = t[i - 16 if i > 16 else 0 : i].rstrip()
        if b.endswith(_P_ENDINGS) and (len(b) < 2 or b[-1] not in "pP" or not b[-2].isalnum()) and not (
                b[-1] == "e" and _STAT_VALUE_END.search(b)):  # "t-value = 2.1" is a t, not a p
            p_r.append((i - 40, i + 40))
        elif not (b.endswith(("n", "N")) and (len(b) < 2 or not b[-2].isalpha())):
            test_r.append((i - 50, i + 45))
    if trig is None:
        trig = _Triggers(t, tb)
    for ms, me in trig.damaged:
        p_r.append((ms - 30, me + 30))
        test_r.append((ms - 50, me + 12))
    for i in trig.ns:
        p_r.append((i - 45, i + 45))
    for i in trig.nsp:
        p_r.append((i - 45, i + 45))
    for i in trig.rej:
        p_r.append((i - 45, i + 140))
    ci_hits = trig.ci
    ci_r = [(i - 16, i + 110) for i in ci_hits]
    # estimates named without a comparator ("OR 2.1 (95% CI ...)", "hazard ratio 0.8; p = .01") sit just
    # before a CI or p-value
    test_r.extend((i - 70, i + 2) for i in ci_hits)
    test_r.extend((a - 45, a + 2) for a, _ in p_r)
    # so are coefficients before their standard error ("coefficient 0.21 (SE 0.05)", "Estimate 0.21, Std. Error
    # 0.05"): a window ends just after each standard-error word (``_scan_coef`` and the test scanner read them)
    # (an SE word with "=" after it lies in that comparator's window already)
    test_r.extend((i - 70, e + 20) for i, e in trig.se if "=" not in t[e : e + 3] and _DIGIT_NEAR.search(t, e, e + 14))
    test_r.extend((i - 60, i + 60) for i in trig.est if _DIGIT_NEAR.search(t, i, i + 30))
    test_w = _merge(test_r, n)
    primary = _dedupe(_scan_in(t, test_w, _scan_tests) + _scan_in(t, _merge(p_r, n), _scan_p)
                      + _scan_in(t, _merge(ci_r, n), _scan_ci)
                      # (_scan_coef finds nothing in a window without a standard error word: those are left out)
                      + (_scan_in(t, [(a, b) for a, b in test_w if _near(trig.se, a, b)], _scan_coef, trig.se)
                         if trig.se else [])
                      + (_scan_in(t, _merge([(i - 140, i + 45) for i in trig.vns], n), _scan_verbal_ns) if trig.vns else [])
                      + (_scan_in(t, _merge([(i - 25, i + 30) for i in trig.var], n), _scan_variance_explained)
                         if trig.var else [])
                      + (_scan_in(t, _merge([(i - 85, i + 80) for i in trig.esz], n), _scan_effect_named)
                         if trig.esz else []))
    if trig.pse:
        # only the windows the pattern matches in (no slicing or call for the many "effect" words without one)
        wins = [(a, b) for a, b in _merge([(i - 40, i + 4) if tb[i] in b")]" else (i - 30, i + 30) if tb[i] == 42
                                           else (i - 2, i + 140) for i in trig.pse], n)
                if _PAREN_COEF_RE.search(t, a, b) or _PAREN_COEF_WORD_RE.search(t, a, b)]
        pse = _scan_in(t, wins, _scan_paren_coef) if wins else []
        # a coefficient the test scanner read already ("B = .026 (.009)") is its
        tests = [(tk.start, tk.end) for tk in primary if tk.kind == "test"]
        primary += [tk for tk in _dedupe(pse) if not any(a < tk.end and tk.start < b for a, b in tests)]
    # estimates with stars and no name ("female -0.087***", "-0.034 (0.015)**"), where no other token is
    starred = [i for i in trig.est if tb[i + 1 : i + 2] == b"*"]  # a digit, then "*"
    closes = [i for i in trig.pse if tb[i] in b")]" and tb[i + 1 : i + 2] == b"*"]
    if starred or closes:
        taken = [(tk.start, tk.end) for tk in primary]
        primary += [tk for tk in _scan_starred(t, starred) + _scan_starred_paren(t, closes)
                    if not any(a < tk.end and tk.start < b for a, b in taken)]
    if not primary:
        return []
    misc_r = []
    # ``_sentence_start(t, lo, start - 30)`` for each token, in order of start: the ranges move right, so only
    # the part of a range after the previous one is searched (the previous answer stands when none is there)
    p_lo = p_hi = p_cut = -1
    for start, end in sorted((tk.start, tk.end) for tk in primary):
        lo, hi = (start - 300 if start > 300 else 0), start - 30
        if p_hi >= 0 and hi >= p_hi and lo >= p_lo:
            j = _sentence_start(t, lo if lo > p_hi - 1 else p_hi - 1, hi)
            if j < 0:
                j = p_cut if p_cut >= lo else -1
        else:
            j = _sentence_start(t, lo, hi)
        p_lo, p_hi, p_cut = lo, hi, j
        k = t.rfind("\n\n", lo, start)
        cut = j if j > k else k
        misc_r.append((cut + 1 if cut >= 0 else lo, end + 60))
    misc = _dedupe(_scan_in(t, _merge(misc_r, n), _scan_misc, trig.se))
    return primary + misc


def parse(text: str, *, descriptives: bool = False) -> list[StatResult]:
    """Every statistical result reported in ``text``, in order, with offsets into ``text`` as given."""
    if not text:
        return []
    norm, offsets, norm_ascii = normalize_ascii(text)
    trig = _Triggers(norm, norm_ascii)
    toks = _tokens(norm, norm_ascii, trig)
    out = [res for res in (_finish(text, norm, offsets, r, trig.tail) for r in group_tokens(norm, toks) if is_kept(r))
           if not _lone_bare_f(res)]
    if descriptives:
        out = _with_standalone_descriptives(text, norm, offsets, _scan_misc(norm), out)
    return out


def _lone_bare_f(r: StatResult) -> bool:
    """A bare "f = ..." (not written "Cohen's f") with nothing inferential (no p, CI or SE) and not planned in a power
    analysis: an f of anything (a function, a frequency), not read as Cohen's f. (Right after a test, "F(2, 206) =
    4.28, p = .015, f = 0.04", an f is that test's effect size and no result of its own.)"""
    return (r.test == "f" and r.test_text == "f" and not r.planned and r.p_comparison is None and r.ci_low is None
            and r.se is None)


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


bind_lazy(globals())  # the patterns above compile on first use (claimtrace.patterns)
