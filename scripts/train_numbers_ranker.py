"""Train the numbers ranker (``src/claimtrace/numbers/weights/ranker.json``) on development trials only (issue 29).

Items: the development part (``bench/numbers_split.py``'s hash split; the untouched trials are never loaded) of
both numbers gold sets, Yun et al.'s rct-numeric dev.json and the Evidence-Inference training gold. A candidate is
positive when it gives the reference's main numbers for both arms (events for a binary outcome, with events from
a percentage and the arm's size as the dataset derives them; means for a continuous one). The features (forward
selection), the regularisation and the abstention threshold are chosen by grouped 5-fold cross-validation over trials (no trial in
two folds), maximising the share of items whose main numbers are right (an abstention is right where the
reference gives none, as Yun et al. score it); the model is then refitted on every development item.

    python scripts/train_numbers_ranker.py            # -> src/claimtrace/numbers/weights/ranker.json
    python scripts/train_numbers_ranker.py --cached   # reuse the candidate features of the last run (/tmp)

It also writes ``bench/results/numbers_ranker.json``: per gold set and outcome type, the development items'
share whose main numbers are right with the ranker (out of fold), with the hand-set score's choice, and the
ceiling the candidates allow (some candidate right, or the reference empty so that abstaining is right).
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import beta
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
from numbers_split import gold_sets, split_of  # noqa: E402
from provenance import Run  # noqa: E402

CACHE = Path("/tmp/claimtrace_numbers_ranker.pkl")
OUT = REPO / "src" / "claimtrace" / "numbers" / "weights" / "ranker.json"
RESULT = REPO / "bench" / "results" / "numbers_ranker.json"


def _exact(k: int, n: int) -> list[float]:
    """Clopper-Pearson 95% interval."""
    lo = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return [round(lo, 4), round(hi, 4)]


def _ref(v: Any) -> float | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < 1e-6


def label(c: Any, item: dict[str, Any]) -> bool:
    """Whether a candidate gives the reference's main numbers for both arms."""
    for arm in ("intervention", "comparator"):
        vals = c.values.get(arm, {})
        if item["outcome_type"] == "binary":
            want = _ref(item.get(f"{arm}_events"))
            got = vals["events"].value if "events" in vals else None
            if got is None and "_percent" in vals:
                n = vals["group_size"].value if "group_size" in vals else _ref(item.get(f"{arm}_group_size"))
                got = float(round(vals["_percent"].value * n / 100)) if n else None
        else:
            want = _ref(item.get(f"{arm}_mean"))
            got = vals["mean"].value if "mean" in vals else None
        if not _close(got, want):
            return False
    return True


def empty(item: dict[str, Any]) -> bool:
    """Whether the reference gives no main number for either arm (an abstention is right)."""
    f = "events" if item["outcome_type"] == "binary" else "mean"
    return all(_ref(item.get(f"{a}_{f}")) is None for a in ("intervention", "comparator"))


def dev_items() -> Iterator[tuple[str, dict[str, Any], Any, Any]]:
    """Every development item of both gold sets (an untouched trial is never loaded): (gold set, item, its
    document, its ICO terms)."""
    from claimtrace.documents import load_document
    from claimtrace.numbers.extract import Ico
    from claimtrace.numbers.forms import doc_abbreviations

    for name, (items, doc_of) in gold_sets().items():
        docs: dict[str, Any] = {}
        for it in items:
            if it.get("outcome_type") not in ("binary", "continuous") or split_of(it["pmcid"]) != "dev":
                continue
            path = str(doc_of(it))
            if path not in docs:
                docs[path] = load_document(Path(path))
            doc = docs[path]
            running = f"{doc.abstract_text}\n{doc.body_text}"
            yield name, it, doc, Ico.of(it["intervention"], it["comparator"], it["outcome"],
                                        doc_abbreviations(running)).with_labels(running)


def build() -> list[dict[str, Any]]:
    """Candidate features and labels of every development item."""
    from claimtrace.numbers import ranker

    out: list[dict[str, Any]] = []
    for name, it, doc, ico in dev_items():
        cands = ranker.candidates(doc, ico)
        feats = ranker.features(doc, ico, cands)
        out.append({"set": name, "id": it["id"], "trial": f"{name}:{it['pmcid']}", "type": it["outcome_type"],
                    "empty": empty(it), "feats": feats, "labels": [label(c, it) for c in cands]})
        print(f"{name} {it['id']}: {len(cands)} candidates, {sum(out[-1]['labels'])} right", file=sys.stderr)
    return out


