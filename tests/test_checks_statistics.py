"""The statistics checks on a made paper with known problems (tests/fixtures/checks_demo_paper.txt) and on real
psychsci papers: each check gives the expected rows, located at their sentence."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimtrace.checks import CheckContext, CheckRow, registered_checks, run_checks
from claimtrace.documents import load_document
from claimtrace.stats import analyze_document
from conftest import FIXTURES, shared_path

DEMO = FIXTURES / "checks_demo_paper.txt"


def _rows(path: Path) -> list[CheckRow]:
    doc = load_document(path)
    from claimtrace.checks.statistics import CHECKS

    return run_checks(CheckContext(document=doc, stats=analyze_document(doc)), checks=CHECKS)


@pytest.fixture(scope="module")
def demo() -> list[CheckRow]:
    return _rows(DEMO)


def _flags(rows: list[CheckRow], check: str) -> list[CheckRow]:
    return [r for r in rows if r.check == check and r.severity in ("warn", "error")]


def test_statistics_checks_are_registered() -> None:
    ids = [c.id for c in registered_checks()]
    for cid in ("consistency", "imprecise_p", "marginal", "effect_size_missing", "effect_size_fit", "grim",
                "df_vs_n", "p_without_test", "power"):
        assert cid in ids


def test_consistency_decision_error(demo: list[CheckRow]) -> None:
    rows = _flags(demo, "consistency")
    assert [(r.severity, r.text) for r in rows] == [("error", "t(38) = 2.50, p = .40")]
    assert rows[0].data["computed_p"] == pytest.approx(0.0169, abs=1e-4)
    assert rows[0].location is not None and rows[0].location.unit_id == "p7.s1"


def test_imprecise_p_and_p_without_test(demo: list[CheckRow]) -> None:
    assert [r.message for r in _flags(demo, "imprecise_p")] == ["imprecise p: p < .05"]
    assert [r.message for r in _flags(demo, "p_without_test")] == ["p = .02 with no test statistic"]


def test_marginal_wording_is_attached_to_its_result(demo: list[CheckRow]) -> None:
    rows = _flags(demo, "marginal")
    assert [(r.data["phrase"], r.data.get("p_value")) for r in rows] == [
        ("marginally significant", 0.07), ("approached significance", 0.081)]
    assert rows[1].data["result"] == "F(2, 76) = 2.60, p = .081"


def test_effect_size_checks(demo: list[CheckRow]) -> None:
    missing = {r.text for r in _flags(demo, "effect_size_missing")}
    assert missing == {"t(45) = 1.10, p = .28", "F(2, 76) = 2.60, p = .081"}
    fit = {(r.data["measure"], r.data["reported"]) for r in _flags(demo, "effect_size_fit")}
    # d = 0.20 is below 2t/sqrt(N) for t(38) = 2.20 between groups; r = .48 is not t(38) = 2.50's .376;
    # partial eta squared .30 is not F(1, 38) = 4.10's .097; d z = 0.50 fits t(39) = 3.16
    assert fit == {("d", 0.20), ("r", 0.48), ("partial_eta2", 0.30)}


def test_grim_grimmer_and_df(demo: list[CheckRow]) -> None:
    grim = _flags(demo, "grim")
    assert [(r.data["grim"], r.data["grimmer"]) for r in grim] == [(False, None), (True, False)]
    df = _flags(demo, "df_vs_n")
    assert [(r.data["df"], r.data["n"]) for r in df] == [(45, 40)]


def test_power_records(demo: list[CheckRow]) -> None:
    rows = [r for r in demo if r.check == "power"]
    first = rows[0].data
    assert (first["type"], first["effect_size"], first["effect_metric"], first["power"], first["n"],
            first["software"]) == ("a priori", 0.5, "d", 0.8, 64, "G*Power")
    assert first["missing"] == ["alpha"] and rows[0].severity == "warn"
    assert rows[1].data["missing"] == ["effect_size", "alpha", "n"]


def test_every_row_is_located_and_valid(demo: list[CheckRow]) -> None:
    doc = load_document(DEMO)
    for r in demo:
        CheckRow.model_validate(r.model_dump())
        if r.severity == "ok":
            continue
        assert r.location is not None and r.location.unit_id is not None
        text = doc.abstract_text if r.location.scope == "abstract" else doc.body_text
        assert r.location.start is not None and r.location.end is not None
        assert text[r.location.start:r.location.end].strip()


def test_real_paper_adjusted_and_one_tailed_p() -> None:
    """09567976231223410 reports Bonferroni-corrected post hoc t tests: not counted as inconsistencies;
    0956797621996660 reports one-tailed p without saying so: flagged, and the row says the p fits one-tailed."""
    adj = _rows(shared_path("documents", "psychsci", "09567976231223410.xml"))
    assert not _flags(adj, "consistency")
    assert any(r.severity == "info" and "adjusts p" in r.message for r in adj if r.check == "consistency")
    one = _rows(shared_path("documents", "psychsci", "0956797621996660.xml"))
    flags = _flags(one, "consistency")
    assert flags and all(r.data["fits_one_tailed"] for r in flags)


def test_real_paper_p_of_the_test_before_a_coefficient() -> None:
    """09567976241266516: "χ 2 (1) = 0.16, β = -0.05, SE = 0.06, p = .69": the p is the χ² test's."""
    rows = _rows(shared_path("documents", "psychsci", "09567976241266516.xml"))
    assert not [r.text for r in _flags(rows, "consistency") if r.text and "β = -0.05" in r.text]


