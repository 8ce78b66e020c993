"""Train the hypothesis-sentence classifier on ../shared/data/hypotheses and ship it as JSON weights.

Held-out parts: the last 25% of each corpus file (contiguous, so sentences of one abstract stay
together) are held out; the first 75% train the model. The decision threshold maximises pooled F1 on
a validation slice (the last 15% of the training part). Precision/recall are reported per corpus and
pooled, with and without the fixed cue priors; PHAEDRA is all positive, so only its recall means
anything. The final model is refitted on the whole training part (held-out parts never used).

    .venv/bin/python training/train_hypotheses.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from claimtrace.evaluate.metrics import binary_prf
from claimtrace.extract import hypothesis_classifier as hc
from claimtrace.extract.textclf import fit_linear_text_model


def prf(pred: list[int], gold: list[int]) -> dict[str, float | int]:
    """P/R/F1 of binary predictions, rounded, with the counts and n (the model card's form)."""
    return {**binary_prf(pred, gold).rounded(), "n": len(gold)}


REPO = Path(__file__).resolve().parents[1]
CORPORA = ("sciarg", "mk_genia", "phaedra")


def split(rows: list[dict[str, str]], frac: float) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Contiguous split: the first (1 - frac) and the last frac of a list."""
    cut = int(len(rows) * (1 - frac))
    return rows[:cut], rows[cut:]


def xy(rows: list[dict[str, str]]) -> tuple[list[str], list[dict[str, float]], list[int]]:
    """Texts, features, labels."""
    texts = [r["text"] for r in rows]
    return texts, [hc.hypothesis_features(t) for t in texts], [int(r["class"] == "hypothesis") for r in rows]


def main() -> None:
    """Train, tune, evaluate and save."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "hypotheses")
    ap.add_argument("--out", type=Path, default=hc.HYPOTHESIS_WEIGHTS)
    args = ap.parse_args()
    train: list[dict[str, str]] = []
    tune: list[dict[str, str]] = []
    held: dict[str, list[dict[str, str]]] = {}
    for name in CORPORA:
        rows = json.loads((args.data / f"{name}.json").read_text(encoding="utf-8"))
        tr, held[name] = split(rows, 0.25)
        tr_fit, tr_tune = split(tr, 0.15)
        train.extend(tr_fit)
        tune.extend(tr_tune)
    # 1) fit on train minus tune slice, choose the threshold on the tune slice
    m = fit_linear_text_model("hypotheses", *xy(train), max_features=6000, c=2.0)
    hc.hypothesis_model.cache_clear()
    ttexts, _, tlab = xy(tune)

    def probs(model_texts: list[str], priors: bool) -> list[float]:
        return [hc.hypothesis_score(t, priors=priors) for t in model_texts]

    args.out.parent.mkdir(parents=True, exist_ok=True)
    m.save(args.out)
    hc.hypothesis_model.cache_clear()
    ptune = probs(ttexts, True)
    thr = max((prf([int(p >= t / 100) for p in ptune], tlab)["f1"], t / 100) for t in range(20, 96))[1]
    # 2) refit on the whole training part, keep the tuned threshold
    final = fit_linear_text_model("hypotheses", *xy(train + tune), max_features=6000, c=2.0)
    final.threshold = thr
    final.save(args.out)
    hc.hypothesis_model.cache_clear()
    metrics: dict[str, dict[str, object]] = {}
    pooled_pred: dict[bool, list[int]] = {True: [], False: []}
    pooled_gold: list[int] = []
    for name in CORPORA:
        texts, _, gold = xy(held[name])
        pooled_gold.extend(gold)
        metrics[name] = {}
        for priors in (True, False):
            pred = [int(p >= thr) for p in probs(texts, priors)]
            pooled_pred[priors].extend(pred)
            metrics[name]["with_priors" if priors else "model_only"] = prf(pred, gold)
    metrics["pooled"] = {("with_priors" if pr else "model_only"): prf(pooled_pred[pr], pooled_gold) for pr in (True, False)}
    final.metrics = {"held_out": metrics, "threshold": thr}
    final.meta = {"data": "kermitt2/hypothesis_detection (shared/data/hypotheses)",
                  "split": "last 25% of each corpus held out; threshold tuned on last 15% of the rest",
                  "train_sentences": len(train) + len(tune),
                  "priors": {"explicit_cue": hc.EXPLICIT_PRIOR, "aim_cue (AIM or AIM_WIDE)": hc.AIM_PRIOR, "hypothesis_label": hc.LABEL_PRIOR,
                             "test_statistic": hc.STAT_PRIOR}}
    final.save(args.out)
    model = args.out.resolve()
    out = {"model": str(model.relative_to(REPO)) if model.is_relative_to(REPO) else str(model), **final.metrics}
    (REPO / "bench" / "results").mkdir(parents=True, exist_ok=True)
    (REPO / "bench" / "results" / "hypothesis_classifier.json").write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
