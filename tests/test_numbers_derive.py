"""Derived values (Cochrane Handbook 6.5.2) and effect sizes: hand-computed cases, rounding edge cases."""

from __future__ import annotations

import math

import pytest

from claimtrace.numbers import derive
from claimtrace.numbers.effects import binary_effects, continuous_effects


def test_events_from_percent_exact_and_ambiguous() -> None:
    # 40/57 = 70.175...%: "70.2%" and "70%" both single out 40 (39/57 = 68.4, 41/57 = 71.9)
    assert derive.events_from_percent("70.2%", 57)[0] == 40  # type: ignore[index]
    assert derive.events_from_percent("70", 57)[0] == 40  # type: ignore[index]
    # 41% of 357: 146/357 = 40.90% and 147/357 = 41.18% both round to 41 -> abstain
    assert derive.events_from_percent("41%", 357) is None
    # with one decimal it is exact: 146/357 = 40.896 -> 40.9
    assert derive.events_from_percent("40.9", 357)[0] == 146  # type: ignore[index]


def test_percent_rounding_half_either_way() -> None:
    # 1/8 = 12.5% exactly: written "13%" (half up) or "12%" (half to even / down) both match
    assert derive.percent_matches(1, 8, "13")
    assert derive.percent_matches(1, 8, "12")
    assert not derive.percent_matches(1, 8, "14")
    # 17/58 = 29.31%: "29.3" matches, "29.4" does not
    assert derive.percent_matches(17, 58, "29.3")
    assert not derive.percent_matches(17, 58, "29.4")
    assert derive.events_from_percent("12.5", 8)[0] == 1  # type: ignore[index]


def test_sd_from_se() -> None:
    sd, formula = derive.sd_from_se(0.5, 25)  # 0.5 * 5
    assert sd == pytest.approx(2.5)
    assert "SE × √N" in formula


def test_sd_from_ci_large_and_small_sample() -> None:
    # Handbook example: N = 100 (large), CI 10.0 to 12.0 -> SD = 10 * 2 / 3.92 = 5.102
    sd, formula = derive.sd_from_ci(10.0, 12.0, 100)
    assert sd == pytest.approx(10 * 2 / 3.92, rel=1e-3)
    assert "1.96" in formula
    # N = 25 (small): t(0.975, 24) = 2.0639 -> SD = 5 * 2 / (2 * 2.0639) = 2.4226
    sd, formula = derive.sd_from_ci(10.0, 12.0, 25)
    assert sd == pytest.approx(2.4226, abs=1e-4)
    assert "t(0.975, 24)" in formula


def test_sd_from_ci_of_difference_t_and_p() -> None:
    # Handbook 6.5.2.3 example: MD 3.8, 95% CI 1.2 to 6.4, N1 = 25, N2 = 22 (small: t(0.975, 45) = 2.0141)
    sd, _ = derive.sd_from_ci_difference(1.2, 6.4, 25, 22)
    se = 5.2 / (2 * 2.0141)
    assert sd == pytest.approx(se / math.sqrt(1 / 25 + 1 / 22), rel=1e-4)
    # from t: t = 3.8 / se
    t = 3.8 / se
    sd_t, _ = derive.sd_from_t(3.8, t, 25, 22)
    assert sd_t == pytest.approx(sd, rel=1e-5)
    # from p: the two-sided p of that t with 45 df gives back the same SD
    from scipy import stats

    p = 2 * stats.t.sf(t, 45)
    sd_p, formula = derive.sd_from_p(3.8, p, 25, 22)
    assert sd_p == pytest.approx(sd_t, rel=1e-6)
    assert "t⁻¹" in formula


def test_binary_effects_hand_computed() -> None:
    eff = {e.measure: e for e in binary_effects(12, 60, 6, 60)}
    # OR = (12*54)/(48*6) = 2.25; log OR SE = sqrt(1/12 + 1/48 + 1/6 + 1/54)
    assert eff["OR"].value == pytest.approx(2.25)
    se = math.sqrt(1 / 12 + 1 / 48 + 1 / 6 + 1 / 54)
    assert eff["OR"].ci_low == pytest.approx(math.exp(math.log(2.25) - 1.959964 * se), rel=1e-5)
    assert eff["RR"].value == pytest.approx(2.0)
    assert eff["RD"].value == pytest.approx(0.1)
    # a zero cell: 0.5 is added to every cell for the OR
    z = {e.measure: e for e in binary_effects(0, 10, 3, 10)}
    assert z["OR"].value == pytest.approx((0.5 * 7.5) / (10.5 * 3.5))


def test_continuous_effects_hedges_g() -> None:
    eff = {e.measure: e for e in continuous_effects(3.1, 1.2, 60, 4.0, 1.5, 60)}
    assert eff["MD"].value == pytest.approx(-0.9)
    sp = math.sqrt((59 * 1.2**2 + 59 * 1.5**2) / 118)
    j = 1 - 3 / (4 * 118 - 1)
    assert eff["SMD"].value == pytest.approx(-0.9 / sp * j, rel=1e-6)
    assert continuous_effects(1, 0, 10, 2, 1, 10) == []


# ---- SD that is an SE: the reported p or CI of the comparison decides (hand-computed cases) --------
# Means 10 and 8, "SD" 1.0 in both arms, N = 25 each. Read as SDs: SE of the difference = √(1/25 + 1/25)
# = 0.2828, t = 7.07, p ≈ 6e-9. Read as SEs: SD = 1.0 × √25 = 5, SE of the difference = √(25/25 + 25/25)
# = √2 = 1.414, t = 1.414 on 48 df, p = 0.164.


def test_se_signature_from_a_reported_p() -> None:
    from claimtrace.numbers.derive import se_signature

    why = se_signature(10, 1.0, 25, 8, 1.0, 25, p=(0.16, "="))
    assert why is not None and "0.16" in why
    assert se_signature(10, 5.0, 25, 8, 5.0, 25, p=(0.16, "=")) is None  # real SDs: p agrees as read
    assert se_signature(10, 1.0, 25, 8, 1.0, 25, p=(0.001, "<")) is None  # "p < .001" cannot tell them apart
    assert se_signature(10, 1.0, 25, 8, 1.0, 25, p=(0.05, ">")) is not None  # "p > .05" contradicts SDs
    assert se_signature(10, 1.0, 25, 8, 1.0, 25, p=(0.5, "=")) is None  # agrees with neither: no claim


def test_se_signature_from_a_reported_ci_of_the_difference() -> None:
    from claimtrace.numbers.derive import se_signature

    # CI −0.8 to 4.8: SE = 5.6 / 3.92 = 1.43, close to √2 = 1.414 (SEs), 5× the 0.283 of SDs
    assert se_signature(10, 1.0, 25, 8, 1.0, 25, ci=(-0.8, 4.8)) is not None
    # CI 1.45 to 2.55: SE = 0.281, as the SDs give
    assert se_signature(10, 1.0, 25, 8, 1.0, 25, ci=(1.45, 2.55)) is None


def test_size_from_percent_exact_and_ambiguous() -> None:
    from claimtrace.numbers.derive import size_from_percent

    assert size_from_percent(18, "90")[0] == 20  # type: ignore[index]
    assert size_from_percent(122, "40.5%")[0] == 301  # type: ignore[index]
    assert size_from_percent(5, "10") is None  # 48..52 all round to 10%
    assert size_from_percent(0, "0") is None and size_from_percent(3, "0") is None
