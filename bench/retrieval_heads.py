"""Each head of the shipped trained retriever on its own task, against the untrained encoder, on held-out pairs.

    python bench/retrieval_heads.py

Hypothesis head: the hypothesis gold sets (bench/data/ei-hypotheses*.jsonl: 90 papers, none in the training
data — see training/train_retriever.py's leakage check); query = the gold finding, candidates = the paper's body
sentences; hit@1 / hit@5 when the top sentence(s) include a gold hypothesis sentence (``hypothesis_units``); one
more row ranks the same sentences by stage 1's fusion (the head's relevance + hypothesis-likeness) for comparison.
Evidence head: EI validation, body spans (bench/retrieval_fusion.py computes it with the fusion grid; its
trained-vs-dense rows are copied here). Differences carry 95% paired bootstrap intervals.
Stage 1 under retrieval: the embedded extractor's hypothesis on the same gold items under the presets
fulltext-zeroshot, rag-k5, rag-rerank and finetuned-rerank (the experiments' settings: hybrid retrieval,
default rerankers, which read the shipped model with its hypothesis head, and stage 1's hypothesis prior:
``HypothesisReranker``), scored as the experiment runner scores `Hyp hit@1` (``same_statement(gold, predicted
span)``); each rerank preset's share of full text's hit@1; the rerank presets again without the hypothesis prior
(the reranker alone: the ablation); and per item where stage 1 lost the gold (outside the first stage's top M,
outside the k paragraphs read, or read but not picked).
Writes bench/results/retrieval_heads.json.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
GOLD = sorted((REPO / "bench" / "data").glob("ei-hypotheses*.jsonl"))
RESULTS = REPO / "bench" / "results" / "retrieval_heads.json"
FUSION = REPO / "bench" / "results" / "retrieval_fusion.json"


#: stage-1 rows: (row name, preset, the stage-1 hypothesis prior on); "reranker alone" rows are the ablation
#: the sentence-level view of stage 1's reranker: the hypothesis head's cosine (min-max over the paper's sentences)
#: x W_STAGE1_RELEVANCE + the sentence's hypothesis-likeness (not a retriever of its own: a row for comparison)
FUSED = "trained hypothesis head + hypothesis-likeness (stage 1's fusion)"
STAGE1 = (("fulltext-zeroshot", "fulltext-zeroshot", True), ("rag-k5", "rag-k5", True),
          ("rag-rerank", "rag-rerank", True), ("rag-rerank, reranker alone", "rag-rerank", False),
          ("finetuned-rerank", "finetuned-rerank", True), ("finetuned-rerank, reranker alone", "finetuned-rerank", False))


def stage1_rows(keys: list[str]) -> dict[str, object]:
    """Hyp hit@1 of the embedded extractor per preset on the gold items (the runner's scoring), with where stage 1
    loses the gold: its paragraph outside the first stage's top M, outside the k read, or read but not picked."""
    from claimtrace.documents import load_document
    from claimtrace.evaluate.uncertainty import bootstrap_ci, paired_bootstrap_diff, proportion_ci
    from claimtrace.extract.config import get_preset
    from claimtrace.extract.context import ContextSelector
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.retrieval.base import search
    from claimtrace.retrieval.selectors import PRESETS as SELECTORS
    from claimtrace.textmatch import same_statement

    items = {}
    for gold in GOLD:
        for line in gold.read_text().splitlines():
            if line.strip():
                it = json.loads(line)
                items[f"{gold.stem}:{it['id']}"] = (gold, it)
    hits: dict[str, dict[str, int]] = {name: {} for name, _, _ in STAGE1}
    where: dict[str, dict[str, str]] = {name: {} for name, _, _ in STAGE1}
    for name, preset, prior in STAGE1:
        sel = ContextSelector(retriever_spec="hybrid", hypothesis_prior=prior)
        ex = EmbeddedExtractor(similarity="bm25", selector=sel)
        cfg = get_preset(preset)
        for key in keys:
            gold, it = items[key]
            doc = load_document((gold.parent / it["doc"]).resolve())
            gold_h = list(dict.fromkeys(u.split(".")[0] for u in it["hypothesis_units"]))
            out = ex.hypothesis(doc, it["finding"], cfg, gold_h or None)
            pred = out.span.text if out.span else None
            hits[name][key] = hit = int(bool(pred) and same_statement(it["hypothesis"], pred or ""))
            if cfg.mode == "fulltext":
                where[name][key] = "hit" if hit else "not picked"
                continue
            read = sel.paragraphs(doc, it["finding"], cfg, task="hypothesis") or []
            m = SELECTORS[cfg.selector].m if SELECTORS[cfg.selector].preset == "rerank" else SELECTORS[cfg.selector].k
            units, index, retriever = sel._prepare(doc, sel.retriever_for(cfg), "hypothesis")
            first = {h.unit_id for h in search(retriever, units, it["finding"], m, index)}
            where[name][key] = ("hit" if hit else "not picked" if set(gold_h) & set(read)
                                else "not in the k read" if set(gold_h) & first else "not in the first stage's top M")
    full = [hits["fulltext-zeroshot"][k] for k in keys]
    res: dict[str, object] = {"n": len(keys), "metric": "Hyp hit@1 (same_statement(gold, predicted span))",
                              "per_item": hits, "where": where}
    for name, _, _ in STAGE1:
        v = [hits[name][k] for k in keys]
        ratio = bootstrap_ci(v, lambda a, b: float(np.sum(a) / max(np.sum(b), 1)), others=[full])
        res[name] = {"hit@1": proportion_ci(sum(v), len(v)).model_dump(), "share_of_fulltext": ratio.model_dump(),
                     "where": {w: sum(where[name][k] == w for k in keys) for w in
                               ("hit", "not picked", "not in the k read", "not in the first stage's top M")}}
    for name in ("rag-rerank", "finetuned-rerank"):
        res[f"{name}: prior - reranker alone"] = paired_bootstrap_diff(
            [hits[name][k] for k in keys], [hits[f"{name}, reranker alone"][k] for k in keys]).model_dump()
    return res


def main() -> None:
    """Rank each paper's body sentences for its finding with every retriever; score; write."""
    from claimtrace.documents import load_document
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff, proportion_ci
    from claimtrace.extract.context import W_STAGE1_RELEVANCE
    from claimtrace.extract.hypothesis_classifier import hypothesis_likeness
    from claimtrace.retrieval.pipeline import get_retriever
    from claimtrace.retrieval.units import document_units

    model = REPO / "src" / "claimtrace" / "resources" / "retriever"
    prov = Run(data=[*GOLD, model / "model.onnx", model / "heads.npz"])
    systems = {"bm25": get_retriever("bm25"), "dense (untrained MiniLM)": get_retriever("dense"),
               "trained, hypothesis head": get_retriever("trained", task="hypothesis"),
               "trained, evidence head": get_retriever("trained", task="evidence"),
               "bm25 + trained hypothesis head (default fusion)": get_retriever("hybrid-trained", task="hypothesis")}
    per: dict[str, dict[str, list[int]]] = {s: {} for s in [*systems, FUSED]}
    sets: dict[str, str] = {}
    t0 = time.time()
    for gold in GOLD:
        for line in gold.read_text().splitlines():
            if not line.strip():
                continue
            it = json.loads(line)
            if not it.get("hypothesis_units"):
                continue
            doc = load_document((gold.parent / it["doc"]).resolve())
            units = document_units(doc, "sentence")
            want = set(it["hypothesis_units"])
            key = f"{gold.stem}:{it['id']}"
            sets[key] = gold.stem
            for name, r in systems.items():
                s = np.asarray(r.scores(r.build(units), it["finding"]))
                if name == "trained, hypothesis head" and units:  # and stage 1's fusion over the same sentences
                    like = hypothesis_likeness(doc)
                    rel = (s - s.min()) / np.ptp(s) if np.ptp(s) > 0 else np.zeros(len(s))
                    f = W_STAGE1_RELEVANCE * rel + np.array([like.get(u.id, 0.0) for u in units])
                    order = np.argsort(-f, kind="stable")[:5]
                    per[FUSED].setdefault(key, [int(any(units[i].id in want for i in order[:k])) for k in (1, 5)])
                order = np.argsort(-s, kind="stable")[:5]
                per[name][key] = [int(any(units[i].id in want for i in order[:k])) for k in (1, 5)]
    keys = sorted(sets)
    stage1 = stage1_rows(keys)
    base = "dense (untrained MiniLM)"
    rows = []
    for name in [*systems, FUSED]:
        row: dict[str, object] = {"task": "hypothesis", "system": name, "n": len(keys)}
        for j, k in enumerate((1, 5)):
            v = [per[name][x][j] for x in keys]
            row[f"hit@{k}"] = proportion_ci(sum(v), len(v)).model_dump()
            row[f"hit@{k}_minus_untrained"] = paired_bootstrap_diff(v, [per[base][x][j] for x in keys]).model_dump()
        row["by_set"] = {g.stem: float(np.mean([per[name][x][0] for x in keys if sets[x] == g.stem])) for g in GOLD}
        row["per_item"] = {x: per[name][x] for x in keys}
        rows.append(row)
    evidence_rows = []
    if FUSION.exists():
        fus = json.loads(FUSION.read_text())
        for r in fus["rows"]:
            if r["name"] in ("dense", "trained"):
                evidence_rows.append({k: v for k, v in r.items() if k != "per_prompt"})
        for unit in ("paragraph", "sentence"):
            t = next(r for r in fus["rows"] if r["unit"] == unit and r["name"] == "trained")["per_prompt"]
            d = next(r for r in fus["rows"] if r["unit"] == unit and r["name"] == "dense")["per_prompt"]
            ids = sorted(t)
            evidence_rows.append({"unit": unit, "comparison": "trained evidence head - untrained MiniLM",
                                  "hit@1": paired_bootstrap_diff([t[i][0] for i in ids], [d[i][0] for i in ids]).model_dump(),
                                  "hit@5": paired_bootstrap_diff([t[i][2] for i in ids], [d[i][2] for i in ids]).model_dump()})
    result = {"schema_version": "1", "hypothesis_sets": [g.name for g in GOLD],
              "hypothesis_metric": "a gold hypothesis sentence (hypothesis_units) among the top-k body sentences",
              "hypothesis": rows, "evidence": evidence_rows, "stage1": stage1, "seconds": round(time.time() - t0, 1),
              "provenance": prov.finish()}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    for name, _, _ in STAGE1:
        print(name, stage1[name])
    for row in rows:
        print(f"{row['system']:50s} hit@1 {row['hit@1']['estimate']:.3f}  hit@5 {row['hit@5']['estimate']:.3f}  "  # type: ignore[index]
              f"d@1 {row['hit@1_minus_untrained']['estimate']:+.3f} [{row['hit@1_minus_untrained']['low']:+.3f}, "  # type: ignore[index]
              f"{row['hit@1_minus_untrained']['high']:+.3f}]")  # type: ignore[index]


if __name__ == "__main__":
    main()
