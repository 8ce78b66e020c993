"""Finding detection alone (``detect_findings``, no ranking) on the dev part of the gold psychsci traces and on the
extra traces of the other shared psychsci papers (``bench/data/traces-extra``), with its error analysis: a paper is
a hit when one of its chosen finding sentences covers the same statement as the gold finding (the scorer's
``same_statement``). The untouched part is not read (its figure comes from ``bench/traces_psychsci.py --detect``).

Per paper (80: dev 40 + extra 40) it records where the gold finding is (abstract, General Discussion, a study's
Discussion, other body text; its paragraph's place in the Discussion and whether the Discussion pool holds it),
the abstract-validity decision (``abstract_checks``: every check the block fails) and whether it was right (the
annotators took the finding from the Discussion exactly when the block held no result sentence: ``finding_source``),
the in-sample hit and the cross-validated hit of ``bench/results/discussion_findings_cv.json``
(``training/train_discussion_findings.py``), and one mechanical reason for each cross-validated miss. The
abstract-validity decision is scored as its own classifier (precision and recall of "the block is not the
abstract", each check alone too). ``--report`` prints the page docs/results/detect-findings.md. No article text is
written (ids and positions only).

    .venv/bin/python bench/traces_detect_extra.py [--out bench/results/traces_detect_extra.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from provenance import Run, module_from_file
from traces_psychsci import DOCS, GOLD, SHARED, scorer, split_of, wilson

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
EXTRA_LOADER = REPO / "bench" / "data" / "traces-extra" / "load.py"
CV_RESULT = RESULTS / "discussion_findings_cv.json"
TRACES_RESULT = RESULTS / "traces_detect_vs_given.json"


def extra_gold(seen: set[str]) -> list[dict[str, Any]]:
    """The extra traces (papers outside the 60 gold ones) that have a finding."""
    mod = module_from_file(EXTRA_LOADER, "traces_extra_load")
    return [g for g in mod.load_extra(SHARED) if g["paper"] not in seen and g["finding"]]


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).lower().strip()


def gold_place(doc: Any, finding: str, ev: Any) -> dict[str, Any]:
    """Where the gold finding is in the Document: the abstract, a Discussion (General, a study's, or one of a paper
    without studies) or other body text; its paragraph's rank among the Discussion paragraphs in the order the pool
    reads them (General Discussion first) and its sentence's index in the paragraph."""
    g = _norm(finding)[:80]
    for i, s in enumerate(doc.sentences("abstract")):
        if ev.same_statement(finding, s.text):
            return {"where": "abstract", "sentence_index": i}
    par = next((p for p in doc.paragraphs if g and g in _norm(p.text)), None)
    if par is None:
        return {"where": "not found"}
    studies = {p.study for p in doc.paragraphs if p.study and p.study not in ("general", "pilot")}
    general = [p.id for p in doc.paragraphs if p.section_kind == "discussion" and p.study == "general"]
    order = general + [p.id for p in doc.paragraphs if p.section_kind == "discussion" and p.id not in general]
    if par.section_kind != "discussion":
        where = f"other body text ({par.section_kind})"
    elif par.study == "general":
        where = "General Discussion"
    elif par.study:
        where = "a study's Discussion"
    else:
        where = "Discussion (single study)" if len(studies) < 2 else "Discussion"
    k = next((j for j, s in enumerate(par.sentences) if ev.same_statement(finding, s.text)), None)
    return {"where": where, "paragraph_id": par.id, "discussion_rank": order.index(par.id) if par.id in order else None,
            "sentence_index": k, "multi_study": len(studies) >= 2, "has_general_discussion": bool(general)}


def miss_reason(row: dict[str, Any], pool_paragraphs: int) -> str:
    """One mechanical reason for a cross-validated miss."""
    if not row["abstract_right"]:
        return ("abstract test wrong: a real abstract was rejected (" + ", ".join(row["abstract_checks"]) + ")"
                if row["gold_source"] == "abstract" else "abstract test wrong: an introduction was taken for the abstract")
    g = row["gold"]
    if row["source"] == "abstract":
        return f"abstract ranking: the gold sentence (sentence {g.get('sentence_index', -1) + 1}) was not chosen"
    if not g["where"].startswith(("General Discussion", "Discussion", "a study's")):
        return f"the gold finding is in {g['where']}, which the Discussion pool does not read"
    if not row.get("gold_in_pool"):
        rank = g.get("discussion_rank")
        return (f"Discussion paragraph choice: the gold is in {g['where']} paragraph {(rank or 0) + 1}, outside the "
                f"pool of {pool_paragraphs} paragraphs")
    return (f"Discussion sentence ranking: the gold is in the pool (paragraph {(row.get('gold_pool_rank') or 0) + 1},"
            f" sentence {(g.get('sentence_index') or 0) + 1}) but not among the chosen sentences")


