"""Choosing the two-stage default (first stage BM25 + trained bi-encoder RRF, then the shipped cross-encoder on the
top M) on the DEVELOPMENT split: EI train papers that neither shipped model trained on
(bench/data/ei_train_dev_papers.json, from bench/retrieval_dev_split.py). Never run on EI validation.

    nice -n 10 .venv/bin/python bench/retrieval_two_stage.py [--prompts 200] [--summarise-only]

Step 1 (resumable; per-prompt rows in .cache/two_stage_dev.jsonl): for each dev prompt (ei_eval.py's body-only
prompts of the train split, query 'I vs C: O') and each unit kind (body paragraphs, body sentences), the
first-stage order (the shipped ``hybrid-trained`` fusion) of the top ``MAX_M`` units, which of them hold a gold
span (ei_eval.py's overlap rule), the cross-encoder's score of each candidate and, for paragraphs, the best
cross-encoder score of the paragraph's own sentences. Step 2: every setting of the grid below ranked offline;
the chosen settings maximise sentence hit@1 (sentences) and paragraph hit@5, then hit@1 (paragraphs).
Writes bench/results/retrieval_two_stage_dev.json (per-prompt hits, paired bootstrap intervals against the
first stage). These are development figures: the held-out judgement is `bench/retrieval_eval.py ei` on validation.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from provenance import SHARED, Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
TOOLS = SHARED / "tools"
DEV = REPO / "bench" / "data" / "ei_train_dev_papers.json"
CACHE = REPO / ".cache" / "two_stage_dev.jsonl"
RESULT = REPO / "bench" / "results" / "retrieval_two_stage_dev.json"
MAX_M = 30
MS = (5, 10, 15, 20, 30)
FUSIONS = ("ce", "rrf1", "rrf2", "rrf4")
PARA_SCORES = ("para", "maxsent", "para+maxsent")


def score_prompts(ps: list[dict[str, Any]], ev: Any) -> None:
    """Step 1: first-stage candidates and cross-encoder scores of each prompt (appended to the cache)."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval.base import rank
    from claimtrace.retrieval.cross_encoder import OnnxCrossEncoder
    from claimtrace.retrieval.pipeline import get_retriever
    from claimtrace.retrieval.units import document_units

    done = {json.loads(x)["prompt_id"] for x in CACHE.read_text().splitlines() if x.strip()} if CACHE.exists() else set()
    todo = sorted((p for p in ps if p["prompt_id"] not in done), key=lambda p: str(p["pmcid"]))  # one parse a paper
    logging.info("%d prompts, %d already scored", len(ps), len(done))
    first = get_retriever("hybrid-trained")
    ce = OnnxCrossEncoder()
    cache: dict[str, Any] = {}
    t0 = time.time()
    for n, p in enumerate(todo):
        path = SHARED / "data" / "evidence-inference" / "train" / "articles" / f"{p['pmcid']}.nxml"
        if str(path) not in cache:
            doc = load_document(path)
            cache = {str(path): {u: (us, first.build(us)) for u in ("paragraph", "sentence")
                                 if (us := document_units(doc, u))}}
        query = f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
        row: dict[str, Any] = {"prompt_id": p["prompt_id"], "pmcid": p["pmcid"]}
        sents = cache[str(path)]["sentence"][0]
        for unit, (us, idx) in cache[str(path)].items():
            order = rank(first.scores(idx, query), MAX_M)
            cand = [us[i] for i in order]
            rel = [int(any(ev.overlaps(e["text"], u.text) for e in p["evidence"])) for u in cand]
            r: dict[str, Any] = {"n_units": len(us), "any_rel": int(any(any(ev.overlaps(e["text"], u.text)
                                                                       for e in p["evidence"]) for u in us)),
                                 "rel": rel, "ce": [round(float(x), 4) for x in ce.score(query, [u.text for u in cand])]}
            if unit == "paragraph":
                own = [[s.text for s in sents if s.paragraph_id == u.id] for u in cand]
                flat = [t for ts in own for t in ts]
                sc = ce.score(query, flat) if flat else np.zeros(0)
                best, j = [], 0
                for ts in own:
                    best.append(round(float(sc[j : j + len(ts)].max()), 4) if ts else -1e9)
                    j += len(ts)
                r["ce_maxsent"] = best
            row[unit] = r
        with CACHE.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
        if (n + 1) % 10 == 0:
            logging.info("%d/%d (%.0fs)", n + 1, len(todo), time.time() - t0)


