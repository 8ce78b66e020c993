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

from claimtrace.stats.distributions import chi2_sf, f_sf, norm_isf, norm_sf, t_sf
from claimtrace.stats.model import RATIO_TESTS, StatResult, field_values

_COMPUTABLE = frozenset({"t", "F", "chi2", "r", "rho", "tau", "z", "Q"})
# estimates whose p is recomputed from their SE (coefficient / SE -> z -> p) or CI (CI -> SE -> z -> p)
_SE_ESTIMATES = frozenset({"b", "beta", "MD", "SMD", "RD"})
_LINEAR_ESTIMATES = frozenset({"MD", "SMD", "RD", "b", "beta", "d", "g"})
# estimates whose p is recomputed from their CI (when no SE gave one)
_CI_P_ESTIMATES = _SE_ESTIMATES | RATIO_TESTS | {"d", "g"}


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
        p = 2 * t_sf(v, df1)
    elif test == "z":
        p = 2 * norm_sf(v)
    elif test == "F" and df1 and df2:
        return f_sf(value, df1, df2) if value >= 0 else None
    elif test in ("chi2", "Q") and df1:
        return chi2_sf(value, df1) if value >= 0 else None
    elif test in ("r", "rho", "tau"):
        df = df1 if df1 else (n - 2 if n and n > 2 else None)
        if not df or v > 1:
            return None
        if v == 1:
            p = 0.0
        else:
            tval = v * math.sqrt(df / (1 - v * v))
            p = 2 * t_sf(tval, df)
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
    return k * norm_sf(z_hi), k * norm_sf(z_lo)


def _ci_p(r: StatResult) -> float | None:
    """p from a CI: SE = CI width / (2 z), z = (estimate - null) / SE (log scale for ratios); two-tailed."""
    lo, hi, est = r.ci_low, r.ci_high, r.value
    if lo is None or hi is None or est is None or not lo < hi:
        return None
    level = (r.ci_level or 95.0) / 100
    zc = norm_isf((1 - level) / 2)
    if r.test in RATIO_TESTS:
        if lo <= 0 or est <= 0:
            return None
        lo, hi, est, null = math.log(lo), math.log(hi), math.log(est), 0.0
    else:
        null = 0.0
    se = (hi - lo) / (2 * zc)
    return 2 * norm_sf(abs(est - null) / se) if se > 0 else None


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


_AGAINST = "one-tailed p against the direction of the effect (1 - p)"


def _consistent_against(r: StatResult, one: tuple[float, float], alpha: float, zero_error: bool) -> bool:
    """Whether a reported p above .5 is the one-tailed p of the other direction: 1 - p over ``one`` (the
    one-tailed range in the effect's direction), as when the effect goes against a directional hypothesis."""
    if r.p_comparison != "=" or r.p_value is None or r.p_value <= 0.5:
        return False
    return _consistent(r, (1.0 - one[1], 1.0 - one[0]), alpha, zero_error)


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
          p_zero_error: bool = False, p_equal_alpha_significant: bool = True,
          sentence_n: int | None = None, paper_ns: tuple[int, ...] = ()) -> StatResult:
    """Recompute p and flag inconsistencies and decision errors; returns a checked copy.

    ``one_tailed_context``: the result's scope (its sentence, or a statement for the whole text) says tests
    are one-tailed; then a result inconsistent two-tailed but consistent one-tailed counts as consistent.
    statcheck's behaviour, where it differs (docs/statistics.md): ``p_zero_error=True`` flags every
    ``p = .000`` as inconsistent; ``p_equal_alpha_significant=False`` reads ``p = .05`` as not significant.
    ``sentence_n`` / ``paper_ns``: the sample size stated in the result's sentence / those stated in the whole
    paper, used for an r, ρ or τ reported without df or N (df = N - 2; see ``_check_without_df``).
    """
    r = result.model_copy(update=_RESET)
    r.flags = []
    return _check(r, alpha, lambda _r: one_tailed_context, p_zero_error, p_equal_alpha_significant,
                  lambda _r: (sentence_n, paper_ns))


