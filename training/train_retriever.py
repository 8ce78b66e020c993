"""Build the shipped multi-task retriever (src/claimtrace/resources/retriever) in one command.

    make retriever-model      # = python training/train_retriever.py

Steps: training data from Evidence-Inference TRAIN only (evidence: ICO prompt -> body unit holding a gold
span; hypothesis: abstract finding -> the paper's aim sentence, a rule-built silver pair; evidence: finding +
aim -> body evidence sentence), a leakage check against every held-out paper (EI validation, which holds
the hypothesis gold sets, and the 96 EvidenceBench items; a leak stops the run), a seeded sample, hard-negative
mining with the tau filter, multi-task triplet training (torch), int8 ONNX export, and the agreement check
(cosine >= 0.99 between the torch and the ONNX vectors on held-out EI validation sentences).

Writes the model folder (model.onnx, heads.npz, tokenizer.json, manifest.json with sha256, seed, data hashes,
hyper-parameters and wall time) and bench/results/retrieval_train.json. Needs the [torch] extra and onnx.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))  # provenance.py
from provenance import Run, sha256_file

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
EI_TRAIN = SHARED / "evidence-inference" / "train"
EI_VAL = SHARED / "evidence-inference" / "validation"
EB = SHARED / "evidencebench"
OUT_MODEL = REPO / "src" / "claimtrace" / "resources" / "retriever"
RESULTS = REPO / "bench" / "results" / "retrieval_train.json"


def heldout_docs() -> list[Path]:
    """Every held-out paper: EI validation articles, the 96 EvidenceBench items' papers, and the papers of the
    hypothesis gold sets (bench/data/ei-hypotheses*.jsonl; the final test set's 30 are EI TRAIN papers)."""
    docs = set((EI_VAL / "articles").resolve().glob("*.nxml"))
    items = [json.loads(x) for x in (EB / "items.jsonl").read_text().splitlines() if x.strip()]
    docs |= {(EB / it["doc"]).resolve() for it in items}
    for gold in sorted((REPO / "bench" / "data").glob("ei-hypotheses*.jsonl")):
        docs |= {(gold.parent / json.loads(x)["doc"]).resolve() for x in gold.read_text().splitlines() if x.strip()}
    return sorted(docs)


def main() -> None:
    """Build data, check leakage, train, export, check agreement, write the manifest and the result."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/claimtrace-retriever-train")
    ap.add_argument("--out", default=str(OUT_MODEL))
    ap.add_argument("--units", default="sentence", help="unit kinds of the ICO evidence examples (paragraph mining "
                    "embeds every candidate's sentences: slow on 2 cores)")
    ap.add_argument("--papers", type=int, default=250, help="EI train papers sampled (all their examples are used)")
    ap.add_argument("--mine-top", type=int, default=10, help="BM25 candidates per query for hard negatives")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--eval-every", type=int, default=1000, help="steps between validation checks (each costs "
                    "minutes on a loaded 2-core machine; the start and the end are always checked)")
    ap.add_argument("--val-max", type=int, default=24, help="validation triplets (from held-back training papers)")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--max-seq-length", type=int, default=128)
    ap.add_argument("--max-minutes", type=float, default=22.0, help="stop training (mining included) after this")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--export-only", action="store_true", help="reuse the model trained in --work (its report)")
    ap.add_argument("--encoder", choices=("frozen", "finetune"), default="frozen",
                    help="frozen: train the task heads on the base encoder's cached vectors (minutes); finetune: the "
                         "encoder too (too slow on a shared, loaded 2-core machine)")
    ap.add_argument("--head-epochs", type=int, default=300)
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    say = logging.getLogger("retrieval_train").info

    from claimtrace.retrieval.training_data import (
        ei_hypothesis_data,
        ei_training_data,
        heldout_fingerprint,
        leakage,
        write_jsonl,
    )
    from claimtrace.training.retriever import (
        TrainConfig,
        export_agreement,
        export_onnx,
        train_heads,
        train_retriever,
    )

    t_all = time.time()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    prov = Run(data=[EI_TRAIN, EI_VAL, EB / "items.jsonl", REPO / "bench" / "data"])
    # 1. data (EI train only)
    evidence = list(ei_training_data(EI_TRAIN, units=tuple(a.units.split(","))))
    hyp = list(ei_hypothesis_data(EI_TRAIN))
    held = heldout_docs()
    held_ids = {p.stem for p in held}
    n_before = len(evidence) + len(hyp)
    evidence = [e for e in evidence if Path(e.doc).stem not in held_ids]  # the hypothesis test set's papers
    hyp = [e for e in hyp if Path(e.doc).stem not in held_ids]
    say(f"{n_before - len(evidence) - len(hyp)} examples from held-out papers left out")
    # one seeded sample of papers that have a hypothesis pair; all their examples of both tasks
    docs = sorted({e.doc for e in hyp if e.task == "hypothesis"})
    random.Random(a.seed).shuffle(docs)
    keep = set(docs[: a.papers])
    examples = [e for e in evidence + hyp if e.doc in keep]
    say(f"examples: {len(examples)} from {len(keep)} papers ({len(evidence)} evidence and {len(hyp)} finding "
        f"examples built from {len({e.doc for e in evidence + hyp})} papers)")
    # 2. leakage: no held-out paper id, paper or sentence in the training data
    ids, sents = heldout_fingerprint(held)
    leak = leakage(examples, ids, sents)
    say(f"leakage check against {len(ids)} held-out papers ({len(sents)} sentences): "
        f"{ {k: len(v) for k, v in leak.items()} }")
    if leak["ids"] or leak["documents"]:
        raise SystemExit(f"held-out papers in the training data: {leak}")
    if leak["texts"]:  # a sentence shared word for word with a held-out paper (boilerplate): drop the example
        bad = {t.split(":")[0] for t in leak["texts"]}
        examples = [e for e in examples if e.id not in bad]
        say(f"dropped {len(bad)} examples whose text is also in a held-out paper: {leak['texts']}")
    data_file = work / "train.jsonl"
    write_jsonl(examples, data_file)
    counts = {t: sum(e.task == t for e in examples) for t in ("evidence", "hypothesis")}
    # 3. train
    cfg = TrainConfig(epochs=a.epochs, batch_size=a.batch_size, lr=a.lr, max_seq_length=a.max_seq_length,
                      max_minutes=a.max_minutes, seed=a.seed, threads=a.threads, eval_every=a.eval_every,
                      patience=4, val_max=a.val_max, mine_top=a.mine_top)
    t0 = time.time()
    if a.export_only:
        report = json.loads((work / "model" / "claimtrace_retriever.json").read_text())["report"]
        train_s = float(report["seconds"])
    elif a.encoder == "frozen":
        cfg.head_lr = 5e-3
        cfg.val_max = 400
        report = train_heads(examples, work / "model", cfg, epochs=a.head_epochs, log=say)
        train_s = time.time() - t0
    else:
        report = train_retriever(examples, work / "model", cfg, log=say)
        train_s = time.time() - t0
    # 4. export + agreement on held-out texts (EI validation sentences)
    from claimtrace.documents import load_document

    rng = random.Random(a.seed)
    val_docs = sorted((EI_VAL / "articles").glob("*.nxml"))
    texts: list[str] = []
    for d in rng.sample(val_docs, 10):
        doc = load_document(d)
        texts += [s.text for s in doc.sentences("body")][:20] + [p.text for p in doc.paragraphs][:5]
    hp = {k: v for k, v in vars(cfg).items() if k != "base_model"}
    training = {"command": "make retriever-model  (python training/train_retriever.py " +
                " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(a).items() if k not in ("work", "out")) + ")",
                "seed": a.seed, "hyper_parameters": hp, "papers": len(keep), "examples": counts,
                "data": {"train_jsonl_sha256": sha256_file(data_file), **prov.block["data"], **prov.block["data_dirs"]},
                "leakage": {"heldout_papers": len(ids), "heldout_sentences": len(sents),
                            **{k: len(v) for k, v in leak.items()}},
                "train_seconds": round(train_s, 1), "export_only_rerun": a.export_only, "report": report}
    manifest = export_onnx(work / "model", a.out, name="claimtrace-retriever-ei", extra={"training": training})
    agree = export_agreement(work / "model", a.out, texts)
    say(f"agreement torch vs int8 ONNX on {len(texts)} held-out texts: {agree}")
    # with --export-only the training's own time (mining included) is added: the wall time of the whole build
    wall = time.time() - t_all + (train_s if a.export_only else 0.0)
    mpath = Path(a.out) / "manifest.json"
    m = json.loads(mpath.read_text())
    m["training"].update({"wall_seconds": round(wall, 1), "agreement": agree, "agreement_texts": len(texts),
                          "load_average_at_start": prov.block["machine"]["load_average_at_start"]})
    mpath.write_text(json.dumps(m, indent=1) + "\n")
    size = (Path(a.out) / "model.onnx").stat().st_size
    result = {"schema_version": "1", "what": "the shipped multi-task retriever: training, export and agreement",
              "examples": counts, "train_triplets": report["train_triplets"], "val_triplets": report["val_triplets"],
              "mining": report["mining"], "steps": report["steps"], "stopped": report["stopped"],
              "history": report["history"], "best_val_recall@1": report["best_val_recall@1"],
              "report_tasks": report.get("tasks"), "encoder": report.get("encoder", "fine-tuned"),
              "agreement": agree, "agreement_texts": len(texts), "model_bytes": size,
              "model_sha256": manifest["files"], "leakage": training["leakage"], "hyper_parameters": hp,
              "seconds": round(wall, 1), "train_seconds": round(train_s, 1), "provenance": prov.finish()}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    say(f"done in {wall:.0f}s: {a.out} ({size} bytes)")
    worst = min(v for k, v in agree.items() if k.endswith("min_cosine"))
    if worst < 0.99:
        raise SystemExit(f"the int8 ONNX export agrees with the torch model only to cosine {worst:.4f} (< 0.99)")


if __name__ == "__main__":
    main()
