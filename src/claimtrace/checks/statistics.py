"""Built-in checks on the statistics: consistency, imprecise p, marginal wording, effect sizes, GRIM/GRIMMER, df vs N, power.

Each check reads the engine's results (``CheckContext.stats``, from ``analyze_document``) and the Document's
sentences, and returns rows located at the sentence (offsets into ``body_text``/``abstract_text``). The
arithmetic is in ``claimtrace.checks.formulas``; docs/checks.md describes every check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property
from typing import ClassVar

from claimtrace.checks import formulas
from claimtrace.checks.base import (
    Check,
    CheckContext,
    CheckRow,
    Location,
    NamedCheck,
    Severity,
    lowered,
    rows_or_ok,
    sentence_location,
)
from claimtrace.cues import TEST_FAMILIES
from claimtrace.documents.model import _FIGURE_LABEL, AbstractSection, Document, Paragraph, Sentence
from claimtrace.lexicons import pattern, patterns
from claimtrace.stats import mentions_one_tailed
from claimtrace.stats.model import EFFECT_SIZES, DocumentStat, EffectSize


# ---------------------------------------------------------------------------------------------
# helpers
class _Sentences:
    """The Document's sentences by id and by scope, for locating rows and reading a result's sentence."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.by_id: dict[str, Sentence] = {}
        self.order: list[Sentence] = []
        self.paragraph: dict[str, str] = {}
        #: body paragraphs that are a figure's legend left in the body by the conversion ("Fig. 2. Prediction of ...")
        self.legends: set[str] = set()
        units: list[AbstractSection | Paragraph] = [*doc.abstract, *doc.paragraphs]
        for unit in units:
            if isinstance(unit, Paragraph) and _FIGURE_LABEL.match(unit.text):
                self.legends.add(unit.id)
            for s in unit.sentences:
                self.by_id[s.id] = s
                self.order.append(s)
                self.paragraph[s.id] = unit.id

    def text(self, scope: str) -> str:
        return self.doc.abstract_text if scope == "abstract" else self.doc.body_text

    def sentence_of(self, r: DocumentStat) -> Sentence | None:
        return self.by_id.get(r.unit_id or "")

    def sentence_text(self, r: DocumentStat) -> str:
        s = self.sentence_of(r)
        return s.text if s is not None else r.text


def _sentences(context: CheckContext) -> _Sentences:
    """The paper's sentence index, built once for all the statistics checks."""
    return context.shared("statistics.sentences", lambda: _Sentences(context.document))


def _loc(r: DocumentStat, sents: _Sentences) -> Location:
    s = sents.sentence_of(r)
    return Location(scope="abstract" if r.scope == "abstract" else "body", unit_id=r.unit_id, start=r.start,
                    end=r.end, page=s.page if s is not None else None, section=r.section)


def _result_row(check: str, r: DocumentStat, sents: _Sentences, severity: Severity, message: str, guidance: str,
                text: str | None, data: dict[str, object]) -> CheckRow:
    """A row about one result, located at it."""
    return CheckRow(check=check, severity=severity, message=message, guidance=guidance, location=_loc(r, sents),
                    text=text, data=data)


def _as_written(r: DocumentStat) -> str:
    return " ".join(r.text.split())


def _results(ctx: CheckContext) -> list[DocumentStat]:
    """The reported results (planned effect sizes of power analyses left out)."""
    return [r for r in ctx.stats if not r.planned]


def _p_text(r: DocumentStat) -> str:
    if r.p_comparison == "ns":
        return "ns"
    p = r.spans["p"].text if "p" in r.spans else (f"{r.p_value:g}" if r.p_value is not None else "?")
    return f"p {r.p_comparison} {p}"


_DOUBT_FLAG = re.compile(r"repair|damag|garbl|lost|read as", re.I)


def _doubts(r: DocumentStat) -> list[str]:
    """Why the text a verdict rests on is doubtful: the engine's repairs and damage flags, and a χ² whose symbol
    the conversion printed as a Latin c ("c 2 (2) = 11.97")."""
    out = [*r.repaired, *(f for f in r.flags if _DOUBT_FLAG.search(f))]
    name = r.spans["test"].text if "test" in r.spans else ""
    if r.test == "chi2" and name[:1] in ("c", "C"):
        out.append(f"χ² printed as '{name}' (a damaged symbol) read as χ²")
    return out


class _PerResultCheck(NamedCheck):
    """A check that reads each reported result on its own: ``row`` gives its row or None; ``ok`` when none."""

    ok_message: ClassVar[str]

    def row(self, r: DocumentStat, sents: _Sentences) -> CheckRow | None:
        """The row about one result (None: nothing to report)."""
        raise NotImplementedError

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per result that ``row`` reports."""
        sents = _sentences(context)
        rows = [row for r in _results(context) if (row := self.row(r, sents)) is not None]
        return rows_or_ok(rows, self.id, self.ok_message)


# ---------------------------------------------------------------------------------------------
# consistency and decision errors
#: df of the widest t reference allowed for a coefficient with an SE and no df (as ``stats.tables.UNKNOWN_DF``)
UNKNOWN_DF = 20
# cue patterns: resources/lexicons/checks.statistics.yaml
_ADJUSTED = pattern("checks.statistics", "ADJUSTED")


_ADJUST_WORDS = ("bonferroni", "holm", "tukey", "sidak", "šidák", "scheff", "benjamini", "discovery", "fdr", "correct",
                 "adjust", "multiplicity")


def _adjusts(text: str) -> bool:
    """Whether a text says that p-values are adjusted for multiple comparisons (``_ADJUSTED``)."""
    low = text.lower()
    return any(w in low for w in _ADJUST_WORDS) and _ADJUSTED.search(text) is not None


def _paper_adjusts(doc: Document) -> bool:
    """``_adjusts`` over the paper's paragraphs (none of its phrases spans two), each asked only when it holds one
    of the words every phrase has."""
    return any(_adjusts(p.text) for p in doc.paragraphs)


def _reported_p_interval(r: DocumentStat) -> tuple[float, float] | None:
    """The p interval the report allows: "= .038" -> [.0375, .0385], "< .05" -> [0, .05], "> .05" -> [.05, 1]."""
    if r.p_value is None or r.p_comparison in (None, "ns"):
        return None
    if r.p_comparison in ("<", "<="):
        return 0.0, r.p_value
    if r.p_comparison in (">", ">="):
        return r.p_value, 1.0
    h = formulas.half_unit(r.spans["p"].text) if "p" in r.spans else 0.0005
    return r.p_value - h, r.p_value + h


def _coefficient_p_range(r: DocumentStat) -> tuple[float, float] | None:
    """p of a coefficient and its SE (no df) over the rounding of both, from the normal to t(UNKNOWN_DF); an
    estimate written as a bound ("b < 0.001") allows any smaller one."""
    from claimtrace.stats import compute_p

    if r.se is None or r.value is None or r.df1 is not None or "value" not in r.spans or "se" not in r.spans:
        return None
    hv, hs = formulas.half_unit(r.spans["value"].text), formulas.half_unit(r.spans["se"].text)
    v = abs(r.value)
    z_lo = 0.0 if r.comparison in ("<", "<=") else max(v - hv, 0.0) / (r.se + hs)
    z_hi = (v + hv) / (r.se - hs) if r.se - hs > 0 else float("inf")
    lo_p = compute_p("z", z_hi, None, None, one_tailed=r.one_tailed) if z_hi != float("inf") else 0.0
    hi_p = compute_p("t", z_lo, UNKNOWN_DF, None, one_tailed=r.one_tailed)
    if lo_p is None or hi_p is None:
        return None
    return lo_p, min(1.0, hi_p)


def _test_p_range(q: DocumentStat) -> tuple[float, float] | None:
    """p of a test statistic over the rounding of its printed value (two-tailed)."""
    from claimtrace.stats import compute_p

    if q.test is None or q.value is None or "value" not in q.spans:
        return None
    h = formulas.half_unit(q.spans["value"].text)
    ps = [compute_p(q.test, max(abs(q.value) + d, 0.0), q.df1, q.df2, n=q.n) for d in (-h, h)]
    if ps[0] is None or ps[1] is None:
        return None
    return min(ps[0], ps[1]), max(ps[0], ps[1])


_RESAMPLED = pattern("checks.statistics", "RESAMPLED")


def _excuse(r: DocumentStat, paragraph: str, paper_adjusts: bool, before: DocumentStat | None,
            sentence: str = "") -> str | None:
    """Why an inconsistency the engine found is not a reporting error after all (None: it is one).

    ``before``: the result just before ``r`` in its sentence; ``paper_adjusts``: the paper says somewhere that
    it adjusts p-values for multiple comparisons; ``sentence``: the result's sentence."""
    rep = _reported_p_interval(r)
    if rep is None:
        return None
    if ("ootstrap" in sentence or "ermutation" in sentence or "andomi" in sentence) and _RESAMPLED.search(sentence):
        return ("its sentence says the p comes from a bootstrap or permutation procedure, not from the statistic's "
                "reference distribution")
    rng = _coefficient_p_range(r)
    if rng is not None and formulas.overlaps(rng, rep):
        return (f"the p fits the coefficient and its SE with a t reference (df unknown; p between {rng[0]:.3g} "
                f"and {rng[1]:.3g})")
    if (r.se is not None and before is not None and before.p_comparison is None and before.df1 is not None
            and r.start - before.end < 30):
        prev = _test_p_range(before)
        if prev is not None and formulas.overlaps(prev, rep):
            return f"the p belongs to the test just before it ({_as_written(before)}), which has no p of its own"
    if r.computed_p is not None and rep[1] >= r.computed_p:
        if _adjusts(paragraph):
            return "the paragraph adjusts p for multiple comparisons and the reported p is above the unadjusted one"
        if paper_adjusts and r.test == "t":  # pairwise comparisons: the paper's statement covers them
            return "the paper adjusts p for multiple comparisons and the reported p is above the unadjusted one"
    return None


