"""Numbers for meta-analysis on rct-numeric (Yun et al. 2024): exact match per field and per item, computable share, MAE.

    python bench/numbers_rct.py --baseline bench/results/numbers_rct_offline_baseline.json
                                                         # offline, all dev items -> bench/results/numbers_rct_offline.json
    python bench/numbers_rct.py --extractor llm --limit 20   # local LLM, resumable (rows cached in bench/results/numbers_rct_llm_rows.jsonl)

Definitions follow Yun et al.'s evaluation code (see claimtrace.numbers.scoring). CIs: exact
(Clopper-Pearson) for accuracies and shares, bootstrap (2000 resamples, percentile) for MAEs.
Speed: seconds per ICO (median over items of the extraction call; documents are read once per article
and their reading time is included in the first item of each article).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import REPO, Run

DATA = REPO.parent / "shared" / "data" / "rct-numeric"
GPT4 = {"binary": 0.655, "continuous": 0.487}  # Yun et al. 2024, exact match, all fields of an item


def _ci(k: int, n: int) -> list[float] | None:
    from statsmodels.stats.proportion import proportion_confint

    if n == 0:
        return None
    lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
    return [round(float(lo), 4), round(float(hi), 4)]


def _boot_mae(errs: list[float], seed: int = 0) -> list[float] | None:
    import numpy as np

    if not errs:
        return None
    rng = np.random.default_rng(seed)
    a = np.asarray(errs)
    means = a[rng.integers(0, len(a), size=(2000, len(a)))].mean(axis=1)
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def _cluster_ci(rows: list[dict[str, Any]], seed: int = 0) -> list[float] | None:
    """95% bootstrap interval of the all-fields accuracy resampling articles (items of one article together)."""
    import numpy as np

    by: dict[str, list[int]] = {}
    for r in rows:
        by.setdefault(str(r.get("pmcid")), []).append(int(r["all_correct"]))
    if len(by) < 2:
        return None
    groups = list(by.values())
    k = np.array([sum(g) for g in groups])
    n = np.array([len(g) for g in groups])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(groups), size=(2000, len(groups)))
    acc = k[idx].sum(axis=1) / n[idx].sum(axis=1)
    return [round(float(np.percentile(acc, 2.5)), 4), round(float(np.percentile(acc, 97.5)), 4)]


def versus(rows: list[dict[str, Any]], baseline: dict[str, Any]) -> dict[str, Any]:
    """Items gained and lost (all fields exact) against an earlier result file, and how many articles each spans."""
    before = {str(r["id"]): r for r in baseline["rows"]}
    out: dict[str, Any] = {"baseline_commit": baseline["provenance"].get("commit")}
    for kind in ("binary", "continuous"):
        rs = [r for r in rows if r["outcome_type"] == kind and str(r["id"]) in before]
        gained = [r for r in rs if r["all_correct"] and not before[str(r["id"])]["all_correct"]]
        lost = [r for r in rs if not r["all_correct"] and before[str(r["id"])]["all_correct"]]
        out[kind] = {"n": len(rs), "gained": len(gained), "gained_articles": len({r["pmcid"] for r in gained}),
                     "lost": len(lost), "lost_articles": len({r["pmcid"] for r in lost}),
                     "before": round(sum(before[str(r["id"])]["all_correct"] for r in rs) / len(rs), 4) if rs else None}
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Metrics per outcome type from scored rows."""
    out: dict[str, Any] = {}
    for kind in ("binary", "continuous"):
        rs = [r for r in rows if r["outcome_type"] == kind]
        n = len(rs)
        if not n:
            continue
        per_field = {}
        for f in rs[0]["correct"]:
            k = sum(r["correct"][f] for r in rs)
            per_field[f] = {"accuracy": round(k / n, 4), "ci95": _ci(k, n)}
        k_all = sum(r["all_correct"] for r in rs)
        k_comp = sum(r["estimate"] is not None for r in rs)
        errs = [abs(r["estimate"] - r["reference_estimate"]) for r in rs
                if r["estimate"] is not None and r["reference_estimate"] is not None]
        k_type = sum(r["predicted_type"] == kind for r in rs)
        errors: dict[str, dict[str, int]] = {}
        for r in rs:
            for f, cat in r.get("errors", {}).items():
                errors.setdefault(f, {})
                errors[f][cat] = errors[f].get(cat, 0) + 1
        out[kind] = {
            "n": n,
            "articles": len({r.get("pmcid") for r in rs}),
            "exact_match_all_fields": {"accuracy": round(k_all / n, 4), "ci95": _ci(k_all, n),
                                       "ci95_articles_resampled": _cluster_ci(rs)},
            "gpt4_published": GPT4[kind],
            "per_field": per_field,
            "outcome_type_accuracy": {"accuracy": round(k_type / n, 4), "ci95": _ci(k_type, n)},
            "computable_share": {"share": round(k_comp / n, 4), "ci95": _ci(k_comp, n)},
            "mae_" + ("log_or" if kind == "binary" else "smd"): {
                "n": len(errs), "mae": round(statistics.fmean(errs), 4) if errs else None, "ci95": _boot_mae(errs)},
            "errors_by_field": errors,
        }
    return out


