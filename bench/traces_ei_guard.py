"""Evidence Inference must not get worse: stage 1 hypothesis hit@1 on the EI hypothesis gold
(``bench/data/ei-hypotheses.jsonl``, 30 papers) and stage 2 evidence hit@1 on EI validation (164 body-only
prompts of ``../shared/tools/ei_eval.py``), offline, default settings, per item, so two runs pair.

    .venv/bin/python bench/traces_ei_guard.py --label NAME --out bench/results/traces_ei_guard_NAME.json
    .venv/bin/python bench/traces_ei_guard.py --compare A.json B.json --out bench/results/traces_ei_guard.json

Hypothesis hit@1: the first trace's hypothesis span contains a gold hypothesis sentence id (or lies inside the
gold sentences). Evidence hit@1: the first trace's evidence text covers the same statement as a body gold span
(``ei_eval.py``'s ``overlaps``). ``--compare``: paired bootstrap interval (2,000 resamples) of B - A and the exact
McNemar test, per measure.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from provenance import Run
from traces_psychsci import load_tool

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO.parent / "shared" / "tools" / "ei_eval.py"
HYP = REPO / "bench" / "data" / "ei-hypotheses.jsonl"


def _ei() -> Any:
    return load_tool(TOOL)


def hypothesis_items() -> dict[str, bool]:
    """Per EI hypothesis item: does the default offline stage 1 hit the gold sentence?"""
    from claimtrace.documents import load_document
    from claimtrace.extract.pipeline import extract_traces

    out: dict[str, bool] = {}
    for line in HYP.read_text().splitlines():
        if not line.strip():
            continue
        it = json.loads(line)
        doc = load_document((HYP.parent / it["doc"]).resolve())
        tr = extract_traces(doc, [it["finding"]])[0]
        got = set(tr.hypothesis.sentence_ids) if tr.hypothesis else set()
        gold = set(it.get("hypothesis_units") or [])
        out[it["id"]] = bool(got and gold and (gold <= got or got <= gold or bool(got & gold)))
    return out


def evidence_items(tmp: Path) -> dict[str, bool]:
    """Per EI validation prompt: does the first trace's evidence hit a body gold span?"""
    ei = _ei()
    man, res = tmp / "in.jsonl", tmp / "out.jsonl"
    with man.open("w") as fh:
        for p in ei.prompts("validation"):
            q = f"{p['intervention']} vs {p['comparator']}: {p['outcome']}"
            fh.write(json.dumps({"id": p["prompt_id"], "doc": p["doc"], "findings": [q]}) + "\n")
    subprocess.run(["claimtrace", "extract", "--batch", str(man), "--out", str(res), "--offline"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = {str(r["id"]): r for r in (json.loads(x) for x in res.read_text().splitlines() if x.strip())}
    out = {}
    for p in ei.prompts("validation"):
        tr = (rows.get(str(p["prompt_id"])) or {}).get("traces") or [{}]
        text = (tr[0].get("evidence") or {}).get("text") or ""
        out[str(p["prompt_id"])] = any(ei.overlaps(e["text"], text) for e in p["evidence"])
    return out


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Paired before/after figures of two guard runs."""
    from claimtrace.evaluate.uncertainty import mcnemar_exact, paired_bootstrap_diff

    out: dict[str, Any] = {"before": a["label"], "after": b["label"]}
    for key in ("hypothesis", "evidence"):
        ids = sorted(set(a[key]) & set(b[key]))
        x = [int(a[key][i]) for i in ids]
        y = [int(b[key][i]) for i in ids]
        out[key] = {"n": len(ids), "before_hit1": round(sum(x) / len(ids), 4), "after_hit1": round(sum(y) / len(ids), 4),
                    "diff_ci95": paired_bootstrap_diff(y, x).model_dump(), "mcnemar": mcnemar_exact([bool(v) for v in x], [bool(v) for v in y]).model_dump()}
    return out


def main() -> None:
    """Run one guard measurement, or compare two."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--label", default="this branch")
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    run = Run(data=[HYP])
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        result = {"schema_version": "1", **compare(a, b), "files": args.compare}
    else:
        with tempfile.TemporaryDirectory() as tmp:
            hyp = hypothesis_items()
            ev = evidence_items(Path(tmp))
        result = {"schema_version": "1", "label": args.label, "hypothesis": hyp, "evidence": ev,
                  "hypothesis_hit1": round(sum(hyp.values()) / len(hyp), 4),
                  "evidence_hit1": round(sum(ev.values()) / len(ev), 4)}
    result["provenance"] = run.finish()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("hypothesis", "evidence", "provenance")}), file=sys.stderr)


if __name__ == "__main__":
    main()