# an equivalence test: the paper names the procedure, and the result's paragraph tests against a bound (a non-zero
# effect size) rather than zero: "did not overlap with an effect size (d z ) of -0.35, t(248.4) = 2.01, p = .023"
_TOST_PAPER = re.compile(r"\bTOST\b|two[- ]one[- ]sided|equivalence\s+(?:test|bound|margin|range|interval)", re.I)
_TOST_HERE = re.compile(r"equivalen|\bTOST\b|\bbounds?\b|\bSESOI\b|smallest\s+effect\s+size\s+of\s+interest"
                        r"|effect\s+size\s*(?:\([^)]{0,12}\)\s*)?of\s*[±+\-−–]?\s*\d*\.\d+", re.I)


def _fits_one_tailed(r: DocumentStat) -> bool:
    rep = _reported_p_interval(r)
    if rep is None or r.computed_p is None or r.one_tailed or r.test not in ("t", "z", "r"):
        return False
    half = r.computed_p / 2
    return rep[0] <= half * 1.1 and half * 0.9 <= rep[1]


class ConsistencyCheck(NamedCheck, id="consistency", title="Statistical consistency and decision errors"):
    """The engine's verdicts: a reported p that its test statistic and df cannot give, and decision errors."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per inconsistent result (``error`` for a decision error, ``warn`` otherwise)."""
        sents = _sentences(context)
        rows: list[CheckRow] = []
        checked = 0
        results = _results(context)
        doc = context.document
        paper_adjusts: bool | None = None  # read once, at the first inconsistency
        mentions: bool | None = None  # the paper says one-tailed somewhere: read once, when a p fits one
        tost: bool | None = None  # the paper names an equivalence test (TOST): read once, when a p fits one-tailed
        for r in results:
            if r.consistent is None:
                continue
            checked += 1
            if r.consistent:
                scoped = [f for f in r.flags if f.startswith("one-tailed as stated in its ") and "sentence" not in f]
                if scoped:  # the p is one-tailed by a statement beyond its sentence: say where
                    rows.append(_result_row(
                        self.id, r, sents, "info",
                        f"consistent as a one-tailed test: {_as_written(r)} ({scoped[0]})",
                        "State at the result that its p is one-tailed.", _as_written(r),
                        {"test": r.test, "reported_p": _p_text(r), "computed_p": r.computed_p,
                         "one_tailed_scope": scoped[0], "decision_error": False}))
                continue
            doubts = _doubts(r)
            decision = bool(r.decision_error)
            if paper_adjusts is None:
                paper_adjusts = _paper_adjusts(doc)
            unit = context.document.paragraph_of(r.paragraph_id) if r.paragraph_id else None
            same = [q for q in results if q.unit_id == r.unit_id and q.end <= r.start]
            excuse = _excuse(r, unit.text if unit is not None else sents.sentence_text(r), paper_adjusts,
                             same[-1] if same else None, sents.sentence_text(r))
            if excuse is None and _fits_one_tailed(r):
                if tost is None:
                    tost = _TOST_PAPER.search(doc.body_text) is not None
                if tost and _TOST_HERE.search(unit.text if unit is not None else sents.sentence_text(r)):
                    excuse = "an equivalence test (two one-sided tests) the paper states: its p is one-sided"
            if excuse is not None:
                rows.append(_result_row(
                    self.id, r, sents, "info", f"not counted as inconsistent: {_as_written(r)} ({excuse})",
                    "Say how p was computed (reference distribution, df, adjustment).", _as_written(r),
                    {"test": r.test, "reported_p": _p_text(r), "computed_p": r.computed_p, "excused": excuse,
                     "decision_error": False, "engine_decision_error": decision}))
                continue
            what = "decision error" if decision else "inconsistent p-value"
            if r.computed_p is not None:
                msg = f"{what}: {_as_written(r)} gives p = {r.computed_p:.3g}"
            else:
                msg = f"{what}: {_as_written(r)}: no df gives this p"
            if doubts:
                msg += f" (read from repaired or doubtful text: {'; '.join(doubts)})"
            one_tailed_fit = _fits_one_tailed(r)
            if one_tailed_fit:
                if mentions is None:
                    mentions = mentions_one_tailed(doc.body_text)
                msg += ("; the p fits a one-tailed test, which the text does not state for this result"
                        + (" (it mentions one-tailed tests elsewhere)" if mentions else ""))
            guidance = ("The reported p is on the other side of alpha from the p the test statistic gives: check "
                        "the statistic, the df and the p." if decision else
                        "The reported p does not follow from the test statistic and df, allowing for rounding: "
                        "check which of them is mistyped.")
            if doubts:
                guidance += " The text was damaged or repaired here; compare with the original before acting."
            rows.append(_result_row(self.id, r, sents, "error" if decision else "warn", msg, guidance, _as_written(r),
                                    {"test": r.test, "value": r.value, "df1": r.df1, "df2": r.df2,
                                     "reported_p": _p_text(r), "computed_p": r.computed_p,
                                     "decision_error": decision, "one_tailed": r.one_tailed,
                                     "doubtful_text": doubts, "fits_one_tailed": one_tailed_fit,
                                     "flags": r.flags}))
        return rows_or_ok(rows, self.id, f"{checked} results checked, all consistent")


# ---------------------------------------------------------------------------------------------
# imprecise p-values
_LEGEND_SENTENCE = pattern("checks.statistics", "LEGEND_SENTENCE")
_LEGEND_WORDS = ("asterisk", "dagger", "symbol", "i.e.")
# a p bound right next to another with only spaces between: a plot's legend or scale ("p > .05 p < .05 p < .025"),
# not a result
_P_BOUND = r"\bp\s*[<>=≤≥]\s*0?\.\d+"
_P_BOUND_BEFORE = re.compile(_P_BOUND + r"[ \t\n]*$")
_P_BOUND_AFTER = re.compile(r"[ \t\n]*" + _P_BOUND)
_P_VALUES_RULE = re.compile(r"p[- ]?values\b", re.I)
_THRESHOLD_BEFORE = re.compile(r"\b(?:threshold|criterion|cut-?off|critical\s+p(?:[- ]value)?|alpha(?:\s+level)?|α)"
                               r"\s*(?:of|at|was|=)?\s*[(\[]?\s*$", re.I)


def _legend_p(r: DocumentStat, sents: _Sentences) -> bool:
    """A p that is a figure's or table's star legend ("*p < .05, **p < .01"), a run of bare bounds (a plot's
    legend), a threshold ("i.e., p < .05"), or a bare p in a figure's legend that the conversion left in the body
    ("Blue points index predictions that were significant (p < .050)": what a mark means, not a result)."""
    if r.test is None and sents.paragraph.get(r.unit_id or "") in sents.legends:
        return True
    if "p_full" in r.spans and _P_VALUES_RULE.match(r.spans["p_full"].text):
        return True  # "we interpreted p values of .05 and above as ...": a rule about p values, not a result
    text = sents.text(r.scope)
    start = r.spans["p_full"].start if "p_full" in r.spans else r.start
    if _THRESHOLD_BEFORE.search(text, max(0, start - 30), start):
        return True  # "our preregistered threshold (p < .025)": the level a result is judged by
    before = text[max(0, start - 3):start].rstrip()
    if before.endswith(("*", "†", "‡", "§", "#")):
        return True
    if "p_full" in r.spans and (_P_BOUND_BEFORE.search(text, max(0, start - 16), start)
                                or _P_BOUND_AFTER.match(text, r.spans["p_full"].end)):
        return True  # a run of bare p bounds: a funnel plot's contour legend
    sentence = sents.sentence_text(r)
    low = sentence.lower()
    if not any(w in low for w in _LEGEND_WORDS):
        return False  # quick: none of the words of _LEGEND_SENTENCE
    return bool(_LEGEND_SENTENCE.search(sentence))


