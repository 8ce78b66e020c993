"""Expand the annotator's compact records (``annotations.jsonl``) into ``gold.json`` in dev.json's shape.

    python bench/data/numbers-ei/build.py

Compact keys: ``t`` outcome type; ``ie``/``in``/``ce``/``cn`` events and group size per arm; ``im``/``isd``/
``cm``/``csd`` mean and SD per arm; ``note``; ``fig`` (numbers only in a figure), ``tab`` (the numbers are
in a table), ``gt`` (the table is an image). A key left out is an empty field.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from pick import items as selected  # noqa: E402

ANNOTATOR = "Claude (LLM agent), 2026-12-01, not checked by a person"
KEYS = {"intervention_events": "ie", "intervention_group_size": "in", "comparator_events": "ce",
        "comparator_group_size": "cn", "intervention_mean": "im", "intervention_standard_deviation": "isd",
        "comparator_mean": "cm", "comparator_standard_deviation": "csd"}


def build(records: list[dict], n_trials: int = 200) -> list[dict]:
    """Gold items, in the selection's order, for the prompts annotated."""
    by_id = {int(r["id"]): r for r in records}
    out = []
    for it in selected(n_trials):
        r = by_id.get(int(it["prompt_id"]))
        if r is None:
            continue
        item = {"id": int(it["prompt_id"]), "evidence_inference_prompt_id": int(it["prompt_id"]),
                "pmcid": int(it["pmcid"].removeprefix("PMC")), "outcome": it["outcome"],
                "intervention": it["intervention"], "comparator": it["comparator"], "outcome_type": r["t"]}
        for field, k in KEYS.items():
            item[field] = r.get(k, "")
        complete = all(item[f] != "" for f in KEYS if (f.endswith(("events", "group_size")) if r["t"] == "binary"
                                                       else not f.endswith("events")))
        item.update({"notes": r.get("note", ""), "is_data_in_figure_graphics": "TRUE" if r.get("fig") else "FALSE",
                     "is_relevant_data_in_table": "TRUE" if r.get("tab") else "FALSE",
                     "is_table_in_graphic_format": "TRUE" if r.get("gt") else "FALSE",
                     "is_data_complete": "TRUE" if complete else "FALSE", "split": "CLAIMTRACE-EI-TRAIN",
                     "annotator": ANNOTATOR})
        out.append(item)
    return out


if __name__ == "__main__":
    recs = [json.loads(x) for x in (HERE / "annotations.jsonl").read_text().splitlines() if x.strip()]
    gold = build(recs)
    (HERE / "gold.json").write_text(json.dumps(gold, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(gold)} items, {len({g['pmcid'] for g in gold})} trials", file=sys.stderr)
