"""Structure-first graph alignment: known optima, greedy failures, B&B == exhaustive, scores."""

from __future__ import annotations

import random

import pytest

from claimtrace.evaluate.metrics import prf_from_sizes as prf
from claimtrace.graph import EmpiricalGraph, align_graphs, evaluate_graphs, load_labelstudio, score_pair
from claimtrace.graph.model import RELATION_TYPES, STATUSES
from claimtrace.graph.scores import aggregate
from conftest import EMPIRIGRAPH_GOLD


def build(nodes: list[str], edges: list[tuple[str, str, str, str]], gid: str = "g") -> EmpiricalGraph:
    """A graph whose variable ids are the node names (so expected mappings read naturally)."""
    g = EmpiricalGraph.model_validate({"id": gid, "variables": [{"id": n, "name": n} for n in nodes]})
    for s, t, typ, st in edges:
        g.add_edge(s, t, typ, st)  # type: ignore[arg-type]
    return g


def test_greedy_misled_by_labels_optimum_found() -> None:
    gold = build(["anxiety", "sleep quality", "mood"],
                 [("anxiety", "sleep quality", "directional", "validated"),
                  ("anxiety", "mood", "directional", "validated")])
    pred = build(["anxiety", "stress", "sleep", "mood scores"],
                 [("stress", "sleep", "directional", "validated"),
                  ("stress", "mood scores", "directional", "validated"),
                  ("anxiety", "sleep", "correlational", "validated")])
    greedy = align_graphs(pred, gold, method="greedy")
    best = align_graphs(pred, gold)
    assert greedy.matched == 0  # greedy maps anxiety -> anxiety by name and loses both edges
    assert best.matched == 2 and best.optimal
    assert best.mapping["stress"] == "anxiety"
    assert best.mapping["sleep"] == "sleep quality"
    assert best.mapping["mood scores"] == "mood"


def test_greedy_misled_by_structure() -> None:
    # the gold hub h has one out-edge to each of a, b; a also has a long chain a->c->d.
    gold = build(["h", "a", "b", "c", "d"],
                 [("h", "a", "directional", "validated"), ("h", "b", "directional", "validated"),
                  ("a", "c", "directional", "validated"), ("c", "d", "directional", "validated")])
    # pred: a chain p1->p2->p3->p4 and a separate hub q with two leaves
    pred = build(["p1", "p2", "p3", "p4", "q", "q1", "q2"],
                 [("p1", "p2", "directional", "validated"), ("p2", "p3", "directional", "validated"),
                  ("p3", "p4", "directional", "validated"), ("q", "q1", "directional", "validated"),
                  ("q", "q2", "directional", "validated")])
    best = align_graphs(pred, gold)
    exhaustive = align_graphs(pred, gold, method="exhaustive")
    greedy = align_graphs(pred, gold, method="greedy")
    # 3 is optimal (e.g. h->a->c->d onto the chain, or the hub onto q plus c->d onto the chain)
    assert best.matched == exhaustive.matched == 3
    assert greedy.matched < best.matched
    assert score_pair(pred, gold).overall.tp == 3  # the returned mapping realises the optimum


def test_mapping_is_injective() -> None:
    gold = build(["x", "y", "z"], [("x", "y", "directional", "validated"), ("z", "y", "directional", "validated")])
    pred = build(["p", "q"], [("p", "q", "directional", "validated")])
    res = align_graphs(pred, gold)
    assert res.matched == 1
    assert len(set(res.mapping.values())) == len(res.mapping)


def test_label_similarity_breaks_ties() -> None:
    gold = build(["stress", "sleep", "anxiety", "mood"],
                 [("stress", "sleep", "directional", "validated"), ("anxiety", "mood", "directional", "validated")])
    pred = build(["anxiety level", "low mood", "work stress", "sleep problems"],
                 [("anxiety level", "low mood", "directional", "validated"),
                  ("work stress", "sleep problems", "directional", "validated")])
    res = align_graphs(pred, gold)
    assert res.matched == 2
    assert res.mapping == {"anxiety level": "anxiety", "low mood": "mood", "work stress": "stress",
                           "sleep problems": "sleep"}


