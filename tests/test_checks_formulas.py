"""GRIM, GRIMMER and the effect-size conversions, against their published definitions.

- GRIM (Brown & Heathers, 2017, SPPS 8(4), 363-369): a mean of n integer responses reported to D decimals is
  possible only if some integer total T gives T / n rounding to it. Tested against brute force over every
  total, and on the form of the paper's illustration (N = 28, M = 5.19: 5.19 x 28 = 145.32, between the
  totals 145 and 146, whose means 5.18 and 5.21 are the nearest possible).
- GRIMMER (Anaya, 2016, PeerJ Preprints 4:e2400): the sum of squares of integers is an integer with the
  parity of their sum. Tested against brute force over every sample of small integers (no possible
  (mean, SD) pair is ever called impossible), and on hand-worked cases including the parity rule.
- d, d_z, r and partial eta squared (Rosenthal, 1991; Lakens, 2013, Front. Psychol. 4:863): computed from
  raw data with scipy's tests and compared with the conversions from t and F.
"""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
from scipy import stats as sps

from claimtrace.checks import formulas


def _rounds(x: float, dec: int) -> set[float]:
    """Both roundings at a tie (half up and half down), as a reported value may use either."""
    scaled = x * 10**dec
    lo, hi = math.floor(scaled + 1e-9), math.ceil(scaled - 1e-9)
    if abs(scaled - (math.floor(scaled) + 0.5)) < 1e-9:
        return {lo / 10**dec, hi / 10**dec}
    return {round(scaled) / 10**dec}


def test_grim_illustration() -> None:
    assert formulas.grim(5.19, 28, 2) is False
    assert formulas.grim(5.18, 28, 2) is True  # 145 / 28 = 5.1786
    assert formulas.grim(5.21, 28, 2) is True  # 146 / 28 = 5.2143


def test_grim_rounding_boundary() -> None:
    # 25 / 8 = 3.125 exactly: 3.12 and 3.13 are both honest roundings; 3.14 is not possible
    assert formulas.grim(3.12, 8, 2) and formulas.grim(3.13, 8, 2)
    assert formulas.grim(3.14, 8, 2) is False
    # n x items >= 10^D: every mean is possible, GRIM cannot tell
    assert formulas.grim(3.14, 100, 2) is None
    assert formulas.grim(3.14, 40, 2, items=3) is None


@pytest.mark.parametrize(("n", "items"), [(7, 1), (12, 1), (23, 1), (9, 3), (5, 7)])
def test_grim_matches_brute_force(n: int, items: int) -> None:
    k = n * items
    possible = {r for total in range(0, 7 * k + 1) for r in _rounds(total / k, 2)}
    for cents in range(0, 701):
        mean = cents / 100
        assert formulas.grim(mean, n, 2, items) is (mean in possible), (mean, n, items)


def test_grimmer_worked_cases() -> None:
    # 1, 2, 3, 4, 5: M = 3.00, SD = sqrt(2.5) = 1.58
    assert formulas.grimmer(3.00, 1.58, 5, 2, 2) is True
    # SD 1.60 needs a sum of squares in [55.18, 55.30]: no integer
    assert formulas.grimmer(3.00, 1.60, 5, 2, 2) is False
    # SD 1.66 allows only the sum of squares 56, even, but the sum (15) is odd: impossible by parity alone
    assert formulas.grimmer(3.00, 1.66, 5, 2, 2) is False
    # SD 1.73 (sum of squares 57, odd: 0, 3, 4, 4, 4) is possible
    assert formulas.grimmer(3.00, 1.73, 5, 2, 2) is True
    assert statistics.stdev([0, 3, 4, 4, 4]) == pytest.approx(1.732, abs=1e-3)
    # the mean fails GRIM first
    assert formulas.grimmer(3.01, 1.58, 5, 2, 2) is False


