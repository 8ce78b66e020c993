"""EvidenceBench (96 items): ER@10 and results-aspect ER@5 per retriever (and reranker).

Query = the item's hypothesis, sentence units, abstract included; `claimtrace retrieve --batch`
scored with ../shared/tools/evidencebench_eval.py.

    .venv/bin/python bench/retrieval_evidencebench.py [--retrievers bm25,dense,hybrid,...] [--rerank none]
Writes bench/results/retrieval_evidencebench.json (merging with earlier rows).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO.parent / "shared" / "tools" / "evidencebench_eval.py"
CLI = str(REPO / ".venv" / "bin" / "claimtrace")
RESULTS = REPO / "bench" / "results" / "retrieval_evidencebench.json"


def run(cmd: list[str]) -> str:
    """Run a command, fail loudly."""
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return res.stdout


def main() -> None:
    """Run each retriever over the items and score."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--retrievers", default="bm25,dense,hybrid")
    ap.add_argument("--rerank", default="none")
    ap.add_argument("-m", type=int, default=30, help="candidates before reranking")
    ap.add_argument("--work", default="/tmp/claimtrace-bench-eb")
    a = ap.parse_args()
    rr_label = a.rerank.split(":")[0] + ("-m" + str(a.m) if a.rerank != "none" else "")
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    inp = work / "inputs.jsonl"
    inp.write_text(run([sys.executable, str(TOOL), "inputs"]))
    rows = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"rows": []}
    for retriever in a.retrievers.split(","):
        label = retriever.split(":")[0]
        out = work / f"{label}-{rr_label}.jsonl"
        if out.exists():
            out.unlink()
        t0 = time.time()
        run([CLI, "retrieve", "--batch", str(inp), "--out", str(out), "--retriever", retriever, "--unit", "sentence",
             "--include-abstract", "-k", "10", "--rerank", a.rerank, "-m", str(a.m)])
        secs = time.time() - t0
        s = json.loads(run([sys.executable, str(TOOL), "score", str(out)]))
        row = {"retriever": label, "rerank": rr_label, "rerank_spec": a.rerank, "papers": s["papers"], "missing": s["missing_rows"],
               "ER@10": s["ER@10"], "results_ER@5": s["results_ER@5"], "seconds": round(secs, 1),
               "model": retriever if label != retriever else None}
        print(json.dumps(row), flush=True)
        rows["rows"] = [r for r in rows["rows"] if not (r["retriever"] == label and r["rerank"] == rr_label)] + [row]
        RESULTS.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