def _failed(check: str, row: dict[str, Any]) -> bool:
    """Whether a row's abstract block failed one check."""
    return check in row["abstract_checks"]


def classifier(rows: list[dict[str, Any]], flag: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Precision and recall of "the block is not the paper's abstract" (positive: the annotators took the finding
    from the Discussion), with Wilson intervals."""
    tp = sum(1 for r in rows if flag(r) and r["gold_source"] != "abstract")
    fp = sum(1 for r in rows if flag(r) and r["gold_source"] == "abstract")
    fn = sum(1 for r in rows if not flag(r) and r["gold_source"] != "abstract")
    tn = len(rows) - tp - fp - fn
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "precision": round(tp / (tp + fp), 3) if tp + fp else None, "precision_ci95": wilson(tp, tp + fp),
            "recall": round(tp / (tp + fn), 3) if tp + fn else None, "recall_ci95": wilson(tp, tp + fn),
            "accuracy": round((tp + tn) / len(rows), 3), "accuracy_ci95": wilson(tp + tn, len(rows))}


def main() -> None:
    """Score detection on the dev part and the extra traces, with the error analysis; write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(RESULTS / "traces_detect_extra.json"))
    ap.add_argument("--report", action="store_true", help="print the page docs/results/detect-findings.md")
    ap.add_argument("--traces", action="store_true", help="the whole traces, detected beside given findings, per paper "
                    "(-> bench/results/traces_detect_vs_given.json unless --out is given)")
    ap.add_argument("--precision", action="store_true", help="the finding precision proxy from the judgments in "
                    "bench/data/detect-precision (-> bench/results/detect_findings_precision.json)")
    ap.add_argument("--pdf-twins", action="store_true", help="the Psychological Science PDFs of pdf-twins instead "
                    "(-> bench/results/detect_pdf_twins.json unless --out is given)")
    args = ap.parse_args()
    if args.report:
        print("\n".join(report_lines()))
        return
    if args.traces:
        detect_vs_given(Path(args.out) if args.out != str(RESULTS / "traces_detect_extra.json") else TRACES_RESULT)
        return
    if args.precision:
        precision(RESULTS / "detect_findings_precision.json")
        return
    if args.pdf_twins:
        pdf_twins(Path(args.out) if args.out != str(RESULTS / "traces_detect_extra.json") else RESULTS / "detect_pdf_twins.json")
        return
    if not GOLD.is_file() or not EXTRA_LOADER.is_file():
        print(f"error: {GOLD} or {EXTRA_LOADER} is absent", file=sys.stderr)
        raise SystemExit(2)
    from claimtrace.documents import load_document
    from claimtrace.extract.findings import (
        ABSTRACT_CHECKS,
        DISCUSSION_PARAGRAPHS,
        abstract_checks,
        detect_findings,
    )

    run = Run(data=[GOLD, DOCS, CV_RESULT])
    ev = scorer()
    gold = ev.load_gold(str(GOLD))
    cv = {r["paper"]: r for r in json.loads(CV_RESULT.read_text())["rows"]} if CV_RESULT.is_file() else {}
    parts = {"dev": [g for g in gold if split_of(g["paper"]) == "dev"], "extra": extra_gold({g["paper"] for g in gold})}
    result: dict[str, Any] = {"schema_version": "2", "what": "finding hit of detect_findings (any chosen sentence), "
                              "with the error analysis of the cross-validated misses",
                              "annotator": "LLM agent (Claude, 2026-12-01 dev; 2026-12-02 extra), not checked by a person",
                              "cv_result": "bench/results/discussion_findings_cv.json",
                              "discussion_paragraphs": DISCUSSION_PARAGRAPHS}
    every: list[dict[str, Any]] = []
    for name, gs in parts.items():
        rows = []
        for g in gs:
            doc = load_document(DOCS / g["paper"])
            chosen = [c for c in detect_findings(doc) if c.chosen]
            checks = list(abstract_checks(doc)) if doc.sentences("abstract") else ["no_abstract"]
            source = chosen[0].source if chosen else None
            c = cv.get(g["paper"], {})
            row: dict[str, Any] = {
                "paper": g["paper"], "part": name, "hit": any(ev.same_statement(g["finding"], x.text) for x in chosen),
                "source": source, "gold_source": g.get("finding_source"), "abstract_checks": checks,
                "abstract_right": (source == "abstract") == (g.get("finding_source") == "abstract"),
                "gold": gold_place(doc, g["finding"], ev), "chosen_ids": [x.sentence_id for x in chosen],
                "gold_in_pool": c.get("gold_in_pool"), "gold_pool_rank": c.get("gold_pool_rank")}
            row["cv_hit"] = c.get("cv_hit", float(row["hit"]))
            if row["cv_hit"] < 0.5:
                row["miss_reason"] = miss_reason(row, DISCUSSION_PARAGRAPHS)
            rows.append(row)
        k = sum(r["hit"] for r in rows)
        kc = sum(r["cv_hit"] for r in rows)
        result[name] = {"n": len(rows), "hits": k, "share": round(k / len(rows), 3), "ci95": wilson(k, len(rows)),
                        "cv_hits": round(kc, 2), "cv_share": round(kc / len(rows), 3), "cv_ci95": wilson(round(kc), len(rows)),
                        "rows": rows}
        every += rows
        print(name, k, len(rows), "cv", round(kc, 2), file=sys.stderr)
    flags: dict[str, Callable[[dict[str, Any]], bool]] = {"decision": lambda r: r["source"] != "abstract"}
    for check in (*ABSTRACT_CHECKS, "no_abstract"):
        flags[check] = partial(_failed, check)
    result["abstract_test"] = {k: classifier(every, f) for k, f in flags.items()}
    # the margin of the decision: how many checks each wrong block fails (one alone is a fragile catch)
    hist: dict[str, int] = {}
    for r in every:
        if r["gold_source"] != "abstract":
            key = str(len(r["abstract_checks"]))
            hist[key] = hist.get(key, 0) + 1
    result["checks_failed_per_wrong_block"] = dict(sorted(hist.items()))
    groups: dict[str, dict[str, Any]] = {}
    for r in every:
        key = r["gold"]["where"] + (" (multi-study)" if r["gold"].get("multi_study") and r["gold"]["where"] != "abstract" else "")
        gr = groups.setdefault(key, {"n": 0, "cv_hits": 0.0})
        gr["n"] += 1
        gr["cv_hits"] += r["cv_hit"]
    result["by_gold_place"] = {k: {"n": v["n"], "cv_hits": round(v["cv_hits"], 2), "cv_share": round(v["cv_hits"] / v["n"], 3),
                                   "ci95": wilson(round(v["cv_hits"]), v["n"])} for k, v in sorted(groups.items())}
    reasons: dict[str, int] = {}
    for r in every:
        if "miss_reason" in r:
            kind = r["miss_reason"].split(":")[0]
            reasons[kind] = reasons.get(kind, 0) + 1
    result["miss_kinds"] = reasons
    result["provenance"] = run.finish()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}", file=sys.stderr)


