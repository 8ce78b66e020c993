"""Train the Discussion-sentence finding scorer (``discussion_features``) and ship it as JSON weights.

Training data: the papers of the dev part of ``psychsci-dev.jsonl`` (the untouched part is never read) and of the
extra traces (``bench/data/traces-extra``) whose findings ``detect_findings`` takes from the (General) Discussion
(the abstract block is not the paper's abstract, or there is none). A pool sentence is positive when it states the
gold finding (the shared scorer's ``same_statement``). Paper-grouped 5-fold cross-validation gives the honest
figure: the finding hit (a top-3 pool sentence is the gold finding) per paper, for the learned scorer and for the
hand-set weights it replaces, on the dev part and the extra traces apart; the final model is fit on all of them.

    .venv/bin/python training/train_discussion_findings.py [--out src/claimtrace/extract/weights/discussion_findings.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from claimtrace.extract.findings import (  # noqa: E402
    DISCUSSION_WEIGHTS,
    NOT_RESTATED,
    RESTATED_RESULT,
    RESULT_REPORT,
    detect_findings,
    discussion_features,
    discussion_pool,
    score_sentences,
    strip_page_stamps,
)
from provenance import Run  # noqa: E402
from traces_detect_extra import EXTRA_LOADER, extra_gold  # noqa: E402
from traces_psychsci import DOCS, GOLD, scorer, split_of, wilson  # noqa: E402

TOP = 3  # the findings detect_findings keeps from a Discussion
FOLDS = 5
C = 0.5


def hand_score(t: str, p: float, i: int, n: int) -> float:
    """The hand-set weights the learned scorer replaces (model 0.5, restated 0.5, limitation -0.4, position 0.3,
    result report 0.3), for the before figure."""
    return 0.5 * p + 0.5 * bool(RESTATED_RESULT.search(t)) - 0.4 * bool(NOT_RESTATED.search(t)) + 0.3 * (1 - i / n) \
        + 0.3 * bool(RESULT_REPORT.search(t))


def papers() -> list[dict[str, Any]]:
    """One record per paper whose findings come from the Discussion: its part, pool features and labels."""
    from claimtrace.documents import load_document

    ev = scorer()
    gold = ev.load_gold(str(GOLD))
    parts = {"dev": [g for g in gold if split_of(g["paper"]) == "dev"], "extra": extra_gold({g["paper"] for g in gold})}
    out = []
    for part, gs in parts.items():
        for g in gs:
            doc = load_document(DOCS / g["paper"])
            cands = detect_findings(doc)
            chosen = [c for c in cands if c.chosen]
            if not chosen or chosen[0].source != "discussion":
                out.append({"part": part, "paper": g["paper"], "pool": False,
                            "hit": any(ev.same_statement(g["finding"], c.text) for c in chosen)})
                continue
            pool = discussion_pool(doc)
            texts = [strip_page_stamps(s.text) for s, _, _ in pool]
            probs = [p for p, _ in score_sentences(texts)]
            n = len(texts)
            feats = [discussion_features(t, probs[i], i, n, r, f) for i, (t, (_, r, f)) in enumerate(zip(texts, pool, strict=True))]
            labels = [int(ev.same_statement(g["finding"], t)) for t in texts]
            hand = [hand_score(t, probs[i], i, max(n, 1)) for i, t in enumerate(texts)]
            out.append({"part": part, "paper": g["paper"], "pool": True, "feats": feats, "labels": labels, "hand": hand})
    return out


def top_hit(scores: list[float], labels: list[int]) -> bool:
    """Whether one of the TOP best-scoring sentences is positive."""
    order = sorted(range(len(scores)), key=lambda j: -scores[j])[:TOP]
    return any(labels[j] for j in order)


def fit(recs: list[dict[str, Any]], names: list[str]) -> Any:
    """A scaled logistic regression on the pool sentences of some papers."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x = np.array([[f[k] for k in names] for r in recs for f in r["feats"]])
    y = np.array([y for r in recs for y in r["labels"]])
    sc = StandardScaler().fit(x)
    sc.scale_[sc.scale_ == 0] = 1.0
    lr = LogisticRegression(C=C, class_weight="balanced", max_iter=2000).fit(sc.transform(x), y)
    return sc, lr


def main() -> None:
    """Cross-validate, fit on everything, save the weights and the metrics."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DISCUSSION_WEIGHTS)
    ap.add_argument("--result", type=Path, default=REPO / "bench" / "results" / "discussion_findings_cv.json")
    args = ap.parse_args()
    import numpy as np
    from sklearn.model_selection import GroupKFold

    run = Run(data=[GOLD, DOCS, EXTRA_LOADER.parent / "psychsci-extra.jsonl"])
    recs = papers()
    pool = [r for r in recs if r["pool"] and r["feats"]]
    names = list(pool[0]["feats"][0])
    cv: dict[str, bool] = {}
    for tr, te in GroupKFold(n_splits=FOLDS).split(pool, groups=[r["paper"] for r in pool]):
        sc, lr = fit([pool[i] for i in tr], names)
        for i in te:
            r = pool[i]
            s = lr.decision_function(sc.transform(np.array([[f[k] for k in names] for f in r["feats"]])))
            cv[r["paper"]] = top_hit(list(s), r["labels"])
    result: dict[str, Any] = {"schema_version": "1", "what": "finding hit with --detect (detect_findings, any chosen "
                              "sentence); on papers read from the Discussion, the scorer cross-validated by paper "
                              f"({FOLDS} folds) against the hand-set weights", "top": TOP, "C": C,
                              "annotator": "LLM agent (Claude, 2026-12-01 dev; 2026-12-02 extra), not checked by a person"}
    for part in ("dev", "extra"):
        rs = [r for r in recs if r["part"] == part]
        for name, pick in (("hand", lambda r: top_hit(r["hand"], r["labels"])), ("learned_cv", lambda r: cv[r["paper"]])):
            k = sum((pick(r) if r["pool"] and r.get("feats") else r["hit"]) for r in rs)
            kd = sum(pick(r) for r in rs if r["pool"] and r.get("feats"))
            nd = sum(1 for r in rs if r["pool"] and r.get("feats"))
            result.setdefault(part, {})[name] = {"n": len(rs), "hits": k, "share": round(k / len(rs), 3),
                                                 "ci95": wilson(k, len(rs)), "discussion_n": nd, "discussion_hits": kd}
        print(part, result[part], file=sys.stderr)
    sc, lr = fit(pool, names)
    model = {"name": "discussion_findings", "schema_version": "1", "intercept": float(lr.intercept_[0]),
             "weights": {k: round(float(w), 5) for k, w in zip(names, lr.coef_[0], strict=True)},
             "mean": {k: round(float(m), 5) for k, m in zip(names, sc.mean_, strict=True)},
             "scale": {k: round(float(s), 5) for k, s in zip(names, sc.scale_, strict=True)},
             "metrics": {p: result[p] for p in ("dev", "extra")},
             "meta": {"trained_on": "dev part of psychsci-dev.jsonl and bench/data/traces-extra, papers read from the "
                      "Discussion", "papers": len(pool), "sentences": sum(len(r["labels"]) for r in pool),
                      "positives": sum(sum(r["labels"]) for r in pool), "C": C}}
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    result["provenance"] = run.finish()
    args.result.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}, {args.result}", file=sys.stderr)


if __name__ == "__main__":
    main()
