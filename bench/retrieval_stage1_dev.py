"""Stage 1 under retrieval on development data: does a rerank preset's context let the embedded extractor make the
same hypothesis choice as it does on the full text? (EI TRAIN papers; no gold, no LLM.)

    python bench/retrieval_stage1_dev.py [--papers 80] [--work /tmp/claimtrace-stage1-dev]

Development data for the stage-1 selection (``HypothesisReranker`` in claimtrace.extract.context): Evidence-Inference
TRAIN papers that are in no held-out set (training/train_retriever.py's ``heldout_docs``: the hypothesis gold sets'
papers included) and not among the papers the shipped retriever's heads were trained on (its seeded sample is
rebuilt here the same way), one abstract finding each (``ei_hypothesis_data``: an abstract gold evidence span of a
prompt). For each paper: the sentence the embedded extractor picks with the full text, and the one it picks under
each rerank preset, with and without the stage-1 hypothesis prior. Agreement = the same span; context recall = the
full-text pick's paragraph is among the 5 selected. Proportions with exact 95% intervals; the differences
between with and without the prior are paired bootstrap intervals.

Resumable: each paper's row is appended to WORK/rows.jsonl and skipped on a rerun.
Writes bench/results/retrieval_stage1_dev.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
EI_TRAIN = SHARED / "evidence-inference" / "train"
RETRIEVER = REPO / "src" / "claimtrace" / "resources" / "retriever"
RESULTS = REPO / "bench" / "results" / "retrieval_stage1_dev.json"
#: (row name, preset, hypothesis prior)
SYSTEMS = (("rag-k5", "rag-k5", True), ("rag-rerank", "rag-rerank", True),
           ("rag-rerank, reranker alone", "rag-rerank", False), ("finetuned-rerank", "finetuned-rerank", True),
           ("finetuned-rerank, reranker alone", "finetuned-rerank", False))
SEED = 13  # training/train_retriever.py's seed (its sample of training papers)
HEAD_PAPERS = 250  # training/train_retriever.py's --papers


def dev_items(work: Path, n: int) -> list[dict[str, str]]:
    """n seeded (paper, finding) items from EI train papers outside every held-out set and the heads' training."""
    cache = work / "items.json"
    if cache.is_file():  # the whole seeded pool (building it parses every EI train paper)
        items: list[dict[str, str]] = json.loads(cache.read_text())
        return items[:n]
    from claimtrace.retrieval.training_data import ei_hypothesis_data
    sys.path.insert(0, str(REPO / "training"))
    from train_retriever import heldout_docs

    held = {p.stem for p in heldout_docs()}
    hyp = [e for e in ei_hypothesis_data(EI_TRAIN) if e.task == "hypothesis" and Path(e.doc).stem not in held]
    docs = sorted({e.doc for e in hyp})
    random.Random(SEED).shuffle(docs)
    trained = set(docs[:HEAD_PAPERS])  # the papers the shipped heads were trained on (training/train_retriever.py)
    first: dict[str, str] = {}
    for e in hyp:
        if e.doc not in trained:
            first.setdefault(e.doc, e.query)
    pool = sorted(first)
    random.Random(SEED + 1).shuffle(pool)
    items = [{"id": Path(d).stem, "doc": d, "finding": first[d]} for d in pool]
    work.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(items, indent=0) + "\n")
    return items[:n]


def run_item(item: dict[str, str]) -> dict[str, object]:
    """The full-text pick and every system's pick for one (paper, finding)."""
    from claimtrace.documents import load_document
    from claimtrace.extract.config import get_preset
    from claimtrace.extract.context import ContextSelector
    from claimtrace.extract.embedded import EmbeddedExtractor

    doc = load_document(item["doc"])
    full = EmbeddedExtractor(selector=ContextSelector(retriever_spec="hybrid")).hypothesis(
        doc, item["finding"], get_preset("fulltext-zeroshot"))
    row: dict[str, object] = {"id": item["id"], "full": [full.span.start, full.span.end] if full.span else None}
    full_par = next((p.id for p in doc.paragraphs if full.span and full.span.start is not None and p.start <= full.span.start < p.end), None)
    for name, preset, prior in SYSTEMS:
        sel = ContextSelector(retriever_spec="hybrid", hypothesis_prior=prior)
        cfg = get_preset(preset)
        pids = sel.paragraphs(doc, item["finding"], cfg, task="hypothesis") or []
        out = EmbeddedExtractor(selector=sel).hypothesis(doc, item["finding"], cfg)
        pick = [out.span.start, out.span.end] if out.span else None
        row[name] = {"pick": pick, "agree": int(pick == row["full"]), "context_has_full_pick": int(full_par in pids)}
    return row


def main() -> None:
    """Score every dev item (resumable), summarise, write."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=80)
    ap.add_argument("--work", default="/tmp/claimtrace-stage1-dev")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    say = logging.getLogger("stage1_dev").info
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff, proportion_ci

    work = Path(a.work)
    prov = Run(data=[EI_TRAIN / "prompts.jsonl", RETRIEVER / "model.onnx", RETRIEVER / "heads.npz"])
    t0 = time.time()
    items = dev_items(work, a.papers)
    done_file = work / "rows.jsonl"
    rows = {}
    if done_file.is_file():
        rows = {r["id"]: r for r in map(json.loads, done_file.read_text().splitlines()) if r}
    with done_file.open("a") as fh:
        for i, it in enumerate(items):
            if it["id"] in rows:
                continue
            rows[it["id"]] = run_item(it)
            fh.write(json.dumps(rows[it["id"]]) + "\n")
            fh.flush()
            say(f"{i + 1}/{len(items)} {it['id']}")
    keys = [it["id"] for it in items if rows[it["id"]]["full"] is not None]
    summary: dict[str, object] = {}
    for name, _, _ in SYSTEMS:
        agree = [int(rows[k][name]["agree"]) for k in keys]
        ctx = [int(rows[k][name]["context_has_full_pick"]) for k in keys]
        summary[name] = {"agreement_with_fulltext": proportion_ci(sum(agree), len(agree)).model_dump(),
                         "context_has_fulltext_pick": proportion_ci(sum(ctx), len(ctx)).model_dump()}
    for with_prior, alone in (("rag-rerank", "rag-rerank, reranker alone"),
                              ("finetuned-rerank", "finetuned-rerank, reranker alone")):
        summary[f"{with_prior}: prior - reranker alone"] = paired_bootstrap_diff(
            [int(rows[k][with_prior]["agree"]) for k in keys], [int(rows[k][alone]["agree"]) for k in keys]).model_dump()
    result = {"schema_version": "1",
              "what": "stage 1 on development papers (EI train, outside the held-out sets and the heads' training "
                      "sample): agreement of each preset's hypothesis pick with the full-text pick (embedded extractor)",
              "papers": len(items), "n": len(keys), "summary": summary, "per_item": {k: rows[k] for k in keys},
              "seconds": round(time.time() - t0, 1), "provenance": prov.finish()}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    for name, v in summary.items():
        print(name, json.dumps(v))


if __name__ == "__main__":
    main()
