"""Social-science prose styles (economics, political science, sociology, education, medicine) next to APA, and
APA forms met in real papers: thousands separators in a value, Cohen's d_z."""

from __future__ import annotations

import pytest

from claimtrace.stats import analyze, analyze_document, compute_p
from conftest import shared_path


def _one(text: str):
    res = [r for r in analyze(text) if r.kind != "descriptives"]
    assert len(res) == 1, [r.text for r in res]
    return res[0]


@pytest.mark.parametrize(("text", "test", "detail", "value", "se"), [
    ("b = 0.23, SE = 0.05", "b", None, 0.23, 0.05),
    ("coefficient = 0.23, standard error = 0.05", "b", "coefficient", 0.23, 0.05),
    ("B (SE) = .026 (.009)", "b", None, 0.026, 0.009),
    ("Coefficient (SE) = -.0004 (.001), p Value = .722", "b", "coefficient", -0.0004, 0.001),
    ("Beta_1 = -0.283 [0.202]", "beta", None, -0.283, 0.202),
    ("β = .44, SE = .09, p < .001", "beta", None, 0.44, 0.09),
    ("Marginal effect = 0.034, SE = 0.024", "b", "marginal effect", 0.034, 0.024),
    ("OLS estimate = 566.5, robust standard error = 209.0", "b", "estimate", 566.5, 209.0),
    ("Development index: -1.61, Standard error = 0.83, p < 0.1", "b", "coefficient", -1.61, 0.83),
    ("gamma (SE) = .87 (1.25)", "b", "gamma", 0.87, 1.25),
])
def test_coefficient_with_se(text: str, test: str, detail: str | None, value: float, se: float) -> None:
    r = _one(text)
    assert (r.test, r.test_detail, r.value, r.se) == (test, detail, value, se)
    assert r.computed_p == pytest.approx(compute_p("z", value / se, None, None))


def test_coefficient_se_recomputes_p_and_flags_an_inconsistent_p() -> None:
    ok = _one("b = 0.23, SE = 0.05, p < .001")  # z = 4.6
    assert ok.consistent is True and ok.significant is True
    bad = _one("b = 0.23, SE = 0.05, p = .34")
    assert bad.consistent is False and bad.decision_error is True
    assert "p inconsistent with the coefficient and its SE" in bad.flags
    # rounding: .026/.009 gives z 2.89 (p .004), but .0255/.0095 gives p .007: p = .006 is consistent
    assert _one("B (SE) = .026 (.009), p = .006").consistent is True


@pytest.mark.parametrize(("text", "level"), [
    ("significant at the 1 percent level", 0.01), ("Significant at 5 percent.", 0.05),
    ("significant at 10% level", 0.10), ("statistical significance at the...1%", 0.01),
    ("significance at the 1%...levels", 0.01),
])
def test_significance_levels_are_p_comparisons(text: str, level: float) -> None:
    r = _one(f"Income: 0.0694, Standard error = 0.0390, {text}")
    assert (r.p_comparison, r.p_value) == ("<", level)


def test_statistic_names_in_full() -> None:
    t = _one("t-statistic = -2.49")
    assert (t.test, t.value, t.df1) == ("t", -2.49, None)
    f = _one("F-statistic = 4.1, p = .04")
    assert (f.test, f.value) == ("F", 4.1)
    w = _one("Wald χ2(2) = 7.1, p = .03")
    assert (w.test, w.df1, w.consistent) == ("chi2", 2, True)
    z = _one("z = -1.26, p = .21")
    assert z.test == "z" and z.consistent is True


def test_ratio_with_ci_header_and_ci_to_p() -> None:
    r = _one("OR (95% CI) = 1.11 (1.01–1.21)")
    assert (r.test, r.value, r.ci_level, r.ci_low, r.ci_high) == ("OR", 1.11, 95.0, 1.01, 1.21)
    assert r.computed_p is not None and 0.01 < r.computed_p < 0.05  # CI -> SE -> z -> p (log scale)
    assert r.significant is True
    hr = _one("HR (95% CI) = 0.93 (0.80–1.08)")
    assert hr.significant is False and hr.computed_p is not None and hr.computed_p > 0.05


def test_ll_ul_confidence_interval() -> None:
    res = analyze("Estimate = -0.08, se = 0.45, z = -0.18, 95% CI: LL = -0.96, UL = 0.80")
    assert any(r.ci_low == -0.96 and r.ci_high == 0.80 for r in res)
    assert any(r.test == "b" and r.se == 0.45 for r in res)