def _matrix(items: list[dict[str, Any]], names: list[str]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    rows, ys, owner = [], [], []
    for k, it in enumerate(items):
        for f, y in zip(it["feats"], it["labels"], strict=True):
            rows.append([f.get(n, 0.0) for n in names])
            ys.append(int(y))
            owner.append(k)
    return np.array(rows, dtype=float).reshape(-1, len(names)), np.array(ys), owner


def _fit(x: np.ndarray, y: np.ndarray, c: float, owner: list[int]) -> tuple[LogisticRegression, np.ndarray, np.ndarray]:
    """Each item weighs the same (its candidates share a weight of 1), positives and negatives balanced."""
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd == 0] = 1.0
    per = np.bincount(owner)
    w = 1.0 / per[owner]
    pos = w[y == 1].sum()
    w[y == 1] *= (w[y == 0].sum() / pos) if pos else 1.0
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit((x - mu) / sd, y, sample_weight=w * len(w) / w.sum())
    return model, mu, sd


def _top(items: list[dict[str, Any]], probs: np.ndarray, owner: list[int]) -> list[tuple[float, bool]]:
    """Per item: the top candidate's probability and whether it is right (no candidate: probability 0)."""
    best: dict[int, tuple[float, bool]] = {}
    for p, k, (it_k, j) in zip(probs, owner, _positions(items), strict=True):
        if k not in best or p > best[k][0]:
            best[k] = (float(p), bool(items[it_k]["labels"][j]))
    return [best.get(k, (0.0, False)) for k in range(len(items))]


def _positions(items: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(k, j) for k, it in enumerate(items) for j in range(len(it["labels"]))]


def _accuracy(items: list[dict[str, Any]], tops: list[tuple[float, bool]], thr: float) -> float:
    right = [(ok if p >= thr else it["empty"]) for it, (p, ok) in zip(items, tops, strict=True)]
    return sum(right) / len(right)


THRESHOLDS = [round(x, 2) for x in np.arange(0.0, 0.96, 0.05)]


def cross_validate(items: list[dict[str, Any]], names: list[str], c: float, folds: int = 5) -> list[tuple[float, bool]]:
    """Out-of-fold top candidates (grouped by trial)."""
    groups = [it["trial"] for it in items]
    tops: list[tuple[float, bool]] = [(0.0, False)] * len(items)
    for train, test in GroupKFold(n_splits=folds).split(np.zeros(len(items)), groups=groups):
        tr = [items[k] for k in train]
        te = [items[k] for k in test]
        x, y, own = _matrix(tr, names)
        if y.sum() == 0:
            continue
        model, mu, sd = _fit(x, y, c, own)
        xt, _, owner = _matrix(te, names)
        probs = model.predict_proba((xt - mu) / sd)[:, 1] if len(xt) else np.zeros(0)
        for k, top in zip(test, _top(te, probs, owner), strict=True):
            tops[k] = top
    return tops


def _cv_best(items: list[dict[str, Any]], names: list[str], c: float) -> tuple[float, float, float]:
    """The best grouped-CV accuracy over thresholds, that threshold, and the accuracy with no abstention."""
    tops = cross_validate(items, names, c)
    accs = {thr: _accuracy(items, tops, thr) for thr in THRESHOLDS}
    thr = max(accs, key=lambda t: (accs[t], -abs(t - 0.5)))
    return accs[thr], thr, accs[0.0]


def _rule_accuracy(items: list[dict[str, Any]]) -> float:
    """The hand-set score's choice: its first candidate of the strict generators, else of the captions."""
    right = 0
    for it in items:
        pairs = [(f["rule_score"], lab) for f, lab in zip(it["feats"], it["labels"], strict=True)
                 if not f.get("origin_wide") and not f.get("origin_caption")]
        pairs = pairs or [(f["rule_score"], lab) for f, lab in zip(it["feats"], it["labels"], strict=True)
                          if f.get("origin_caption")]
        right += max(pairs)[1] if pairs else it["empty"]
    return right / len(items)


