"""Train the embedded extractor's evidence ranker (``extract/weights/evidence_ranker.json``) on the DEVELOPMENT part
of the gold Psychological Science traces (``../shared/data/traces/psychsci-dev.jsonl``; the split of
``bench/traces_psychsci.py``: the untouched part is never read here), plus the extra traces annotated on the other
shared psychsci papers (``bench/data/traces-extra/load.py``, when present).

    .venv/bin/python scripts/train_evidence_ranker.py [--cache FILE] [--extra DIR] [--out FILE]

Per trace, the candidates are the units stage 2 scores (its candidate mask: result sentences of the finding's study,
table rows only when the prose reports no test), run as ``claimtrace extract`` runs them (table rows on, the
predicted hypothesis in the query); the positives are the candidates that cover the same statement as a gold
evidence string or share a test statistic with the gold (the scorer's ``same_statement`` and ``stat_keys``). The
cache keeps the features' inputs, not the features, so a change of ``evidence_ranker.evidence_matrix`` needs no
re-run of the extractor. The model is a conditional logit (softmax over a trace's candidates, the log of the
positives' total probability maximised) with an L2 penalty towards the hand-set score (weight 1 on ``base``, 0
elsewhere), fitted on features scaled to unit standard deviation (``fit_scaled``: the penalty then pulls every feature
alike; the weights are stored for the raw features). The penalty is chosen by grouped 5-fold cross-validation over
papers under ``REPEATS`` fold assignments (the evidence span, extended as the extractor extends it, is an evidence hit
by the scorer's definitions; a paper's traces stay in one fold). The result file also holds the previous fit (raw
features, lambda 0.03) under the same folds and the paired difference. Variants of this trainer (the query, paragraph
features, a two-level ranker, the labels) are compared under the same folds by ``scripts/evidence_ranker_experiments.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

sys.path.insert(0, str(REPO / "scripts"))

from train_trace_ranker import fit, training_gold  # noqa: E402  (shared with the hypothesis stage)

from traces_psychsci import DOCS, GOLD, scorer, wilson  # noqa: E402

LAMBDAS = (0.01, 0.03, 0.05, 0.1, 0.3, 1.0, 3.0, 10.0)
#: cross-validation repeats (fold assignments by a salted hash of the paper; repeat 0 is the original ``cv:`` salt)
REPEATS = 4
MIN_CHARS = 40
EXTRA = REPO / "bench" / "data" / "traces-extra"


def training_traces(extra_dir: Path | None) -> list[dict[str, Any]]:
    """Dev-part gold traces and the extra traces, tagged by origin (``train_trace_ranker.training_gold``)."""
    gold_papers = {g["paper"] for g in scorer().load_gold(str(GOLD))}
    return [dict(g, origin="gold" if g["paper"] in gold_papers else "extra")
            for g in training_gold(extra_dir / "load.py" if extra_dir is not None else None)]


def _key(g: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps([g["paper"], g["finding"], g["evidence"]]).encode()).hexdigest()[:16]


def collect_one(g: dict[str, Any]) -> dict[str, Any]:
    """The stage-2 inputs and positives of one trace, run as ``claimtrace extract --offline`` runs it."""
    from claimtrace.documents import load_document
    from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
    from claimtrace.extract.embedded import EmbeddedExtractor

    ev = scorer()
    doc = load_document(DOCS / g["paper"])
    ex = EmbeddedExtractor(table_rows=True)
    ex.record_features = True
    cfg = get_preset(EMBEDDED_DEFAULT)
    h = ex.hypothesis(doc, g["finding"], cfg).span
    ex.evidence(doc, g["finding"] if h is None else f"{g['finding']}\n{h.text}", cfg)
    ix = ex.index(doc)
    texts = [s.text for s in ix.sents]
    gk = set().union(set(), *[ev.stat_keys(s) for s in g.get("statistics") or []])
    y = np.array([len(t) >= MIN_CHARS and (any(ev.same_statement(e, t) for e in g["evidence"]) or bool(gk & ev.stat_keys(t)))
                  for t in texts])
    return {"paper": g["paper"], "origin": g["origin"], "texts": texts, "kind": list(ix.kind),
            "section": list(ix.section), "study": list(ix.study), "pid": list(ix.pid), "is_table": ix.is_table.copy(),
            "engine": ix.engine.copy(), "studies": list(ix.studies), "y": y, "gold_evidence": list(g["evidence"]),
            "gold_statistics": list(g.get("statistics") or []), "social": ix.social, **ex.last_evidence_inputs}


def collect(traces: list[dict[str, Any]], cache: Path | None) -> list[dict[str, Any]]:
    """Every trace's inputs, from the cache where it holds them (keyed by paper, finding and evidence)."""
    store: dict[str, dict[str, Any]] = {}
    if cache and cache.is_file():
        with cache.open("rb") as fh:
            store = pickle.load(fh)
    out = []
    for i, g in enumerate(traces):
        k = _key(g)
        if k not in store:
            print(f"[{i + 1}/{len(traces)}] {g['paper']}", file=sys.stderr)
            store[k] = collect_one(g)
            if cache:
                with cache.open("wb") as fh:
                    pickle.dump(store, fh)
        out.append(recandidate(store[k]))
    return out


