"""Macro/micro F1 per relation type of the graph extractors on the EmpiriGraph-Psy gold abstracts.

Methods: ``offline`` (patterns + statistics engine, no LLM), ``direct`` (one LLM prompt) and
``staged`` (the five-stage LLM pipeline). The LLM methods use the configured LLM (e.g.
``CLAIMTRACE_LLM_BASE_URL=http://127.0.0.1:8089/v1`` with ``scripts/local-llm.sh start``).

Writes bench/results/graph_eval_<method>.json (with a 95% bootstrap interval over abstracts for
macro-F1 and, for the LLM methods, a paired bootstrap interval of the difference to ``offline``) and the
predictions as bench/results/graph_pred_<method>.jsonl, then rebuilds docs/results/graph.md
(bench/results_pages.py). ``--rescore`` scores the committed predictions again without running the
extractor (the LLM methods' predictions are committed; that is how their intervals were added).

Usage: python bench/graph_eval.py --method offline [--gold PATH] [--ids 106,97] [--resume] [--rescore]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from claimtrace.evaluate.uncertainty import bootstrap_ci, paired_bootstrap_diff
from claimtrace.graph import evaluate_graphs, extract_offline, load_labelstudio, score_pair
from claimtrace.graph.model import EmpiricalGraph
from claimtrace.graph.scores import aggregate
from provenance import Run
from results_pages import write_pages

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
GOLD = ROOT.parent / "shared" / "data" / "empirigraph" / "gold_dev.json"
METHODS = ("offline", "direct", "staged")


def _done(path: Path) -> dict[str, EmpiricalGraph]:
    """Predictions already in a predictions file (to resume a slow LLM run)."""
    out: dict[str, EmpiricalGraph] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            gid = row.pop("id")
            out[gid] = EmpiricalGraph.model_validate({**row, "id": gid})
    return out


def run_method(method: str, golds: dict[str, EmpiricalGraph], timeout: float = 1800.0,
               max_tokens: int = 1024, resume: bool = False) -> tuple[dict[str, EmpiricalGraph], dict, list[str]]:
    """Predictions for every gold abstract, each appended to the predictions file as it is done.

    LLM failures are recorded (and scored as empty graphs); with ``resume`` the abstracts already in
    the predictions file are not run again.
    """
    pred_file = RESULTS / f"graph_pred_{method}.jsonl"
    preds: dict[str, EmpiricalGraph] = _done(pred_file) if resume else {}
    if not resume:
        pred_file.write_text("")
    errors: list[str] = []
    info: dict = {}
    client = None
    if method != "offline":
        from claimtrace.llm import LLMClient, load_settings

        # a slow local model: one long request rather than retries of timed-out ones
        settings = load_settings(timeout=timeout, max_retries=1, max_tokens=max_tokens)
        client = LLMClient(settings)
        info["llm"] = settings.describe("graph")
    for gid, g in golds.items():
        if gid in preds:
            continue
        t = time.perf_counter()
        try:
            if method == "offline":
                preds[gid] = extract_offline(g.text or "", gid)
            else:
                from claimtrace.graph.pipeline import run_direct, run_staged

                fn = run_staged if method == "staged" else run_direct
                preds[gid] = fn(g.text or "", gid, client=client)
            with pred_file.open("a") as fh:
                fh.write(json.dumps({"id": gid, **preds[gid].model_dump(mode="json", exclude={"id", "text"})}) + "\n")
        except Exception as exc:  # record and go on
            errors.append(f"{gid}: {type(exc).__name__}: {exc}")
        print(f"{method} {gid}: {time.perf_counter() - t:.1f}s", file=sys.stderr, flush=True)
    if client is not None:
        info["ledger"] = client.summary().model_dump(mode="json")
        client.close()
    return preds, info, errors


def intervals(method: str, preds: dict[str, EmpiricalGraph], golds: dict[str, EmpiricalGraph]) -> dict:
    """Bootstrap intervals over abstracts: macro-F1 (with status) and, unless offline, its difference to offline."""
    ids = list(golds)

    def pairs(p: dict[str, EmpiricalGraph]) -> list:
        return [score_pair(p.get(g) or EmpiricalGraph(id=g), golds[g], use_status=True) for g in ids]

    mine = pairs(preds)
    out = {"macro_f1_ci95": bootstrap_ci(list(range(len(ids))),
                                         lambda ix: aggregate(mine[int(i)] for i in ix).macro_f1).model_dump()}
    off_file = RESULTS / "graph_pred_offline.jsonl"
    if method != "offline" and off_file.exists():
        both = mine + pairs(_done(off_file))
        n = len(ids)
        out["vs_offline_ci95"] = paired_bootstrap_diff(
            list(range(n)), list(range(n, 2 * n)), lambda ix: aggregate(both[int(i)] for i in ix).macro_f1).model_dump()
    return out


def main() -> None:
    """Run one method, score it, write the results and the table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--method", choices=METHODS, default="offline")
    ap.add_argument("--gold", type=Path, default=GOLD)
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--ids", default="", help="comma-separated gold ids to run on (default: all)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per LLM request")
    ap.add_argument("--max-tokens", type=int, default=1024)
    ap.add_argument("--resume", action="store_true", help="keep the predictions already in the predictions file")
    ap.add_argument("--rescore", action="store_true",
                    help="score the committed predictions again (no extraction; keeps the recorded seconds/model)")
    args = ap.parse_args()
    if args.table_only:
        write_pages(["graph"])
        return
    pred_file = RESULTS / f"graph_pred_{args.method}.jsonl"
    run = Run(data=[args.gold, *([pred_file] if args.rescore else [])])
    golds = {g.id: g for g in load_labelstudio(args.gold)}
    if args.ids:
        wanted = [x.strip() for x in args.ids.split(",") if x.strip()]
        golds = {k: golds[k] for k in wanted}
    t0 = time.perf_counter()
    RESULTS.mkdir(parents=True, exist_ok=True)
    result_file = RESULTS / f"graph_eval_{args.method}.json"
    if args.rescore:
        old = json.loads(result_file.read_text())
        preds = {k: v for k, v in _done(pred_file).items() if k in golds}
        info, errors, elapsed = {"llm": old.get("model"), "ledger": old.get("ledger")}, old["errors"], old["seconds"]
    else:
        preds, info, errors = run_method(args.method, golds, args.timeout, args.max_tokens, args.resume)
        preds = {k: v for k, v in preds.items() if k in golds}
        elapsed = round(time.perf_counter() - t0, 1)
    res = evaluate_graphs(preds, golds) if preds else None
    gold_abs = args.gold.absolute()
    gold_rel = "../" + gold_abs.relative_to(ROOT.parent).as_posix() if gold_abs.is_relative_to(ROOT.parent) else str(gold_abs)
    out = {
        "schema_version": "2", "bench": "graph_eval", "method": args.method, "gold": gold_rel,
        "development_data": True, "n_abstracts": len(golds),
        "model": info.get("llm"), "seconds": elapsed, "errors": errors, "ledger": info.get("ledger"),
        "scores": res.model_dump(mode="json") if res else None,
        **(intervals(args.method, preds, golds) if preds else {}),
    }
    if args.rescore:
        out["provenance_note"] = ("predictions from the original run, re-scored by this command; the original run's "
                                  "command, commit and load were not recorded (reconstructed: seconds, model and "
                                  "ledger copied from the earlier result file)")
    out["provenance"] = run.finish()
    result_file.write_text(json.dumps(out, indent=2) + "\n")
    if res:
        print(json.dumps({"method": args.method, "micro_f1": res.micro_f1, "macro_f1": res.macro_f1,
                          "per_type": res.per_type, "no_status": {"micro_f1": res.no_status.micro_f1,
                                                                  "macro_f1": res.no_status.macro_f1}}))
    write_pages(["graph"])


if __name__ == "__main__":
    main()
