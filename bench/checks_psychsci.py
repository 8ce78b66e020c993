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
- ``timing`` (``--timing``): per paper, seconds of ``claimtrace stats``'s work (load, ``analyze_document``, table
  statistics) and of all offline checks given those statistics, each the fastest of ``--repeat`` runs; the
  median and largest per-paper share, on the psychsci papers and on statcheck's four test papers (PDF and
  HTML), with ``os.getloadavg()`` before and after and the CPU other processes used meanwhile
  (``provenance.OthersCpu``): ``loaded`` when that is over 0.25 cores (then the figures are upper bounds: re-run it
  quietly, with the same one command).

    PYTHONPATH=src .venv/bin/python bench/checks_psychsci.py [--list] [--timing [--repeat 3]]
    PYTHONPATH=src .venv/bin/python bench/checks_psychsci.py --timing-only [--repeat 3]

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

from checks_common import ci_text as _ci  # noqa: E402
from checks_common import read_result, row_key, wilson, write_result  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "documents" / "psychsci"
STATCHECK = ROOT.parent / "shared" / "data" / "statistics" / "statcheck-test-papers"
JUDGED = ROOT / "bench" / "data" / "checks_psychsci_judgements.json"
OUT = ROOT / "bench" / "results" / "checks_psychsci.json"
SAMPLE_SIZE = 20
SEED = 27
#: checks with later rounds (round: seed, each seed fixed before the round's flags were read): a round draws a new
#: sample from the flags that no earlier round judged, here or in bench/checks_refs_psychsci.py (judgements carry
#: their "round"). power: round 1 (seed 27) and round 2 failed (< .90) and led to fixes on development papers;
#: reference-uncited: rounds 1-2 were judged by bench/checks_refs_psychsci.py on its own split, round 3 here
RESAMPLED: dict[str, dict[int, int]] = {"power": {2: 2702, 3: 2706}, "reference-uncited": {3: 2705, 4: 2707}}
REFS_JUDGED = ROOT / "bench" / "data" / "checks_refs_judged.json"
#: a timing is ``loaded`` when other processes used more than this many cores on average while it ran
OTHERS_LOADED_CORES = 0.25


def split_of(paper_id: str) -> str:
    """``untouched`` (about 30%) or ``development``, by a hash of the paper id."""
    h = int(hashlib.sha256(("claimtrace-i27-checks:" + paper_id).encode()).hexdigest()[:8], 16)
    return "untouched" if h % 10 < 3 else "development"


def _stats_work(path: Path) -> tuple[Any, Any]:
    """What ``claimtrace stats PAPER`` computes: the Document, its statistics and its table statistics."""
    from claimtrace.documents import load_document
    from claimtrace.stats import analyze_document
    from claimtrace.stats.tables import document_table_statistics

    doc = load_document(path)
    found = analyze_document(doc)
    document_table_statistics(doc)
    return doc, found


def _time_paper(path: Path, checks: list[Any], repeat: int) -> dict[str, Any]:
    """Seconds of the stats work and of every offline check on one paper: the fastest of ``repeat`` runs each."""
    from claimtrace.checks import CheckContext, run_checks

    t_stats, t_checks = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        doc, found = _stats_work(path)
        t1 = time.perf_counter()
        run_checks(CheckContext(document=doc, stats=found), checks=checks)
        t2 = time.perf_counter()
        t_stats.append(t1 - t0)
        t_checks.append(t2 - t1)
    s, c = min(t_stats), min(t_checks)
    return {"paper": path.name, "stats_seconds": round(s, 5), "checks_seconds": round(c, 5),
            "share": round(c / s, 4) if s else None}


def _timing_summary(per: list[dict[str, Any]]) -> dict[str, Any]:
    import statistics

    shares = [x["share"] for x in per if x["share"] is not None]
    ts, tc = sum(x["stats_seconds"] for x in per), sum(x["checks_seconds"] for x in per)
    return {"papers": len(per), "median_share": round(statistics.median(shares), 4) if shares else None,
            "max_share": round(max(shares), 4) if shares else None,
            "stats_seconds": round(ts, 3), "checks_seconds": round(tc, 3),
            "total_share": round(tc / ts, 4) if ts else None}