class ImprecisePCheck(_PerResultCheck, id="imprecise_p", title="Imprecise p-values"):
    """p-values given as a bound ("p < .05", "p > .05") or as "ns" where an exact value could be reported."""

    ok_message: ClassVar[str] = "every p is exact or below .001"

    def row(self, r: DocumentStat, sents: _Sentences) -> CheckRow | None:
        """A row for a p reported as a bound above .001 or as "ns"."""
        cmp, p = r.p_comparison, r.p_value
        if cmp is None or _legend_p(r, sents):
            return None
        if not (cmp == "ns" or (cmp in ("<", "<=") and p is not None and p > 0.001 + 1e-12) or cmp in (">", ">=")):
            return None
        return _result_row(self.id, r, sents, "warn", f"imprecise p: {_p_text(r)}",
                           "Report the exact p (two or three decimals); only below .001 is 'p < .001' usual.",
                           _as_written(r), {"p_comparison": cmp, "p_value": p, "computed_p": r.computed_p})


# ---------------------------------------------------------------------------------------------
# marginal-significance wording
_MARGINAL_RE = pattern("checks.statistics", "MARGINAL_RE")


# every phrase of _MARGINAL_RE holds one of these (lower case)
_MARGINAL_WORDS = ("significan", "trend")


class MarginalCheck(NamedCheck, id="marginal", title="Marginal-significance wording"):
    """Wording that calls a non-significant result "marginally significant", "a trend towards"..."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per phrase, attached to the result of its sentence (else of the next sentence)."""
        sents = _sentences(context)
        by_unit: dict[str, list[DocumentStat]] = {}
        for r in _results(context):
            if r.unit_id:
                by_unit.setdefault(r.unit_id, []).append(r)
        rows: list[CheckRow] = []
        order = sents.order
        for i, s in enumerate(order):
            low = s.text.lower()
            if not any(w in low for w in _MARGINAL_WORDS):
                continue  # quick: no word every phrase of _MARGINAL_RE holds
            for m in _MARGINAL_RE.finditer(s.text):
                cands = [r for r in by_unit.get(s.id, []) if r.p_comparison is not None]
                if not cands and i + 1 < len(order) and sents.paragraph[order[i + 1].id] == sents.paragraph[s.id]:
                    cands = [r for r in by_unit.get(order[i + 1].id, []) if r.p_comparison is not None]
                pos = s.start + m.start()
                target = min(cands, key=lambda r: abs(r.start - pos)) if cands else None
                data: dict[str, object] = {"phrase": m.group(0)}
                msg = f"marginal-significance wording: '{m.group(0)}'"
                if target is not None:
                    data.update({"result": _as_written(target), "p_comparison": target.p_comparison,
                                 "p_value": target.p_value, "result_unit_id": target.unit_id})
                    msg += f" about {_as_written(target)}"
                else:
                    # no result to attach it to: the wording may describe one (or be about the idea itself): a note
                    msg += " (no result with a p in its sentence or the next)"
                loc = sentence_location(s, body_only=True)
                loc.start, loc.end = s.start + m.start(), s.start + m.end()
                rows.append(CheckRow(
                    check=self.id, severity="warn" if target is not None else "info", message=msg,
                    guidance="Describe a result above alpha as not significant; report its exact p and effect size "
                             "rather than calling it marginal or a trend.",
                    location=loc, text=s.text, data=data))
        return rows_or_ok(rows, self.id, "no marginal-significance wording")


# ---------------------------------------------------------------------------------------------
# t and F tests without an effect size
_EFFECT_WORD = pattern("checks.statistics", "EFFECT_WORD")


class EffectSizeMissingCheck(NamedCheck, id="effect_size_missing",
                             title="t and F tests without an effect size"):
    """t and F tests that report no effect size in their sentence."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per t or F test (with df) whose sentence gives no effect size."""
        sents = _sentences(context)
        with_effect: set[str] = set()
        for r in _results(context):
            if r.unit_id and (r.effects or r.test in EFFECT_SIZES or r.test in ("b", "beta", "OR")):
                with_effect.add(r.unit_id)
        rows: list[CheckRow] = []
        n_tests = 0
        for r in _results(context):
            if r.kind != "test" or r.test not in ("t", "F") or r.df1 is None:
                continue
            n_tests += 1
            if r.effects or (r.unit_id in with_effect):
                continue
            if _EFFECT_WORD.search(sents.sentence_text(r)):
                continue
            rows.append(_result_row(
                self.id, r, sents, "warn", f"no effect size with {_as_written(r)}",
                "Report an effect size with its CI (d or g for t tests, partial η² or ω² for F tests).",
                _as_written(r), {"test": r.test}))
        return rows_or_ok(rows, self.id, f"{n_tests} t and F tests, each with an effect size")


# ---------------------------------------------------------------------------------------------
# effect sizes that do not fit their test
_PAIRED, _INDEPENDENT = patterns("checks.statistics", "PAIRED", "INDEPENDENT")


def _design(sentence: str) -> str | None:
    paired, indep = bool(_PAIRED.search(sentence)), bool(_INDEPENDENT.search(sentence))
    if paired == indep:
        return None
    return "paired" if paired else "independent"


def _effect_measure(measure: str, text: str) -> str:
    if measure == "d" and re.search(r"d\s?_?z\b", text):
        return "d_z"
    if measure == "d" and re.search(r"d\s?_?(?:av|rm)\b", text):
        return "d_av"
    return measure


class EffectSizeFitCheck(NamedCheck, id="effect_size_fit", title="Effect sizes that do not fit their test"):
    """Effect sizes that their own test cannot give: d vs t and df, r vs t, partial η² vs F and its dfs."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per effect size outside the interval that its test statistic (rounding included) allows."""
        sents = _sentences(context)
        rows: list[CheckRow] = []
        checked = 0
        results = _results(context)
        for i, r in enumerate(results):
            effects = list(r.effects)
            nxt = results[i + 1] if i + 1 < len(results) else None
            if (r.test == "t" and nxt is not None and nxt.test == "r" and nxt.df1 is None and nxt.unit_id == r.unit_id
                    and 0 <= nxt.start - r.end < 30 and "value" in nxt.spans):
                # "t(38) = 2.50, p = .017, r = .38": the r is the t test's effect size (a result of its own)
                effects.append(EffectSize(measure="r", value=nxt.value or 0.0, start=nxt.start, end=nxt.end,
                                          text=_as_written(nxt)))
            if r.test not in ("t", "F") or r.df1 is None or "value" not in r.spans or not effects:
                continue
            if r.test == "F" and r.df2 is None:
                continue
            design = _design(sents.sentence_text(r)) if r.test == "t" else None
            for e in effects:
                measure = _effect_measure(e.measure, e.text)
                num = formulas.number_in(e.text.split("=")[-1]) if "=" in e.text else None
                if num is None:
                    continue
                want = formulas.expected_effect(measure, r.test, r.spans["value"].text, r.df1, r.df2, design)
                if want is None:
                    continue
                checked += 1
                got = formulas.interval(num)
                got_abs = (min(abs(got[0]), abs(got[1])), max(abs(got[0]), abs(got[1])))
                if got[0] < 0 < got[1]:
                    got_abs = (0.0, got_abs[1])
                if formulas.overlaps(want, got_abs):
                    continue
                shown = (f"{want[0]:.3f}-{want[1]:.3f}" if want[1] != float("inf") else f"at least {want[0]:.3f}")
                rows.append(_result_row(
                    self.id, r, sents, "warn",
                    f"{e.text.strip()} does not fit {r.test} = {r.spans['value'].text} with df "
                    f"{r.df1:g}{'' if r.df2 is None else f', {r.df2:g}'} (expected {shown})",
                    "Check the effect size against the test statistic; say how it was computed (e.g. d_z "
                    "or d_av for paired designs, partial or generalized η²).", _as_written(r),
                    {"measure": measure, "reported": float(num), "expected_low": want[0],
                     "expected_high": None if want[1] == float("inf") else want[1], "design": design,
                     "test": r.test}))
        return rows_or_ok(rows, self.id, f"{checked} effect sizes checked against their test, all fit")


