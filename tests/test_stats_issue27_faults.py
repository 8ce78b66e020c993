"""The parsing faults of issue 27, each on its real sentence (the issue's quotations, and the shared psychsci
papers where the form occurs there)."""

from __future__ import annotations

import pytest

from claimtrace.stats import analyze, analyze_document, one_tailed_scope
from conftest import shared_path


def _one(text: str, test: str):  # type: ignore[no-untyped-def]
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
    r = _one(sentence, test)
    assert (r.value, r.df1, r.df2, r.n) == (value, df1, df2, n)
    assert r.consistent is True and not r.decision_error
    assert sentence[r.spans["value"].start:r.spans["value"].end] == f"{value:,}".rstrip("0")


def test_a_comma_that_is_not_a_thousands_separator_is_left_alone() -> None:
    # "= 3,5" (two digits after the comma) and a list after the value are not thousands
    assert _one("t(20) = 2, 345 participants took part", "t").value == 2
    assert _one("F(2, 100) = 3,50, p = .03", "F").value == 3


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
    r = _one("the effect, d z = 1.57, p < .001.", "d")
    assert r.test_detail == "d_z" and r.decision_error is None


@pytest.mark.parametrize("sentence", [
    "Given the near ubiquity of anchoring effects in previous research, these were all onetailed tests.",
    "All reported tests were onesided.",
])
def test_onetailed_without_hyphen_sets_the_scope(sentence: str) -> None:
    assert one_tailed_scope(sentence)


def test_onetailed_in_the_sentence_makes_a_half_p_consistent() -> None:
    # t(29) = 1.80 gives two-tailed p = .082, one-tailed .041
    r = _one("A onetailed t test showed t(29) = 1.80, p = .041.", "t")
    assert r.one_tailed and r.consistent is True and not r.decision_error


def test_onetailed_scope_on_the_real_paper() -> None:
    from claimtrace.documents import load_document

    doc = load_document(shared_path("documents", "psychsci", "09567976221089599.xml"))
    assert "onetailed" in doc.body_text
    assert one_tailed_scope(doc.body_text)
    long = doc.body_text + " " * 10  # the long-text path of mentions_one_tailed (over 2,000 characters)
    assert len(long) > 2000 and one_tailed_scope(long)


def test_mean_sd_rows_of_a_table_are_not_coefficients() -> None:
    """09567976231164553, Table 1 (an overview of participants): "Mean age in years at Time 1 (SD)" cells such as
    "59.88 (12.10)" were read as coefficients with SEs and marked significant."""
    from claimtrace.documents import load_document
    from claimtrace.stats.tables import document_table_statistics

    doc = load_document(shared_path("documents", "psychsci", "09567976231164553.xml"))
    rows = [s for s in document_table_statistics(doc) if s.kind == "coefficient"]
    assert not [s.text for s in rows if s.row_label and "Mean" in s.row_label]
    assert not [s.text for s in rows if s.significant]


def test_regression_rows_named_mean_centered_are_kept() -> None:
    """09567976231194221, Table 3: "Parenting at Time 2 (mean centered)" is a predictor, its B (SE) kept."""
    from claimtrace.documents import load_document
    from claimtrace.stats.tables import document_table_statistics

    doc = load_document(shared_path("documents", "psychsci", "09567976231194221.xml"))
    labels = {s.row_label for s in document_table_statistics(doc) if s.kind == "coefficient"}
    assert "Parenting at Time 2 (mean centered)" in labels


def test_terminal_table_prints_95_percent_ci(capsys: pytest.CaptureFixture[str]) -> None:
    from claimtrace.cli.stats import compact_result
    from claimtrace.stats.model import DocumentStat

    res = [DocumentStat(**r.model_dump(), scope="text")
           for r in analyze("The effect was significant, t(20) = 2.5, p = .02, 95% CI [0.1, 0.9].")]
    cell = compact_result(res[0])
    assert "95% CI [0.1, 0.9]" in cell and "9500%" not in cell
