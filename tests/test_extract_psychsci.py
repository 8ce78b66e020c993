"""Evidence selection that reaches the checkable test, and findings in social-science abstracts."""

from __future__ import annotations

from pathlib import Path

from claimtrace.documents import load_document
from claimtrace.extract.findings import cut_off, detect_findings, not_an_abstract, strip_page_stamps
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


THRESHOLD_PAPER = """# Anchoring at category boundaries

## Abstract

Estimates near a category boundary were pulled toward the boundary that preceded them.

## Results

We did not correct for multiple comparisons; all comparisons of estimates near the boundary used a significance criterion of p < .05.
Estimates near the boundary were higher when the high boundary preceded them, t(41) = 3.10, p = .003.
"""


def test_a_significance_threshold_is_no_statistic_cue(tmp_path: Path) -> None:
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.statistics import stat_strength

    path = tmp_path / "anchor.md"
    path.write_text(THRESHOLD_PAPER)
    doc = load_document(path)
    crit, test = doc.sentences("body")
    assert "criterion" in crit.text and stat_strength(crit.text) >= 0.5  # the regex cue sees a p-value
    assert crit.id not in sentence_statistics(doc)  # the engine reads it as a threshold, no result
    ex = EmbeddedExtractor()
    ix = ex.index(doc)
    assert ix.stat[ix.pos[crit.id]] < stat_strength(crit.text, p_mention=True)
    assert ix.stat[ix.pos[test.id]] == stat_strength(test.text)
    tr = extract_traces(doc, ["Estimates near the boundary were higher when the high boundary came first; "
                              "comparisons of estimates near the boundary"], extractor=ex)[0]
    assert tr.evidence is not None and tr.evidence.sentence_ids == [test.id]


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


SHORT_REPORT = """# Serotonin and shared resources

## Abstract

Humans must work together to manage valuable but finite resources.
Increased serotonin activity can facilitate affiliative behaviors in monkeys and the 527830P SSXXX10.

## Method

Participants were assigned to a depletion or a control condition.

## Results

Depleted participants harvested more than controls, t(40) = 2.50, p = .017.

## Discussion

We found that reduced serotonin activity increased harvesting from a shared resource.
Serotonin thus shapes how people manage common-pool resources.
"""


def test_page_stamps_are_removed_and_cut_sentences_found() -> None:
    assert strip_page_stamps("the cortex 557697P SSXXX10.") == "the cortex"
    assert cut_off("the cortex 557697P SSXXX10.")
    assert cut_off("have been extended to other processes (Wolf")
    assert not cut_off('It was "significant."')
    assert not cut_off("Participants were faster (p < .05).")
    assert cut_off("appraisals relates to perceived trustworthiness (Winston et al.")  # "al." is no sentence end


def test_an_abstract_cut_from_a_page_is_told_from_a_real_one() -> None:
    real = ["We tested whether warmth increases cooperation.", "Warmth increased contributions.",
            "ClinicalTrials.gov identifier: NCT00872417"]  # a registration line ends in an identifier
    assert not not_an_abstract(real)
    assert not_an_abstract(["Do people earn more when they feel better?", "The literature is extensive, but the nature of the relationship is far"])
    assert not_an_abstract(["will experience a traumatic event during their life.", "Interventions are lacking."])
    assert not_an_abstract(["Humans share.", "Serotonin modulates this and the 527830P SSXXX10."])


def test_an_introduction_taken_for_the_abstract_gives_findings_from_the_discussion(tmp_path: Path) -> None:
    path = tmp_path / "short.md"
    path.write_text(SHORT_REPORT)
    doc = load_document(path)
    assert doc.sentences("abstract")[-1].text.endswith("SSXXX10.")
    cands = detect_findings(doc)
    chosen = [c for c in cands if c.chosen]
    assert chosen and all(c.sentence_id and not c.sentence_id.startswith("a") for c in chosen)
    assert all("Discussion" in c.reason for c in cands)
    discussion = {s.text for p in doc.paragraphs if p.section_kind == "discussion" for s in p.sentences}
    assert {c.text for c in chosen} <= discussion


