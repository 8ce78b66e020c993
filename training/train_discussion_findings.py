"""Train the Discussion-sentence finding scorer (``discussion_features``) and ship it as JSON weights.

Training data: the papers of the dev part of ``psychsci-dev.jsonl`` (the untouched part is never read) and of the
extra traces (``bench/data/traces-extra``) whose findings ``detect_findings`` takes from the (General) Discussion
(the abstract block is not the paper's abstract, or there is none). A pool sentence is positive when it states the
gold finding (the shared scorer's ``same_statement``).

The honest figure is paper-grouped cross-validation over all 80 papers (dev + extra): a paper whose findings come
from its abstract is scored by the abstract path (nothing in it is fit on these papers); a paper read from the
Discussion is scored by a scorer fit on the other folds' papers (5 folds, repeated with 5 shuffles of the papers;
the per-paper hit is the share of repeats that hit). It is given beside the hand-set weights the learned scorer
replaced and, with ``--before FILE``, paired against an earlier run of this script. The final model is fit on all
of them.

    .venv/bin/python training/train_discussion_findings.py [--out WEIGHTS] [--result RESULT] [--before OLD_RESULT]
    .venv/bin/python training/train_discussion_findings.py --paragraphs 3 --result R --before CV   # pool ablation
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from claimtrace.extract.findings import (  # noqa: E402
    DISCUSSION_KEEP_P,
    DISCUSSION_PARAGRAPHS,
    DISCUSSION_TOP,
    DISCUSSION_WEIGHTS,
    NOT_RESTATED,
    RESTATED_RESULT,
    RESULT_REPORT,
    abstract_problem,
    detect_findings,
    discussion_choice,
    discussion_features,
    discussion_non_result,
    discussion_pool,
    score_sentences,
    strip_page_stamps,
)
from provenance import Run  # noqa: E402
from traces_detect_extra import EXTRA_LOADER, extra_gold  # noqa: E402
from traces_psychsci import DOCS, GOLD, scorer, split_of, wilson  # noqa: E402

MAX_FINDINGS = 5  # detect_findings' default max_findings
FOLDS = 5
REPEATS = 5
C = 0.5


def hand_score(t: str, p: float, i: int, n: int) -> float:
    """The hand-set weights the learned scorer replaced (model 0.5, restated 0.5, limitation -0.4, position 0.3,
    result report 0.3), for the before figure."""
    return 0.5 * p + 0.5 * bool(RESTATED_RESULT.search(t)) - 0.4 * bool(NOT_RESTATED.search(t)) + 0.3 * (1 - i / n) \
        + 0.3 * bool(RESULT_REPORT.search(t))


def papers() -> list[dict[str, Any]]:
    """One record per paper (dev part and extra traces): its part, where detect_findings reads it from, and for a
    paper read from the Discussion its pool's features, labels and sentence ids."""
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
            rec: dict[str, Any] = {"part": part, "paper": g["paper"], "gold_source": g.get("finding_source"),
                                   "abstract_problem": abstract_problem(doc) if doc.sentences("abstract") else
                                   "no abstract", "source": chosen[0].source if chosen else None}
            if not chosen or chosen[0].source != "discussion":
                rec.update(pool=False, hit=any(ev.same_statement(g["finding"], c.text) for c in chosen))
                out.append(rec)
                continue
            pool = discussion_pool(doc)
            texts = [strip_page_stamps(s.text) for s, _, _ in pool]
            probs = [p for p, _ in score_sentences(texts)]
            n = len(texts)
            feats = [discussion_features(t, probs[i], i, n, r, f, doc.title)
                     for i, (t, (_, r, f)) in enumerate(zip(texts, pool, strict=True))]
            labels = [int(ev.same_statement(g["finding"], t)) for t in texts]
            hand = [hand_score(t, probs[i], i, max(n, 1)) for i, t in enumerate(texts)]
            excluded = [discussion_non_result(t) is not None for t in texts]
            if all(excluded):  # detect_findings then excludes none
                excluded = [False] * n
            rec.update(pool=bool(feats), feats=feats, labels=labels, hand=hand, ids=[s.id for s, _, _ in pool],
                       excluded=excluded,
                       ranks=[r for _, r, _ in pool], hit=any(ev.same_statement(g["finding"], c.text) for c in chosen))
            out.append(rec)
    return out


def top(scores: list[float], k: int = DISCUSSION_TOP) -> list[int]:
    """The indexes of the k best-scoring sentences."""
    return sorted(range(len(scores)), key=lambda j: -scores[j])[:k]


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


