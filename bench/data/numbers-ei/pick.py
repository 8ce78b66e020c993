"""The seeded selection of Evidence-Inference training trials for the numbers gold (issue 29).

Trials: the PMCIDs of ``../shared/data/evidence-inference/train/prompts.jsonl`` that are not in
rct-numeric's ``dev.json``, ordered by ``sha256("claimtrace-i29-gold:" + PMCID)``; the first trials of that
order are annotated, none skipped. Items of a trial: its prompts with distinct (intervention, comparator,
outcome), in prompt-id order, at most 5 per trial.

    python bench/data/numbers-ei/pick.py N        # the first N trials' items as JSON lines
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "data"
SEED = "claimtrace-i29-gold:"
PER_TRIAL = 5


def ordered_trials() -> list[str]:
    """EI training PMCIDs outside rct-numeric, in the seeded order."""
    dev = {f"PMC{it['pmcid']}" for it in json.loads((SHARED / "rct-numeric" / "dev.json").read_text())}
    prompts = [json.loads(x) for x in (SHARED / "evidence-inference" / "train" / "prompts.jsonl").open()]
    pmcids = sorted({p["pmcid"] for p in prompts} - dev)
    return sorted(pmcids, key=lambda p: hashlib.sha256((SEED + p).encode()).hexdigest())


def items(n_trials: int) -> list[dict[str, str]]:
    """The items of the first ``n_trials`` trials of the seeded order."""
    prompts = [json.loads(x) for x in (SHARED / "evidence-inference" / "train" / "prompts.jsonl").open()]
    out: list[dict[str, str]] = []
    for pmcid in ordered_trials()[:n_trials]:
        seen: set[tuple[str, str, str]] = set()
        for p in sorted((p for p in prompts if p["pmcid"] == pmcid), key=lambda p: int(p["prompt_id"])):
            key = (p["intervention"], p["comparator"], p["outcome"])
            if key in seen or len(seen) >= PER_TRIAL:
                continue
            seen.add(key)
            out.append({"prompt_id": p["prompt_id"], "pmcid": pmcid, "intervention": p["intervention"],
                        "comparator": p["comparator"], "outcome": p["outcome"]})
    return out


if __name__ == "__main__":
    for it in items(int(sys.argv[1]) if len(sys.argv) > 1 else 45):
        print(json.dumps(it))