def test_psychsci_short_report_findings_hold_no_page_stamp() -> None:
    doc = load_document(shared_path("documents", "psychsci") / "0956797614527830.xml")
    chosen = [c for c in detect_findings(doc) if c.chosen]
    assert chosen
    assert not any("SSXXX" in c.text for c in chosen)
    assert {doc.paragraph_of(c.sentence_id.split(".")[0]).section_kind for c in chosen if c.sentence_id} <= {"discussion", "conclusion"}


def test_psychsci_gold_matches_the_parser_and_introductions_give_no_abstract_finding() -> None:
    import hashlib
    import json

    folder = shared_path("documents", "psychsci")
    gold = [json.loads(line) for line in (Path(__file__).parents[1] / "bench" / "data" / "psychsci-findings.jsonl").read_text().splitlines()]
    assert len(gold) == 40 and {g["split"] for g in gold} == {"dev", "test"}
    for g in gold:
        doc = load_document(folder / f"{g['paper']}.xml")
        sents = {s.id: s for s in doc.sentences("abstract")}
        assert [s["id"] for s in g["sentences"]] == list(sents)
        for s in g["sentences"]:
            assert hashlib.sha1(sents[s["id"]].text.encode()).hexdigest()[:12] == s["key"]
            assert doc.abstract_text[s["start"]:s["end"]] == sents[s["id"]].text
        if g["split"] == "dev" and g["abstract_kind"] != "abstract":
            assert not any(c.chosen and c.sentence_id in sents for c in detect_findings(doc)), g["paper"]


RESULTS_ABSTRACT = """# Synchrony and cooperation

## Abstract

Cooperation requires people to estimate how cooperative others will be.
Prior research has shown that synchrony increased affiliation.
We tested whether the synchrony of a group's actions influences estimates of cooperation.
Participants (N = 136) watched animations of players deciding how much to donate.
Estimates of the pot were higher for synchronous than for asynchronous groups.
This effect did not differ between the two experiments.
Synchrony may thus serve as a cue to cooperation that observers use.

## Results

Estimates were higher for synchronous groups, t(135) = 3.10, p = .002.
"""


def test_the_results_block_of_an_unstructured_abstract_is_chosen(tmp_path: Path) -> None:
    from claimtrace.extract.findings import results_block, score_sentences

    path = tmp_path / "sync.md"
    path.write_text(RESULTS_ABSTRACT)
    doc = load_document(path)
    texts = [s.text for s in doc.sentences("abstract")]
    assert results_block(texts) == [4, 5]  # after the sample sentence; not prior work, the aim or a hedge
    model = [p for p, _ in score_sentences(texts)]
    assert model[4] < 0.59 and model[5] < 0.59  # the model alone misses both mid-abstract results
    chosen = {c.sentence_id: c for c in detect_findings(doc) if c.chosen}
    ids = [s.id for s in doc.sentences("abstract")]
    assert ids[4] in chosen and ids[5] in chosen and ids[1] not in chosen and ids[2] not in chosen
    assert "results block" in chosen[ids[4]].reason
    # a result stated beside background words is still one when the paper says it found it
    assert results_block(["We used fMRI.", "We found dissimilar responses in regions that have been linked to empathy."]) == [1]
    assert results_block(["Was the effect higher in older adults?"]) == []


DISCUSSION_ONLY = """# Stress and memory

## Abstract

Stress can lead to depression, in part because of inflammatory mechanisms.
We therefore examined psychosocial resources in a longitudinal study of women (N = 187).
As hypothesized, women with more resources showed weaker associations between stress and depressive symptoms.
Results highlight the importance of psychosocial resilience for health.
"""


def test_a_comparison_reported_as_observed_is_a_result_of_the_abstracts_results_block(tmp_path: Path) -> None:
    from claimtrace.extract.findings import RESULT_REPORT, results_block

    path = tmp_path / "stress.md"
    path.write_text(DISCUSSION_ONLY)
    doc = load_document(path)
    texts = [s.text for s in doc.sentences("abstract")]
    assert results_block(texts) == [2]  # "showed weaker associations", after the sample sentence
    chosen = {c.text for c in detect_findings(doc) if c.chosen}
    assert texts[2] in chosen
    assert RESULT_REPORT.search("Real objects broke suppression faster than their photographs.")
    assert not RESULT_REPORT.search("We used objects rather than photographs.")


