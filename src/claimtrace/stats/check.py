"""Recompute p-values and check reported results (``check``), statcheck's rounding rule included.

p is recomputed for t, F, χ², r (and ρ, τ with df), z and Q (as χ²): two-tailed, or one-tailed
when the result says so (``one_tailed``). With ``one_tailed_context`` (the paper mentions one-tailed
tests somewhere) a result inconsistent two-tailed but consistent one-tailed counts as consistent, as
in statcheck. The reported statistic is consistent when any value that rounds to it (to its reported
decimals) gives a p that agrees with the reported comparison and p (itself taken with its rounding).
A decision error is an inconsistency that flips significance at ``alpha``. CIs are checked against
the point estimate (ratio measures on the log scale) and against the reported p (a 95% CI excludes
the null exactly when p < .05).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache
from types import ModuleType

from claimtrace.stats.model import RATIO_TESTS, StatResult


@lru_cache(maxsize=1)
def _special() -> ModuleType:
    """scipy.special, imported on first use (keeps `import claimtrace` and CLI start-up fast)."""
    from scipy import special

    return special


# Survival functions straight from scipy.special: what scipy.stats' t/norm/f/chi2 ``sf`` compute for
# x >= 0 and df > 0, without the per-call overhead of the distribution objects (~100x faster).
def _t_sf(x: float, df: float) -> float:
    return float(_special().stdtr(df, -x))


def _norm_sf(x: float) -> float:
    return float(_special().ndtr(-x))


def _f_sf(x: float, df1: float, df2: float) -> float:
    return 1.0 if x <= 0 else float(_special().fdtrc(df1, df2, x))


def _chi2_sf(x: float, df: float) -> float:
    return 1.0 if x <= 0 else float(_special().chdtrc(df, x))


_COMPUTABLE = frozenset({"t", "F", "chi2", "r", "rho", "tau", "z", "Q"})
# estimates whose p is recomputed from their SE (coefficient / SE -> z -> p) or CI (CI -> SE -> z -> p)
_SE_ESTIMATES = frozenset({"b", "beta", "MD", "SMD", "RD"})
_LINEAR_ESTIMATES = frozenset({"MD", "SMD", "RD", "b", "beta", "d", "g"})


def _decimals(text: str | None) -> int:
    if not text:
        return 2
    s = text.strip().lstrip("+-−– ")
    if "e" in s.lower() or "×" in s:
        return 10
    if "." in s:
        return len(s.split(".")[1].rstrip(" )"))
    return 0


def compute_p(test: str, value: float, df1: float | None, df2: float | None, *,
              n: int | None = None, one_tailed: bool = False) -> float | None:
    """The p-value of a test statistic (two-tailed unless ``one_tailed``); None when not computable."""
    v = abs(value)
    if test == "t" and df1 and df2 is None:  # "t(2,28)" is no t(df)
        p = 2 * _t_sf(v, df1)
    elif test == "z":
        p = 2 * _norm_sf(v)
    elif test == "F" and df1 and df2:
        return _f_sf(value, df1, df2) if value >= 0 else None
    elif test in ("chi2", "Q") and df1:
        return _chi2_sf(value, df1) if value >= 0 else None
    elif test in ("r", "rho", "tau"):
        df = df1 if df1 else (n - 2 if n and n > 2 else None)
        if not df or v > 1:
            return None
        if v == 1:
            p = 0.0
        else:
            tval = v * math.sqrt(df / (1 - v * v))
            p = 2 * _t_sf(tval, df)
    else:
        return None
    return p / 2 if one_tailed else p


def _p_range(r: StatResult, one_tailed: bool) -> tuple[float, float] | None:
    """Lowest and highest p over the values that round to the reported statistic.

    An inexact statistic bounds p, as in statcheck: ``t(28) < 2.2`` means p above p(2.2), ``>`` p below it.
    """
    assert r.test is not None and r.value is not None
    text = r.spans["value"].text if "value" in r.spans else None
    half = 0.5 * 10 ** (-_decimals(text))
    lo_v, hi_v = abs(r.value) - half, abs(r.value) + half
    lo_v = max(lo_v, 0.0)
    if r.test in ("r", "rho", "tau"):
        hi_v = min(hi_v, 1.0)
    ps = [compute_p(r.test, x, r.df1, r.df2, n=r.n, one_tailed=one_tailed) for x in (lo_v, hi_v)]
    p0, p1 = ps
    if p0 is None or p1 is None:
        return None
    lo_p, hi_p = min(p0, p1), max(p0, p1)
    if r.comparison in ("<", "<="):
        return lo_p, 1.0
    if r.comparison in (">", ">="):
        return 0.0, hi_p
    return lo_p, hi_p


def _se_p_range(r: StatResult, one_tailed: bool) -> tuple[float, float] | None:
    """Lowest and highest p of z = coefficient / SE over the values that round to both."""
    assert r.value is not None and r.se is not None
    hv = 0.5 * 10 ** (-_decimals(r.spans["value"].text if "value" in r.spans else None))
    hs = 0.5 * 10 ** (-_decimals(r.spans["se"].text if "se" in r.spans else None))
    v, se = abs(r.value), r.se
    z_lo = max(v - hv, 0.0) / (se + hs)
    z_hi = (v + hv) / (se - hs) if se - hs > 0 else math.inf
    k = 1 if one_tailed else 2
    return k * _norm_sf(z_hi), k * _norm_sf(z_lo)


def _ci_p(r: StatResult) -> float | None:
    """p from a CI: SE = CI width / (2 z), z = (estimate - null) / SE (log scale for ratios); two-tailed."""
    lo, hi, est = r.ci_low, r.ci_high, r.value
    if lo is None or hi is None or est is None or not lo < hi:
        return None
    level = (r.ci_level or 95.0) / 100
    zc = float(_special().ndtri(1 - (1 - level) / 2))
    if r.test in RATIO_TESTS:
        if lo <= 0 or est <= 0:
            return None
        lo, hi, est, null = math.log(lo), math.log(hi), math.log(est), 0.0
    else:
        null = 0.0
    se = (hi - lo) / (2 * zc)
    return 2 * _norm_sf(abs(est - null) / se) if se > 0 else None


def _consistent(r: StatResult, prange: tuple[float, float], alpha: float, zero_error: bool = False) -> bool:
    pmin, pmax = prange
    cmp = r.p_comparison
    if cmp == "ns":
        return pmax > alpha
    rep = r.p_value
    assert rep is not None
    if cmp == "=":
        dec = _decimals(r.spans["p"].text if "p" in r.spans else None)
        if dec >= 10:  # scientific notation: compare with a relative tolerance
            return pmin * 0.9 <= rep <= pmax * 1.1 + 1e-300
        half = 0.5 * 10 ** (-dec)
        if rep == 0:  # "p = .000" means p < .0005 (statcheck's pZeroError: always an error)
            return not zero_error and pmin < half
        return pmin <= rep + half and pmax >= rep - half
    if cmp in ("<", "<="):
        return pmin < rep if cmp == "<" else pmin <= rep
    if cmp in (">", ">="):
        return pmax > rep if cmp == ">" else pmax >= rep
    return True


def reported_significant(r: StatResult, alpha: float = 0.05, equal_significant: bool = True) -> bool | None:
    """Whether the reported p says significant at ``alpha`` (None when it cannot tell).

    ``p = alpha`` counts as significant unless ``equal_significant`` is False.
    """
    cmp, p = r.p_comparison, r.p_value
    if cmp is None:
        return None
    if cmp == "ns":
        return False
    assert p is not None
    if cmp in ("=", "<="):
        return p <= alpha if equal_significant else p < alpha
    if cmp == "<":
        return True if p <= alpha else None
    return False if p >= alpha else None


def _ci_null(test: str | None) -> float:
    return 1.0 if test in RATIO_TESTS else 0.0


def _check_ci(r: StatResult, alpha: float) -> None:
    lo, hi = r.ci_low, r.ci_high
    assert lo is not None and hi is not None
    ratio = r.test in RATIO_TESTS
    if lo > hi:
        r.ci_consistent = False
        r.flags.append("CI lower bound above upper bound")
        return
    if r.value is not None:
        est = r.value
        vt = r.spans["value"].text if "value" in r.spans else None
        ci_nums = re.findall(r"\d*\.?\d+", r.spans["ci"].text) if "ci" in r.spans else []
        slack = 0.5 * 10 ** (-_decimals(vt)) + 0.5 * 10 ** (-_decimals(ci_nums[-1] if ci_nums else None))
        inside = lo - slack <= est <= hi + slack
        symmetric = True
        if inside and r.test is not None and (ratio or r.test in _LINEAR_ESTIMATES):
            if ratio and lo > 0 and est > 0:
                a, b, c = math.log(lo), math.log(est), math.log(hi)
                tol = 0.2 * (c - a) + 0.5 * 10 ** (-_decimals(vt)) / est * 2 + 0.02
            else:
                a, b, c = lo, est, hi
                tol = 0.2 * (c - a) + 2 * slack
            symmetric = abs((c - b) - (b - a)) <= tol
        r.ci_consistent = inside and symmetric
        if not inside:
            r.flags.append("point estimate outside its CI")
        elif not symmetric:
            r.flags.append("CI not centred on the point estimate")
    null = _ci_null(r.test)
    excludes = lo > null or hi < null
    on_bound = lo == null or hi == null
    level = (r.ci_level or 95.0) / 100
    if r.p_comparison is not None and not on_bound:
        sig_at_level = reported_significant(r, alpha=round(1 - level, 6))
        if sig_at_level is not None:
            r.ci_p_consistent = sig_at_level == excludes
            if not r.ci_p_consistent:
                r.flags.append(f"CI {'excludes' if excludes else 'includes'} the null but p says "
                               f"{'not ' if excludes else ''}significant")
    # a CI says "significant" only for a comparison (a named effect measure), not for a single-group rate
    if r.significant is None and r.test is not None and not on_bound and abs(level - (1 - alpha)) < 1e-9:
        r.significant = excludes


_RESET = dict.fromkeys(("computed_p", "consistent", "decision_error", "significant", "ci_consistent",
                        "ci_p_consistent"))


def check(result: StatResult, *, alpha: float = 0.05, one_tailed_context: bool = False,
          p_zero_error: bool = False, p_equal_alpha_significant: bool = True) -> StatResult:
    """Recompute p and flag inconsistencies and decision errors; returns a checked copy.

    ``one_tailed_context``: the result's scope (its sentence, or a statement for the whole text) says tests
    are one-tailed; then a result inconsistent two-tailed but consistent one-tailed counts as consistent.
    statcheck's behaviour, where it differs (docs/statistics.md): ``p_zero_error=True`` flags every
    ``p = .000`` as inconsistent; ``p_equal_alpha_significant=False`` reads ``p = .05`` as not significant.
    """
    r = result.model_copy(update=_RESET)
    r.flags = []
    return _check(r, alpha, lambda _r: one_tailed_context, p_zero_error, p_equal_alpha_significant)


def _check(r: StatResult, alpha: float, one_tailed_context: Callable[[StatResult], bool],
           zero_error: bool = False, eq_sig: bool = True) -> StatResult:
    """``check`` in place on a result whose check fields are unset (None, flags empty).

    ``one_tailed_context(r)`` is asked only when a result is inconsistent two-tailed (it may scan a text).
    """
    r.significant = reported_significant(r, alpha, eq_sig)
    if r.test == "t" and r.df2 is not None:
        r.flags.append("t with two numbers in its parentheses is not t(df): not checked")
    if r.test == "z" and r.df1 is not None:
        r.flags.append("z has no df: the number in its parentheses is ignored")
    if r.test in _COMPUTABLE and r.value is not None and r.comparison in (None, "=", "<", ">", "<=", ">="):
        r.computed_p = compute_p(r.test, r.value, None if r.test == "z" else r.df1, r.df2, n=r.n,
                                 one_tailed=r.one_tailed)
        if r.computed_p is not None and r.comparison not in (None, "="):
            r.flags.append(f"statistic reported as '{r.comparison}': the computed p is a bound")
        if r.computed_p is not None and r.p_comparison is not None:
            prange = _p_range(r, r.one_tailed)
            if prange is not None:
                ok = _consistent(r, prange, alpha, zero_error)
                if not ok and not r.one_tailed and r.test in ("t", "z", "r", "rho", "tau") and one_tailed_context(r):
                    one = _p_range(r, True)
                    if one is not None and _consistent(r, one, alpha, zero_error):
                        ok = True
                        r.flags.append("consistent only as a one-tailed test")
                r.consistent = ok
                if not ok:
                    rep_sig = reported_significant(r, alpha, eq_sig)
                    comp_sig = r.computed_p <= alpha
                    r.decision_error = rep_sig is not None and rep_sig != comp_sig
                    r.flags.append("inconsistent p-value")
                    if r.decision_error:
                        r.flags.append(f"decision error at alpha={alpha:g}")
                else:
                    r.decision_error = False
        if r.significant is None and r.computed_p is not None and r.comparison in (None, "="):
            r.significant = r.computed_p <= alpha
    elif r.test in _SE_ESTIMATES and r.value is not None and r.se is not None and r.se > 0:
        _check_se(r, alpha, zero_error, eq_sig)
    if r.ci_low is not None and r.ci_high is not None:
        _check_ci(r, alpha)
        if r.computed_p is None and r.test in _SE_ESTIMATES | RATIO_TESTS:
            r.computed_p = _ci_p(r)
    return r


def _check_se(r: StatResult, alpha: float, zero_error: bool, eq_sig: bool) -> None:
    """Coefficient / SE -> z -> p (normal, large-sample), and the reported p against it (rounding allowed)."""
    assert r.value is not None and r.se is not None
    r.computed_p = 2 * _norm_sf(abs(r.value) / r.se) / (2 if r.one_tailed else 1)
    if r.p_comparison is not None:
        prange = _se_p_range(r, r.one_tailed)
        assert prange is not None
        ok = _consistent(r, prange, alpha, zero_error)
        r.consistent = ok
        r.decision_error = False
        if not ok:
            rep_sig = reported_significant(r, alpha, eq_sig)
            r.decision_error = rep_sig is not None and rep_sig != (r.computed_p <= alpha)
            r.flags.append("p inconsistent with the coefficient and its SE")
            if r.decision_error:
                r.flags.append(f"decision error at alpha={alpha:g}")
    if r.significant is None:
        r.significant = r.computed_p <= alpha


def analyze(text: str, *, alpha: float = 0.05, one_tailed_context: bool | None = None,
            p_zero_error: bool = False, p_equal_alpha_significant: bool = True) -> list[StatResult]:
    """Parse and check every result in ``text``.

    ``one_tailed_context`` defaults to each result's own scope: its sentence says one-tailed / one-sided /
    directional test, or the text states that tests were one-tailed (``one_tailed_scope``).
    ``p_zero_error`` and ``p_equal_alpha_significant`` as in ``check``.
    """
    from claimtrace.stats.parser import one_tailed_in_sentence, one_tailed_scope, parse

    if one_tailed_context is None:
        # the text's stated scope, looked up (a scan of the whole text) only if a result needs it, and once
        known: list[bool] = []

        def ctx(r: StatResult) -> bool:
            if not known:
                known.append(one_tailed_scope(text))
            return known[0] or one_tailed_in_sentence(text, r.start, r.end)
    else:
        def ctx(r: StatResult) -> bool:
            return bool(one_tailed_context)
    out = parse(text)
    for r in out:  # fresh results, checked in place (what ``check`` would copy first)
        r.__pydantic_fields_set__.update(_RESET, ("flags",))
        _check(r, alpha, ctx, p_zero_error, p_equal_alpha_significant)
    return out
