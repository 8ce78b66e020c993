"""Offline extraction (embedded, detected findings) on every shared JATS and PDF document: errors, s/paper, peak RSS.

Documents: ../shared/data/documents (JATS + PDF), statistics test-paper PDFs, rct-numeric XML and the
Evidence-Inference JATS articles (validation by default; ``--with-ei-train`` adds train). Models are
loaded once before timing (a warm-up paper). The extraction pass runs ``--repeats`` times (default 3):
each paper's times are the median over the passes, the summary also gives the mean of each pass and their
median. Writes bench/results/extract_docs.json with the provenance block (load at start/end; a run whose
load average exceeded the core count is flagged ``loaded``: its times are upper bounds).

    .venv/bin/python bench/extract_docs.py [--with-ei-train] [--limit N] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from provenance import Run

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
    ap.add_argument("--repeats", type=int, default=3, help="timed passes over the documents (median reported)")
    args = ap.parse_args()
    from claimtrace.documents import load_document
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.pipeline import extract_traces

    files = documents(args.with_ei_train)
    if args.limit:
        files = files[: args.limit]
    run = Run(data=files)
    ex = EmbeddedExtractor()
    extract_traces(load_document(REPO / "examples" / "PMC1821024.nxml"), extractor=ex)  # warm-up: models loaded
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    passes: list[dict[str, tuple[float, float]]] = []
    for rep in range(max(1, args.repeats)):
        times: dict[str, tuple[float, float]] = {}
        for f in files:
            name = str(f.relative_to(DATA))
            t0 = time.perf_counter()
            try:
                doc = load_document(f)
                t1 = time.perf_counter()
                traces = extract_traces(doc, extractor=ex)
                t2 = time.perf_counter()
            except Exception as exc:  # recorded, the run goes on
                if rep == 0:
                    errors.append({"doc": name, "error": f"{type(exc).__name__}: {exc}"})
                continue
            times[name] = (t1 - t0, t2 - t1)
            if rep == 0:
                rows.append({"doc": name,
                             "traces": len(traces), "with_hypothesis": sum(t.hypothesis is not None for t in traces),
                             "with_evidence": sum(t.evidence is not None for t in traces),
                             "statistics": sum(len(t.evidence.statistics) for t in traces if t.evidence),
                             "sentences": len(doc.sentences("body"))})
        passes.append(times)
        print(f"pass {rep + 1}: {len(times)} documents", file=sys.stderr)
    for r in rows:
        r["parse_s"] = round(statistics.median(p[r["doc"]][0] for p in passes), 3)
        r["extract_s"] = round(statistics.median(p[r["doc"]][1] for p in passes), 3)
    pass_means = [round(statistics.mean(t[1] for t in p.values()), 3) for p in passes]
    ext = [r["extract_s"] for r in rows]
    tot = [r["extract_s"] + r["parse_s"] for r in rows]
    summary = {
        "documents": len(files), "ok": len(rows), "errors": errors,
        "traces": sum(r["traces"] for r in rows),
        "papers_without_traces": [r["doc"] for r in rows if not r["traces"]],
        "extract_s_per_paper": {"mean": round(statistics.mean(ext), 3), "median": round(statistics.median(ext), 3),
                                "p95": round(sorted(ext)[int(0.95 * (len(ext) - 1))], 3), "max": round(max(ext), 3)},
        "parse_plus_extract_s_per_paper_mean": round(statistics.mean(tot), 3),
        "extract_s_per_paper_pass_means": pass_means, "repeats": len(passes),
        "extract_s_per_paper_median_of_pass_means": statistics.median(pass_means),
        "with_hypothesis": sum(r["with_hypothesis"] for r in rows), "with_evidence": sum(r["with_evidence"] for r in rows),
        "statistics_in_evidence": sum(r["statistics"] for r in rows),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "note": "times are wall-clock after model load; per paper the median over the passes",
    }
    out = REPO / "bench" / "results" / "extract_docs.json"
    out.write_text(json.dumps({"schema_version": "2", **summary, "rows": rows, "provenance": run.finish()},
                              indent=1) + "\n")
    print(json.dumps(summary, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
