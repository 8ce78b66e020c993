"""Uncertainty for published comparisons: 95% intervals for one system's score and for paired differences.

One home for the statistics every results table uses (bench scripts, the experiment runner, docs):

- :func:`proportion_ci` — exact (Clopper-Pearson) interval for k successes out of n;
- :func:`bootstrap_ci` — percentile bootstrap interval for any per-item statistic (macro-F1, mean, ...);
- :func:`paired_bootstrap_diff` — percentile bootstrap interval for the difference of a statistic
  between two systems scored on the same items (items resampled together);
- :func:`mcnemar_exact` — exact McNemar test (two-sided binomial test on the discordant pairs) for two
  systems' right/wrong outcomes on the same items.

Resampling uses a fixed seed, so a page generated twice from the same per-item file is byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from claimtrace.documents.model import StrictModel

LEVEL = 0.95
N_RESAMPLES = 2000
SEED = 20261201


class Interval(StrictModel):
    """A point estimate with its confidence interval, the number of items and how it was computed."""

    estimate: float
    low: float
    high: float
    n: int
    level: float = LEVEL
    method: str

    def fmt(self, digits: int = 3) -> str:
        """``0.634 [0.557, 0.707]``: the estimate and its interval, rounded to `digits`."""
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


class PairedTest(StrictModel):
    """An exact McNemar test: discordant counts and the two-sided p-value."""

    n: int
    only_a: int
    only_b: int
    p_value: float
    method: str = "exact McNemar (two-sided binomial test on discordant pairs)"


def proportion_ci(k: int, n: int, level: float = LEVEL) -> Interval:
    """Exact Clopper-Pearson interval for the proportion k/n."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return Interval(estimate=k / n, low=float(ci.low), high=float(ci.high), n=n, level=level,
                    method="exact binomial (Clopper-Pearson)")


def _bootstrap(data: tuple[np.ndarray, ...], statistic: Callable[..., float], level: float,
               n_resamples: int, seed: int) -> tuple[float, float]:
    n = len(data[0])
    if n == 0:
        raise ValueError("no items to resample")
    if any(len(d) != n for d in data):
        raise ValueError("paired samples must have the same length")
    res = stats.bootstrap(data, statistic, paired=True, vectorized=False, confidence_level=level,
                          n_resamples=n_resamples, method="percentile", rng=np.random.default_rng(seed))
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if np.isnan(lo) or np.isnan(hi):  # every resample gave the same value
        point = float(statistic(*data))
        return point, point
    return lo, hi


def bootstrap_ci(values: Sequence[Any], statistic: Callable[..., float] | None = None, *,
                 others: Sequence[Sequence[Any]] = (), level: float = LEVEL,
                 n_resamples: int = N_RESAMPLES, seed: int = SEED) -> Interval:
    """Percentile bootstrap interval for `statistic` over items (default: the mean of `values`).

    `others` are further per-item sequences resampled with `values` (e.g. the gold labels when
    `values` are predictions); `statistic` receives them all as arrays, in that order.
    """
    stat: Callable[..., float] = statistic or (lambda x: float(np.mean(x)))
    data = (np.asarray(values), *(np.asarray(o) for o in others))
    lo, hi = _bootstrap(data, stat, level, n_resamples, seed)
    return Interval(estimate=float(stat(*data)), low=lo, high=hi, n=len(data[0]), level=level,
                    method=f"percentile bootstrap, {n_resamples} resamples of items, seed {seed}")


def paired_bootstrap_diff(a: Sequence[Any], b: Sequence[Any],
                          statistic: Callable[..., float] | None = None, *,
                          others: Sequence[Sequence[Any]] = (), level: float = LEVEL,
                          n_resamples: int = N_RESAMPLES, seed: int = SEED) -> Interval:
    """Interval for statistic(a) - statistic(b) on the same items, resampling items together.

    `statistic(x, *others)` scores one system's per-item values `x` (default: the mean).
    """
    stat: Callable[..., float] = statistic or (lambda x: float(np.mean(x)))

    def diff(x: np.ndarray, y: np.ndarray, *rest: np.ndarray) -> float:
        return float(stat(x, *rest)) - float(stat(y, *rest))

    data = (np.asarray(a), np.asarray(b), *(np.asarray(o) for o in others))
    lo, hi = _bootstrap(data, diff, level, n_resamples, seed)
    return Interval(estimate=diff(*data), low=lo, high=hi, n=len(data[0]), level=level,
                    method=f"paired percentile bootstrap, {n_resamples} resamples of items, seed {seed}")


def mcnemar_exact(a_right: Sequence[bool], b_right: Sequence[bool]) -> PairedTest:
    """Exact McNemar test for two systems' right/wrong outcomes on the same items."""
    if len(a_right) != len(b_right):
        raise ValueError("paired outcomes must have the same length")
    only_a = sum(bool(x) and not bool(y) for x, y in zip(a_right, b_right, strict=True))
    only_b = sum(bool(y) and not bool(x) for x, y in zip(a_right, b_right, strict=True))
    d = only_a + only_b
    p = 1.0 if d == 0 else float(stats.binomtest(only_a, d, 0.5).pvalue)
    return PairedTest(n=len(a_right), only_a=only_a, only_b=only_b, p_value=p)


def macro_f1(pred: Sequence[Any], gold: Sequence[Any], labels: Sequence[Any]) -> float:
    """Macro-F1 over `labels` (a prediction outside them, e.g. an abstention, counts as wrong)."""
    p, g = np.asarray(pred), np.asarray(gold)
    f1s = []
    for lab in labels:
        tp = float(np.sum((p == lab) & (g == lab)))
        fp = float(np.sum((p == lab) & (g != lab)))
        fn = float(np.sum((p != lab) & (g == lab)))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return float(np.mean(f1s))
