"""Coefficient and result forms of social-science evidence (issue 29): written as papers write them, by the
project (SCORE's strings carry no licence to copy): a coefficient before its SE without a comparator, the SE named
after the coefficient, stars on a coefficient, a coefficient's t ratio, statistics named in full, ratios before a
bare CI, p as a power of ten, and what must stay unread (table headers, means with starred SDs)."""

from __future__ import annotations

import pytest

from claimtrace.stats import analyze, parse


@pytest.mark.parametrize(("text", "value", "se"), [
    ("The coefficient for distance: -0.43 (SE 0.12) in the preferred model.", -0.43, 0.12),
    ("the coefficient is 0.21 (s.e. 0.05), about a fifth of a standard deviation", 0.21, 0.05),
    ("a coefficient of 1.07 with a standard error of 0.31", 1.07, 0.31),
    ("Estimate: 0.84; SE: 0.27", 0.84, 0.27),
    ("Table 4, column 2, coefficient 0.021, standard error 0.008", 0.021, 0.008),
    ("coefficient -2.68, SE 0.82 (model with controls)", -2.68, 0.82),
    ("Estimate 0.21, Std. Error 0.05, t value 4.2", 0.21, 0.05),
    ("b = 0.35 (std. err. 0.14)", 0.35, 0.14),
    ("B = 0.58, SE B = 0.19, β = .22", 0.58, 0.19),
    ("B = .21, SEB = .05", 0.21, 0.05),
    ("coefficient: 0.087, standard error: 0.031", 0.087, 0.031),
    ("The coefficient is 0.21 and its standard error is 0.05.", 0.21, 0.05),
    ("point estimate 0.32 (standard error 0.18)", 0.32, 0.18),
])
def test_coefficient_before_its_standard_error(text: str, value: float, se: float) -> None:
    assert any(r.value == value and r.se == se for r in parse(text)), parse(text)


@pytest.mark.parametrize(("text", "value", "se"), [
    ("Model 2: 0.045*** (0.012)", 0.045, 0.012),  # stars before the parentheses
    ("Table 4 column 1, treatment effect -0.19 (0.10)", -0.19, 0.10),  # right after an estimate word
    ("the estimate is 0.557 (0.125)", 0.557, 0.125),
    ("coef = 0.35 (0.14)", 0.35, 0.14),
])
def test_coefficient_with_se_in_parentheses(text: str, value: float, se: float) -> None:
    (r,) = parse(text)
    assert (r.test, r.value, r.se) == ("b", value, se)
    assert any("read as its SE" in x for x in r.repaired)


@pytest.mark.parametrize("text", [
    "Age, years 48.7* (4.3)",  # a mean (SD) with a star and no estimate word or ":": no coefficient
    "Score 21 (34.4)*",
    "we found the coefficient to be 1.34 [14], as in sheep",  # a citation in brackets
    "Side effects\n47 (65.3)\n48 (61.5)",  # a row label over a cell of n (%)
])
def test_starred_cells_without_a_label_are_no_coefficients(text: str) -> None:
    assert not [r for r in parse(text) if r.se is not None]


def test_se_of_b_is_not_a_second_coefficient() -> None:
    (r,) = parse("B = 0.58, SE B = 0.19")
    assert (r.value, r.se) == (0.58, 0.19)


def test_stars_on_a_named_coefficient_make_it_a_result() -> None:
    (r,) = analyze("the interaction term is positive (B = .12*)")
    assert (r.test, r.value, r.p_value, r.spans["stars"].text) == ("b", 0.12, None, "*")
    (c,) = analyze("coefficient 0.23*** in the full sample")
    assert (c.value, c.spans["stars"].text) == (0.23, "***")
    assert not parse("B = .12 in the first group")  # no stars, p, SE or CI: no result


