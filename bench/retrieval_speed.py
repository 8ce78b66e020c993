"""Retrieval speed and size: index builds and queries per retriever, the cross-encoder, the wheel with the models.

    .venv/bin/python bench/retrieval_speed.py [--papers 10] [--finetuned DIR] [--repeats 3]   # --part index
    nice -n 10 .venv/bin/python bench/retrieval_speed.py --part rerank [--queries 30] [--repeats 5] [--wheel]
    .venv/bin/python bench/retrieval_speed.py --part wheel [--repeats 3]

``--part index`` (default): index build time per paper and query latency per retriever; cold vs warm embedding
cache. Rows: bm25, dense (untrained MiniLM), hybrid (bm25 + dense), trained (the shipped trained retriever's evidence
head), hybrid-trained (bm25 fused with trained: the first stage) and default (what `claimtrace retrieve` uses:
the two-stage retriever, hybrid-trained then the shipped cross-encoder over its top M), all in the same run; plus
the shipped models' load time (sha256 checks included). Each index build runs `--repeats` times, each time with
fresh embedding-cache files (cold); the figures are the medians over the repeats (each repeat's value is kept).
Parsing is timed apart from indexing. The cache runs use a fresh cache directory: the first (cold) pass embeds
every unit, the second pass over the same papers (a new embedder and a new connection to the same SQLite file, as
a second process would have) reads them back. Writes bench/results/retrieval_speed.json.

``--part rerank``: the shipped cross-encoder next to BM25 alone. For the first `--queries` body-only EI validation
prompts: BM25 over the article's body sentences (top 20) and paragraphs (top 30, the `retrieve` default M), then
the cross-encoder reranking those candidates. Per query the median over `--repeats` runs; the table gives the
median over queries. Model load time: median of 3 cold loads. `--wheel` also builds the project's wheel and
records its size and the model folder's compressed share. Writes bench/results/rerank_speed.json.

``--part wheel``: the wheel with the shipped trained retriever: its size, the model's share, build and install
time. Builds the wheel (`pip wheel . --no-deps`), checks that the model files are inside it with the pinned
sha256, then installs it into a fresh virtual environment (`pip install --no-deps`, so the time is the package's
own, model included, not its dependencies'), `--repeats` times; medians. Writes bench/results/retrieval_wheel.json.

Every result carries its provenance (load average at start and end; a run whose load exceeded the core count is
flagged `loaded` and its times are not published as the speed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from provenance import SHARED, Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
EI = REPO.parent / "shared" / "data" / "evidence-inference" / "validation"
RES = REPO / "bench" / "results"
RESULTS = RES / "retrieval_speed.json"
MODEL = REPO / "src" / "claimtrace" / "resources" / "retriever"


def build_wheel(out: Path, isolated: bool = True) -> Path:
    """``pip wheel . --no-deps`` into ``out`` (``isolated``: in pip's build environment); the wheel's path."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(out)]
                   + ([] if isolated else ["--no-build-isolation"]), check=True, capture_output=True)
    return next(out.glob("*.whl"))


def index_speed(a: argparse.Namespace) -> None:
    """Time parsing, index builds, queries and the cache."""
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


def _timed(fn: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def wheel_sizes() -> dict[str, Any]:
    """Build the wheel once; its size and the compressed size of the cross-encoder files inside it."""
    with tempfile.TemporaryDirectory() as tmp:
        whl = build_wheel(Path(tmp), isolated=False)
        with zipfile.ZipFile(whl) as z:
            ce = sum(i.compress_size for i in z.infolist() if "resources/cross_encoder/" in i.filename)
        t0 = time.perf_counter()  # installing the wheel alone (its dependencies are another matter)
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(Path(tmp) / "site"),
                        str(whl)], check=True, capture_output=True)
        install_s = time.perf_counter() - t0
        return {"wheel": whl.name, "wheel_bytes": whl.stat().st_size, "cross_encoder_compressed_bytes": ce,
                "install_no_deps_s": round(install_s, 2)}


