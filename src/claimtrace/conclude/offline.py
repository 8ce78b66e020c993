"""The offline method (no LLM): result sentences -> statistics engine -> significance and direction.

1. Retrieve candidate sentences (abstract and body, each paper its uniform quota) for the question.
2. Rank them by how much of the outcome they name, then by the retriever's score.
3. For each candidate read the **significance** from the statistics engine (p-values, CIs that
   exclude or include the null, tests checked by recomputation) and from wording ("significantly",
   "no significant difference", "did not differ", "similar"...), and the **direction** from direction
   words (higher / lower, increased / reduced...), oriented by which arm the sentence makes its
   subject (the intervention, or the comparator: then the direction is flipped), or else from an
   effect estimate (ratio < 1, difference < 0) or two group values in the order the arms are named.
4. The first candidates that give a clear answer decide; when they disagree or nothing is clear the
   method abstains with ``insufficient evidence``.

EI label semantics: the label describes the intervention's effect on the outcome relative to the
comparator ("significantly increased": the outcome is higher with the intervention).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from claimtrace.conclude.model import INSUFFICIENT, Estimate, Question
from claimtrace.conclude.papers import Paper, Passage
from claimtrace.cues import (
    DECREASE,
    IMPROVE,
    INCREASE,
    NULL_STATEMENT,
    SIGNIFICANCE,
    STOP_WORDS,
    p_significance,
)
from claimtrace.lexicons import patterns
from claimtrace.stats import StatResult, analyze
from claimtrace.stats.model import RATIO_TESTS

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_STOP = STOP_WORDS | frozenset([
    "administered", "administration", "alone", "arm", "arms", "daily", "day", "days", "dose", "doses", "g",
    "given", "giving", "include", "including", "kg", "mg", "ml", "once", "patient", "percentage", "plus",
    "proportion", "receive", "received", "receiving", "same", "score", "scores", "therapy", "treated",
    "treatment", "twice", "use", "using", "week", "weeks"
])
_GENERIC_CONTROL = ("placebo", "control", "controls", "usual", "standard", "sham", "conventional", "no treatment")

# cue patterns: resources/lexicons/conclude.offline.yaml
_REF, _RATIO_WORDS, _WITHIN = patterns("conclude.offline", "REF", "RATIO_WORDS", "WITHIN")
_BETWEEN = re.compile(r"\bbetween[- ](?:the\s+)?(?:two\s+)?(?:groups?|arms?|treatments?)\b|\bbetween\b.{0,60}\band\b", re.I)


def _stem(tok: str) -> str:
    return tok[:6] if len(tok) > 6 else tok


def content_tokens(text: str) -> list[str]:
    """Lower-cased, stemmed-by-prefix content tokens (numbers and stop words dropped)."""
    out = []
    for t in _TOKEN.findall(text.lower()):
        for part in [t, *t.split("-")] if "-" in t else [t]:
            if part in _STOP or part.isdigit() or len(part) < 2:
                continue
            out.append(_stem(part))
    return out


@dataclass
class Arms:
    """Distinctive tokens of each arm (tokens both arms share are dropped)."""

    intervention: set[str]
    comparator: set[str]
    generic_ok: bool = True  # "intervention group" / "control group" name the arms

    @classmethod
    def from_question(cls, q: Question) -> Arms:
        """Build from the question's arm descriptions."""
        i, c = set(content_tokens(q.intervention)), set(content_tokens(q.comparator))
        shared = (i & c) | set(content_tokens(q.outcome))  # outcome words name neither arm
        i, c = i - shared, c - shared
        low = q.comparator.lower()
        for g in _GENERIC_CONTROL:
            if g in low:
                c |= {_stem(x) for x in g.split()}
        generic = bool(_GENERIC_C.search(q.comparator)) or not _GENERIC_C.search(q.intervention)
        return cls(i, c, generic)


