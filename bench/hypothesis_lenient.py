"""Strict and lenient hypothesis hit@1 of a finished hypothesis experiment.

Strict: the predicted span contains the gold hypothesis or lies inside it (the runner's hit@1).
Lenient: the same against the gold or any of the annotator's acceptable alternatives (`alt_units` in
bench/data/ei-hypotheses.jsonl: other body sentences that also state the hypothesis or aim).
Writes bench/results/hypothesis_lenient.json.

    .venv/bin/python bench/hypothesis_lenient.py [FOLDER [GOLD.jsonl]]
    .venv/bin/python bench/hypothesis_lenient.py docs/results/ei-hypotheses-heldout bench/data/ei-hypotheses-heldout.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from claimtrace import load_document
from claimtrace.evaluate.datasets import read_dataset, same_statement
from provenance import Run

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "bench" / "data" / "ei-hypotheses.jsonl"


def main() -> None:
    """Print and write strict/lenient hit@1 per (configuration, extractor)."""
    folder = (Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "results" / "ei-hypotheses").resolve()
    gold = Path(sys.argv[2]) if len(sys.argv) > 2 else GOLD
    if not any((folder / "items").glob("*__*.jsonl")):  # an empty table would replace the folder's committed run
        print(f"error: no per-item rows in {folder / 'items'} (the experiment runner writes them)", file=sys.stderr)
        raise SystemExit(2)
    run = Run(data=[gold, folder / "items"])
    alts: dict[str, list[str]] = {}
    for item in read_dataset(gold):
        units = getattr(item, "alt_units", None) or []
        if units:
            doc = load_document(item.doc)
            text = {s.id: s.text for p in doc.paragraphs for s in p.sentences}
            alts[item.id] = [text[u] for u in units if u in text]
    table = []
    for f in sorted((folder / "items").glob("*__*.jsonl")):
        preset, ex = f.stem.split("__")
        rows = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        rows = [r for r in rows if not r.get("error") and "hypothesis_hit" in r]
        if not rows:
            continue
        strict = sum(bool(r["hypothesis_hit"]) for r in rows)
        lenient = sum(bool(r["hypothesis_hit"]) or any(same_statement(a, r.get("pred_hypothesis") or "")
                                                       for a in alts.get(r["id"], []))
                      for r in rows)
        table.append({"config": preset, "extractor": ex, "n": len(rows), "strict_hit_at_1": strict / len(rows),
                      "lenient_hit_at_1": lenient / len(rows)})
    name = str(folder.relative_to(ROOT)) if folder.is_relative_to(ROOT) else str(folder)
    out = {"folder": name, "papers_with_alternatives": len(alts), "table": table, "provenance": run.finish()}
    res = ROOT / "bench" / "results" / "hypothesis_lenient.json"
    allres = json.loads(res.read_text()) if res.exists() else {}
    allres = allres if "runs" in allres else {"runs": {}}
    allres["runs"][name] = out
    allres["provenance"] = out["provenance"]  # the latest run's; each run keeps its own
    res.write_text(json.dumps(allres, indent=1) + "\n")
    print("| config | extractor | n | strict hit@1 | lenient hit@1 |\n|---|---|---|---|---|")
    for t in table:
        print(f"| {t['config']} | {t['extractor']} | {t['n']} | {t['strict_hit_at_1']:.3f} | {t['lenient_hit_at_1']:.3f} |")


if __name__ == "__main__":
    main()
