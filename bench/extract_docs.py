"""Offline extraction (embedded, detected findings) on every shared JATS and PDF document: errors, s/paper, peak RSS.

Documents: ../shared/data/documents (JATS + PDF), statistics test-paper PDFs, rct-numeric XML and the
Evidence-Inference JATS articles (validation by default; ``--with-ei-train`` adds train). Models are
loaded once before timing (a warm-up paper). Writes bench/results/extract_docs.json.

    .venv/bin/python bench/extract_docs.py [--with-ei-train] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def documents(with_train: bool) -> list[Path]:
    """The shared JATS and PDF documents."""
    files = sorted(p for p in (DATA / "documents").rglob("*") if p.suffix.lower() in (".nxml", ".pdf"))
    files += sorted((DATA / "statistics").rglob("*.pdf"))
    files += sorted((DATA / "rct-numeric").rglob("*.xml"))
    files += sorted((DATA / "evidence-inference" / "validation" / "articles").glob("*.nxml"))
    if with_train:
        files += sorted((DATA / "evidence-inference" / "train" / "articles").glob("*.nxml"))
    return files


def main() -> None:
    """Run and write the summary."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--with-ei-train", action="store_true")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    from claimtrace.documents import load_document
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.pipeline import extract_traces

    files = documents(args.with_ei_train)
    if args.limit:
        files = files[: args.limit]
    ex = EmbeddedExtractor()
    extract_traces(load_document(REPO / "examples" / "PMC1821024.nxml"), extractor=ex)  # warm-up: models loaded
    rows, errors = [], []
    for f in files:
        t0 = time.perf_counter()
        try:
            doc = load_document(f)
            t1 = time.perf_counter()
            traces = extract_traces(doc, extractor=ex)
            t2 = time.perf_counter()
        except Exception as exc:  # recorded, the run goes on
            errors.append({"doc": str(f.relative_to(DATA)), "error": f"{type(exc).__name__}: {exc}"})
            continue
        rows.append({"doc": str(f.relative_to(DATA)), "parse_s": round(t1 - t0, 3), "extract_s": round(t2 - t1, 3),
                     "traces": len(traces), "with_hypothesis": sum(t.hypothesis is not None for t in traces),
                     "with_evidence": sum(t.evidence is not None for t in traces),
                     "statistics": sum(len(t.evidence.statistics) for t in traces if t.evidence),
                     "sentences": len(doc.sentences("body"))})
    ext = [r["extract_s"] for r in rows]
    tot = [r["extract_s"] + r["parse_s"] for r in rows]
    summary = {
        "documents": len(files), "ok": len(rows), "errors": errors,
        "traces": sum(r["traces"] for r in rows),
        "papers_without_traces": [r["doc"] for r in rows if not r["traces"]],
        "extract_s_per_paper": {"mean": round(statistics.mean(ext), 3), "median": round(statistics.median(ext), 3),
                                "p95": round(sorted(ext)[int(0.95 * (len(ext) - 1))], 3), "max": round(max(ext), 3)},
        "parse_plus_extract_s_per_paper_mean": round(statistics.mean(tot), 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "note": "2-core machine shared with other jobs; times are wall-clock after model load",
    }
    out = REPO / "bench" / "results" / "extract_docs.json"
    out.write_text(json.dumps({**summary, "rows": rows}, indent=1) + "\n")
    print(json.dumps(summary, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
