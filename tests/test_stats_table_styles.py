"""Reporting styles the SCORE development strings hold few of (issue 29): regression tables flattened to text with
stars, a coefficient's ratio in parentheses, df written after the statistic, ratios and tests named in words with
a capital, the SE of a coefficient named after a label. Strings written by the project (SCORE's strings carry no
licence to copy), one per style; and what must stay unread (means with stars, comparators, citations)."""

from __future__ import annotations

import pytest

from claimtrace.stats import analyze, parse


@pytest.mark.parametrize(("text", "value"), [
    ("Table 3, column 2, log income 0.214***", 0.214),
    ("Table 2, model 1, female: -0.087**", -0.087),
    ("union member 0.031* in the pooled model", 0.031),
    ("Table 5, tenure -0.214*** (-3.41)", -0.214),  # stars, a t in parentheses (signed: never an SE)
    ("Table 2, model 1, female -0.087 (0.032)***", -0.087),  # stars after the parentheses
])
def test_starred_estimate_without_a_name_is_a_result(text: str, value: float) -> None:
    (r,) = parse(text)
    assert (r.test, r.value, r.se) == ("b", value, None)
    assert r.spans["stars"].text.startswith("*")


def test_starred_estimate_with_an_se_after_a_colon_keeps_its_se() -> None:
    (r,) = parse("Model 2: 0.045*** (0.012)")
    assert (r.value, r.se) == (0.045, 0.012)


@pytest.mark.parametrize("text", [
    "M = 3.2**",  # a mean
    "Mean 4.15*",
    "p = .04*",  # a p with a footnote star: the p, not a coefficient
    "in 2004* and 2005",  # an integer: a year or a count
    "x2.5* faster",
    "0.99***",  # a table cell alone: the table reader reads its stars by the legend
    "-0.052 (0.019)***",
])
def test_starred_numbers_that_are_no_estimates(text: str) -> None:
    assert not [r for r in parse(text) if r.test == "b"]


@pytest.mark.parametrize(("text", "value"), [
    ("0.42 (t = 3.10)", 3.1),
    ("-0.19 [z = -2.20]", -2.2),
])
def test_ratio_in_parentheses_after_a_bare_estimate(text: str, value: float) -> None:
    (r,) = parse(text)
    assert (r.value, r.test_detail) == (value, "ratio of the coefficient before it")


@pytest.mark.parametrize(("text", "test", "df1", "df2"), [
    ("t = 3.02 with 120 degrees of freedom", "t", 120, None),
    ("t = 2.05, df = 44, p = .046", "t", 44, None),
    ("χ2 = 5.2 (df = 1), p = .02", "chi2", 1, None),
    ("chi-square = 12.3, df = 2, p < .01", "chi2", 2, None),
    ("χ2 = 18.2 with 4 df, p = .001", "chi2", 4, None),
    ("F = 4.10, df = 2, 145, p = .02", "F", 2, 145),
])
def test_df_written_after_the_statistic(text: str, test: str, df1: float, df2: float | None) -> None:
    (r,) = analyze(text)
    assert (r.test, r.df1, r.df2) == (test, df1, df2)
    if r.p_value is not None and r.p_comparison == "=":
        assert r.consistent is True  # the df make the p recomputable


def test_f_with_one_df_after_it_takes_none() -> None:
    (r,) = parse("F = 4.1, df = 2, p = .02")
    assert (r.test, r.df1, r.df2) == ("F", None, None)


@pytest.mark.parametrize(("text", "test", "value"), [
    ("Odds ratio = 1.45, p = .01", "OR", 1.45),
    ("Hazard ratio = 0.81, 95% CI 0.70-0.94", "HR", 0.81),
    ("Relative risk = 1.24 (1.09 to 1.41)", "RR", 1.24),
    ("OR: 2.14 (1.23-3.71)", "OR", 2.14),
    ("Wald = 6.32, p = .012", "chi2", 6.32),
    ("Wald statistic = 4.02, p = .045", "chi2", 4.02),
    ("F-test = 4.56, p = 0.03", "F", 4.56),
    ("η2p = .06", "partial_eta2", 0.06),
    ("a coefficient of 0.14 (p < 0.01)", "b", 0.14),
])
def test_names_read(text: str, test: str, value: float) -> None:
    r = parse(text)[0]
    assert (r.test, r.value) == (test, value)


@pytest.mark.parametrize(("text", "value", "se"), [
    ("coefficient on treatment 0.056, standard error 0.021", 0.056, 0.021),
    ("effect of the reform 0.12 (SE 0.04)", 0.12, 0.04),
    ("difference = 4.2 percentage points (s.e. = 1.8)", 4.2, 1.8),
])
def test_coefficient_after_its_label_before_its_se(text: str, value: float, se: float) -> None:
    assert any(r.value == value and r.se == se for r in parse(text)), parse(text)


def test_a_number_after_a_word_that_names_no_estimate_takes_no_se() -> None:
    assert not [r for r in parse("the mean age was 25.3 (SE 1.2)") if r.test == "b"]
    assert not parse("t = 3.02")  # a bare t: no df, p or coefficient (as before)
