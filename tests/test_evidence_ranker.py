"""The evidence stage on real Psychological Science TEIs: the statistic cues psychology uses (Bayes factors,
multilevel coefficients, Bayesian credible intervals) make a sentence a candidate, and ``how_chosen`` says why the
evidence won. The papers are in the DEVELOPMENT part of bench/traces_psychsci.py's split (never the untouched one).
"""

from __future__ import annotations

import numpy as np

from claimtrace.documents import load_document
from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
from claimtrace.extract.embedded import (
    MIN_EVIDENCE_STRENGTH,
    EmbeddedExtractor,
    evidence_candidates,
    evidence_span,
)
from claimtrace.extract.evidence_ranker import EV_FEATURES, analysis_kind, evidence_study, stems, word_results
from claimtrace.extract.pipeline import extract_traces
from conftest import shared_path


def _candidates(paper: str, finding: str) -> tuple[EmbeddedExtractor, list[str]]:
    doc = load_document(shared_path("documents", "psychsci", paper))
    ex = EmbeddedExtractor(table_rows=True)
    ex.record_features = True
    ex.evidence(doc, finding, get_preset(EMBEDDED_DEFAULT))
    ix = ex.index(doc)
    cand, _ = evidence_candidates(ex.last_evidence_inputs["allowed"], ix.stat, ix.is_table, ix.engine, ix.study,
                                  ix.kind, evidence_study(finding, ix.studies), ix.social)
    return ex, [s.text for s, c in zip(ix.sents, cand, strict=True) if c]


def test_a_bayes_factor_sentence_is_an_evidence_candidate() -> None:
    _, cands = _candidates("09567976241279291.xml", "We observed a strong Euclidean bias during the path-integration "
                           "task on the spherical surface.")
    assert any("BF = 3.5e54" in t for t in cands)


def test_a_multilevel_coefficient_without_p_is_an_evidence_candidate() -> None:
    _, cands = _candidates("09567976231164553.xml", "Our results revealed historical change toward younger subjective "
                           "ages and toward less increase in subjective age over time.")
    assert any("γ 08 = -0.232" in t for t in cands)


def test_a_bayesian_credible_interval_counts_as_a_statistic() -> None:
    ex, cands = _candidates("09567976241245695.xml", "Participants who had searched divergently in space performed "
                            "better on a test of divergent creativity.")
    assert any("b = 0.81, 95% Bayesian credible interval" in t for t in cands)
    x, _ = ex.last_features["evidence"]
    assert x.shape[1] == len(EV_FEATURES) and np.isfinite(x).all()


def test_evidence_how_chosen_names_the_candidates_and_the_runner_up() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797617692000.xml"))
    finding = ("Results across four studies favor a sociofunctional account: When the target of a moral violation "
               "shifts from the self to another person, anger decreases, but disgust increases.")
    ev = extract_traces(doc, [finding])[0].evidence
    assert ev is not None
    assert "candidates (result sentences of study 1's Results" in ev.how_chosen
    assert "ahead of the runner-up" in ev.how_chosen


def test_stems_join_word_forms() -> None:
    assert stems("congruence effects") & stems("the congruency effect") == {"congr", "effec"}


def test_a_findings_study_skips_the_pilot_and_reads_plurals() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797618772822.xml"))
    ix = EmbeddedExtractor().index(doc)
    assert ix.studies[:3] == ["pilot", "1", "2"]
    assert evidence_study("Studies 1 and 2 showed that shorter men took more resources.", ix.studies) == "1"
    assert evidence_study("Shorter men took more resources in a dictator game.", ix.studies) == "1"
    assert evidence_study("In Study 2, shorter men took more.", ix.studies) == "2"


