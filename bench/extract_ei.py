"""EI validation, stage 2: evidence hit@1 of `claimtrace extract --batch` beside a plain BM25 baseline.

Inputs and scoring come from ../shared/tools/ei_eval.py (body-only gold spans; finding =
"<intervention> vs <comparator>: <outcome>"). The baseline is the top-1 BM25 body sentence for the
finding. Writes bench/results/extract_ei.json (hit@1 with its exact 95% interval, mean evidence length
in sentences per system, each system against the baseline: paired bootstrap interval of the difference
and exact McNemar test) and the per-item predictions to bench/results/extract_ei_items.jsonl.gz.

    .venv/bin/python bench/extract_ei.py [--split validation] [--configs fulltext-zeroshot rag-k5]
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from claimtrace.evaluate.uncertainty import mcnemar_exact, paired_bootstrap_diff, proportion_ci
from provenance import Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
OUT = REPO / "bench" / "results"


def score(split: str, path: Path) -> dict[str, object]:
    """Score a batch output with the shared scorer."""
    res = subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "score", split, "extract", str(path)],
                         check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def item_hits(split: str, path: Path) -> dict[str, dict[str, object]]:
    """Per prompt: the evidence text and whether it hits a body gold span (the shared scorer's rule)."""
    ei = shared_tool("ei_eval")
    rows = {str(r["id"]): r for r in (json.loads(x) for x in path.read_text().splitlines() if x.strip())}
    out = {}
    for p in ei.prompts(split, True):
        tr = ((rows.get(p["prompt_id"]) or {}).get("traces") or [{}])[0] or {}
        ev = tr.get("evidence") or {}
        text = ev.get("text", "")
        out[p["prompt_id"]] = {"evidence": text, "sentence_ids": ev.get("sentence_ids") or [],
                               "hit": any(ei.overlaps(e["text"], text) for e in p["evidence"])}
    return out


def mean_len(path: Path) -> float:
    """Mean evidence length in sentences over rows that have evidence."""
    lens = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        tr = (row.get("traces") or [{}])[0] or {}
        ev = tr.get("evidence")
        if ev:
            lens.append(len(ev.get("sentence_ids") or []) or 1)
    return round(sum(lens) / max(len(lens), 1), 3)


def bm25_baseline(manifest: Path, out: Path) -> None:
    """Top-1 BM25 body sentence per finding, written in the extract batch format."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval.base import search
    from claimtrace.retrieval.bm25 import BM25Retriever
    from claimtrace.retrieval.units import document_units

    r = BM25Retriever()
    cache: dict[str, tuple[list, object]] = {}
    with out.open("w") as fh:
        for line in manifest.read_text().splitlines():
            item = json.loads(line)
            if item["doc"] not in cache:
                units = document_units(load_document(item["doc"]), "sentence")
                cache.clear()
                cache[item["doc"]] = (units, r.build(units))
            units, index = cache[item["doc"]]
            hit = search(r, units, item["findings"][0], 1, index)[0]
            fh.write(json.dumps({"id": item["id"], "traces": [{"evidence": {"text": hit.text, "sentence_ids": [hit.unit_id]}}],
                                 "error": None}) + "\n")


def main() -> None:
    """Run the systems and write the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--split", default="validation")
    ap.add_argument("--configs", nargs="+", default=["fulltext-zeroshot"])
    ap.add_argument("--similarity", nargs="+", default=["bm25"])
    ap.add_argument("--work", type=Path, default=OUT / "ei_runs")
    args = ap.parse_args()
    run = Run(data=[TOOLS / "ei_eval.py", REPO.parent / "shared" / "data" / "evidence-inference" / args.split])
    args.work.mkdir(parents=True, exist_ok=True)
    manifest = args.work / f"ei_{args.split}_extract.jsonl"
    manifest.write_text(subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "inputs", args.split, "extract"],
                                       check=True, capture_output=True, text=True).stdout)
    rows: list[dict[str, Any]] = []
    items: dict[str, dict[str, dict[str, object]]] = {}
    base = args.work / f"bm25_top1_{args.split}.jsonl"
    t0 = time.perf_counter()
    bm25_baseline(manifest, base)
    name = "BM25 top-1 sentence (baseline)"
    rows.append({"system": name, **score(args.split, base), "mean_evidence_sentences": mean_len(base),
                 "seconds": round(time.perf_counter() - t0, 1)})
    items[name] = item_hits(args.split, base)
    for sim in args.similarity:
        for cfg in args.configs:
            out = args.work / f"embedded_{sim}_{cfg}_{args.split}.jsonl"
            out.unlink(missing_ok=True)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "claimtrace", "extract", "--batch", str(manifest), "--out", str(out),
                            "--extractor", "embedded", "--config", cfg, "--similarity", sim], check=False,
                           stderr=subprocess.DEVNULL)
            name = f"embedded ({sim}, {cfg})"
            rows.append({"system": name, **score(args.split, out), "mean_evidence_sentences": mean_len(out),
                         "seconds": round(time.perf_counter() - t0, 1)})
            items[name] = item_hits(args.split, out)
            print(json.dumps(rows[-1]), file=sys.stderr)
    ids = sorted(items[rows[0]["system"]])
    base_hits = [bool(items[rows[0]["system"]][i]["hit"]) for i in ids]
    for r in rows:
        hits = [bool(items[r["system"]][i]["hit"]) for i in ids]
        r["evidence_hit@1_ci95"] = proportion_ci(sum(hits), len(hits)).model_dump()
        if r is not rows[0]:
            r["vs_baseline"] = {"difference_ci95": paired_bootstrap_diff(hits, base_hits).model_dump(),
                                "mcnemar": mcnemar_exact(hits, base_hits).model_dump()}
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "extract_ei.json"
    path.write_text(json.dumps({"schema_version": "2", "split": args.split, "rows": rows,
                                "items_file": "bench/results/extract_ei_items.jsonl.gz",
                                "provenance": run.finish()}, indent=1) + "\n")
    with gzip.GzipFile(OUT / "extract_ei_items.jsonl.gz", "wb", mtime=0) as fh:
        for i in ids:
            fh.write((json.dumps({"id": i, **{s: items[s][i] for s in items}}) + "\n").encode())
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
