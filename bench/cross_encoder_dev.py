"""Choose between cross-encoder training recipes on EI **train** groups that no run trained on (never validation).

    nice -n 10 .venv/bin/python bench/cross_encoder_dev.py NAME=FOLDER [NAME=FOLDER ...] [--n 150]

The training batches come in a seeded order and each run stops at its time budget; batches from index 100 on
were used by none of the compared runs (checked against each run's recorded step count). For each of the first
`--n` such sentence groups: is the positive scored above its 7 BM25 hard negatives (hit@1 among 8), and its
reciprocal rank. Writes bench/results/cross_encoder_dev.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

from claimtrace.evaluate.uncertainty import paired_bootstrap_diff, proportion_ci
from claimtrace.retrieval.cross_encoder import (
    CrossEncoderConfig,
    OnnxCrossEncoder,
    TrainingGroup,
    training_batches,
)
from provenance import Run

REPO = Path(__file__).resolve().parents[1]
GROUPS = REPO / ".cache" / "ce_groups.jsonl.gz"
RESULT = REPO / "bench" / "results" / "cross_encoder_dev.json"
FIRST_UNUSED = 100


def main() -> None:
    """Score each model folder on the unused groups."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+", help="NAME=FOLDER")
    ap.add_argument("--n", type=int, default=150)
    a = ap.parse_args()
    with gzip.open(GROUPS, "rt", encoding="utf-8") as fh:
        head = json.loads(fh.readline())
        groups = [TrainingGroup.model_validate_json(x) for x in fh if x.strip()]
    run = Run(data=[GROUPS])
    batches = training_batches(groups, CrossEncoderConfig())
    dev = [g for b in batches[FIRST_UNUSED:] for g in b][: a.n]
    out: dict[str, dict] = {}
    for spec in a.models:
        name, _, folder = spec.partition("=")
        manifest = json.loads((Path(folder) / "model.json").read_text())
        if manifest["steps"] > FIRST_UNUSED:
            sys.exit(f"{name} trained {manifest['steps']} steps: it saw some of the dev groups")
        ce = OnnxCrossEncoder(folder)
        hits, rr = [], []
        for g in dev:
            s = ce.score(g.query, [g.positive, *g.negatives])
            rank = int((s[1:] >= s[0]).sum()) + 1
            hits.append(int(rank == 1))
            rr.append(1.0 / rank)
        out[name] = {"folder": folder, "steps": manifest["steps"], "config": manifest["config"],
                     "hit@1_of_8": proportion_ci(sum(hits), len(hits)).model_dump(), "mrr": float(np.mean(rr)),
                     "per_group_hit": hits}
        print(name, sum(hits) / len(hits), np.mean(rr))
    names = list(out)
    if len(names) == 2:
        out["difference"] = paired_bootstrap_diff(out[names[0]]["per_group_hit"], out[names[1]]["per_group_hit"]).model_dump()
    RESULT.write_text(json.dumps({"schema_version": "1", "what": "recipe choice on unused EI-train groups",
                                  "group_settings": head["settings"], "n": len(dev), "first_unused_batch": FIRST_UNUSED,
                                  "chance_hit@1": 1 / 8, "models": out, "provenance": run.finish()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