def _fmt(m: dict[str, Any], key: str = "accuracy") -> str:
    lo, hi = m["ci95"]
    return f"{m[key]:.3f} [{lo:.3f}, {hi:.3f}]"


RESULT_FILES = ("numbers_rct_offline.json", "numbers_rct_offline_20.json", "numbers_rct_llm_20.json",
                "numbers_rct_llm-alone_20.json")


def lines() -> list[str]:
    """docs/results/numbers.md from the committed result files (bench/results_pages.py calls this)."""
    res_dir = REPO / "bench" / "results"
    runs = [(name, json.loads((res_dir / name).read_text())) for name in RESULT_FILES if (res_dir / name).exists()]
    out = ["# Numbers for meta-analysis on rct-numeric (Yun et al. 2024)", "",
           "`claimtrace numbers` scored against the rct-numeric dev annotations (Yun et al. 2024: 40 articles, "
           "annotated by the dataset's authors) with the definitions of their evaluation code "
           "(hyesunyun/llm-meta-analysis, read, not copied): an empty reference field is \"x\" and an "
           "abstention matches it; an item is correct when all its fields are (4 for binary, 6 for continuous); "
           "log OR (0.5 added to every cell when one is zero; undefined when both arms have no events or only "
           "events) and SMD = (m1 − m2) / √((sd1² + sd2²) / 2) from the output and the reference; MAE over items "
           "where both exist. CIs: exact (Clopper–Pearson) for accuracies and shares, bootstrap (2000 resamples) "
           "for MAEs; items of one article are not independent, so the intervals are too narrow.",
           "",
           "**Development data**: the offline rules were written while looking at this set. GPT-4's figures are "
           "the published ones on Yun et al.'s test set, not on this set. The LLM is the shared local "
           "Qwen2.5-Coder-1.5B (llama.cpp), temperature 0, on items spread evenly over the set; the offline "
           "row on the same items is beside it. Two LLM policies: *llm alone* takes every field from the LLM's "
           "answer (the published design); *llm (fills what the rules leave open)* is `--extractor llm`'s "
           "default: the LLM is asked only when the offline rules leave a field open, fills only those fields, "
           "decides the outcome type only when the rules read no events, mean or SD, and is not used when its "
           "answer does not complete the item (no effect size computable). Every number the LLM "
           "returns must occur in the selected text.", "",
           "| run | type | n (articles) | all fields exact (95% CI) | articles resampled | GPT-4 (published) | "
           "computable (95% CI) | MAE (n) [95% CI] |",
           "|---|---|---|---|---|---|---|---|"]
    for _, r in runs:
        run_name = f"{r['extractor']}, {r['selection']}" + (
            f" ({r['items']} of {r['items_planned']} done)" if r["items"] < r.get("items_planned", r["items"]) else "")
        for kind, m in r["metrics"].items():
            mae = m.get("mae_log_or") or m.get("mae_smd")
            mae_s = (f"{mae['mae']:.3f} ({mae['n']}) [{mae['ci95'][0]:.3f}, {mae['ci95'][1]:.3f}]"
                     if mae and mae["mae"] is not None else "— (0)")
            measure = "log OR" if kind == "binary" else "SMD"
            em = m["exact_match_all_fields"]
            cl = em.get("ci95_articles_resampled")
            cl_s = f"[{cl[0]:.3f}, {cl[1]:.3f}]" if cl else "—"
            arts = f" ({m['articles']})" if m.get("articles") else ""
            out.append(f"| {run_name} | {kind} | {m['n']}{arts} | {_fmt(em)} | {cl_s} | "
                       f"{m['gpt4_published']} | {_fmt(m['computable_share'], 'share')} | {measure}: {mae_s} |")
    out += ["", "\"Articles resampled\": a bootstrap interval (2000 resamples) that draws whole articles, so the "
            "items of one article stay together; it is the one to read when items cluster by article."]
    for _, r in runs:
        if r["extractor"] != "offline" or r["selection"] != "all items":
            continue
        sp = r["speed_seconds_per_ico"]
        mach = r["provenance"]["machine"]
        out += ["", f"Speed, offline: median {sp['median']} s per ICO over {sp['n']} ICOs on {mach['cores']} cores "
                f"(1-min load average at start/end {mach['load_average_at_start'][0]}/"
                f"{mach['load_average_at_end'][0]}, loaded: {str(mach['loaded']).lower()}"
                + ("; a loaded run's time is an upper bound, not the speed)." if mach["loaded"] else ").")]
        vb = r.get("versus_baseline")
        if vb:
            out += ["", f"Against the result before the rules of issue 19's binary pass (commit "
                    f"`{str(vb['baseline_commit'])[:7]}`, `bench/results/numbers_rct_offline_baseline.json`), all fields "
                    "exact:", "", "| type | n | before | now | items gained (articles) | items lost (articles) |",
                    "|---|---|---|---|---|---|"]
            for kind in ("binary", "continuous"):
                v = vb.get(kind)
                if v and v["n"]:
                    now = r["metrics"][kind]["exact_match_all_fields"]["accuracy"]
                    out.append(f"| {kind} | {v['n']} | {v['before']:.3f} | {now:.3f} | {v['gained']} "
                               f"({v['gained_articles']}) | {v['lost']} ({v['lost_articles']}) |")
        out += ["", "Per field, exact match [95% CI] (n as in the table above):", "",
                "| type | field | " + " | ".join(f"{x['extractor']}, {x['selection']}" for _, x in runs) + " |",
                "|---|---|" + "---|" * len(runs)]
        for kind, m in r["metrics"].items():
            for fname in m["per_field"]:
                cells = [_fmt(x["metrics"][kind]["per_field"][fname]) if kind in x["metrics"] else "—" for _, x in runs]
                out.append(f"| {kind} | {fname} | " + " | ".join(cells) + " |")
        out += ["", "Why a field is wrong (offline, all items; counts of fields; \"written\" means the reference "
                "value occurs verbatim somewhere in the article's text or tables, not necessarily for this ICO):", "",
                "| type | field | category | fields |", "|---|---|---|---|"]
        for kind, m in r["metrics"].items():
            for fname, cats in m.get("errors_by_field", {}).items():
                for cat, k in sorted(cats.items(), key=lambda x: -x[1]):
                    out.append(f"| {kind} | {fname} | {cat} | {k} |")
    out += ["", "Reproduce: `python bench/numbers_rct.py --baseline bench/results/numbers_rct_offline_baseline.json` "
            "(offline, all items), `python bench/numbers_rct.py --limit 20` "
            "(offline, the LLM run's items), `CLAIMTRACE_LLM_BASE_URL=http://127.0.0.1:8089/v1 "
            "CLAIMTRACE_LLM_MODEL=… python bench/numbers_rct.py --extractor llm --limit 20 [--llm-policy alone]` "
            "(resumable: rows in `bench/results/numbers_rct_llm_rows.jsonl` or `numbers_rct_llm-alone_rows.jsonl`; `--summarise-only` writes the summary of the rows done), "
            "then `python bench/results_pages.py`."]
    import i29_remeasure
    import numbers_split

    return out + numbers_split.lines() + i29_remeasure.lines()