def trace_hits(ev: Any, g: dict[str, Any], t: Any) -> tuple[bool, bool]:
    """Hypothesis and evidence hit of one ClaimTrace against a gold trace (the scorer's definitions)."""
    h = t.hypothesis.text if t.hypothesis else ""
    e = t.evidence
    gk = set().union(set(), *[ev.stat_keys(s) for s in g["statistics"]])
    ek = set().union(set(), *[ev.stat_keys(s.get("text", "")) for s in (e.statistics if e else [])])
    return (any(ev.same_statement(x, h) for x in g["hypothesis"]),
            bool(e and any(ev.same_statement(x, e.text or "") for x in g["evidence"])) or bool(gk & ek))


def detect_vs_given(out: Path) -> None:
    """Per paper (dev part and extra traces): the traces of the detected findings (``extract_traces``, offline) beside
    the trace of the gold finding given, scored like ``traces_eval.py score --detect`` (the first trace whose finding
    states the gold one) and without --detect. Where the finding is hit, does the detected finding's trace reach the
    same hypothesis and evidence as the given finding's? The hit is in-sample for the Discussion scorer (fit on these
    papers); the cross-validated estimate weighs each paper's given-finding hit by its cross-validated finding hit."""
    import os
    import time

    from claimtrace.documents import load_document
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff
    from claimtrace.extract.pipeline import extract_traces

    ev = scorer()
    gold = ev.load_gold(str(GOLD))
    papers = [("dev", g) for g in gold if split_of(g["paper"]) == "dev"] + \
        [("extra", g) for g in extra_gold({g["paper"] for g in gold})]
    cv = {r["paper"]: r["cv_hit"] for r in json.loads(CV_RESULT.read_text())["rows"]}
    run = Run(data=[GOLD, DOCS, CV_RESULT])
    rows: list[dict[str, Any]] = []
    cpu = 0.0
    for part, g in papers:
        doc = load_document(DOCS / g["paper"])
        t0 = time.process_time()
        det = extract_traces(doc)
        cpu += time.process_time() - t0
        given = trace_hits(ev, g, extract_traces(doc, [g["finding"]])[0])
        hits = [t for t in det if ev.same_statement(g["finding"], t.finding.text)]
        dh = trace_hits(ev, g, hits[0]) if hits else (False, False)
        rows.append({"paper": g["paper"], "part": part, "source": det[0].finding.source if det else None,
                     "traces": len(det), "finding_hit": bool(hits), "cv_finding_hit": cv.get(g["paper"], float(bool(hits))),
                     "hit_is_gold_sentence": bool(hits) and " ".join(hits[0].finding.text.split()) == " ".join(g["finding"].split()),
                     "hit_rank": det.index(hits[0]) if hits else None, "n_hits": len(hits),
                     "detect_hypothesis_hit": dh[0], "detect_evidence_hit": dh[1],
                     "given_hypothesis_hit": given[0], "given_evidence_hit": given[1]})
    result: dict[str, Any] = {"schema_version": "1", "what": " ".join((detect_vs_given.__doc__ or "").split()),
                              "annotator": "LLM agent (Claude, 2026-12-01 dev; "
                              "2026-12-02 extra), not checked by a person",
                              "cpu_s_per_paper_detected_traces": round(cpu / len(rows), 4),
                              "load_average": list(os.getloadavg())}
    for part in ("dev", "extra", "all"):
        rs = [r for r in rows if part in ("all", r["part"])]
        n = len(rs)
        hit = [r for r in rs if r["finding_hit"]]
        res: dict[str, Any] = {"n": n, "traces_per_paper": round(sum(r["traces"] for r in rs) / n, 2)}
        for key in ("finding_hit", "detect_hypothesis_hit", "detect_evidence_hit", "given_hypothesis_hit",
                    "given_evidence_hit"):
            k = sum(r[key] for r in rs)
            res[key] = {"hits": k, "share": round(k / n, 3), "ci95": wilson(k, n)}
        for stage in ("hypothesis", "evidence"):
            # where the finding is hit: the detected finding's trace against the given finding's
            same = sum(r[f"detect_{stage}_hit"] == r[f"given_{stage}_hit"] for r in hit)
            res[f"{stage}_same_as_given_where_found"] = {"n": len(hit), "same": same, "ci95": wilson(same, len(hit))}
            d = paired_bootstrap_diff([float(r[f"detect_{stage}_hit"]) for r in rs],
                                      [float(r[f"given_{stage}_hit"]) for r in rs])
            res[f"{stage}_detect_minus_given"] = d.model_dump()
            lost = sum(r[f"given_{stage}_hit"] for r in rs if not r["finding_hit"])
            res[f"{stage}_lost_to_finding_misses"] = lost
            est = sum(r["cv_finding_hit"] * r[f"given_{stage}_hit"] for r in rs)
            res[f"{stage}_cv_estimate"] = {"hits": round(est, 1), "share": round(est / n, 3), "ci95": wilson(round(est), n)}
        res["hit_is_gold_sentence"] = sum(r["hit_is_gold_sentence"] for r in hit)
        result[part] = res
        print(part, {k: v for k, v in res.items() if not k.endswith("given")}, file=sys.stderr)
    result["rows"] = rows
    result["provenance"] = run.finish()
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {out}", file=sys.stderr)


