"""Tables on the shared JATS articles: grid coverage, table-row gold spans, evidence hit@1 with and without
table rows, and what table parsing costs per paper. Writes bench/results/tables_ei.json.

1. every ``table-wrap`` of the EI validation articles and of ``documents/**.nxml`` parsed into a grid (and how
   many grids have no body: every row read as a header row);
2. EI validation gold evidence spans (body only, ../shared/tools/ei_eval.py) that no sentence or paragraph
   holds: which of them a ``table-rows`` unit holds (the scorer's ``overlaps``);
3. ``claimtrace extract --batch`` (embedded, offline) with ``--units sentences`` and
   ``--units sentences,table-rows``, scored by ``ei_eval.py score``; paired bootstrap 95% CI of the difference;
4. parse time per paper with and without the table grids (median of 5 runs per paper; load recorded).

    .venv/bin/python bench/tables_ei.py
    PYTHONPATH=src .venv/bin/python bench/tables_ei.py --rows [--show-misses] [--dev-only]

``--rows``: EI gold evidence that is a table row, found in one table-row unit, on the train and validation articles.
Data: ``../shared/data/evidence-inference/{train,validation}`` (prompts with gold evidence spans, JATS articles).

Measure (as ``gold_table_rows`` above, there on validation only): among the body gold evidence
spans (``../shared/tools/ei_eval.py``'s ``prompts``) that no sentence or paragraph unit of the Document holds (the
scorer's ``overlaps``), the share that one table unit holds: a ``table-row`` unit or a ``row-group`` unit (a
sub-table: a heading row with the rows under it). Such a span is a table row (or rows) that the article's ``.txt``
prints as cells on lines of their own.

Figure legends are their own line, not part of the table figure: a span that a ``figure-legend`` unit holds and no
table unit holds is a figure's caption, not a table row, so it leaves the table figure's n (``k``/``n``, the
headline) and is counted in ``figure_legends`` (found in one figure-legend unit). Beside them, on the same spans:
``issue_definition`` (one ``table-row`` unit, every span counted: the definition the issue's figures used, for
comparison), ``table_units_all_spans`` (table units, every span counted) and ``any_unit`` (one table-row, row-group
or figure-legend unit, every span counted: what retrieval over all the units outside the text can reach).

Split (fixed before any table code was read against these spans, never changed): an article is **untouched** when
``int(sha256("claimtrace-i29-eirows:" + pmcid).hexdigest()[:8], 16) % 10 < 3`` (about 30% of the articles), else
**development**. Only development misses are printed (``--show-misses``); the untouched figure is counted without
its spans being read. Shares with Wilson 95% intervals (spans of one article are not independent: the number of
articles is given too). Each miss gets a reason by a mechanical test (``why_missed``: a figure legend, a table
caption or footnote, several rows in one span, no table read, other), counted on both splits; the share among
the spans a table holds (figure legends left out) is given beside the headline.

``--dev-only``: the development part only (``untouched`` is written as null): what an engineer runs while
changing the table reading; the untouched figure comes from a run without it.

``--rows`` writes bench/results/tables_ei_rows.json.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TOOLS = SHARED / "tools"
OUT = REPO / "bench" / "results" / "tables_ei.json"
EI = SHARED / "data" / "evidence-inference"
ROWS_OUT = REPO / "bench" / "results" / "tables_ei_rows.json"
SALT = "claimtrace-i29-eirows:"


def coverage(files: list[str]) -> dict[str, object]:
    """Every table-wrap with a <table> parsed into a grid with cells (table-wraps given as images counted apart)."""
    from claimtrace.documents import load_document

    wraps = with_table = grids = all_head = 0
    missed: list[str] = []
    for f in files:
        root = etree.parse(f).getroot()
        tw = [e for e in root.iter() if isinstance(e.tag, str) and e.tag.rsplit("}", 1)[-1] == "table-wrap"]
        has = [w for w in tw if any(isinstance(x.tag, str) and x.tag.rsplit("}", 1)[-1] == "table" for x in w.iter())]
        doc = load_document(f)
        ok = [t for t in doc.tables if t.cells and t.n_rows and t.n_cols]
        wraps += len(tw)
        with_table += len(has)
        grids += len(ok)
        all_head += sum(t.n_rows > 1 and t.header_rows >= t.n_rows for t in ok)
        if len(ok) < len(has):
            missed.append(f"{Path(f).name}: {len(has)} table-wraps with a table, {len(ok)} grids")
    return {"files": len(files), "table_wraps": wraps, "table_wraps_with_table": with_table,
            "table_wraps_image_only": wraps - with_table, "grids": grids,
            "share": round(grids / with_table, 4) if with_table else None, "misses": missed,
            "grids_all_header_rows": all_head}


def coverage_tei(files: list[str]) -> dict[str, object]:
    """GROBID TEI figure[@type="table"]: those with rows, and the grids read from them."""
    from claimtrace.documents import load_document

    figs = with_rows = grids = all_head = 0
    for f in files:
        root = etree.parse(f).getroot()
        tabs = [e for e in root.iter() if isinstance(e.tag, str) and e.tag.endswith("}figure") and e.get("type") == "table"]
        figs += len(tabs)
        with_rows += sum(any(isinstance(x.tag, str) and x.tag.endswith("}row") for x in t.iter()) for t in tabs)
        tables = load_document(f).tables
        grids += sum(bool(t.cells) for t in tables)
        all_head += sum(bool(t.cells) and t.n_rows > 1 and t.header_rows >= t.n_rows for t in tables)
    return {"files": len(files), "table_figures": figs, "with_rows": with_rows, "grids": grids,
            "share": round(grids / with_rows, 4) if with_rows else None, "grids_all_header_rows": all_head}


def gold_rows(ei: object) -> dict[str, object]:
    """Gold evidence spans that no sentence/paragraph holds, and which of them a table-row unit holds."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval.units import document_units

    docs: dict[str, object] = {}
    spans = not_in_text = in_rows = 0
    detail = []
    for p in ei.prompts("validation"):  # type: ignore[attr-defined]
        d = docs.get(p["doc"]) or load_document(p["doc"])
        docs[p["doc"]] = d
        text_units = [u.text for u in document_units(d, ["sentence", "paragraph"])]  # type: ignore[arg-type]
        rows = document_units(d, "table-row")  # type: ignore[arg-type]
        for e in p["evidence"]:
            spans += 1
            if any(ei.overlaps(e["text"], u) for u in text_units):  # type: ignore[attr-defined]
                continue
            not_in_text += 1
            hit = next((r for r in rows if ei.overlaps(e["text"], r.text)), None)  # type: ignore[attr-defined]
            in_rows += hit is not None
            detail.append({"prompt_id": p["prompt_id"], "pmcid": p["pmcid"], "gold": e["text"][:160],
                           "row": hit.id if hit else None, "row_text": hit.text[:200] if hit else None})
    return {"gold_spans": spans, "not_in_sentences_or_paragraphs": not_in_text, "found_in_table_rows": in_rows,
            "share": round(in_rows / not_in_text, 4) if not_in_text else None, "spans": detail}


