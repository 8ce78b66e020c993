"""Choose the default hypothesis-metric τ for the local MiniLM from a constructed rated set.

No human-rated set exists here, so pairs are built from Evidence Inference (train split only, so the
validation split stays untouched), where several annotators marked evidence for the same prompt:
- rating 2 ("mostly similar"): two annotators' spans for the same prompt that differ in wording or
  extent but state the same result (the project's EI same-statement rule holds);
- rating 1 ("partially similar"): gold spans of two different prompts of the same article (same trial,
  related wording, a different result);
- rating 0 ("different"): a gold span and a random body sentence of the same article.
Then `calibrate` grid-searches τ over [0.10, 1.00] (step 0.01) exactly as `claimtrace evaluate
calibrate` does. Writes the rated pairs (out/tau_construct_ratings.jsonl), the result
(bench/results/tau_construct.json) and the plot (docs/results/tau_construct.png).

    .venv/bin/python bench/tau_construct.py [--max-pairs 1500]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from claimtrace.evaluate.datasets import _abstract_end, same_statement
from claimtrace.evaluate.hypothesis import Rating, calibrate
from claimtrace.evaluate.plots import plot_tau_curve
from claimtrace.retrieval.embeddings import default_embedder
from provenance import Run

ROOT = Path(__file__).resolve().parents[1]
EI = ROOT.parent / "shared" / "data" / "evidence-inference" / "train"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-pairs", type=int, default=1500, help="pairs per rating level at most")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not EI.exists():
        sys.exit(f"no data at {EI}")
    run = Run(data=[EI])
    rng = random.Random(a.seed)
    by_article: dict[str, list[list[str]]] = defaultdict(list)
    pos: list[Rating] = []
    for line in (EI / "prompts.jsonl").read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        spans = list(dict.fromkeys(e["text"].strip() for e in p["evidence"] if e["text"].strip()))
        if not spans:
            continue
        by_article[p["pmcid"]].append(spans)
        for i in range(len(spans)):
            for j in range(i + 1, len(spans)):
                if same_statement(spans[i], spans[j]):
                    pos.append(Rating(id=p["prompt_id"], predicted=spans[i], gold=spans[j], rating=2))
    part: list[Rating] = []
    diff: list[Rating] = []
    for pmcid, prompts in by_article.items():
        firsts = [s[0] for s in prompts]
        for i in range(len(firsts)):
            for j in range(i + 1, len(firsts)):
                if not same_statement(firsts[i], firsts[j]):
                    part.append(Rating(id=pmcid, predicted=firsts[i], gold=firsts[j], rating=1))
        txt = (EI / "articles" / f"{pmcid}.txt").read_text(encoding="utf-8")
        body = txt[_abstract_end(txt):]
        sents = [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", body) if 40 <= len(s.strip()) <= 400]
        for g in firsts:
            cand = [s for s in sents if not any(same_statement(x, s) for x in firsts)]
            if cand:
                diff.append(Rating(id=pmcid, predicted=rng.choice(cand), gold=g, rating=0))
    rng.shuffle(pos)
    rng.shuffle(part)
    rng.shuffle(diff)
    rated = pos[: a.max_pairs] + part[: a.max_pairs] + diff[: a.max_pairs]
    out_pairs = ROOT / "out" / "tau_construct_ratings.jsonl"
    out_pairs.parent.mkdir(parents=True, exist_ok=True)
    out_pairs.write_text("".join(r.model_dump_json() + "\n" for r in rated), encoding="utf-8")
    res = calibrate(rated, default_embedder())
    # also: the τ that keeps same-statement pairs vs. only same-article different results (ratings 2 vs 1)
    res_hard = calibrate([r for r in rated if r.rating >= 1], default_embedder())
    result = {"pairs": {"rating_2": min(len(pos), a.max_pairs), "rating_1": min(len(part), a.max_pairs),
                        "rating_0": min(len(diff), a.max_pairs)},
              "best_tau": res.best_tau, "precision": res.precision, "recall": res.recall, "f1": res.f1,
              "best_tau_2_vs_1": res_hard.best_tau, "f1_2_vs_1": res_hard.f1,
              "grid": [c.model_dump() for c in res.grid], "provenance": run.finish()}
    (ROOT / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (ROOT / "bench" / "results" / "tau_construct.json").write_text(json.dumps(result, indent=1) + "\n")
    plot_tau_curve(res.grid, ROOT / "docs" / "results" / "tau_construct.png", best_tau=res.best_tau,
                   title=f"MiniLM τ on {len(rated)} constructed EI pairs")
    print(json.dumps({k: v for k, v in result.items() if k != "grid"}, indent=1))


if __name__ == "__main__":
    main()