# ---------------------------------------------------------------------------------------------
# GRIM and GRIMMER
_INTEGER_MEASURE = re.compile(
    r"\b(?:number|count|numbers|counts)\s+of\b|\bsingle[- ]item\b|\bone[- ]item\b|\b(?:a|one)\s+(?:single\s+)?item\b"
    r"|\bitems?\s*\(\s*k\s*=\s*(?P<k>\d+)\s*\)|\b(?P<k2>\d+|one|two|three|four|five|six|seven|eight|nine|ten)[- ]items?\b",
    re.I)
_WORD_NUM = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10}
_M_SD_N = re.compile(
    r"\bM\s*=\s*(?P<m>\d*\.\d+|\d+)\s*,\s*SD\s*=\s*(?P<sd>\d*\.\d+|\d+)(?:\s*,\s*n\s*=\s*(?P<n>\d+))?")
_SUM_SCALE = pattern("checks.statistics", "SUM_SCALE")


def _items(sentence: str) -> int | None:
    """How many integer items a mean is over, where the sentence says the measure is integer-valued."""
    low = sentence.lower()
    if "item" not in low and "number" not in low and "count" not in low:
        return None  # quick: none of the words of _INTEGER_MEASURE
    m = _INTEGER_MEASURE.search(sentence)
    if m is None:
        return None
    k = m.group("k") or m.group("k2")
    if k is None:
        return 1
    return int(k) if k.isdigit() else _WORD_NUM[k.lower()]


class GrimCheck(NamedCheck, id="grim", title="GRIM and GRIMMER (means and SDs of integer data)"):
    """GRIM and GRIMMER on means and SDs of integer-valued measures (counts, items) with their n."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per "M = x, SD = y, n = k" in a sentence that says the measure is integer-valued."""
        doc = context.document
        rows: list[CheckRow] = []
        tested = 0
        units: list[AbstractSection | Paragraph] = [*doc.abstract, *doc.paragraphs]
        for unit in units:
            for s in unit.sentences:
                if "SD" not in s.text:
                    continue  # quick: no "M = x, SD = y" to test
                items = _items(s.text)
                if items is None or (_SUM_SCALE.search(s.text) and items > 1):
                    continue
                n_sent = None
                mn = re.search(r"\b[Nn]\s*=\s*(\d+)\b", s.text)
                if mn:
                    n_sent = int(mn.group(1))
                for m in _M_SD_N.finditer(s.text):
                    n = int(m.group("n")) if m.group("n") else n_sent
                    if n is None:
                        continue
                    mean, sd = float(m.group("m")), float(m.group("sd"))
                    md, sdd = formulas.decimals(m.group("m")), formulas.decimals(m.group("sd"))
                    g = formulas.grim(mean, n, md, items)
                    if g is None:
                        continue
                    tested += 1
                    gm = formulas.grimmer(mean, sd, n, md, sdd, items) if g else None
                    if g and gm is not False:
                        continue
                    what = "GRIM" if not g else "GRIMMER"
                    loc = sentence_location(s, getattr(unit, "section", None), body_only=True)
                    loc.start, loc.end = s.start + m.start(), s.start + m.end()
                    rows.append(CheckRow(
                        check=self.id, severity="warn",
                        message=f"{what}: {m.group(0)} is not possible for n = {n} integer responses"
                                f"{'' if items == 1 else f' over {items} items'}",
                        guidance="The mean (GRIM) or SD (GRIMMER) cannot come from integer data of this n; check "
                                 "the n, the mean and the SD.",
                        location=loc, text=s.text,
                        data={"mean": mean, "sd": sd, "n": n, "items": items, "grim": g, "grimmer": gm}))
        return rows_or_ok(rows, self.id, f"{tested} means of integer measures tested, all possible")


# ---------------------------------------------------------------------------------------------
# df that cannot fit the stated N
_MULTILEVEL = pattern("checks.statistics", "MULTILEVEL")


class DfSampleCheck(_PerResultCheck, id="df_vs_n", title="df that cannot fit the stated N"):
    """t tests (and F tests with one numerator df) whose df exceed what the sample of the sentence allows."""

    ok_message: ClassVar[str] = "every df fits its stated N"

    def row(self, r: DocumentStat, sents: _Sentences) -> CheckRow | None:
        """A row for a t(df) or F(1, df) with df > N - 1 for the N stated with it or in its sentence."""
        from claimtrace.stats import stated_samples

        df = r.df1 if r.test == "t" else r.df2 if r.test == "F" and r.df1 == 1 else None
        if df is None or df != int(df) or r.n_per_group:
            return None
        sentence = sents.sentence_text(r)
        if _MULTILEVEL.search(sentence):
            return None
        ns = stated_samples(sentence) if r.n is None else (r.n,)
        if len(ns) != 1 or df <= ns[0] - 1:
            return None
        n = ns[0]
        return _result_row(self.id, r, sents, "warn", f"{_as_written(r)}: df {df:g} does not fit N = {n} (at most "
                           f"{n - 1})", "A t test on N participants has at most N - 1 df; check the N and the df, or "
                           "say which sample the test used.", sentence, {"df": df, "n": n, "test": r.test})


# ---------------------------------------------------------------------------------------------
# a p with no test statistic
_TEST_WORDS, _NO_STAT_OK = patterns("checks.statistics", "TEST_WORDS", "NO_STAT_OK")
# a statistic of a test the engine does not name, right before the p: "dip = 0.023, p = .018"
# ("z = --0.19, p = 0.849": GROBID writes a PDF's minus as "--")
_STAT_BEFORE = re.compile(r"[A-Za-z][\w'’ ]{0,20}\s*[=:]\s*(?:--|[-−])?\d*\.?\d+\s*[,;]\s*$")


class PWithoutTestCheck(_PerResultCheck, id="p_without_test", title="p-values without a test statistic"):
    """A p-value reported with no test statistic in a sentence that reports a test."""

    ok_message: ClassVar[str] = "every p comes with its test statistic"

    def row(self, r: DocumentStat, sents: _Sentences) -> CheckRow | None:
        """A row for a p with no statistic, no CI and no effect size, in a sentence naming a test."""
        if r.kind != "p" or r.test is not None or r.ci_low is not None or r.effects or r.p_comparison is None:
            return None
        if r.p_comparison == "ns" or re.search(r"\bps\b|\ball\b|\bboth\b|\beach\b", r.text) or _legend_p(r, sents):
            return None
        sentence = sents.sentence_text(r)
        if not _TEST_WORDS.search(sentence) or _NO_STAT_OK.search(sentence):
            return None
        text = sents.text(r.scope)
        start = r.spans["p_full"].start if "p_full" in r.spans else r.start
        before = text[max(0, start - 40):start]
        if _STAT_BEFORE.search(before) or re.search(r"\b(?:all|both|each|every)\b[^.;()]*$", before):
            return None  # "dip = 0.023, p = .018": an unknown test's statistic; "all correlations: p < ...": a summary
        return _result_row(self.id, r, sents, "warn", f"{_p_text(r)} with no test statistic",
                           "Report the test statistic and its df with the p (e.g. t(28) = 2.20, p = .036).",
                           sentence, {"p_comparison": r.p_comparison, "p_value": r.p_value})


# ---------------------------------------------------------------------------------------------
# power analyses
_POWER_TRIGGER = pattern("checks.statistics", "POWER_TRIGGER")
# every phrase of _POWER_TRIGGER holds one of these (lower case); "β" only in "1 − β ="
_POWER_WORDS = ("power", "pwr", "simr", "β", "pangea")
_ONE_MINUS_BETA = re.compile(r"1\s*[-−–]\s*β\s*=", re.I)


def _power_trigger(text: str) -> bool:
    """Whether a sentence holds a phrase of _POWER_TRIGGER (quick: a regression's β alone runs one small pattern)."""
    low = text.lower()
    if any(w in low for w in ("power", "pwr", "simr", "pangea")):
        return _POWER_TRIGGER.search(text) is not None
    return "β" in low and _ONE_MINUS_BETA.search(text) is not None
