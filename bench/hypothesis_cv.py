"""Out-of-fold error analysis of the hypothesis ranker: grouped cross-validation over the training traces (the dev
part of ``psychsci-dev.jsonl`` and ``bench/data/traces-extra``; the untouched part is never read), one row per
paper with what the ranker picked, the gold, whether the gold is among the candidates and one reason per miss.

    .venv/bin/python bench/hypothesis_cv.py --cache /tmp/hyp_cv.pkl --label L --out bench/results/hypothesis_cv.json
    .venv/bin/python bench/hypothesis_cv.py --cache /tmp/hyp_cv.pkl --label L0 \
        --out bench/results/hypothesis_cv_before.json    # with the code of the commit before the change
    .venv/bin/python bench/hypothesis_cv.py --compare bench/results/hypothesis_cv_before.json \
        bench/results/hypothesis_cv.json --out bench/results/hypothesis_cv_diff.json
    .venv/bin/python bench/results_pages.py hypothesis-cv
    .venv/bin/python bench/hypothesis_cv.py --cache /tmp/hyp_cv.pkl --time --out /dev/null   # feature time per paper

The candidates and the inputs of the features are collected once per paper (``--cache`` keeps them; the features
are recomputed from them on every run, so a new feature needs no new collection). The folds are those of
``scripts/train_trace_ranker.py`` (5 folds by a hash of the paper, 4 repeats), the penalty is chosen by that
script's grid on the whole set (as the training does), and a paper's out-of-fold hit is its hit share over the
repeats; a paper below the learned rankers' domain gate (``trace_ranker.social_science``) is scored with the
hand-set score, as the extractor does. Two hits: the top-1 sentence is a gold one (what the training maximises),
and the span the extractor returns (the best sentence and its neighbours, ``trace_ranker.hypothesis_span``) covers
a gold string by the scorer's ``same_statement`` (what the bench scores). The reason of a miss is read from the
candidates (no hand labels): the gold is no candidate (and which mask removed it, or no sentence matches it), or
the pick is an aim, a later study's sentence, another prediction, a result or look-back sentence, or the gold
ranks second.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

from provenance import Run
from traces_psychsci import DOCS, GOLD, scorer, wilson

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
RESULT = REPO / "bench" / "results" / "hypothesis_cv.json"
DIFF = REPO / "bench" / "results" / "hypothesis_cv_diff.json"
#: ``bench/traces_ei_guard.py --compare`` of main and this change (Evidence Inference must not get worse)
EI_GUARD = REPO / "bench" / "results" / "hypothesis_cv_ei_guard.json"
#: ``bench/traces_psychsci.py --dev-only`` with this change, and the committed run it is paired with
DEV_BENCH = REPO / "bench" / "results" / "traces_psychsci_dev_hyp5.json"
DEV_BENCH_BEFORE = REPO / "bench" / "results" / "traces_psychsci_dev_hyp5_before.json"
#: a variant tried and dropped (its grouped CV and its Evidence-Inference guard against main), shown on the page
DROPPED = REPO / "bench" / "results" / "hypothesis_cv_direction.json"
DROPPED_EI = REPO / "bench" / "results" / "hypothesis_cv_direction_ei_guard.json"
BEFORE = REPO / "bench" / "results" / "hypothesis_cv_before.json"
MIN_CHARS = 40
SNIPPET = 120


def collect(gold: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per training paper: the sentences, the masks and the inputs of the hypothesis features."""
    from claimtrace.documents import load_document
    from claimtrace.extract.config import EMBEDDED_DEFAULT, get_preset
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.hypothesis_classifier import position_prior

    ev = scorer()
    cfg = get_preset(EMBEDDED_DEFAULT)
    in_gold = {g["paper"] for g in ev.load_gold(str(GOLD))}
    out = []
    for g in gold:
        doc = load_document(DOCS / g["paper"])
        ex = EmbeddedExtractor()
        ix = ex.index(doc)
        sim = ix.sim(g["finding"])
        prior = np.array([position_prior(k, sec, bool(last))
                          for k, sec, last in zip(ix.kind, ix.section, ix.intro_last, strict=True)])
        context = ex._allowed(ix, g["finding"], cfg, None, "hypothesis")
        texts = [s.text for s in ix.sents]
        y = np.array([len(t) >= MIN_CHARS and any(ev.same_statement(h, t) for h in g["hypothesis"]) for t in texts],
                     dtype=bool)
        out.append({"paper": g["paper"], "origin": "dev" if g["paper"] in in_gold else "extra",
                    "finding": g["finding"], "gold": list(g["hypothesis"]), "texts": texts, "y": y,
                    "context": context, "is_table": ix.is_table.copy(), "box": ix.box.copy(),
                    "lookback": ix.lookback.copy(), "not_statement": ix.not_statement.copy(), "sim": sim,
                    "prior": prior, "cls": ix.hyp.copy(), "cue": ix.cue.copy(), "engine": ix.engine.copy(),
                    "kind": list(ix.kind), "section": list(ix.section), "study": list(ix.study),
                    "studies": list(ix.studies), "pid": list(ix.pid), "social": ix.social})
    return out