def test_t_ratio_of_a_coefficient() -> None:
    res = analyze("Long-short portfolio beta 0.32, t-stat 1.81")
    assert [(r.test, r.value) for r in res] == [("t", 1.81)]
    (r,) = analyze("b = .21, t = 3.10")
    assert (r.test, r.value, r.test_detail) == ("t", 3.1, "ratio of the coefficient before it")
    (m,) = analyze("means were 57.8 ± 21.2 and 55.4 ± 20.3 (t = 0.445, df = 57, p = 0.66)")
    assert m.test_detail is None  # a t with its own p is no coefficient's ratio
    assert not parse("the threshold was t = 2.1")  # a bare t: no df, p or coefficient


@pytest.mark.parametrize(("text", "test", "value"), [
    ("a t-statistic of 2.10 for the gap", "t", 2.1),
    ("t-value = 2.45", "t", 2.45),
    ("z value 2.4 in the pooled sample", "z", 2.4),
    ("F-values of 6.57 and 11.43 (P < 0.01)", "F", 6.57),
])
def test_statistic_named_in_full(text: str, test: str, value: float) -> None:
    r = parse(text)[0]
    assert (r.test, r.value) == (test, value)


def test_named_statistic_in_a_table_header_takes_no_cell() -> None:
    assert not parse("Variable\nt statistic\n\n1\n2")
    assert not parse("Source\nF value\n25.710\n1.349")


@pytest.mark.parametrize(("text", "test", "value", "lo", "hi"), [
    ("OR 1.52 [1.10-2.04] for the second tertile", "OR", 1.52, 1.10, 2.04),
    ("HR 0.81 (0.66–0.98) after adjustment", "HR", 0.81, 0.66, 0.98),
    ("AOR 2.13 (1.31–3.42)", "OR", 2.13, 1.31, 3.42),
    ("the relative risk was 1.24 (1.09 to 1.41)", "RR", 1.24, 1.09, 1.41),
])
def test_ratio_before_a_bare_ci(text: str, test: str, value: float, lo: float, hi: float) -> None:
    (r,) = analyze(text)
    assert (r.test, r.value, r.ci_low, r.ci_high) == (test, value, lo, hi)
    assert r.significant is True


def test_ratio_named_before_its_p_is_one_result() -> None:
    (r,) = analyze("mortality fell (OR 1.17, P=0.25)")
    assert (r.kind, r.test, r.value, r.p_value) == ("estimate", "OR", 1.17, 0.25)


@pytest.mark.parametrize(("text", "p"), [
    ("p < 10^-4", 1e-4), ("p < 10−6", 1e-6), ("p < 10^(-3)", 1e-3),
])
def test_p_as_a_power_of_ten(text: str, p: float) -> None:
    (r,) = analyze(text)
    assert (r.p_comparison, r.p_value) == ("<", pytest.approx(p))


@pytest.mark.parametrize(("text", "p"), [
    ("all differences were reliable, p's < .05", 0.05),
    ("significant at the five percent level", 0.05),
    ("the estimate is significant (10% level)", 0.10),
    ("(sig. at 5%)", 0.05),
])
def test_p_forms(text: str, p: float) -> None:
    (r,) = analyze(text)
    assert (r.p_comparison, r.p_value) == ("<", pytest.approx(p))


def test_se_is_not_given_to_a_p_verdict() -> None:
    assert all(r.se is None for r in parse("n.s.\n MID ≥5\n(SE 0.72)") if r.kind == "p")
    # the SE after a p belongs to the estimate after it (before: the p took it)
    res = parse("fell more (p = .008) and the mania scale fell by 1.3 points (SE 0.11) as well")
    assert [(r.kind, r.p_value, r.se) for r in res] == [("p", 0.008, None)]


def test_difference_with_an_se_header() -> None:
    (r,) = analyze("mean difference (SE): 219 (73), p = 0.02")
    assert (r.test, r.value, r.se, r.p_value) == ("MD", 219.0, 73.0, 0.02)
