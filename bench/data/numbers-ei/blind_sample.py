"""Write the blind double-annotation request: a seeded sample of gold items, prompts and where to read, no answers.

    python bench/data/numbers-ei/blind_sample.py OUT_DIR [K]   # OUT_DIR/request.jsonl and OUT_DIR/BRIEF_PATH

The sample: the K (default 30) gold items with the smallest ``sha256("claimtrace-i29-blind:" + id)``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED_ARTICLES = HERE.parents[2].parent / "shared" / "data" / "evidence-inference" / "train" / "articles"


def sample(gold: list[dict], k: int) -> list[dict]:
    """The blind sample's items (ids, prompts, where to read)."""
    chosen = sorted(gold, key=lambda g: hashlib.sha256(f"claimtrace-i29-blind:{g['id']}".encode()).hexdigest())[:k]
    return [{"id": g["id"], "pmcid": g["pmcid"], "intervention": g["intervention"], "comparator": g["comparator"],
             "outcome": g["outcome"], "article": str(SHARED_ARTICLES.resolve() / f"PMC{g['pmcid']}.nxml"),
             "answer_fields": ["outcome_type", "intervention_events", "intervention_group_size", "comparator_events",
                               "comparator_group_size", "intervention_mean", "intervention_standard_deviation",
                               "comparator_mean", "comparator_standard_deviation", "notes"]}
            for g in sorted(chosen, key=lambda g: g["id"])]


if __name__ == "__main__":
    out = Path(sys.argv[1])
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    gold = json.loads((HERE / "gold.json").read_text())
    out.mkdir(parents=True, exist_ok=True)
    (out / "request.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in sample(gold, k)))
    (out / "BRIEF_PATH").write_text(str(HERE / "BRIEF.md") + "\n")
    print(f"wrote {out / 'request.jsonl'} ({k} items)", file=sys.stderr)
