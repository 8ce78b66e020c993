"""Locating quotes in a real paper: exact, normalised, fuzzy, and refusing what is not there."""

from __future__ import annotations

from claimtrace.documents import load_document
from claimtrace.extract.locate import locate_quote
from conftest import SAMPLE

DOC = load_document(SAMPLE)


def test_exact_quote_maps_to_offsets_and_ids() -> None:
    sent = DOC.paragraphs[2].sentences[0]
    span = locate_quote(DOC, sent.text)
    assert span is not None and span.located == "exact"
    assert (span.start, span.end) == (sent.start, sent.end)
    assert span.sentence_ids == [sent.id] and span.paragraph_ids == [DOC.paragraphs[2].id]
    assert DOC.body_text[span.start:span.end] == sent.text


def test_normalised_quote_with_changed_dashes_spaces_and_case() -> None:
    sent = next(s for p in DOC.paragraphs for s in p.sentences if "-" in s.text and len(s.text) > 80)
    quote = "  " + sent.text.replace("-", "\u2013").replace(" ", "   ").upper() + " "
    span = locate_quote(DOC, quote)
    assert span is not None and span.located == "normalised"
    assert DOC.body_text[span.start:span.end] == sent.text


def test_fuzzy_quote_spanning_two_sentences_with_typos() -> None:
    a, b = DOC.paragraphs[14].sentences[:2]
    quote = (a.text + " " + b.text).replace("hydrotherapy", "hydro-therapy", 1).replace("patients", "patient", 1)
    span = locate_quote(DOC, quote)
    assert span is not None and span.located == "fuzzy" and span.match_score is not None
    assert span.sentence_ids == [a.id, b.id]
    assert (span.start, span.end) == (a.start, b.end)


def test_invented_quote_is_not_located() -> None:
    assert locate_quote(DOC, "Hydrotherapy cured rheumatoid arthritis in all patients within one week (p < 0.0001).") is None
    assert locate_quote(DOC, "p < 0.001") is None  # too short to place


def test_normalise_fast_path_is_the_per_character_normalisation() -> None:
    from claimtrace.extract.locate import normalise, normalise_with_map

    tricky = ["ΑΣ ΟΔΟΣ: final sigma", "e\u0301te\u0301 (combining accents)", "\ufb01nal \u201cquoted\u201d \u2014 x\u00a0 y",
              "\u00a8a spacing diaeresis", "\u0130stanbul", "  lead\ttab\n end  ", "x\u2212y = \u00bd", "\u2026 and\u2009thin"]
    texts = tricky + [s.text for s in DOC.sentences("body")] + [p.text for p in DOC.paragraphs]
    for t in texts:
        assert normalise(t) == normalise_with_map(t)[0], t
    assert normalise("  A\u2013B  \u2019x\u2019 ") == "a-b 'x'"
