"""Agreement of two annotations of the numbers gold (issue 29): per field and all fields exact, with 95% CIs.

    python bench/numbers_agreement.py [ANSWERS]   # default /work/wt/numbers-second/answers.jsonl
                                                  # -> bench/results/numbers_agreement.json

First annotation: ``bench/data/numbers-ei/gold.json``; second: the answers file (blind, same brief). Fields are
compared as Yun et al.'s scorer compares output and reference (an empty field is "x"; numbers as numbers); the
outcome type is compared too. All fields exact: the outcome type and every field of the first annotator's type.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from claimtrace.numbers.scoring import BINARY_FIELDS, CONTINUOUS_FIELDS, reference_value, same
from numbers_rct import _ci
from provenance import REPO, Run

GOLD = REPO / "bench" / "data" / "numbers-ei" / "gold.json"
OUT = REPO / "bench" / "results" / "numbers_agreement.json"


def agreement(gold: list[dict], answers: list[dict]) -> dict:
    """Per-field and all-fields agreement over the items both annotated."""
    by = {int(a["id"]): a for a in answers}
    pairs = [(g, by[int(g["id"])]) for g in gold if int(g["id"]) in by]
    fields = ("outcome_type", *dict.fromkeys(BINARY_FIELDS + CONTINUOUS_FIELDS))
    per: dict[str, dict] = {}
    for f in fields:
        k = sum(same(reference_value(g.get(f)), reference_value(a.get(f))) for g, a in pairs)
        per[f] = {"agree": k, "n": len(pairs), "share": round(k / len(pairs), 4) if pairs else None,
                  "ci95": _ci(k, len(pairs))}
    def all_ok(g: dict, a: dict) -> bool:
        fs = BINARY_FIELDS if g["outcome_type"] == "binary" else CONTINUOUS_FIELDS
        return g["outcome_type"] == a.get("outcome_type") and all(
            same(reference_value(g.get(f)), reference_value(a.get(f))) for f in fs)
    k_all = sum(all_ok(g, a) for g, a in pairs)
    return {"n": len(pairs), "trials": len({g["pmcid"] for g, _ in pairs}), "per_field": per,
            "all_fields_exact": {"agree": k_all, "share": round(k_all / len(pairs), 4) if pairs else None,
                                 "ci95": _ci(k_all, len(pairs))},
            "disagreements": [{"id": g["id"], "fields": [f for f in fields if not same(reference_value(g.get(f)),
                                                                                    reference_value(a.get(f)))]}
                              for g, a in pairs if not all_ok(g, a)]}


def main() -> None:
    """Compare the two annotations and write the JSON result."""
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/work/wt/numbers-second/answers.jsonl")
    if not path.exists():
        sys.exit(f"error: {path} not found (the second annotation is not there yet)")
    answers = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                answers.append(json.loads(line))
            except json.JSONDecodeError:
                sys.exit(f"error: {path}:{i} is not JSON")
    run = Run(data=[GOLD, path])
    res = {"schema_version": "1", "first": "bench/data/numbers-ei/gold.json (Claude (LLM agent), 2026-12-01)",
           "second": str(path), **agreement(json.loads(GOLD.read_text()), answers)}
    res["provenance"] = run.finish()
    print(json.dumps({k: res[k] for k in ("n", "all_fields_exact")}, indent=1))
    OUT.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
