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
