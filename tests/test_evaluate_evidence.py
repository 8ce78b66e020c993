"""Evidence component scoring: each binary-component rule, fuzzy set matching, the deterministic
parser on statistics, and real Evidence-Inference spans scored against themselves and perturbations."""

from __future__ import annotations

import json
import re

import pytest

from claimtrace.evaluate.components import DeterministicParser
from claimtrace.evaluate.evidence import (
    ComponentCounts,
    EvidenceComponents,
    Interval,
    Relationship,
    binary_counts,
    compare_components,
    match_count,
    micro_evidence,
    same_variable,
    score_evidence,
    score_evidences,
)
from claimtrace.evaluate.parsers import agreement
from conftest import EI_PROMPTS


@pytest.mark.parametrize(
    ("pred", "gold", "expected"),
    [
        ([], [], (0, 0, 0)),  # both absent: excluded
        ([], ["t"], (0, 0, 1)),  # gold only: FN
        (["t"], [], (0, 1, 0)),  # predicted only: FP
        (["t"], ["t"], (1, 0, 0)),  # both present and matching: TP
        (["t"], ["anova"], (0, 1, 1)),  # both present and different: FP + FN
    ],
)
def test_binary_component_rules(pred: list[str], gold: list[str], expected: tuple[int, int, int]) -> None:
    c = binary_counts(pred, gold)
    assert (c.tp, c.fp, c.fn) == expected


def test_fuzzy_set_matching_is_one_to_one() -> None:
    assert same_variable("pain score", "pain scores") > 0
    assert same_variable("placebo", "placebo group") > 0
    assert same_variable("mortality", "pain scores") == 0
    assert match_count(["pain score", "placebo"], ["pain scores", "drug A", "placebo group"], same_variable) == 2
    # two predicted copies cannot both match one gold item
    assert match_count(["pain", "pain"], ["pain"], same_variable) == 1


def test_compare_components_hand_computed() -> None:
    gold = EvidenceComponents(
        variables=["pain scores", "drug A", "placebo"],
        relationships=[Relationship(direction="decrease", significant=True)],
        intervals=[Interval(level=95, low=-2.0, high=-0.4)],
        test_family=["t"], sample_size=["df=98"])
    pred = EvidenceComponents(
        variables=["pain score", "placebo", "nausea"],
        relationships=[Relationship(direction="decrease", significant=False)],
        intervals=[Interval(level=95, low=-2.0, high=-0.41)],  # within rounding
        test_family=[], sample_size=["df=97"])
    s = compare_components(pred, gold)
    c = s.components
    assert (c["variables"].tp, c["variables"].fp, c["variables"].fn) == (2, 1, 1)
    assert (c["relationships"].tp, c["relationships"].fp, c["relationships"].fn) == (0, 1, 1)
    assert (c["intervals"].tp, c["intervals"].fp, c["intervals"].fn) == (1, 0, 0)
    assert (c["test_family"].tp, c["test_family"].fp, c["test_family"].fn) == (0, 0, 1)
    assert (c["sample_size"].tp, c["sample_size"].fp, c["sample_size"].fn) == (0, 1, 1)
    assert (s.tp, s.fp, s.fn) == (3, 3, 4)
    assert s.precision == 0.5 and s.recall == pytest.approx(3 / 7)


def test_deterministic_parser_reads_statistics() -> None:
    p = DeterministicParser()
    c = p.parse("Pain was lower with drug A than with placebo (mean difference −1.2, 95% CI −2.0 to −0.4; "
                "t(98) = 2.90, p = .004).")
    assert c.intervals == [Interval(level=95.0, low=-2.0, high=-0.4)]
    assert "t" in c.test_family and "df=98" in c.sample_size
    assert [(r.direction, r.significant) for r in c.relationships] == [("decrease", True)]
    assert any("pain" in v.lower() for v in c.variables) and any("placebo" in v.lower() for v in c.variables)
    c = p.parse("Mortality did not differ between the groups (OR 0.91, 95% CI 0.70-1.18, n = 412).")
    assert [(r.direction, r.significant) for r in c.relationships] == [("none", False)]
    assert c.intervals[0].low == 0.70 and c.intervals[0].high == 1.18
    assert "odds ratio" in c.test_family and "N=412" in c.sample_size
    c = p.parse("F(2, 57) = 4.1, p < .05")
    assert c.sample_size == ["df=2,57"] and c.test_family == ["anova"]
    assert p.parse("").model_dump(exclude={"parser"}) == EvidenceComponents().model_dump(exclude={"parser"})


# ---- real Evidence-Inference spans -----------------------------------------------------------

def _spans(n: int = 60) -> list[str]:
    path = EI_PROMPTS  # the validation prompts of the CC BY articles (tests/fixtures)
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for e in json.loads(line)["evidence"]:
            t = e["text"].strip()
            if t and t not in out:
                out.append(t)
    return out[:n]


def test_real_spans_against_themselves_score_one() -> None:
    spans = _spans(2000)
    s = score_evidences([(t, t) for t in spans])
    assert s.fp == 0 and s.fn == 0 and s.f1 == 1.0
    assert s.tp > 3 * len(spans)  # several component items per real span
    for name in ("variables", "relationships", "intervals", "test_family", "sample_size"):
        assert s.components[name].gold > 0, name