_POWER_TYPE = [
    ("a priori", re.compile(r"a[- ]priori|prospective|to\s+determine\s+(?:the\s+)?(?:required\s+)?sample", re.I)),
    ("sensitivity", re.compile(r"sensitivity", re.I)),
    ("post hoc", re.compile(r"post[- ]hoc|observed\s+power|retrospective|achieved\s+power", re.I)),
    ("simulation", re.compile(r"simulat|simr|Monte\s+Carlo|Superpower", re.I)),
]
# the test a power analysis plans for: the test families' names (claimtrace.cues), with the design words that name
# one in a power analysis ("a paired design", "the interaction", "two proportions") and equivalence tests
_POWER_TEST_LABEL = {"t": "t test", "anova": "ANOVA", "chi2": "chi-square"}
_POWER_TEST_DESIGN = {"t": r"paired|independent[- ]samples", "anova": r"interaction|F[- ]tests?|main\s+effect",
                      "chi2": r"proportion", "mixed model": r"mixed[- ]effects?|mixed\s+model"}
_POWER_TEST = [(_POWER_TEST_LABEL.get(name, name),
                re.compile(words.pattern + (f"|{_POWER_TEST_DESIGN[name]}" if name in _POWER_TEST_DESIGN else ""),
                           re.I))
               for name, words, _symbols in TEST_FAMILIES]
_POWER_TEST.append(("equivalence", re.compile(r"equivalence|TOST", re.I)))
_POWER_ES = re.compile(
    r"(?<![A-Za-z])(?P<metric>Cohen'?s\s+d|d\s?_?z|d|f\s?2|Cohen'?s\s+f|f|η\s*p?\s*2|ηp2|partial\s+η2|η2|r|ρ|OR|w|"
    r"g|h|R\s?2)\s*(?:=|of|≥)\s*(?P<v>[-−]?\d*\.\d+|\d+)", re.I)
# "an effect size (d) of 0.5", "effect size (f 2 ) of .40", "effect size of d = 0.4"
_POWER_ES_NAMED = re.compile(
    r"effect\s+sizes?\s*(?:\(\s*(?P<metric>[^()]{1,12}?)\s*\)|of\s+(?P<metric2>[A-Za-zηρ][\w ]{0,6}?)\s*=)"
    r"\s*(?:of|=|≥)?\s*(?P<v>[-−]?\d*\.\d+|\d+)", re.I)
_POWER_ES_WORD = re.compile(r"(?P<metric>small|medium|moderate|large)(?:[- ]sized?)?\s+"
                            r"(?:(?:between|within)[- ]\w+\s+|interaction\s+|main\s+)?effect", re.I)
# "an effect as small as 0.15", "effects of at least .30": a planned size whose metric the sentence does not name
_POWER_ES_BARE = re.compile(r"\beffects?(?:\s+sizes?)?\s+(?:as\s+small\s+as|of\s+at\s+least)\s+(?P<v>\d*\.\d+)", re.I)
_NUM_WORDS = {w: i for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}
_NUM_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90})
_NUM_WORD = r"(?:" + "|".join(sorted(_NUM_WORDS, key=len, reverse=True)) + r")"
# the effect a trial is powered for in raw units: "a difference of 180 mL", "an absolute risk reduction of 6%", "a
# difference in mean score of five points", "a 28% difference", "a twofold higher mortality"
_POWER_ES_RAW = re.compile(
    r"\b(?:difference|reduction|increase|decrease|improvement|change|shift)s?\s+(?:(?:in|of|between)\s+[^,;:()]{1,60}?\s+)??"
    rf"(?:of|=|by)\s+(?:approximately\s+|about\s+|at\s+least\s+|(?:just\s+)?(?:over|under)\s+|±\s*)?(?P<v>[-−]?\d+(?:\.\d+)?|{_NUM_WORD})\b"
    # "a 28% difference", "a 60 mL difference", "a 5-point difference", "a (absolute) 15% incremental increase"
    r"|(?P<v2>\d+(?:\.\d+)?)\s?(?:%|[A-Za-zμ]{1,6}\b|-point)?\)?\s*(?:or\s+(?:greater|more|larger)\s+)?(?:[a-z]+\s+)?"
    r"(?:difference|reduction|increase|decrease"
    r"|effect|improvement)"
    r"|\b(?P<v3>two|three|four|five|ten|\d+(?:\.\d+)?)[- ]?fold\b"
    # "a hazard ratio (HR; sunitinib/capecitabine) of 0.75", "an equivalence limit of ±1.5 mm Hg"
    r"|effect\s+sizes?\s*(?:=|of|is)\s*(?P<v6>\d*\.?\d+)\b"
    # two group means: "0.60 ng/mL for the postconditioning group and of 0.75 ng/mL for the control group"
    r"|(?P<g1>\d+(?:\.\d+)?)\s*(?!(?:participants|patients|subjects|people|children|women|men|infants|students|"
    r"individuals|adults)\b)[^\s\d,;][^\s,;]{0,13}\s+for\s+(?:the\s+)?[\w -]{0,40}?\b(?:group|arm)(?:\s+\w+)?,?\s+and\s+(?:of\s+)?"
    r"(?P<g2>\d+(?:\.\d+)?)"
    r"|(?:relative\s+risk|(?:hazard|odds|risk|rate)\s+ratio)(?:\s*\([^()]{0,40}\))?\s+(?:of|=)\s+(?P<v4>\d*\.\d+)"
    r"|(?:equivalence|non-?inferiority)\s+(?:limit|margin)s?\s+(?:of|=)\s+±?\s*(?P<v5>\d+(?:\.\d+)?)"
    # a change between two values: "a reduction in CAT score from 3 to 2"
    r"|\b(?:difference|reduction|increase|decrease|improvement|change|shift)s?\s+(?:in\s+[^,;:()]{1,60}?\s+)?"
    r"from\s+(?P<h1>\d+(?:\.\d+)?)\s?%?\s+to\s+(?P<h2>\d+(?:\.\d+)?)"
    # "the difference between the persistence rate (62%) ... and a rate of 70%": two rates named apart
    r"|difference\s+between\s+[^.;]{0,80}?\(?(?P<r1>\d+(?:\.\d+)?)\s?%\)?[^.;%]{0,80}?\band\b[^.;%]{0,80}?"
    r"(?P<r2>\d+(?:\.\d+)?)\s?%"
    # a list of differences, one per outcome: "differences ... (38.1 for ER; 21.5 for PgR; and 64.4 for Ki67)"
    r"|differences\b[^.]{0,80}?\(\s*(?P<l1>\d+(?:\.\d+)?)\s*%?\s+for\s+[^();]{1,30};"
    # a standardised difference in SD units: "[0.5 standard deviation (SD) effect size]", "a 0.4 SD difference"
    r"|(?P<sd>\d*\.?\d+)\s+(?:standard\s+deviations?|SDs?)(?:\s*\(SD\))?\s+(?:effect|difference)"
    # the precision of an estimated proportion: "the error level of 0.1", "a margin of error of 5%"
    r"|(?:margin\s+of\s+error|error\s+(?:level|margin)|absolute\s+precision)\s+(?:of|=)\s+±?\s*(?P<pr>\d*\.?\d+)"
    # two rates: "from 20% to 35%", "10% in the control group versus 20%", "70% for treatment and 8% for placebo"
    r"|(?P<f1>\d+(?:\.\d+)?)\s?%\s+(?:\([^()]{1,40}\)\s+|(?:for|in|with)\s+(?:the\s+)?\S+(?:\s+\S+){0,3}?\s+)?"
    r"(?:and|vs\.?|v\.?|versus|to|compared\s+with)\s+(?P<f2>\d+(?:\.\d+)?)\s?%(?!\s*(?:statistical\s+)?power)", re.I)
