"""Inverse-variance pooling of per-study effects with statsmodels, and the forest plot.

``statsmodels.stats.meta_analysis.combine_effects`` gives the fixed-effect and random-effects
estimates: DerSimonian–Laird (``method_re="chi2"``) and Paule–Mandel (``method_re="iterated"``).
statsmodels offers no REML estimator for this; with ``reml=True`` τ² is estimated by REML with PyMARE
(``VarianceBasedLikelihoodEstimator(method="REML")``, MIT, the ``reml`` extra) and the pooled estimate is
the inverse-variance mean with weights 1 / (vᵢ + τ²), SE = 1 / √Σw, as metafor's ``rma(method="REML")``
reports it. The prediction interval is Higgins et al. (2009): μ ± t(0.975, k−2) × √(τ² + SE(μ)²).
"""

from __future__ import annotations

import math
from pathlib import Path

from claimtrace.errors import ClaimtraceError
from claimtrace.numbers.model import MetaResult, PooledEstimate, Study
from claimtrace.plots import ForestRow, forest_plot

RATIO_MEASURES = frozenset({"OR", "RR", "HR", "logOR", "logRR", "logHR"})


def pool(studies: list[Study], *, measure: str = "SMD", reml: bool = False) -> MetaResult:
    """Fixed and random effects (DL, PM, and REML when asked) with τ², I², Q and the prediction interval."""
    import numpy as np
    from scipy import stats as st
    from statsmodels.stats.meta_analysis import combine_effects

    if len(studies) < 2:
        raise ClaimtraceError("meta: at least two studies are needed")
    if any(s.vi <= 0 or not math.isfinite(s.vi) or not math.isfinite(s.yi) for s in studies):
        raise ClaimtraceError("meta: every study needs a finite effect and a positive variance")
    y = np.array([s.yi for s in studies])
    v = np.array([s.vi for s in studies])
    k = len(studies)
    randoms: list[PooledEstimate] = []
    tau2: dict[str, float] = {}
    fixed: PooledEstimate | None = None
    q = i2 = 0.0
    for name, method_re in (("DL", "chi2"), ("PM", "iterated")):
        res = combine_effects(y, v, method_re=method_re, use_t=False)
        frame = res.summary_frame(alpha=0.05)
        if fixed is None:
            fe = frame.loc["fixed effect"]
            fixed = PooledEstimate(model="fixed (inverse variance)", estimate=float(fe["eff"]), se=float(fe["sd_eff"]),
                                   ci_low=float(fe["ci_low"]), ci_high=float(fe["ci_upp"]))
            q = float(res.q)
            i2 = float(res.i2)
        re_ = frame.loc["random effect"]
        t2 = float(res.tau2)
        tau2[name] = t2
        mu, se = float(re_["eff"]), float(re_["sd_eff"])
        pi_lo = pi_hi = None
        if k >= 3:
            half = float(st.t.ppf(0.975, k - 2)) * math.sqrt(t2 + se**2)
            pi_lo, pi_hi = mu - half, mu + half
        randoms.append(PooledEstimate(model=f"random ({name})", estimate=mu, se=se, ci_low=float(re_["ci_low"]),
                                      ci_high=float(re_["ci_upp"]), pi_low=pi_lo, pi_high=pi_hi))
    assert fixed is not None
    if reml:
        t2 = reml_tau2(y, v)
        w = 1 / (v + t2)
        mu, se = float((w * y).sum() / w.sum()), float(1 / math.sqrt(w.sum()))
        z = float(st.norm.ppf(0.975))
        pi_lo = pi_hi = None
        if k >= 3:
            half = float(st.t.ppf(0.975, k - 2)) * math.sqrt(t2 + se**2)
            pi_lo, pi_hi = mu - half, mu + half
        tau2["REML"] = t2
        randoms.append(PooledEstimate(model="random (REML)", estimate=mu, se=se, ci_low=mu - z * se, ci_high=mu + z * se,
                                      pi_low=pi_lo, pi_high=pi_hi))
    return MetaResult(k=k, measure=measure, ratio=measure in RATIO_MEASURES, fixed=fixed, random=randoms, tau2=tau2,
                      q=q, df=k - 1, p_q=float(st.chi2.sf(q, k - 1)), i2=max(0.0, i2), studies=studies,
                      method="statsmodels.stats.meta_analysis.combine_effects (DL: chi2, PM: iterated)"
                      + ("; REML τ² by PyMARE VarianceBasedLikelihoodEstimator" if reml else ""))


def reml_tau2(y: object, v: object) -> float:
    """τ² by restricted maximum likelihood (PyMARE); a one-line error when PyMARE is not installed."""
    try:
        from pymare import Dataset
        from pymare.estimators import VarianceBasedLikelihoodEstimator
    except ImportError:
        raise ClaimtraceError("meta --reml needs PyMARE: pip install 'claimtrace[reml]'") from None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = VarianceBasedLikelihoodEstimator(method="REML").fit_dataset(Dataset(y=y, v=v))
    return max(0.0, float(est.summary().tau2.ravel()[0]))


def forest(result: MetaResult, path: str | Path) -> list[Path]:
    """A forest plot of the studies and pooled estimates as PNG and SVG (``path`` without or with a suffix)."""

    def tr(x: float) -> float:
        return math.exp(x) if result.ratio else x

    rows = [ForestRow(label=s.label or s.id, value=tr(s.yi), ci_low=tr(s.yi - 1.96 * math.sqrt(s.vi)),
                      ci_high=tr(s.yi + 1.96 * math.sqrt(s.vi)), ratio=result.ratio) for s in result.studies]
    for est in [result.fixed, *result.random]:
        rows.append(ForestRow(label=f"{est.model}", value=tr(est.estimate), ci_low=tr(est.ci_low),
                              ci_high=tr(est.ci_high), ratio=result.ratio))
    base = Path(path)
    base = base.with_suffix("") if base.suffix.lower() in (".png", ".svg") else base
    title = f"{result.measure}: k = {result.k}, I² = {100 * result.i2:.0f}%, τ² (DL) = {result.tau2['DL']:.3g}"
    return [forest_plot(rows, base.with_suffix(ext), title=title) for ext in (".png", ".svg")]
