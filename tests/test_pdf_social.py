"""Social-science PDFs (issue 26): font-substituted symbols, text assembly and front matter.

The symbol tests quote short real lines of the shared pdf-twins PDFs (named on each); the document tests read
those PDFs and skip where ``../shared`` is absent.
"""

from __future__ import annotations

import json

import pytest

from claimtrace.documents import load_document
from claimtrace.documents.model import Document
from claimtrace.documents.readers.pdf import _normalise
from claimtrace.stats import parse
from claimtrace.stats.check import check
from claimtrace.stats.document import analyze_document
from conftest import shared_path


def _twin(name: str) -> Document:
    return load_document(shared_path("documents", "pdf-twins", f"{name}.pdf"))


# ---- symbols, on real lines ----------------------------------------------------------------------------------

def test_quarter_for_equals_and_colon_for_decimal_point() -> None:
    # debruine-sex.pdf, p. 3: "t52 ¼ 0:71, p ¼ 0:48"
    (r,) = parse("(t52 ¼ 0:71, p ¼ 0:48)")
    assert (r.test, r.df1, r.value, r.p_comparison, r.p_value) == ("t", 52, 0.71, "=", 0.48)
    assert "':' read as a decimal point (font substitution)" in r.repaired
    assert "'¼' read as '=' (font substitution)" in r.repaired
    assert check(r).consistent is True


def test_damaged_decimals_of_issue_27_are_repaired() -> None:
    # issue 27: "F = 20:9, p < 0:001" was read as F = 20, p < 0 and judged ok
    (r,) = parse("F = 20:9, p < 0:001")
    assert (r.test, r.value, r.p_comparison, r.p_value) == ("F", 20.9, "<", 0.001)
    assert "':' read as a decimal point (font substitution)" in r.repaired


def test_colon_after_an_unknown_name_is_doubtful_and_not_checked() -> None:
    (r,) = parse("Q = 20:9, p < .001")
    assert r.value == 20.0  # not repaired: the context does not make it certain
    assert any(x.startswith("doubtful") for x in r.repaired)
    c = check(r)
    assert c.consistent is None and any("doubtful" in f for f in c.flags)


def test_ratio_with_colon_is_left_alone() -> None:
    (r,) = parse("the ratio was 3:1 (p = .03)")
    assert r.p_value == 0.03 and not r.repaired


def test_z_for_equals_after_a_named_statistic_and_p() -> None:
    # debruine-tnl.pdf, p. 2: "(t143Z2.10, pZ0.019)"
    (r,) = parse("long-term (t143Z2.10, pZ0.019) or")
    assert (r.test, r.df1, r.value, r.p_comparison, r.p_value) == ("t", 143, 2.10, "=", 0.019)
    assert "'Z' read as '=' (font substitution)" in r.repaired


def test_z_after_an_unknown_statistic_is_not_guessed() -> None:
    # debruine-tnl.pdf, p. 2: "(Z143ZK2.04, pZ0.021)": the first glyph's statistic is unknown
    results = parse("relationship (Z143ZK2.04, pZ0.021).")
    assert [r.test for r in results] == [None]
    assert results[0].p_value == 0.021


def test_bang_for_less_than() -> None:
    # debruine-tnl.pdf, p. 2: "(t143Z3.49, p!0.001)"
    (r,) = parse("(t143Z3.49, p!0.001)")
    assert (r.value, r.p_comparison, r.p_value) == (3.49, "<", 0.001)


def test_spaced_comma_for_less_than_before_a_p_value() -> None:
    # the form of issue 26 ("p , .001", 68 times in a held-out paper; no pdf-twin has it)
    (r,) = parse("F(1, 20) = 5.1, p , .001")
    assert (r.p_comparison, r.p_value) == ("<", 0.001)
    assert "',' read as '<' before a p-value (font substitution)" in r.repaired


def test_a_grave_for_minus() -> None:
    # the form of issue 26 ("À" for a minus; no pdf-twin has it)
    (r,) = parse("b = À0.31, p = .04")
    assert r.value == -0.31 and "'À' read as a minus sign (font substitution)" in r.repaired
    assert [r.test for r in parse("Àrrhenius plot, p = .04")] == [None]


def test_minus_restored_from_the_ci() -> None:
    # issue 26: "median β = -0.08" printed without its minus, the CI keeps both of its own
    (r,) = parse("median β = 0.08, 95% CI [-0.12, -0.04], p < .001")
    assert r.value == -0.08 and any("minus sign restored from the CI" in x for x in r.repaired)
    (t,) = parse("t(20) = 3.34, 95% CI [-0.31, -0.04]")  # a t beside a CI of a difference: not its own CI
    assert t.value == 3.34