PRECISION_DATA = REPO / "bench" / "data" / "detect-precision" / "judgments.jsonl"


def precision(out: Path) -> None:
    """The finding precision proxy: per judged sample (``bench/data/detect-precision/judgments.jsonl``: a random 40 of
    main's and of this branch's emitted findings over the 80 papers, every finding this branch leaves out or adds,
    and the fourth-best Discussion sentence that keeping the 4 best would add), the share judged a result statement of the paper, with a Wilson interval, and the findings each emits now
    (this tree's ``detect_findings``; main's 253 were counted the same way on main 505a564)."""
    from claimtrace.documents import load_document
    from claimtrace.extract.findings import detect_findings

    run = Run(data=[GOLD, DOCS, PRECISION_DATA])
    rows = [json.loads(x) for x in PRECISION_DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    ev = scorer()
    gold = ev.load_gold(str(GOLD))
    papers = [g["paper"] for g in gold if split_of(g["paper"]) == "dev"] + \
        [g["paper"] for g in extra_gold({g["paper"] for g in gold})]
    branch = sum(sum(c.chosen for c in detect_findings(load_document(DOCS / p))) for p in papers)
    samples = []
    for name in dict.fromkeys(r["sample"] for r in rows):
        rs = [r for r in rows if r["sample"] == name]
        k = sum(r["result_statement"] for r in rs)
        samples.append({"sample": name, "variant": rs[0]["variant"], "n": len(rs), "yes": k, "share": round(k / len(rs), 3),
                        "ci95": wilson(k, len(rs)),
                        **{f"{src}_{x}": (sum(r["result_statement"] for r in rs if r["source"] == src) if x == "yes"
                                          else sum(1 for r in rs if r["source"] == src))
                           for src in ("abstract", "discussion") for x in ("yes", "n")}})
    result = {"schema_version": "1", "what": " ".join((precision.__doc__ or "").split()) + " Judge: "
              + rows[0]["annotator"] + ". A result statement reports or concludes from this paper's own result; "
              "background, method, aim, prior work, limitation, speculation, a question or figure text is not one.",
              "annotator": rows[0]["annotator"], "samples": samples,
              "emitted": {"main": 253, "branch": branch, "papers": len(papers)}, "data": str(PRECISION_DATA.relative_to(REPO)), "provenance": run.finish()}
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(samples, indent=1), branch, f"-> {out}", file=sys.stderr)


