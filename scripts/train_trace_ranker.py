"""Train the embedded extractor's stage rankers (``extract/weights/trace_ranker.json``) on the DEVELOPMENT part of the
gold Psychological Science traces (``../shared/data/traces/psychsci-dev.jsonl``; the split of
``bench/traces_psychsci.py``: the untouched part is never read here).

    .venv/bin/python scripts/train_trace_ranker.py [--out src/claimtrace/extract/weights/trace_ranker.json]

Per paper and stage, the candidates are the sentences the extractor scores (its context mask), each with the
features of ``extract/trace_ranker.py``; the positives are the candidates that cover the same statement as a gold
string (the scorer's ``same_statement``; for evidence also a shared test statistic, its ``stat_keys``). The model is
a conditional logit (softmax over a paper's candidates, the log of the positives' total probability maximised) with
an L2 penalty towards the hand-set score (weight 1 on ``base``, 0 elsewhere). The penalty is chosen by 5-fold
cross-validation over dev papers (top-1 hit); stage 2 is trained with the gold hypothesis in its query.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from traces_psychsci import DOCS, GOLD, scorer, split_of  # noqa: E402

LAMBDAS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
MIN_CHARS = 40


def collect() -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]], list[str]]:
    """Per dev paper: (candidate features, positive labels) for stage 1 and stage 2."""
    from claimtrace.documents import load_document
    from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
    from claimtrace.extract.embedded import EmbeddedExtractor

    ev = scorer()
    hyp, evi, papers = [], [], []
    for g in ev.load_gold(str(GOLD)):
        if split_of(g["paper"]) != "dev":
            continue
        doc = load_document(DOCS / g["paper"])
        ex = EmbeddedExtractor()
        ex.record_features = True
        cfg = get_preset(EMBEDDED_DEFAULT)
        ex.hypothesis(doc, g["finding"], cfg)
        query = g["finding"] + ("\n" + g["hypothesis"][0] if g["hypothesis"] else "")
        ex.evidence(doc, query, cfg)
        ix = ex.index(doc)
        texts = [s.text for s in ix.sents]
        gk = set().union(set(), *[ev.stat_keys(s) for s in g["statistics"]])
        x, mask = ex.last_features["hypothesis"]
        # a sentence under MIN_CHARS ("Results", "Pot Total?") matches any gold string by its few tokens
        y = np.array([len(t) >= MIN_CHARS and any(ev.same_statement(h, t) for h in g["hypothesis"]) for t in texts])
        hyp.append((x[mask], y[mask]))
        x, mask = ex.last_features["evidence"]
        y = np.array([len(t) >= MIN_CHARS and (any(ev.same_statement(e, t) for e in g["evidence"]) or bool(gk & ev.stat_keys(t)))
                      for t in texts])
        evi.append((x[mask], y[mask]))
        papers.append(g["paper"])
    return hyp, evi, papers


def fit(data: list[tuple[np.ndarray, np.ndarray]], lam: float, prior: np.ndarray) -> np.ndarray:
    """Conditional-logit weights with an L2 pull towards ``prior``."""
    used = [(x, y) for x, y in data if y.any() and len(y)]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = lam * float(((w - prior) ** 2).sum()), 2 * lam * (w - prior)
        for x, y in used:
            s = x @ w
            m = s.max()
            p = np.exp(s - m)
            z, zp = p.sum(), p[y].sum()
            total += -np.log(zp / z)
            grad += -(x[y].T @ p[y]) / zp + (x.T @ p) / z
        return total / len(used), grad / len(used)

    res = minimize(loss, prior.copy(), jac=True, method="L-BFGS-B")
    return np.asarray(res.x)


def top1(data: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray) -> float:
    """Share of papers whose top candidate is a positive."""
    hits = [bool(len(y) and y[int(np.argmax(x @ w))]) for x, y in data]
    return sum(hits) / len(hits)


def cross_validate(data: list[tuple[np.ndarray, np.ndarray]], lam: float, prior: np.ndarray, k: int = 5) -> float:
    """k-fold top-1 over papers (folds by position)."""
    hits = 0
    for f in range(k):
        train = [d for i, d in enumerate(data) if i % k != f]
        test = [d for i, d in enumerate(data) if i % k == f]
        w = fit(train, lam, prior)
        hits += sum(bool(len(y) and y[int(np.argmax(x @ w))]) for x, y in test)
    return hits / len(data)


def main() -> None:
    """Collect the dev candidates, choose the penalty by cross-validation, fit, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "src" / "claimtrace" / "extract" / "weights" / "trace_ranker.json"))
    ap.add_argument("--cache", help="keep the collected candidates in this pickle (features unchanged between runs)")
    args = ap.parse_args()
    from claimtrace.extract.trace_ranker import HYP_FEATURES, RANKER_WEIGHTS

    if Path(args.out).resolve() == RANKER_WEIGHTS.resolve() and RANKER_WEIGHTS.exists():
        RANKER_WEIGHTS.unlink()  # features do not depend on the weights; start from the hand-set score
    if args.cache and Path(args.cache).is_file():
        with open(args.cache, "rb") as fh:
            hyp, evi, papers = pickle.load(fh)
    else:
        hyp, evi, papers = collect()
        if args.cache:
            with open(args.cache, "wb") as fh:
                pickle.dump((hyp, evi, papers), fh)
    out: dict[str, Any] = {"schema_version": "1", "trained_on": "shared/data/traces/psychsci-dev.jsonl, dev part "
                           "(bench/traces_psychsci.py split), LLM-agent gold (Claude, 2026-12-01)", "papers": len(papers)}
    for stage, data, names in (("hypothesis", hyp, HYP_FEATURES),):  # evidence: scripts/train_evidence_ranker.py
        prior = np.array([1.0 if n == "base" else 0.0 for n in names])
        cv = {lam: cross_validate(data, lam, prior) for lam in LAMBDAS}
        lam = max(LAMBDAS, key=lambda v: (cv[v], v))  # ties: the stronger pull to the hand-set score
        w = fit(data, lam, prior)
        out[stage] = {n: round(float(v), 4) for n, v in zip(names, w, strict=True)}
        out[f"{stage}_fit"] = {"lambda": lam, "cv_top1": {str(k): round(v, 3) for k, v in cv.items()},
                               "hand_set_top1": round(top1(data, prior), 3), "train_top1": round(top1(data, w), 3),
                               "papers_with_a_positive_candidate": sum(bool(y.any()) for _, y in data)}
        print(stage, json.dumps(out[f"{stage}_fit"]), file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"-> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