def hit_at_1(ei: object) -> dict[str, object]:
    """extract --batch with and without table rows, scored per prompt; paired bootstrap CI of the difference."""
    rows: dict[str, dict[str, bool]] = {}
    res: dict[str, object] = {}
    ev_by_units: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "in.jsonl"
        manifest.write_text(subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "inputs", "validation", "extract"],
                                           check=True, capture_output=True, text=True).stdout)
        ps = {p["prompt_id"]: p for p in ei.prompts("validation")}  # type: ignore[attr-defined]
        for units in ("sentences", "sentences,table-rows"):
            out = Path(tmp) / f"{units}.jsonl"
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "claimtrace", "extract", "--batch", str(manifest), "--offline",
                            "--units", units, "--out", str(out)], check=True, capture_output=True)
            secs = round(time.perf_counter() - t0, 1)
            scored = json.loads(subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "score", "validation",
                                                "extract", str(out)], check=True, capture_output=True, text=True).stdout)
            got = {}
            evidence: dict[str, str] = {}
            n_table = 0
            for line in out.read_text().splitlines():
                r = json.loads(line)
                ev = (((r.get("traces") or [{}])[0] or {}).get("evidence") or {})
                n_table += ev.get("scope") == "table"
                evidence[str(r["id"])] = f"{ev.get('row_id') or ev.get('scope')}: {ev.get('text', '')[:160]}"
                got[str(r["id"])] = any(ei.overlaps(e["text"], ev.get("text", "")) for e in ps[str(r["id"])]["evidence"])  # type: ignore[attr-defined]
            rows[units] = got
            res[units] = {"evidence_hit@1": scored["evidence_hit@1"], "items": scored["items"],
                          "evidence_is_table_row": n_table, "seconds": secs}
            ev_by_units[units] = evidence
    ids = sorted(rows["sentences"])
    a = [rows["sentences"][i] for i in ids]
    b = [rows["sentences,table-rows"][i] for i in ids]
    diff = (sum(b) - sum(a)) / len(ids)
    rng = random.Random(13)
    boots = []
    for _ in range(5000):
        idx = [rng.randrange(len(ids)) for _ in ids]
        boots.append(sum(b[i] - a[i] for i in idx) / len(ids))
    boots.sort()
    res["difference"] = {"n": len(ids), "hit@1_difference": round(diff, 4),
                         "ci95_paired_bootstrap": [round(boots[124], 4), round(boots[4874], 4)],
                         "gained": [i for i, x, y in zip(ids, a, b, strict=True) if y and not x],
                         "lost": [i for i, x, y in zip(ids, a, b, strict=True) if x and not y],
                         "changed": [{"id": i, "hit_before": rows["sentences"][i], "hit_after": rows["sentences,table-rows"][i],
                                      "before": ev_by_units["sentences"][i], "after": ev_by_units["sentences,table-rows"][i]}
                                     for i in ids if ev_by_units["sentences"][i] != ev_by_units["sentences,table-rows"][i]]}
    return res


