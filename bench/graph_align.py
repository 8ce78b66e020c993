"""Speed and exactness of the structure-first graph alignment (branch-and-bound).

1. B&B against exhaustive search on small random graph pairs (must give the same optimum).
2. B&B speed on larger pairs: "realistic" pairs (a prediction made from the gold graph by renaming
   every node, dropping 30% of edges, retyping 10%, adding 30% spurious edges and 3 extra nodes) and
   "random" pairs (two unrelated random graphs: the hard case for maximum common subgraph).
   Greedy's aligned-edge count is reported next to the optimum.

Writes bench/results/graph_align.json.  Usage: python bench/graph_align.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path

from claimtrace.graph import EmpiricalGraph, align_graphs
from claimtrace.graph.model import RELATION_TYPES, STATUSES
from provenance import Run

OUT = Path(__file__).resolve().parent / "results" / "graph_align.json"
WORDS = ["anxiety", "stress", "sleep", "mood", "memory", "support", "burnout", "income", "age", "performance"]


def random_graph(rng: random.Random, n: int, m: int, prefix: str) -> EmpiricalGraph:
    """n variables, about m typed edges with random status."""
    g = EmpiricalGraph(id="r")
    for i in range(n):
        g.add_variable(f"{rng.choice(WORDS)} {prefix}{i}")
    ids = [v.id for v in g.variables]
    for _ in range(m):
        a, b = rng.sample(ids, 2)
        g.add_edge(a, b, rng.choice(RELATION_TYPES), rng.choice(STATUSES))
    return g


def perturb(rng: random.Random, g: EmpiricalGraph) -> EmpiricalGraph:
    """A noisy prediction of ``g``: renamed nodes, dropped/retyped/spurious edges, extra nodes."""
    p = EmpiricalGraph(id=g.id)
    order = list(g.variables)
    rng.shuffle(order)
    idmap = {}
    for v in order:
        name = f"{v.name.split()[0]} measure {v.id}" if rng.random() < 0.5 else f"node {v.id}"
        idmap[v.id] = p.add_variable(name).id
    for i in range(3):
        p.add_variable(f"extra {i}")
    ids = [v.id for v in p.variables]
    for e in g.edges:
        if rng.random() < 0.3:
            continue
        t = e.type if rng.random() > 0.1 else rng.choice(RELATION_TYPES)
        p.add_edge(idmap[e.source], idmap[e.target], t, e.status)
    for _ in range(int(0.3 * len(g.edges))):
        a, b = rng.sample(ids, 2)
        p.add_edge(a, b, rng.choice(RELATION_TYPES), rng.choice(STATUSES))
    return p


def timed(fn, *args, **kw):
    t = time.perf_counter()
    res = fn(*args, **kw)
    return res, time.perf_counter() - t


def exactness(trials: int) -> dict:
    rng = random.Random(0)
    same = 0
    t_bnb = t_ex = 0.0
    for _ in range(trials):
        p = random_graph(rng, rng.randint(2, 6), rng.randint(1, 9), "p")
        g = random_graph(rng, rng.randint(2, 6), rng.randint(1, 9), "g")
        b, tb = timed(align_graphs, p, g, use_status=False)
        e, te = timed(align_graphs, p, g, use_status=False, method="exhaustive")
        t_bnb += tb
        t_ex += te
        same += (b.matched, round(b.similarity, 6)) == (e.matched, round(e.similarity, 6))
    return {"pairs": trials, "same_optimum": same, "bnb_total_s": round(t_bnb, 3), "exhaustive_total_s": round(t_ex, 3),
            "note": "2-6 nodes per graph, 1-9 edges; equality of (aligned edges, total label similarity)"}


def speed(kind: str, sizes: list[int], seeds: int, time_limit: float) -> list[dict]:
    rows = []
    for n in sizes:
        times, explored, optimal, gaps, matched = [], [], 0, [], []
        ex_times = []
        for seed in range(seeds):
            rng = random.Random(1000 * n + seed)
            gold = random_graph(rng, n, int(1.5 * n), "g")
            pred = perturb(rng, gold) if kind == "realistic" else random_graph(rng, n, int(1.5 * n), "p")
            res, t = timed(align_graphs, pred, gold, use_status=True, time_limit=time_limit)
            greedy = align_graphs(pred, gold, use_status=True, method="greedy")
            times.append(t)
            explored.append(res.explored)
            optimal += res.optimal
            matched.append(res.matched)
            gaps.append(res.matched - greedy.matched)
            if (len(pred.variables) + 1) ** min(len(pred.variables), len(gold.variables)) <= 2_000_000:
                _, te = timed(align_graphs, pred, gold, use_status=True, method="exhaustive")
                ex_times.append(te)
        rows.append({
            "kind": kind, "nodes": n, "edges": int(1.5 * n), "pairs": seeds,
            "bnb_median_s": round(statistics.median(times), 4), "bnb_max_s": round(max(times), 4),
            "optimal_proven": optimal, "median_explored": int(statistics.median(explored)),
            "mean_aligned_edges": round(statistics.mean(matched), 2),
            "mean_greedy_shortfall": round(statistics.mean(gaps), 2),
            "exhaustive_median_s": round(statistics.median(ex_times), 4) if ex_times else None,
            "time_limit_s": time_limit,
        })
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    """Run the benchmark and write the JSON results."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time-limit", type=float, default=10.0)
    args = ap.parse_args()
    seeds = 3 if args.quick else 5
    run = Run()
    result = {
        "bench": "graph_align",
        "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()},
        "exactness": exactness(60 if args.quick else 200),
        "speed": speed("realistic", [6, 10, 15, 20, 30, 40], seeds, args.time_limit)
        + speed("random", [6, 8, 10, 12, 16], seeds, args.time_limit),
    }
    result["provenance"] = run.finish()
    print(json.dumps(result["exactness"]))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