def rerank_speed(a: argparse.Namespace) -> None:
    """Time BM25 and BM25 + cross-encoder per query."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval.base import search
    from claimtrace.retrieval.bm25 import BM25Retriever
    from claimtrace.retrieval.cross_encoder import MODEL_FILE, OnnxCrossEncoder, shipped_model_dir
    from claimtrace.retrieval.embeddings import sha256_file
    from claimtrace.retrieval.rerank import CrossEncoderReranker
    from claimtrace.retrieval.units import document_units

    ev = shared_tool("ei_eval")
    prompts = ev.prompts("validation", True)[: a.queries]
    run = Run(data=[SHARED / "data" / "evidence-inference" / "validation" / "prompts.jsonl"])
    loads = [_timed(lambda: OnnxCrossEncoder(), 1) for _ in range(3)]
    rr = CrossEncoderReranker()
    bm25 = BM25Retriever()
    per: dict[str, list[float]] = {"bm25_sentences_top20": [], "cross_encoder_sentences_m20": [],
                                   "bm25_paragraphs_top30": [], "cross_encoder_paragraphs_m30": []}
    for p in prompts:
        doc = load_document(p["doc"])
        q = f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
        for unit, m, key in (("sentence", 20, "sentences"), ("paragraph", 30, "paragraphs")):
            units = document_units(doc, unit)  # type: ignore[arg-type]
            index = bm25.build(units)
            cands = search(bm25, units, q, m, index)
            per[f"bm25_{key}_top{m}"].append(_timed(lambda u=units, i=index, mm=m, qq=q: search(bm25, u, qq, mm, i), a.repeats))
            per[f"cross_encoder_{key}_m{m}"].append(_timed(lambda c=cands, qq=q: rr.rerank(qq, c, 5), a.repeats))
    result = {"schema_version": "1", "what": "cross-encoder reranking latency per query next to BM25",
              "queries": len(prompts), "repeats": a.repeats, "threads": rr.model.session.get_session_options().intra_op_num_threads,
              "model_sha256": sha256_file(shipped_model_dir() / MODEL_FILE),
              "model_load_s_median": round(statistics.median(loads), 4),
              "seconds_per_query_median": {k: round(statistics.median(v), 5) for k, v in per.items()},
              "model_folder_bytes": sum(f.stat().st_size for f in shipped_model_dir().iterdir() if f.is_file()),
              **({"wheel": wheel_sizes()} if a.wheel else {}), "provenance": run.finish()}
    (RES / "rerank_speed.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("model_load_s_median", "seconds_per_query_median")}, indent=1))


def wheel(a: argparse.Namespace) -> None:
    """Build, inspect and install the wheel."""
    prov = Run(data=[MODEL / "model.onnx", MODEL / "heads.npz", MODEL / "tokenizer.json", MODEL / "manifest.json"])
    manifest = json.loads((MODEL / "manifest.json").read_text())
    tmp = Path(tempfile.mkdtemp(prefix="claimtrace-wheel-"))
    builds, installs = [], []
    wheel = None
    for i in range(a.repeats):
        out = tmp / f"w{i}"
        t = time.time()
        wheel = build_wheel(out)
        builds.append(time.time() - t)
        venv = tmp / f"venv{i}"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        t = time.time()
        subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                        "--no-deps", "--no-index", str(wheel)], check=True)
        installs.append(time.time() - t)
    assert wheel is not None
    with zipfile.ZipFile(wheel) as z:
        inside = {}
        for name, digest in manifest["files"].items():
            data = z.read(f"claimtrace/resources/retriever/{name}")
            assert hashlib.sha256(data).hexdigest() == digest, name
            inside[name] = len(data)
        model_compressed = sum(z.getinfo(f"claimtrace/resources/retriever/{n}").compress_size for n in manifest["files"])
    result = {"schema_version": "1", "wheel": wheel.name, "wheel_bytes": wheel.stat().st_size,
              "model_files_bytes": inside, "model_bytes_compressed_in_wheel": model_compressed,
              "build_s_median": round(statistics.median(builds), 2), "build_s_runs": [round(x, 2) for x in builds],
              "install_no_deps_s_median": round(statistics.median(installs), 2),
              "install_no_deps_s_runs": [round(x, 2) for x in installs], "repeats": a.repeats,
              "provenance": prov.finish()}
    (RES / "retrieval_wheel.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "provenance"}, indent=1))


def main() -> None:
    """Run one part (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["index", "rerank", "wheel"], default="index")
    ap.add_argument("--papers", type=int, default=10, help="index: papers")
    ap.add_argument("--unit", default="paragraph", help="index: the retrieval unit")
    ap.add_argument("--finetuned", default=None, help="index: also time a fine-tuned retriever folder")
    ap.add_argument("--repeats", type=int, default=None,
                    help="index: cold builds per retriever (3); rerank: runs a query (5); wheel: builds (3)")
    ap.add_argument("--queries", type=int, default=30, help="rerank: the first N body-only validation prompts")
    ap.add_argument("--wheel", action="store_true", help="rerank: also the wheel's size and cross-encoder share")
    a = ap.parse_args()
    a.repeats = a.repeats or {"index": 3, "rerank": 5, "wheel": 3}[a.part]
    {"index": index_speed, "rerank": rerank_speed, "wheel": wheel}[a.part](a)


if __name__ == "__main__":
    main()
