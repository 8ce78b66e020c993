"""Effect sizes with 95% CIs from per-arm numbers, computed by statsmodels.

Binary: OR and RR from ``statsmodels.stats.contingency_tables.Table2x2`` (0.5 added to every cell
when one is zero, before the table is built), RD from ``statsmodels.stats.proportion.confint_proportions_2indep`` (Wald).
Continuous: SMD (Hedges' g, bias-corrected) from ``statsmodels.stats.meta_analysis.effectsize_smd``;
MD with the normal-approximation CI, SE = √(SD1²/N1 + SD2²/N2).
"""

from __future__ import annotations

import math

from claimtrace.numbers.model import Effect

Z = 1.959963984540054


def binary_effects(e1: float, n1: float, e2: float, n2: float) -> list[Effect]:
    """OR, RR and RD (intervention arm 1 vs comparator arm 2) with 95% CIs."""
    import numpy as np
    from statsmodels.stats.contingency_tables import Table2x2
    from statsmodels.stats.proportion import confint_proportions_2indep

    if not (0 <= e1 <= n1 and 0 <= e2 <= n2 and n1 > 0 and n2 > 0):
        return []
    cells = np.array([[e1, n1 - e1], [e2, n2 - e2]], dtype=float)
    if (cells == 0).any():  # the usual continuity correction: 0.5 added to every cell
        cells = cells + 0.5
    tab = Table2x2(cells, shift_zeros=False)
    out: list[Effect] = []
    lo, hi = tab.oddsratio_confint(alpha=0.05)
    out.append(Effect(measure="OR", value=float(tab.oddsratio), ci_low=float(lo), ci_high=float(hi),
                      se=float(tab.log_oddsratio_se), log_scale=True, method="statsmodels Table2x2.oddsratio"))
    if e1 > 0 or e2 > 0:
        lo, hi = tab.riskratio_confint(alpha=0.05)
        out.append(Effect(measure="RR", value=float(tab.riskratio), ci_low=float(lo), ci_high=float(hi),
                          se=float(tab.log_riskratio_se), log_scale=True, method="statsmodels Table2x2.riskratio"))
    lo, hi = confint_proportions_2indep(e1, n1, e2, n2, method="wald", compare="diff", alpha=0.05)
    p1, p2 = e1 / n1, e2 / n2
    se = math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    out.append(Effect(measure="RD", value=p1 - p2, ci_low=float(lo), ci_high=float(hi), se=se,
                      method="statsmodels confint_proportions_2indep(method='wald')"))
    return out


def log_odds_ratio(e1: float, n1: float, e2: float, n2: float) -> float | None:
    """The log odds ratio (0.5 added to every cell when one is zero), or None when it cannot be computed."""
    eff = binary_effects(e1, n1, e2, n2)
    return math.log(eff[0].value) if eff and eff[0].value > 0 else None


def continuous_effects(m1: float, sd1: float, n1: float, m2: float, sd2: float, n2: float) -> list[Effect]:
    """MD and SMD (Hedges' g) with 95% CIs; empty when an SD or N is not positive."""
    from statsmodels.stats.meta_analysis import effectsize_smd

    if min(sd1, sd2) <= 0 or min(n1, n2) <= 1:
        return []
    md = m1 - m2
    se_md = math.sqrt(sd1**2 / n1 + sd2**2 / n2)
    g, var_g = effectsize_smd(m1, sd1, n1, m2, sd2, n2)
    se_g = math.sqrt(float(var_g))
    return [
        Effect(measure="MD", value=md, ci_low=md - Z * se_md, ci_high=md + Z * se_md, se=se_md,
               method="difference of means, SE = sqrt(SD1^2/N1 + SD2^2/N2), normal CI"),
        Effect(measure="SMD", value=float(g), ci_low=float(g) - Z * se_g, ci_high=float(g) + Z * se_g, se=se_g,
               method="statsmodels effectsize_smd (Hedges' g)"),
    ]
