"""Study structure (documents/studies.py) and the social-science trace stages on real Psychological Science TEIs.

The papers used here are in the DEVELOPMENT part of bench/traces_psychsci.py's split (never the untouched one).
"""

from __future__ import annotations

from claimtrace.documents import DocumentBuilder, load_document
from claimtrace.documents.studies import box_paragraphs, heading_study, studies, study_named
from claimtrace.extract.findings import abstract_problem, detect_findings
from claimtrace.extract.pipeline import extract_traces
from claimtrace.extract.trace_ranker import finding_study, social_science
from conftest import shared_path


def test_headings_and_mentions_name_their_study() -> None:
    assert heading_study("Experiment 2a: method") == "2a"
    assert heading_study("Study 3") == "3"
    assert heading_study("Pilot Study") == "pilot"
    assert heading_study("General Discussion") == "general"
    assert heading_study("Method") is None
    assert study_named("In Experiment 2, participants chose faster.") == "2"
    assert study_named("Participants chose faster.") is None
    assert finding_study("In Study 2, anger fell.", ["1", "2"]) == "2"
    assert finding_study("Anger fell.", ["1", "2"]) == "1"  # names none: the first study
    assert finding_study("Anger fell.", []) is None


def test_a_method_after_a_studys_results_opens_the_next_study() -> None:
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    b.add_paragraph("Intro text about the question.", None, kind="introduction")
    b.add_paragraph("Study 1 tested the idea.", "Study 1")
    b.add_paragraph("Forty adults took part.", "Method", kind="methods")
    b.add_paragraph("Anger was higher, t(38) = 2.10, p = .042.", "Results", kind="results")
    b.add_paragraph("Sixty adults took part.", "Method", kind="methods")  # GROBID dropped "Study 2"
    b.add_paragraph("Disgust was higher, t(58) = 2.50, p = .015.", "Results", kind="results")
    b.add_paragraph("Across studies anger fell.", "General Discussion", kind="discussion")
    doc = b.build()
    assert [p.study for p in doc.paragraphs] == [None, "1", "1", "1", "2", "2", "general"]
    assert studies(doc) == ["1", "2"]


def test_multi_study_paper_gets_its_studies_and_the_evidence_of_the_first() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797617692000.xml"))
    assert studies(doc) == ["1", "2", "3", "4"]
    assert any(p.study == "general" for p in doc.paragraphs)
    assert social_science(doc.body_text)
    finding = ("Results across four studies favor a sociofunctional account: When the target of a moral violation "
               "shifts from the self to another person, anger decreases, but disgust increases.")
    tr = extract_traces(doc, [finding])[0]
    assert tr.evidence is not None and tr.evidence.study == "1"  # names no study: the first one's Results
    assert tr.evidence.section_kind == "results"
    assert tr.evidence.how_chosen.startswith("learned ranker")
    assert tr.hypothesis is not None and tr.hypothesis.how_chosen


def test_statement_of_relevance_box_is_not_a_hypothesis_candidate() -> None:
    doc = load_document(shared_path("documents", "psychsci", "09567976241227411.xml"))
    boxes = box_paragraphs(doc)
    box_pars = [p for p in doc.paragraphs if p.id in boxes]
    assert any((p.section or "").startswith("Statement of Relevance") for p in box_pars)
    tr = extract_traces(doc, ["Umpires called fewer strikes for the complaining team after an ejection."])[0]
    assert tr.hypothesis is not None and not set(tr.hypothesis.paragraph_ids) & boxes


def test_introduction_taken_for_an_abstract_sends_findings_to_the_discussion() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797615583071.xml"))
    assert abstract_problem(doc) is not None
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert chosen and all(c.source == "discussion" for c in chosen)
    assert any(c.text.startswith("Overall, the results of the present experiments indicate") for c in chosen)
    traces = extract_traces(doc)
    assert traces and all(t.finding.source == "discussion" for t in traces)


def test_a_real_abstract_is_kept() -> None:
    doc = load_document(shared_path("documents", "psychsci", "09567976241227411.xml"))
    assert abstract_problem(doc) is None
    assert all(c.source == "abstract" for c in detect_findings(doc))