def pdf_twins(out: Path) -> None:
    """The Psychological Science articles of ``documents/pdf-twins`` read from the PDF by claimtrace's reader and from
    GROBID's TEI: the abstract checks each fails, where the findings come from, and (a dev-part gold paper only) the
    finding hit. An article in the untouched part is skipped without being read."""
    from claimtrace.documents import load_document
    from claimtrace.extract.findings import abstract_checks, detect_findings

    twins = SHARED / "data" / "documents" / "pdf-twins"
    run = Run(data=[GOLD, twins])
    ev = scorer()
    gold = {g["paper"]: g for g in ev.load_gold(str(GOLD))}
    rows: list[dict[str, Any]] = []
    for pdf in sorted(twins.glob("psychsci-*.pdf")):
        paper = pdf.name.removeprefix("psychsci-").removesuffix(".pdf") + ".xml"
        split = split_of(paper) if paper in gold else "not a gold paper"
        if split == "untouched":
            rows.append({"paper": paper, "split": split, "reader": "not read", "abstract_checks": [], "source": "—",
                         "hit": None})
            continue
        g = gold.get(paper)
        for reader, path in (("claimtrace PDF", pdf), ("GROBID TEI", pdf.with_suffix(".tei.xml"))):
            doc = load_document(path)
            chosen = [c for c in detect_findings(doc) if c.chosen]
            rows.append({"paper": paper, "split": split, "reader": reader,
                         "abstract_words": len(doc.abstract_text.split()),
                         "abstract_checks": list(abstract_checks(doc)) if doc.sentences("abstract") else ["no_abstract"],
                         "source": chosen[0].source if chosen else None, "findings": len(chosen),
                         "hit": any(ev.same_statement(g["finding"], c.text) for c in chosen) if g else None})
            print(rows[-1], file=sys.stderr)
    result = {"schema_version": "1", "rows": rows,
              "what": "The abstract checks run on every reader's abstract except a publisher-tagged one (JATS, HTML), so "
                      "a PDF read by claimtrace gets the same test as a TEI. An article of the untouched part is skipped "
                      "unread. A finding hit is given for a dev-part gold paper only (its gold finding was taken from the "
                      "TEI rendering).",
              "provenance": run.finish()}
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {out}", file=sys.stderr)


