"""Claim traces on the 100 Psychological Science papers (GROBID TEI): how many papers get a trace whose
evidence carries a checked statistic (a recomputed p or a consistency verdict), why the others fail,
and one row per paper. The papers are DEVELOPMENT data: patterns and evidence selection were tuned on them.

    .venv/bin/python bench/psychsci_traces.py [--limit N] [--out bench/results/psychsci_traces.json] [--label NAME]
    .venv/bin/python bench/psychsci_traces.py --report   # docs/results/psychsci.md from the committed result files

Offline embedded extractor, detected findings (the default ``claimtrace extract``). A failing paper is
recorded with its reason; the run goes on. The share has an exact (Clopper-Pearson) 95% interval.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "documents" / "psychsci"


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """Exact binomial (Clopper-Pearson) 95% interval for k of n, rounded as the result files store it."""
    from claimtrace.evaluate.uncertainty import proportion_ci

    if n == 0:
        return (0.0, 1.0)
    ci = proportion_ci(k, n)
    return (round(ci.low, 4), round(ci.high, 4))


def trace_reason(tr: dict[str, Any]) -> str:
    """Why one trace's evidence carries no checked statistic (or 'checked')."""
    from claimtrace.extract.statistics import is_checked

    ev = tr.get("evidence")
    if ev is None:
        return "no_evidence"
    recs = ev.get("statistics") or []
    if any(is_checked(r) for r in recs):
        return "checked"
    if not recs:
        return "evidence_without_statistic"
    kinds = {str(r.get("kind")) for r in recs}
    tests = {str(r.get("test")) for r in recs if r.get("test")}
    if tests:
        return "parsed_not_checked:" + "+".join(sorted(tests))
    return "parsed_not_checked:" + "+".join(sorted(kinds))


def paper_reason(reasons: list[str]) -> str:
    """One reason per paper: checked if any trace is; otherwise the most informative failure."""
    if "checked" in reasons:
        return "checked"
    for prefix in ("parsed_not_checked", "evidence_without_statistic", "no_evidence", "no_traces"):
        for r in reasons:
            if r.startswith(prefix):
                return r
    return reasons[0] if reasons else "no_traces"


def _default_units() -> str:
    """The extract command's default evidence units (sentences only before table rows existed)."""
    try:
        from claimtrace.cli.extract import DEFAULT_UNITS
    except ImportError:
        return "sentences"
    return str(DEFAULT_UNITS)


RESULTS = REPO / "bench" / "results"
#: the current runs; the earlier ones the page shows are summaries in HISTORY (without their per-paper rows)
TRACES, FINDINGS, HISTORY = "psychsci_traces.json", "findings_psychsci.json", "psychsci_history.json"


def _runs(kind: str, current: str) -> list[tuple[str, dict[str, Any]]]:
    """(where the page says it is, the result) for each run of a kind, the earlier ones first."""
    hist = json.loads((RESULTS / HISTORY).read_text())
    return [*((f"bench/results/{HISTORY}` › `{h['file']}", h) for h in hist[kind]),
            (f"bench/results/{current}", json.loads((RESULTS / current).read_text()))]


def report_lines() -> list[str]:
    """The Markdown summary of the committed psychsci result files, as lines."""
    lines = ["# Psychological Science papers: claim traces and findings (DEVELOPMENT data)", "",
             "Written by `bench/psychsci_traces.py --report` from the result files named below. The 100 papers",
             "(`../shared/data/documents/psychsci`) are development data: the evidence selection and the findings",
             "fixes were made while looking at them. Held-out papers judge.", "",
             "## Papers whose claim trace carries a checked statistic", "",
             "| code | units | papers checked | share | 95% CI (exact) | result file |", "|---|---|---|---|---|---|"]
    for where, d in _runs("traces", TRACES):
        lo, hi = d["share_checked_ci95"]
        lines.append(f"| {d['label']} | {d.get('units', 'sentences')} | {d['papers_checked']}/{d['n_papers']} | "
                     f"{d['share_checked']:.2f} | {lo:.2f}-{hi:.2f} | `{where}` |")
    last = json.loads((RESULTS / TRACES).read_text())
    lines += ["", f"The earlier runs are kept as summaries in `bench/results/{HISTORY}`, each with its provenance; "
              "their full files, with one row per paper, are in git:",
              f"`{json.loads((RESULTS / HISTORY).read_text())['full_files']}` (FILE: the name after ›).", "", f"Failures of the last row by reason ({last['n_papers'] - last['papers_checked']} papers): "
              + ", ".join(f"{k} {v}" for k, v in last["failures_by_detail"].items()) + ".",
              "`parsed_not_checked:X`: the evidence holds a result of kind X that the engine parses but cannot check",
              "(a bare p, r without df, a d or β without its test); `evidence_without_statistic`: the engine parses no",
              "result in the evidence span.", "",
              "## Findings detector on the annotated abstracts", "",
              "Gold: `bench/data/psychsci-findings.jsonl` (40 papers, annotated by an LLM agent (Claude, 2026-12-01),",
              "not checked by a person). Sentence-level precision/recall of the chosen findings; 95% bootstrap",
              "intervals over papers. The dev split was looked at while fixing; the test split was not. (For the",
             "results block of i13-traces2: the rule was written on dev misses; the test split's sentences were not",
             "looked at, its pooled figure was seen once after the rule's first version, and one more change followed,",
             "made on a dev miss.)", "",
              "| code | split | papers | precision (95% CI) | recall (95% CI) | tp/fp/fn | result file |",
              "|---|---|---|---|---|---|---|"]
    for where, d in _runs("findings", FINDINGS):
        for split in ("dev", "test"):
            m = d["splits"][split]
            pc, rc = m["precision_ci95"], m["recall_ci95"]
            lines.append(f"| {d['label']} | {split} | {m['papers']} | {m['precision']} ({pc[0]}-{pc[1]}) | "
                         f"{m['recall']} ({rc[0]}-{rc[1]}) | {m['tp']}/{m['fp']}/{m['fn']} | `{where}` |")
    bio = json.loads((RESULTS / FINDINGS).read_text()).get("biomedical_claim_set")
    if bio:
        lines += ["", "Side check on another labelling: the biomedical claim set the model was trained on "
                  f"(`{bio['data']}`, {bio['abstracts']} abstracts) labels only claims (mostly the closing conclusion),",
                  "not every reported result, so the result sentences the results block adds count as false positives there",
                  "(sentence level, no `max_findings` cap; 95% bootstrap intervals over abstracts):", "",
                  "| choice rule | precision (95% CI) | recall (95% CI) | tp/fp/fn |", "|---|---|---|---|"]
        for key, name in (("model_alone", "model above its threshold"),
                          ("model_plus_results_block", "model, plus the results block of an unstructured abstract")):
            m = bio[key]
            pc, rc = m["precision_ci95"], m["recall_ci95"]
            lines.append(f"| {name} | {m['precision']} ({pc[0]}-{pc[1]}) | {m['recall']} ({rc[0]}-{rc[1]}) | "
                         f"{m['tp']}/{m['fp']}/{m['fn']} |")
    return lines