def main() -> None:
    """Run the benchmark and write the JSON result."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--extractor", choices=("offline", "llm"), default="offline")
    ap.add_argument("--llm-policy", choices=("fill", "alone"), default="fill",
                    help="with --extractor llm: the LLM fills what the rules leave open (fill), or answers alone")
    ap.add_argument("--limit", type=int, default=0, help="N items evenly spaced over the set (0: all)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--baseline", type=Path, default=None,
                    help="an earlier result file of the same selection: count the items gained and lost, and their articles")
    ap.add_argument("--summarise-only", action="store_true",
                    help="with --extractor llm: summarise the rows already done, run nothing new")
    args = ap.parse_args()
    dev = DATA / "dev.json"
    if not dev.exists():
        sys.exit(f"error: {dev} not found (../shared/data/rct-numeric is needed)")
    from claimtrace.documents import load_document
    from claimtrace.numbers.extract import extract_numbers
    from claimtrace.numbers.scoring import error_categories, score_item

    items = json.loads(dev.read_text())
    if args.limit:
        step = max(1, len(items) // args.limit)
        items = items[::step][: args.limit]
    xmls = sorted({DATA / "xml" / f"PMC{it['pmcid']}.xml" for it in items})
    run = Run(data=[dev, *xmls])
    rows_path = REPO / "bench" / "results" / f"numbers_rct_{_tag(args)}_rows.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if args.extractor == "llm" and rows_path.exists():
        for line in rows_path.read_text().splitlines():
            r = json.loads(line)
            done[str(r["id"])] = r
    client = None
    if args.extractor == "llm" and not args.summarise_only:
        from claimtrace.llm import LLMClient, load_settings

        client = LLMClient(load_settings())
    cache: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    times: list[float] = []
    fh = rows_path.open("a") if args.extractor == "llm" else None
    for it in items:
        if str(it["id"]) in done:
            rows.append(done[str(it["id"])])
            if "seconds" in done[str(it["id"])]:
                times.append(done[str(it["id"])]["seconds"])
            continue
        if args.summarise_only:
            continue
        path = DATA / "xml" / f"PMC{it['pmcid']}.xml"
        t0 = time.perf_counter()
        if str(path) not in cache:
            cache[str(path)] = load_document(path)
        doc = cache[str(path)]
        if client is not None:
            from claimtrace.numbers.llm import extract_numbers_llm

            res = extract_numbers_llm(doc, it["intervention"], it["comparator"], it["outcome"], client=client,
                                      policy=args.llm_policy)
        else:
            res = extract_numbers(doc, it["intervention"], it["comparator"], it["outcome"])
        times.append(time.perf_counter() - t0)
        scored = score_item(it, res)
        text = "\n".join((doc.abstract_text, doc.body_text, doc.tables_text))
        row = {"id": it["id"], "pmcid": it["pmcid"], **scored, "flags": res.flags,
               "errors": error_categories(it, scored, text), "seconds": round(times[-1], 3)}
        rows.append(row)
        if fh is not None:
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            _write(args, rows, times, xmls, run, len(items), final=False)  # an interrupted run keeps its summary
    if fh is not None:
        fh.close()
    _write(args, rows, times, xmls, run, len(items), final=True)


def _tag(args: argparse.Namespace) -> str:
    """The run's name in file names: offline, llm (the LLM fills what the rules leave open) or llm-alone."""
    return "llm-alone" if args.extractor == "llm" and args.llm_policy == "alone" else args.extractor


