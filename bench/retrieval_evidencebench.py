"""EvidenceBench (96 items): ER@10 and results-aspect ER@5 per retriever (and reranker).

Query = the item's hypothesis, sentence units, abstract included; `claimtrace retrieve --batch`
scored with ../shared/tools/evidencebench_eval.py.

    .venv/bin/python bench/retrieval_evidencebench.py [--retrievers bm25,dense,hybrid,...] [--rerank none]
Writes bench/results/retrieval_evidencebench.json (merging with earlier rows).
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO.parent / "shared" / "tools" / "evidencebench_eval.py"
CLI = [sys.executable, "-m", "claimtrace"]
RESULTS = REPO / "bench" / "results" / "retrieval_evidencebench.json"


def run(cmd: list[str]) -> str:
    """Run a command, fail loudly."""
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return res.stdout


def per_item(out: Path) -> dict[str, float]:
    """Each item's ER@10 (the share of its aspects with a gold sentence in the top 10), by the scorer's own rule."""
    spec = importlib.util.spec_from_file_location("evidencebench_eval", TOOL)
    ev = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(ev)  # type: ignore[union-attr]
    top = {str(r["id"]): [h["text"] for h in r.get("hits", [])]
           for r in (json.loads(x) for x in out.read_text().splitlines() if x.strip())}
    res = {}
    for it in ev.items():
        t = top.get(it["id"], [])[:10]
        cov = [any(ev.norm(g)[:50] in ev.norm(x) or ev.norm(x)[:50] in ev.norm(g) for g in it["aspects"][a] for x in t)
               for a in it["aspects"]]
        res[it["id"]] = sum(cov) / max(len(cov), 1)
    return res


def add_paired(rows: list[dict]) -> None:
    """Each row with per-item ER@10 gets its difference from BM25's (95% paired bootstrap interval, n)."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    base = next((b for b in rows if b["retriever"] == "bm25" and b["rerank"] == "none" and "ER@10_by_item" in b), None)
    for r in rows:
        if base is None or r is base or "ER@10_by_item" not in r:
            continue
        ids = sorted(r["ER@10_by_item"])
        r["ER@10_minus_bm25"] = paired_bootstrap_diff([r["ER@10_by_item"][i] for i in ids],
                                                      [base["ER@10_by_item"][i] for i in ids]).model_dump()


def main() -> None:
    """Run each retriever over the items and score."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--retrievers", default="bm25,dense,hybrid")
    ap.add_argument("--rerank", default="none")
    ap.add_argument("-m", type=int, default=30, help="candidates before reranking")
    ap.add_argument("--work", default="/tmp/claimtrace-bench-eb")
    a = ap.parse_args()
    model = REPO / "src" / "claimtrace" / "resources" / "retriever"
    prov = Run(data=[TOOL, TOOL.parent.parent / "data" / "evidencebench" / "items.jsonl",
                     model / "model.onnx", model / "heads.npz"])
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
        run([*CLI, "retrieve", "--batch", str(inp), "--out", str(out), "--retriever", retriever, "--unit", "sentence",
             "--include-abstract", "-k", "10", "--rerank", a.rerank, "-m", str(a.m)])
        secs = time.time() - t0
        s = json.loads(run([sys.executable, str(TOOL), "score", str(out)]))
        per = per_item(out)
        assert abs(sum(per.values()) / len(per) - s["ER@10"]) < 6e-4, (s, sum(per.values()) / len(per))
        row = {"retriever": label, "rerank": rr_label, "rerank_spec": a.rerank, "papers": s["papers"], "missing": s["missing_rows"],
               "ER@10": s["ER@10"], "results_ER@5": s["results_ER@5"], "seconds": round(secs, 1),
               "model": retriever if label != retriever else None, "ER@10_by_item": per,
               "provenance": copy.deepcopy(prov.finish())}
        print(json.dumps(row), flush=True)
        rows["rows"] = [r for r in rows["rows"] if not (r["retriever"] == label and r["rerank"] == rr_label)] + [row]
        add_paired(rows["rows"])
        RESULTS.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