def parse_cost(files: list[str], repeats: int = 5) -> dict[str, object]:
    """Median parse time per paper with table grids, and the share the grids take (build_table timed alone)."""
    from claimtrace.documents import builder as builder_mod
    from claimtrace.documents import load_document

    totals, grid_times = [], []
    orig = builder_mod.build_table

    def timed(*a: object, **k: object) -> object:
        t0 = time.perf_counter()
        out = orig(*a, **k)  # type: ignore[arg-type]
        acc[0] += time.perf_counter() - t0
        return out

    builder_mod.build_table = timed  # type: ignore[assignment]
    try:
        for f in files:
            per, per_grid = [], []
            for _ in range(repeats):
                acc = [0.0]
                t0 = time.perf_counter()
                load_document(f)
                per.append(time.perf_counter() - t0)
                per_grid.append(acc[0])
            totals.append(statistics.median(per))
            grid_times.append(statistics.median(per_grid))
    finally:
        builder_mod.build_table = orig
    return {"papers": len(files), "repeats": repeats,
            "median_parse_ms": round(1000 * statistics.median(totals), 2),
            "median_table_grid_ms": round(1000 * statistics.median(grid_times), 3),
            "max_table_grid_ms": round(1000 * max(grid_times), 3),
            "median_grid_share_of_parse": round(statistics.median(g / t for g, t in zip(grid_times, totals, strict=True)), 4)}


def split_of(pmcid: str) -> str:
    """``untouched`` or ``dev``: the fixed split of an EI article (module docstring)."""
    h = int(hashlib.sha256((SALT + pmcid).encode("utf-8")).hexdigest()[:8], 16)
    return "untouched" if h % 10 < 3 else "dev"


def wilson(k: int, n: int) -> dict[str, Any]:
    """Share k/n with its Wilson 95% interval."""
    from scipy.stats import binomtest

    if n == 0:
        return {"k": 0, "n": 0, "share": None, "ci95": None}
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return {"k": k, "n": n, "share": round(k / n, 4), "ci95": [round(ci.low, 4), round(ci.high, 4)]}


def why_missed(ei: Any, gold: str, doc: Any) -> str:
    """Why no one table-row unit holds a gold span, tested mechanically (the same test on both splits)."""
    if any(b.kind in ("figure", "caption") and ei.overlaps(gold, b.text) for b in doc.excluded):
        return "figure legend (a figure's caption, no table row)"
    for t in doc.tables:
        if any(ei.overlaps(gold, x) for x in [t.caption or "", *t.footnotes] if x.strip()):
            return "table caption or footnote"
    for t in doc.tables:
        rows = [r.text for r in t.rows if r.text.strip()]
        for k in range(2, 7):
            if any(ei.overlaps(gold, " ".join(rows[i : i + k])) for i in range(len(rows) - k + 1)):
                return "several rows (a row group or consecutive rows) in one gold span"
    if not doc.tables:
        return "no table read from the article"
    return "other"