def recandidate(r: dict[str, Any]) -> dict[str, Any]:
    """A collected trace with its candidate mask recomputed by today's rules (``embedded.evidence_candidates`` and
    ``evidence_ranker.word_results``): a change of the candidate rules needs no re-run of the extractor."""
    from claimtrace.extract.embedded import MIN_EVIDENCE_STRENGTH, evidence_candidates
    from claimtrace.extract.evidence_ranker import evidence_study, word_results

    word = word_results(r["texts"], r["pid"], r["kind"], r["is_table"], r["engine"], r["stat"],
                        MIN_EVIDENCE_STRENGTH) if r["social"] else None
    cand, _ = evidence_candidates(r["allowed"], r["stat"], r["is_table"], r["engine"], r["study"], r["kind"],
                                  evidence_study(r["finding"], r["studies"]), r["social"], word=word)
    return {**r, "cand": cand}


def all_features(r: dict[str, Any]) -> np.ndarray:
    """The feature matrix of every unit of one collected trace."""
    from claimtrace.extract.evidence_ranker import evidence_matrix, evidence_study

    parts = {"base": r["base"], "sim": r["sim"], "stat": r["stat"], "prior": r["prior"], "engine": r["engine"]}
    x = evidence_matrix(r["texts"], parts, r["kind"], r["study"], r["pid"], r["is_table"],
                        evidence_study(r["finding"], r["studies"]), r["studies"], r["finding"], sections=r["section"],
                        hypothesis=r.get("hypothesis", ""), only=r["cand"])
    return np.asarray(x)