def test_multi_typed_pair_status_and_undirected_correlation() -> None:
    gold = build(["mode", "skill", "score"],
                 [("mode", "score", "directional", "validated"), ("mode", "score", "moderation", "validated"),
                  ("skill", "score", "correlational", "null")])
    pred = build(["m", "s", "sc"],
                 [("m", "sc", "directional", "validated"), ("sc", "s", "correlational", "validated")])
    with_status = score_pair(pred, gold, use_status=True)
    no_status = score_pair(pred, gold, use_status=False)
    assert with_status.overall.tp == 1  # the correlation's status differs
    assert no_status.overall.tp == 2  # correlational matched in the other direction
    assert with_status.per_type["moderation"].recall == 0.0
    assert no_status.per_type["correlational"].f1 == 1.0
    assert with_status.overall.precision == pytest.approx(1 / 2)
    assert with_status.overall.recall == pytest.approx(1 / 3)


def _random_graph(rng: random.Random, n: int, m: int, prefix: str) -> EmpiricalGraph:
    words = ["anxiety", "stress", "sleep", "mood", "memory", "support", "burnout", "income"]
    g = EmpiricalGraph(id="r")
    for i in range(n):
        g.add_variable(f"{rng.choice(words)} {prefix}{i}")
    ids = [v.id for v in g.variables]
    for _ in range(m):
        a, b = rng.sample(ids, 2)
        g.add_edge(a, b, rng.choice(RELATION_TYPES), rng.choice(STATUSES[:2]))
    return g


@pytest.mark.parametrize("seed", range(4))
def test_branch_and_bound_equals_exhaustive(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        pred = _random_graph(rng, rng.randint(2, 5), rng.randint(1, 7), "p")
        gold = _random_graph(rng, rng.randint(2, 5), rng.randint(1, 7), "g")
        for use_status in (True, False):
            bnb = align_graphs(pred, gold, use_status=use_status)
            ex = align_graphs(pred, gold, use_status=use_status, method="exhaustive")
            assert bnb.optimal
            assert bnb.matched == ex.matched
            assert bnb.similarity == pytest.approx(ex.similarity)


def test_budget_exhausted_returns_best_found() -> None:
    rng = random.Random(11)
    pred = _random_graph(rng, 18, 30, "p")
    gold = _random_graph(rng, 18, 30, "g")
    res = align_graphs(pred, gold, max_nodes=50)
    assert not res.optimal
    assert len(set(res.mapping.values())) == len(res.mapping)
    assert res.matched >= align_graphs(pred, gold, method="greedy").matched


def test_prf_and_macro() -> None:
    assert prf(0, 0, 0).f1 == 1.0
    assert prf(0, 3, 0).f1 == 0.0
    gold = build(["a", "b", "c"], [("a", "b", "directional", "validated"), ("a", "c", "hierarchy", "validated")])
    pred = build(["a", "b", "c"], [("a", "b", "directional", "validated"), ("b", "c", "hierarchy", "validated")])
    s = aggregate([score_pair(pred, gold)])
    assert s.micro_f1 == pytest.approx(0.5)
    # directional 1.0, hierarchy 0.0 -> macro over the two types present
    assert s.per_type == {"directional": 1.0, "hierarchy": 0.0}
    assert s.macro_f1 == pytest.approx(0.5)


def test_gold_vs_gold_is_perfect() -> None:
    golds = {g.id: g for g in load_labelstudio(EMPIRIGRAPH_GOLD)}
    res = evaluate_graphs(golds, golds, mode="agreement")
    assert res.micro_f1 == 1.0 and res.macro_f1 == 1.0
    assert res.no_status.micro_f1 == 1.0
    assert set(res.per_type) == {"directional", "correlational", "moderation", "hierarchy"}
    assert all(d.optimal for d in res.documents)


def test_gold_vs_perturbed_gold() -> None:
    golds = {g.id: g for g in load_labelstudio(EMPIRIGRAPH_GOLD)}
    g = golds["100"]
    pert = g.model_copy(deep=True)
    dropped = [e for e in pert.edges if e.type == "hierarchy"][:2]
    pert.edges = [e for e in pert.edges if e not in dropped]
    flipped = next(e for e in pert.edges if e.type == "moderation")
    flipped.status = "validated"  # gold says null
    # rename every variable: the alignment must not depend on names
    for v in pert.variables:
        v.name = f"variable {v.id}"
    res = evaluate_graphs({"100": pert}, {"100": g})
    n = len(g.edges)
    assert res.per_type_counts["hierarchy"].recall == pytest.approx(6 / 8)
    assert res.precision == pytest.approx((n - 3) / (n - 2))
    assert res.recall == pytest.approx((n - 3) / n)
    assert res.no_status.recall == pytest.approx((n - 2) / n)
