"""EI validation, stage 2: evidence hit@1 of `claimtrace extract --batch` beside a plain BM25 baseline.

Inputs and scoring come from ../shared/tools/ei_eval.py (body-only gold spans; finding =
"<intervention> vs <comparator>: <outcome>"). The baseline is the top-1 BM25 body sentence for the
finding. Writes bench/results/extract_ei.json (hit@1 and mean evidence length in sentences per system).

    .venv/bin/python bench/extract_ei.py [--split validation] [--configs fulltext-zeroshot rag-k5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
OUT = REPO / "bench" / "results"


def score(split: str, path: Path) -> dict[str, object]:
    """Score a batch output with the shared scorer."""
    res = subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "score", split, "extract", str(path)],
                         check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


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
    args.work.mkdir(parents=True, exist_ok=True)
    manifest = args.work / f"ei_{args.split}_extract.jsonl"
    manifest.write_text(subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "inputs", args.split, "extract"],
                                       check=True, capture_output=True, text=True).stdout)
    rows = []
    base = args.work / f"bm25_top1_{args.split}.jsonl"
    t0 = time.perf_counter()
    bm25_baseline(manifest, base)
    rows.append({"system": "BM25 top-1 sentence (baseline)", **score(args.split, base), "mean_evidence_sentences": mean_len(base),
                 "seconds": round(time.perf_counter() - t0, 1)})
    for sim in args.similarity:
        for cfg in args.configs:
            out = args.work / f"embedded_{sim}_{cfg}_{args.split}.jsonl"
            out.unlink(missing_ok=True)
            t0 = time.perf_counter()
            subprocess.run([str(REPO / ".venv" / "bin" / "claimtrace"), "extract", "--batch", str(manifest), "--out", str(out),
                            "--extractor", "embedded", "--config", cfg, "--similarity", sim], check=False,
                           stderr=subprocess.DEVNULL)
            rows.append({"system": f"embedded ({sim}, {cfg})", **score(args.split, out), "mean_evidence_sentences": mean_len(out),
                         "seconds": round(time.perf_counter() - t0, 1)})
            print(json.dumps(rows[-1]), file=sys.stderr)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "extract_ei.json"
    old = json.loads(path.read_text()).get("rows", []) if path.exists() else []
    names = {r["system"] for r in rows}
    rows = [r for r in old if r["system"] not in names] + rows  # earlier runs of other systems are kept
    path.write_text(json.dumps({"split": args.split, "rows": rows}, indent=1) + "\n")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