def test_hypothesis_relative_features_rank_each_candidate_among_the_papers_others() -> None:
    import numpy as np

    from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.trace_ranker import HYP_FEATURES, PREDICTION, rank_within

    assert list(rank_within(np.array([0.2, 0.9, 0.5, 0.7]), np.array([True, False, True, True]))) == [1 / 3, 0.0, 0.5, 1.0]
    doc = load_document(shared_path("documents", "psychsci", "0956797617692000.xml"))
    ex = EmbeddedExtractor()
    ex.record_features = True
    finding = "When the target of a moral violation shifts from the self to another person, anger decreases, but disgust increases."
    out = ex.hypothesis(doc, finding, get_preset(EMBEDDED_DEFAULT))
    x, allowed = ex.last_features["hypothesis"]
    col = {n: x[:, i] for i, n in enumerate(HYP_FEATURES)}
    texts = [s.text for s in ex.index(doc).sents]
    assert col["sim_top"][allowed].sum() == 1 and col["prediction_top"][allowed].sum() == 1
    assert not col["sim_rank"][~allowed].any()  # a sentence outside the candidates is ranked against none
    top_pred = int(np.flatnonzero(allowed & (col["prediction_top"] == 1))[0])
    assert PREDICTION.search(texts[top_pred])
    assert col["sim_rel"][allowed].max() == 1.0
    assert out.span is not None and out.span.how_chosen and out.span.how_chosen.startswith("learned ranker")


def test_plural_study_headings_open_their_first_study() -> None:
    assert heading_study("Studies 5a and 5b") == "5a"
    assert heading_study("Studies 1a, 1b, and 1c") == "1a"
    assert heading_study("Experiments 1 and 2") == "1"


def test_a_dropped_study_1_heading_is_recovered_from_the_study_2_heading() -> None:
    # GROBID kept "Study 2" but dropped "Study 1": the Results before it are Study 1's ("respondents in Study 1")
    doc = load_document(shared_path("documents", "psychsci", "0956797616647519.xml"))
    assert studies(doc) == ["1", "2"]
    first = next(p for p in doc.paragraphs if p.section_kind == "results")
    assert first.study == "1"
    assert next(p for p in doc.paragraphs if p.section == "Study 2").study == "2"
    assert all(p.study is None for p in doc.paragraphs[:doc.paragraphs.index(first)])  # the introduction
    doc = load_document(shared_path("documents", "psychsci", "09567976231158288.xml"))
    assert studies(doc) == ["1", "2", "3"]
    assert any(p.study == "1" and p.text.startswith("In Study 1, participants inferred") for p in doc.paragraphs)


def test_a_combined_analysis_of_earlier_studies_is_not_a_new_study() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797618772822.xml"))
    assert studies(doc) == ["pilot", "1", "2"]
    combined = [p for p in doc.paragraphs if (p.section or "").startswith("Studies 1 and 2: Combined")]
    assert combined and all(p.study == "general" for p in combined)
    assert all(p.study == "general" for p in doc.paragraphs[doc.paragraphs.index(combined[0]):])


def test_sentences_about_testing_a_hypothesis_are_not_its_statement() -> None:
    from claimtrace.extract.trace_ranker import not_a_statement

    assert not_a_statement("To strengthen the primary hypothesis that verbal abuse alters behavior, we also conducted "
                           "a series of supplementary analyses to determine whether a change in behavior would be "
                           "better explained by the alternative hypothesis.")
    assert not_a_statement("Although Pritschet et al.'s findings may be interpreted as a higher willingness of "
                           "researchers over time, we should be careful because of the presence of confounding factors.")
    assert not not_a_statement("Second, to test the hypothesis that heritability is lower in adoptees, we estimated "
                               "the variance explained by common genetic variants.")
    assert not not_a_statement("We predicted that older adults would show greater difficulty than younger adults.")
    assert not_a_statement("Second, we tested the peer-influence hypothesis by introducing a teenager-versus-adults "
                           "distinction in the source of influence, as in previous studies.")
    assert not_a_statement("We based our hypothesis, in part, on the perspective that augmented attentional allocation "
                           "to negative items at encoding may disrupt processing of temporal features.")
    doc = load_document(shared_path("documents", "psychsci", "09567976241227411.xml"))
    tr = extract_traces(doc, ["After being excessively criticized, home-plate umpires were less likely to call "
                              "strikes to batters from the complaining team."])[0]
    assert tr.hypothesis is not None and not tr.hypothesis.text.startswith("To strengthen the primary hypothesis")


def test_an_abstract_far_shorter_than_an_abstract_sends_findings_to_the_discussion() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797618796480.xml"))
    problem = abstract_problem(doc)
    assert problem is not None and "shorter" in problem
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert chosen and all(c.source == "discussion" for c in chosen)
    assert not any(c.text.startswith("Proportion of Average Earnings 0 10 20") for c in chosen)  # figure ticks


def test_a_paper_without_an_abstract_takes_its_findings_from_the_discussion() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797619833325.xml"))
    assert not doc.sentences("abstract")
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert chosen and all(c.source == "discussion" and "no abstract" in c.reason for c in chosen)
    assert any(c.text.startswith("The worried/vulnerable facet of neuroticism is linked to better health")
               for c in chosen)


def test_an_abstract_that_announces_its_study_is_kept_without_a_result_cue() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797621996660.xml"))
    assert abstract_problem(doc) is None
    assert all(c.source == "abstract" for c in detect_findings(doc))
