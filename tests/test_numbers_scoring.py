"""Scoring against rct-numeric with Yun et al.'s definitions: "x" for not reported, exact match per field and
per item, their log OR (Haldane–Anscombe) and SMD ((m1 − m2) / √((sd1² + sd2²) / 2)); hand-computed cases."""

from __future__ import annotations

import math

import pytest

from claimtrace.numbers.model import Arm, NumbersResult, Value
from claimtrace.numbers.scoring import error_category, score_item, yun_log_odds_ratio, yun_smd


def _v(x: float) -> Value:
    return Value(value=x, text=f"{x:g}", source="text")


def test_log_odds_ratio_as_yun_et_al() -> None:
    assert yun_log_odds_ratio(12, 60, 6, 60) == pytest.approx(math.log((12 * 54) / (6 * 48)))  # ln 2.25
    # a zero cell: 0.5 added to all four, (0.5 × 54.5) / (6.5 × 60.5)
    assert yun_log_odds_ratio(0, 60, 6, 60) == pytest.approx(math.log(0.5 * 54.5 / (6.5 * 60.5)))
    assert yun_log_odds_ratio(0, 60, 0, 60) is None  # no events in either arm: undefined
    assert yun_log_odds_ratio(60, 60, 30, 30) is None  # only events in both arms: undefined
    assert yun_log_odds_ratio(70, 60, 6, 60) is None  # more events than patients


def test_smd_as_yun_et_al_uses_no_group_sizes() -> None:
    assert yun_smd(3.1, 1.2, 4.0, 1.5) == pytest.approx(-0.9 / math.sqrt((1.44 + 2.25) / 2))
    assert yun_smd(1.0, 0.0, 1.0, 0.0) is None


def test_item_scoring_exact_match_and_abstention() -> None:
    ref = {"outcome_type": "continuous", "intervention_mean": 3.1, "intervention_standard_deviation": "",
           "intervention_group_size": 57, "comparator_mean": 4.0, "comparator_standard_deviation": "",
           "comparator_group_size": 58}
    res = NumbersResult(doc="d", intervention="i", comparator="c", outcome="o", outcome_type="continuous",
                        arms={"intervention": Arm(label="i", mean=_v(3.1), group_size=_v(57)),
                              "comparator": Arm(label="c", mean=_v(4.0), group_size=_v(58))})
    got = score_item(ref, res)
    assert got["all_correct"]  # the SDs are "x" in both: an abstention matches a reference that has none
    assert got["estimate"] is None and got["reference_estimate"] is None  # no SDs: SMD not computable
    res.arms["comparator"].sd = _v(1.5)
    got = score_item(ref, res)
    assert not got["all_correct"] and not got["correct"]["comparator_standard_deviation"]
    assert error_category("comparator_standard_deviation", 1.5, "x", "x", "") == \
        "value where the reference is not reported"
    assert error_category("comparator_mean", "x", 4.0, 3.1, "was 4.0 (1.5)").startswith("abstained, reference written")
    assert error_category("comparator_mean", 3.1, 4.0, 3.1, "") == "the other arm's value"