def test_spss_output() -> None:
    r = _one("Pearson Correlation = .151, Sig. (2-tailed) = .000")
    assert (r.test, r.value, r.p_comparison, r.p_value) == ("r", 0.151, "=", 0.0)
    assert r.significant is True
    b, t = analyze("B = .39, Std error = .09, t = 4.20, Sig < .001")
    assert (b.test, b.value, b.se) == ("b", 0.39, 0.09)
    assert (t.test, t.value, t.p_comparison, t.p_value) == ("t", 4.20, "<", 0.001)


def test_no_result_from_labels_years_or_tables() -> None:
    assert analyze("Table 4, columns (1)-(6), 1996-2004, Model 3") == []
    assert analyze("The coefficient estimates are in Table 2 (columns 3 and 4).") == []


def test_p_without_its_letter_after_a_statistic() -> None:
    r = _one("Dif. (%) = -8, t = -3.11, < 0.01")
    assert (r.test, r.value, r.p_comparison, r.p_value) == ("t", -3.11, "<", 0.01)
    assert analyze("t(20) = 2.50, = .02")[0].p_comparison is None  # "= .02" without "p" stays unread


def test_meta_analytic_and_partial_correlations() -> None:
    r = _one("rho-hat = -.32, 80% credibility interval: LL = -.46, UL = -.18")
    assert (r.test, r.value, r.ci_level, r.ci_low, r.ci_high) == ("rho", -0.32, 80.0, -0.46, -0.18)
    p = _one("pr = -.24, p < .05")
    assert (p.test, p.test_detail, p.value) == ("r", "partial", -0.24)


# --- forms added from the SCORE development strings (i13-stats2) ---------------------------------------------
def test_p_value_with_a_table_column_number() -> None:
    r = _one("Male CAs (2) = 23%, Female CAs (3) = 43%, Difference: p-Value (4) = .002")
    assert (r.kind, r.p_comparison, r.p_value, r.significant) == ("p", "=", 0.002, True)
    assert _one("p value (two-tailed) = .03").one_tailed is False
    assert _one("p-value (one-tailed) = .03").one_tailed is True
    assert analyze("p (2) = .04") == []  # only after "p value": "p (2)" is no p-value with a column number


@pytest.mark.parametrize(("text", "cmp", "level"), [
    ("the Kolmogorov-Smirnov test rejecting the distributions being the same at the 10% level", "<", 0.10),
    ("We reject the null hypothesis of no effect at the 5 percent level.", "<", 0.05),
    ("The equality of the two coefficients is rejected at the 1% significance level.", "<", 0.01),
    ("We cannot reject the null hypothesis at the 5 percent level.", ">", 0.05),
    ("Equality of coefficients is not rejected at the 10% level.", ">", 0.10),
])
def test_null_rejected_at_a_level(text: str, cmp: str, level: float) -> None:
    r = _one(text)
    assert (r.kind, r.p_comparison, r.p_value) == ("p", cmp, level)
    assert r.significant is (True if cmp == "<" and level <= 0.05 else False if cmp == ">" else None)


def test_reject_without_a_level_is_no_result() -> None:
    assert analyze("Reviewers may reject the paper at the last stage.") == []
    assert analyze("We reject this interpretation.") == []


@pytest.mark.parametrize(("text", "test"), [
    ("Independent samples t-tests for all comparisons between Group and Individual PCIT conditions were not "
     "statistically significant.", "t"),
    ("A chi-square test revealed no significant difference between the arms.", "chi2"),
    ("The Mann-Whitney U test showed no statistically significant difference.", "U"),
    ("An ANOVA on age showed no significant effect of group.", "F"),
    ("Fisher's exact test showed no significant association.", None),
])
def test_named_test_reported_not_significant_in_words(text: str, test: str | None) -> None:
    r = _one(text)
    assert (r.kind, r.test, r.value, r.p_comparison, r.significant) == ("p", test, None, "ns", False)
    assert r.computed_p is None and r.consistent is None  # nothing to recompute
    assert text[r.spans["test"].start : r.spans["test"].end] == r.test_text


def test_verbal_verdict_needs_a_named_test_and_no_numbers() -> None:
    assert analyze("The difference between the groups was not significant.") == []
    only = _one("The t-test, t(28) = 1.2, p = .24, was not significant.")  # the numbers are the result
    assert (only.test, only.df1, only.p_value) == ("t", 28, 0.24)
    r = _one("Weight 68.46±10.06 73.40±11.24 0.230 Between-group t-tests at baseline showed no significant "
             "differences.")
    assert r.descriptives == [] and r.text.startswith("t-tests")  # a table's numbers before it are not its own


def test_share_of_variance_explained_is_an_r2() -> None:
    r = _one("Trait anxiety accounted for 4.6% of the variance in scores.")
    assert (r.test, r.test_detail, r.value) == ("R2", "variance explained", pytest.approx(0.046))
    f = _one("F(1, 50) = 4.2, p = .04, explaining 8% of the variance")
    assert f.test == "F" and [(e.measure, e.value) for e in f.effects] == [("R2", 0.08)]
    assert analyze("costs rose by 150% of the variance budget") == []


