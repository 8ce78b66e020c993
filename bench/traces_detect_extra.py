"""Finding detection alone (``detect_findings``, no ranking) on the dev part of the gold psychsci traces and on the
extra traces of the other shared psychsci papers (``bench/data/traces-extra``): a paper is a hit when one of its
chosen finding sentences covers the same statement as the gold finding (the scorer's ``same_statement``). The
untouched part is not read (its figure comes from ``bench/traces_psychsci.py --detect``).

    .venv/bin/python bench/traces_detect_extra.py [--out bench/results/traces_detect_extra.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from provenance import Run
from traces_psychsci import DOCS, GOLD, SHARED, scorer, split_of, wilson

REPO = Path(__file__).resolve().parents[1]
EXTRA_LOADER = REPO / "bench" / "data" / "traces-extra" / "load.py"


def extra_gold(seen: set[str]) -> list[dict[str, Any]]:
    """The extra traces (papers outside the 60 gold ones) that have a finding."""
    spec = importlib.util.spec_from_file_location("traces_extra_load", EXTRA_LOADER)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [g for g in mod.load_extra(SHARED) if g["paper"] not in seen and g["finding"]]


def main() -> None:
    """Score detection on the dev part and the extra traces; write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "traces_detect_extra.json"))
    args = ap.parse_args()
    if not GOLD.is_file() or not EXTRA_LOADER.is_file():
        print(f"error: {GOLD} or {EXTRA_LOADER} is absent", file=sys.stderr)
        raise SystemExit(2)
    from claimtrace.documents import load_document
    from claimtrace.extract.findings import detect_findings

    run = Run(data=[GOLD, DOCS])
    ev = scorer()
    gold = ev.load_gold(str(GOLD))
    parts = {"dev": [g for g in gold if split_of(g["paper"]) == "dev"], "extra": extra_gold({g["paper"] for g in gold})}
    result: dict[str, Any] = {"schema_version": "1", "what": "finding hit of detect_findings (any chosen sentence)",
                              "annotator": "LLM agent (Claude, 2026-12-01 dev; 2026-12-02 extra), not checked by a person"}
    for name, gs in parts.items():
        rows = []
        for g in gs:
            chosen = [c for c in detect_findings(load_document(DOCS / g["paper"])) if c.chosen]
            rows.append({"paper": g["paper"], "hit": any(ev.same_statement(g["finding"], c.text) for c in chosen),
                         "source": chosen[0].source if chosen else None})
        k = sum(r["hit"] for r in rows)
        result[name] = {"n": len(rows), "hits": k, "share": round(k / len(rows), 3), "ci95": wilson(k, len(rows)),
                        "rows": rows}
        print(name, k, len(rows), file=sys.stderr)
    result["provenance"] = run.finish()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
