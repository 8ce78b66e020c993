"""Evidence component scoring as published: parse evidence into five component types and compare.

Components: variables, effect relationships (direction + significance) and confidence intervals are
set-like — each gives |A| (predicted), |B| (gold) and a fuzzy one-to-one matched |A∩B|; test / model
family and sample size / df are binary — both absent: excluded; gold only: FN; predicted only: FP;
both present and matching: TP; both present and different: FP + FN. Micro P/R/F1 over all items.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal, Protocol, TypeVar, runtime_checkable

from pydantic import Field
from rapidfuzz import fuzz

from claimtrace.documents.model import StrictModel
from claimtrace.metrics import PRF, Counted, micro, prf

Direction = Literal["increase", "decrease", "none"]
COMPONENTS = ("variables", "relationships", "intervals", "test_family", "sample_size")
SET_COMPONENTS = ("variables", "relationships", "intervals")
BINARY_COMPONENTS = ("test_family", "sample_size")

#: rapidfuzz token_set_ratio (0–100) at which two variable names count as the same variable
VARIABLE_MATCH = 80.0


class Relationship(StrictModel):
    """An effect relationship: its direction and whether it is reported significant (None: unsaid)."""

    direction: Direction | None = None
    significant: bool | None = None
    variables: list[str] = Field(default_factory=list)


class Interval(StrictModel):
    """A confidence interval (level in percent; None when the text does not say)."""

    level: float | None = None
    low: float
    high: float


class EvidenceComponents(StrictModel):
    """The five component types parsed from one evidence text."""

    variables: list[str] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    intervals: list[Interval] = Field(default_factory=list)
    #: test / model families named or implied (t, F, chi2, r, z, regression, ratio, nonparametric...)
    test_family: list[str] = Field(default_factory=list)
    #: sample sizes and degrees of freedom as canonical tokens: "N=120", "df=98", "df=1,96"
    sample_size: list[str] = Field(default_factory=list)
    parser: str = "deterministic"


@runtime_checkable
class ComponentParser(Protocol):
    """Parses an evidence text into components (deterministic or LLM-based)."""

    name: str

    def parse(self, text: str) -> EvidenceComponents:
        """The components of ``text``."""
        ...


class ComponentCounts(StrictModel):
    """Counts of one component type for one pair (or summed over a corpus)."""

    pred: int = 0
    gold: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0


class EvidenceScore(Counted):
    """Evidence score: micro P/R/F1 over all component items, with per-component counts."""

    components: dict[str, ComponentCounts]

    def prf(self) -> PRF:
        """The score as a plain PRF."""
        return prf(self.tp, self.fp, self.fn)


# ---- matching ------------------------------------------------------------------------------

T = TypeVar("T")


def match_count(pred: Sequence[T], gold: Sequence[T], same: Callable[[T, T], float | bool]) -> int:
    """|A∩B| under a fuzzy predicate: greedy one-to-one matching, best similarities first."""
    pairs: list[tuple[float, int, int]] = []
    for i, a in enumerate(pred):
        for j, b in enumerate(gold):
            s = same(a, b)
            if s:
                pairs.append((float(s), i, j))
    pairs.sort(key=lambda x: (-x[0], x[1], x[2]))
    used_a: set[int] = set()
    used_b: set[int] = set()
    n = 0
    for _, i, j in pairs:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            n += 1
    return n


def _norm_var(s: str) -> str:
    return " ".join(s.lower().replace("-", " ").split())


def same_variable(a: str, b: str) -> float:
    """Similarity (0 = no match) of two variable names: token-set ratio ≥ VARIABLE_MATCH."""
    x, y = _norm_var(a), _norm_var(b)
    if not x or not y:
        return 0.0
    r = fuzz.token_set_ratio(x, y)
    return r / 100 if r >= VARIABLE_MATCH else 0.0


def same_relationship(a: Relationship, b: Relationship) -> float:
    """Relationships match when direction and significance agree and, where both name variables,
    at least one variable matches."""
    if a.direction != b.direction or a.significant != b.significant:
        return 0.0
    if a.variables and b.variables:
        best = max(same_variable(x, y) for x in a.variables for y in b.variables)
        return best
    return 1.0


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= max(0.011, 0.01 * max(abs(x), abs(y)))


def same_interval(a: Interval, b: Interval) -> float:
    """Intervals match when both bounds agree within rounding (1%, at least 0.011) and the levels
    agree (an unstated level is taken as 95%)."""
    if (a.level or 95.0) != (b.level or 95.0):
        return 0.0
    return 1.0 if _close(a.low, b.low) and _close(a.high, b.high) else 0.0


def binary_counts(pred: Sequence[str], gold: Sequence[str]) -> ComponentCounts:
    """A binary component: excluded / FN / FP / TP / FP+FN (matching = a shared value)."""
    p, g = bool(pred), bool(gold)
    if not p and not g:
        return ComponentCounts()
    if g and not p:
        return ComponentCounts(gold=1, fn=1)
    if p and not g:
        return ComponentCounts(pred=1, fp=1)
    if {x.lower() for x in pred} & {x.lower() for x in gold}:
        return ComponentCounts(pred=1, gold=1, tp=1)
    return ComponentCounts(pred=1, gold=1, fp=1, fn=1)


def _set_counts(pred: Sequence[T], gold: Sequence[T], same: Callable[[T, T], float | bool]) -> ComponentCounts:
    m = match_count(pred, gold, same)
    return ComponentCounts(pred=len(pred), gold=len(gold), tp=m, fp=len(pred) - m, fn=len(gold) - m)


def compare_components(pred: EvidenceComponents, gold: EvidenceComponents) -> EvidenceScore:
    """Score predicted components against gold components."""
    comps = {
        "variables": _set_counts(pred.variables, gold.variables, same_variable),
        "relationships": _set_counts(pred.relationships, gold.relationships, same_relationship),
        "intervals": _set_counts(pred.intervals, gold.intervals, same_interval),
        "test_family": binary_counts(pred.test_family, gold.test_family),
        "sample_size": binary_counts(pred.sample_size, gold.sample_size),
    }
    return _total(comps)


def _total(comps: dict[str, ComponentCounts]) -> EvidenceScore:
    tp = sum(c.tp for c in comps.values())
    fp = sum(c.fp for c in comps.values())
    fn = sum(c.fn for c in comps.values())
    return EvidenceScore(**prf(tp, fp, fn).model_dump(exclude={"tp_gold"}), components=comps)


def micro_evidence(scores: Iterable[EvidenceScore]) -> EvidenceScore:
    """Sum per-component counts over items, then micro P/R/F1."""
    comps = {c: ComponentCounts() for c in COMPONENTS}
    for s in scores:
        for name, c in s.components.items():
            t = comps.setdefault(name, ComponentCounts())
            comps[name] = ComponentCounts(pred=t.pred + c.pred, gold=t.gold + c.gold, tp=t.tp + c.tp,
                                          fp=t.fp + c.fp, fn=t.fn + c.fn)
    return _total(comps)


def score_evidence(pred: str | None, gold: str | None, parser: ComponentParser | None = None) -> EvidenceScore:
    """Parse and score one predicted evidence text against one gold evidence text."""
    from claimtrace.evaluate.components import DeterministicParser

    p = parser or DeterministicParser()
    return compare_components(p.parse(pred or ""), p.parse(gold or ""))


def score_evidences(pairs: Sequence[tuple[str | None, str | None]],
                    parser: ComponentParser | None = None) -> EvidenceScore:
    """Micro evidence score over (predicted, gold) pairs."""
    from claimtrace.evaluate.components import DeterministicParser

    p = parser or DeterministicParser()
    return micro_evidence(score_evidence(a, b, p) for a, b in pairs)


def as_prf(score: EvidenceScore) -> PRF:
    """An evidence score as a plain PRF (for mixing with other stages)."""
    return micro([score.prf()])
