"""Train the embedded extractor's stage rankers (``extract/weights/trace_ranker.json``) on the DEVELOPMENT part of the
gold Psychological Science traces (``../shared/data/traces/psychsci-dev.jsonl``; the split of
``bench/traces_psychsci.py``: the untouched part is never read here) and on the extra traces of the other shared
psychsci papers (``bench/data/traces-extra/load.py``'s ``load_extra``; papers outside the 60 gold ones, so they
never overlap the untouched part).

    .venv/bin/python scripts/train_trace_ranker.py [--stages hypothesis] [--extra-loader bench/data/traces-extra/load.py]

Per paper and stage, the candidates are the sentences the extractor scores (its context mask), each with the
features of ``extract/trace_ranker.py``; the positives are the candidates that cover the same statement as a gold
string (the scorer's ``same_statement``; for evidence also a shared test statistic, its ``stat_keys``). The model is
a conditional logit (softmax over a paper's candidates, the log of the positives' total probability maximised) with
an L2 penalty towards the hand-set score (weight 1 on ``base``, 0 elsewhere). The penalty is chosen by grouped
cross-validation over papers (5 folds by a hash of the paper, repeated 4 times; top-1 hit of the held-out papers);
stage 2 is trained with the gold hypothesis in its query. Only the stages named by ``--stages`` are retrained; the
other stages' weights in the output file are kept as they are.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
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
EXTRA_LOADER = REPO / "bench" / "data" / "traces-extra" / "load.py"
SHARED = REPO.parent / "shared"
FOLDS, REPEATS = 5, 4


def training_gold(extra_loader: Path | None) -> list[dict[str, Any]]:
    """The dev part of the gold traces, then the extra traces (when their loader is there)."""
    ev = scorer()
    gold = [g for g in ev.load_gold(str(GOLD)) if split_of(g["paper"]) == "dev"]
    if extra_loader is None or not extra_loader.is_file():
        print(f"no extra traces ({extra_loader}): dev part only", file=sys.stderr)
        return gold
    spec = importlib.util.spec_from_file_location("traces_extra_load", extra_loader)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    seen = {g["paper"] for g in ev.load_gold(str(GOLD))}
    extra = [g for g in mod.load_extra(SHARED) if g["paper"] not in seen and g["finding"] and g["evidence"]]
    return gold + extra


def collect(gold: list[dict[str, Any]]) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]],
                                                 list[str]]:
    """Per training paper: (candidate features, positive labels) for stage 1 and stage 2."""
    from claimtrace.documents import load_document
    from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
    from claimtrace.extract.embedded import EmbeddedExtractor

    ev = scorer()
    hyp, evi, papers = [], [], []
    for g in gold:
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
    """Conditional-logit weights (mean log-likelihood over papers) with an L2 pull ``lam`` towards ``prior``."""
    used = [(x, y) for x, y in data if y.any() and len(y)]
    xs = np.concatenate([x for x, _ in used])
    ys = np.concatenate([y for _, y in used]).astype(np.float64)
    starts = np.r_[0, np.cumsum([len(y) for _, y in used])[:-1]]
    seg = np.repeat(np.arange(len(used)), [len(y) for _, y in used])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = xs @ w
        p = np.exp(s - np.maximum.reduceat(s, starts)[seg])
        z, zp = np.add.reduceat(p, starts), np.add.reduceat(p * ys, starts)
        total = lam * float(((w - prior) ** 2).sum()) - float(np.log(zp / z).sum()) / len(used)
        grad = 2 * lam * (w - prior) + xs.T @ (p / z[seg] - p * ys / zp[seg]) / len(used)
        return total, grad

    res = minimize(loss, prior.copy(), jac=True, method="L-BFGS-B")
    return np.asarray(res.x)


def top1(data: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray) -> float:
    """Share of papers whose top candidate is a positive."""
    hits = [bool(len(y) and y[int(np.argmax(x @ w))]) for x, y in data]
    return sum(hits) / len(hits)


def cross_validate(data: list[tuple[np.ndarray, np.ndarray]], papers: list[str], lam: float, prior: np.ndarray,
                   k: int = FOLDS, repeats: int = REPEATS) -> float:
    """Top-1 of held-out papers, grouped k-fold over papers (fold: a hash of the paper), averaged over repeats."""
    hits = 0
    for rep in range(repeats):
        fold = [int(hashlib.sha256(f"{rep}:{p}".encode()).hexdigest()[:8], 16) % k for p in papers]
        for f in range(k):
            w = fit([d for d, q in zip(data, fold, strict=True) if q != f], lam, prior)
            hits += sum(bool(len(y) and y[int(np.argmax(x @ w))]) for (x, y), q in zip(data, fold, strict=True) if q == f)
    return hits / (len(data) * repeats)


def main() -> None:
    """Collect the dev candidates, choose the penalty by cross-validation, fit, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "src" / "claimtrace" / "extract" / "weights" / "trace_ranker.json"))
    ap.add_argument("--cache", help="keep the collected candidates in this pickle (features unchanged between runs)")
    ap.add_argument("--stages", nargs="+", default=["hypothesis"], choices=["hypothesis"],
                    help="the stages to retrain (evidence: scripts/train_evidence_ranker.py)")
    ap.add_argument("--extra-loader", default=str(EXTRA_LOADER),
                    help="load.py of the extra traces (absent: the dev part only)")
    args = ap.parse_args()
    from claimtrace.extract.trace_ranker import HYP_FEATURES, RANKER_WEIGHTS

    out_path = Path(args.out)
    kept: dict[str, Any] = json.loads(out_path.read_text()) if out_path.is_file() else {}
    if out_path.resolve() == RANKER_WEIGHTS.resolve() and RANKER_WEIGHTS.exists():
        RANKER_WEIGHTS.unlink()  # features do not depend on the weights; start from the hand-set score
    gold = training_gold(Path(args.extra_loader) if args.extra_loader else None)
    if args.cache and Path(args.cache).is_file():
        with open(args.cache, "rb") as fh:
            hyp, evi, papers = pickle.load(fh)
    else:
        hyp, evi, papers = collect(gold)
        if args.cache:
            with open(args.cache, "wb") as fh:
                pickle.dump((hyp, evi, papers), fh)
    n_dev = sum(split_of(p) == "dev" for p in papers if p in {g["paper"] for g in scorer().load_gold(str(GOLD))})
    out: dict[str, Any] = {**kept, "schema_version": "1"}
    out[f"{args.stages[0]}_trained_on" if len(args.stages) == 1 else "trained_on"] = (
        f"{n_dev} papers of shared/data/traces/psychsci-dev.jsonl, dev part (bench/traces_psychsci.py split), "
        "LLM-agent gold (Claude, 2026-12-01)" + (f"; {len(papers) - n_dev} papers of bench/data/traces-extra "
                                                 "(LLM agent, Claude, 2026-12-02)" if len(papers) > n_dev else ""))
    for stage, data, names in (("hypothesis", hyp, HYP_FEATURES),):
        if stage not in args.stages:
            continue
        prior = np.array([1.0 if n == "base" else 0.0 for n in names])
        cv = {lam: cross_validate(data, papers, lam, prior) for lam in LAMBDAS}
        lam = max(LAMBDAS, key=lambda v: (cv[v], v))  # ties: the stronger pull to the hand-set score
        w = fit(data, lam, prior)
        out[stage] = {n: round(float(v), 4) for n, v in zip(names, w, strict=True)}
        out[f"{stage}_fit"] = {"lambda": lam, "cv_top1": {str(k): round(v, 3) for k, v in cv.items()},
                               "hand_set_top1": round(top1(data, prior), 3), "train_top1": round(top1(data, w), 3),
                               "papers": len(data), "cv": f"grouped {FOLDS}-fold over papers, {REPEATS} repeats",
                               "papers_with_a_positive_candidate": sum(bool(y.any()) for _, y in data)}
        print(stage, json.dumps(out[f"{stage}_fit"]), file=sys.stderr)
    out_path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"-> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