def detect_vs_given_lines(t: dict[str, Any], share: Callable[[float, int, list[float] | None], str]) -> list[str]:
    """The page's section on the hypothesis and evidence that go with a detected finding, beside the given finding."""
    out = ["", "## Why the hypothesis and evidence hits fall with `--detect` (dev part and extra traces)", "",
           " ".join(t["what"].split()) + " Written by `python bench/traces_detect_extra.py --traces` to "
           f"`bench/results/{TRACES_RESULT.name}` (load average {t['load_average'][0]:.1f}).", "",
           "| papers | finding hit | hypothesis: detect / given | evidence: detect / given | where the finding is hit, "
           "same hypothesis and evidence hit as given | detect minus given, hypothesis | detect minus given, evidence | "
           "traces per paper |", "|---|---|---|---|---|---|---|---|"]
    for part, name in (("dev", "dev part"), ("extra", "extra traces"), ("all", "all")):
        x = t[part]
        n = x["n"]
        hs, es = x["hypothesis_same_as_given_where_found"], x["evidence_same_as_given_where_found"]
        dh, de = x["hypothesis_detect_minus_given"], x["evidence_detect_minus_given"]
        out.append(f"| {name} ({n}) | {share(x['finding_hit']['hits'], n, x['finding_hit']['ci95'])} | "
                   f"{x['detect_hypothesis_hit']['hits']} / {x['given_hypothesis_hit']['hits']} | "
                   f"{x['detect_evidence_hit']['hits']} / {x['given_evidence_hit']['hits']} | "
                   f"{hs['same']}/{hs['n']} and {es['same']}/{es['n']} | "
                   f"{dh['estimate']:+.3f} [{dh['low']:+.3f}, {dh['high']:+.3f}] | "
                   f"{de['estimate']:+.3f} [{de['low']:+.3f}, {de['high']:+.3f}] | {x['traces_per_paper']:.2f} |")
    before = RESULTS / "traces_detect_vs_given_before.json"
    if before.is_file():
        m = json.loads(before.read_text())
        x = m["all"]
        out += ["", f"The same run on main (aac4b49, `bench/results/{before.name}`, load average "
                f"{m['load_average'][0]:.1f}): finding hit {share(x['finding_hit']['hits'], x['n'], x['finding_hit']['ci95'])}, "
                f"hypothesis {x['detect_hypothesis_hit']['hits']} / {x['given_hypothesis_hit']['hits']}, evidence "
                f"{x['detect_evidence_hit']['hits']} / {x['given_evidence_hit']['hits']}, {x['traces_per_paper']:.2f} traces "
                f"per paper (this branch {t['all']['traces_per_paper']:.2f}); CPU seconds of the detected traces per paper "
                f"{m['cpu_s_per_paper_detected_traces']:.3f} (this branch {t['cpu_s_per_paper_detected_traces']:.3f}; both "
                "loaded, one process, Document read)."]
    a = t["all"]
    out += ["", f"Where the finding is hit, the detected sentence is the gold sentence itself in {a['hit_is_gold_sentence']} "
            f"of {a['finding_hit']['hits']} papers, and its trace reaches the same hypothesis and evidence as the given "
            "finding's: the hypothesis and evidence hits lost with `--detect` are the finding misses "
            f"(hypothesis {a['hypothesis_lost_to_finding_misses']}, evidence {a['evidence_lost_to_finding_misses']} of the "
            "given finding's hits fall on papers whose finding is missed), not the wording of the detected finding or the "
            "trace chosen. Cross-validated estimate (each paper's given-finding hit weighed by its cross-validated finding "
            f"hit): hypothesis {share(a['hypothesis_cv_estimate']['hits'], a['n'], a['hypothesis_cv_estimate']['ci95'])}, "
            f"evidence {share(a['evidence_cv_estimate']['hits'], a['n'], a['evidence_cv_estimate']['ci95'])}."]
    return out


