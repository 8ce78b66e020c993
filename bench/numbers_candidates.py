"""Where the numbers are when no candidate gives them: error analysis of the numbers ranker's ceiling (issue 29).

Development items only (``bench/numbers_split.py``'s hash split; an untouched trial is never loaded): for every
item of both numbers gold sets whose reference gives main numbers (events for a binary outcome, means for a
continuous one) and none of :func:`claimtrace.numbers.ranker.candidates` gives them for both arms, the reference's
numbers are looked up in the document, by value, and the place is classified:

- ``table: arms as columns``: one table row holds both arms' numbers (in different columns);
- ``table: arms as rows``: one table column holds both (in different rows: arms as row groups, stacked tables);
- ``table: scattered``: both in one table, neither one row nor one column;
- ``prose: one sentence`` / ``prose: two sentences``: in running text;
- ``percentages only``: events nowhere, but both arms' percentages (events / n) are;
- ``not in the text``: in a figure, or derived by the annotator.

For the table layouts it also says which step failed: the arm columns not matched to the intervention and the
comparator (``arms not matched``), matched the wrong way or to other columns (``arms mismatched``), the row not
named by the outcome (``row not matched``), the cells not read (``cells not read``).

    python bench/numbers_candidates.py   # -> bench/results/numbers_candidates.json
    # the candidates before this analysis (main at bf149ec), with this script:
    git archive bf149ec src | tar -x -C /tmp/base && PYTHONPATH=/tmp/base/src python bench/numbers_candidates.py \
        --out bench/results/numbers_candidates_before.json --label "main bf149ec"
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from train_numbers_ranker import _ref

from provenance import REPO, Run

OUT = REPO / "bench" / "results" / "numbers_candidates.json"
_NUM = re.compile(r"(?<![\d.])\d+(?:[.·]\d+)?")


def _nums(text: str) -> set[float]:
    return {float(m.group(0).replace("·", ".")) for m in _NUM.finditer(text)}


def _has(text: str, v: float) -> bool:
    return any(abs(x - v) < 1e-9 for x in _nums(text))


def _percent_has(text: str, events: float, n: float | None) -> bool:
    """A percentage of events / n in the text, at 0, 1 or 2 decimals."""
    if not n:
        return False
    p = 100 * events / n
    return any(abs(x - round(p, d)) < 1e-9 for x in _nums(text) for d in (0, 1, 2))


def main_values(it: dict[str, Any]) -> dict[str, float] | None:
    """The reference's main number per arm (events or means), None when either is empty."""
    f = "events" if it["outcome_type"] == "binary" else "mean"
    vals: dict[str, float] = {}
    for a in ("intervention", "comparator"):
        v = _ref(it.get(f"{a}_{f}"))
        if v is None:
            return None
        vals[a] = v
    return vals


def locate(doc: Any, it: dict[str, Any], ico: Any) -> dict[str, Any]:
    """Where a reference's main numbers are in a document, and which step of the table generator missed them."""
    from claimtrace.numbers import extract as ex

    vals = main_values(it)
    assert vals is not None
    vi, vc = vals["intervention"], vals["comparator"]
    if vi == vc:
        return {"place": "same value in both arms", "step": None}
    for t in doc.tables:
        cells = [c for c in t.cells if c.row > t.header_rows]
        ci = [c for c in cells if _has(c.text, vi)]
        cc = [c for c in cells if _has(c.text, vc)]
        same_row = [(a, b) for a in ci for b in cc if a.row == b.row and a.col != b.col]
        same_col = [(a, b) for a in ci for b in cc if a.col == b.col and a.row != b.row]
        if not same_row and not same_col:
            continue
        if same_row:
            a, b = same_row[0]
            icols, ccols = ex._arm_columns(t, ico)
            row = next(r for r in t.rows if r.index + 1 == a.row)
            label = (t.cell(a.row, 1).text if t.cell(a.row, 1) else "") or ""
            sub = row.group or ""
            s = max(ico.outcome.score(ex.expand(f"{sub} {label}", ico.abbrevs)),
                    ico.outcome.score(ex.expand(label, ico.abbrevs)))
            heads = ex.column_paths(t)
            step = ("arms not matched" if not icols or not ccols else
                    "arms mismatched" if a.col not in icols or b.col not in ccols else
                    "row not matched" if s < ex.WIDE_MIN else "cells not read")
            return {"place": "table: arms as columns", "step": step, "table": t.id, "row_label": f"{sub} | {label}",
                    "outcome_score": round(s, 3), "head_i": " › ".join(heads.get(a.col, [])),
                    "head_c": " › ".join(heads.get(b.col, [])), "cols_found": [icols, ccols],
                    "header_rows": t.header_rows, "cell_i": a.text, "cell_c": b.text}
        a, b = same_col[0]
        li = t.cell(a.row, 1).text if t.cell(a.row, 1) else ""
        lc = t.cell(b.row, 1).text if t.cell(b.row, 1) else ""
        return {"place": "table: arms as rows", "step": None, "table": t.id, "label_i": li, "label_c": lc,
                "head": " › ".join(ex.column_paths(t).get(a.col, [])), "cell_i": a.text, "cell_c": b.text}
    sents = doc.sentences("all")
    for s in sents:
        if _has(s.text, vi) and _has(s.text, vc):
            return {"place": "prose: one sentence", "step": None, "text": s.text[:300]}
    if it["outcome_type"] == "binary":
        ni, nc = _ref(it.get("intervention_group_size")), _ref(it.get("comparator_group_size"))
        units = [s.text for s in sents] + [c.text for t in doc.tables for c in t.cells]
        if any(_percent_has(u, vi, ni) for u in units) and any(_percent_has(u, vc, nc) for u in units):
            return {"place": "percentages only", "step": None}
    hi = [s for s in sents if _has(s.text, vi)]
    hc = [s for s in sents if _has(s.text, vc)]
    for s in hi:
        if any(abs(s.start - x.start) < 600 and s.scope == x.scope and x.id != s.id for x in hc):
            return {"place": "prose: two sentences", "step": None, "text": s.text[:300]}
    return {"place": "not in the text", "step": None}


