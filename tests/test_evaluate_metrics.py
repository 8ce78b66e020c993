"""Hand-computed cases for the hypothesis metric, the τ grid search, RSP and transitions; the real
MiniLM embedder on real Evidence-Inference spans."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from claimtrace.evaluate.diagnostics import PaperOutcome, relevant_sentence_proportion, transitions
from claimtrace.evaluate.hypothesis import (
    HypothesisSims,
    calibrate_from_scores,
    f1_curve,
    hypothesis_sims,
    score_hypotheses,
    sentences_of,
    tau_grid,
)
from claimtrace.evaluate.metrics import binary_prf, micro, prf, prf_from_sizes
from claimtrace.retrieval.embeddings import default_embedder
from conftest import EI_PROMPTS


def test_prf_counts_and_zero_denominators() -> None:
    s = prf(3, 1, 2)
    assert (s.precision, s.recall) == (0.75, 0.6)
    assert s.f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    # the one empty-set rule: nothing predicted and nothing to find is perfect; any other zero denominator is 0
    z = prf(0, 0, 0)
    assert (z.precision, z.recall, z.f1) == (1.0, 1.0, 1.0)
    nothing_predicted = prf(0, 0, 2)
    assert (nothing_predicted.precision, nothing_predicted.recall, nothing_predicted.f1) == (0.0, 0.0, 0.0)
    nothing_to_find = prf(0, 3, 0)
    assert (nothing_to_find.precision, nothing_to_find.recall, nothing_to_find.f1) == (0.0, 0.0, 0.0)
    assert (s.pred, s.gold) == (4, 5)


def test_binary_and_size_forms_agree_with_counts() -> None:
    b = binary_prf([1, 1, 0, 0, 1], [1, 0, 1, 0, 1])
    assert (b.tp, b.fp, b.fn) == (2, 1, 1)
    assert b == prf_from_sizes(2, 3, 3) == prf(2, 1, 1)
    assert b.rounded(2) == {"precision": 0.67, "recall": 0.67, "f1": 0.67, "tp": 2, "fp": 1, "fn": 1}


def test_micro_sums_counts_not_scores() -> None:
    m = micro([prf(1, 0, 0), prf(0, 3, 1)])
    assert (m.tp, m.fp, m.fn) == (1, 3, 1)
    assert m.precision == 0.25 and m.recall == 0.5


def test_hypothesis_counts_hand_computed() -> None:
    # three predicted sentences (best sims .9, .5, .75), two gold sentences (best sims .9, .3)
    sims = HypothesisSims(["a", "b", "c"], ["x", "y"], np.array([0.9, 0.5, 0.75]), np.array([0.9, 0.3]))
    s = sims.score(0.7)
    assert (s.tp, s.fp, s.tp_gold, s.fn) == (2, 1, 1, 1)
    assert s.precision == pytest.approx(2 / 3) and s.recall == 0.5 and s.f1 == pytest.approx(4 / 7)
    s = sims.score(0.95)
    assert (s.tp, s.fp, s.tp_gold, s.fn) == (0, 3, 0, 2) and s.f1 == 0.0


def test_tau_grid_is_the_published_grid() -> None:
    g = tau_grid()
    assert len(g) == 91 and g[0] == 0.1 and g[-1] == 1.0 and g[1] == 0.11 and 0.89 in g


def test_calibration_grid_hand_computed() -> None:
    # correct pairs at .95 and .85; incorrect at .6, .4, .3 -> any τ in (.6, .85] separates them
    res = calibrate_from_scores([0.95, 0.85, 0.6, 0.4, 0.3], [True, True, False, False, False])
    assert res.best_tau == 0.61  # lowest τ with the best F1
    assert res.f1 == 1.0 and res.n_pairs == 5 and res.n_correct == 2
    at = {p.tau: p for p in res.grid}
    assert at[0.3].precision == pytest.approx(0.4) and at[0.3].recall == 1.0  # everything predicted a match
    assert at[0.9].precision == 1.0 and at[0.9].recall == 0.5
    assert at[1.0].f1 == 0.0


def test_transitions_buckets_and_mean_delta() -> None:
    a = {"1": PaperOutcome(has_gold=False, f1=0.2), "2": PaperOutcome(has_gold=True, f1=0.5),
         "3": PaperOutcome(has_gold=True, f1=0.8), "4": PaperOutcome(has_gold=False, f1=0.0),
         "5": PaperOutcome(has_gold=False, f1=0.1)}
    b = {"1": PaperOutcome(has_gold=True, f1=0.6), "2": PaperOutcome(has_gold=True, f1=0.7),
         "3": PaperOutcome(has_gold=False, f1=0.3), "4": PaperOutcome(has_gold=False, f1=0.0),
         "5": PaperOutcome(has_gold=True, f1=0.4)}
    r = transitions(a, b, config_a="fulltext", config_b="rag")
    assert r.n == 5
    assert r.buckets["gains"].count == 2 and r.buckets["gains"].mean_delta_f1 == pytest.approx(0.35)
    assert r.buckets["keeps"].ids == ["2"] and r.buckets["keeps"].mean_delta_f1 == pytest.approx(0.2)
    assert r.buckets["loses"].mean_delta_f1 == pytest.approx(-0.5)
    assert r.buckets["misses"].mean_delta_f1 == 0.0


# ---- the real embedder on real text -----------------------------------------------------------

def _ei_spans(n: int = 40) -> list[dict[str, str]]:
    path = EI_PROMPTS  # the validation prompts of the CC BY articles (tests/fixtures)
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        if p["evidence"]:
            out.append({"pmcid": p["pmcid"], "text": p["evidence"][0]["text"].strip()})
    seen: set[str] = set()
    uniq = [x for x in out if not (x["text"] in seen or seen.add(x["text"]))]  # type: ignore[func-returns-value]
    return uniq[:n]


def test_real_spans_against_themselves_and_other_papers() -> None:
    emb = default_embedder()
    spans = _ei_spans()
    same = score_hypotheses([(s["text"], s["text"]) for s in spans], emb, tau=0.7)
    assert same.f1 == 1.0 and same.fn == 0 and same.fp == 0
    # each span against a span from a different article: almost nothing matches
    rng = random.Random(0)
    others = []
    for s in spans:
        cand = [o for o in spans if o["pmcid"] != s["pmcid"]]
        others.append((rng.choice(cand)["text"], s["text"]))
    cross = score_hypotheses(others, emb, tau=0.7)
    assert cross.f1 < 0.15
    assert cross.tp + cross.fp == sum(len(sentences_of(p)) for p, _ in others)


def test_real_span_with_an_added_unrelated_sentence_halves_precision() -> None:
    emb = default_embedder()
    gold = _ei_spans(1)[0]["text"]
    pred = gold + " All procedures were approved by the local ethics committee."
    s = hypothesis_sims(pred, gold, emb).score(0.7)
    assert len(sentences_of(pred)) == len(sentences_of(gold)) + 1
    assert s.recall == 1.0 and s.fp == 1


def test_f1_curve_is_monotone_in_recall_on_real_pairs() -> None:
    emb = default_embedder()
    spans = _ei_spans(20)
    # predicted = the next span (often same paper, related but different statement)
    sims = [hypothesis_sims(spans[i + 1]["text"], spans[i]["text"], emb) for i in range(len(spans) - 1)]
    curve = f1_curve(sims, tau_grid(0.6, 0.95, 0.05))
    recalls = [c.recall for c in curve]
    assert recalls == sorted(recalls, reverse=True)
    assert [round(c.tau, 2) for c in curve] == [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]


def test_rsp_on_a_real_context() -> None:
    emb = default_embedder()
    spans = _ei_spans(6)
    ref = spans[0]["text"]
    ctx = [ref, *(s["text"] for s in spans[1:] if s["pmcid"] != spans[0]["pmcid"])]
    rsp = relevant_sentence_proportion(ctx, ref, emb, tau=0.7)
    assert rsp == pytest.approx(1 / len(ctx))
    assert relevant_sentence_proportion([], ref, emb) == 0.0


# ---- behaviour that mutation testing found no test pinned -----------------------------------

def test_binary_prf_refuses_predictions_and_labels_of_different_lengths() -> None:
    # a silently truncated comparison would score only the first items
    with pytest.raises(ValueError):
        binary_prf([1, 0, 1], [1, 0])
    with pytest.raises(ValueError):
        binary_prf([1], [1, 1])
    s = binary_prf([1, 0, 1, 0], [1, 1, 0, 0])
    assert (s.tp, s.fp, s.fn) == (1, 1, 1)