def timing(repeat: int) -> dict[str, Any]:
    """The share of every offline check against ``claimtrace stats``'s work, per paper (fastest of ``repeat``), on
    the psychsci papers and on statcheck's test papers (PDF and HTML), with the load average before and after."""
    from claimtrace.checks import registered_checks
    from provenance import OthersCpu

    checks = registered_checks()
    load_before = os.getloadavg()
    out: dict[str, Any] = {"repeat": repeat, "loadavg_before": [round(x, 2) for x in load_before]}
    sets = {"psychsci": sorted(DATA.glob("*.xml")),
            "statcheck_test_papers": sorted(p for p in STATCHECK.glob("*") if p.suffix in (".pdf", ".htm"))}
    with OthersCpu() as others:
        for name, paths in sets.items():
            per = [_time_paper(p, checks, repeat) for p in paths]
            out[name] = {**_timing_summary(per), "per_paper": per}
    out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    # loaded: other processes used more than OTHERS_LOADED_CORES cores on average while the timings ran (the
    # timing runs one process, so it is the other processes' CPU that decides, as in bench/corpus.py)
    out["others_cpu_cores"] = round(others.cores, 2)
    out["loaded"] = others.cores > OTHERS_LOADED_CORES
    out["loaded_rule"] = f"other processes used more than {OTHERS_LOADED_CORES} cores on average during the timings"
    out["note"] = ("stats = load_document + analyze_document + table statistics (what claimtrace stats does); "
                   "checks = every registered offline check given those statistics; each the fastest of "
                   f"{repeat} runs per paper; share = checks / stats")
    return out


def run() -> dict[str, list[dict[str, Any]]]:
    """Every paper's rows (JSON)."""
    from claimtrace.checks import CheckContext, registered_checks, run_checks

    checks = registered_checks()
    rows: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(DATA.glob("*.xml")):
        doc, found = _stats_work(path)
        out = run_checks(CheckContext(document=doc, stats=found), checks=checks)
        rows[path.stem] = [r.model_dump(mode="json") for r in out]
    return rows


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
           "claimtrace, or damaged source text. Precision counts only real reporting errors. The untouched papers' "
           "flags were read to judge round 1 (2026-12-01), and round 2's one-tailed scope answers two of them, so "
           "the untouched row is no longer an untouched figure; the bootstrap rule came from a development paper.",
           "",
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
    gone = c.get("no_longer_flagged") or []
    if gone:
        out += ["", "Flags of the earlier round that are no longer flags (re-judged):", "",
                "| flag | then | now | note |", "|---|---|---|---|"]
        for x in gone:
            out.append(f"| {x['key']} ({x['split']}) | {x['verdict_then']} | {x['verdict_now']}: "
                       f"{(x['row_now'] or 'no row').replace('|', '/')} | {(x['note'] or '').replace('|', '/')} |")
    out += ["", "## Papers flagged per check", "", "A paper is flagged by a check when it has a row at warn or error.",
            "", "| check | papers flagged (all) | development | untouched | flags |", "|---|---|---|---|---|"]
    for k, v in r["papers_flagged"].items():
        out.append(f"| {k} | {v['all']} | {v['development']} | {v['untouched']} | {r['flags'][k]} |")
    out += ["", "## Precision on 20 sampled flags", "",
            f"For each check with at least {SAMPLE_SIZE} flags, {SAMPLE_SIZE} drawn at random (seed {SEED}; a later "
            "round its own seed, fixed before its flags were read) and judged against the text. Round-1 samples were "
            "read while parsing errors were fixed (power, marginal wording), so they are not untouched figures; a "
            "fresh round draws only from flags that no earlier round judged.", "",
            "| check | flags | precision |", "|---|---|---|"]
    for k, v in r["samples"].items():
        b = v.get("judged_before_fix")
        if b:
            out.append(f"| {k} (round {b['round']}, seed {b['seed']}, judged before the fixes it led to) | {v['flags']} | "
                       f"{_ci(b['precision'])} |")
        if v.get("fresh") and not v["pool"]:
            out.append(f"| {k} (round {v['round']}, seed {v['seed']}: no flag left that no round judged; every current "
                       f"flag by its latest verdict, seen) | {v['flags']} | {_ci(v['current_flags_by_latest_verdict'])} |")
        elif v.get("fresh"):
            out.append(f"| {k} (round {v['round']}, seed {v['seed']}, drawn from the {v['pool']} flags no earlier round "
                       f"judged: fresh) | {v['flags']} | {_ci(v['precision'])} |")
        elif b:
            after = ("the same seed redrawn after those fixes: partly seen" if b.get("redrawn")
                     else "the same sample after those fixes: seen")
            out.append(f"| {k} ({after}) | {v['flags']} | {_ci(v['precision'])} |")
        else:
            out.append(f"| {k} | {v['flags']} | {_ci(v['precision'])} |")
    wrong = [(k, x) for k, v in r["samples"].items() for x in v["sample"] if x["verdict"] == "wrong"]
    if wrong:
        out += ["", "Flags judged wrong:", ""]
        out += [f"- {k}, {x['paper']}: {x['note']}" for k, x in wrong]
    out += _refs_lines() + _fresh_lines() + _social_lines()
    if "timing" in r:
        t = r["timing"]
        out += ["", "## Speed", "",
                "Every offline check against the work of `claimtrace stats` (load, statistics, table statistics) on "
                f"the same paper, each the fastest of {t['repeat']} runs (`python bench/checks_psychsci.py --timing`, or "
                "`--timing-only` to re-take only the timing); "
                f"load average {t['loadavg_before'][0]:.1f} before, {t['loadavg_after'][0]:.1f} after"
                + ("" if "loaded" not in t else
                   f"; other processes used {t['others_cpu_cores']:.2f} cores on average: "
                   + ("**loaded**, so these are upper bounds, not the speed (re-run it quietly)" if t["loaded"]
                      else "quiet")) + ".", "",
                "| papers | n | median share | largest share | total checks / total stats |", "|---|---|---|---|---|"]
        for name in ("psychsci", "statcheck_test_papers"):
            v = t[name]
            lo, hi = _share_ci(v["per_paper"])
            out.append(f"| {name} | {v['papers']} | {v['median_share']:.1%} | {v['max_share']:.1%} | "
                       f"{v['checks_seconds']:.2f} s / {v['stats_seconds']:.2f} s ({v['total_share']:.1%}; "
                       f"95% CI {lo:.1%}-{hi:.1%}) |")
        out += ["", "The interval of the total share: a bootstrap over papers (2,000 resamples, seed 27)."]
    return out