def measure(ei: Any, split: str, show: bool = False) -> dict[str, Any]:
    """The table-row figure on one split, per EI split and together (module docstring)."""
    from claimtrace.documents import load_document
    from claimtrace.retrieval.units import document_units

    out: dict[str, Any] = {}
    tot: dict[str, int] = defaultdict(int)
    papers_all: set[str] = set()
    for ei_split in ("validation", "train"):
        docs: dict[str, Any] = {}
        c: dict[str, int] = defaultdict(int)
        spans = 0
        papers: set[str] = set()
        by_paper: dict[str, int] = defaultdict(int)
        why: dict[str, int] = defaultdict(int)
        for p in ei.prompts(ei_split):
            if split_of(p["pmcid"]) != split:
                continue
            d: tuple[Any, list[str], list[Any], list[Any], list[Any]] | None = docs.get(p["doc"])
            if d is None:
                doc = load_document(p["doc"])
                d = docs[p["doc"]] = (doc, [u.text for u in document_units(doc, ["sentence", "paragraph"])],
                                      document_units(doc, "table-row"), document_units(doc, "row-group"),
                                      document_units(doc, "figure-legend"))
            doc, text_units, rows, groups, legends = d
            for e in p["evidence"]:
                spans += 1
                if any(ei.overlaps(e["text"], u) for u in text_units):
                    continue
                papers.add(p["pmcid"])
                row = any(ei.overlaps(e["text"], r.text) for r in rows)
                table = row or any(ei.overlaps(e["text"], g.text) for g in groups)
                legend = not table and any(ei.overlaps(e["text"], f.text) for f in legends)
                c["n_all"] += 1
                c["k_row"] += row
                c["k_table"] += table
                c["k_any"] += table or legend
                if legend:  # a figure's caption: its own line, out of the table figure
                    c["legends"] += 1
                    continue
                c["n"] += 1
                c["k"] += table
                if not table:
                    by_paper[p["pmcid"]] += 1
                    why[why_missed(ei, e["text"], doc)] += 1
                    if show and split == "dev":
                        print(f"== {ei_split} {p['pmcid']} prompt {p['prompt_id']} ({len(doc.tables)} tables)\n"
                              f"{e['text'][:400]!r}", file=sys.stderr)
        out[ei_split] = {"gold_spans": spans, **wilson(c["k"], c["n"]), "papers": len(papers),
                         "misses_by_reason": dict(sorted(why.items())),
                         "figure_legends": {"found_in_one_figure_legend_unit": c["legends"]},
                         "issue_definition": wilson(c["k_row"], c["n_all"]),
                         "table_units_all_spans": wilson(c["k_table"], c["n_all"]),
                         "any_unit": wilson(c["k_any"], c["n_all"]),
                         "misses_by_paper": dict(sorted(by_paper.items()))}
        for key, v in c.items():
            tot[key] += v
        papers_all |= papers
    out["all"] = {**wilson(tot["k"], tot["n"]), "papers": len(papers_all),
                  "figure_legends": {"found_in_one_figure_legend_unit": tot["legends"]},
                  "issue_definition": wilson(tot["k_row"], tot["n_all"]),
                  "table_units_all_spans": wilson(tot["k_table"], tot["n_all"]),
                  "any_unit": wilson(tot["k_any"], tot["n_all"])}
    return out


def table_rows(args: argparse.Namespace) -> None:
    """``--rows``: measure both splits and write tables_ei_rows.json."""
    run = Run(data=[EI / "train" / "prompts.jsonl", EI / "validation" / "prompts.jsonl"])
    ei = shared_tool("ei_eval")
    result: dict[str, Any] = {
        "schema_version": "1",
        "what": "EI gold evidence that is a table row (held by no sentence or paragraph, nor only by a figure legend), "
                "found in one table unit (a table-row or row-group unit); figure legends on their own line",
        "split_rule": f'untouched iff int(sha256("{SALT}" + pmcid)[:8], 16) % 10 < 3',
        "dev": measure(ei, "dev", show=args.show_misses),
        "untouched": None if args.dev_only else measure(ei, "untouched"),
        "provenance": run.finish(),
    }
    print(json.dumps({k: {s: {x: y for x, y in v[s].items() if x != "misses_by_paper"} for s in v}
                      for k, v in result.items() if k in ("dev", "untouched") and v is not None}, indent=1))
    if not args.no_write:
        ROWS_OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    """Run all four measurements and write the result file (``--rows``: the table-row gold on both EI splits)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", action="store_true", help="the table-row gold on train and validation (module docstring)")
    ap.add_argument("--show-misses", action="store_true", help="--rows: print the development misses to stderr")
    ap.add_argument("--no-write", action="store_true", help="--rows: print only")
    ap.add_argument("--dev-only", action="store_true", help="--rows: score the development part only")
    args = ap.parse_args()
    if args.rows:
        table_rows(args)
        return
    ei_files = sorted(glob.glob(str(SHARED / "data/evidence-inference/validation/articles/*.nxml")))
    doc_files = sorted(glob.glob(str(SHARED / "data/documents/**/*.nxml"), recursive=True))
    tei_files = sorted(glob.glob(str(SHARED / "data/documents/psychsci/*.xml")))
    run = Run(data=[*ei_files, *doc_files, SHARED / "data/evidence-inference/validation/prompts.jsonl"])
    ei = shared_tool("ei_eval")
    result = {
        "schema_version": "1",
        "what": "tables on the shared JATS articles: grid coverage, table-row gold spans, EI evidence hit@1, parse cost",
        "coverage": {"ei_validation": coverage(ei_files), "documents": coverage(doc_files),
                     "psychsci_tei": coverage_tei(tei_files)},
        "gold_table_rows": gold_rows(ei),
        "extract_hit_at_1": hit_at_1(ei),
        "parse_cost": {"ei_validation_jats": parse_cost(ei_files), "psychsci_tei": parse_cost(tei_files, 3)},
        "provenance": run.finish(),
    }
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "provenance"}, indent=1)[:4000])


if __name__ == "__main__":
    main()