def report_lines() -> list[str]:
    """The page docs/results/detect-findings.md, from the committed result files."""
    def load(name: str) -> dict[str, Any]:
        return dict(json.loads((RESULTS / name).read_text()))

    d, cv, before = load("traces_detect_extra.json"), load("discussion_findings_cv.json"), \
        load("discussion_findings_cv_before.json")

    def share(k: float, n: int, ci: list[float] | None) -> str:
        lo, hi = ci or [0.0, 0.0]
        return f"{k / n:.3f} ({k:g}/{n}; {lo:.3f}-{hi:.3f})"

    out = ["# Finding detection (`--detect`): grouped cross-validation and error analysis", "",
           "Written by `bench/traces_detect_extra.py --report` from `bench/results/traces_detect_extra.json`, "
           "`bench/results/discussion_findings_cv.json` and `bench/results/discussion_findings_cv_before.json`. Papers: "
           f"the dev part of `psychsci-dev.jsonl` ({d['dev']['n']}) and the extra traces ({d['extra']['n']}; annotator: "
           + d["annotator"] + "). The untouched part is not read here. A paper is a hit when a chosen finding sentence "
           "states the gold finding (`same_statement` of `shared/tools/traces_eval.py`). The cross-validated figure "
           f"scores each paper read from the Discussion with a scorer fit on other papers ({cv['folds']} folds x "
           f"{cv['repeats']} shuffles; a paper's hit is the share of repeats that hit); the abstract path fits nothing on "
           "these papers. Intervals: 95% Wilson (on the rounded count for cross-validated shares), paired bootstrap for "
           "differences.", "",
           "## Finding hit", "", "| code | dev part | extra traces | all | result file |", "|---|---|---|---|---|"]
    for label, res in (("main (505a564): title and salience features, 3 best + more at p >= 0.5", before),
                       ("this branch: prior work, methods, limitations, speculation, questions left out of the "
                        "Discussion choice (`discussion_non_result`)", cv)):
        out.append(f"| {label} | " + " | ".join(share(res[p]["learned_cv"]["hits"], res[p]["learned_cv"]["n"],
                                                       res[p]["learned_cv"]["ci95"]) for p in ("dev", "extra", "all"))
                   + f" | `bench/results/{'discussion_findings_cv_before.json' if res is before else 'discussion_findings_cv.json'}` |")
    nofilter = RESULTS / "discussion_findings_cv_nofilter.json"
    if nofilter.is_file():
        nf = load(nofilter.name)
        out.append("| this branch without `discussion_non_result` (`--no-filter` ablation) | " + " | ".join(
            share(nf[p]["learned_cv"]["hits"], nf[p]["learned_cv"]["n"], nf[p]["learned_cv"]["ci95"])
            for p in ("dev", "extra", "all")) + " | `bench/results/discussion_findings_cv_nofilter.json` |")
    out.append("| this branch, hand-set Discussion weights (no fitting) | " + " | ".join(
        share(cv[p]["hand"]["hits"], cv[p]["hand"]["n"], cv[p]["hand"]["ci95"]) for p in ("dev", "extra", "all"))
        + " | `bench/results/discussion_findings_cv.json` |")
    out.append("| this branch, in-sample (shipped scorer fit on these papers) | " + " | ".join(
        share(d[p]["hits"], d[p]["n"], d[p]["ci95"]) for p in ("dev", "extra")) + " | "
        + share(d["dev"]["hits"] + d["extra"]["hits"], d["dev"]["n"] + d["extra"]["n"],
                wilson(d["dev"]["hits"] + d["extra"]["hits"], d["dev"]["n"] + d["extra"]["n"]))
        + " | `bench/results/traces_detect_extra.json` |")
    if "vs_before" in cv:
        x = cv["vs_before"]["diff"]
        out += ["", f"Paired difference, this branch minus main, cross-validated per paper (n = {cv['vs_before']['n']}): "
                f"{x['estimate']:+.3f} [{x['low']:+.3f}, {x['high']:+.3f}] ({x['method']})."]
    ablations = [(n, RESULTS / f"discussion_findings_cv_paragraphs{n}.json") for n in (1, 3)]
    if all(f.is_file() for _, f in ablations):
        out += ["", "## Which Discussion paragraphs are read (pool ablation, cross-validated)", "",
                "The pool is the first paragraphs of the General Discussion (a one-paragraph General Discussion topped up "
                "with the first Discussion), else of the first Discussion. Hit within the k best sentences of the "
                f"{cv['all']['learned_cv']['discussion_n']} papers read from "
                "the Discussion, and the finding hit over all papers; the difference is paired per paper against the "
                "shipped pool.", "",
                "| paragraphs read | Discussion hit@1 | hit@3 | hit@5 | finding hit, all | difference vs shipped |",
                "|---|---|---|---|---|---|"]
        for n, f in [(cv["discussion_paragraphs"], None), *ablations]:
            res = cv if f is None else load(f.name)
            a = res["all"]
            k = a["discussion_hit_at_k"]
            nd = a["learned_cv"]["discussion_n"]
            diff = "shipped" if f is None else \
                "{estimate:+.3f} [{low:+.3f}, {high:+.3f}]".format(**res["vs_before"]["diff"])
            out.append(f"| {n} | {k['1'] / nd:.3f} ({k['1']:g}/{nd}) | {k['3'] / nd:.3f} ({k['3']:g}/{nd}) | "
                       f"{k['5'] / nd:.3f} ({k['5']:g}/{nd}) | "
                       f"{share(a['learned_cv']['hits'], a['learned_cv']['n'], a['learned_cv']['ci95'])} | {diff} |")
    if "discussion_kept" in cv["all"]:
        a = cv["all"]
        nd = a["learned_cv"]["discussion_n"]
        k = a["discussion_hit_at_k"]
        kept = a["discussion_kept"]
        out += ["", "## How many Discussion findings are kept (cross-validated)", "",
                f"Each kept sentence is one more trace (the cost of `--detect`). Shipped: the {cv['top']} best, and more up "
                f"to {cv['max_findings']} whose scorer probability reaches {cv['keep_p']} (the scorer's own decision "
                f"threshold, not tuned). Over the {nd} papers read from the Discussion:", "",
                "| findings kept | Discussion hit | findings per paper |", "|---|---|---|",
                f"| the 3 best | {k['3'] / nd:.3f} ({k['3']:g}/{nd}) | 3 |",
                f"| shipped: 3 best + more at p >= {cv['keep_p']} | {kept['hits'] / nd:.3f} ({kept['hits']:g}/{nd}) | "
                f"{kept['mean_findings']:.2f} |",
                f"| the 4 best | {k['4'] / nd:.3f} ({k['4']:g}/{nd}) | 4 (fewer where the pool is smaller) |",
                f"| the 5 best | {k['5'] / nd:.3f} ({k['5']:g}/{nd}) | 5 (fewer where the pool is smaller) |"]
        if "excluded" in cv:
            x = cv["excluded"]
            out += ["", f"`discussion_non_result` leaves {x['gold']} of the {x['gold_n']} gold finding sentences and "
                    f"{x['other']} of the {x['other_n']} other pool sentences out of the choice (the hit at k counts "
                    "the sentences left in; the checks were written while reading these pools: in-sample)."]
    prec = RESULTS / "detect_findings_precision.json"
    if prec.is_file():
        pr = load(prec.name)
        out += ["", "## Finding precision proxy: how many emitted findings are result statements", "", pr["what"], "",
                "| sample | variant | result statements | abstract | Discussion |", "|---|---|---|---|---|"]
        for r in pr["samples"]:
            out.append(f"| {r['sample']} | {r['variant']} | {share(r['yes'], r['n'], r['ci95'])} | "
                       f"{r['abstract_yes']}/{r['abstract_n']} | {r['discussion_yes']}/{r['discussion_n']} |")
        out += ["", f"Findings emitted over the 80 papers: main {pr['emitted']['main']}, this branch "
                f"{pr['emitted']['branch']} (traces per paper {pr['emitted']['main'] / 80:.2f} and "
                f"{pr['emitted']['branch'] / 80:.2f})."]

    out += ["", "## Where the gold finding is, and the cross-validated hit there", "",
            "| gold finding in | papers | cross-validated hit |", "|---|---|---|"]
    for k, v in d["by_gold_place"].items():
        out.append(f"| {k} | {v['n']} | {share(v['cv_hits'], v['n'], v['ci95'])} |")
    out += ["", "## The abstract test as a classifier", "",
            "Positive: the abstract block is not the paper's abstract (the annotators took the finding from the "
            "Discussion). `decision` is what `detect_findings` does (any check failed, or no abstract); the other rows are "
            "each check of `abstract_checks` alone (they overlap: a block usually fails several). The checks were written "
            "while looking at these papers, so the decision's figure is in-sample; the single-check rows show how much "
            "margin it has (how many wrong blocks each check catches alone, and how many real abstracts it rejects).", "",
            "| check | TP | FP | FN | TN | precision | recall |", "|---|---|---|---|---|---|---|"]
    for k, c in d["abstract_test"].items():
        p = "—" if c["precision"] is None else share(c["tp"], c["tp"] + c["fp"], c["precision_ci95"])
        r = "—" if c["recall"] is None else share(c["tp"], c["tp"] + c["fn"], c["recall_ci95"])
        out.append(f"| `{k}` | {c['tp']} | {c['fp']} | {c['fn']} | {c['tn']} | {p} | {r} |")
    if "checks_failed_per_wrong_block" in d:
        out += ["", "Checks failed per wrong block (a block with no abstract counts `no_abstract` as one): " + "; ".join(
            f"{k}: {v} blocks" for k, v in d["checks_failed_per_wrong_block"].items()) + "."]
    out += ["", "## Cross-validated misses, one reason each", "", "| paper | part | gold finding in | taken from | "
            "cross-validated hit | reason |", "|---|---|---|---|---|---|"]
    for part in ("dev", "extra"):
        for r in d[part]["rows"]:
            if "miss_reason" in r:
                out.append(f"| `{r['paper']}` | {part} | {r['gold']['where']} | {r['source']} | {r['cv_hit']:.1f} | "
                           f"{r['miss_reason']} |")
    out += ["", "Kinds: " + "; ".join(f"{k}: {v}" for k, v in sorted(d["miss_kinds"].items(), key=lambda kv: -kv[1])) + "."]
    dev = RESULTS / "traces_psychsci_detect_dev.json"
    if dev.is_file():
        x = load(dev.name)["dev"]
        out += ["", "## With `--detect`: the hypothesis and evidence that go with the detected finding (dev part)", "",
                "`bench/traces_psychsci.py --detect --dev-only` (the whole trace through the command line, offline; "
                "in-sample: the dev part was used to write the rules). A hypothesis or evidence hit counts only where "
                "the finding was hit.", "", "| finding hit | hypothesis hit | evidence hit | evidence checked | result file |",
                "|---|---|---|---|---|",
                "| " + " | ".join(share(x[k]["hits"], x["n"], x[k]["ci95"]) for k in
                                  ("finding_hit", "hypothesis_hit", "evidence_hit", "evidence_checked"))
                + " | `bench/results/traces_psychsci_detect_dev.json` |"]
    if TRACES_RESULT.is_file():
        out += detect_vs_given_lines(load(TRACES_RESULT.name), share)
    twins = RESULTS / "detect_pdf_twins.json"
    if twins.is_file():
        t = load(twins.name)
        out += ["", "## Psychological Science PDFs read by claimtrace's own reader", "",
                t["what"] + " Written by `python bench/traces_detect_extra.py --pdf-twins` to "
                "`bench/results/detect_pdf_twins.json`.", "",
                "| article | split | reader | abstract words | abstract checks failed | findings from | finding hit |",
                "|---|---|---|---|---|---|---|"]
        for r in t["rows"]:
            out.append(f"| `{r['paper']}` | {r['split']} | {r['reader']} | {r.get('abstract_words', '—')} | "
                       f"{', '.join(r['abstract_checks']) or 'none'} | "
                       f"{r['source']} | {r['hit'] if r['hit'] is not None else '—'} |")
    return out


if __name__ == "__main__":
    main()