def test_a_result_stated_in_words_is_an_evidence_candidate() -> None:
    # the gold evidence of this paper reports the finding in words, its numbers in a figure and supplemental tables
    finding = ("Lonely individuals' neural responses were dissimilar to those of their peers, particularly in regions "
               "of the default-mode network.")
    doc = load_document(shared_path("documents", "psychsci", "09567976221145316.xml"))
    ex = EmbeddedExtractor(table_rows=True)
    ex.evidence(doc, finding, get_preset(EMBEDDED_DEFAULT))
    ix = ex.index(doc)
    texts = [s.text for s in ix.sents]
    word = word_results(texts, ix.pid, ix.kind, ix.is_table, ix.engine, ix.stat, MIN_EVIDENCE_STRENGTH)
    said = [t for t, w in zip(texts, word, strict=True) if w]
    assert any(t.startswith("We found that dyads in which both individuals were lonely had smaller ISCs") for t in said)
    # a method sentence of the same Results is not a result
    assert not any(t.startswith("We used planned contrasts") for t in said)
    cand, what = evidence_candidates(np.ones(len(texts), dtype=bool), ix.stat, ix.is_table, ix.engine, ix.study,
                                     ix.kind, evidence_study(finding, ix.studies), ix.social, word=word)
    assert cand[word].all() and "in words" in what


def test_the_span_joins_a_result_in_words_to_the_statistic_after_it() -> None:
    # sentences: [method], ["There was a significant interaction ..."], ["F(1, 40) = 6.1, p = .02"], [another test]
    pids = ["p1"] * 4
    is_table = np.zeros(4, dtype=bool)
    stat = np.array([0.0, 0.15, 1.0, 1.0])
    eng = np.array([0, 0, 2, 2], dtype=np.int8)
    cand = np.array([False, True, True, True])
    relevance = np.array([0.1, 0.5, 0.9, 0.2])
    assert evidence_span(pids, is_table, cand, np.ones(4, dtype=bool), stat, relevance, eng, 2, 3) == (1, 2)
    # and a core stated in words widens to the statistic that follows it
    assert evidence_span(pids, is_table, cand, np.ones(4, dtype=bool), stat, relevance, eng, 1, 3) == (1, 2)


def test_the_kind_of_test_names_mediation_secondary_and_follow_up_analyses() -> None:
    # papers outside the gold set (bench/data/traces-extra): never in the untouched part
    kinds: dict[str, str] = {}
    for paper in ("09567976211028978.xml", "09567976231192241.xml"):
        ix = EmbeddedExtractor().index(load_document(shared_path("documents", "psychsci", paper)))
        for i, s in enumerate(ix.sents):
            if ix.kind[i] == "results" and ix.stat[i] >= 0.3:
                kinds[s.text] = analysis_kind(s.text, bool(ix.is_table[i]), bool(ix.engine[i] >= 2))

    def kind_of(start: str) -> str:
        return next(k for t, k in kinds.items() if t.startswith(start))

    assert kind_of("A mediational analysis was consistent") == "mediation"
    assert kind_of("Of note, an identical ANOVA on the d") == "secondary analysis"
    assert kind_of("Both main effects turned out to be significant") == "main or omnibus test"
    assert kind_of("The interaction was not significant") == "interaction"
    assert analysis_kind("Table 2 › Age › 8-year-olds: t(58) = 6.1", is_table=True) == "table row"


def test_the_first_checked_test_of_a_studys_results_is_marked_once_per_study() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797617692000.xml"))
    ex = EmbeddedExtractor(table_rows=True)
    ex.record_features = True
    ex.evidence(doc, "When the target of a moral violation shifts from the self to another person, anger decreases, "
                "but disgust increases.", get_preset(EMBEDDED_DEFAULT))
    ix = ex.index(doc)
    x, cand = ex.last_features["evidence"]
    first = x[:, EV_FEATURES.index("first_test_in_study")] == 1
    assert first.any()
    studies = [ix.study[i] for i in np.flatnonzero(first)]
    assert len(studies) == len(set(studies))  # one per study
    for i in np.flatnonzero(first):  # nothing earlier in its study's Results holds a checked test among the candidates
        assert ix.engine[i] >= 2 and ix.kind[i] == "results"
        assert not any(ix.study[j] == ix.study[i] and ix.kind[j] == "results" and ix.engine[j] >= 2 and cand[j]
                       and not ix.is_table[j] for j in range(i))