def cross_validate(pool: list[dict[str, Any]], names: list[str],
                   filtered: bool = True) -> dict[str, list[tuple[list[int], list[int]]]]:
    """For each pool paper, once per repeat (shuffled folds), the ranking of its sentences by a scorer fit without it
    (without the sentences ``discussion_non_result`` excludes, unless ``filtered`` is False) and the ranks
    ``discussion_choice`` keeps from it (what ``detect_findings`` would choose)."""
    import numpy as np
    from sklearn.model_selection import KFold

    picks: dict[str, list[tuple[list[int], list[int]]]] = {r["paper"]: [] for r in pool}
    for seed in range(REPEATS):
        for tr, te in KFold(n_splits=FOLDS, shuffle=True, random_state=seed).split(pool):
            sc, lr = fit([pool[i] for i in tr], names)
            for i in te:
                r = pool[i]
                s = lr.decision_function(sc.transform(np.array([[f[k] for k in names] for f in r["feats"]])))
                # the ranking among the sentences detect_findings may choose (discussion_non_result left out)
                ranking = [j for j in top(list(s), len(s)) if not (filtered and r["excluded"][j])]
                probs = [1.0 / (1.0 + math.exp(-max(min(float(s[j]), 40.0), -40.0))) for j in ranking]
                picks[r["paper"]].append((ranking, [ranking[k] for k in discussion_choice(probs, MAX_FINDINGS)]))
    return picks


