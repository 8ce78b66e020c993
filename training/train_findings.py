"""Train the abstract finding-sentence detector on ../shared/data/findings and ship it as JSON weights.

Fits on the train split, picks the decision threshold that maximises F1 on the validation split and
reports precision/recall/F1 on the held-out test split (written into the model's ``metrics`` and to
bench/results/findings_detector.json).

    .venv/bin/python training/train_findings.py [--data ../shared/data/findings]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from claimtrace.evaluate.metrics import binary_prf
from claimtrace.extract.findings import FINDINGS_WEIGHTS, finding_features
from claimtrace.extract.textclf import fit_linear_text_model


def prf(pred: list[int], gold: list[int]) -> dict[str, float | int]:
    """P/R/F1 of binary predictions, rounded, with the counts and n (the model card's form)."""
    return {**binary_prf(pred, gold).rounded(), "n": len(gold)}


REPO = Path(__file__).resolve().parents[1]


def load(path: Path) -> tuple[list[str], list[dict[str, float]], list[int], list[int]]:
    """Sentences, dense features, labels and abstract index of one split."""
    texts, dense, labels, group = [], [], [], []
    for a, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        n = len(row["sentences"])
        for i, (s, y) in enumerate(zip(row["sentences"], row["labels"], strict=True)):
            texts.append(s)
            dense.append(finding_features(s, {"index": i, "n": n}))
            labels.append(int(y))
            group.append(a)
    return texts, dense, labels, group


def main() -> None:
    """Train, tune, evaluate and save."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "findings")
    ap.add_argument("--out", type=Path, default=FINDINGS_WEIGHTS)
    args = ap.parse_args()
    tr = load(args.data / "train_labels.jsonl")
    va = load(args.data / "validation_labels.jsonl")
    te = load(args.data / "test_labels.jsonl")
    model = fit_linear_text_model("findings", tr[0], tr[1], tr[2], max_features=5000, c=2.0)
    pva = [model.score(t, d) for t, d in zip(va[0], va[1], strict=True)]
    best = max((prf([int(p >= t / 100) for p in pva], va[2])["f1"], t / 100) for t in range(20, 90))
    model.threshold = best[1]
    pte = [model.score(t, d) for t, d in zip(te[0], te[1], strict=True)]
    test = prf([int(p >= model.threshold) for p in pte], te[2])
    val = prf([int(p >= model.threshold) for p in pva], va[2])
    # baseline: the last sentence of each abstract is the finding
    last = [int(te[1][i]["is_last"] == 1.0) for i in range(len(te[0]))]
    model.metrics = {"validation": val, "test": test, "test_baseline_last_sentence": prf(last, te[2])}
    model.meta = {"data": "titipata/detecting-scientific-claim (shared/data/findings)",
                  "train_sentences": len(tr[0]), "threshold_tuned_on": "validation (max F1)",
                  "features": "sublinear TF-IDF word 1-2 grams (max 5000, min_df 2) + dense features; "
                              "LogisticRegression(C=2, class_weight=balanced)"}
    model.save(args.out)
    out = {"model": str(args.out.relative_to(REPO)), **model.metrics, "threshold": model.threshold}
    (REPO / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (REPO / "bench" / "results" / "findings_detector.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