def _check(r: StatResult, alpha: float, one_tailed_context: Callable[[StatResult], bool],
           zero_error: bool = False, eq_sig: bool = True,
           sample_n: Callable[[StatResult], tuple[int | None, tuple[int, ...]]] | None = None) -> StatResult:
    """``check`` in place on a result whose check fields are unset (None, flags empty).

    ``one_tailed_context(r)`` is asked only when a result is inconsistent two-tailed (it may scan a text);
    ``sample_n(r)`` (the sentence's and the paper's stated sample size) only for a t, r, ρ or τ without df.
    """
    if r.planned:  # an effect size a power analysis plans: not a result, nothing to check
        r.flags.append("planned effect size (power analysis): not a result, not checked")
        return r
    if r.repaired and any(x.startswith("doubtful") for x in r.repaired):
        r.flags.append("rests on doubtful text (a damaged decimal point?): not checked")
        return r
    # the check fields (``_RESET``) are in the fields set of ``r`` already (both callers put them there): this step
    # writes them through ``field_values``, which is all pydantic's ``__setattr__`` would do (at many times the cost)
    v = field_values(r)
    v["significant"] = reported_significant(r, alpha, eq_sig)
    if r.test == "t" and r.df2 is not None:
        if r.df1 == 1:  # "t(1, 67) = 0.74": F(1, 67) = t², so t with df 67
            r.df1, r.df2 = r.df2, None
            r.flags.append("t(1, df) read as t(df) (F(1, df) = t²)")
        else:
            r.flags.append("t with two numbers in its parentheses is not t(df): not checked")
    if r.test == "z" and r.df1 is not None:
        r.flags.append("z has no df: the number in its parentheses is ignored")
    if r.test in _COMPUTABLE and r.value is not None and r.comparison in (None, "=", "<", ">", "<=", ">="):
        v["computed_p"] = compute_p(r.test, r.value, None if r.test == "z" else r.df1, r.df2, n=r.n,
                                    one_tailed=r.one_tailed)
        if r.computed_p is not None and r.comparison not in (None, "="):
            r.flags.append(f"statistic reported as '{r.comparison}': the computed p is a bound")
        if r.computed_p is not None and r.p_comparison is not None:
            prange = _p_range(r, r.one_tailed)
            if prange is not None:
                ok = _consistent(r, prange, alpha, zero_error)
                if not ok and r.one_tailed and _consistent_against(r, prange, alpha, zero_error):
                    ok = True
                    r.flags.append(_AGAINST)
                if not ok and not r.one_tailed and r.test in ("t", "z", "r", "rho", "tau") and one_tailed_context(r):
                    one = _p_range(r, True)
                    if one is not None and _consistent(r, one, alpha, zero_error):
                        ok = True
                        r.flags.append("consistent only as a one-tailed test")
                    elif one is not None and _consistent_against(r, one, alpha, zero_error):
                        ok = True
                        r.flags.append("consistent only as a one-tailed test")
                        r.flags.append(_AGAINST)
                v["consistent"] = ok
                if not ok:
                    rep_sig = reported_significant(r, alpha, eq_sig)
                    comp_sig = r.computed_p <= alpha
                    v["decision_error"] = rep_sig is not None and rep_sig != comp_sig
                    r.flags.append("inconsistent p-value")
                    if r.decision_error:
                        r.flags.append(f"decision error at alpha={alpha:g}")
                else:
                    v["decision_error"] = False
        if r.computed_p is None and r.df1 is None and r.n is None and r.test in ("t", "r", "rho", "tau"):
            _check_without_df(r, alpha, zero_error, one_tailed_context, *(sample_n(r) if sample_n is not None else (None, ())))
        if r.significant is None and r.computed_p is not None and r.comparison in (None, "="):
            v["significant"] = r.computed_p <= alpha
        if (r.significant is None and r.computed_p is None and r.p_comparison is None and r.test == "t"
                and r.df1 is None and r.n is None):
            _t_significance_any_df(r, alpha)  # no p reported: where a p bound is ("p < .10"), it is the author's
    elif r.test in _SE_ESTIMATES and r.value is not None and r.se is not None and r.se > 0:
        _check_se(r, alpha, zero_error, eq_sig)
    if r.ci_low is not None and r.ci_high is not None:
        _check_ci(r, alpha)
        if r.computed_p is None and r.test in _CI_P_ESTIMATES:
            r.computed_p = _ci_p(r)
            if r.computed_p is not None and r.test in ("d", "g"):
                r.flags.append("p from the CI (normal approximation: SE = CI width / 2z)")
    return r


