"""Regex engine vs a grammar library (pyparsing) for the statistics scanner: the measurement behind the choice.

Both find APA test statistics with df and a p-value ("t(37) = -4.93, p < .001", "F(1, 38) = 3.73, p = .03",
"χ2(2) = 7.1, p = .03") in the JATS body text of the 90 Evidence-Inference validation articles. The
pyparsing grammar covers only this one form (test name, df in parentheses, comparator, value, p); the
claimtrace engine (``analyze``: every style, repair and check) is timed on the same texts. Median of
``--runs`` runs (each the best of 2 passes), load and provenance recorded (bench/provenance.py).

Writes bench/results/stats_grammar_choice.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import pyparsing as pp  # noqa: E402

from claimtrace.documents import load_document  # noqa: E402
from claimtrace.stats import analyze  # noqa: E402
from provenance import Run  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "evidence-inference" / "validation" / "articles"
OUT = ROOT / "bench" / "results" / "stats_grammar_choice.json"


def grammar() -> pp.ParserElement:
    """A pyparsing grammar for one APA form: name(df[, df]) cmp value, p cmp value."""
    num = pp.Regex(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)")
    name = pp.Regex(r"(?<![A-Za-z])(?:t|F|χ2|chi2|r|z|Q)(?![A-Za-z])")
    df = pp.Suppress("(") + num + pp.Optional(pp.Suppress(",") + num) + pp.Suppress(")")
    cmp = pp.one_of("= < > ≤ ≥")
    p = pp.Suppress(",") + pp.Literal("p") + cmp + num
    return pp.Group(name + df + cmp + num + pp.Optional(p))


def main() -> None:
    """Time both on the same texts and write the JSON report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    files = sorted(DATA.glob("*.nxml"))
    run = Run(data=files)
    texts = [load_document(f).body_text for f in files]
    g = grammar()
    runs = []
    n_pp = n_ours = 0
    for _ in range(args.runs):
        best_pp = best_ours = float("inf")
        for _ in range(2):
            t0 = time.perf_counter()
            n_pp = sum(1 for t in texts for _ in g.scan_string(t))
            best_pp = min(best_pp, time.perf_counter() - t0)
            t0 = time.perf_counter()
            n_ours = sum(len(analyze(t)) for t in texts)
            best_ours = min(best_ours, time.perf_counter() - t0)
        runs.append({"pyparsing_one_form_seconds": round(best_pp, 4), "claimtrace_all_styles_seconds": round(best_ours, 4)})
    med_pp = statistics.median(r["pyparsing_one_form_seconds"] for r in runs)
    med_ours = statistics.median(r["claimtrace_all_styles_seconds"] for r in runs)
    result = {
        "schema_version": "1",
        "texts": len(texts), "characters": sum(len(t) for t in texts),
        "pyparsing_version": pp.__version__,
        "results_found": {"pyparsing_one_form": n_pp, "claimtrace_all_styles": n_ours},
        "median_seconds": {"pyparsing_one_form": med_pp, "claimtrace_all_styles": med_ours},
        "pyparsing_slower_by": round(med_pp / med_ours, 1),
        "runs": runs,
        "provenance": run.finish(),
    }
    OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("results_found", "median_seconds", "pyparsing_slower_by")}, indent=1))


if __name__ == "__main__":
    main()
