"""The evidence ranker's experiments (``scripts/evidence_ranker_experiments.py``): the paragraph-level pieces and the
query variant behave as the result file says they do."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from evidence_ranker_experiments import (
    acronyms,
    extra_features,
    paragraph_bm25,
    paragraphs,
    query_variant,
    two_level_scores,
)


def _trace() -> dict[str, Any]:
    """Two Results paragraphs: p1 on executive function (EF) by profile, p2 on puberty; the gold is in p1."""
    texts = ["Profiles differed in EF ability, F(5, 100) = 16.2, p < .001.",
             "All profiles differed from one another in EF (ps < .005).",
             "The proportion of children in each puberty category differed across profiles, F(5, 90) = 13.9, p < .001.",
             "Girls were more often in later puberty stages than boys."]
    return {"texts": texts, "pid": ["p1", "p1", "p2", "p2"], "is_table": np.zeros(4, dtype=bool),
            "section": ["Results/EF differences across profiles"] * 2 + ["Results/Puberty"] * 2,
            "cand": np.ones(4, dtype=bool), "y": np.array([True, False, False, False]),
            "sim": np.array([0.9, 0.5, 0.6, 0.2]), "base": np.array([2.0, 1.0, 1.5, 0.5]),
            "relevance": np.array([1.5, 0.8, 1.2, 0.3]),
            "finding": "Six groups of risk factors emerged, which related to different average EF abilities.",
            "hypothesis": ""}


def test_acronyms_keep_capitals_and_drop_the_plural() -> None:
    assert acronyms("ISCs were smaller in the dmPFC and the EF task; the ASC group") == {"ISC", "dmPFC", "EF", "ASC"}
    assert acronyms("A Results paragraph") == set()


def test_paragraph_bm25_ranks_the_paragraph_about_the_finding_first() -> None:
    s = paragraph_bm25(_trace(), "different average EF abilities")
    assert s["p1"] == 1.0 and s["p2"] < s["p1"]


def test_paragraphs_pool_features_and_labels() -> None:
    r = _trace()
    x = np.array([[1.0, 0.0], [3.0, 1.0], [2.0, 0.0], [0.0, 0.0]])
    pids, feats, y = paragraphs(r, x)
    assert pids == ["p1", "p2"]
    assert feats[0].tolist() == [3.0, 1.0, 2.0, 0.5]  # max, then mean, of p1's rows
    assert y.tolist() == [True, False]


def test_hard_two_level_keeps_the_best_paragraph_only() -> None:
    r = _trace()
    x = np.array([[1.0], [0.5], [4.0], [0.0]])  # p2's first sentence has the best sentence score
    w = np.array([1.0])
    wp = np.array([-1.0, 0.0])  # the paragraph ranker prefers the paragraph with the lower max: p1
    s = two_level_scores(r, x, w, wp, None)
    assert int(np.argmax(s)) == 0
    soft = two_level_scores(r, x, w, wp, 0.5)
    assert int(np.argmax(soft)) == 2  # the paragraph score only shifts the sentences: p2's best still wins


def test_query_variant_moves_the_hand_set_score_with_the_similarity() -> None:
    r = _trace()
    sf = np.array([0.1, 0.2, 0.3, 0.4])
    v = query_variant(r, sf, "", None)
    assert np.allclose(v["sim"], sf)
    assert np.allclose(v["base"] - v["sim"], r["base"] - r["sim"])  # the non-similarity part is kept
    assert v["hypothesis"] == ""


def test_extra_features_mark_the_finding_acronym_paragraph() -> None:
    r = _trace()
    ex = extra_features(r)
    col = ex[:, 3]  # acronym_paragraph: the finding's "EF" is in p1 only
    assert col.tolist() == [1.0, 1.0, 0.0, 0.0]


def test_gold_paragraph_keeps_the_candidates_of_the_gold_paragraph() -> None:
    from evidence_ranker_experiments import gold_paragraph

    r = _trace()
    (g,) = gold_paragraph([r])
    assert g["cand"].tolist() == [True, True, False, False]
    none = {**r, "y": np.zeros(4, dtype=bool)}
    assert gold_paragraph([none])[0]["cand"].tolist() == [True] * 4  # no correct candidate: unchanged


def _role_trace() -> dict[str, Any]:
    """Three Results paragraphs of one study: the main test under the heading naming the finding's variable, a
    manipulation check, and an exploratory analysis; the hypothesis names Study 2."""
    texts = ["As predicted, EF abilities differed across the profiles.",
             "Profiles differed in EF ability, F(5, 100) = 16.2, p < .001.",
             "As a manipulation check, participants rated the videos.",
             "Ratings were higher for the fear videos, t(40) = 3.1, p = .004.",
             "Puberty categories differed across profiles, F(5, 90) = 13.9, p < .001."]
    return {"texts": texts, "pid": ["p1", "p1", "p2", "p2", "p3"], "is_table": np.zeros(5, dtype=bool),
            "section": ["Results/EF differences across profiles"] * 2 + ["Results/Manipulation check"] * 2
            + ["Results/Exploratory analyses"], "cand": np.ones(5, dtype=bool),
            "engine": np.array([0, 2, 0, 2, 2]), "study": ["2", "2", "2", "2", "1"], "studies": ["1", "2"],
            "finding": "Six groups of risk factors related to different average EF abilities.",
            "hypothesis": "In Study 2 we expected EF abilities to differ between risk profiles."}


def test_role_features_read_headings_lead_cues_and_the_paragraph_link() -> None:
    from evidence_ranker_experiments import ROLE_EXTRA, role_features

    x = role_features(_role_trace())
    col = {n: x[:, j].tolist() for j, n in enumerate(ROLE_EXTRA)}
    assert col["head_secondary"] == [0.0, 0.0, 1.0, 1.0, 1.0]  # "Manipulation check", "Exploratory analyses"
    assert col["paragraph_lead_secondary"] == [0.0, 0.0, 1.0, 1.0, 0.0]  # the lead sentence marks its paragraph
    assert col["paragraph_hyp_link"] == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert col["hyp_link_tested"] == [0.0, 1.0, 0.0, 0.0, 0.0]  # the tested sentence after "As predicted"
    assert col["heading_best"] == [1.0, 1.0, 0.0, 0.0, 0.0]  # "EF differences across profiles" meets the finding
    rel = col["paragraph_overlap_relative"]
    assert rel[0] == rel[1] == 0.0 and rel[2] < 0.0  # the best paragraph's share of the finding's stems is 0
    assert col["first_paragraph_of_heading"] == [1.0] * 5  # one paragraph per heading here
    assert col["hypothesis_study"] == [1.0, 1.0, 1.0, 1.0, 0.0]  # the finding names no study; the hypothesis Study 2


def test_role_features_leave_non_candidates_zero() -> None:
    from evidence_ranker_experiments import role_features

    r = {**_role_trace(), "cand": np.array([False, True, False, False, False])}
    x = role_features(r)
    assert not x[[0, 2, 3, 4]].any()


def test_secondary_heading_reads_the_innermost_heading() -> None:
    from evidence_ranker_experiments import secondary_heading

    assert secondary_heading("Study 1/Results/Exploratory analyses")
    assert secondary_heading("Results/Manipulation check")
    assert secondary_heading("Results/Preliminary analyses")
    assert not secondary_heading("Exploratory analyses/Main effect of condition")  # only the innermost heading
    assert not secondary_heading("Results/Tryptophan depletion and sensitivity to social norms")


def test_heading_filter_drops_secondary_paragraphs_but_never_every_candidate() -> None:
    from evidence_ranker_experiments import heading_filter

    r = _role_trace()
    (f,) = heading_filter([r])
    assert f["cand"].tolist() == [True, True, False, False, False]
    only = {**r, "cand": np.array([False, False, True, True, True])}
    assert heading_filter([only])[0]["cand"].tolist() == only["cand"].tolist()  # nothing else left: unchanged
