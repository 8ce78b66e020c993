"""Other rankers tried on the numbers candidates, by grouped cross-validation on development items (issue 29).

Development items only: the candidate features that ``scripts/train_numbers_ranker.py`` builds (its cache,
``/tmp/claimtrace_numbers_ranker.pkl``; built first when absent), from the development part of
``bench/numbers_split.py``'s hash split (no untouched trial is loaded). Each variant is scored as the trainer
scores the shipped ranker: grouped 5-fold CV over trials, the share of items whose main numbers (events or
means of both arms) are right, an abstention right where the reference gives none; the abstention threshold
is chosen inside the same CV as for the shipped ranker (the best over a grid, so each figure is a little
optimistic, the same for every variant). Variants:

- ``shipped features``: the logistic ranker on the forward-selected features of the shipped weights;
- ``+ <feature>``: the same with one more feature (kinds that fit or contradict the outcome, the label gap);
- ``every feature, C=<c>``: the logistic ranker on every feature (L2);
- ``conditional logit, every feature, λ=<l>``: a softmax over each item's candidates and an abstention option
  (its score a learned constant), L2-penalised, fitted by L-BFGS; right candidates (and the abstention where
  the reference is empty) are the targets;
- ``ties broken by kind fit``: the shipped features, ties in the top probability broken towards the candidate
  whose reading's kind fits the outcome's words.

    python bench/numbers_ranker_variants.py   # -> bench/results/numbers_ranker_variants.json
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from sklearn.model_selection import GroupKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_numbers_ranker as T

from provenance import REPO, Run

OUT = REPO / "bench" / "results" / "numbers_ranker_variants.json"


def _wilson(k: int, n: int) -> list[float]:
    from numbers_split import wilson

    return wilson(k, n)


def _arrays(items: list[dict[str, Any]], names: list[str]) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    return [(np.array([[f.get(n, 0.0) for n in names] for f in it["feats"]], dtype=float).reshape(-1, len(names)),
             np.array(it["labels"], dtype=bool), bool(it["empty"])) for it in items]


def _clogit_fit(data: list[tuple[np.ndarray, np.ndarray, bool]], lam: float) -> tuple[np.ndarray, Any, Any]:
    d = data[0][0].shape[1]
    allx = np.vstack([x for x, _, _ in data if len(x)])
    mu, sd = allx.mean(0), allx.std(0)
    sd[sd == 0] = 1.0
    rows = [((x - mu) / sd, y, e) for x, y, e in data if len(x) and (y.any() or e)]

    def loss(th: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = th[:d], th[d]
        total, grad = lam * float(w @ w), np.zeros(d + 1)
        grad[:d] = 2 * lam * w
        for x, y, e in rows:
            s = np.append(x @ w, b)
            p = np.exp(s - s.max())
            p /= p.sum()
            t = np.append(y, e)
            pt = p[t].sum()
            total -= float(np.log(pt + 1e-300)) / len(rows)
            diff = (np.where(t, p, 0) / pt - p) / len(rows)
            grad[:d] -= x.T @ diff[:-1]
            grad[d] -= diff[-1]
        return total, grad

    th = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B").x
    return th, mu, sd


def clogit_cv(items: list[dict[str, Any]], names: list[str], lam: float) -> int:
    """Items right out of fold with the conditional logit."""
    data = _arrays(items, names)
    right = 0
    for tr, te in GroupKFold(n_splits=5).split(np.zeros(len(items)), groups=[it["trial"] for it in items]):
        th, mu, sd = _clogit_fit([data[k] for k in tr], lam)
        for k in te:
            x, y, e = data[k]
            if not len(x):
                right += e
                continue
            s = ((x - mu) / sd) @ th[:-1]
            j = int(s.argmax())
            right += bool(y[j]) if s[j] >= th[-1] else e
    return right


def _kind_key(f: dict[str, float]) -> float:
    return (f.get("kind_continuous_fit", 0) + f.get("kind_binary_fit", 0) - f.get("kind_binary_misfit", 0)
            - f.get("kind_continuous_misfit", 0))


def tie_cv(items: list[dict[str, Any]], names: list[str], c: float, thr: float) -> int:
    """Items right out of fold with the shipped features, ties broken by the reading's kind fit."""
    right = 0
    for tr, te in GroupKFold(n_splits=5).split(np.zeros(len(items)), groups=[it["trial"] for it in items]):
        x, y, own = T._matrix([items[k] for k in tr], names)
        model, mu, sd = T._fit(x, y, c, own)
        for k in te:
            it = items[k]
            if not it["feats"]:
                right += it["empty"]
                continue
            xt = np.array([[f.get(n, 0.0) for n in names] for f in it["feats"]], dtype=float)
            p = model.predict_proba((xt - mu) / sd)[:, 1]
            j = max(range(len(p)), key=lambda i: (round(float(p[i]), 9), _kind_key(it["feats"][i])))
            right += bool(it["labels"][j]) if p[j] >= thr else it["empty"]
    return right


