"""Choosing how BM25 and the shipped trained retriever are fused, on EI validation (body spans).

    python bench/retrieval_fusion.py [--limit N]

For every validation prompt (query = intervention vs comparator: outcome; units = body paragraphs and body
sentences), scores each unit with BM25, the untrained MiniLM (``dense``) and the shipped trained retriever's
evidence head (``trained``) once, then ranks by every fusion in the grid below and scores hit@1/3/5 with
../shared/tools/ei_eval.py's overlap rule. The fusion chosen here is TUNED ON EI VALIDATION: its validation
figures are development data (the held-out judgement is on other splits). Every row keeps per-prompt hits, and
the differences against BM25 carry 95% paired bootstrap intervals.
Writes bench/results/retrieval_fusion.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from provenance import Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
RESULTS = REPO / "bench" / "results" / "retrieval_fusion.json"

#: (name, method, bm25 weight, second retriever weight, second retriever)
GRID: list[tuple[str, str, float, float, str]] = [
    ("bm25", "single", 1, 0, "bm25"), ("dense", "single", 0, 1, "dense"), ("trained", "single", 0, 1, "trained"),
    ("hybrid (bm25+dense rrf)", "rrf", 1, 1, "dense"),
    *[(f"bm25+trained rrf w={w}", "rrf", 1, w, "trained") for w in (0.5, 1.0, 1.5, 2.0, 3.0)],
    *[(f"bm25+trained minmax w={w}", "minmax", 1 - w, w, "trained") for w in (0.3, 0.5, 0.6, 0.7, 0.8)],
    *[(f"bm25+trained zscore w={w}", "zscore", 1 - w, w, "trained") for w in (0.3, 0.5, 0.6, 0.7, 0.8)],
    # units scored by their best sentence (FinetunedRetriever(max_sentence=True); for sentence units the same)
    ("trained maxsent", "single", 0, 1, "maxsent"),
    *[(f"bm25+trained maxsent rrf w={w}", "rrf", 1, w, "maxsent") for w in (1.0, 2.0)],
    *[(f"bm25+trained maxsent minmax w={w}", "minmax", 1 - w, w, "maxsent") for w in (0.5, 0.7)],
]


def fused(method: str, w1: float, w2: float, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """The fused scores of one document's units (the library's own fusion code)."""
    from claimtrace.retrieval.base import rank
    from claimtrace.retrieval.hybrid import normalised, rrf_scores

    if method == "single":
        return s1 if w1 else s2
    if method == "rrf":
        return rrf_scores([rank(s1), rank(s2)], len(s1), [w1, w2])
    return w1 * normalised(s1, method) + w2 * normalised(s2, method)


def main() -> None:
    """Score every prompt once per retriever, then every fusion; write the table and the choice."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=None)
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    from claimtrace.documents import load_document
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff, proportion_ci
    from claimtrace.retrieval.bm25 import BM25Retriever
    from claimtrace.retrieval.dense import DenseRetriever
    from claimtrace.retrieval.embeddings import read_retriever_manifest, shipped_retriever_dir
    from claimtrace.retrieval.pipeline import get_retriever
    from claimtrace.retrieval.units import document_units

    ev = shared_tool("ei_eval")
    model = shipped_retriever_dir()
    prov = Run(data=[TOOLS / "ei_eval.py", REPO.parent / "shared" / "data" / "evidence-inference" / "validation",
                     model / "model.onnx", model / "heads.npz"])
    ps = ev.prompts("validation", True)[: a.limit]
    from claimtrace.retrieval.finetuned import FinetunedRetriever

    retr: dict[str, Any] = {"bm25": BM25Retriever(), "dense": DenseRetriever(None), "trained": get_retriever("trained"),
            "maxsent": FinetunedRetriever(model, max_sentence=True)}
    hits: dict[str, dict[str, dict[str, list[int]]]] = {u: {g[0]: {} for g in GRID} for u in ("paragraph", "sentence")}
    t0 = time.time()
    cache: dict[tuple[str, str], tuple[list[Any], dict[str, Any]]] = {}
    for n, p in enumerate(ps):
        doc_path = REPO.parent / "shared" / "data" / "evidence-inference" / "validation" / "articles" / f"{p['pmcid']}.nxml"
        query = f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
        for unit in ("paragraph", "sentence"):
            key = (str(doc_path), unit)
            if key not in cache:
                cache.clear() if len(cache) > 4 else None
                units = document_units(load_document(doc_path), unit)
                cache[key] = (units, {k: r.build(units) for k, r in retr.items()})
            units, idx = cache[key]
            sc = {k: np.asarray(r.scores(idx[k], query), dtype=np.float64) for k, r in retr.items()}
            rel = [any(ev.overlaps(e["text"], u.text) for e in p["evidence"]) for u in units]
            for name, method, w1, w2, second in GRID:
                s = fused(method, w1, w2, sc["bm25"] if method != "single" else sc[second], sc[second])
                order = np.argsort(-s, kind="stable")[:5]
                hits[unit][name][p["prompt_id"]] = [int(any(rel[i] for i in order[:k])) for k in (1, 3, 5)]
        if (n + 1) % 20 == 0:
            logging.info("%d/%d prompts (%.0fs)", n + 1, len(ps), time.time() - t0)
    rows = []
    ids = [p["prompt_id"] for p in ps]
    for unit in ("paragraph", "sentence"):
        base = hits[unit]["bm25"]
        for name, method, w1, w2, second in GRID:
            h = hits[unit][name]
            row: dict[str, object] = {"unit": unit, "name": name, "method": method, "w_bm25": w1, "w_other": w2,
                                      "other": second, "prompts": len(ids)}
            for j, k in enumerate((1, 3, 5)):
                vals = [h[i][j] for i in ids]
                row[f"hit@{k}"] = proportion_ci(sum(vals), len(vals)).model_dump()
                row[f"hit@{k}_minus_bm25"] = paired_bootstrap_diff(vals, [base[i][j] for i in ids]).model_dump()
            row["per_prompt"] = {i: h[i] for i in ids}
            rows.append(row)

    def val(unit: str, name: str, k: int) -> float:
        r = next(r for r in rows if r["unit"] == unit and r["name"] == name)
        return float(r[f"hit@{k}"]["estimate"])  # type: ignore[index]

    fusions = [g[0] for g in GRID if g[4] in ("trained", "maxsent") and g[1] != "single"]
    best = max(fusions, key=lambda f: (val("sentence", f, 1) + val("paragraph", f, 5), val("paragraph", f, 1)))
    g = next(x for x in GRID if x[0] == best)
    result = {"schema_version": "1", "split": "EI validation, body spans (ei_eval.py definitions)",
              "tuned_on": "EI validation: the choice below is development data on this split",
              "model": read_retriever_manifest(model)["files"],
              "criterion": "sentence hit@1 + paragraph hit@5 (ties: paragraph hit@1)",
              "chosen": {"name": best, "method": g[1], "w_bm25": g[2], "w_trained": g[3]},
              "rows": rows, "seconds": round(time.time() - t0, 1), "provenance": prov.finish()}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    for r in rows:
        print(f"{r['unit']:9s} {r['name']:28s} " + " ".join(f"{r[f'hit@{k}']['estimate']:.3f}" for k in (1, 3, 5)))  # type: ignore[index]
    print("chosen:", result["chosen"])


if __name__ == "__main__":
    main()