def order_of(r: dict[str, Any], m: int, fusion: str, para: str | None) -> list[int]:
    """Candidate positions in the final order for one setting (positions beyond M keep the first stage's order)."""
    from claimtrace.retrieval.base import rank
    from claimtrace.retrieval.hybrid import rrf_scores

    n = min(m, len(r["rel"]))
    if para in (None, "para"):
        ce = np.asarray(r["ce"][:n])
    elif para == "maxsent":
        ce = np.asarray(r["ce_maxsent"][:n])
    else:
        ce = rrf_scores([rank(np.asarray(r["ce"][:n])), rank(np.asarray(r["ce_maxsent"][:n]))], n)
    if fusion == "ce":
        s = ce
    else:
        w = float(fusion.removeprefix("rrf"))
        s = rrf_scores([rank(ce), list(range(n))], n, [w, 1.0])
    return rank(s) + list(range(n, len(r["rel"])))


def main() -> None:
    """Score the dev prompts (resumable), then the grid; write the choice."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prompts", type=int, default=200, help="dev prompts (a seeded sample, seed 13)")
    ap.add_argument("--summarise-only", action="store_true")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff, proportion_ci
    from claimtrace.retrieval.cross_encoder import shipped_model_dir
    from claimtrace.retrieval.embeddings import shipped_retriever_dir

    ev = shared_tool("ei_eval")
    dev = set(json.loads(DEV.read_text())["dev_papers"])
    ps = [p for p in ev.prompts("train", True) if p["pmcid"] in dev]
    random.Random(13).shuffle(ps)
    ps = ps[: a.prompts]
    run = Run(data=[DEV, TOOLS / "ei_eval.py", shipped_model_dir() / "model.onnx",
                    shipped_retriever_dir() / "model.onnx", shipped_retriever_dir() / "heads.npz"])
    if not a.summarise_only:
        score_prompts(ps, ev)
    want = {p["prompt_id"] for p in ps}
    rows = [r for r in (json.loads(x) for x in CACHE.read_text().splitlines() if x.strip()) if r["prompt_id"] in want]
    ids = sorted(r["prompt_id"] for r in rows)
    by = {r["prompt_id"]: r for r in rows}
    table: list[dict[str, Any]] = []
    for unit, paras in (("sentence", (None,)), ("paragraph", PARA_SCORES)):
        base = {i: [int(any(by[i][unit]["rel"][:k])) for k in (1, 5)] for i in ids}
        settings: list[tuple[str, int, str, str | None]] = [("first stage", 0, "none", None)]
        settings += [(f"M={m} {f}" + (f" {pa}" if pa else ""), m, f, pa) for m in MS for f in FUSIONS for pa in paras]
        for name, m, f, pa in settings:
            hits = {}
            for i in ids:
                r = by[i][unit]
                o = list(range(len(r["rel"]))) if m == 0 else order_of(r, m, f, pa)
                hits[i] = [int(any(r["rel"][j] for j in o[:k])) for k in (1, 5)]
            row: dict[str, Any] = {"unit": unit, "name": name, "m": m, "fusion": f, "paragraph_score": pa, "n": len(ids)}
            for j, k in enumerate((1, 5)):
                vals = [hits[i][j] for i in ids]
                row[f"hit@{k}"] = proportion_ci(sum(vals), len(vals)).model_dump()
                row[f"hit@{k}_minus_first"] = paired_bootstrap_diff(vals, [base[i][j] for i in ids]).model_dump()
            row["per_prompt"] = hits
            table.append(row)

    def est(r: dict[str, Any], k: int) -> float:
        return float(r[f"hit@{k}"]["estimate"])

    chosen = {
        "sentence": max((r for r in table if r["unit"] == "sentence"), key=lambda r: (est(r, 1), est(r, 5), -r["m"])),
        "paragraph": max((r for r in table if r["unit"] == "paragraph"), key=lambda r: (est(r, 5), est(r, 1), -r["m"])),
    }
    out = {"schema_version": "1", "split": "EI train, development papers (neither shipped model trained on them)",
           "prompts": len(ids), "papers": len({by[i]["pmcid"] for i in ids}),
           "criterion": {"sentence": "hit@1, then hit@5, then smaller M",
                         "paragraph": "hit@5, then hit@1, then smaller M"},
           "chosen": {u: {k: r[k] for k in ("name", "m", "fusion", "paragraph_score")} for u, r in chosen.items()},
           "rows": table, "provenance": run.finish()}
    RESULT.write_text(json.dumps(out, indent=1) + "\n")
    for r in table:
        print(f"{r['unit']:9s} {r['name']:30s} hit@1 {est(r, 1):.3f} hit@5 {est(r, 5):.3f}")
    print("chosen:", out["chosen"])


if __name__ == "__main__":
    main()
