"""Leave-trial-out cross-validation of the numbers extractor over every development trial (issue 29).

Development items of both numbers gold sets only (``bench/numbers_split.py``'s hash split; no untouched trial
is loaded). Each trial in turn is left out: the ranker (the shipped features and regularisation) is refitted on
the other trials, its abstention threshold chosen on them (in sample there), and the left-out trial's items are
extracted with it. Beside it, in sample: the same fit on every development trial (the shipped weights are that
fit). The gap between the two is what only helps the trials in view. Two measurements:

- ``pipeline``: the whole extractor (``extract_numbers``): all fields exact, as Yun et al. score them, and each
  field (events, group size, mean, SD; both arms) right, in sample and out of trial, with the paired bootstrap of
  the difference (trials resampled);
- ``mechanisms``: on the candidates' features (``scripts/train_numbers_ranker.py``'s cache), the share of items
  whose main numbers (events or means of both arms) are right, with every ranker feature dropped in turn and
  every candidate generator (origin) dropped in turn; in sample and out of trial, the paired difference to the
  shipped setting out of trial, and the ceiling the remaining candidates allow.

The generators' rules and the hand-set score (the ``rule_score`` feature) were written looking at development
items, and the shipped features were chosen by CV over all of them, so even the out-of-trial figure is
optimistic; the untouched part stays the headline (``bench/numbers_split.py``).

    python bench/numbers_cv.py                 # -> bench/results/numbers_cv.json
    python bench/numbers_cv.py --cached        # reuse the trainer's candidate cache (/tmp)
    python bench/numbers_cv.py --label "..." --out bench/results/numbers_cv_x.json --weights W.json
    python bench/numbers_cv.py --pair-only --out bench/results/numbers_cv.json \
        --baseline bench/results/numbers_cv_main.json   # paired difference to another run's rows
    # the baseline, main 505a564's extractor (with the weights keyword, commit 279fdf8):
    git archive 279fdf8 src | tar -x -C /tmp/base && PYTHONPATH=/tmp/base/src python bench/numbers_cv.py \
        --label "main 505a564" --out bench/results/numbers_cv_main.json
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import train_numbers_ranker as T

from numbers_split import wilson
from provenance import REPO, Run

OUT = REPO / "bench" / "results" / "numbers_cv.json"
FIELDS = {"binary": ("events", "group_size"), "continuous": ("mean", "standard_deviation", "group_size")}


def fit_weights(items: list[dict[str, Any]], names: list[str], c: float) -> dict[str, Any]:
    """The ranker fitted on these items, its threshold the best on them (the weights file's shape)."""
    x, y, own = T._matrix(items, names)
    model, mu, sd = T._fit(x, y, c, own)
    probs = model.predict_proba((x - mu) / sd)[:, 1] if len(x) else np.zeros(0)
    tops = T._top(items, probs, own)
    accs = {thr: T._accuracy(items, tops, thr) for thr in T.THRESHOLDS}
    thr = max(accs, key=lambda t: (accs[t], -abs(t - 0.5)))
    return {"features": names, "mean": [float(v) for v in mu], "scale": [float(v) for v in sd],
            "coef": [float(v) for v in model.coef_[0]], "intercept": float(model.intercept_[0]), "threshold": thr}


def _main_right(items: list[dict[str, Any]], w: dict[str, Any]) -> list[bool]:
    """Per item: main numbers right with these weights (abstention right where the reference is empty)."""
    from claimtrace.numbers import ranker

    out = []
    for it in items:
        probs = ranker.probabilities(it["feats"], w) if it["feats"] else []
        k = max(range(len(probs)), key=lambda j: probs[j]) if probs else -1
        out.append(bool(it["labels"][k]) if k >= 0 and probs[k] >= w["threshold"] else bool(it["empty"]))
    return out


def loto(items: list[dict[str, Any]], names: list[str], c: float) -> tuple[list[bool], list[bool]]:
    """Main numbers right per item: in sample (fit on all) and out of trial (fit without the item's trial)."""
    inside = _main_right(items, fit_weights(items, names, c))
    out = [False] * len(items)
    for trial in sorted({it["trial"] for it in items}):
        test = [k for k, it in enumerate(items) if it["trial"] == trial]
        train = [it for it in items if it["trial"] != trial]
        w = fit_weights(train, names, c) if any(any(it["labels"]) for it in train) else None
        for k, ok in zip(test, _main_right([items[k] for k in test], w) if w else
                         [items[k]["empty"] for k in test], strict=True):
            out[k] = ok
    return inside, out


def paired(a: list[bool], b: list[bool], groups: list[str], reps: int = 4000) -> dict[str, Any]:
    """Share of a minus share of b on the same items, paired bootstrap 95% interval resampling trials."""
    by: dict[str, list[float]] = {}
    for x, y, g in zip(a, b, groups, strict=True):
        by.setdefault(g, []).append(float(x) - float(y))
    keys = sorted(by)
    rng = random.Random(29)
    stats = []
    for _ in range(reps):
        pick = [by[keys[rng.randrange(len(keys))]] for _ in keys]
        stats.append(sum(sum(p) for p in pick) / sum(len(p) for p in pick))
    stats.sort()
    diffs = [float(x) - float(y) for x, y in zip(a, b, strict=True)]
    return {"difference": round(sum(diffs) / len(diffs), 4),
            "ci95_paired_trials_resampled": [round(stats[int(0.025 * reps)], 4), round(stats[int(0.975 * reps)], 4)],
            "gained": sum(1 for d in diffs if d > 0), "lost": sum(1 for d in diffs if d < 0),
            # in how many trials: a rule whose gains sit in one or two trials was likely written for them
            "trials_gained": len({g for d, g in zip(diffs, groups, strict=True) if d > 0}),
            "trials_lost": len({g for d, g in zip(diffs, groups, strict=True) if d < 0})}


def _share(oks: list[bool]) -> dict[str, Any]:
    k, n = sum(oks), len(oks)
    return {"k": k, "n": n, "share": round(k / n, 4) if n else None, "ci95_wilson": wilson(k, n)}


def _drop_origin(items: list[dict[str, Any]], origin: str) -> list[dict[str, Any]]:
    keep = [{**it, "feats": [f for f in it["feats"] if not f.get(f"origin_{origin}")],
             "labels": [y for f, y in zip(it["feats"], it["labels"], strict=True) if not f.get(f"origin_{origin}")]}
            for it in items]
    return keep


def mechanisms(items: list[dict[str, Any]], names: list[str], c: float) -> dict[str, Any]:
    """Main numbers right in sample and out of trial, the shipped setting and each feature or generator dropped."""
    groups = [it["trial"] for it in items]
    base_in, base_out = loto(items, names, c)
    rows: dict[str, Any] = {}

    def row(tag: str, sub: list[dict[str, Any]], feats: list[str]) -> None:
        inside, out = (base_in, base_out) if tag == "shipped" else loto(sub, feats, c)
        rows[tag] = {"in_sample": _share(inside), "out_of_trial": _share(out),
                     "gap_in_minus_out": round((sum(inside) - sum(out)) / len(out), 4),
                     "ceiling": _share([any(it["labels"]) or it["empty"] for it in sub]),
                     "out_of_trial_vs_shipped": None if tag == "shipped" else paired(out, base_out, groups),
                     "in_sample_vs_shipped": None if tag == "shipped" else paired(inside, base_in, groups)}
        print(tag, json.dumps({k: v for k, v in rows[tag].items() if k in ("in_sample", "out_of_trial")}),
              file=sys.stderr)

    row("shipped", items, names)
    for n in names:
        if len(names) > 1:
            row(f"- feature {n}", items, [x for x in names if x != n])
    from claimtrace.numbers.ranker import ORIGINS

    for o in ORIGINS:
        row(f"- generator {o}", _drop_origin(items, o), [x for x in names if x != f"origin_{o}"] or names)
    return rows


def pipeline(items: list[dict[str, Any]], names: list[str], c: float) -> dict[str, Any]:
    """The whole extractor in sample and out of trial: all fields exact and each field, per gold set and type;
    and the rows (all fields exact per item)."""
    from claimtrace.numbers.extract import extract_numbers
    from claimtrace.numbers.scoring import score_item

    by_id = {(it["set"], str(it["id"])): it for it in items}
    w_all = fit_weights(items, names, c)
    folds: dict[str, dict[str, Any]] = {}
    scored: list[dict[str, Any]] = []
    for name, gold, doc, _ico in T.dev_items():
        it = by_id[(name, str(gold["id"]))]
        trial = it["trial"]
        if trial not in folds:
            train = [x for x in items if x["trial"] != trial]
            folds[trial] = fit_weights(train, names, c)
        one: dict[str, Any] = {}
        for tag, w in (("in_sample", w_all), ("out_of_trial", folds[trial])):
            res = extract_numbers(doc, gold["intervention"], gold["comparator"], gold["outcome"], weights=w)
            one[tag] = score_item(gold, res)
            if tag == "out_of_trial":
                one["sizes"] = [(size_source(res.arms[a].group_size), one[tag]["correct"][f"{a}_group_size"])
                                for a in ("intervention", "comparator")
                                if str(gold.get(f"{a}_group_size") or "").strip()]
        scored.append({"set": name, "id": gold["id"], "trial": trial, "type": gold["outcome_type"], **one})
    out: dict[str, Any] = {"rows": [{"set": r["set"], "id": r["id"], "trial": r["trial"], "type": r["type"],
                                     "in_sample": bool(r["in_sample"]["all_correct"]),
                                     "out_of_trial": bool(r["out_of_trial"]["all_correct"])} for r in scored]}
    for key in sorted({(r["set"], r["type"]) for r in scored}):
        rs = [r for r in scored if (r["set"], r["type"]) == key]
        groups = [r["trial"] for r in rs]
        part: dict[str, Any] = {"n": len(rs), "trials": len(set(groups))}
        for what in ("all_fields", *FIELDS[key[1]]):
            def ok(r: dict[str, Any], tag: str, what: str = what) -> bool:
                s = r[tag]
                if what == "all_fields":
                    return bool(s["all_correct"])
                return all(s["correct"][f"{a}_{what}"] for a in ("intervention", "comparator"))
            inside, oot = [ok(r, "in_sample") for r in rs], [ok(r, "out_of_trial") for r in rs]
            part[what] = {"in_sample": _share(inside), "out_of_trial": _share(oot),
                          "in_minus_out": paired(inside, oot, groups)}
        by_source: dict[str, list[int]] = {}
        for r in rs:
            for src, right in r["sizes"]:
                by_source.setdefault(src, [0, 0])[0 if right else 1] += 1
        part["group_size_by_source"] = {src: {"right": k, "wrong": w} for src, (k, w) in sorted(by_source.items())}
        out[f"{key[0]}/{key[1]}"] = part
        print(key, json.dumps(part["all_fields"]), file=sys.stderr)
    return out


def size_source(v: Any) -> str:
    """Where an arm's group size was read: a column header, a table cell (the chosen row or an n-row), a
    caption or footnote, a sentence, derived, or not found."""
    if v is None:
        return "not found"
    if v.source == "derived":
        return "derived"
    if v.source == "text":
        return "sentence"
    if v.row is None:
        return "caption or footnote"
    return "column header" if v.row == 1 and v.text and not v.text.strip().isdigit() else "table cell"


def attach_baseline(result: dict[str, Any], base: dict[str, Any]) -> None:
    """All fields exact of this run minus a baseline run's, on the same development items, in sample and out of
    trial (paired bootstrap resampling trials)."""
    was = {(r["set"], str(r["id"])): r for r in base["rows"]}
    result["baseline"] = base["label"]
    for key, part in result["pipeline"].items():
        name, kind = key.split("/")
        pairs = [(r, was[(r["set"], str(r["id"]))]) for r in result["rows"]
                 if (r["set"], r["type"]) == (name, kind) and (r["set"], str(r["id"])) in was]
        if pairs:
            part["all_fields"]["vs_baseline"] = {
                tag: paired([r[tag] for r, _ in pairs], [b[tag] for _, b in pairs], [r["trial"] for r, _ in pairs])
                for tag in ("in_sample", "out_of_trial")}


def lines() -> list[str]:
    """The leave-trial-out section of docs/results/numbers.md, from the committed result files."""
    res = REPO / "bench" / "results"
    files = sorted(res.glob("numbers_cv*.json"))
    if not files:
        return []
    out = ["", "### Leave-trial-out cross-validation over the development trials", "",
           "`python bench/numbers_cv.py` → `bench/results/numbers_cv*.json`: development items of both gold sets "
           "only. Out of trial: the ranker refitted without the item's trial (shipped features and C; threshold "
           "chosen on the other trials). In sample: the same fit on every development trial. The generators' "
           "rules were written looking at development items, so out of trial is still optimistic. Wilson 95%; "
           "in − out: paired bootstrap over trials.", ""]
    for f in files:
        r = json.loads(f.read_text())
        out += [f"**{r['label']}** (`{f.name}`)", "",
                "| gold / type | field | in sample | out of trial | in − out (paired 95%) |", "|---|---|---|---|---|"]
        for key, part in r["pipeline"].items():
            for what, m in part.items():
                if not isinstance(m, dict) or what == "group_size_by_source":
                    continue
                i, o, d = m["in_sample"], m["out_of_trial"], m["in_minus_out"]
                ci = d["ci95_paired_trials_resampled"]
                out.append(f"| {key} | {what.replace('_', ' ')} | {i['share']:.3f} ({i['k']}/{i['n']}) | "
                           f"{o['share']:.3f} ({o['k']}/{o['n']}; {o['ci95_wilson'][0]:.2f}–{o['ci95_wilson'][1]:.2f}) | "
                           f"{d['difference']:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}] |")
        sizes = [(key, src, m) for key, part in r["pipeline"].items()
                 for src, m in part.get("group_size_by_source", {}).items()]
        if sizes:
            out += ["", "Group sizes out of trial, by where they were read (arms whose reference gives one):", "",
                    "| gold / type | source | right | wrong |", "|---|---|---|---|"]
            out += [f"| {key} | {src} | {m['right']} | {m['wrong']} |" for key, src, m in sizes]
        mech = r.get("mechanisms")
        if mech:
            out += ["", "Main numbers (events or means, both arms), each ranker feature or generator dropped "
                    "(items gained / lost against the shipped setting out of trial, and in how many trials):", "",
                    "| setting | in sample | out of trial | gap | out of trial vs shipped (paired 95%) | gained / lost "
                    "(trials) | ceiling |", "|---|---|---|---|---|---|---|"]
            for tag, m in mech.items():
                v = m["out_of_trial_vs_shipped"]
                vs = (f"{v['difference']:+.3f} [{v['ci95_paired_trials_resampled'][0]:+.3f}, "
                      f"{v['ci95_paired_trials_resampled'][1]:+.3f}]") if v else "—"
                gl = (f"{v['gained']} / {v['lost']} ({v.get('trials_gained', '?')} / {v.get('trials_lost', '?')})"
                      if v else "—")
                out.append(f"| {tag} | {m['in_sample']['share']:.3f} | {m['out_of_trial']['share']:.3f} "
                           f"({m['out_of_trial']['k']}/{m['out_of_trial']['n']}) | {m['gap_in_minus_out']:+.3f} | "
                           f"{vs} | {gl} | {m['ceiling']['share']:.3f} |")
        out.append("")
    return out


def main() -> None:
    """Run both measurements and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cached", action="store_true", help="reuse the trainer's candidate cache")
    ap.add_argument("--weights", type=Path, default=T.OUT, help="the weights whose features and C are refitted")
    ap.add_argument("--label", default="this tree")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--no-pipeline", action="store_true", help="the mechanisms alone (fast)")
    ap.add_argument("--no-mechanisms", action="store_true", help="the pipeline alone")
    ap.add_argument("--baseline", type=Path, help="another run's result file: paired differences to its rows")
    ap.add_argument("--pair-only", action="store_true",
                    help="only add the paired difference to --baseline to the existing --out file")
    args = ap.parse_args()
    if args.pair_only:
        if args.baseline is None or not args.out.exists():
            ap.error("--pair-only needs --baseline and an existing --out file")
        done = json.loads(args.out.read_text())
        attach_baseline(done, json.loads(args.baseline.read_text()))
        args.out.write_text(json.dumps(done, indent=1) + "\n", encoding="utf-8")
        return
    if args.cached and T.CACHE.exists():
        items = pickle.loads(T.CACHE.read_bytes())
    else:
        items = T.build()
        T.CACHE.write_bytes(pickle.dumps(items))
    shipped = json.loads(args.weights.read_text())
    names, c = shipped["features"], shipped["selection"]["chosen"]["C"]
    run = Run(data=[p for p in (REPO.parent / "shared" / "data" / "rct-numeric" / "dev.json",
                                REPO / "bench" / "data" / "numbers-ei" / "gold.json") if p.exists()])
    result: dict[str, Any] = {"schema_version": "1", "label": args.label, "features": names, "C": c,
                              "items": len(items), "trials": len({it["trial"] for it in items}),
                              "mechanisms": {} if args.no_mechanisms else mechanisms(items, names, c)}
    if not args.no_pipeline:
        result["pipeline"] = pipeline(items, names, c)
        result["rows"] = result["pipeline"].pop("rows")  # development items only (the next run's --baseline)
        if args.baseline:
            attach_baseline(result, json.loads(args.baseline.read_text()))
    result["provenance"] = run.finish()
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
