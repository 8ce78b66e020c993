"""Hand-computed cases: uniform quotas, RRF fusion, RankGPT windows and permutations, hard-negative filter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from claimtrace.retrieval.hybrid import rrf_scores
from claimtrace.retrieval.metrics import scores_for
from claimtrace.retrieval.rerank import apply_permutation, parse_permutation, sliding_windows
from claimtrace.retrieval.selectors import uniform_quota
from claimtrace.training.retriever import passes_tau_filter, pick_hard_negative


@pytest.mark.parametrize(("k", "s", "beta", "n_max", "expected"), [
    (10, 1, 2.0, 40, 10),   # ceil(min(10 + 0, 40) / 1)
    (10, 3, 2.0, 40, 5),    # 10 + 2 ln 3 = 12.197 -> /3 = 4.07 -> 5
    (10, 20, 2.0, 40, 1),   # 10 + 2 ln 20 = 15.99 -> /20 = 0.80 -> 1
    (50, 2, 2.0, 40, 20),   # min(51.39, 40) = 40 -> /2 = 20
    (5, 4, 0.0, 40, 2),     # 5 / 4 = 1.25 -> 2
])
def test_uniform_quota(k: int, s: int, beta: float, n_max: int, expected: int) -> None:
    assert uniform_quota(k, s, beta, n_max) == expected


def test_uniform_quota_rejects_no_sources() -> None:
    with pytest.raises(ValueError):
        uniform_quota(10, 0)


def test_rrf_equal_weights() -> None:
    s = rrf_scores([[0, 1, 2], [2, 0, 1]], 3, k=60)
    assert s[0] == pytest.approx(1 / 61 + 1 / 62)
    assert s[1] == pytest.approx(1 / 62 + 1 / 63)
    assert s[2] == pytest.approx(1 / 63 + 1 / 61)
    assert list(np.argsort(-s)) == [0, 2, 1]


def test_rrf_weights_change_the_winner() -> None:
    s = rrf_scores([[0, 1, 2], [2, 0, 1]], 3, weights=[1.0, 3.0], k=60)
    assert s[2] == pytest.approx(1 / 63 + 3 / 61)
    assert s[0] == pytest.approx(1 / 61 + 3 / 62)
    assert int(np.argmax(s)) == 2


def test_rrf_unranked_items_score_zero() -> None:
    s = rrf_scores([[3]], 5)
    assert s[3] == pytest.approx(1 / 61)
    assert s[[0, 1, 2, 4]].sum() == 0


def test_sliding_windows_back_to_front() -> None:
    assert sliding_windows(45, 20, 10) == [(25, 45), (15, 35), (5, 25), (0, 15)]
    assert sliding_windows(20, 20, 10) == [(0, 20)]
    assert sliding_windows(7) == [(0, 7)]
    assert sliding_windows(0) == []


@pytest.mark.parametrize(("answer", "n", "expected"), [
    ("[3] > [1] > [2]", 3, [2, 0, 1]),
    ("[3] > [1] > [3] > [7] > [2]", 4, [2, 0, 1, 3]),   # duplicate dropped, 7 out of range, 4 missing -> appended
    ("The ranking is: [2] > [0] > [5]", 3, [1, 0, 2]),  # 0 and 5 out of range
    ("2, 1", 3, [1, 0, 2]),                             # no brackets: bare numbers
    ("I cannot rank these.", 3, [0, 1, 2]),             # nothing usable: original order
    ("", 0, []),
])
def test_parse_permutation(answer: str, n: int, expected: list[int]) -> None:
    assert parse_permutation(answer, n) == expected


def test_apply_permutation_only_touches_the_window() -> None:
    items = list("abcdef")
    assert apply_permutation(items, 2, 5, [2, 0, 1]) == list("abecdf")
    with pytest.raises(ValueError):
        apply_permutation(items, 2, 5, [0, 0, 1])


def _unit(x: float, y: float) -> np.ndarray:
    v = np.array([x, y], dtype=np.float32)
    return v / np.linalg.norm(v)


def test_tau_filter_and_hard_negative_choice() -> None:
    gold = np.stack([_unit(1, 0)])
    a_sents = np.stack([_unit(0.95, math.sqrt(1 - 0.95**2))])  # cosine 0.95 with the gold
    b_sents = np.stack([_unit(0.6, 0.8), _unit(0, 1)])          # best cosine 0.6
    c_sents = np.stack([_unit(0, 1)])
    assert not passes_tau_filter(a_sents, gold, 0.89)
    assert passes_tau_filter(b_sents, gold, 0.89)
    assert passes_tau_filter(a_sents, gold, 0.96)
    positive = _unit(1, 0)
    cand_vecs = np.stack([_unit(0.95, math.sqrt(1 - 0.95**2)), _unit(0.6, 0.8), _unit(0, 1)])
    sent_vecs = [a_sents, b_sents, c_sents]
    # A is the most similar to the positive but too close to the gold: B is chosen
    assert pick_hard_negative(positive, [10, 11, 12], cand_vecs, sent_vecs, gold, 0.89) == 11
    # a looser threshold lets A through
    assert pick_hard_negative(positive, [10, 11, 12], cand_vecs, sent_vecs, gold, 0.96) == 10
    # excluded units (the positive) are never chosen; nothing left -> None
    assert pick_hard_negative(positive, [10, 11], cand_vecs[:2], sent_vecs[:2], gold, 0.96, exclude=[10]) == 11
    assert pick_hard_negative(positive, [10], cand_vecs[:1], sent_vecs[:1], gold, 0.89) is None


def test_metrics_by_ids_and_by_text() -> None:
    hits = [{"unit_id": "p3", "text": "Background on malaria."},
            {"unit_id": "p7", "text": "Gametocyte carriage was lower with co-artemether (p < 0.001)."},
            {"unit_id": "p9", "text": "Other."}]
    s = scores_for(hits, gold_ids=["p7", "p12"], ks=(1, 3))
    assert s["hit@1"] == 0 and s["hit@3"] == 1
    assert s["recall@3"] == pytest.approx(0.5)
    assert s["mrr"] == pytest.approx(0.5)
    assert s["ndcg@3"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    t = scores_for(hits, gold_texts=["gametocyte carriage was lower with co-artemether"], ks=(1,))
    assert t["mrr"] == pytest.approx(0.5) and t["hit@1"] == 0