def main() -> None:
    """Score every variant and write the JSON result."""
    import warnings

    warnings.filterwarnings("ignore")
    items = pickle.loads(T.CACHE.read_bytes()) if T.CACHE.exists() else T.build()
    if not T.CACHE.exists():
        T.CACHE.write_bytes(pickle.dumps(items))
    shipped = json.loads(T.OUT.read_text())
    names, c = shipped["features"], shipped["selection"]["chosen"]["C"]
    every = sorted({n for it in items for f in it["feats"] for n in f})
    n = len(items)
    rows: list[dict[str, Any]] = []

    def add(what: str, k: int) -> None:
        rows.append({"variant": what, "k": k, "n": n, "share": round(k / n, 4), "ci95_wilson": _wilson(k, n)})
        print(json.dumps(rows[-1]), file=sys.stderr)

    acc, thr, _ = T._cv_best(items, names, c)
    add(f"shipped features ({', '.join(names)}), C={c}", round(acc * n))
    for extra in ("kind_binary_misfit", "kind_continuous_misfit", "kind_binary_fit", "kind_continuous_fit",
                  "label_gap"):
        if extra not in names:
            add(f"+ {extra}", round(T._cv_best(items, [*names, extra], c)[0] * n))
    for cc in (0.01, 0.1, 1.0):
        add(f"every feature ({len(every)}), C={cc}", round(T._cv_best(items, every, cc)[0] * n))
    for lam in (0.01, 0.1):
        add(f"conditional logit, every feature, lambda={lam}", clogit_cv(items, every, lam))
    add("ties broken by kind fit", tie_cv(items, names, c, thr))
    run = Run(data=[p for p in (REPO.parent / "shared" / "data" / "rct-numeric" / "dev.json",
                                REPO / "bench" / "data" / "numbers-ei" / "gold.json") if p.exists()])
    OUT.write_text(json.dumps({"schema_version": "1", "what": __doc__.split("\n\n")[1].replace("\n", " "),
                               "items": n, "trials": len({it["trial"] for it in items}), "variants": rows,
                               "provenance": run.finish()}, indent=1) + "\n", encoding="utf-8")


def lines() -> list[str]:
    """The ranker-variants section of docs/results/numbers.md, from the committed result file."""
    if not OUT.exists():
        return []
    r = json.loads(OUT.read_text())
    out = ["", "### Other rankers tried (development items, grouped CV)", "",
           "`python bench/numbers_ranker_variants.py` → `bench/results/numbers_ranker_variants.json`: the share of "
           f"the {r['items']} development items ({r['trials']} trials) whose main numbers are right out of fold "
           "(grouped 5-fold CV over trials, abstention right where the reference gives none), for the shipped "
           "features and the variants in the script's docstring.", "",
           "| ranker | right (k/n) | Wilson 95% |", "|---|---|---|"]
    for v in r["variants"]:
        out.append(f"| {v['variant']} | {v['share']:.3f} ({v['k']}/{v['n']}) | "
                   f"[{v['ci95_wilson'][0]:.3f}, {v['ci95_wilson'][1]:.3f}] |")
    return out


if __name__ == "__main__":
    main()