def test_discussion_findings_prefer_the_sentence_that_reports_a_result() -> None:
    from claimtrace.extract.findings import discussion_scores

    texts = ["Here, we examined how children adapt their voices.",
             "Overall, children showed stronger shifts in voice pitch for masculine occupations.",
             "Future research could examine adults."]
    flat = discussion_scores(texts, [(0.3, ""), (0.3, ""), (0.3, "")])
    assert flat[1][0] > flat[0][0] - 0.3 / len(texts) and flat[1][0] > flat[2][0]
    assert "reports result" in flat[1][1]


CHANGE_ABSTRACT = """# Voices and stereotypes

## Abstract

Occupational stereotypes shape how children speak.
We recruited 82 children (N = 82) who imitated the voices of workers in gendered occupations.
Overall, children adapted their voices to stereotyped expectations by lowering and raising voice pitch.
Low pitch increased perceptions of formidability, especially where competition may be intense.
Children may also hold explicit stereotypes.
"""


def test_a_change_verb_result_after_the_method_is_in_the_results_block(tmp_path: Path) -> None:
    from claimtrace.extract.findings import results_block

    path = tmp_path / "voices.md"
    path.write_text(CHANGE_ABSTRACT)
    doc = load_document(path)
    texts = [s.text for s in doc.sentences("abstract")]
    # "adapted" states the result without a result verb; a hedge after the result ("may be intense") leaves it a
    # result; a sentence hedged before any result is none
    assert results_block(texts) == [2, 3]
    chosen = {c.text for c in detect_findings(doc) if c.chosen}
    assert texts[2] in chosen and texts[3] in chosen
    assert results_block(["We ran two studies.", "Five experiments (N = 2,615 adults) confirmed the effect."]) == [1]


def test_a_discussion_look_back_is_no_hypothesis_and_a_predictor_no_prediction() -> None:
    from claimtrace.extract.trace_ranker import PREDICTION, lookback

    assert lookback("We expected to find either no interaction or a synergistic effect.", "discussion")
    assert lookback("As predicted, the effect was larger for younger children.", "discussion")
    assert not lookback("We expected that warmth would increase cooperation.", "introduction")
    assert not lookback("Participants rated the faces on trustworthiness.", "discussion")
    assert not PREDICTION.search("The model included group and day as predictor variables.")
    assert PREDICTION.search("We predicted that warmth would increase cooperation.")


LOOKBACK_PAPER = """# Warmth and cooperation

## Introduction

Participants in experiments often cooperate with strangers in public-goods tasks.
The present study asked whether physical warmth changes cooperation in a public-goods task.

## Method

Participants held a warm or a cold cup before the task.

## Results

Contributions were higher in the warm-cup condition than in the cold-cup condition, t(58) = 2.41, p = .019.

## Discussion

We expected to find that physical warmth increases cooperation with strangers in the public-goods task.
"""


def test_the_hypothesis_stage_skips_a_discussion_look_back(tmp_path: Path) -> None:
    path = tmp_path / "lookback.md"
    path.write_text(LOOKBACK_PAPER)
    doc = load_document(path)
    tr = extract_traces(doc, ["Physical warmth increases cooperation with strangers in the public-goods task."])[0]
    assert tr.hypothesis is not None
    assert "We expected" not in tr.hypothesis.text
    assert "The present study asked" in tr.hypothesis.text


def test_the_paragraph_of_an_explicit_prediction_is_a_feature() -> None:
    import numpy as np

    from claimtrace.extract.trace_ranker import HYP_FEATURES, hypothesis_matrix

    texts = ["Warmth is thought to signal trust.", "We predicted that warmth would increase cooperation.",
             "Participants held a cup."]
    parts = {k: np.zeros(3) for k in ("base", "sim", "cls", "cue", "prior", "stat")}
    x = hypothesis_matrix(texts, parts, ["introduction", "introduction", "methods"], [None, None, None], None, [],
                          "Warmth increased cooperation.", pid=["p1", "p1", "p2"])
    para, nxt = x[:, HYP_FEATURES.index("para_strong")], x[:, HYP_FEATURES.index("next_strong")]
    assert list(para) == [1.0, 1.0, 0.0] and list(nxt) == [1.0, 0.0, 0.0]


