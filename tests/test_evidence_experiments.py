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
