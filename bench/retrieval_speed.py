"""Index build time per paper and query latency per retriever; cold vs warm embedding cache.

    .venv/bin/python bench/retrieval_speed.py [--papers 10] [--finetuned DIR] [--repeats 3]
Rows: bm25, dense (untrained MiniLM), hybrid (bm25 + dense), trained (the shipped trained retriever's evidence
head), hybrid-trained (bm25 fused with trained: the first stage) and default (what `claimtrace retrieve` uses:
the two-stage retriever, hybrid-trained then the shipped cross-encoder over its top M), all in the same run; plus
the shipped models' load time (sha256 checks included).
Writes bench/results/retrieval_speed.json with its provenance (load average at start and end; a run whose
load exceeded the core count is flagged `loaded` and its times are not published as the speed). Each
index build runs `--repeats` times, each time with fresh embedding-cache files (cold); the figures are the
medians over the repeats (each repeat's value is kept). Parsing is timed apart from indexing. The cache runs use a
fresh cache directory: the first (cold) pass embeds every unit, the second pass over the same papers
(a new embedder and a new connection to the same SQLite file, as a second process would have) reads
them back.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
EI = REPO.parent / "shared" / "data" / "evidence-inference" / "validation"
RESULTS = REPO / "bench" / "results" / "retrieval_speed.json"


def main() -> None:
    """Time parsing, index builds, queries and the cache."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=10)
    ap.add_argument("--unit", default="paragraph")
    ap.add_argument("--finetuned", default=None)
    ap.add_argument("--repeats", type=int, default=3, help="cold index builds per retriever (median reported)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="claimtrace-speed-")
    os.environ["CLAIMTRACE_CACHE_DIR"] = tmp
    from claimtrace.documents import load_document
    from claimtrace.retrieval import (
        BM25Retriever,
        CachedEmbedder,
        DenseRetriever,
        EmbeddingCache,
        HybridRetriever,
    )
    from claimtrace.retrieval.embeddings import OnnxMiniLM
    from claimtrace.retrieval.units import document_units

    prompts = [json.loads(x) for x in (EI / "prompts.jsonl").read_text().splitlines() if x.strip()]
    pmcids = list(dict.fromkeys(p["pmcid"] for p in prompts))[: a.papers]
    run = Run(data=[EI / "articles" / f"{pid}.nxml" for pid in pmcids])
    queries = {p["pmcid"]: f"{p['intervention']} vs {p['comparator']}: {p['outcome']}" for p in prompts}
    t0 = time.time()
    docs = [load_document(EI / "articles" / f"{pid}.nxml") for pid in pmcids]
    parse_s = (time.time() - t0) / len(docs)
    units = [document_units(d, a.unit) for d in docs]
    onnx = OnnxMiniLM()
    from claimtrace.retrieval.cross_encoder import OnnxCrossEncoder
    from claimtrace.retrieval.embeddings import OnnxHeadEmbedder, shipped_retriever_dir
    from claimtrace.retrieval.pipeline import DEFAULT_RETRIEVER, TRAINED_FUSION, TWO_STAGE
    from claimtrace.retrieval.two_stage import TwoStageRetriever

    loads = []
    for _ in range(3):
        t = time.time()
        OnnxHeadEmbedder(task="evidence", cache_encoder=False)
        loads.append(time.time() - t)
    ce_loads = []
    for _ in range(3):
        t = time.time()
        OnnxCrossEncoder()
        ce_loads.append(time.time() - t)
    result: dict[str, object] = {"papers": len(docs), "unit": a.unit,
                                 "units_per_paper": statistics.mean(len(u) for u in units),
                                 "parse_s_per_paper": round(parse_s, 4), "cpu_count": os.cpu_count(),
                                 "load_average_at_start": os.getloadavg()[0], "retrievers": {},
                                 "trained_model_load_s_median": round(statistics.median(loads), 4),
                                 "cross_encoder_load_s_median": round(statistics.median(ce_loads), 4),
                                 "default_retriever": DEFAULT_RETRIEVER, "default_fusion": list(TRAINED_FUSION),
                                 "two_stage": {"sentence": vars(TWO_STAGE[0]), "paragraph": vars(TWO_STAGE[1])}}
    def make(name: str, rep: int) -> object:
        if name == "bm25":
            return BM25Retriever()
        if name == "dense":
            return DenseRetriever(CachedEmbedder(onnx, EmbeddingCache(Path(tmp) / f"dense-{rep}.sqlite")))
        if name == "hybrid":
            return HybridRetriever([BM25Retriever(), DenseRetriever(
                CachedEmbedder(onnx, EmbeddingCache(Path(tmp) / f"hybrid-{rep}.sqlite")))])
        if name in ("trained", "hybrid-trained", "default"):
            from claimtrace.retrieval.finetuned import FinetunedRetriever

            fusion, w1, w2, max_sentence = TRAINED_FUSION
            os.environ["CLAIMTRACE_CACHE_DIR"] = str(Path(tmp) / f"{name}-{rep}")  # cold caches, as shipped
            ft = FinetunedRetriever(shipped_retriever_dir(), max_sentence=max_sentence)
            if name == "trained":
                return ft
            first = HybridRetriever([BM25Retriever(), ft], (w1, w2), fusion=fusion)
            if name == "hybrid-trained":
                return first
            return TwoStageRetriever(first, OnnxCrossEncoder(), *TWO_STAGE)
        from claimtrace.retrieval.finetuned import FinetunedRetriever

        return FinetunedRetriever(a.finetuned)

    names = ["bm25", "dense", "hybrid", "trained", "hybrid-trained", "default"] + (["finetuned"] if a.finetuned else [])
    for name in names:
        builds, lats = [], []
        for rep in range(max(1, a.repeats)):
            r = make(name, rep)
            t = time.time()
            idx = [r.build(u) for u in units]  # type: ignore[attr-defined]
            builds.append((time.time() - t) / len(units))
            lat = []
            for pid, ix in zip(pmcids, idx, strict=True):
                t = time.time()
                r.scores(ix, queries[pid])  # type: ignore[attr-defined]
                lat.append(time.time() - t)
            lats.append(statistics.median(lat))
        result["retrievers"][name] = {  # type: ignore[index]
            "index_build_s_per_paper": round(statistics.median(builds), 4),
            "query_latency_s_median": round(statistics.median(lats), 4),
            "index_build_s_per_paper_runs": [round(x, 4) for x in builds],
            "query_latency_s_median_runs": [round(x, 4) for x in lats]}
        print(name, result["retrievers"][name], flush=True)  # type: ignore[index]
    # the cache: a cold pass in a fresh file, then a warm pass with a new embedder over the same file
    cold_file = Path(tmp) / "cold.sqlite"
    t = time.time()
    cold = DenseRetriever(CachedEmbedder(onnx, EmbeddingCache(cold_file)))
    for u in units:
        cold.build(u)
    cold_s = time.time() - t
    t = time.time()
    warm_emb = CachedEmbedder(onnx, EmbeddingCache(cold_file))
    warm = DenseRetriever(warm_emb)
    for u in units:
        warm.build(u)
    warm_s = time.time() - t
    result["embedding_cache"] = {"cold_s": round(cold_s, 3), "warm_s": round(warm_s, 3),
                                 "speedup": round(cold_s / max(warm_s, 1e-9), 1), "warm_misses": warm_emb.misses,
                                 "units": sum(len(u) for u in units)}
    print(result["embedding_cache"], flush=True)
    result["repeats"] = max(1, a.repeats)
    result["provenance"] = run.finish()
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
