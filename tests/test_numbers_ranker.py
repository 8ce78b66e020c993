"""The numbers ranker: candidates of every generator with their origin, features, the shipped weights, and
abstention below the threshold, on the project's trial fragment."""

from __future__ import annotations

from claimtrace.documents import load_document
from claimtrace.numbers import ranker
from claimtrace.numbers.extract import Ico, expand
from conftest import REPO

FRAG = REPO / "tests" / "data" / "numbers" / "trial_fragment.xml"


def _ico(doc: object, i: str, c: str, o: str) -> Ico:
    running = f"{doc.abstract_text}\n{doc.body_text}"  # type: ignore[attr-defined]
    return Ico.of(i, c, o).with_labels(running)


def test_candidates_carry_their_origin_and_features() -> None:
    doc = load_document(FRAG)
    ico = _ico(doc, "drug X", "placebo", "systolic blood pressure")
    cands = ranker.candidates(doc, ico)
    assert cands and {c.origin for c in cands} <= set(ranker.ORIGINS)
    table = [c for c in cands if c.origin == "table"]
    assert table and table[0].values["intervention"]["mean"].value == 131.5
    rows = ranker.features(doc, ico, cands)
    assert len(rows) == len(cands)
    f = rows[cands.index(table[0])]
    assert f["origin_table"] == 1.0 and f["outcome"] == 1.0 and f["kind_continuous_fit"] == 1.0
    assert f["has_sd"] == 1.0 and f["arm_i"] > 0 and f["arm_c"] > 0


def test_shipped_weights_choose_the_table_row_and_abstain_over_threshold() -> None:
    doc = load_document(FRAG)
    ico = _ico(doc, "drug X", "placebo", "systolic blood pressure")
    cands = ranker.candidates(doc, ico)
    w = ranker.load_weights()
    assert len(w["features"]) == len(w["coef"]) == len(w["mean"]) == len(w["scale"])
    probs = ranker.probabilities(ranker.features(doc, ico, cands), w)
    assert all(0.0 < p < 1.0 for p in probs)
    best = ranker.choose(doc, ico, cands, w)
    assert best is not None and best.values["comparator"]["mean"].value == 138.2
    assert ranker.choose(doc, ico, cands, {**w, "threshold": 1.0}) is None  # nothing is that sure: abstain
    assert ranker.choose(doc, ico, [], w) is None


def test_an_abbreviation_plural_expands() -> None:
    assert expand("AEs in 12 patients", {"AE": "adverse event"}) == "AEs in 12 patients (adverse event)"
    assert expand("AE", {"AE": "adverse event"}) == "AE (adverse event)"
    assert expand("Yes", {"Y": "why"}) == "Yes"