def test_real_spans_perturbed_predictions_lose_exactly_what_was_changed() -> None:
    spans = [t for t in _spans(400) if re.search(r"\d{2}\s*%\s*CI", t)][:15]
    assert len(spans) >= 5
    p = DeterministicParser()
    for t in spans:
        gold = p.parse(t)
        # shift every free-standing number (not the 50 of "ED50"): the intervals no longer match, nothing
        # else changes
        shifted = re.sub(r"(?<![\w.])\d+(?:\.\d+)?(?![\d.])(?!\s*%\s*(?:CI|conf))",
                         lambda m: f"{float(m.group(0)) + 7.3:.2f}", t)
        s = score_evidence(shifted, t)
        assert s.components["intervals"].tp == 0 and s.components["intervals"].fn == len(gold.intervals)
        assert s.components["variables"].fn == 0
    # an empty prediction recalls nothing; a prediction from another trial scores far below 1
    empty = score_evidences([("", t) for t in spans])
    assert empty.tp == 0 and empty.recall == 0.0 and empty.fn > 0
    swapped = score_evidences([(spans[(i + 1) % len(spans)], t) for i, t in enumerate(spans)])
    assert swapped.f1 < 0.5


def test_direction_and_significance_on_real_labels() -> None:
    """EI's own labels: 'no significant difference' spans should mostly parse as non-significant."""
    path = EI_PROMPTS  # the validation prompts of the CC BY articles (tests/fixtures)
    p = DeterministicParser()
    agree = total = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        e = json.loads(line)["evidence"]
        if not e:
            continue
        label = e[0]["label"]
        rels = p.parse(e[0]["text"]).relationships
        sig = next((r.significant for r in rels if r.significant is not None), None)
        if sig is None:
            continue
        total += 1
        agree += int(sig == (label != "no significant difference"))
    assert total > 80  # of the 113 bundled prompts (99 have a parsed significance)
    assert agree / total > 0.8


# ---- behaviour that mutation testing found no test pinned -----------------------------------

def _comps(variables: list[str], low: float, n: str | None) -> EvidenceComponents:
    return EvidenceComponents(variables=variables, intervals=[Interval(level=95, low=low, high=low + 1)],
                              relationships=[Relationship(direction="increase", significant=True)],
                              test_family=["t"], sample_size=[n] if n else [])


def test_micro_evidence_sums_every_count_of_every_component() -> None:
    a = compare_components(_comps(["anxiety", "sleep"], 1.0, "N=40"), _comps(["anxiety"], 1.0, "N=40"))
    b = compare_components(_comps(["mood"], 2.0, None), _comps(["mood", "appetite"], 3.0, "N=12"))
    total = micro_evidence([a, b])
    for name in ("variables", "intervals", "relationships", "test_family", "sample_size"):
        ca, cb, ct = a.components[name], b.components[name], total.components[name]
        assert ct == ComponentCounts(pred=ca.pred + cb.pred, gold=ca.gold + cb.gold, tp=ca.tp + cb.tp,
                                     fp=ca.fp + cb.fp, fn=ca.fn + cb.fn), name
    v = total.components["variables"]
    assert (v.pred, v.gold, v.tp, v.fp, v.fn) == (3, 3, 2, 1, 1)
    i = total.components["intervals"]
    assert (i.tp, i.fp, i.fn) == (1, 1, 1)
    assert (total.tp, total.fp, total.fn) == (sum(c.tp for c in total.components.values()),
                                              sum(c.fp for c in total.components.values()),
                                              sum(c.fn for c in total.components.values()))


class _Fixed:
    """A component parser that answers from a table (text -> components)."""

    def __init__(self, name: str, table: dict[str, EvidenceComponents]) -> None:
        self.name = name
        self.table = table

    def parse(self, text: str) -> EvidenceComponents:
        return self.table[text]


def test_agreement_component_f1_is_the_dice_of_the_summed_counts() -> None:
    a = _Fixed("a", {"x": _comps(["anxiety", "sleep"], 1.0, "N=40"), "y": _comps(["mood"], 2.0, None)})
    b = _Fixed("b", {"x": _comps(["anxiety"], 1.0, "N=40"), "y": _comps(["mood", "appetite"], 3.0, "N=12")})
    rep = agreement(["x", "y"], a, b)
    # variables: tp 2, fp 1, fn 1 -> 2*2 / (2*2 + 1 + 1)
    assert rep.component_f1["variables"] == pytest.approx(4 / 6)
    # intervals: tp 1, fp 1, fn 1 -> 2 / 4
    assert rep.component_f1["intervals"] == pytest.approx(0.5)
    assert rep.component_f1["relationships"] == pytest.approx(1.0)
    # sample size agrees on x, not on y
    assert rep.binary_agreement["sample_size"] == pytest.approx(0.5)
    assert rep.binary_agreement["test_family"] == pytest.approx(1.0)
    same = agreement(["x", "y"], a, a)
    assert all(v == 1.0 for v in same.component_f1.values()) and same.overall_f1 == 1.0