def _share_ci(per: list[dict[str, Any]], n_boot: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval (over papers) of total checks seconds / total stats seconds."""
    import numpy as np

    s = np.array([x["stats_seconds"] for x in per])
    c = np.array([x["checks_seconds"] for x in per])
    idx = np.random.default_rng(27).integers(0, len(per), size=(n_boot, len(per)))
    ratios = c[idx].sum(axis=1) / s[idx].sum(axis=1)
    return float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5))


REFS = ROOT / "bench" / "results" / "checks_refs_psychsci.json"
FRESH = ROOT / "bench" / "results" / "checks_fresh.json"


def _refs_lines() -> list[str]:
    """The judged reference and open-science checks (bench/checks_refs_psychsci.py)."""
    r = read_result(REFS)
    if r is None:
        return []
    out = ["", "## Reference and open-science checks", "",
           "From `bench/results/checks_refs_psychsci.json` (`python bench/checks_refs_psychsci.py`): samples of the "
           "untouched half of its own split (`reference-unlisted`: every flag, both halves). A round judged before the "
           "fixes it led to is the figure to quote; the same flags after them are seen.", "",
           "| check | flags | judged | precision |", "|---|---|---|---|"]
    for k, v in r["checks"].items():
        j = v.get("judged")
        if not j:
            continue
        b = v.get("judged_before_fix")
        if b:
            share = {"share": b["precision"], "k": b["correct"], "n": b["judged"], "ci95": b["ci95"]}
            out.append(f"| {k} | {v['flags_all']} | round {b['round']}, before its fixes | {_ci(share)} |")
        label = f"round {j['round']}" + (", after its fixes: seen" if b else "")
        share = {"share": j["precision"], "k": j["correct"], "n": j["n"], "ci95": j["ci95"]}
        out.append(f"| {k} | {v['flags_all']} | {label} | {_ci(share)} |")
    return out


def _fresh_lines() -> list[str]:
    """The power and reference-unlisted checks on fresh papers (bench/checks_fresh.py)."""
    r = read_result(FRESH)
    if r is None:
        return []
    out = ["", "## Fresh papers: power and reference-unlisted", "",
           "From `bench/results/checks_fresh.json` (`python bench/checks_fresh.py`): papers never opened while the "
           "rules were written, each domain apart: `social` (the PDF twins' TEI not among the psychsci papers, and "
           "statcheck's test papers, HTML) and `biomedical` (Evidence-Inference trial articles, JATS). Round 1 drew its "
           f"flags on the rules of {r['rules']['1']}; its trial power flags all failed, so the power rules were fixed "
           f"again ({r['rules']['2']}) on round 1 and the development half of the trial articles; round 2 drew from "
           f"the untouched half, leaving round 1's papers out, and led to a third fix ({r['rules']['3']}); round 3 drew "
           "from the untouched half again, leaving the papers of rounds 1 and 2 out"
           + (f"; a fourth fix ({r['rules']['4']}: unparsed forms read, a warning only for a field the text lacks) "
              "led to round 4, from the untouched half, leaving the papers of rounds 1-3 out" if "4" in r["rules"] else "")
           + (f"; then the mechanism changed ({r['rules']['5']}: a field is called missing only where a broad detector "
              "finds no trace of it in the paragraph or the one before; a traced field not read is info; a pointer to "
              "the analysis elsewhere or power in a Discussion is no record) and round 5 drew from the untouched half, "
              "leaving the papers of rounds 1-4 out (its pool held fewer than 20 flags: all judged)"
              if "5" in r["rules"] else "")
           + ". Each round's figure is the one "
           "judged before the fixes it led to; the last round is the fresh figure of the rules as they are. "
           f"Judged by {r['annotator']}"
           + "".join(f"; {k.removeprefix('annotator_').replace('_', ' ')}: {v}"
                     for k, v in r.get("annotators", {}).items() if k != "annotator")
           + ".", "",
           "| domain | check | papers | flags now | round | precision |", "|---|---|---|---|---|---|"]
    for dom, d in r["domains"].items():
        for c, v in d["checks"].items():
            for rnd, x in v["rounds"].items():
                how = (f"from {x['pool']} untouched flags, drawn now" if "pool" in x
                       else f"{x['still_flagged']} of its flags still flags")
                out.append(f"| {dom} | {c} | {d['papers']} | {v['flags']} | {rnd} (seed {x['seed']}, rules {x['rules']}; "
                           f"{how}) | {_ci(x['precision'])} |")
    return out


def _social_lines() -> list[str]:
    """Every check's flags on the fresh social papers, all judged (bench/checks_fresh.py, part social_all)."""
    r = (read_result(FRESH) or {}).get("social_all")
    if not r:
        return []
    seen = "; ".join(f"`{k}` ({v})" for k, v in r["seen"].items())
    out = ["", "## Fresh social papers: every check, every flag", "",
           f"From `bench/results/checks_fresh.json` (`python bench/checks_fresh.py --part social-all`): every warn or "
           f"error row of every check that `claimtrace check` gives on {len(r['papers'])} social papers in "
           f"{r['readings']} readings (the PDF twins' GROBID TEI and claimtrace's reading of their PDF; statcheck's test "
           f"papers as HTML and PDF), each judged against the text by {r['annotator']}. Seen papers (read by check work "
           f"before): {seen}; the rest are unseen. The headline is the verdicts on the rules of {r['rules']}, recorded "
           "before any rule was changed after reading these papers; the fixes that followed make every one of these "
           "papers seen, so the second table is in-sample.", ""]

    def table(part: dict[str, Any]) -> list[str]:
        rows = ["| check | unseen: flags, precision | unseen TEI/HTML | unseen PDF | seen | all TEI/HTML | all PDF |",
                "|---|---|---|---|---|---|---|"]
        for c, v in [*part["checks"].items(), ("all checks", {g: {"flags": x["n"], "precision": x}
                                                                 for g, x in part["overall"].items()})]:
            rows.append(f"| {c} | {v['unseen']['flags']}, {_ci(v['unseen']['precision'])} | "
                        + " | ".join(_ci(v[g]["precision"]) for g in ("unseen_tei_html", "unseen_pdf", "seen",
                                                                       "tei_html", "pdf")) + " |")
        return rows

    out += ["Before the fixes (the headline):", "", *table(r["before_fix"]), "",
            "After the fixes (in-sample: the fixes were made on these flags):", "", *table(r), ""]
    for name, label in (("pdf_only", "PDF only"), ("tei_html_only", "TEI/HTML only")):
        out += [f"Flags now in one reading only ({label}; a wrong one is a reading problem):", ""]
        out += [f"- {x['paper']}, {x['check']}: {x['message']}: {x['verdict']} ({x['note']})" for x in r[name]]
        out.append("")
    return out[:-1]


def main() -> None:
    """Run, merge the judgements, write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print flags without a judgement")
    ap.add_argument("--timing", action="store_true", help="time stats against the checks")
    ap.add_argument("--repeat", type=int, default=3, help="--timing: runs per paper (the fastest is kept)")
    ap.add_argument("--timing-only", action="store_true",
                    help="re-take only the timing; the flags and judgements are kept from the committed result")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"error: {DATA}: shared data not available")
    from provenance import Run

    if args.timing_only:
        prov = Run(data=[DATA, STATCHECK])
        kept = read_result(OUT)
        if kept is None:
            sys.exit(f"error: {OUT}: no committed result to keep (run without --timing-only)")
        kept["timing"] = timing(args.repeat)
        kept["timing"]["provenance"] = prov.finish()
        write_result(OUT, ROOT, kept, [], False)
        return

    prov = Run(data=[DATA, JUDGED, STATCHECK])
    judged_doc = json.loads(JUDGED.read_text(encoding="utf-8")) if JUDGED.exists() else {"judgements": {}}
    judged: dict[str, dict[str, Any]] = judged_doc["judgements"]
    rows = run()
    tim = timing(args.repeat) if args.timing else {}
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
    # judged consistency flags that are flags no longer: what the check says of them now (an info row, or nothing)
    now = {key for key, _p, _r in flags["consistency"]}
    info = {row_key(paper, r): r["message"] for paper, prs in rows.items() for r in prs
            if r["check"] == "consistency" and r["severity"] == "info"}
    cons["no_longer_flagged"] = [
        {"key": k, "split": split_of(k.split(":")[0]), "verdict_then": j.get("previous", {}).get("verdict", j["verdict"]),
         "verdict_now": j.get("verdict_now"), "note": j.get("note"), "row_now": info.get(k)}
        for k, j in sorted(judged.items()) if ":consistency:" in k and k not in now]
    result["consistency"] = cons
    # 20 sampled flags of each check with at least 20
    samples: dict[str, Any] = {}
    # the flags bench/checks_refs_psychsci.py judged before this file's rounds drew (its rounds 1-2): seen, never drawn
    # again (its judgements made after them, marked "after_psychsci_round", leave these pools as they were)
    refs = read_result(REFS_JUDGED) or {}
    earlier = {f"{k.split('|')[1]}:{k.split('|')[0]}:{k.split('|')[2]}" for k, v in refs.items()
               if "after_psychsci_round" not in v}
    for c in ids:
        if len(flags[c]) < SAMPLE_SIZE:
            continue
        pool = sorted(flags[c], key=lambda x: x[0])
        seed, rnd = SEED, 1
        if c in RESAMPLED:  # a new sample, drawn from the flags no earlier round judged
            rnd = max(RESAMPLED[c])
            seed = RESAMPLED[c][rnd]
            pool = [x for x in pool if x[0] not in earlier
                    and (x[0] not in judged or judged[x[0]].get("round", 1) >= rnd)]
        pick = random.Random(seed).sample(pool, min(SAMPLE_SIZE, len(pool)))
        items = []
        for key, paper, r in pick:
            j = judged.get(key)
            if j is None:
                todo.append((key, paper, r))
            items.append({"key": key, "paper": paper, "split": split_of(paper), "message": r["message"],
                          "text": r.get("text"), "verdict": j["verdict"] if j else None,
                          "note": j.get("note") if j else None, "annotator": (j or {}).get("annotator")})
        ok = [x for x in items if x["verdict"]]
        good = sum(x["verdict"] in ("correct", "real") for x in ok)
        samples[c] = {"flags": len(flags[c]), "round": rnd, "seed": seed, "pool": len(pool),
                      "fresh": c in RESAMPLED, "precision": wilson(good, len(ok)), "sample": items}
        if not pool:  # no flag left that no round judged: every current flag by its latest verdict (seen ones)
            seen = [judged[k]["verdict"] for k, _p, _r in flags[c] if k in judged]
            samples[c]["current_flags_by_latest_verdict"] = wilson(sum(v == "correct" for v in seen), len(seen))
        before = judged_doc.get("rounds", {}).get(c)
        if before:  # the new sample as judged before the fixes it led to: the figure to quote
            samples[c]["judged_before_fix"] = {**before, "precision": wilson(before["correct"], before["judged"])}
    result["samples"] = samples
    if tim:
        result["timing"] = tim
    result["unjudged"] = len({k for k, _, _ in todo})
    result["provenance"] = prov.finish()
    write_result(OUT, ROOT, result, [(k, r) for k, _p, r in todo], args.list)

if __name__ == "__main__":
    main()