def _check_without_df(r: StatResult, alpha: float, zero_error: bool,
                      one_tailed_context: Callable[[StatResult], bool], sentence_n: int | None,
                      paper_ns: tuple[int, ...]) -> None:
    """t, r, ρ, τ reported without df: bounds on p over the df the result can have.

    r/ρ/τ with a stated sample size N: p recomputed with df = N - 2. Consistent when the reported p agrees
    at df = N - 2; inconsistent only with the sentence's own N and a reported p below what any df <= N - 2
    gives; otherwise left unchecked (a subsample, or trial-level data, may have another df). Where the paper
    states several N (and the sentence none), consistent only when the reported p agrees with the smallest
    and the largest (then with every N between: p is monotonic in df); never inconsistent.
    t: p over every df >= 1 lies between p(df = 1) and the normal limit (df -> oo); the reported p is
    consistent when some df gives it, inconsistent when it lies below the normal limit's p.
    """
    assert r.value is not None and r.test is not None
    if r.test in ("r", "rho", "tau"):
        ns = (sentence_n,) if sentence_n else tuple(n for n in paper_ns if n > 3)
        if not ns or abs(r.value) > 1 or r.comparison not in (None, "="):
            return
        if r.p_comparison is None and not sentence_n:
            return  # nothing to agree with, and the paper's N may not be this result's
        where = "the sentence's" if sentence_n else "the paper's stated"
        if len(ns) > 1:
            lo, hi = ns[0], ns[-1]
            ranges = [_p_range(r.model_copy(update={"df1": float(n - 2)}), r.one_tailed) for n in (lo, hi)]
            if all(pr is not None and _consistent(r, pr, alpha, zero_error) for pr in ranges):
                r.consistent, r.decision_error = True, False
                r.flags.append(f"consistent with df = N - 2 for every sample size the paper states (N = {lo} to {hi})")
            else:
                r.flags.append(f"the paper states several sample sizes (N = {lo} to {hi}) and the reported p does "
                               "not agree with all of them: left unchecked")
            return
        big_n = ns[0]
        df = float(big_n - 2)
        p_at = compute_p(r.test, r.value, df, None, one_tailed=r.one_tailed)
        exact = _p_range(r.model_copy(update={"df1": df}), r.one_tailed)
        if p_at is None or exact is None:
            return
        note = f"df = N - 2 = {big_n - 2} from {where} sample size (N = {big_n}): p derived from N"
        if r.p_comparison is None:
            r.computed_p = p_at
            r.flags.append(note)
            return
        if _consistent(r, exact, alpha, zero_error):
            r.computed_p, r.consistent, r.decision_error = p_at, True, False
            r.flags.append(note)
            return
        # below the lowest p any df <= N - 2 gives: impossible whatever subsample of the N was used
        if sentence_n and not _consistent(r, (exact[0], 1.0), alpha, zero_error):
            r.computed_p, r.consistent = p_at, False
            rep_sig = reported_significant(r, alpha)
            r.decision_error = rep_sig is not None and rep_sig != (p_at <= alpha)
            r.flags += [note, "inconsistent p-value (lower than any df <= N - 2 gives)"]
            if r.decision_error:
                r.flags.append(f"decision error at alpha={alpha:g}")
            return
        r.flags.append(f"reported p disagrees with df = N - 2 from {where} sample size (N = {big_n}); "
                       "that N may not be this result's: left unchecked")
        return
    if r.test == "t" and r.comparison in (None, "=") and r.p_comparison is not None:
        text = r.spans["value"].text if "value" in r.spans else None
        half = 0.5 * 10 ** (-_decimals(text))
        v = abs(r.value)

        def bounds(one: bool) -> tuple[float, float]:
            k = 1 if one else 2
            # df -> oo with the largest |t| that rounds to the value; df = 1 with the smallest
            return k * norm_sf(v + half), k * t_sf(max(v - half, 0.0), 1.0)

        ok = _consistent(r, bounds(r.one_tailed), alpha, zero_error)
        if not ok and not r.one_tailed and one_tailed_context(r) and _consistent(r, bounds(True), alpha, zero_error):
            ok = True
            r.flags.append("consistent only as a one-tailed test")
        r.consistent = ok
        r.decision_error = False
        if ok:
            r.flags.append("t without df: consistent for some df (p bounded by df = 1 and the normal limit)")
        else:
            r.flags.append("inconsistent p-value: outside the range any df gives for this t")


