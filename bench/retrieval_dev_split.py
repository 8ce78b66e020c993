"""The development split for choosing retrieval settings: EI **train** papers that neither shipped model trained on.

    nice -n 10 .venv/bin/python bench/retrieval_dev_split.py

Re-derives, with the training scripts' own code and seeds, (a) the 250 EI train papers whose examples trained the
shipped bi-encoder (`training/train_retriever.py --papers 250 --seed 13`) and (b) the papers of the cross-encoder
training groups that its recorded steps used (`training/train_cross_encoder.py`: the seeded batches, the first
`steps` of them, from `.cache/ce_groups.jsonl.gz`, rebuilt when absent); every other EI train paper with a
body-only prompt is development data. Writes bench/data/ei_train_dev_papers.json (ids only).
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

from provenance import SHARED, Run

REPO = Path(__file__).resolve().parents[1]
EI_TRAIN = SHARED / "data" / "evidence-inference" / "train"
GROUPS = REPO / ".cache" / "ce_groups.jsonl.gz"
OUT = REPO / "bench" / "data" / "ei_train_dev_papers.json"


def main() -> None:
    """Derive both models' training papers and write the rest of EI train."""
    sys.path[:0] = [str(REPO / "bench"), str(REPO / "training")]
    from train_cross_encoder import held_out_ids
    from train_retriever import heldout_docs

    from claimtrace.retrieval.cross_encoder import shipped_model_dir
    from claimtrace.retrieval.embeddings import read_retriever_manifest, shipped_retriever_dir
    from claimtrace.retrieval.training_data import ei_hypothesis_data, ei_prompts
    from claimtrace.training.cross_encoder import (
        CrossEncoderConfig,
        TrainingGroup,
        build_groups,
        training_batches,
    )

    run = Run(data=[EI_TRAIN / "prompts.jsonl"])
    # (a) the bi-encoder's papers (training/train_retriever.py, step 1)
    rman = read_retriever_manifest(shipped_retriever_dir())
    n_papers, seed = int(rman["training"]["papers"]), int(rman["training"]["seed"])
    held = {p.stem for p in heldout_docs()}
    hyp = [e for e in ei_hypothesis_data(EI_TRAIN) if Path(e.doc).stem not in held]
    docs = sorted({e.doc for e in hyp if e.task == "hypothesis"})
    random.Random(seed).shuffle(docs)
    bi = {Path(d).stem for d in docs[:n_papers]}
    # (b) the cross-encoder's papers (training/train_cross_encoder.py)
    cman = json.loads((shipped_model_dir() / "model.json").read_text())
    settings = cman["data"]["group_settings"]
    if GROUPS.is_file():
        with gzip.open(GROUPS, "rt", encoding="utf-8") as fh:
            head = json.loads(fh.readline())
            groups = [TrainingGroup.model_validate_json(x) for x in fh if x.strip()]
    else:
        groups, stats = build_groups(EI_TRAIN, exclude_pmcids=sorted(held_out_ids()), **settings)
        head = {"settings": settings, "stats": stats}
        GROUPS.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(GROUPS, "wt", encoding="utf-8") as fh:
            fh.write(json.dumps(head) + "\n")
            for g in groups:
                fh.write(g.model_dump_json() + "\n")
    if head["stats"] != cman["data"]["group_stats"]:
        sys.exit(f"rebuilt groups {head['stats']} differ from the recorded {cman['data']['group_stats']}")
    cfg_fields = {k: v for k, v in cman["config"].items() if k in CrossEncoderConfig.__dataclass_fields__}
    batches = training_batches(groups, CrossEncoderConfig(**cfg_fields))
    ce = {g.doc.removesuffix(".nxml") for b in batches[: int(cman["steps"])] for g in b}
    all_train = sorted({str(p["pmcid"]) for p in ei_prompts(EI_TRAIN)})
    dev = [p for p in all_train if p not in bi and p not in ce and p not in held]
    out = {"schema_version": "1",
           "what": "EI train papers (with a body-only prompt) that neither shipped retriever model trained on: the "
                   "development split for choosing retrieval settings",
           "train_papers_with_body_prompts": len(all_train), "bi_encoder_papers": len(bi),
           "cross_encoder_papers": len(ce), "held_out_ids_excluded": len(set(all_train) & held),
           "dev_papers": dev, "provenance": run.finish()}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k not in ("dev_papers", "provenance")} | {"dev": len(dev)}))


if __name__ == "__main__":
    main()
