"""The screening checks on the 100 shared Psychological Science papers: flags per check, judged precision, speed.

Data: ``../shared/data/documents/psychsci/`` (GROBID TEI). Judgements: ``bench/data/checks_psychsci_judgements.json``
(by hand against the text; the annotator is named in the file).

Split (fixed before any rule was written): a paper is **untouched** when
``int(sha256("claimtrace-i27-checks:" + paper_id).hexdigest()[:8], 16) % 10 < 3``, else **development**. Rules
were written and changed looking at development papers only; the untouched papers' flags were read only to
judge them, after the rules were frozen, and no rule changed after that.

Figures:

- ``papers_flagged``: per check, the papers with at least one row at ``warn`` or ``error`` (all, per split);
- ``consistency``: every consistency flag (inconsistent p and decision errors) with its verdict: ``real`` (a
  reporting error in the paper as printed), ``parsing`` (claimtrace misread the text) or ``damaged`` (the
  source text was garbled by the conversion); precision = real / all flags, with a Wilson 95% interval, per
  split and for decision errors alone;
- ``samples``: for each check with at least 20 flags, 20 flags drawn at random (``random.Random(27)``, from the
  flags sorted by key), each judged ``correct`` or ``wrong`` against the text; precision with a Wilson 95%
  interval (a sample of 20: the interval is wide);
- ``timing`` (``--timing``): wall seconds of ``claimtrace stats``'s work (load, ``analyze_document``, table
  statistics) against all offline checks on the same papers, with ``os.getloadavg()``.

    PYTHONPATH=src .venv/bin/python bench/checks_psychsci.py [--list] [--timing]

``--list`` prints the flags that have no judgement yet. Writes bench/results/checks_psychsci.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

DATA = ROOT.parent / "shared" / "data" / "documents" / "psychsci"
JUDGED = ROOT / "bench" / "data" / "checks_psychsci_judgements.json"
OUT = ROOT / "bench" / "results" / "checks_psychsci.json"
SAMPLE_SIZE = 20
SEED = 27


def split_of(paper_id: str) -> str:
    """``untouched`` (about 30%) or ``development``, by a hash of the paper id."""
    h = int(hashlib.sha256(("claimtrace-i27-checks:" + paper_id).encode()).hexdigest()[:8], 16)
    return "untouched" if h % 10 < 3 else "development"


def row_key(paper: str, row: dict[str, Any]) -> str:
    """A stable key of a flag: paper, check, sentence and offset."""
    loc = row.get("location") or {}
    return f"{paper}:{row['check']}:{loc.get('unit_id')}:{loc.get('start')}"


def wilson(k: int, n: int) -> dict[str, Any]:
    """Share k/n with its Wilson 95% interval."""
    from scipy.stats import binomtest

    if n == 0:
        return {"k": 0, "n": 0, "share": None, "ci95": None}
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return {"k": k, "n": n, "share": round(k / n, 4), "ci95": [round(ci.low, 4), round(ci.high, 4)]}


def run(timing: bool) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """Every paper's rows (JSON), and the timing figures when asked."""
    from claimtrace.checks import CheckContext, registered_checks, run_checks
    from claimtrace.documents import load_document
    from claimtrace.stats import analyze_document
    from claimtrace.stats.tables import document_table_statistics

    checks = registered_checks()
    rows: dict[str, list[dict[str, Any]]] = {}
    t_stats = t_checks = 0.0
    load_before = os.getloadavg()
    for path in sorted(DATA.glob("*.xml")):
        t0 = time.perf_counter()
        doc = load_document(path)
        found = analyze_document(doc)
        document_table_statistics(doc)
        t1 = time.perf_counter()
        out = run_checks(CheckContext(document=doc, stats=found), checks=checks)
        t2 = time.perf_counter()
        t_stats += t1 - t0
        t_checks += t2 - t1
        rows[path.stem] = [r.model_dump(mode="json") for r in out]
    tim: dict[str, Any] = {}
    if timing:
        tim = {"papers": len(rows), "stats_seconds": round(t_stats, 3), "checks_seconds": round(t_checks, 3),
               "checks_share_of_stats": round(t_checks / t_stats, 4) if t_stats else None,
               "loadavg_before": [round(x, 2) for x in load_before],
               "loadavg_after": [round(x, 2) for x in os.getloadavg()],
               "note": "stats = load_document + analyze_document + table statistics (what claimtrace stats does); "
                       "checks = every registered offline check given those statistics"}
    return rows, tim


