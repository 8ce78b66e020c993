"""The interval helpers every published comparison uses (evaluate/uncertainty.py), pinned on hand-computed
cases: mutation testing found none of their surviving mutants noticed by a test."""

from __future__ import annotations

import pytest

from claimtrace.evaluate.uncertainty import bootstrap_ci, macro_f1, mcnemar_exact, paired_bootstrap_diff


def test_macro_f1_hand_computed() -> None:
    pred = ["inc", "inc", "dec", "none", "abstain"]
    gold = ["inc", "dec", "dec", "none", "inc"]
    # inc: tp 1, fp 1, fn 1 -> 0.5; dec: tp 1, fp 0, fn 1 -> 2/3; none: tp 1 -> 1.0; "abstain" is wrong
    assert macro_f1(pred, gold, ["inc", "dec", "none"]) == pytest.approx((0.5 + 2 / 3 + 1.0) / 3)
    # a label never predicted nor present scores 0 and still counts in the mean
    assert macro_f1(["a"], ["a"], ["a", "b"]) == pytest.approx(0.5)


def test_bootstrap_needs_items_and_equal_lengths() -> None:
    with pytest.raises(ValueError, match="no items"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="same length"):
        paired_bootstrap_diff([1, 0, 1], [1, 0])
    one = bootstrap_ci([1.0, 1.0, 1.0])  # every resample the same: the point itself
    assert (one.low, one.estimate, one.high, one.n) == (1.0, 1.0, 1.0, 3)


def test_mcnemar_counts_the_discordant_pairs() -> None:
    t = mcnemar_exact([True, True, True, False, False], [True, False, False, True, False])
    assert (t.n, t.only_a, t.only_b) == (5, 2, 1)
    assert t.p_value == pytest.approx(1.0)  # 2 vs 1 of 3: two-sided binomial p = 1
    same = mcnemar_exact([True, False], [True, False])
    assert (same.only_a, same.only_b, same.p_value) == (0, 0, 1.0)
    with pytest.raises(ValueError):
        mcnemar_exact([True], [True, False])
