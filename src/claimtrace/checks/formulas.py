"""The arithmetic of the statistics checks: GRIM, GRIMMER and effect sizes from test statistics, within rounding.

- GRIM (Brown & Heathers, 2017, *Social Psychological and Personality Science* 8(4), 363-369): a mean of
  ``n`` integer-valued responses (each the mean of ``items`` integer items) reported to ``D`` decimals is
  possible only when some integer total ``T`` gives ``T / (n * items)`` rounding to the reported mean.
- GRIMMER (Anaya, 2016, *PeerJ Preprints* 4:e2400): for integer data the sum of squares ``sum x^2`` is an
  integer with the parity of ``sum x``; an SD is possible only when, for a GRIM-possible total, some such
  integer lies in the range that the SD's rounding allows: ``sum x^2 = (n - 1) SD^2 + T^2 / n``.
- Effect sizes from test statistics (Rosenthal, 1991; Lakens, 2013, *Frontiers in Psychology* 4:863):
  independent groups ``d = t * sqrt(1/n1 + 1/n2)`` (``2t / sqrt(N)`` for equal groups, often written
  ``2t / sqrt(df)``), paired ``d_z = t / sqrt(n)`` with ``n = df + 1``, ``r = t / sqrt(t^2 + df)``, partial
  eta squared ``F df1 / (F df1 + df2)``.

"Within rounding" means: every printed number stands for the interval its last digit allows (``2.50`` is
[2.495, 2.505]), either rounding direction at a tie, and a value is consistent when the intervals overlap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

_EPS = 1e-9


def decimals(text: str) -> int:
    """Digits after the decimal point of a printed number ("0.30" -> 2, "12" -> 0)."""
    m = re.search(r"\.(\d+)", text)
    return len(m.group(1)) if m else 0


def half_unit(text: str) -> float:
    """Half a unit of the last printed digit ("2.50" -> 0.005): the rounding interval's half width."""
    return 0.5 * 10 ** -decimals(text)


def number_in(text: str) -> str | None:
    """The last number printed in ``text`` ("d z = 1.57" -> "1.57", "η2 = .12" -> ".12"), minus signs kept."""
    found = re.findall(r"[-−–]?\s?(?:\d+(?:\.\d+)?|\.\d+)", text)
    if not found:
        return None
    return found[-1].replace("−", "-").replace("–", "-").replace(" ", "")


def grim(mean: float, n: int, dec: int, items: int = 1) -> bool | None:
    """GRIM: whether a mean of ``n`` integer responses (``items`` items each) can round to ``mean`` at ``dec``
    decimals; None when the test cannot tell (``n * items >= 10**dec``: every mean is possible)."""
    k = n * items
    if n < 1 or items < 1 or k >= 10**dec:
        return None
    half = 0.5 * 10**-dec
    lo, hi = (mean - half) * k, (mean + half) * k
    return math.floor(hi + _EPS) >= math.ceil(lo - _EPS)


def grim_totals(mean: float, n: int, dec: int, items: int = 1) -> list[int]:
    """The integer totals (on the item scale: sum of ``n * items`` integers) whose mean rounds to ``mean``."""
    k = n * items
    half = 0.5 * 10**-dec
    lo, hi = (mean - half) * k, (mean + half) * k
    return list(range(math.ceil(lo - _EPS), math.floor(hi + _EPS) + 1))


def grimmer(mean: float, sd: float, n: int, mean_dec: int, sd_dec: int, items: int = 1) -> bool | None:
    """GRIMMER: whether a sample SD (n - 1 denominator) of ``n`` integer responses with this mean is possible;
    None when GRIM cannot tell (every mean possible) or ``n < 2``."""
    if n < 2 or grim(mean, n, mean_dec, items) is None:
        return None
    totals = grim_totals(mean, n, mean_dec, items)
    if not totals:
        return False
    # on the integer scale (responses times items): mean * items, SD * items
    half = 0.5 * 10**-sd_dec
    sd_lo, sd_hi = max(sd - half, 0.0) * items, (sd + half) * items
    for total in totals:
        base = total * total / n
        ss_lo = (n - 1) * sd_lo * sd_lo + base
        ss_hi = (n - 1) * sd_hi * sd_hi + base
        first = math.ceil(ss_lo - _EPS)
        if first % 2 != total % 2:
            first += 1  # sum x^2 has the parity of sum x (x^2 and x are both odd or both even)
        if first <= ss_hi + _EPS:
            return True
    return False


def interval(value_text: str) -> tuple[float, float]:
    """The interval a printed number stands for: ``2.50`` -> (2.495, 2.505); the sign kept."""
    clean = value_text.replace("−", "-").replace("–", "-").replace(",", "").replace(" ", "")
    v = float(clean)
    h = 0.0 if "e" in clean.lower() else half_unit(clean)
    return v - h, v + h


def _monotone(f: Callable[[float], float], lo: float, hi: float) -> tuple[float, float]:
    a, b = f(lo), f(hi)
    return (a, b) if a <= b else (b, a)


def d_independent(t: float, df: float) -> tuple[float, float]:
    """d for two independent groups of equal size from t and df: (2t / sqrt(df + 2), 2t / sqrt(df))."""
    a, b = 2 * t / math.sqrt(df + 2), 2 * t / math.sqrt(df)
    return (a, b) if a <= b else (b, a)


def d_paired(t: float, df: float) -> float:
    """d_z of a paired (or one-sample) t test: t / sqrt(df + 1)."""
    return t / math.sqrt(df + 1)


def r_from_t(t: float, df: float) -> float:
    """r of a t test: t / sqrt(t^2 + df) (signed as t)."""
    return t / math.sqrt(t * t + df)


def partial_eta2(f: float, df1: float, df2: float) -> float:
    """Partial eta squared of an F test: F df1 / (F df1 + df2)."""
    return f * df1 / (f * df1 + df2)


def overlaps(a: tuple[float, float], b: tuple[float, float], slack: float = 1e-9) -> bool:
    """Whether two closed intervals meet."""
    return a[0] <= b[1] + slack and b[0] <= a[1] + slack


def expected_effect(measure: str, stat: str, value_text: str, df1: float, df2: float | None,
                    design: str | None) -> tuple[float, float] | None:
    """The interval of ``measure`` that a test ``stat`` (its printed value and dfs) implies, rounding included;
    None where the conversion needs what is not known (``design``: "paired", "independent" or None)."""
    lo, hi = interval(value_text)
    if stat == "t":
        if measure == "r":
            return _monotone(lambda x: abs(r_from_t(x, df1)), abs(lo), abs(hi)) if lo * hi > 0 else (0.0, abs(
                r_from_t(max(abs(lo), abs(hi)), df1)))
        if measure == "d_z" or (measure == "d" and design == "paired"):
            a, b = sorted((abs(d_paired(lo, df1)), abs(d_paired(hi, df1))))
            return (a, b) if lo * hi > 0 else (0.0, b)
        if measure == "d" and design == "independent":
            # equal groups give the smallest d; unequal groups only a larger one: a lower bound
            x = min(abs(lo), abs(hi)) if lo * hi > 0 else 0.0
            return d_independent(x, df1)[0], math.inf
        return None
    if stat == "F" and df2 is not None and measure == "partial_eta2":
        return partial_eta2(max(lo, 0.0), df1, df2), partial_eta2(hi, df1, df2)
    if stat == "F" and df2 is not None and measure == "eta2":
        # eta squared is at most partial eta squared (equal in a one-way design)
        return 0.0, partial_eta2(hi, df1, df2)
    return None