BOX_TAIL = True  # ``--no-box-tail``: the candidates as before trace_ranker.box_body_tail (a box's merged tail out)


def features(r: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The stage-1 candidates and feature matrix of one collected paper, as the extractor computes them."""
    from claimtrace.extract.embedded import _METHOD_HEADING, W_SIM_HYP
    from claimtrace.extract.hypothesis_classifier import W_CLS
    from claimtrace.extract.trace_ranker import finding_study, hypothesis_candidates, hypothesis_matrix

    base = W_SIM_HYP * r["sim"] + W_CLS * r["cls"] + r["cue"] + r["prior"]
    allowed = hypothesis_candidates(r["context"], r["is_table"], r["box"], r["lookback"], r["not_statement"],
                                    *((r["texts"], r["pid"]) if BOX_TAIL else ()))
    parts = {"base": base, "sim": r["sim"], "cls": r["cls"], "cue": r["cue"], "prior": r["prior"],
             "stat": (r["engine"] >= 1).astype(float)}
    kinds = ["methods" if _METHOD_HEADING.search(sec.rsplit("/", 1)[-1]) else k
             for k, sec in zip(r["kind"], r["section"], strict=True)]
    x = hypothesis_matrix(r["texts"], parts, kinds, r["study"], finding_study(r["finding"], r["studies"]), r["studies"],
                          r["finding"], allowed, pid=r["pid"])
    return allowed, x


def folds(papers: list[str], rep: int, k: int) -> list[int]:
    """The fold of each paper in one repeat (``scripts/train_trace_ranker.py``'s hash)."""
    return [int(hashlib.sha256(f"{rep}:{p}".encode()).hexdigest()[:8], 16) % k for p in papers]


def snippet(r: dict[str, Any], text: str) -> str:
    """A short quotation for the table: the first ``SNIPPET`` characters of a dev paper's sentence; none for the
    extra traces (their file holds locations, no article text)."""
    return text[:SNIPPET] + ("..." if len(text) > SNIPPET else "") if r["origin"] == "dev" else "(extra trace: no text)"


def span_hit(ev: Any, r: dict[str, Any], feat: tuple[np.ndarray, np.ndarray], w: np.ndarray) -> bool:
    """The scorer's hypothesis hit of the span the extractor would return with weights ``w`` (the best candidate
    and its neighbours within ``HYP_EXTEND_MARGIN``)."""
    from claimtrace.extract.embedded import HYP_EXTEND_MARGIN, HYP_MAX_SENTENCES
    from claimtrace.extract.trace_ranker import hypothesis_span

    allowed, x = feat
    if not allowed.any():
        return False
    learned = np.where(allowed, x @ w, -np.inf)
    lo, hi = hypothesis_span(learned, r["pid"], int(np.argmax(learned)), HYP_EXTEND_MARGIN, HYP_MAX_SENTENCES)
    text = " ".join(r["texts"][lo:hi + 1])
    return any(ev.same_statement(h, text) for h in r["gold"])


def reason(r: dict[str, Any], allowed: np.ndarray, pick: int, gold_rank: int | None) -> str:
    """One reason for a miss, read from the candidates."""
    from claimtrace.extract.trace_ranker import _later, finding_study, sentence_cues

    y = r["y"]
    if pick >= 0 and y[pick]:
        return "top-1 is the gold, the span's neighbours dilute its match"
    if not y.any():
        return "no body sentence matches the gold (sentence splitting or a gold outside the body)"
    if not (y & allowed).any():
        i = int(np.flatnonzero(y)[0])
        for name, why in (("box", "a journal box"), ("is_table", "a table"), ("lookback", "a look-back sentence"),
                          ("not_statement", "a test-meta sentence")):
            if r[name][i]:
                return f"gold excluded from the candidates as {why}"
        return "gold outside the context of the default preset"
    c = sentence_cues(r["texts"][pick])
    gc = [sentence_cues(r["texts"][i]) for i in np.flatnonzero(y & allowed)]
    second = " (gold ranked 2nd)" if gold_rank == 1 else ""
    ref = finding_study(r["finding"], r["studies"])
    if _later(r["study"][pick], ref, r["studies"]):
        return "picked a later study's sentence" + second
    if r["kind"][pick] in ("results", "discussion", "conclusion"):
        return f"picked a {r['kind'][pick]} sentence" + second
    if not any(g.prediction or g.modal_prediction for g in gc):
        return "gold states no prediction (an aim or a plain claim)" + second
    if c.aim_only:
        return "picked an aim or question over the prediction" + second
    if not (c.prediction or c.modal_prediction):
        return "picked a sentence without a prediction cue" + second
    if c.strong_prediction and any(g.strong_prediction for g in gc):
        return "picked another explicit prediction of the paper" + second
    if c.strong_prediction:
        return "picked an explicit prediction over the gold's implicit one (should/would)" + second
    return "picked an implicit prediction cue (should/would/if-then)" + second


def analyse(recs: list[dict[str, Any]], folds_k: int, repeats: int) -> dict[str, Any]:
    """Grouped CV with the training script's penalty grid; the per-paper out-of-fold picks."""
    from train_trace_ranker import LAMBDAS, fit

    from claimtrace.extract.trace_ranker import HYP_FEATURES

    feats = [features(r) for r in recs]
    data = [(x[a], r["y"][a]) for r, (a, x) in zip(recs, feats, strict=True)]
    idx = [np.flatnonzero(a) for a, _ in feats]
    papers = [r["paper"] for r in recs]
    prior = np.array([1.0 if n == "base" else 0.0 for n in HYP_FEATURES])
    ev = scorer()
    per_lam: dict[float, list[list[int]]] = {}
    span_lam: dict[float, list[list[bool]]] = {}
    for lam in LAMBDAS:
        picks: list[list[int]] = [[] for _ in recs]
        spans: list[list[bool]] = [[] for _ in recs]
        for rep in range(repeats):
            fold = folds(papers, rep, folds_k)
            for f in range(folds_k):
                w = fit([d for d, q in zip(data, fold, strict=True) if q != f], lam, prior)
                for i, q in enumerate(fold):
                    if q == f:
                        wi = w if recs[i]["social"] else prior  # the extractor's domain gate: the hand-set score
                        picks[i].append(int(np.argmax(data[i][0] @ wi)) if len(data[i][1]) else -1)
                        spans[i].append(span_hit(ev, recs[i], feats[i], wi))
        per_lam[lam], span_lam[lam] = picks, spans
    cv = {lam: float(np.mean([np.mean([bool(p >= 0 and data[i][1][p]) for p in ps]) for i, ps in enumerate(pk)]))
          for lam, pk in per_lam.items()}
    cv_span = {lam: float(np.mean([np.mean(h) for h in sp])) for lam, sp in span_lam.items()}
    lam = max(LAMBDAS, key=lambda v: (cv[v], v))
    w_all = fit(data, lam, prior)
    rows = []
    for i, r in enumerate(recs):
        x, y = data[i]
        ps = per_lam[lam][i]
        hits = [bool(p >= 0 and y[p]) for p in ps]
        sh = span_lam[lam][i]
        miss = next((p for p in ps if p >= 0 and not y[p]), None)
        pick = miss if miss is not None else (ps[0] if ps else -1)
        gold_rank = None
        if y.any() and pick >= 0:
            s = x @ w_all
            order = np.argsort(-s, kind="stable")
            gold_rank = int(min(np.flatnonzero(y[order])))
        row: dict[str, Any] = {"paper": r["paper"], "origin": r["origin"], "hit": round(float(np.mean(hits)), 3),
                               "span_hit": round(float(np.mean(sh)), 3),
                               "candidates": len(y), "gold_candidate": bool(y.any()),
                               "gold_anywhere": bool(r["y"].any()), "gold_rank_in_sample": gold_rank,
                               "gold": snippet(r, r["gold"][0] if r["gold"] else "")}
        if not all(hits) or not all(sh):
            j = int(idx[i][pick]) if pick >= 0 else -1
            row["picked"] = snippet(r, r["texts"][j]) if j >= 0 else ""
            row["picked_paragraph"] = r["pid"][j] if j >= 0 else None
            row["picked_kind"] = r["kind"][j] if j >= 0 else ""
            row["reason"] = reason(r, feats[i][0], j, gold_rank)
        rows.append(row)
    k = int(sum(row["hit"] for row in rows) + 0.5)  # a paper's hit is its share over the repeats
    ks = int(sum(row["span_hit"] for row in rows) + 0.5)
    return {"papers": len(rows), "folds": folds_k, "repeats": repeats, "lambda": lam,
            "cv_top1_by_lambda": {str(v): round(c, 4) for v, c in cv.items()}, "cv_top1": round(cv[lam], 4),
            "cv_top1_ci95": wilson(k, len(rows)),
            "cv_span_by_lambda": {str(v): round(c, 4) for v, c in cv_span.items()},
            "cv_span_hit": round(cv_span[lam], 4), "cv_span_hit_ci95": wilson(ks, len(rows)), "train_top1": round(float(np.mean(
                [bool(len(y) and y[int(np.argmax(x @ w_all))]) for x, y in data])), 4),
            "gold_candidate": sum(r["gold_candidate"] for r in rows), "rows": rows,
            "features": list(HYP_FEATURES)}


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Paired bootstrap of the per-paper out-of-fold hits (top-1 sentence and the extractor's span), B - A."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    out: dict[str, Any] = {"before": a.get("label"), "after": b.get("label")}
    for key in ("hit", "span_hit"):
        ha = {r["paper"]: r[key] for r in a["rows"]}
        hb = {r["paper"]: r[key] for r in b["rows"]}
        ids = sorted(set(ha) & set(hb))
        x, y = [ha[i] for i in ids], [hb[i] for i in ids]
        out[key] = {"n": len(ids), "before": round(float(np.mean(x)), 4), "after": round(float(np.mean(y)), 4),
                    "diff_ci95": paired_bootstrap_diff(y, x).model_dump()}
    return out


def lines() -> list[str]:
    """docs/results/hypothesis-cv.md from the committed result files."""
    d = json.loads(RESULT.read_text())
    out = ["# Hypothesis ranker: out-of-fold misses on the training traces", "",
           f"Grouped cross-validation of the hypothesis ranker (`bench/hypothesis_cv.py`; {d['folds']} folds by a hash "
           f"of the paper, {d['repeats']} repeats) over {d['papers']} training traces: the dev part of "
           "`psychsci-dev.jsonl` (LLM agent, Claude, 2026-12-01) and `bench/data/traces-extra` (LLM agent, Claude, "
           "2026-12-02), neither checked by a person. The untouched part is not in it. Result files: "
           "`bench/results/hypothesis_cv.json` (after), `bench/results/hypothesis_cv_before.json` (before) and "
           "`bench/results/hypothesis_cv_diff.json` (the paired difference); command in the script's docstring.", "",
           f"Out-of-fold hit of the span the extractor returns (the scorer's definition): **{d['cv_span_hit']:.3f}** "
           f"(95% Wilson {d['cv_span_hit_ci95'][0]:.3f}–{d['cv_span_hit_ci95'][1]:.3f}, n = {d['papers']}); top-1 "
           f"sentence {d['cv_top1']:.3f} ({d['cv_top1_ci95'][0]:.3f}–{d['cv_top1_ci95'][1]:.3f}); in-sample top-1 "
           f"{d['train_top1']:.3f}; gold among the candidates in {d['gold_candidate']} of {d['papers']}. "
           f"Label: {d.get('label', '')}.", ""]
    if DIFF.is_file():
        c = json.loads(DIFF.read_text())
        out += [f"Before ({c['before']}) and after ({c['after']}), the same papers and folds:", "",
                "| measure | before | after | difference (paired bootstrap 95%) | n |", "|---|---|---|---|---|"]
        for key, name in (("hit", "top-1 sentence"), ("span_hit", "span (scorer's hit)")):
            m, ci = c[key], c[key]["diff_ci95"]
            out.append(f"| {name} | {m['before']:.3f} | {m['after']:.3f} | {ci['estimate']:+.3f} "
                       f"({ci['low']:+.3f} to {ci['high']:+.3f}) | {m['n']} |")
        out.append("")
    if DEV_BENCH.is_file() and DEV_BENCH_BEFORE.is_file():
        from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

        a = {r["paper"]: r for r in json.loads(DEV_BENCH_BEFORE.read_text())["dev_rows"]}
        b = {r["paper"]: r for r in json.loads(DEV_BENCH.read_text())["dev_rows"]}
        ids = sorted(set(a) & set(b))
        for key in ("hypothesis_hit", "evidence_hit"):
            x, y = [int(a[i][key]) for i in ids], [int(b[i][key]) for i in ids]
            ci = paired_bootstrap_diff(y, x)
            lo, hi = wilson(sum(y), len(y)) or [0.0, 0.0]
            out.append(f"- dev part, in-sample (`bench/traces_psychsci.py --dev-only`, "
                       f"`bench/results/{DEV_BENCH.name}` against `bench/results/{DEV_BENCH_BEFORE.name}`), "
                       f"{key.replace('_', ' ')}: {sum(x)}/{len(x)} -> {sum(y)}/{len(y)} = {sum(y) / len(y):.3f} "
                       f"(Wilson {lo:.3f}–{hi:.3f}), difference {ci.estimate:+.3f} "
                       f"(paired bootstrap 95% {ci.low:+.3f} to {ci.high:+.3f})")
        out.append("")
    if EI_GUARD.is_file():
        g = json.loads(EI_GUARD.read_text())
        runs = ", ".join(f"`{f}`" for f in g.get("files", []))
        out += ["Evidence Inference (`bench/traces_ei_guard.py --compare`, `bench/results/hypothesis_cv_ei_guard.json`"
                f" of the runs {runs}; before {g['before']}, after {g['after']}):", ""]
        for key, name in (("hypothesis", "hypothesis hit@1 (EI hypothesis gold)"),
                          ("evidence", "evidence hit@1 (EI validation)")):
            m, ci = g[key], g[key]["diff_ci95"]
            out.append(f"- {name}: {m['before_hit1']:.3f} -> {m['after_hit1']:.3f}, difference {ci['estimate']:+.3f} "
                       f"(paired bootstrap 95% {ci['low']:+.3f} to {ci['high']:+.3f}; McNemar p = "
                       f"{m['mcnemar']['p_value']:.2f}), n = {m['n']}")
        out.append("")
    if DROPPED.is_file() and DROPPED_EI.is_file() and BEFORE.is_file():
        x, g = json.loads(DROPPED.read_text()), json.loads(DROPPED_EI.read_text())
        c = compare(json.loads(BEFORE.read_text()), x)
        h = g["hypothesis"]
        out += [f"Tried and dropped: {x.get('label', '')} (`bench/results/{DROPPED.name}`, "
                f"`bench/results/{DROPPED_EI.name}` of the runs {', '.join(f'`{f}`' for f in g.get('files', []))}). "
                f"Grouped CV against the before run, n = {c['hit']['n']}:", ""]
        for key, name in (("hit", "top-1 sentence"), ("span_hit", "span")):
            ci = c[key]["diff_ci95"]
            out.append(f"- {name}: {c[key]['before']:.3f} -> {c[key]['after']:.3f}, difference {ci['estimate']:+.3f} "
                       f"(paired bootstrap 95% {ci['low']:+.3f} to {ci['high']:+.3f})")
        ci = h["diff_ci95"]
        out += [f"- Evidence Inference hypothesis hit@1 ({g['before']} -> {g['after']}): {h['before_hit1']:.3f} -> "
                f"{h['after_hit1']:.3f}, difference {ci['estimate']:+.3f} (paired bootstrap 95% {ci['low']:+.3f} to "
                f"{ci['high']:+.3f}; McNemar p = {h['mcnemar']['p_value']:.2f}), n = {h['n']}: Evidence Inference "
                "must not get worse, so the variant is not shipped", ""]
    miss = [r for r in d["rows"] if min(r["hit"], r["span_hit"]) < 1]
    counts: dict[str, int] = {}
    for r in miss:
        key = r["reason"].split(" (")[0]
        counts[key] = counts.get(key, 0) + 1
    out += ["## Reasons", "", "| reason | papers |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])]
    out += ["", "## Per-paper misses (out-of-fold top-1 or span hit share below 1)", "",
            "The reason is read from the candidates by `bench/hypothesis_cv.py`'s `reason` (no hand labels). "
            f"Gold and pick: the first {SNIPPET} characters, dev papers only (the extra traces hold no article text).", "",
            "| paper | origin | OOF top-1 | OOF span | gold is a candidate | reason | picked | gold |",
            "|---|---|---|---|---|---|---|---|"]

    def cell(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    for r in sorted(miss, key=lambda r: (r["span_hit"], r["hit"], r["paper"])):
        out.append(f"| {r['paper'].removesuffix('.xml')} | {r['origin']} | {r['hit']:.2f} | {r['span_hit']:.2f} | "
                   f"{'yes' if r['gold_candidate'] else 'no'} | {cell(r['reason'])} | {cell(r.get('picked', ''))} | "
                   f"{cell(r['gold'])} |")
    return out


def time_features(cache: str | None) -> None:
    """The stage-1 features' time per paper (``features``: candidates and feature matrix), best of 5 with the
    per-sentence cue caches cleared, and the load average: run it on a quiet machine for a headline figure."""
    import os
    import time

    from train_trace_ranker import EXTRA_LOADER, training_gold

    from claimtrace.extract import trace_ranker

    if cache and Path(cache).is_file():
        recs = pickle.loads(Path(cache).read_bytes())
    else:
        recs = collect(training_gold(EXTRA_LOADER))
    best = float("inf")
    for _ in range(5):
        trace_ranker.sentence_cues.cache_clear()
        trace_ranker._stem_sets.cache_clear()
        t = time.perf_counter()
        for r in recs:
            features(r)
        best = min(best, time.perf_counter() - t)
    print(json.dumps({"papers": len(recs), "features_ms_per_paper": round(1000 * best / len(recs), 2),
                      "load_average": os.getloadavg()}))


def main() -> None:
    """Collect (or load) the candidates, cross-validate, write the per-paper table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", help="keep the collected candidates in this pickle")
    ap.add_argument("--label", default="this branch")
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--time", action="store_true",
                    help="print the stage-1 feature time per paper (best of 5, cold cue caches) and the load; no output")
    ap.add_argument("--no-box-tail", action="store_true", help="leave a journal box's merged body tail out (before)")
    args = ap.parse_args()
    global BOX_TAIL
    BOX_TAIL = not args.no_box_tail
    if args.time:
        time_features(args.cache)
        return
    run = Run(data=[GOLD])
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        result: dict[str, Any] = {"schema_version": "1", **compare(a, b), "files": args.compare}
    else:
        from train_trace_ranker import EXTRA_LOADER, FOLDS, training_gold

        if args.cache and Path(args.cache).is_file():
            recs = pickle.loads(Path(args.cache).read_bytes())
        else:
            recs = collect(training_gold(EXTRA_LOADER))
            if args.cache:
                Path(args.cache).write_bytes(pickle.dumps(recs))
        result = {"schema_version": "1", "label": args.label, **analyse(recs, FOLDS, args.repeats)}
    result["provenance"] = run.finish()
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("rows", "provenance", "features")}), file=sys.stderr)


if __name__ == "__main__":
    main()