def report() -> None:
    """Write docs/results/psychsci.md (through bench/results_pages.py, which adds the generated-page header)."""
    from results_pages import write_pages

    for path in write_pages(["psychsci"]):
        print(f"wrote {path}", file=sys.stderr)


def main() -> None:
    """Run the traces over the papers and write the summary."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "psychsci_traces.json"))
    ap.add_argument("--label", default="this branch", help="what code this run measures (recorded)")
    ap.add_argument("--report", action="store_true", help="only write docs/results/psychsci.md from the result files")
    ap.add_argument("--units", default=None, help="evidence units as in `claimtrace extract --units` (default: the CLI's)")
    args = ap.parse_args()
    if args.report:
        report()
        return
    if not DATA.is_dir():
        print(f"error: {DATA} is absent (the shared psychsci papers)", file=sys.stderr)
        raise SystemExit(2)
    from claimtrace.documents import load_document
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.pipeline import extract_traces

    files = sorted(DATA.glob("*.xml"))
    if args.limit:
        files = files[: args.limit]
    run = Run(data=[DATA])
    units = args.units or _default_units()
    ex = EmbeddedExtractor(table_rows="table-row" in units) if "table" in units else EmbeddedExtractor()
    rows: list[dict[str, Any]] = []
    t_all = time.perf_counter()
    for f in files:
        row: dict[str, Any] = {"paper": f.stem}
        t0 = time.perf_counter()
        try:
            doc = load_document(f)
            traces = [t.model_dump(mode="json") for t in extract_traces(doc, extractor=ex)]
        except Exception as exc:  # recorded, the run goes on
            row.update(reason="error", error=f"{type(exc).__name__}: {str(exc)[:200]}", traces=0)
            rows.append(row)
            continue
        reasons = [trace_reason(t) for t in traces]
        best = next((t for t, r in zip(traces, reasons, strict=True) if r == "checked"), traces[0] if traces else None)
        row.update(traces=len(traces), checked_traces=reasons.count("checked"), reason=paper_reason(reasons or ["no_traces"]),
                   seconds=round(time.perf_counter() - t0, 3))
        if best is not None:
            ev = best.get("evidence") or {}
            row["finding_sentence"] = best["finding"].get("sentence_id")
            row["evidence_sentences"] = ev.get("sentence_ids", [])
            row["evidence_tests"] = sorted({str(r.get("test") or r.get("kind")) for r in ev.get("statistics", [])})
        rows.append(row)
        print(f"{f.stem}: {row['reason']}", file=sys.stderr)
    n = len(rows)
    k = sum(r["reason"] == "checked" for r in rows)
    failures = Counter(r["reason"].split(":")[0] for r in rows if r["reason"] != "checked")
    detail = Counter(r["reason"] for r in rows if r["reason"] != "checked")
    result = {
        "schema_version": "1",
        "what": "papers with a claim trace whose evidence carries a checked statistic (recomputed p or a "
                "consistency verdict); embedded extractor, detected findings",
        "data": "shared/data/documents/psychsci (100 Psychological Science GROBID TEI papers): DEVELOPMENT data",
        "label": args.label,
        "units": units,
        "n_papers": n,
        "papers_checked": k,
        "share_checked": round(k / n, 4) if n else None,
        "share_checked_ci95": clopper_pearson(k, n),
        "failures_by_reason": dict(failures.most_common()),
        "failures_by_detail": dict(detail.most_common()),
        "seconds_total": round(time.perf_counter() - t_all, 1),
        "rows": rows,
        "provenance": run.finish(),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"{k}/{n} papers with a checked statistic in a trace's evidence -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
