"""Cost of the evidence stage's candidates on the psychsci gold papers: per paper, the offline trace (the finding
given, the Document already read: ``extract_traces``, default settings) and, inside it, the word-result candidates
(``evidence_ranker.word_results``: regular expressions over the body sentences, no model).

    .venv/bin/python bench/traces_evidence_speed.py [--out bench/results/traces_evidence_speed.json]

Timings on a shared machine are upper bounds when ``provenance.loaded`` is true (load above the core count).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from provenance import Run
from traces_psychsci import DOCS, GOLD, scorer

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    """Time the offline trace and the word-result candidates per gold paper; write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "traces_evidence_speed.json"))
    args = ap.parse_args()
    from claimtrace.documents import load_document
    from claimtrace.extract.embedded import MIN_EVIDENCE_STRENGTH, DocIndex
    from claimtrace.extract.evidence_ranker import word_results
    from claimtrace.extract.pipeline import extract_traces

    run = Run(data=[GOLD, DOCS])
    gold = scorer().load_gold(str(GOLD))
    extract_traces(load_document(DOCS / gold[0]["paper"]), [gold[0]["finding"]])  # warm-up: imports, weights
    trace_s, word_s = [], []
    for g in gold:
        doc = load_document(DOCS / g["paper"])
        t0 = time.perf_counter()
        extract_traces(doc, [g["finding"]])
        trace_s.append(time.perf_counter() - t0)
        ix = DocIndex(doc, table_rows=True)
        texts = [s.text for s in ix.sents]
        eng, stat = ix.engine, ix.stat
        t0 = time.perf_counter()
        word_results(texts, ix.pid, ix.kind, ix.is_table, eng, stat, MIN_EVIDENCE_STRENGTH)
        word_s.append(time.perf_counter() - t0)

    def summary(xs: list[float]) -> dict[str, float]:
        return {"median_s": round(statistics.median(xs), 4), "mean_s": round(statistics.fmean(xs), 4),
                "max_s": round(max(xs), 4)}

    out = {"schema_version": "1", "what": "offline trace per paper (finding given, Document read) and the word-result "
           "candidates inside it, psychsci gold papers", "papers": len(gold), "trace": summary(trace_s),
           "word_results": summary(word_s), "provenance": run.finish()}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: out[k] for k in ("papers", "trace", "word_results")}), file=sys.stderr)


if __name__ == "__main__":
    main()
