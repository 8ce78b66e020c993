"""The uncertainty helper (claimtrace.evaluate.uncertainty) on cases with known answers."""

from __future__ import annotations

import math

import pytest

from claimtrace.evaluate.uncertainty import (
    bootstrap_ci,
    macro_f1,
    mcnemar_exact,
    paired_bootstrap_diff,
    proportion_ci,
)


def test_clopper_pearson_known_values() -> None:
    # 0 of 10: the upper bound solves (1-p)^10 = 0.025
    ci = proportion_ci(0, 10)
    assert ci.low == 0.0
    assert math.isclose(ci.high, 1 - 0.025 ** (1 / 10), rel_tol=1e-9)
    # 5 of 10: the textbook interval 0.187-0.813
    ci = proportion_ci(5, 10)
    assert (round(ci.low, 3), round(ci.high, 3)) == (0.187, 0.813)
    assert ci.n == 10 and ci.estimate == 0.5
    with pytest.raises(ValueError):
        proportion_ci(3, 2)


def test_bootstrap_mean_is_reproducible_and_brackets_the_estimate() -> None:
    values = [1] * 104 + [0] * 60
    a, b = bootstrap_ci(values), bootstrap_ci(values)
    assert a == b  # fixed seed: the same page twice
    assert a.low < a.estimate < a.high
    assert math.isclose(a.estimate, 104 / 164)
    # close to the exact binomial interval for a proportion this size
    exact = proportion_ci(104, 164)
    assert abs(a.low - exact.low) < 0.03 and abs(a.high - exact.high) < 0.03
    # a constant sample has a zero-width interval, not NaN
    c = bootstrap_ci([1, 1, 1, 1])
    assert (c.low, c.high) == (1.0, 1.0)


def test_paired_difference_and_mcnemar() -> None:
    a = [1] * 30 + [0] * 10
    same = paired_bootstrap_diff(a, a)
    assert (same.estimate, same.low, same.high) == (0.0, 0.0, 0.0)
    b = [1] * 10 + [0] * 30  # a right on 20 items where b is wrong, never the reverse
    d = paired_bootstrap_diff(a, b)
    assert math.isclose(d.estimate, 0.5) and d.low > 0.3 and d.high <= 0.7
    t = mcnemar_exact([bool(x) for x in a], [bool(x) for x in b])
    assert (t.only_a, t.only_b) == (20, 0)
    assert math.isclose(t.p_value, 2 * 0.5 ** 20)
    assert mcnemar_exact([True], [True]).p_value == 1.0


def test_macro_f1_with_other_arrays() -> None:
    gold = [0, 0, 1, 1, 2, 2]
    assert macro_f1(gold, gold, range(3)) == 1.0
    # an abstention (-1) counts as wrong
    assert math.isclose(macro_f1([0, -1, 1, 1, 2, 2], gold, range(3)), (2 / 3 + 1 + 1) / 3)
    ci = bootstrap_ci([0, -1, 1, 1, 2, 2], lambda x, y: macro_f1(x, y, range(3)), others=[gold])
    assert ci.n == 6 and ci.low <= ci.estimate <= ci.high <= 1.0


# ---- behaviour that mutation testing found no test pinned -----------------------------------

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