def _ci(d: dict[str, Any]) -> str:
    if not d["n"]:
        return "n/a"
    lo, hi = d["ci95"]
    return f"{d['share']:.2f} ({d['k']}/{d['n']}; 95% CI {lo:.2f}-{hi:.2f})"


def lines() -> list[str]:
    """docs/results/checks.md from bench/results/checks_psychsci.json (bench/results_pages.py writes it)."""
    r = json.loads(OUT.read_text(encoding="utf-8"))
    c = r["consistency"]
    out = ["# Screening checks on the shared psychsci papers", "",
           f"Source: `bench/results/checks_psychsci.json` (`python bench/checks_psychsci.py --timing`), "
           f"{r['papers']} papers ({r['split']['development']} development, {r['split']['untouched']} untouched). "
           f"Judged by {r['annotator']}; judgements in `bench/data/checks_psychsci_judgements.json`.", "",
           "## Consistency and decision errors", "",
           "Every flag, with its verdict: a real reporting error in the paper as printed, a parsing error of "
           "claimtrace, or damaged source text. Precision counts only real reporting errors.", "",
           "| flags | real | parsing | damaged | precision |", "|---|---|---|---|---|"]
    for name in ("untouched", "development", "all", "decision_errors"):
        v, pr = c[f"verdicts_{name}"], c[f"precision_{name}"]
        label = {"decision_errors": "decision errors (all papers)", "all": "all papers"}.get(name, name)
        out.append(f"| {label} | {v['real']} | {v['parsing']} | {v['damaged']} | {_ci(pr)} |")
    out += ["", "| paper | flag | verdict | note |", "|---|---|---|---|"]
    for x in c["flags"]:
        msg = x["message"].replace("|", "/")
        note = (x["note"] or "").replace("|", "/")
        out.append(f"| {x['paper']} ({x['split']}) | {msg} | {x['verdict']} | {note} |")
    out += ["", "## Papers flagged per check", "", "A paper is flagged by a check when it has a row at warn or error.",
            "", "| check | papers flagged (all) | development | untouched | flags |", "|---|---|---|---|---|"]
    for k, v in r["papers_flagged"].items():
        out.append(f"| {k} | {v['all']} | {v['development']} | {v['untouched']} | {r['flags'][k]} |")
    out += ["", "## Precision on 20 sampled flags", "",
            f"For each check with at least {SAMPLE_SIZE} flags, {SAMPLE_SIZE} drawn at random (seed {SEED}) and "
            "judged against the text. The samples were read while parsing errors were fixed (power, marginal "
            "wording), so they are not untouched figures.", "", "| check | flags | precision |", "|---|---|---|"]
    for k, v in r["samples"].items():
        out.append(f"| {k} | {v['flags']} | {_ci(v['precision'])} |")
    wrong = [(k, x) for k, v in r["samples"].items() for x in v["sample"] if x["verdict"] == "wrong"]
    if wrong:
        out += ["", "Flags judged wrong:", ""]
        out += [f"- {k}, {x['paper']}: {x['note']}" for k, x in wrong]
    if "timing" in r:
        t = r["timing"]
        out += ["", "## Speed", "",
                f"All offline checks took {t['checks_seconds']:.1f} s against {t['stats_seconds']:.1f} s for the "
                f"work of `claimtrace stats` on the same {t['papers']} papers ({t['checks_share_of_stats']:.0%}); "
                f"load average {t['loadavg_before'][0]:.1f} (a shared machine: a loaded timing)."]
    return out


