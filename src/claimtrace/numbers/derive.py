"""Derived values (Cochrane Handbook, chapter 6.5.2): events from a percentage; SD from SE, CI, t or p.

Every function returns the value and the formula it used, or None when the inputs do not allow an
exact answer (an abstention rather than a guess).
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_DOWN, ROUND_HALF_UP, Decimal

from scipy import stats as st

#: below this total sample size the Handbook replaces 3.92 by 2 × t(0.975, df)
LARGE_SAMPLE = 60


def decimals_of(text: str) -> int:
    """Decimal places written in a number's text ("43.30" -> 2)."""
    t = text.strip().rstrip("%").strip()
    return len(t.split(".", 1)[1]) if "." in t else 0


def _rounds_to(x: float, target: float, decimals: int) -> bool:
    """Whether ``x`` rounds (half up, or half down: either convention) to ``target`` at ``decimals``."""
    q = Decimal(1).scaleb(-decimals)
    d = Decimal(repr(x))
    up = d.quantize(q, rounding=ROUND_HALF_UP)
    down = d.quantize(q, rounding=ROUND_HALF_DOWN)
    tgt = Decimal(repr(target)).quantize(q)
    return tgt in (up, down) or abs(float(d) - float(tgt)) < 1e-12


def percent_matches(events: int, n: int, percent_text: str) -> bool:
    """Whether a reported percentage equals 100·events/n at the precision written (either rounding)."""
    if n <= 0:
        return False
    pct = float(percent_text.strip().rstrip("%"))
    dec = decimals_of(percent_text)
    return _rounds_to(100.0 * events / n, pct, dec)


def events_from_percent(percent_text: str, n: int) -> tuple[int, str] | None:
    """Events from a percentage and its group size when exactly one count rounds to it, else None."""
    if n <= 0:
        return None
    pct = float(percent_text.strip().rstrip("%"))
    dec = decimals_of(percent_text)
    centre = pct * n / 100.0
    hits = [e for e in range(max(0, math.floor(centre) - 2), min(n, math.ceil(centre) + 2) + 1)
            if _rounds_to(100.0 * e / n, pct, dec)]
    if len(hits) != 1:
        return None
    return hits[0], f"events = round({percent_text.strip().rstrip('%')}% × {n}) (the only count that rounds to it)"


def size_from_percent(events: int, percent_text: str) -> tuple[int, str] | None:
    """A group size from its events and their percentage ("90% (18 patients)") when exactly one size makes
    the percentage at the precision written, else None."""
    pct = float(percent_text.strip().rstrip("%"))
    if events <= 0 or not 0 < pct <= 100:
        return None
    dec = decimals_of(percent_text)
    centre = 100.0 * events / pct
    hits = [n for n in range(max(events, math.floor(centre) - 3), math.ceil(centre) + 4)
            if _rounds_to(100.0 * events / n, pct, dec)]
    if len(hits) != 1:
        return None
    return hits[0], (f"group size = {events} / {percent_text.strip().rstrip('%')}% "
                     "(the only size whose percentage rounds to it)")


def _z_or_t(n_total: int, df: int) -> tuple[float, str]:
    """The multiplier for a 95% CI half-width: 1.96 for large samples, else t(0.975, df) (Handbook 6.5.2.2)."""
    if n_total >= LARGE_SAMPLE:
        return 1.96, "1.96"
    return float(st.t.ppf(0.975, df)), f"t(0.975, {df})"


def sd_from_se(se: float, n: int) -> tuple[float, str]:
    """SD = SE × √N (Handbook 6.5.2.2)."""
    return se * math.sqrt(n), f"SD = SE × √N = {se:g} × √{n}"


def sd_from_ci(low: float, high: float, n: int) -> tuple[float, str]:
    """SD of one group from a 95% CI of its mean: √N × (upper − lower) / (2 × 1.96 or 2 × t) (Handbook 6.5.2.2)."""
    mult, name = _z_or_t(n, n - 1)
    return math.sqrt(n) * (high - low) / (2 * mult), f"SD = √N × (upper − lower) / (2 × {name})"