@pytest.mark.parametrize("n", [3, 4, 6])
def test_grimmer_never_rejects_a_real_sample(n: int) -> None:
    pairs: set[tuple[float, float]] = set()
    for sample in itertools.combinations_with_replacement(range(1, 8), n):
        m, sd = statistics.mean(sample), statistics.stdev(sample)
        for rm in _rounds(m, 2):
            for rs in _rounds(sd, 2):
                pairs.add((rm, rs))
    for rm, rs in pairs:
        assert formulas.grimmer(rm, rs, n, 2, 2) is True, (rm, rs, n)
    # and a possible mean with an SD no sample gives is caught somewhere in the range
    assert any(formulas.grimmer(rm, rs + 0.01, n, 2, 2) is False for rm, rs in pairs if (rm, rs + 0.01) not in pairs)


def test_effect_sizes_from_raw_data() -> None:
    rng = np.random.default_rng(27)
    a, b = rng.normal(0.5, 1, 30), rng.normal(0, 1, 30)
    t, _ = sps.ttest_ind(a, b)
    pooled = math.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / (len(a) + len(b) - 2))
    d = (a.mean() - b.mean()) / pooled
    lo, hi = formulas.d_independent(float(t), 58)
    assert lo == pytest.approx(d, rel=1e-9)  # equal groups: d = 2t / sqrt(N)
    assert lo <= d <= hi
    # unequal groups: d = t sqrt(1/n1 + 1/n2) is above the equal-groups bound
    c = rng.normal(0, 1, 12)
    t2, _ = sps.ttest_ind(a, c)
    pooled2 = math.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(c) - 1) * c.var(ddof=1)) / (len(a) + len(c) - 2))
    d2 = (a.mean() - c.mean()) / pooled2
    assert d2 == pytest.approx(float(t2) * math.sqrt(1 / 30 + 1 / 12))
    assert d2 >= formulas.d_independent(float(t2), 40)[0]
    # paired: d_z = mean difference / SD of differences = t / sqrt(n)
    post = a + rng.normal(0.3, 0.5, 30)
    tp, _ = sps.ttest_rel(post, a)
    diff = post - a
    assert formulas.d_paired(float(tp), 29) == pytest.approx(diff.mean() / diff.std(ddof=1))
    # r from t of the correlation test
    y = 0.4 * a + rng.normal(0, 1, 30)
    r, _ = sps.pearsonr(a, y)
    t_r = r * math.sqrt(28) / math.sqrt(1 - r * r)
    assert formulas.r_from_t(t_r, 28) == pytest.approx(r)
    # partial eta squared of a one-way ANOVA: SS_between / (SS_between + SS_within)
    groups = [rng.normal(mu, 1, 15) for mu in (0, 0.4, 0.8)]
    f, _ = sps.f_oneway(*groups)
    grand = np.concatenate(groups).mean()
    ss_b = sum(len(g) * (g.mean() - grand) ** 2 for g in groups)
    ss_w = sum(((g - g.mean()) ** 2).sum() for g in groups)
    assert formulas.partial_eta2(float(f), 2, 42) == pytest.approx(ss_b / (ss_b + ss_w))


def test_effect_size_rounding_boundaries() -> None:
    # t(30) = 2.50 stands for [2.495, 2.505]: r in [0.4145, 0.4160]
    want = formulas.expected_effect("r", "t", "2.50", 30, None, None)
    assert want is not None
    assert formulas.overlaps(want, formulas.interval(".41"))  # [.405, .415] meets it at its edge
    assert formulas.overlaps(want, formulas.interval(".42"))
    assert not formulas.overlaps(want, formulas.interval(".40"))
    # partial eta squared of F(1, 38) = 4.10 is .097: .10 fits (two decimals), .11 does not
    eta = formulas.expected_effect("partial_eta2", "F", "4.10", 1, 38, None)
    assert eta is not None
    assert formulas.overlaps(eta, formulas.interval(".10")) and not formulas.overlaps(eta, formulas.interval(".11"))
    # d without a known design is not checked; paired d_z is
    assert formulas.expected_effect("d", "t", "2.20", 38, None, None) is None
    dz = formulas.expected_effect("d_z", "t", "3.16", 39, None, None)
    assert dz is not None and formulas.overlaps(dz, formulas.interval("0.50"))
    assert not formulas.overlaps(dz, formulas.interval("0.52"))