# Cohen's conventions listed ("small, medium, and large effects"): a definition, not the planned size
_POWER_ES_CONVENTIONS = re.compile(r"small\W+(?:\w+\W+){0,3}?medium\W+(?:\w+\W+){0,3}?large", re.I)
_POWER_N_BACK = pattern("checks.statistics", "POWER_N_BACK")
# metrics bounded by 1: a larger value is a percentage or another quantity ("R2 = 52.6"), not the planned size
_POWER_ES_BOUNDED = re.compile(r"^(?:r|ρ|R\s?2|η\s*p?\s*2|ηp2|partial\s+η2|η2)$", re.I)
_VAL = r"(?:0?\.\d+|\d{1,2}(?:\.\d+)?\s?%)"  # a rate as a decimal or a percentage
_SIDED = r"(?:\(?(?:two|one|2|1)[-‐– ]?(?:sided|tailed)\)?\s+)?"
# a value that can be an alpha (at most .10 or 10%): "80%, significance level of 5%" holds the power before the level
_ALPHA_VAL = r"(?<![\d.])(?:0?\.0\d*|0?\.10?(?!\d)|\d(?:\.\d+)?\s?%|10\s?%)"
_POWER_ALPHA = re.compile(r"(?:α|alpha)(?:\s+level)?\s*(?:=|of|at|set\s+(?:at|to))?\s*(?P<v>0?\.\d+)"
                          r"|(?:significance|alpha)\s+(?:level|criterion|threshold)\s+(?:\((?:α|alpha)\)\s+)?(?:of|at|=)\s*"
                          r"(?P<v2>0?\.\d+)"
                          r"|(?:at|with)\s+(?:an?\s+)?(?:p|α)\s*[<=]\s*(?P<v3>0?\.\d+)"
                          r"|(?P<pct>\d(?:\.\d+)?)\s?%\s+(?:significance|alpha|α)\s+level"
                          r"|(?:significance|alpha)\s+level\s+of\s+(?P<pct2>\d(?:\.\d+)?)\s?%"
                          # "a type I error rate of 0.05", "type 1 error rate controlled at 0.05", "type I error of 5%"
                          rf"|type[\s-]+(?:I|1|one)\s+error(?:\s+(?:rate|probability|level))?\s*(?:\(\s*α\s*\)\s*)?"
                          rf"(?:of|=|at|was|is|controlled\s+at|set\s+(?:at|to))?\s*(?:less\s+than\s+|α\s*=\s*)?(?P<a1>{_VAL})"
                          # "5% two-sided significance", "5% probability of type 1 error", "0.05 α-value", "5% alpha error"
                          rf"|(?P<a2>{_VAL})\s+{_SIDED}(?:probability\s+of\s+(?:a\s+)?type\s+(?:I|1)\s+error"
                          r"|type\s+(?:I|1)\s+error|significance|alpha|α)"
                          # "at the .05 level", "at a two-sided 5% level"; "statistical significance of 0.05"
                          rf"|at\s+(?:a|the)\s+{_SIDED}(?P<a3>{_VAL})\s+(?:significance\s+)?level"
                          rf"|significan(?:ce|t)\s+(?:level\s+)?(?:of|=|at)\s*(?:p\s*[<=]\s*)?(?P<a4>{_VAL})"
                          # "5% level of significance", "(0.05, 2-sided significance level)", "two-sided p value of 0.05"
                          rf"|(?P<a7>{_ALPHA_VAL})\s*,?\s+{_SIDED}(?:level\s+of\s+significance|significance\s+level)"
                          rf"|{_SIDED}p[- ]?value\s+(?:of|=)\s*(?P<a8>{_VAL})"
                          # "a false positive error rate of 0.05": the type I error in other words
                          rf"|false[- ]positive(?:\s+(?:error|rate|probability))*\s*(?:of|=|at)?\s*(?P<a10>{_VAL})"
                          # "(80% power, p = 0.05)": the p of a parameter list after the power
                          r"|power\s*,\s*(?:two-sided\s+)?p\s*[=<]\s*(?P<a9>0?\.\d+)"
                          # "an alpha of 5%", "alpha error of 0.05", "alpha set at p<0.05", "level of significance set at 5%"
                          rf"|(?:α|alpha)(?:\s+(?:error|level|value|risk))?\s*(?:=|of|at|set\s+(?:at|to)|equal\s+to)?\s*(?:p\s*[<=]\s*)?(?P<a5>{_VAL})"
                          rf"|level\s+of\s+significance\s+(?:set\s+)?(?:of|at|=)?\s*(?:p\s*[<=]\s*)?(?P<a6>{_VAL})", re.I)
_POWER_LEVEL = re.compile(r"(?P<pct>\d{2,3}(?:\.\d+)?)\s?%\s+(?:statistical\s+)?power|(?P<dec>0?\.\d{1,3})\s+power\b"
                          r"|power\s*(?:\(1\s*[-−–]\s*β\)\s*)?(?:of|=|at|level\s+of|was|≥)\s*"
                          r"(?:(?:greater|more|higher)\s+than\s+|at\s+least\s+|over\s+|>\s*)?"
                          r"(?P<v>0?\.\d+|\d{2,3}(?:\.\d+)?\s?%)(?!\d|\s*±)"
                          r"|1\s*[-−–]\s*β\s*=\s*(?P<b>0?\.\d+)"
                          r"|power\s+was\s+(?:calculated|estimated|computed)\s+(?:as|to\s+be|at)\s+(?P<c>0?\.\d+)", re.I)
_PEOPLE = (r"participants|subjects|people|respondents|children|adults|students|individuals|volunteers|undergraduates"
           r"|infants|couples|dyads|patients|women|men|mothers|families|practices|eyes")
_POWER_N = re.compile(r"(?<![A-Za-z])[Nn]\s*=\s*(?P<n>\d[\d,]*)|(?:sample(?:\s+size)?|total)\s+of\s+(?P<n2>\d[\d,]*)"
                      rf"|(?P<n3>\d[\d,]*|\b{_NUM_WORD})\s+(?:{_PEOPLE}|(?:per|in\s+each)\s+(?:group|condition|cell|arm))"
                      rf"|(?P<n4>\d[\d,]*)\s+(?:[A-Za-z-]+\s+){{1,4}}(?:{_PEOPLE})"
                      r"|total\s+number\s+of\s+(?P<n6>\d[\d,]*)"
                      r"|(?:recruit|need|require|test)(?:ed|s)?\s+(?:data\s+from\s+)?(?:at\s+least\s+|approximately\s+|about\s+"
                      r"|a\s+(?:minimum|total)\s+of\s+)?(?P<n5>\d[\d,]*)(?![\d.,]*\s*%)\b", re.I)
_POWER_SOFTWARE = re.compile(r"G\s?\*\s?Power(?:\s+\d(?:\.\d+)*)?|\bpwr\b|\bsimr\b|\bSuperpower\b|\bWebPower\b|"
                             r"\bPANGEA\b|\bMorePower\b|\bpwrss\b|\bInteractionPoweR\b|\bsemPower\b|\bSAS\b|"
                             r"\bPASS\b|\bpowerlmm\b|\bmixedpower\b", re.I)


# the power given as its type II error: "a beta error of 20 %", "β=0.2", "a type II error rate of 0.10" (at most .5,
# not "1 − β = .80"): the power is 1 − β
_POWER_BETA = re.compile(r"(?<![-−–])(?<![-−–]\s)(?:β|beta|type[\s-]+(?:II|2|two)\s+error)(?:\s+(?:error|rate|level|probability))*"
                         rf"\s*(?:\(\s*β\s*\)\s*)?(?:=|of|at|was|is|set\s+(?:at|to))?\s*(?P<v>{_VAL})", re.I)
# a confidence level stated with the power, in the same sentence: its alpha ("95% CI and 80% power")
_CONFIDENCE_LEVEL = r"9[059](?:\.\d+)?"  # a confidence level in percent: 90, 95, 99, 99.9
_POWER_CONFIDENCE = re.compile(rf"(?P<c>{_CONFIDENCE_LEVEL})\s?%\s+(?:confidence|CI)\b"
                               rf"|confidence(?:\s+interval|\s+level)?\s*(?:=|of)\s*(?P<c2>{_CONFIDENCE_LEVEL})\s?%",
                               re.I)
# a confidence level printed as the significance level ("considering a 95% level of significance and a power of
# 80%"): its alpha is 1 - level (.05), never .95
_SIGNIFICANCE_AS_CONFIDENCE = re.compile(rf"(?<![\d.])(?P<c>{_CONFIDENCE_LEVEL})\s?%\s+(?:level\s+of\s+(?:statistical\s+)?"
                                         r"significance|significance(?:\s+level)?\b)", re.I)
# SPSS's "observed power = .955" printed with a test result: part of the result, not a power analysis
_OBSERVED_POWER = re.compile(r"observed\s+power\s*=", re.I)
_TEST_RESULT = re.compile(r"\b[Ftχ]\s*2?\s*\(\s*\d|\bp\s*[<=>]\s*0?\.\d")
# a parameter list whose power is printed "p" or "β": "(d = 0.45, α = .05, p = .95)", "(α = .05, β = 0.80)" (right
# after α, .50 or more: no planned p, nor a type II error rate of .80)
_POWER_AS_P = re.compile(r"(?:α|alpha)\s*=\s*0?\.\d+\s*,\s*(?:p|β|beta)\s*=\s*(?P<v>0?\.[5-9]\d*)(?!\d)", re.I)
_POWER_SUBJECT = pattern("checks.statistics", "POWER_SUBJECT")


