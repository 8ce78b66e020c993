"""Ranges of p values and the level a multiple-comparison correction ran at are not results (psychsci TEI
sentences), while a corrected result with its own p still is."""

from __future__ import annotations

import pytest

from claimtrace.stats import analyze


@pytest.mark.parametrize("text", [
    # psychsci 0956797619830326
    "Table 2 shows that, on average, almost 40% of p values (.05 < p ≤ .10) in the 70 examined APA journals "
    "were reported as marginally significant between 1985 and 2016.",
    "Correlations ranged from 9% to 54%; .016 ≤ p ≤ .786.",
    # psychsci 09567976221145316
    "We z-scored all variables, and we FDR-corrected all p values for multiple comparisons at p < .05.",
    "All effects were Bonferroni-corrected at the p < .01 level.",
])
def test_not_a_result(text: str) -> None:
    assert analyze(text) == []


@pytest.mark.parametrize(("text", "p"), [
    ("The effect survived correction for multiple comparisons (p = .01).", 0.01),
    ("The effect was significant after FDR correction, p = .03.", 0.03),
    ("Judgments differed, t(20) = 2.50, p = .021; values with .05 < p < .10 were called marginal.", 0.021),
    ("The difference was reliable, F(1, 48) = 5.10, p = .029.", 0.029),
])
def test_results_beside_them_are_kept(text: str, p: float) -> None:
    (r,) = analyze(text)
    assert r.p_value == p