def main() -> None:
    """Choose settings by grouped CV, refit on every development item, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cached", action="store_true", help="reuse the candidate features of the last run")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--keep-features", action="store_true",
                    help="refit the features of the current weights file (no forward selection): the setting that "
                         "bench/numbers_cv.py measured")
    args = ap.parse_args()
    if args.cached and CACHE.exists():
        items = pickle.loads(CACHE.read_bytes())
    else:
        items = build()
        CACHE.write_bytes(pickle.dumps(items))
    all_names = sorted({n for it in items for f in it["feats"] for n in f})
    # forward selection of features (one at a time, while the grouped-CV accuracy rises by more than one item
    # in 300), at a middle regularisation; then the regularisation and the threshold for the chosen features
    names: list[str] = json.loads(OUT.read_text())["features"] if args.keep_features else []
    cur = -1.0
    steps: list[dict[str, Any]] = [{"kept": list(names)}] if names else []
    while not args.keep_features:
        tried = sorted(((_cv_best(items, [*names, n], 0.3)[0], n) for n in all_names if n not in names), reverse=True)
        if not tried or tried[0][0] <= cur + 0.003:
            break
        cur = tried[0][0]
        names.append(tried[0][1])
        steps.append({"add": tried[0][1], "cv_accuracy": round(cur, 4)})
        print(json.dumps(steps[-1]), file=sys.stderr)
    results = []
    for c in (0.01, 0.03, 0.1, 0.3, 1.0, 3.0):
        acc, thr, acc0 = _cv_best(items, names, c)
        results.append({"C": c, "threshold": thr, "cv_accuracy": round(acc, 4), "cv_no_abstention": round(acc0, 4)})
    best = max(results, key=lambda r: (r["cv_accuracy"], -abs(math.log10(r["C"]))))
    rule = {"cv_accuracy": round(_rule_accuracy(items), 4),
            "what": "the hand-set score's first candidate (the wide rows and captions only when nothing else), on "
                    "the same items (not cross-validated: those scores were set looking at development items)"}
    x, y, own = _matrix(items, names)
    model, mu, sd = _fit(x, y, best["C"], own)
    by_set = {s: sum(1 for it in items if it["set"] == s) for s in {it["set"] for it in items}}
    weights = {
        "schema_version": "1",
        "model": "logistic regression (scikit-learn LogisticRegression, L2, each item weighing the same, positives and negatives balanced) on standardised "
                 "features; run time: a dot product (claimtrace.numbers.ranker)",
        "trained_on": {"items": len(items), "candidates": len(y), "positives": int(y.sum()), "by_set": by_set,
                       "trials": len({it["trial"] for it in items}),
                       "split": "development part of bench/numbers_split.py's hash split only"},
        "selection": {"by": "grouped 5-fold CV over trials, share of items with main numbers right",
                      "forward_steps": steps, "chosen": best, "grid": results, "hand_set_rule": rule},
        "features": names,
        "mean": [round(float(v), 6) for v in mu],
        "scale": [round(float(v), 6) for v in sd],
        "coef": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "threshold": best["threshold"],
    }
    tops = cross_validate(items, names, best["C"])
    parts: dict[str, Any] = {}
    for key in sorted({(it["set"], it["type"]) for it in items}):
        idx = [k for k, it in enumerate(items) if (it["set"], it["type"]) == key]
        sub = [items[k] for k in idx]
        n = len(sub)
        ceiling = sum(1 for it in sub if any(it["labels"]) or it["empty"])
        ranked = sum(1 for k in idx if (tops[k][1] if tops[k][0] >= best["threshold"] else items[k]["empty"]))
        parts[f"{key[0]}/{key[1]}"] = {
            "n": n, "trials": len({it["trial"] for it in sub}),
            "main_right_ranker_cv": {"k": ranked, "share": round(ranked / n, 4), "ci95": _exact(ranked, n)},
            "main_right_hand_set": {"k": round(_rule_accuracy(sub) * n), "share": round(_rule_accuracy(sub), 4),
                                    "ci95": _exact(round(_rule_accuracy(sub) * n), n)},
            "ceiling_of_candidates": {"k": ceiling, "share": round(ceiling / n, 4), "ci95": _exact(ceiling, n)}}
    run = Run(data=[p for p in (REPO.parent / "shared" / "data" / "rct-numeric" / "dev.json",
                                REPO / "bench" / "data" / "numbers-ei" / "gold.json") if p.exists()])
    RESULT.write_text(json.dumps({
        "schema_version": "1",
        "what": "development items only (bench/numbers_split.py's hash split): the share whose main numbers (events "
                "or means, both arms) are right; an abstention is right where the reference gives none",
        "ranker": {"features": names, "C": best["C"], "threshold": best["threshold"]},
        "parts": parts, "provenance": run.finish()}, indent=1) + "\n", encoding="utf-8")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(best))


if __name__ == "__main__":
    main()