def _about_power(doc: Document) -> bool:
    """Whether the paper's subject is statistical power: its title and abstract name it at least twice."""
    return len(_POWER_SUBJECT.findall(f"{doc.title or ''}\n{doc.abstract_text}")) >= 2


_ELSEWHERE = pattern("checks.statistics", "ELSEWHERE")
_OTHER_STUDY = re.compile(r"\boriginal\s+(?:study|studies|experiment|research)\b", re.I)
_OTHER_TRIGGER, _OWN_STUDY = patterns("checks.statistics", "OTHER_TRIGGER", "OWN_STUDY")


# a field's trace: a broad, recall-oriented detector of any way the field can be written, run on the power analysis's
# paragraph and the paragraph before. A field is reported missing (warn) only when its trace is absent there; a field
# with a trace that the precise reader above could not read is "stated but not read" (info). One table, as data.
_NUM = r"(?<![\w.])\d+(?:[.,]\d+)?"
_COUNT = r"(?<![\w.])\d[\d,]*(?![\d.,]*\s?%)"  # a count: no percentage
FIELD_TRACES: dict[str, tuple[str, ...]] = {
    "alpha": (r"α", r"\balpha\b", r"\balfa\b", r"\ban?\s+a\s+(?:of|=|level)", r"\btype[\s-]*(?:I|1|one)\b(?![I\w])",
              r"significance\s+(?:level|threshold|criterion)", r"level\s+of\s+(?:statistical\s+)?significance",
              r"(?:two|one)[- ]?(?:sided|tailed)\s+(?:P|p)\b", r"false[- ]positive",
              r"confidence\s+level", r"\d\s?%\s+(?:level\s+of\s+)?(?:significance|confidence(?!\s+intervals?))",
              r"(?:significan|false[- ]positive)[^.;]{0,40}?(?<![\w.])0?\.\d"),
    "n": (_COUNT + r"\s+(?:[\w-]+\s+){0,3}?(?:participants|patients|subjects|individuals|persons|people|women|men|"
          r"children|infants|adults|volunteers|cases|controls|students|respondents|couples|pairs|eyes|mothers)\b",
          _COUNT + r"\s+(?:[\w-]+\s+){0,3}?(?:per|in\s+each|for\s+each|each)\s+(?:group|arm|condition|cell)",
          r"sample\s+sizes?\s+(?:of|was|is|=|would\s+be|were|needed|required)[^.;]{0,40}?" + _COUNT,
          r"total\s+(?:sample\s+)?of\s+" + _COUNT, r"(?<![A-Za-z])[Nn]\s*=\s*\d",
          r"(?:enrol+|recruit|randomi[sz]|includ|need|requir)\w*\s+(?:[\w-]+\s+){0,3}?" + _COUNT
          + r"\b(?!\s*(?:years?|weeks?|days?|months?))"),
    "power": (r"\bpower\b[^.;]{0,60}?(?<![\w.])(?:0?\.\d|\d{2,3}(?:\.\d+)?\s?%|one|two|three|four)",
              r"(?<![\w.])(?:0?\.\d+|\d{2,3}(?:\.\d+)?\s?%)\s+(?:[\w-]+\s+){0,2}?power", r"β", r"\bbeta\b",
              r"1\s*[-−–]\s*(?:β|b)\b", r"\btype[\s-]*(?:II|2|two)\b"),
    "effect_size": (r"(?<![A-Za-z])(?:d|f|g|r|h|w|OR|RR|HR|ES|R2|R²|f2|f²)\s*[=≥≤<>]", r"η|eta[- ]?squared|omega",
                    r"(?:effect\s+sizes?|odds\s+ratio|risk\s+ratio|hazard\s+ratio|relative\s+risk|differen|reduc|"
                    r"increas|decreas|improve|\bchange\b|\bSD\b|standard\s+deviation|\brates?\b|\bdelta\b|Δ|δ)"
                    r"[^.;]{0,50}?(?<![\w.])\d",
                    r"(?<![\w.])\d+(?:\.\d+)?\s?%?\s+(?:[\w-]+\s+){0,2}?(?:differen|reduc|increas|decreas|improve|"
                    r"change|effect|SD\b|standard\s+deviation)",
                    r"\b(?:small|medium|moderate|large)(?:-sized|\s+to\s+\w+)?\s+effect", r"Cohen"),
}
_TRACES = {k: re.compile("|".join(f"(?:{p})" for p in v), re.I) for k, v in FIELD_TRACES.items()}


def field_traces(text: str) -> set[str]:
    """The power-analysis fields ``text`` shows any trace of (the broad detectors of ``FIELD_TRACES``)."""
    return {k for k, rx in _TRACES.items() if rx.search(text)}


_POWER_POINTER = pattern("checks.statistics", "POWER_POINTER")
# a section that discusses power rather than reporting this study's analysis
_DISCUSSION = re.compile(r"discussion|limitation|conclusion|strengths", re.I)


def _power_effect_size(text: str) -> tuple[str, float] | None:
    """The first planned effect size with a value in ``text`` (metric, value), skipping out-of-range bounded ones."""
    for rx in (_POWER_ES_NAMED, _POWER_ES):
        for m in rx.finditer(text):
            metric = re.sub(r"\s+", " ", m.group("metric") or (m.groupdict().get("metric2") or "")).strip()
            value = float(m.group("v").replace("−", "-"))
            if _POWER_ES_BOUNDED.match(metric) and abs(value) > 1:
                continue  # "R2 = 52.6": a percentage, not a planned r or η²
            return metric, value
    b = _POWER_ES_BARE.search(text)
    if b:
        return "unnamed", float(b.group("v"))
    raw = _POWER_ES_RAW.search(text)
    if raw and raw.group("f1"):
        return "difference of rates", round(abs(float(raw.group("f2")) - float(raw.group("f1"))), 4)
    if raw and raw.group("r1"):
        return "difference of rates", round(abs(float(raw.group("r2")) - float(raw.group("r1"))), 4)
    if raw and raw.group("h1"):
        return "difference of means", round(abs(float(raw.group("h2")) - float(raw.group("h1"))), 4)
    if raw and raw.group("l1"):
        return "differences (one per outcome)", float(raw.group("l1"))
    if raw and raw.group("sd"):
        return "SD units", float(raw.group("sd"))
    if raw and raw.group("pr"):
        return "precision", float(raw.group("pr"))
    if raw and raw.group("g1"):
        return "difference of means", round(abs(float(raw.group("g2")) - float(raw.group("g1"))), 4)
    if raw:
        v = next(g for g in (raw.group(k) for k in ("v", "v2", "v3", "v4", "v5", "v6")) if g).lower()
        return "raw difference", float(_NUM_WORDS[v]) if v in _NUM_WORDS else float(v.replace("−", "-"))
    return None


#: every alternative of _POWER_ALPHA holds one of these (lower case): a quick filter before it
_ALPHA_WORDS = ("α", "alpha", "signific", "type", "level", "value", "false", "<", "=")
#: the same for _POWER_SOFTWARE
_SOFTWARE_WORDS = ("power", "pwr", "simr", "pangea", "sas", "pass")


