"""EvidenceBench, stage 2 from the given hypothesis: share of results aspects covered by the evidence span.

Runs `claimtrace extract --batch` (embedded, hypothesis given as finding and hypothesis) with the
default 3-sentence limit and with larger limits, beside a BM25 top-1 sentence baseline, and scores each
with ../shared/tools/evidencebench_eval.py score-extract. Writes bench/results/extract_evidencebench.json.

    .venv/bin/python bench/extract_evidencebench.py [--max-sentences 3 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO.parent / "shared" / "tools" / "evidencebench_eval.py"
WORK = REPO / "bench" / "results" / "ei_runs"


def score(path: Path) -> dict[str, object]:
    """Score one batch output."""
    res = subprocess.run([sys.executable, str(TOOL), "score-extract", str(path)], check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def mean_len(path: Path) -> float:
    """Mean evidence length in sentences."""
    lens = [len(((json.loads(x).get("traces") or [{}])[0].get("evidence") or {}).get("sentence_ids") or []) or 1
            for x in path.read_text().splitlines()]
    return round(sum(lens) / max(len(lens), 1), 3)


def bm25_top1(manifest: Path, out: Path) -> None:
    """Top-1 BM25 body sentence for the hypothesis."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval.base import search
    from claimtrace.retrieval.bm25 import BM25Retriever
    from claimtrace.retrieval.units import document_units

    r = BM25Retriever()
    with out.open("w") as fh:
        for line in manifest.read_text().splitlines():
            it = json.loads(line)
            units = document_units(load_document(it["doc"]), "sentence")
            hit = search(r, units, it["findings"][0]["hypothesis"], 1)[0]
            fh.write(json.dumps({"id": it["id"], "traces": [{"evidence": {"text": hit.text, "sentence_ids": [hit.unit_id]}}],
                                 "error": None}) + "\n")


def main() -> None:
    """Run and write the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max-sentences", type=int, nargs="+", default=[3, 5])
    args = ap.parse_args()
    run = Run(data=[TOOL, REPO.parent / "shared" / "data" / "evidencebench"])
    WORK.mkdir(parents=True, exist_ok=True)
    manifest = WORK / "evidencebench_extract.jsonl"
    manifest.write_text(subprocess.run([sys.executable, str(TOOL), "inputs-extract"], check=True, capture_output=True,
                                       text=True).stdout)
    rows = []
    base = WORK / "evidencebench_bm25_top1.jsonl"
    bm25_top1(manifest, base)
    rows.append({"system": "BM25 top-1 sentence (baseline)", **score(base), "mean_evidence_sentences": mean_len(base)})
    for m in args.max_sentences:
        out = WORK / f"evidencebench_embedded_max{m}.jsonl"
        out.unlink(missing_ok=True)
        subprocess.run([sys.executable, "-m", "claimtrace", "extract", "--batch", str(manifest), "--out", str(out),
                        "--extractor", "embedded", "--max-evidence-sentences", str(m)], check=False, stderr=subprocess.DEVNULL)
        rows.append({"system": f"embedded (max {m} sentences)", **score(out), "mean_evidence_sentences": mean_len(out)})
    (REPO / "bench" / "results" / "extract_evidencebench.json").write_text(json.dumps(
        {"schema_version": "2", "rows": rows, "provenance": run.finish()}, indent=1) + "\n")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