def features(r: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(candidate features, positive labels) of one collected trace."""
    m = r["cand"]
    return all_features(r)[m], r["y"][m]


def span_hit(r: dict[str, Any], x: np.ndarray, w: np.ndarray, ev: Any) -> bool:
    """Would the trace's evidence span (the best candidate, extended as the extractor extends it) be a hit?"""
    from claimtrace.extract.embedded import evidence_span

    cand = r["cand"]
    if not cand.any():
        return False
    best = int(np.argmax(np.where(cand, x @ w, -np.inf)))
    lo, hi = (best, best) if r["is_table"][best] else evidence_span(
        r["pid"], r["is_table"], cand, r["allowed"], r["stat"], r["relevance"], r["engine"], best, 3)
    text = " ".join(r["texts"][lo:hi + 1])
    gk = set().union(set(), *[ev.stat_keys(s) for s in r["gold_statistics"]])
    return any(ev.same_statement(e, text) for e in r["gold_evidence"]) or bool(gk & ev.stat_keys(text))


def fit_scaled(data: list[tuple[np.ndarray, np.ndarray]], lam: float, prior: np.ndarray) -> np.ndarray:
    """``train_trace_ranker.fit`` on features scaled to unit standard deviation over the training candidates, the
    weights mapped back to the raw features (the shipped ranker computes ``features @ weights`` as before). The L2
    pull then treats every feature alike, whatever its range (a 0/1 cue, a share, a score of several units)."""
    sd = np.concatenate([x for x, _ in data]).std(axis=0)
    sd[sd == 0] = 1.0
    return np.asarray(fit([(x / sd, y) for x, y in data], lam, prior * sd)) / sd


def hits(data: list[tuple[np.ndarray, np.ndarray]], w: np.ndarray) -> list[bool]:
    """Per trace: is the top candidate a positive?"""
    return [bool(len(y) and y[int(np.argmax(x @ w))]) for x, y in data]


def fold_of(paper: str, k: int, repeat: int = 0) -> int:
    """A paper's cross-validation fold (by a hash: a paper's traces stay together; one salt per repeat)."""
    salt = "cv:" if repeat == 0 else f"{repeat}:"
    return int(hashlib.sha256((salt + paper).encode()).hexdigest()[:8], 16) % k


def cross_validate(data: list[tuple[np.ndarray, np.ndarray]], papers: list[str], lam: float, prior: np.ndarray,
                   judge: Callable[[int, np.ndarray], bool], k: int = 5, repeat: int = 0,
                   fitter: Callable[..., np.ndarray] | None = None) -> list[bool]:
    """Grouped k-fold: per trace, ``judge(trace index, weights fitted without its fold)`` (``fitter``: default
    ``fit_scaled``)."""
    fitter = fitter or fit_scaled
    out = [False] * len(data)
    for f in range(k):
        w = fitter([d for d, p in zip(data, papers, strict=True) if fold_of(p, k, repeat) != f], lam, prior)
        for i, p in enumerate(papers):
            if fold_of(p, k, repeat) == f:
                out[i] = judge(i, w)
    return out


def repeated_cv(data: list[tuple[np.ndarray, np.ndarray]], papers: list[str], lam: float, prior: np.ndarray,
                judge: Callable[[int, np.ndarray], bool], repeats: int = REPEATS,
                fitter: Callable[..., np.ndarray] | None = None) -> list[list[bool]]:
    """``cross_validate`` under ``repeats`` fold assignments (one list of per-trace judgements per repeat)."""
    return [cross_validate(data, papers, lam, prior, judge, repeat=r, fitter=fitter) for r in range(repeats)]


def _where(r: dict[str, Any], i: int) -> dict[str, Any]:
    """Where a unit of a collected trace sits, and what it reports (no article text: the result files are public)."""
    from claimtrace.extract.evidence_ranker import analysis_kind

    return {"paragraph": r["pid"][i], "study": r["study"][i], "section_kind": r["kind"][i],
            "test_kind": analysis_kind(r["texts"][i], bool(r["is_table"][i]), bool(r["engine"][i] >= 2))}


def miss_reason(r: dict[str, Any], best: int | None) -> dict[str, Any]:
    """One held-out miss: what was picked, where the gold is (a positive candidate: in the pick's paragraph, else the
    nearest with a statistic; else the first gold unit), and one mechanical reason (same paragraph? same study? which kind of test won?)."""
    from claimtrace.extract.evidence_ranker import evidence_study
    from claimtrace.extract.trace_ranker import same_study

    ref = evidence_study(r["finding"], r["studies"])
    pos = np.flatnonzero(r["cand"] & r["y"])
    out: dict[str, Any] = {"paper": r["paper"], "origin": r["origin"], "finding_study": ref,
                           "picked": None if best is None else _where(r, best)}
    if best is None:
        return {**out, "gold": None, "location": "no candidate", "reason": "no candidate: the context reports no result"}
    if not len(pos):
        ys = np.flatnonzero(r["y"])
        if not len(ys):
            return {**out, "gold": None, "location": "gold not located",
                    "reason": "the gold evidence matches no unit of the Document (not a candidate)"}
        g = int(ys[0])
        gw = _where(r, g)
        if not r["allowed"][g]:
            why = "outside the context"
        elif ref is not None and not same_study(r["study"][g], ref):
            why = f"in study {r['study'][g]}'s Results, not the finding's study ({ref})"
        elif r["kind"][g] != "results":
            why = f"in a {r['kind'][g]} section, outside the Results"
        else:
            why = "reports no statistic the candidate rules accept"
        return {**out, "gold": gw, "location": "gold not a candidate", "reason": f"the gold is not a candidate: {why}"}
    if r["y"][best]:
        return {**out, "gold": _where(r, best), "location": "loose label",
                "reason": "the top candidate matches the gold only loosely; its extended span is not a hit"}
    # the gold unit to compare with: one in the pick's paragraph, else the nearest that reports a statistic, else the
    # nearest
    same = [j for j in pos if r["pid"][j] == r["pid"][best]]
    tested = [j for j in pos if r["stat"][j] >= 0.3]
    pool = np.asarray(same or tested or list(pos))
    g = int(pool[np.argmin(np.abs(pool - best))])
    gw = _where(r, g)
    if r["pid"][g] == r["pid"][best]:
        loc = "same paragraph"
    elif r["study"][g] == r["study"][best]:  # a paper without studies: one Results
        loc = ("same study" if r["study"][g] is not None else "same Results") + ", other paragraph" + (
            " (later)" if best > g else " (earlier)")
    else:
        loc = f"other study (picked {r['study'][best]}, gold {r['study'][g]})"
    reason = f"{out['picked']['test_kind']} chosen over the gold's {gw['test_kind']}, {loc}"
    return {**out, "gold": gw, "location": loc.split(" (")[0], "reason": reason}


def oof_misses(rows: list[dict[str, Any]], full: list[np.ndarray], data: list[tuple[np.ndarray, np.ndarray]],
               papers: list[str], lam: float, prior: np.ndarray, ev: Any, hits_over: list[int]) -> dict[str, Any]:
    """The held-out misses of the first fold assignment, one reason each, and their counts by reason."""
    picks: dict[int, int | None] = {}

    def judge(i: int, w: np.ndarray) -> bool:
        cand = rows[i]["cand"]
        picks[i] = int(np.argmax(np.where(cand, full[i] @ w, -np.inf))) if cand.any() else None
        return span_hit(rows[i], full[i], w, ev)

    h = cross_validate(data, papers, lam, prior, judge)
    misses = [{**miss_reason(rows[i], picks[i]), "hits_over_repeats": hits_over[i]}
              for i in range(len(rows)) if not h[i]]
    by_loc: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for m in misses:
        by_loc[m["location"]] = by_loc.get(m["location"], 0) + 1
        if m["picked"] is not None and m["location"] not in ("gold not a candidate", "loose label", "gold not located"):
            by_kind[m["picked"]["test_kind"]] = by_kind.get(m["picked"]["test_kind"], 0) + 1
    return {"n": len(rows), "misses": len(misses), "miss_share_ci95": wilson(len(misses), len(rows)),
            "by_location": by_loc, "picked_test_kind": by_kind, "rows": misses}


#: the fit this trainer shipped before (unscaled features, the penalty it chose), the reference of the paired comparison
PREVIOUS_LAMBDA = 0.03
PREVIOUS = {"fit": "train_trace_ranker.fit on raw features", "lambda": PREVIOUS_LAMBDA}


def previous_method(data: list[tuple[np.ndarray, np.ndarray]], papers: list[str], prior: np.ndarray,
                    judge: Callable[[int, np.ndarray], bool], now: list[list[bool]]) -> dict[str, Any]:
    """The previous fit under the same fold assignments, and the paired difference (now - previous) over traces
    (each trace's hit share over the repeats; bootstrap over traces, a paper per trace)."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    before = repeated_cv(data, papers, PREVIOUS_LAMBDA, prior, judge, fitter=fit)
    a = [float(np.mean([h[i] for h in now])) for i in range(len(data))]
    b = [float(np.mean([h[i] for h in before])) for i in range(len(data))]
    return {**PREVIOUS, "hits_per_repeat": [sum(h) for h in before], "n": len(data),
            "span_hit_repeated": round(float(np.mean(b)), 3), "now_span_hit_repeated": round(float(np.mean(a)), 3),
            "diff_now_minus_previous_ci95": paired_bootstrap_diff(a, b).model_dump()}


#: features added in session 4 (issue 25's error analysis): the result file compares the ranker without them
ADDED = ("first_test_in_study",)


def without_features(rows: list[dict[str, Any]], full: list[np.ndarray], papers: list[str], drop: tuple[str, ...],
                     ev: Any, now: list[list[bool]]) -> dict[str, Any]:
    """The same trainer without the ``drop`` features (its penalty chosen the same way) under the same fold
    assignments, and the paired difference (now - without) of each trace's hit share over the repeats."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff
    from claimtrace.extract.evidence_ranker import EV_FEATURES

    keep = [j for j, n in enumerate(EV_FEATURES) if n not in drop]
    sub = [x[:, keep] for x in full]
    data = [(x[r["cand"]], r["y"][r["cand"]]) for x, r in zip(sub, rows, strict=True)]
    prior = np.array([1.0 if EV_FEATURES[j] == "base" else 0.0 for j in keep])
    runs = {lam: repeated_cv(data, papers, lam, prior, lambda i, w: span_hit(rows[i], sub[i], w, ev)) for lam in LAMBDAS}
    lam = max(LAMBDAS, key=lambda v: (float(np.mean([sum(h) for h in runs[v]])), v))
    a = [float(np.mean([h[i] for h in now])) for i in range(len(rows))]
    b = [float(np.mean([h[i] for h in runs[lam]])) for i in range(len(rows))]
    return {"dropped": list(drop), "lambda": lam, "hits_per_repeat": [sum(h) for h in runs[lam]], "n": len(rows),
            "span_hit_repeated": round(float(np.mean(b)), 3), "now_span_hit_repeated": round(float(np.mean(a)), 3),
            "diff_now_minus_without_ci95": paired_bootstrap_diff(a, b).model_dump()}


def main() -> None:
    """Collect the training traces, choose the penalty by grouped cross-validation, fit, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "src" / "claimtrace" / "extract" / "weights" / "evidence_ranker.json"))
    ap.add_argument("--cache", help="keep the collected inputs in this pickle (resumable)")
    ap.add_argument("--cv-out", default=str(REPO / "bench" / "results" / "evidence_ranker_cv.json"),
                    help="the cross-validation figures as a result file (docs/results/traces-psychsci.md)")
    ap.add_argument("--misses-out", default=str(REPO / "bench" / "results" / "evidence_ranker_misses.json"),
                    help="the held-out misses, one reason each, as a result file (docs/results/evidence-misses.md)")
    ap.add_argument("--extra", default=str(EXTRA), help="the extra traces' folder (with load.py)")
    ap.add_argument("--no-extra", action="store_true", help="train on the dev gold only")
    args = ap.parse_args()
    from claimtrace.extract.evidence_ranker import EV_FEATURES

    traces = training_traces(None if args.no_extra else Path(args.extra))
    rows = collect(traces, Path(args.cache) if args.cache else None)
    full = [all_features(r) for r in rows]
    data = [(x[r["cand"]], r["y"][r["cand"]]) for x, r in zip(full, rows, strict=True)]
    papers = [r["paper"] for r in rows]
    gold = [r["origin"] == "gold" for r in rows]
    ev = scorer()

    def span_judge(i: int, w: np.ndarray) -> bool:
        return span_hit(rows[i], full[i], w, ev)

    def share(h: list[bool], only_gold: bool = False) -> float:
        sel = [x for x, g in zip(h, gold, strict=True) if g or not only_gold]
        return round(sum(sel) / max(1, len(sel)), 3)

    prior = np.array([1.0 if n == "base" else 0.0 for n in EV_FEATURES])
    cv: dict[float, dict[str, float]] = {}
    for lam in LAMBDAS:
        hr = repeated_cv(data, papers, lam, prior, span_judge)
        t = cross_validate(data, papers, lam, prior, lambda i, w: hits([data[i]], w)[0])
        cv[lam] = {"span_hit": share(hr[0]), "span_hit_gold_dev": share(hr[0], True), "top1": share(t),
                   "span_hit_repeated": round(float(np.mean([share(h) for h in hr])), 3)}
        print(lam, cv[lam], file=sys.stderr)
    # the penalty with the best held-out span hit over the repeated fold assignments (one assignment of 80 traces
    # moves by +-2 traces from salt to salt); ties: the stronger pull to the hand-set score
    lam = max(LAMBDAS, key=lambda v: (cv[v]["span_hit_repeated"], v))
    w = fit_scaled(data, lam, prior)
    hand = [span_judge(i, prior) for i in range(len(rows))]
    out: dict[str, Any] = {
        "schema_version": "2",
        "trained_on": "shared/data/traces/psychsci-dev.jsonl, dev part (bench/traces_psychsci.py split), LLM-agent "
                      "gold (Claude, 2026-12-01)" + (" + bench/data/traces-extra (LLM-agent annotation of the other "
                                                      "shared psychsci papers)" if not all(gold) else ""),
        "extra_source": None if all(gold) else str(Path(args.extra) / "load.py"),
        "traces": len(rows), "gold_dev_traces": sum(gold), "papers": len(set(papers)),
        "evidence": {n: round(float(v), 4) for n, v in zip(EV_FEATURES, w, strict=True)},
        "evidence_fit": {"lambda": lam, "scaling": "features scaled to unit SD over the training candidates for the fit "
                                                   "(weights stored for the raw features)",
                         "cv_method": f"grouped 5-fold over papers, {REPEATS} fold assignments (span_hit, "
                                      "span_hit_gold_dev, top1: the first; span_hit_repeated: their mean; the penalty "
                                      "is chosen by it); span_hit: the extended evidence span is an evidence hit by "
                                      "the scorer's definitions; top1: the top candidate is a positive",
                         "cv": {str(k): v for k, v in cv.items()},
                         "hand_set_span_hit": share(hand),
                         "train_span_hit": share([span_judge(i, w) for i in range(len(rows))]),
                         "traces_with_a_positive_candidate": sum(bool(y.any()) for _, y in data)}}
    print(json.dumps(out["evidence_fit"]), file=sys.stderr)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    from provenance import Run

    run = Run(data=[GOLD, DOCS])
    cvr = repeated_cv(data, papers, lam, prior, span_judge)
    cvh = cvr[0]
    res = {"schema_version": "1", "what": "evidence ranker: grouped 5-fold cross-validation over training papers "
           "(scripts/train_evidence_ranker.py); evidence hit of the extended span, scorer's definitions",
           "trained_on": out["trained_on"], "traces": len(rows), "gold_dev_traces": sum(gold), "papers": len(set(papers)),
           "lambda": lam, "cv_by_lambda": {str(k): v for k, v in cv.items()},
           "chosen": {"hits": sum(cvh), "n": len(cvh), "gold_dev_hits": sum(h for h, g in zip(cvh, gold, strict=True) if g),
                      "gold_dev_n": sum(gold)},
           "chosen_repeated": {"repeats": REPEATS, "hits_per_repeat": [sum(h) for h in cvr], "n": len(cvh),
                               "per_trace_hits": [sum(h[i] for h in cvr) for i in range(len(cvh))]},
           "candidate_ceiling": {"traces_with_a_correct_candidate": sum(bool(y.any()) for _, y in data),
                                 "n": len(data)},
           "previous_method": previous_method(data, papers, prior, span_judge, cvr),
           "without_added_features": without_features(rows, full, papers, ADDED, ev, cvr),
           "hand_set": {"hits": sum(hand), "n": len(hand),
                        "gold_dev_hits": sum(h for h, g in zip(hand, gold, strict=True) if g)},
           "provenance": run.finish()}
    Path(args.cv_out).write_text(json.dumps(res, indent=1) + "\n")
    per_trace = res["chosen_repeated"]["per_trace_hits"]
    mis = {"schema_version": "1", "what": "held-out misses of the evidence ranker (scripts/train_evidence_ranker.py): "
           "grouped 5-fold over papers, first fold assignment; per miss the pick and the gold (paragraph, study, kind "
           "of test; no article text) and one mechanical reason", "trained_on": out["trained_on"], "lambda": lam,
           "repeats": REPEATS, **oof_misses(rows, full, data, papers, lam, prior, ev, per_trace),
           "provenance": run.finish()}
    Path(args.misses_out).write_text(json.dumps(mis, indent=1) + "\n")
    print(json.dumps({k: res[k] for k in ("chosen", "chosen_repeated", "previous_method")})[:2000], file=sys.stderr)
    print(f"-> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
