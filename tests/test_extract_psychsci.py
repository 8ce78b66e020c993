"""Evidence selection that reaches the checkable test, and findings in social-science abstracts."""

from __future__ import annotations

from pathlib import Path

from claimtrace.documents import load_document
from claimtrace.extract.pipeline import extract_traces
from claimtrace.extract.statistics import is_checked, sentence_statistics
from conftest import shared_path

PAPER = """# Warmth and cooperation

## Abstract

Holding a warm cup made people more cooperative in a public-goods game.

## Introduction

We predicted that physical warmth would increase cooperation with strangers.

## Results

Contributions to the public good were higher in the warm-cup condition than in the cold-cup condition (p = .02).
The effect of cup temperature was reliable, t(58) = 2.41, p = .019, d = 0.62.
Participants did not differ in their reported mood across conditions.
"""


def test_evidence_widens_to_the_neighbouring_sentence_that_holds_the_test(tmp_path: Path) -> None:
    path = tmp_path / "warmth.md"
    path.write_text(PAPER)
    doc = load_document(path)
    levels = sentence_statistics(doc)
    claim, test = (s for s in doc.sentences("body") if s.text.startswith(("Contributions", "The effect of cup")))
    assert levels[claim.id] == 1 and levels[test.id] == 2  # a bare p is parsed, the t test is checked
    tr = extract_traces(doc, ["Contributions to the public good were higher with a warm cup than with a cold cup."])[0]
    ev = tr.evidence
    assert ev is not None
    assert ev.sentence_ids == [claim.id, test.id]
    assert doc.body_text[ev.start:ev.end] == ev.text
    checked = [r for r in ev.statistics if is_checked(r)]
    assert checked and checked[0]["test"] == "t" and checked[0]["consistent"] is True


def test_is_checked_needs_a_recomputed_p_or_a_verdict() -> None:
    assert not is_checked({"kind": "p", "p_value": 0.02, "computed_p": None, "consistent": None})
    assert is_checked({"computed_p": 0.019, "consistent": True})
    assert is_checked({"computed_p": None, "ci_consistent": False})


def test_psychsci_paper_evidence_carries_a_checked_test() -> None:
    folder = shared_path("documents", "psychsci")
    doc = load_document(folder / "0956797618772822.xml")
    traces = extract_traces(doc)
    assert traces
    assert any(tr.evidence is not None and any(is_checked(r) for r in tr.evidence.statistics) for tr in traces)