def test_a_funnel_plots_contour_legend_is_no_imprecise_p() -> None:
    # 09567976221083219, Fig. 5 as GROBID ran it into the text: "Standard Error p > .05 p < .05 p < .025 p < .01"
    doc = load_document(shared_path("documents", "psychsci", "09567976221083219.xml"))
    rows = run_checks(CheckContext(document=doc, stats=analyze_document(doc)), checks=registered_checks(),
                      only=["imprecise_p"])
    legend = [r for r in rows if r.location and r.location.unit_id == "p31.s1"]
    assert legend == []
    # a lone bound in a sentence is still flagged: the run, not the bound, makes a legend
    from claimtrace.documents import DocumentBuilder

    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    b.add_paragraph("The effect was reliable, t(40) = 2.10, p < .05, as predicted.", "Results")
    made = b.build()
    rows = run_checks(CheckContext(document=made, stats=analyze_document(made)), checks=registered_checks(),
                      only=["imprecise_p"])
    assert [r.severity for r in rows if r.check == "imprecise_p"] == ["warn"]


def test_a_figure_legend_left_in_the_body_is_no_imprecise_p() -> None:
    """09567976241242105: GROBID left Fig. 2's legend in the body ("Fig. 2. ... Blue points index R 2 predictions
    that were significant (p < .050); gray points ..."): what a mark means, not a result. The same bound in a
    result sentence of the paper ("significantly greater (p < .050) than ...") is still flagged."""
    doc = load_document(shared_path("documents", "psychsci", "09567976241242105.xml"))
    rows = run_checks(CheckContext(document=doc, stats=analyze_document(doc)), checks=registered_checks(),
                      only=["imprecise_p", "p_without_test"])
    at = {r.location.unit_id for r in rows if r.location and r.severity == "warn"}
    legend = doc.paragraph_of("p41.s4")
    assert legend.sentences[0].text == "Fig. 2." and "(p < .050)" in legend.sentences[3].text
    assert "p41.s4" not in at
    assert "p38.s9" in at


def _twin(name: str) -> list[CheckRow]:
    doc = load_document(shared_path("documents", "pdf-twins", name))
    return run_checks(CheckContext(document=doc, stats=analyze_document(doc)), checks=registered_checks(),
                      only=["consistency", "imprecise_p", "p_without_test"])


def _at(rows: list[CheckRow], check: str, severity: str = "warn") -> dict[str, CheckRow]:
    return {r.location.unit_id: r for r in rows
            if r.check == check and r.location and r.location.unit_id and r.severity == severity}


@pytest.mark.parametrize("name", ["psychsci-0956797620955209.tei.xml", "psychsci-0956797620955209.pdf"])
def test_equivalence_tests_thresholds_and_p_value_rules(name: str) -> None:
    """A fresh social paper, as TEI and PDF: its TOST p ("did not overlap with an effect size (d z ) of -0.35,
    t(248.4) = 2.01, p = .023"; the Method names "the two one-sided tests procedure") is one-sided by design; "our
    preregistered threshold (p < .025)" is a level, not a result; "we interpreted p values of .05 and above as ..."
    is a rule. The paper's real imprecise p ("ps > .07") is still flagged."""
    rows = _twin(name)
    cons = [r for r in rows if r.check == "consistency" and "t(248.4) = 2.01" in r.message]
    assert [r.severity for r in cons] == ["info"] and "equivalence test" in cons[0].message
    imprecise = [r.message for r in rows if r.check == "imprecise_p" and r.severity == "warn"]
    assert "imprecise p: p > .07" in imprecise and "imprecise p: p < .025" not in imprecise
    assert not [r for r in rows if r.check == "p_without_test" and r.severity == "warn" and "p = .05" in r.message]


def test_a_grobid_double_hyphen_minus_is_a_statistic() -> None:
    """eyecolor's TEI: "(B = --0.059, S.E. = 0.31, z = --0.19, p = 0.849)": GROBID writes the PDF's minus as "--";
    the z is there, so the p is not one without a test. to_err_is_human's "(p > .05), as the correlation was
    non-significant" still is."""
    assert not [r for r in _at(_twin("eyecolor.tei.xml"), "p_without_test").values() if "0.849" in r.message]
    assert [r.message for r in _at(_twin("to_err_is_human.tei.xml"), "p_without_test").values()] == [
        "p > .05 with no test statistic"]