def analyse() -> dict[str, Any]:
    """Classify every development item whose main numbers no candidate gives."""
    from train_numbers_ranker import dev_items, label

    from claimtrace.numbers import ranker

    rows: list[dict[str, Any]] = []
    totals: Counter[str] = Counter()
    for name, it, doc, ico in dev_items():
        key = f"{name}/{it['outcome_type']}"
        totals[key] += 1
        if main_values(it) is None:
            continue
        cands = ranker.candidates(doc, ico)
        if any(label(c, it) for c in cands):
            continue
        where = locate(doc, it, ico)
        rows.append({"set": name, "type": it["outcome_type"], "id": it["id"], "pmcid": it["pmcid"],
                     "outcome": it["outcome"], "intervention": it["intervention"],
                     "comparator": it["comparator"], "gold_note": it.get("notes", ""),
                     "candidates": len(cands), **where})
        print(json.dumps(rows[-1])[:400], file=sys.stderr)
    summary: dict[str, Any] = {}
    for key in sorted(totals):
        sub = [r for r in rows if f"{r['set']}/{r['type']}" == key]
        summary[key] = {"items": totals[key], "missed": len(sub),
                        "by_place": dict(Counter(r["place"] for r in sub).most_common()),
                        "by_step": dict(Counter(f"{r['place']} / {r['step']}" for r in sub if r["step"]).most_common())}
    return {"summary": summary, "rows": rows}


def lines() -> list[str]:
    """The error-analysis section of docs/results/numbers.md, from the committed result file."""
    res = REPO / "bench" / "results"
    runs = [json.loads((res / n).read_text()) for n in ("numbers_candidates_before.json", "numbers_candidates.json")
            if (res / n).exists()]
    if not runs:
        return []
    out = ["", "### Where the numbers are when no candidate gives them (development items)", "",
           "`python bench/numbers_candidates.py` → `bench/results/numbers_candidates.json`: the development items "
           "whose reference gives main numbers (events or means) and no candidate of the ranker gives them for both "
           "arms, with the place the reference's numbers were found by value in the document and, for a table "
           "row, the step that missed them (`numbers_candidates_before.json`: the same on the candidates before "
           "this analysis; command in the script's docstring).", "",
           "| candidates | gold / type | items | missed | where (count) | table step that failed (count) |",
           "|---|---|---|---|---|---|"]
    for r in runs:
        for key, m in r["summary"].items():
            places = "; ".join(f"{k} {v}" for k, v in m["by_place"].items()) or "—"
            steps = "; ".join(f"{k.split(' / ')[1]} {v}" for k, v in m["by_step"].items()) or "—"
            out.append(f"| {r.get('extractor', 'this tree')} | {key} | {m['items']} | {m['missed']} | {places} | "
                       f"{steps} |")
    return out


def main() -> None:
    """Run the analysis and write the JSON result."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--label", default="this tree", help="which extractor's candidates (written in the file)")
    args = ap.parse_args()
    run = Run(data=[p for p in (REPO.parent / "shared" / "data" / "rct-numeric" / "dev.json",
                                REPO / "bench" / "data" / "numbers-ei" / "gold.json") if p.exists()])
    res = analyse()
    out = {"schema_version": "1", "what": __doc__.split("\n\n")[1].replace("\n", " "), "extractor": args.label,
           **res, "provenance": run.finish()}
    print(json.dumps(res["summary"], indent=1))
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