def sd_from_ci_difference(low: float, high: float, n1: int, n2: int) -> tuple[float, str]:
    """Pooled SD from a 95% CI of a mean difference: SE = width / (2 × 1.96 or 2 × t); SD = SE / √(1/N1 + 1/N2)."""
    mult, name = _z_or_t(n1 + n2, n1 + n2 - 2)
    se = (high - low) / (2 * mult)
    return se / math.sqrt(1 / n1 + 1 / n2), f"SD = ((upper − lower) / (2 × {name})) / √(1/N1 + 1/N2) (Handbook 6.5.2.3)"


def sd_from_t(md: float, t: float, n1: int, n2: int) -> tuple[float, str]:
    """Pooled SD from a t statistic of a mean difference: SE = MD / t; SD = SE / √(1/N1 + 1/N2)."""
    se = abs(md / t)
    return se / math.sqrt(1 / n1 + 1 / n2), "SD = (MD / t) / √(1/N1 + 1/N2) (Handbook 6.5.2.3)"


def sd_from_p(md: float, p: float, n1: int, n2: int) -> tuple[float, str]:
    """Pooled SD from a two-sided p of a t test: t = t⁻¹(1 − p/2, N1+N2−2), then as from t (Handbook 6.5.2.3)."""
    t = float(st.t.isf(p / 2, n1 + n2 - 2))
    sd, _ = sd_from_t(md, t, n1, n2)
    return sd, f"SD = (MD / t) / √(1/N1 + 1/N2), t = t⁻¹(1 − p/2, {n1 + n2 - 2}) (Handbook 6.5.2.3)"


#: a recomputed p "agrees" with a reported one within this factor (rounding of the printed numbers)
P_FACTOR = 3.0
#: a reported CI's SE "agrees" with a computed one within this relative distance
SE_TOLERANCE = 0.25


def _p_agrees(p_calc: float, p_rep: float, comparison: str) -> bool:
    if comparison == "<":
        return p_calc < p_rep * 1.0001
    if comparison == ">":
        return p_calc > p_rep * 0.9999
    lo, hi = max(p_rep / P_FACTOR, 1e-300), min(p_rep * P_FACTOR, 1.0)
    return lo <= p_calc <= hi


def se_signature(m1: float, s1: float, n1: float, m2: float, s2: float, n2: float, *,
                 p: tuple[float, str] | None = None, ci: tuple[float, float] | None = None) -> str | None:
    """Why two dispersions labelled SD look like SEs, or None: the comparison's reported p (value, "=", "<"
    or ">") or 95% CI of the mean difference disagrees with the numbers read as SDs and agrees with them
    read as SEs (SD = SE × √N). Welch's t-test (scipy ``ttest_ind_from_stats``) recomputes p."""
    if min(s1, s2) <= 0 or min(n1, n2) < 2:
        return None
    if p is not None:
        p_rep, cmp = p
        p_sd = float(st.ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=False).pvalue)
        p_se = float(st.ttest_ind_from_stats(m1, s1 * math.sqrt(n1), n1, m2, s2 * math.sqrt(n2), n2,
                                             equal_var=False).pvalue)
        if not _p_agrees(p_sd, p_rep, cmp) and _p_agrees(p_se, p_rep, cmp):
            return (f"reported p {cmp} {p_rep:g}: Welch p is {p_sd:.2g} with these as SDs, {p_se:.2g} with them "
                    f"as SEs (SD = SE × √N)")
    if ci is not None:
        se_rep = abs(ci[1] - ci[0]) / (2 * 1.959963984540054)
        se_sd = math.sqrt(s1**2 / n1 + s2**2 / n2)
        se_se = math.sqrt(s1**2 + s2**2)
        if se_rep > 0 and abs(se_se / se_rep - 1) <= SE_TOLERANCE and se_rep / se_sd >= 2:
            return (f"reported 95% CI of the difference implies SE {se_rep:.3g}: {se_sd:.3g} with these as SDs, "
                    f"{se_se:.3g} with them as SEs")
    return None