def main() -> None:
    """Run, merge the judgements, write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print flags without a judgement")
    ap.add_argument("--timing", action="store_true", help="time stats against the checks")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"error: {DATA}: shared data not available")
    from provenance import Run

    prov = Run(data=[DATA, JUDGED])
    judged_doc = json.loads(JUDGED.read_text(encoding="utf-8")) if JUDGED.exists() else {"judgements": {}}
    judged: dict[str, dict[str, str]] = judged_doc["judgements"]
    rows, tim = run(args.timing)
    flags: dict[str, list[tuple[str, str, dict[str, Any]]]] = defaultdict(list)
    papers_flagged: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for paper, prs in rows.items():
        for r in prs:
            if r["severity"] in ("warn", "error"):
                key = row_key(paper, r)
                flags[r["check"]].append((key, paper, r))
                papers_flagged[r["check"]]["all"].add(paper)
                papers_flagged[r["check"]][split_of(paper)].add(paper)
    ids = sorted({r["check"] for prs in rows.values() for r in prs})
    result: dict[str, Any] = {
        "schema_version": "1", "papers": len(rows), "split": {s: sum(split_of(p) == s for p in rows) for s in ("development", "untouched")},
        "annotator": judged_doc.get("annotator"),
        "papers_flagged": {c: {s: len(papers_flagged[c][s]) for s in ("all", "development", "untouched")}
                           for c in ids},
        "flags": {c: len(flags[c]) for c in ids},
    }
    todo: list[tuple[str, str, dict[str, Any]]] = []
    # every consistency flag with its verdict
    listed = []
    for key, paper, r in sorted(flags["consistency"]):
        j = judged.get(key)
        if j is None:
            todo.append((key, paper, r))
        listed.append({"key": key, "paper": paper, "split": split_of(paper), "severity": r["severity"],
                       "message": r["message"], "verdict": j["verdict"] if j else None, "note": j.get("note") if j else None})
    cons: dict[str, Any] = {"flags": listed}
    for name, sel in (("all", lambda x: True), ("development", lambda x: x["split"] == "development"),
                      ("untouched", lambda x: x["split"] == "untouched"),
                      ("decision_errors", lambda x: x["severity"] == "error")):
        items = [x for x in listed if sel(x) and x["verdict"]]
        cons[f"precision_{name}"] = wilson(sum(x["verdict"] == "real" for x in items), len(items))
        cons[f"verdicts_{name}"] = {v: sum(x["verdict"] == v for x in items) for v in ("real", "parsing", "damaged")}
    result["consistency"] = cons
    # 20 sampled flags of each check with at least 20
    samples: dict[str, Any] = {}
    for c in ids:
        if len(flags[c]) < SAMPLE_SIZE:
            continue
        pool = sorted(flags[c], key=lambda x: x[0])
        pick = random.Random(SEED).sample(pool, SAMPLE_SIZE)
        items = []
        for key, paper, r in pick:
            j = judged.get(key)
            if j is None:
                todo.append((key, paper, r))
            items.append({"key": key, "paper": paper, "message": r["message"], "text": r.get("text"),
                          "verdict": j["verdict"] if j else None, "note": j.get("note") if j else None})
        ok = [x for x in items if x["verdict"]]
        good = sum(x["verdict"] in ("correct", "real") for x in ok)
        samples[c] = {"flags": len(flags[c]), "precision": wilson(good, len(ok)), "sample": items}
    result["samples"] = samples
    if tim:
        result["timing"] = tim
    result["unjudged"] = len({k for k, _, _ in todo})
    result["provenance"] = prov.finish()
    if args.list:
        seen = set()
        for key, _paper, r in todo:
            if key in seen:
                continue
            seen.add(key)
            print(json.dumps({"key": key, "message": r["message"], "text": r.get("text")}, ensure_ascii=False))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {result['unjudged']} flags without a judgement", file=sys.stderr)


if __name__ == "__main__":
    main()
