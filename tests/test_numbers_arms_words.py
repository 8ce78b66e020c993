"""Arms that share a word ("bimatoprost PF" and "bimatoprost"), abbreviations trial reports use undefined
("AEs"), and percentages that are a continuous outcome's means, on a fixture made by the project
(tests/data/numbers/trial_shared_words.xml)."""

from __future__ import annotations

from claimtrace.documents import load_document
from claimtrace.numbers import ranker
from claimtrace.numbers.extract import Ico, extract_numbers
from claimtrace.numbers.forms import doc_abbreviations
from conftest import REPO

DOC = REPO / "tests" / "data" / "numbers" / "trial_shared_words.xml"


def test_undefined_common_abbreviation_and_arms_that_share_a_word() -> None:
    assert doc_abbreviations("AEs were reported in 12%.")["AE"] == "adverse event"
    assert doc_abbreviations("adverse effects (AE) were rare; AEs were mild")["AE"] == "adverse effects"
    res = extract_numbers(load_document(DOC), "bimatoprost 0.03% preservative-free (PF)", "bimatoprost 0.03%",
                          "adverse events")
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert (i.events.value, i.group_size.value) == (122, 301)  # type: ignore[union-attr]
    assert (c.events.value, c.group_size.value) == (130, 295)  # type: ignore[union-attr]


def test_percentages_of_a_measure_are_offered_as_means_too() -> None:
    doc = load_document(DOC)
    text = f"{doc.abstract_text}\n{doc.body_text}"
    ico = Ico.of("nicotine patch", "placebo patch", "percentage of stage 1 sleep", doc_abbreviations(text))
    cands = ranker.candidates(doc, ico)
    means = [c for c in cands if "percent_as_mean" in c.flags]
    assert [(c.values["intervention"]["mean"].value, c.values["comparator"]["mean"].value) for c in means] == [
        (15.5, 10.9)]
    assert all(c.kind == "continuous" for c in means)
    assert any(c.kind == "binary" and "_percent" in c.values["intervention"] for c in cands)  # the share as well


def test_unmarked_arm_named_by_the_shared_words_alone() -> None:
    # the comparator's own word (its brand, "Lumigan") is not in the text: "bimatoprost" without "PF" names it
    res = extract_numbers(load_document(DOC), "bimatoprost 0.03% preservative-free (PF)", "bimatoprost 0.03% (Lumigan)",
                          "adverse events")
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert (i.events.value, i.group_size.value) == (122, 301)  # type: ignore[union-attr]
    assert (c.events.value, c.group_size.value) == (130, 295)  # type: ignore[union-attr]
    # arms that share no word are not helped: a comparator named nowhere gives no numbers
    res = extract_numbers(load_document(DOC), "bimatoprost 0.03% preservative-free (PF)", "latanoprost (Xalatan)",
                          "adverse events")
    assert res.arms["comparator"].events is None


def test_outcome_feature_reads_the_papers_abbreviations() -> None:
    # "AEs" names "adverse events" for the generators; the ranker's outcome feature reads it the same way
    doc = load_document(DOC)
    text = f"{doc.abstract_text}\n{doc.body_text}"
    ico = Ico.of("bimatoprost 0.03% preservative-free (PF)", "bimatoprost 0.03% (Lumigan)", "adverse events",
                 doc_abbreviations(text)).with_labels(text)
    cands = [c for c in ranker.candidates(doc, ico) if c.origin == "sentence"]
    assert cands
    rows = ranker.features(doc, ico, cands)
    assert max(r["outcome"] for r in rows) == 1.0
    assert Ico.of("x", "y", "adverse events").outcome.score("AEs were reported") == 0.0  # unexpanded, no match