def test_t_without_df_decides_significance_when_every_df_agrees() -> None:
    lo = _one("Avg. diff. in coeff. = 0.021, t-statistic = 1.33")  # p >= .18 at every df
    assert (lo.significant, lo.computed_p) == (False, None)
    assert "t without df: not significant at any df" in lo.flags
    hi = _one("t-statistic = 25.3")  # p <= .025 even at df = 1
    assert hi.significant is True and "t without df: significant at every df" in hi.flags
    assert _one("t-statistic = 2.5").significant is None  # p .012 (normal) to .24 (df = 1): depends on df
    # a reported p bound is the author's: "p < .10" leaves it undecided at .05 (not overridden by the df bounds)
    assert _one("t-statistic = -1.794, statistical significance at the 10%").significant is None


def test_macroman_minus_in_a_coefficient() -> None:
    r = _one("b=‚àí.050, SE=.025")
    assert (r.value, r.se) == (-0.05, 0.025)
    assert r.text == "b=‚àí.050, SE=.025"  # offsets index the text as given


def test_effect_size_named_in_parentheses() -> None:
    r = _one("weighted average effect size (using Cohen’s d) was .69")
    assert (r.test, r.value) == ("d", 0.69)
    e = _one("t(20) = 2.1, p = .04, effect size (η2) = .18")  # after a test: that test's effect size
    assert e.test == "t" and [(x.measure, x.value) for x in e.effects] == [("eta2", 0.18)]
    assert analyze("The effect size (Study 2) was 3.") == []
    # "of" introduces a target value (power analyses, planned differences), not a result
    assert analyze("differences with a standardized effect size (Cohen's d) of 0.4 or larger") == []
    # a power analysis plans an effect size: no result
    assert analyze("We had 80% power to detect a small effect size (r) of .12.") == []
    assert analyze("with 80% statistical power and an estimated medium effect size (d) of 0.50") == []


def _found_one(text: str, test: str):  # type: ignore[no-untyped-def]
    found = [r for r in analyze(text) if r.test == test]
    assert len(found) == 1, [(r.test, r.value) for r in analyze(text)]
    return found[0]


@pytest.mark.parametrize(("sentence", "test", "value", "df1", "df2", "n"), [
    ("A repeated-measures ANOVA showed a main effect of block, F(3, 126) = 1,705.7, p < .001.",
     "F", 1705.7, 3, 126, None),
    ("The one-factor model fit poorly, χ2(554, N = 237) = 1,012.58, p < .001.", "chi2", 1012.58, 554, None, 237),
])
def test_thousands_separator_keeps_the_whole_value(sentence: str, test: str, value: float, df1: float,
                                                   df2: float | None, n: int | None) -> None:
    r = _found_one(sentence, test)
    assert (r.value, r.df1, r.df2, r.n) == (value, df1, df2, n)
    assert r.consistent is True and not r.decision_error
    assert sentence[r.spans["value"].start:r.spans["value"].end] == f"{value:,}".rstrip("0")


def test_a_comma_that_is_not_a_thousands_separator_is_left_alone() -> None:
    # "= 3,5" (two digits after the comma) and a list after the value are not thousands
    assert _found_one("t(20) = 2, 345 participants took part", "t").value == 2
    assert _found_one("F(2, 100) = 3,50, p = .03", "F").value == 3


@pytest.mark.parametrize("sentence", [
    "Participants improved, t(29) = 8.61, p < .001, d z = 1.57.",
    "Participants improved, t(29) = 8.61, p < .001, d_z = 1.57.",
])
def test_cohens_d_z_is_an_effect_size_not_a_z_test(sentence: str) -> None:
    res = analyze(sentence)
    assert [r.test for r in res] == ["t"]
    assert [(e.measure, e.value) for e in res[0].effects] == [("d", 1.57)]


def test_d_z_with_its_ci_on_the_real_paper() -> None:
    """09567976231218640: "Cohen's d z = 0.30, 95% CI = [0.16, 0.44]", "Hedges's g z = -0.21, 95% CI ...":
    no z test at all in the paper (it reports none)."""
    from claimtrace.documents import load_document

    doc = load_document(shared_path("documents", "psychsci", "09567976231218640.xml"))
    res = analyze_document(doc)
    assert not [r.text for r in res if r.test == "z"]
    assert {r.value for r in res if r.test == "d"} >= {0.30, 0.48, 0.60}
    assert -0.21 in {r.value for r in res if r.test == "g"}


def test_d_z_alone_is_named_paired() -> None:
    r = _found_one("the effect, d z = 1.57, p < .001.", "d")
    assert r.test_detail == "d_z" and r.decision_error is None
