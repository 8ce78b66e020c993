"""EI gold evidence that is a table row, found in one table-row unit, on the train and validation articles.

Data: ``../shared/data/evidence-inference/{train,validation}`` (prompts with gold evidence spans, JATS articles).

Measure (as ``bench/tables_ei.py``'s ``gold_table_rows``, there on validation only): among the body gold evidence
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

    PYTHONPATH=src .venv/bin/python bench/tables_ei_rows.py [--show-misses] [--dev-only]

``--dev-only``: the development part only (``untouched`` is written as null): what an engineer runs while
changing the table reading; the untouched figure comes from a run without it.

Writes bench/results/tables_ei_rows.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from provenance import Run  # noqa: E402
from tables_ei import _ei  # noqa: E402  (the shared scorer, loaded as tables_ei loads it)

SHARED = ROOT.parent / "shared"
EI = SHARED / "data" / "evidence-inference"
OUT = ROOT / "bench" / "results" / "tables_ei_rows.json"
SALT = "claimtrace-i29-eirows:"


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


def main() -> None:
    """Measure both splits and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--show-misses", action="store_true", help="print the development misses to stderr")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--dev-only", action="store_true", help="score the development part only (module docstring)")
    args = ap.parse_args()
    run = Run(data=[EI / "train" / "prompts.jsonl", EI / "validation" / "prompts.jsonl"])
    ei = _ei()
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
        OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