def _write(args: argparse.Namespace, rows: list[dict[str, Any]], times: list[float], xmls: list[Path], run: Run,
           planned: int, *, final: bool) -> None:
    result = {
        "schema_version": "1",
        "benchmark": "rct-numeric dev (Yun et al. 2024 annotations), exact match with their definitions",
        "extractor": {"llm": "llm (fills what the rules leave open)", "llm-alone": "llm alone"}.get(_tag(args),
                                                                                                 args.extractor),
        "selection": f"{args.limit} items evenly spaced over dev.json" if args.limit else "all items",
        "items": len(rows),
        "items_planned": planned,
        "speed_note": "the LLM rows' time includes waiting for the shared local server" if args.extractor == "llm" else "",
        "articles": len(xmls),
        "note": "development data: the offline rules were written while looking at this set",
        "metrics": summarise(rows),
        "versus_baseline": versus(rows, json.loads(args.baseline.read_text())) if args.baseline else None,
        "speed_seconds_per_ico": {"median": round(statistics.median(times), 4) if times else None,
                                  "n": len(times)},
        "rows": [{k: r.get(k) for k in ("id", "pmcid", "outcome_type", "all_correct", "correct", "errors", "flags")}
                 for r in rows],
        "provenance": run.finish(),
    }
    suffix = f"_{args.limit}" if args.limit else ""
    out = args.out or REPO / "bench" / "results" / f"numbers_rct_{_tag(args)}{suffix}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    if not final:
        return
    print(json.dumps(result["metrics"], indent=1)[:3000], file=sys.stderr)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
