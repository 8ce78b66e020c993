"""Speed of the shipped cross-encoder next to BM25 alone, and what it adds to the wheel.

    nice -n 10 .venv/bin/python bench/rerank_speed.py [--queries 30] [--repeats 5] [--wheel]

For the first `--queries` body-only EI validation prompts: BM25 over the article's body sentences (top 20) and
paragraphs (top 30, the `retrieve` default M), then the cross-encoder reranking those candidates. Per query the
median over `--repeats` runs; the table gives the median over queries. Model load time: median of 3 cold loads.
`--wheel` also builds the project's wheel (`pip wheel --no-deps`) and records its size and the model folder's
compressed share. Writes bench/results/rerank_speed.json (loaded runs are flagged by the provenance block).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from claimtrace.documents import load_document
from claimtrace.retrieval.base import search
from claimtrace.retrieval.bm25 import BM25Retriever
from claimtrace.retrieval.cross_encoder import MODEL_FILE, OnnxCrossEncoder, shipped_model_dir
from claimtrace.retrieval.embeddings import sha256_file
from claimtrace.retrieval.rerank import CrossEncoderReranker
from claimtrace.retrieval.units import document_units
from provenance import SHARED, Run

REPO = Path(__file__).resolve().parents[1]
RESULT = REPO / "bench" / "results" / "rerank_speed.json"


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
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp,
                        str(REPO)], check=True, capture_output=True)
        whl = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(whl) as z:
            ce = sum(i.compress_size for i in z.infolist() if "resources/cross_encoder/" in i.filename)
        t0 = time.perf_counter()  # installing the wheel alone (its dependencies are another matter)
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(Path(tmp) / "site"),
                        str(whl)], check=True, capture_output=True)
        install_s = time.perf_counter() - t0
        return {"wheel": whl.name, "wheel_bytes": whl.stat().st_size, "cross_encoder_compressed_bytes": ce,
                "install_no_deps_s": round(install_s, 2)}


def main() -> None:
    """Time BM25 and BM25 + cross-encoder per query."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--wheel", action="store_true")
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("ei_eval", SHARED / "tools" / "ei_eval.py")
    ev = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(ev)  # type: ignore[union-attr]
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
    RESULT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("model_load_s_median", "seconds_per_query_median")}, indent=1))


if __name__ == "__main__":
    main()