def summary(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """Hits of one column over some rows (a share of repeats counts as its expected hits), with a Wilson interval
    on the rounded count."""
    k = round(sum(r[key] for r in rows), 2)
    n = len(rows)
    disc = [r for r in rows if r["pool"]]
    kd = round(sum(r[key] for r in disc), 2)
    return {"n": n, "hits": int(k) if k == int(k) else k, "share": round(k / n, 3) if n else None,
            "ci95": wilson(round(k), n), "discussion_n": len(disc), "discussion_hits": int(kd) if kd == int(kd) else kd}


def main() -> None:
    """Cross-validate, fit on everything, save the weights and the metrics."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DISCUSSION_WEIGHTS)
    ap.add_argument("--result", type=Path, default=REPO / "bench" / "results" / "discussion_findings_cv.json")
    ap.add_argument("--before", type=Path, help="an earlier result of this script: paired difference per paper")
    ap.add_argument("--paragraphs", type=int, help="an ablation: read this many Discussion paragraphs instead of "
                    "DISCUSSION_PARAGRAPHS (the weights are then not written, only --result)")
    ap.add_argument("--drop", default="", help="an ablation: features left out, comma-separated (the weights are then "
                    "not written, only --result)")
    ap.add_argument("--no-filter", action="store_true", help="an ablation: choose among all pool sentences, "
                    "discussion_non_result not applied (the weights are then not written, only --result)")
    args = ap.parse_args()
    import claimtrace.extract.findings as findings

    if args.paragraphs is not None:
        findings.DISCUSSION_PARAGRAPHS = args.paragraphs  # discussion_pool reads it at call time
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    run = Run(data=[GOLD, DOCS, EXTRA_LOADER.parent / "psychsci-extra.jsonl"])
    recs = papers()
    pool = [r for r in recs if r["pool"]]
    drop = {k for k in args.drop.split(",") if k}
    names = [k for k in pool[0]["feats"][0] if k not in drop]
    picks = cross_validate(pool, names, filtered=not args.no_filter)
    rows = []
    for r in recs:
        row = {k: r[k] for k in ("part", "paper", "gold_source", "abstract_problem", "source", "pool")}
        row["in_sample_hit"] = bool(r["hit"])
        if r["pool"]:
            hits = [any(r["labels"][j] for j in kept) for _, kept in picks[r["paper"]]]
            row["cv_hit_at"] = [round(sum(any(r["labels"][j] for j in p[:k]) for p, _ in picks[r["paper"]]) / REPEATS, 3)
                                for k in range(1, 6)]
            row["cv_hit"] = round(sum(hits) / len(hits), 3)
            row["cv_kept"] = round(sum(len(kept) for _, kept in picks[r["paper"]]) / REPEATS, 2)
            row["hand_hit"] = float(any(r["labels"][j] for j in top(r["hand"])))
            row["gold_in_pool"] = any(r["labels"])
            row["gold_pool_rank"] = next((r["ranks"][j] for j, y in enumerate(r["labels"]) if y), None)
            row["cv_chosen_ids"] = [r["ids"][j] for j in picks[r["paper"]][0][1]]
            row["gold_ids"] = [r["ids"][j] for j, y in enumerate(r["labels"]) if y]
        else:
            row["cv_hit"] = row["hand_hit"] = float(r["hit"])
        rows.append(row)
    result: dict[str, Any] = {
        "schema_version": "2", "what": "finding hit with --detect (detect_findings, any chosen sentence) on the dev part "
        "and the extra traces; papers read from the Discussion scored by the scorer cross-validated by paper "
        f"({FOLDS} folds x {REPEATS} shuffles; cv_hit is the share of repeats that hit), beside the hand-set weights",
        "top": DISCUSSION_TOP, "keep_p": DISCUSSION_KEEP_P, "max_findings": MAX_FINDINGS, "C": C, "folds": FOLDS,
        "repeats": REPEATS, "discussion_paragraphs": findings.DISCUSSION_PARAGRAPHS,
"filtered": not args.no_filter,
        # what discussion_non_result leaves out of the choice: gold finding sentences and others
        "excluded": {"gold": sum(x and y for r in pool for x, y in zip(r["excluded"], r["labels"], strict=True)),
                     "gold_n": sum(sum(r["labels"]) for r in pool),
                     "other": sum(x and not y for r in pool for x, y in zip(r["excluded"], r["labels"], strict=True)),
                     "other_n": sum(len(r["labels"]) - sum(r["labels"]) for r in pool)},
        "features": names, "annotator": "LLM agent (Claude, 2026-12-01 dev; 2026-12-02 extra), not checked by a person"}
    for part in ("dev", "extra", "all"):
        rs = [r for r in rows if part in ("all", r["part"])]
        result[part] = {"hand": summary(rs, "hand_hit"), "learned_cv": summary(rs, "cv_hit")}
        disc = [r for r in rs if r["pool"]]
        # hit within the k best Discussion sentences (cross-validated), k = 1..5: what a fixed cut would give, beside
        # the shipped choice (DISCUSSION_TOP, more above DISCUSSION_KEEP_P) and the findings (traces) it keeps
        result[part]["discussion_hit_at_k"] = {str(k + 1): round(sum(r["cv_hit_at"][k] for r in disc), 2)
                                               for k in range(5)}
        result[part]["discussion_kept"] = {"n": len(disc), "hits": round(sum(r["cv_hit"] for r in disc), 2),
                                           "mean_findings": round(sum(r["cv_kept"] for r in disc) / max(len(disc), 1), 2)}
        print(part, result[part], file=sys.stderr)
    if args.before and args.before.is_file():
        old = {r["paper"]: r["cv_hit"] for r in json.loads(args.before.read_text())["rows"]}
        both = [r for r in rows if r["paper"] in old]
        d = paired_bootstrap_diff([r["cv_hit"] for r in both], [old[r["paper"]] for r in both])
        result["vs_before"] = {"file": str(args.before.relative_to(REPO)) if args.before.is_relative_to(REPO)
                               else args.before.name, "n": len(both), "diff": d.model_dump()}
        print("vs before", result["vs_before"], file=sys.stderr)
    result["rows"] = rows
    sc, lr = fit(pool, names)
    model = {"name": "discussion_findings", "schema_version": "1", "intercept": float(lr.intercept_[0]),
             "weights": {k: round(float(w), 5) for k, w in zip(names, lr.coef_[0], strict=True)},
             "mean": {k: round(float(m), 5) for k, m in zip(names, sc.mean_, strict=True)},
             "scale": {k: round(float(s), 5) for k, s in zip(names, sc.scale_, strict=True)},
             "metrics": {p: result[p] for p in ("dev", "extra", "all")},
             "meta": {"trained_on": "dev part of psychsci-dev.jsonl and bench/data/traces-extra, papers read from the "
                      "Discussion", "papers": len(pool), "sentences": sum(len(r["labels"]) for r in pool),
                      "positives": sum(sum(r["labels"]) for r in pool), "C": C}}
    if (args.paragraphs is None or args.paragraphs == DISCUSSION_PARAGRAPHS) and not drop and not args.no_filter:
        args.out.write_text(json.dumps(model, indent=1) + "\n")
    result["provenance"] = run.finish()
    args.result.write_text(json.dumps(result, indent=1) + "\n")
    print(f"-> {args.out}, {args.result}", file=sys.stderr)


if __name__ == "__main__":
    main()
