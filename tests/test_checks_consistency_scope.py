"""The consistency check's explanations (issue 27): a p from a bootstrap or permutation procedure, and a p that is
one-tailed by a statement beyond its sentence. Real papers of the development part of bench/checks_psychsci.py's
split, and made Documents."""

from __future__ import annotations

from claimtrace.checks import CheckContext, run_checks
from claimtrace.checks.statistics import CHECKS
from claimtrace.documents import DocumentBuilder, load_document
from claimtrace.stats import analyze_document
from conftest import shared_path


def _consistency(doc):  # type: ignore[no-untyped-def]
    return run_checks(CheckContext(document=doc, stats=analyze_document(doc)), checks=CHECKS, only=["consistency"])


def _doc(*paragraphs: tuple[str, str, str]):  # type: ignore[no-untyped-def]
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    for text, heading, kind in paragraphs:
        b.add_paragraph(text, heading, kind=kind)  # type: ignore[arg-type]
    return b.build()


def test_a_bootstrapped_p_is_no_decision_error_on_the_real_paper() -> None:
    # 0956797618772822: "Applying a bootstrapping procedure (1,000 resam ples, 95% CI bias-corrected and
    # accelerated) corroborated the finding ..., b = -0.161, SE = 0.085, 95% CI = [-0.315, -0.011], p = .029"
    doc = load_document(shared_path("documents", "psychsci", "0956797618772822.xml"))
    rows = [r for r in _consistency(doc) if "b = -0.161" in (r.text or "")]
    assert len(rows) == 1 and rows[0].severity == "info"
    assert "bootstrap" in rows[0].data["excused"]
    # the paper's other inconsistencies, with no resampling in their sentences, stay flagged
    assert any(r.severity == "warn" and "Wald" in (r.text or "") for r in _consistency(doc))


def test_a_bootstrapped_ci_alone_excuses_nothing() -> None:
    text = "The groups differed, t(28) = 1.80, p = .041, with a bootstrapped 95% CI = [0.02, 0.90]."
    (row,) = _consistency(_doc((text, "Results", "results")))
    assert row.severity == "error"  # .041 printed, .083 two-tailed: a decision error
    (ok,) = _consistency(_doc(("Bootstrapped t tests showed that the groups differed, t(28) = 1.80, p = .041.",
                               "Results", "results")))
    assert ok.severity == "info" and "bootstrap" in ok.data["excused"]


def test_a_study_level_one_tailed_statement_gives_an_info_row_naming_it() -> None:
    doc = _doc(("All reported p values are one-tailed.", "Method", "methods"),
               ("The groups differed, t(28) = 1.80, p = .041.", "Results", "results"))
    (row,) = _consistency(doc)
    assert row.severity == "info" and row.message.startswith("consistent as a one-tailed test")
    assert "its study" in row.data["one_tailed_scope"]


def test_an_unstated_one_tailed_p_is_flagged_and_says_what_the_paper_mentions() -> None:
    doc = _doc(("We discuss whether one-tailed tests are ever justified.", "Introduction", "introduction"),
               ("The groups differed, t(28) = 1.80, p = .041.", "Results", "results"))
    (row,) = _consistency(doc)
    assert row.severity == "error" and "does not state for this result" in row.message
    assert "mentions one-tailed tests elsewhere" in row.message


def test_a_chi_square_printed_as_c_says_it_rests_on_damaged_text() -> None:
    # 09567976221082938: "As expected, lemurs chose the larger reward less often as the delay increased,
    # c 2 (2) = 11.97, p = .002" (GROBID printed χ as c; χ²(2) = 11.97 gives p = .0025)
    text = ("As expected, lemurs chose the larger reward less often as the delay increased, c 2 (2) = 11.97, "
            "p = .002 (p < .05 for significant comparison).")
    (row,) = _consistency(_doc((text, "Results", "results")))
    assert row.severity == "warn" and "damaged symbol" in row.message
    assert row.data["doubtful_text"]