class _PowerFields:
    """The fields of a power analysis read from one text (a sentence), each read when first asked (a record takes
    each field from the first sentence that states it, so most are never read on the sentences after)."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def type(self) -> str | None:
        return next((name for name, rx in _POWER_TYPE if rx.search(self.text)), None)

    @cached_property
    def test(self) -> str | None:
        return next((name for name, rx in _POWER_TEST if rx.search(self.text)), None)

    @cached_property
    def effect(self) -> tuple[str, float] | None:
        return _power_effect_size(self.text)

    @property
    def effect_size(self) -> float | None:
        return self.effect[1] if self.effect else None

    @property
    def effect_metric(self) -> str | None:
        return self.effect[0] if self.effect else None

    @cached_property
    def effect_word(self) -> str | None:
        if _POWER_ES_CONVENTIONS.search(self.text) or (w := _POWER_ES_WORD.search(self.text)) is None:
            return None
        return w.group("metric").lower()

    @cached_property
    def low(self) -> str:
        return self.text.lower()

    @cached_property
    def alpha(self) -> float | None:
        text = self.text
        a = _POWER_ALPHA.search(text) if any(w in self.low for w in _ALPHA_WORDS) else None
        if a:
            pct = a.group("pct") or a.group("pct2")  # "at the 5% significance level"
            if pct:
                return float(pct) / 100
            raw = next(g for g in (a.group(k) for k in ("v", "v2", "v3", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8",
                                                         "a9", "a10")) if g)
            return float(raw.rstrip("% ")) / 100 if "%" in raw else float(raw)
        if (c := _SIGNIFICANCE_AS_CONFIDENCE.search(text)) is not None:
            return round(1 - float(c.group("c")) / 100, 4)  # "a 95% level of significance": alpha .05
        if self.power is not None and (c := _POWER_CONFIDENCE.search(text)) is not None:
            return round(1 - float(c.group("c") or c.group("c2")) / 100, 4)  # "(95% CI and 80% power)"
        return None

    @cached_property
    def power(self) -> float | None:
        text = self.text
        p = _POWER_LEVEL.search(text)
        if p:
            raw = p.group("pct") or p.group("dec") or p.group("v") or p.group("b") or p.group("c")
            val = float(raw.rstrip("% "))
            return val / 100 if val > 1 else val
        if (q := _POWER_AS_P.search(text)) is not None:  # "(d = 0.45, α = .05, p = .95)": power misprinted as p
            return float(q.group("v"))
        if (b := _POWER_BETA.search(text)) is not None:  # "a beta error of 20 %": power 1 − β
            raw_b = b.group("v")
            beta = float(raw_b.rstrip("% ")) / 100 if "%" in raw_b else float(raw_b)
            if beta <= 0.5:
                return round(1 - beta, 4)
        return None

    @cached_property
    def n(self) -> int | None:
        m = _POWER_N.search(self.text)
        if not m:
            return None
        g = next(g for g in m.groups() if g).replace(",", "").lower()
        return _NUM_WORDS[g] if g in _NUM_WORDS else int(g)

    @cached_property
    def software(self) -> str | None:
        s = _POWER_SOFTWARE.search(self.text) if any(w in self.low for w in _SOFTWARE_WORDS) else None
        if not s:
            return None
        return re.sub(r"\s+", "", s.group(0)) if "power" in s.group(0).lower() else s.group(0)


_FIELD_NAMES = ("type", "test", "effect_size", "effect_metric", "alpha", "power", "n", "software", "effect_word")


def _power_fields(text: str) -> dict[str, object]:
    """The fields of a power analysis read from one text (a sentence); ``effect_size`` numeric before a word."""
    f = _PowerFields(text)
    return {k: getattr(f, k) for k in _FIELD_NAMES}


#: fields a setup sentence before the power analysis can state ("We recruited 40 participants."); its test and type
#: words are about something else ("correlations between variables are in Table S6")
_BEFORE_FIELDS = ("effect_size", "alpha", "power", "n", "software")


def _power_record(text: str | list[str], before: str | None = None) -> dict[str, object]:
    """The fields of a power analysis: each from the first of its sentences (the trigger, then the ones after) that
    states it, then from the sentence ``before`` (its N, effect size, α, power and software only)."""
    sents = [text] if isinstance(text, str) else list(text)
    per = [_PowerFields(t) for t in sents]
    prev = _PowerFields(before) if before else None
    rec: dict[str, object] = {"type": None, "test": None, "effect_size": None, "effect_metric": None, "alpha": None,
                              "power": None, "n": None, "software": None}
    order = per + ([prev] if prev is not None else [])
    for k in ("type", "test", "alpha", "power", "n", "software"):
        pool = order if k in _BEFORE_FIELDS else per
        rec[k] = next((v for f in pool if (v := getattr(f, k)) is not None), None)
    for t, f in zip(sents, per, strict=True):  # the first sentence with an N, or one that points back to the sample before
        if f.n is not None:
            break
        if prev is not None and prev.n is not None and _POWER_N_BACK.search(t):
            rec["n"] = prev.n
            break
    src = next((f for f in order if f.effect_size is not None), None)  # a value anywhere before a word
    if src is not None:
        rec["effect_size"], rec["effect_metric"] = src.effect_size, src.effect_metric
    elif (w := next((f.effect_word for f in order if f.effect_word is not None), None)) is not None:
        rec["effect_metric"], rec["effect_size"] = "conventional", w
    return rec


class PowerCheck(NamedCheck, id="power", title="Power analyses"):
    """Power analyses as records (type, test, effect size and metric, α, power, N, software); incomplete ones warned."""

    def run(self, context: CheckContext) -> list[CheckRow]:
        """One row per paragraph with a power analysis: ``info`` when complete, ``warn`` naming what is missing."""
        doc = context.document
        rows: list[CheckRow] = []
        subject: bool | None = None  # the paper is about power: read at its first power analysis
        low = lowered(context)
        for i, par in enumerate(doc.paragraphs):
            if not any(w in low[par.id] for w in _POWER_WORDS):
                continue  # quick: no power word in the paragraph
            first = next((s for s in par.sentences if _power_trigger(s.text)), None)
            if first is None or (_OBSERVED_POWER.search(first.text) and _TEST_RESULT.search(first.text)):
                continue  # no power analysis; or SPSS's observed power printed with a test result
            elsewhere = _ELSEWHERE.search(first.text)
            discussion = par.section_kind == "discussion" or _DISCUSSION.search(par.section or "")
            if discussion and not elsewhere:
                continue  # power discussed, not this study's analysis (quick: before the record is read)
            # the sentence before the trigger and the rest of the paragraph (the analysis, then the sample it gave)
            idx = par.sentences.index(first)
            window = " ".join(s.text for s in par.sentences[max(0, idx - 1):])
            rec = _power_record([s.text for s in par.sentences[idx:]],
                                before=par.sentences[idx - 1].text if idx else None)
            prev = doc.paragraphs[i - 1] if i > 0 else None
            if (rec["effect_size"] is None and prev is not None and prev.section == par.section
                    and not _POWER_TRIGGER.search(prev.text)):  # not a power analysis of its own
                argued = _PowerFields(prev.text)  # the effect size the paragraph before argues for (a value, or a word)
                es = argued.effect or (("conventional", argued.effect_word) if argued.effect_word else None)
                if es is not None:
                    rec["effect_metric"], rec["effect_size"] = es
                    rec["effect_size_from"] = "the paragraph before"
            missing = [k for k in ("effect_size", "alpha", "power", "n") if rec[k] is None]
            if rec["power"] is None and rec["effect_size"] is None:
                if not elsewhere:
                    continue  # a mention of power, not an analysis
                missing = []
            elif discussion or (_POWER_POINTER.search(first.text) and rec["effect_size"] is None):
                continue  # power discussed, or a pointer to the analysis elsewhere: not a power analysis record
            elif not _OWN_STUDY.search(window) or _OTHER_STUDY.search(window) or _OTHER_TRIGGER.search(first.text):
                continue  # power in general (a discussion) or of another study, not this study's analysis
            if subject is None:
                subject = _about_power(doc)
            # a field the reader could not parse is no missing field: warn only where the broad detectors find no
            # trace of it in the paragraph or the paragraph before
            # (the paragraph before only where it is no power analysis of its own)
            around = prev.text if prev is not None and not _POWER_TRIGGER.search(prev.text) else ""
            traces = field_traces(par.text + " " + around) if missing else set()
            unread = [k for k in missing if k in traces]
            lacking = [k for k in missing if k not in unread]
            severity: Severity = "warn" if lacking and not subject else "info"
            msg = "power analysis: " + ", ".join(f"{k} {v}" for k, v in rec.items() if v is not None)
            if lacking:
                msg += f"; missing {', '.join(lacking)}"
            if unread:
                msg += f"; stated but not read: {', '.join(unread)}"
            elif elsewhere and rec["power"] is None and rec["effect_size"] is None:
                msg = "power analysis reported elsewhere (supplement or preregistration)"
            if subject:
                msg += " (the paper is about statistical power: a power word may be its subject, not an analysis)"
            rows.append(CheckRow(
                check=self.id, severity=severity, message=msg,
                guidance="A power analysis should state its type, test, effect size (and metric) with its source, "
                         "alpha, power and the resulting N, and the software used.",
                location=sentence_location(first, par.section, body_only=True), text=window,
                data={**rec, "missing": lacking, "unread": unread}))
        return rows_or_ok(rows, self.id, "no power analysis found")


def _checks() -> Iterable[Check]:
    return [ConsistencyCheck(), ImprecisePCheck(), MarginalCheck(), EffectSizeMissingCheck(), EffectSizeFitCheck(),
            GrimCheck(), DfSampleCheck(), PWithoutTestCheck(), PowerCheck()]


CHECKS: list[Check] = list(_checks())