def test_lone_surrogate_replaced() -> None:
    assert _normalise("a \ud835 b") == "a \ufffd b"


# ---- documents ------------------------------------------------------------------------------------------------

def test_mathematical_italics_read_and_json_does_not_crash() -> None:
    doc = _twin("eyecolor")  # U+1D400 letters (surrogate pairs in pdfium's text)
    json.dumps(doc.model_dump(mode="json"))
    stats = analyze_document(doc)
    json.dumps([s.record() for s in stats])
    assert "\ufffd" not in doc.body_text
    # Word's hyphen "-", soft hyphen, "‐" before a number: one minus ("B = -­‐ 0.059", p. 4)
    assert any(s.value == -0.059 for s in stats)
    assert any(s.test == "z" and s.value == -0.19 and s.p_value == 0.849 for s in stats)


def test_debruine_sex_results_read_through_the_font() -> None:
    stats = analyze_document(_twin("debruine-sex"))
    assert any(s.test == "t" and s.df1 == 52 and s.value == 0.71 and s.p_value == 0.48 for s in stats)


@pytest.mark.parametrize(("name", "start", "source"), [
    ("debruine-fret", "Organisms are expected to be sensitive", "unlabelled"),  # Proc R Soc B, no heading
    ("debruine-tnl", "If humans are sensitive to the costs", "unlabelled"),
    ("eyecolor", "Human romantic partners tend to have", "unlabelled"),  # bioRxiv: a bold block on page 2
    ("prereg", "Pre-registration is a straightforward way", "heading"),  # APA manuscript: plain "Abstract", p. 2
    ("psychsci-0956797620955209", "The tendency to attend to and avoid", "heading"),
])
def test_abstract_found(name: str, start: str, source: str) -> None:
    doc = _twin(name)
    assert doc.abstract_text.startswith(start)
    assert doc.metadata["abstract_source"] == source
    assert float(doc.metadata["abstract_confidence"]) >= 0.75
    assert not doc.body_text.startswith(start)


def test_psychsci_abstract_ends_at_keywords() -> None:
    doc = _twin("psychsci-0956797620955209")
    assert doc.abstract_text.endswith("underpinnings of pathogen avoidance.")
    assert doc.metadata["keywords"].startswith("evolutionary psychology, threat")


def test_commentary_without_abstract_warns() -> None:
    doc = _twin("psychsci-0956797618815482")
    assert doc.abstract_text == ""
    assert any("no abstract found" in w for w in doc.warnings)


def test_title_whole_beside_a_column_of_journal_lines() -> None:
    doc = _twin("psychsci-0956797618795679")
    assert doc.title == "Corrigendum: Mind the Depth: Visual Perception of Shapes Is Better in Peripersonal Space"


def test_sentence_kept_whole_across_a_break_after_a_comma() -> None:
    # prereg.pdf: "t(86) = 13.47, p < 0.001," | "Hedges' gz = 1.43, 95% CI [1.13;1.73]" was split in two paragraphs
    doc = _twin("prereg")
    par = next(p for p in doc.paragraphs if "t(86) = 13.47" in p.text)
    assert "gz = 1.43" in par.text


@pytest.mark.parametrize(("name", "authors"), [
    ("psychsci-0956797620955209", ["Joshua M. Tybur", "Benedict C. Jones", "Lisa M. DeBruine", "Joshua M. Ackerman",
                                   "Vanessa Fasolt"]),  # SAGE: names with affiliation marks over two lines
    ("eyecolor", ["Lisa M. DeBruine", "Benedict C. Jones", "Anthony C. Little"]),  # a title page, name/affiliation
    ("debruine-fret", ["Lisa M. DeBruine"]),
])
def test_authors_from_the_front_matter(name: str, authors: list[str]) -> None:
    assert _twin(name).authors == authors


def test_running_head_split_by_the_gutter_kept_out_of_a_sentence() -> None:
    # debruine-tnl.pdf, p. 3: "p!0.001) and L. M. DeBruine 921 Context-specific effects of ..." (issue 26)
    doc = _twin("debruine-tnl")
    assert "DeBruine 921" not in doc.body_text
    assert any(e.kind == "header" and e.text == "L. M. DeBruine 921" for e in doc.excluded)
    assert int(doc.metadata["removed_header_lines"]) >= 8
