"""Forms read for SCORE's coded evidence (issue 13): coefficients with their SE in parentheses, a p that names its
own null hypothesis, and effect sizes planned in power analyses (marked, never checked)."""

from __future__ import annotations

import pytest

from claimtrace.stats import analyze, parse


def test_coefficient_with_se_in_parentheses_and_stars() -> None:
    # the first example of SCORE evidence
    (r,) = analyze("Table 2, Model 3, Dominant party × Security: -0.009 (0.004)**")
    assert (r.test, r.value, r.se) == ("b", -0.009, 0.004)
    assert r.spans["stars"].text == "**" and r.spans["se"].text == "0.004"
    assert r.computed_p == pytest.approx(0.0244, abs=1e-4) and r.significant is True
    assert any("read as its SE" in x for x in r.repaired)
    (d,) = analyze("income: 0.12 (0.05)†")
    assert (d.value, d.se) == (0.12, 0.05)


def test_coefficient_with_se_after_an_estimate_word() -> None:
    (r,) = analyze("Table 1, (6), Year 1 (2007–8): Treatment effect: schools in first quartile = 3.225 (1.395), p < .05")
    assert (r.value, r.se, r.p_comparison, r.p_value) == (3.225, 1.395, "<", 0.05)
    assert r.consistent is True  # z = 2.31, p = .021
    (n,) = analyze("Treatment effect: schools in first quartile = 2.933 (2.461)")
    assert n.significant is False


@pytest.mark.parametrize("text", [
    "Smith (2004) found effects (2005).",
    "as reported by Jones et al. (2004)",
    "see pp. 12 (3) and pp. 45-47",
    "Table 2 (N = 120)",
    "Study 2: 12 (3)",  # no stars, no estimate word: the number in parentheses is not known to be an SE
    "M = 3.2 (1.1)**",  # a mean and its SD
    "Effect: 0.5 (-2.1)",  # a negative number in parentheses is a t or z, never an SE
    "Probit (1 = 10G) = 10.806 (2.558)",
    "the effect = 12 (25%)",
])
def test_numbers_in_parentheses_that_are_no_coefficient_and_se(text: str) -> None:
    assert [r for r in parse(text) if r.se is not None] == []


def test_p_value_naming_its_null_hypothesis_stands_alone() -> None:
    text = ("Single to partnered (beta_sp): Parameter estimate = 0.18, Standard error = 0.09, Partnered to single "
            "(beta_ps): Parameter estimate = -0.30, Standard error = 0.09, p value (beta_ps = -beta_sp) = .339")
    a, b, p = analyze(text)
    assert (a.value, a.se, a.p_value) == (0.18, 0.09, None)
    assert (b.value, b.se, b.p_value) == (-0.3, 0.09, None)  # the p tests beta_ps = -beta_sp, not beta_ps alone
    assert (p.kind, p.p_comparison, p.p_value, p.test_detail) == ("p", "=", 0.339, "H0: beta_ps = -beta_sp")
    assert p.significant is False
    (q,) = analyze("Difference: p-Value (4) = .002")  # a column number, as before
    assert (q.p_value, q.test_detail) == (0.002, None)


@pytest.mark.parametrize(("text", "test", "value"), [
    ("We had 80% power to detect d = 0.5 with 64 per group.", "d", 0.5),
    ("A power analysis assuming r = .3 gave N = 84.", "r", 0.3),
    ("a power of .80 to detect a medium effect (d = 0.50)", "d", 0.5),
    ("The smallest effect size of interest was d = 0.3.", "d", 0.3),
    ("G*Power showed that to detect f2 = .15 we needed 77 participants.", "f2", 0.15),
    ("with 90% power to detect an effect size (d) = 0.4", "d", 0.4),
])
def test_planned_effect_sizes_are_marked_and_not_checked(text: str, test: str, value: float) -> None:
    (r,) = analyze(text)
    assert (r.test, r.value, r.planned) == (test, value, True)
    assert (r.computed_p, r.significant, r.consistent, r.decision_error) == (None, None, None, None)
    assert r.flags == ["planned effect size (power analysis): not a result, not checked"]


@pytest.mark.parametrize("text", [
    "As expected, the effect was large, d = 0.8.",
    "Participants primed with power scored higher, d = 0.45.",  # power as a construct, not a power analysis
    "We detected a large effect, d = 0.9.",
    "Assuming equal variances, the groups differed, t(40) = 2.5, p = .02, d = 0.78.",  # a test with its effect size
    "the correlation was r = .30, p < .01",
])
def test_effect_sizes_of_results_are_not_planned(text: str) -> None:
    assert [r.planned for r in analyze(text)] == [False]


def test_standard_error_named_with_its_clustering() -> None:
    (r,) = analyze("(coefficient on institutional congruence 20km term = 2.508, robust SE clustered at the rural "
                   "community = 0.390, p < 0.001")
    assert (r.test, r.value, r.se, r.p_comparison, r.p_value, r.consistent) == ("b", 2.508, 0.39, "<", 0.001, True)
    (b,) = analyze("b = 0.31, SE clustered by school = 0.12, p = .01")
    assert (b.value, b.se) == (0.31, 0.12)
    assert analyze("Standard errors clustered by state are in parentheses.") == []


def test_row_label_r_before_a_standard_error_is_a_coefficient() -> None:
    # economics tables name a variable "r" (an interest rate): "r: -.037, Standard error = .013" is its coefficient
    (r,) = analyze("TABLE 8, (1), r: -.037, Standard error = .013, Significant at 1 percent.")
    assert (r.test, r.value, r.se, r.p_comparison, r.p_value) == ("b", -0.037, 0.013, "<", 0.01)
    assert r.consistent is True
    (c,) = analyze("r = .25, SE = .04")  # a correlation with "=" stays a correlation
    assert c.test == "r"
