"""Table layouts the candidates read (issue 29): time-point rows under an outcome named by the stub's header, arms
under a header that spans every value column, arms as rows under an outcome heading (the comparator the
negation of the intervention, the whole-sample column), arms as row groups with time-point columns, and
"mean (±SD)" cells; on a fixture made by the project (tests/data/numbers/trial_layouts.xml)."""

from __future__ import annotations

from typing import Any

from claimtrace.documents import load_document
from claimtrace.numbers import ranker
from claimtrace.numbers.extract import Ico
from claimtrace.numbers.forms import doc_abbreviations
from claimtrace.numbers.match import Terms
from conftest import REPO

DOC = REPO / "tests" / "data" / "numbers" / "trial_layouts.xml"


def _cands(intervention: str, comparator: str, outcome: str) -> list[Any]:
    doc = load_document(DOC)
    text = f"{doc.abstract_text}\n{doc.body_text}"
    ico = Ico.of(intervention, comparator, outcome, doc_abbreviations(text)).with_labels(text)
    return ranker.candidates(doc, ico)


def _main(c: Any, f: str) -> tuple[float, float]:
    return c.values["intervention"][f].value, c.values["comparator"][f].value


def test_time_point_rows_take_the_outcome_from_the_stub_header_and_mark_the_final_one() -> None:
    cands = [c for c in _cands("seasonal influenza vaccine", "placebo", "antibody titer") if c.meta.get("time_row")]
    final = {_main(c, "mean"): c.meta.get("time_final", 0.0) for c in cands}
    assert final == {(28.7, 20.2): 0.0, (26.6, 18.6): 0.0, (25.8, 19.6): 1.0}  # every time point for the ranker
    assert [_main(c, "mean") for c in cands if c.origin == "table"] == [(25.8, 19.6)]  # strict: the final one
    named = [c for c in _cands("vaccine", "placebo", "antibody titer at visit 3") if c.origin == "table"]
    assert [_main(c, "mean") for c in named] == [(26.6, 18.6)]  # the time point the outcome names
    assert named[0].meta["time_named"] == 1.0


def test_arms_under_a_spanning_header_and_a_mean_with_a_plus_minus_sd_in_brackets() -> None:
    cands = _cands("Web 2.0-based intervention", "10 000 Steps programme", "visits per week")
    got = [c for c in cands if c.origin in ("table", "wide")]
    assert got and _main(got[0], "mean") == (3.61, 1.66)
    assert _main(got[0], "sd") == (2.92, 1.92)


def test_arms_as_rows_under_an_outcome_heading_with_the_negation_as_comparator() -> None:
    cands = [c for c in _cands("letter with an incentive offer of 10 pounds", "standard letter",
                               "positive response to the letter") if c.origin == "rows"]
    assert [_main(c, "events") for c in cands] == [(102, 85)]  # the whole-sample column


def test_arms_as_row_groups_read_at_the_final_time_point() -> None:
    cands = [c for c in _cands("ultrasound", "torsional", "cell density") if c.origin == "rows"]
    assert [_main(c, "mean") for c in cands] == [(2264.1, 2270.3)]
    assert cands[0].meta["arm_rows"] == 2.0


def test_short_plurals_match_their_singular() -> None:
    assert Terms.of("dot mapping").score("Dots") == 0.5
    assert Terms.of("glass").score("glas") == 0.0