def test_a_prediction_merged_into_a_journal_box_stays_a_candidate() -> None:
    from claimtrace.documents.studies import box_paragraphs

    # GROBID merged the "Statement of Relevance" box with the introduction's last paragraph: the box's summary
    # stays out, its merged tail ("We expected no P1 effects ...") is the paper's prediction
    doc = load_document(shared_path("documents", "psychsci", "0956797621996667.xml"))
    boxes = box_paragraphs(doc)
    finding = ("Negative evaluative knowledge enlarged the N170 in every task, and the EPN and LPP told negative from "
               "neutral faces only when participants attended to the emotional information.")
    tr = extract_traces(doc, [finding])[0]
    assert tr.hypothesis is not None and set(tr.hypothesis.paragraph_ids) & boxes
    assert "expected" in tr.hypothesis.text
    assert "Humans are highly sensitive" not in tr.hypothesis.text
    assert "journal box" in tr.hypothesis.how_chosen


def test_the_box_tail_starts_at_the_first_explicit_expectation() -> None:
    import numpy as np

    from claimtrace.extract.trace_ranker import box_body_tail, hypothesis_candidates

    texts = ["This research shows that warmth matters.", "Our findings indicate a robust effect.",
             "We predicted that warmth would increase cooperation.", "Cooperation was measured in a game.",
             "Other text."]
    pid, box = ["p1"] * 4 + ["p2"], np.array([True] * 4 + [False])
    assert list(box_body_tail(texts, pid, box)) == [False, False, True, True, False]
    ones, zeros = np.ones(5, dtype=bool), np.zeros(5, dtype=bool)
    assert list(hypothesis_candidates(ones, zeros, box, zeros, zeros)) == [False] * 4 + [True]
    assert list(hypothesis_candidates(ones, zeros, box, zeros, zeros, texts, pid)) == [False, False, True, True, True]


def test_the_hypothesis_span_takes_close_neighbours_of_the_same_paragraph() -> None:
    import numpy as np

    from claimtrace.extract.trace_ranker import hypothesis_span

    scores = np.array([1.0, 4.6, 5.0, 4.5, 4.4, -np.inf])
    pid = ["p1", "p2", "p2", "p2", "p2", "p2"]
    assert hypothesis_span(scores, pid, 2, 1.0, 3) == (1, 3)  # the higher neighbours first, three at most
    assert hypothesis_span(scores, pid, 2, 0.2, 3) == (2, 2)
    assert hypothesis_span(scores, pid, 2, 10.0, 5) == (1, 4)  # another paragraph and a non-candidate stay out


def test_the_paragraph_tie_to_the_finding_is_a_feature() -> None:
    import numpy as np

    from claimtrace.extract.trace_ranker import HYP_FEATURES, hypothesis_matrix, paragraph_tie

    texts = ["Warmth is thought to signal trust.", "We predicted that warmth would increase cooperation.",
             "We predicted that warmth would reduce cooperation.", "Participants held a cup of coffee."]
    parts = {k: np.zeros(4) for k in ("base", "sim", "cls", "cue", "prior", "stat")}
    parts["sim"] = np.array([0.2, 0.9, 0.8, 0.1])
    x = hypothesis_matrix(texts, parts, ["introduction"] * 3 + ["methods"], [None] * 4, None, [],
                          "Warmth increased cooperation with strangers.", pid=["p1", "p1", "p2", "p3"])
    tie, rank = x[:, HYP_FEATURES.index("para_tie")], x[:, HYP_FEATURES.index("para_tie_rank")]
    # the first sentence shares the paragraph of the best-tied prediction: its paragraph's tie, not its own
    assert tie[0] == tie[1] == 1.0 > tie[2] > tie[3]
    assert list(rank) == [1.0, 1.0, 0.5, 1 / 3]
    # the rank is over the selected sentences only, and equal paragraph values share a rank
    rel, rk = paragraph_tie(np.array([0.5, 0.5, 0.9]), ["a", "b", "c"], np.array([True, True, False]))
    assert list(rel) == [1.0, 1.0, 0.0] and list(rk) == [1.0, 1.0, 0.0]