def _t_significance_any_df(r: StatResult, alpha: float) -> None:
    """A t without df or p whose significance is the same for every df: set ``significant`` (else leave it None).

    p over every df >= 1 lies between the normal limit (df -> oo) and df = 1, each taken at the end of the
    values that round to the reported t that gives the bound (as in ``_check_without_df``).
    """
    assert r.value is not None
    if r.comparison not in (None, "="):
        return
    half = 0.5 * 10 ** (-_decimals(r.spans["value"].text if "value" in r.spans else None))
    v, k = abs(r.value), 1 if r.one_tailed else 2
    if k * norm_sf(v + half) > alpha:
        r.significant = False
        r.flags.append("t without df: not significant at any df")
    elif k * t_sf(max(v - half, 0.0), 1.0) <= alpha:
        r.significant = True
        r.flags.append("t without df: significant at every df")


def _check_se(r: StatResult, alpha: float, zero_error: bool, eq_sig: bool) -> None:
    """Coefficient / SE -> z -> p (normal, large-sample), and the reported p against it (rounding allowed)."""
    assert r.value is not None and r.se is not None
    r.computed_p = 2 * norm_sf(abs(r.value) / r.se) / (2 if r.one_tailed else 1)
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
            p_zero_error: bool = False, p_equal_alpha_significant: bool = True,
            paper_ns: tuple[int, ...] | None = None) -> list[StatResult]:
    """Parse and check every result in ``text``.

    ``one_tailed_context`` defaults to each result's own scope: its sentence says one-tailed / one-sided /
    directional test, or the text states that tests were one-tailed (``one_tailed_scope``).
    ``p_zero_error`` and ``p_equal_alpha_significant`` as in ``check``. An r, ρ or τ without df takes N from
    its sentence (``sentence_sample``), else ``paper_ns`` (default: the N the text states, ``stated_samples``).
    """
    from claimtrace.stats.parser import (
        one_tailed_in_sentence,
        one_tailed_scope,
        parse,
        sentence_sample,
        stated_samples,
    )

    paper: list[tuple[int, ...]] = [] if paper_ns is None else [paper_ns]

    def sample(r: StatResult) -> tuple[int | None, tuple[int, ...]]:
        if not paper:
            paper.append(stated_samples(text))
        return sentence_sample(text, r.start, r.end), paper[0]

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
        r.model_fields_set.update(_RESET, ("flags",))
        _check(r, alpha, ctx, p_zero_error, p_equal_alpha_significant, sample)
    return out