def _token_spans(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(text.lower()):
        t = m.group(0)
        parts = [t, *t.split("-")] if "-" in t else [t]
        for p in parts:
            if p in _STOP or p.isdigit() or len(p) < 2:
                continue
            out.append((_stem(p), m.start(), m.end()))
    return out


@dataclass
class Reading:
    """What one sentence says about the question."""

    passage: Passage
    coverage: float
    significant: bool | None = None
    direction: int = 0  # +1 outcome higher with the intervention, -1 lower, 0 unknown
    how: list[str] = field(default_factory=list)
    estimates: list[Estimate] = field(default_factory=list)

    @property
    def label(self) -> str | None:
        """The EI label this sentence supports, or None when it is not clear."""
        if self.significant is False:
            return "no significant difference"
        if self.significant and self.direction:
            return "significantly increased" if self.direction > 0 else "significantly decreased"
        return None


def outcome_coverage(q: Question, text: str) -> float:
    """Share of the outcome's content tokens that the text contains."""
    out = set(content_tokens(q.outcome))
    if not out:
        return 0.0
    have = set(content_tokens(text))
    return len(out & have) / len(out)


def _is_ratio(r: StatResult, text: str) -> bool:
    if r.test in RATIO_TESTS:
        return True
    window = text[max(0, r.start - 60): r.start + 10]
    return bool(_RATIO_WORDS.search(window))


def _stat_significance(results: Sequence[StatResult], text: str) -> tuple[bool | None, list[Estimate], list[str]]:
    sig: bool | None = None
    how: list[str] = []
    ests: list[Estimate] = []
    for r in results:
        this: bool | None = None
        if r.ci_low is not None and r.ci_high is not None and r.value is not None and r.kind in ("estimate", "test"):
            ratio = _is_ratio(r, text)
            null = 1.0 if ratio else 0.0
            lo, hi = min(r.ci_low, r.ci_high), max(r.ci_low, r.ci_high)
            if lo <= r.value <= hi and (not ratio or lo > 0):
                ests.append(Estimate(paper="", text=r.text, value=r.value, ci_low=lo, ci_high=hi, ratio=ratio,
                                     p_value=r.p_value))
                this = not (lo <= null <= hi)
                how.append(f"CI {lo:g} to {hi:g} {'excludes' if this else 'includes'} {null:g}")
        if this is None and r.p_value is not None and r.p_comparison is not None:
            this = p_significance(r.p_comparison, r.p_value)
            if this is not None:
                how.append(f"p {r.p_comparison} {r.p_value:g}")
        if this is None and r.significant is not None and r.kind == "test":
            this = r.significant
            how.append("test recomputed")
        if this is True:
            sig = True
        elif this is False and sig is None:
            sig = False
    return sig, ests, how


_GENERIC_I, _GENERIC_C, _MAGNITUDE = patterns("conclude.offline", "GENERIC_I", "GENERIC_C", "MAGNITUDE")
_CHANGE = re.compile(r"\b(?:(?P<up>increases?|increments?|gains?|rises?|elevations?|improvements?)|"
                     r"(?P<down>decreases?|reductions?|losses|loss|declines?|drops?|falls?))\b", re.I)


def arm_mentions(text: str, arms: Arms) -> list[tuple[int, int]]:
    """(position, +1 intervention / -1 comparator) of every arm mention, in order."""
    out: list[tuple[int, int]] = []
    for stem, start, _ in _token_spans(text):
        if stem in arms.intervention:
            out.append((start, 1))
        elif stem in arms.comparator:
            out.append((start, -1))
    if arms.generic_ok:
        out += [(m.start(), 1) for m in _GENERIC_I.finditer(text)]
        out += [(m.start(), -1) for m in _GENERIC_C.finditer(text)]
    return sorted(set(out))


def _is_ref(text: str, pos: int) -> bool:
    return bool(_REF.search(text[max(0, pos - 40): pos]))


def _orient(text: str, arms: Arms) -> tuple[int, str]:
    """+1 when the sentence's subject is the intervention, -1 when the comparator (the reference)."""
    mentions = arm_mentions(text, arms)
    if not mentions:
        return 1, "no arm named: intervention assumed"
    subj = [m for m in mentions if not _is_ref(text, m[0])]
    refs = [m for m in mentions if _is_ref(text, m[0])]
    if subj:
        sign = subj[0][1]
        return sign, "intervention is the subject" if sign > 0 else "comparator is the subject"
    sign = -refs[0][1]
    return sign, "comparator is the reference" if sign > 0 else "intervention is the reference"


def _direction_word(text: str, skip: set[str]) -> tuple[int, int, str] | None:
    """(+1/-1, position, word) of the direction stated near the first 'significant' (else the first one).

    "greater reduction" / "decrease ... was greater" combine magnitude and change (-1). Plain direction
    words that belong to the outcome's own name ("weight loss", "increased optimism") are skipped.
    """
    sig = SIGNIFICANCE.search(text)
    anchor = sig.start() if sig else 0
    mags = list(_MAGNITUDE.finditer(text))
    changes = list(_CHANGE.finditer(text))
    pairs = []
    for m in mags:
        for c in changes:
            gap = text[min(m.end(), c.end()): max(m.start(), c.start())]
            if abs(m.start() - c.start()) <= 60 and not re.search(r"[;:]|\bthan\b", gap):
                msign = 1 if m.group(0).lower() in ("greater", "more", "larger", "higher", "bigger") else -1
                csign = 1 if c.group("up") else -1
                pairs.append((msign * csign, m.start(), f"{m.group(0)} ~ {c.group(0)}"))
    hits = [(1, m.start(), m.group(0)) for m in INCREASE.finditer(text)]
    hits += [(-1, m.start(), m.group(0)) for m in DECREASE.finditer(text)]
    hits = [h for h in hits if _stem(h[2].lower()) not in skip]
    paired = {p[1] for p in pairs} | {c.start() for c in changes if pairs}
    hits = [h for h in hits if h[1] not in paired]
    cands = pairs + hits
    if not cands:
        weak = [(1, m.start(), m.group(0)) for m in IMPROVE.finditer(text) if _stem(m.group(0).lower()) not in skip]
        return weak[0] if weak else None
    if sig:
        return min(cands, key=lambda h: abs(h[1] - anchor))
    return min(cands, key=lambda h: h[1])


def _nearest(mentions: list[tuple[int, int]], pos: int) -> int:
    return min(mentions, key=lambda m: abs(m[0] - pos))[1]


def _group_values(results: Sequence[StatResult], text: str, arms: Arms) -> tuple[int, str] | None:
    """+1/-1 from two group values, matched to the arms (nearest mention, or the order the arms were named)."""
    mentions = arm_mentions(text, arms)
    for r in results:
        vals = [d for d in r.descriptives if d.kind in ("percent", "mean", "median", "count")]
        for k in ("percent", "mean", "median"):
            vs = [d for d in vals if d.kind == k]
            if len(vs) != 2 or vs[0].value == vs[1].value:
                continue
            arm_of: list[int] = []
            if mentions and all(m[0] < vs[0].start for m in mentions):
                order = list(dict.fromkeys(a for _, a in mentions))
                arm_of = order if len(order) == 2 else []
                how = "values in the order the arms were named"
            elif mentions:
                arm_of = [_nearest(mentions, d.start) for d in vs]
                how = "values matched to the nearest arm"
            if len(arm_of) != 2 or arm_of[0] == arm_of[1]:
                arm_of, how = [1, -1], "no arms matched: first value taken as the intervention's"
            vi = vs[0].value if arm_of[0] == 1 else vs[1].value
            vc = vs[1].value if arm_of[0] == 1 else vs[0].value
            return (1 if vi > vc else -1), f"group values {vi:g} (intervention) vs {vc:g} (comparator), {how}"
    return None


def read_sentence(q: Question, arms: Arms, passage: Passage, alpha: float = 0.05) -> Reading:
    """Significance and direction (relative to the comparator) stated by one sentence."""
    text = passage.text
    rd = Reading(passage=passage, coverage=outcome_coverage(q, text))
    results = analyze(text, alpha=alpha)
    sig, ests, how = _stat_significance(results, text)
    rd.estimates, rd.how = ests, how
    ns_word = NULL_STATEMENT.search(text)
    sig_word = SIGNIFICANCE.search(text)
    within = _WITHIN.search(text)
    between = _BETWEEN.search(text)
    if within and not between:
        # a change within each group (vs baseline) says nothing about intervention vs comparator
        if ns_word and sig is not True:
            rd.significant = False
            rd.how.append(f"wording: '{ns_word.group(0)}'")
        else:
            rd.how.append(f"within-group result ('{within.group(0)}'): not a comparison of the arms")
        return rd
    if ns_word and (sig is not True or within):
        rd.significant = False
        rd.how.append(f"wording: '{ns_word.group(0)}'")
    elif sig is not None:
        rd.significant = sig
    elif sig_word and not ns_word:
        rd.significant = True
        rd.how.append(f"wording: '{sig_word.group(0)}'")
    if not rd.significant:
        return rd
    dw = _direction_word(text, set(content_tokens(q.outcome)))
    if dw is not None:
        sign, why = _orient(text, arms)
        rd.direction = dw[0] * sign
        rd.how.append(f"direction '{dw[2]}', {why}")
        return rd
    for e in ests:
        if e.ratio and e.value != 1.0:
            rd.direction = 1 if e.value > 1.0 else -1
            rd.how.append(f"ratio {e.value:g} vs 1")
            return rd
    gv = _group_values(results, text, arms)
    if gv is not None:
        rd.direction = gv[0]
        rd.how.append(gv[1])
        return rd
    for e in ests:
        if not e.ratio and e.value != 0.0:
            rd.direction = 1 if e.value > 0 else -1
            rd.how.append(f"difference {e.value:g} vs 0")
            return rd
    return rd


@dataclass
class OfflineDecision:
    """The offline method's answer and the sentences it rests on."""

    label: str
    rationale: str
    support: list[Reading]
    readings: list[Reading]
    estimates: list[Estimate]


def decide(q: Question, passages: Sequence[Passage], papers: Sequence[Paper], *, min_coverage: float = 0.34,
           top: int = 3, alpha: float = 0.05) -> OfflineDecision:
    """Read the candidates best-first and answer from the first clear ones; abstain when unsure."""
    arms = Arms.from_question(q)
    readings = [read_sentence(q, arms, p, alpha) for p in passages]
    for rd in readings:
        for e in rd.estimates:
            e.paper = papers[rd.passage.paper].path
    ranked = sorted(readings, key=lambda r: (-round(r.coverage, 2), -r.passage.score))
    relevant = [r for r in ranked if r.coverage >= min_coverage]
    clear = [r for r in relevant if r.label is not None][:top]
    support_first = [r for r in clear if r.label == (clear[0].label if clear else None)] + relevant
    estimates = list({id(e): e for r in support_first for e in r.estimates}.values())
    if not clear:
        vague = [r for r in relevant if r.significant]
        why = ("significant results found but their direction relative to the comparator is unclear"
               if vague else "no sentence naming the outcome reports a clear result")
        return OfflineDecision(INSUFFICIENT, f"Abstained: {why}.", vague[:2], readings, estimates)
    best = clear[0]
    agree = [r for r in clear if r.label == best.label]
    disagree = [r for r in clear if r.label != best.label]
    if disagree and len(disagree) > len(agree) and disagree[0].coverage >= best.coverage:
        return OfflineDecision(
            INSUFFICIENT,
            f"Abstained: the best sentences disagree ({best.label} vs {disagree[0].label}).",
            [best, disagree[0]], readings, estimates,
        )
    assert best.label is not None
    reasons = "; ".join(best.how) or "wording"
    rationale = (f"{best.label.capitalize()}: the sentence naming the outcome best "
                 f"({round(100 * best.coverage)}% of its terms) reports it ({reasons})")
    if len(agree) > 1:
        rationale += f"; {len(agree) - 1} more sentence(s) agree"
    return OfflineDecision(best.label, rationale + ".", agree, readings, estimates)
