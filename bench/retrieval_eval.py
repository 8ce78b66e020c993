"""Retrieval quality per retriever (and reranker) on a scored data set, by `claimtrace retrieve --batch`.

- ``ei``: Evidence-Inference validation, paragraph recall@1/3/5 and sentence hit@1/3/5, scored with
  ../shared/tools/ei_eval.py (body spans only; the ``whole`` variant includes the abstract). Writes
  bench/results/retrieval_ei.json.
- ``evidencebench``: EvidenceBench (96 items), ER@10 and results-aspect ER@5; query = the item's hypothesis,
  sentence units, abstract included; scored with ../shared/tools/evidencebench_eval.py. Writes
  bench/results/retrieval_evidencebench.json.

    .venv/bin/python bench/retrieval_eval.py ei [--retrievers bm25,dense,hybrid,finetuned:DIR] [--limit N]
    .venv/bin/python bench/retrieval_eval.py evidencebench [--retrievers bm25,dense,hybrid,...] [--rerank none]

Each run merges its rows into the result file (a row is replaced by a new run of the same configuration);
each row keeps its per-item scores, its difference from BM25 (95% paired bootstrap interval, n) and its own
provenance block, and is printed as it is written.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from provenance import Run, shared_tool

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
CLI = [sys.executable, "-m", "claimtrace"]
RES = REPO / "bench" / "results"
MODEL = REPO / "src" / "claimtrace" / "resources" / "retriever"


def run(cmd: list[str]) -> str:
    """Run a command, fail loudly."""
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return res.stdout


def score_ei(out: Path, with_abstract: bool, ids: list[str] | None = None) -> dict[str, Any]:
    """ei_eval.py score on a retrieve batch output (with `ids`, only those prompts; the scorer's own definitions),
    plus the per-prompt hit@1 (`hit@1_by_prompt`) for paired comparisons."""
    ev = shared_tool("ei_eval")
    want = set(ids) if ids is not None else None
    ps = {p["prompt_id"]: p for p in ev.prompts("validation", not with_abstract) if want is None or p["prompt_id"] in want}
    rows = {str(r["id"]): r for r in (json.loads(x) for x in out.read_text().splitlines() if x.strip())}
    res: dict[str, Any] = {"items": len(ps), "missing_rows": len(set(ps) - set(rows))}
    for k in (1, 3, 5):
        by = {i: int(any(ev.overlaps(e["text"], h["text"]) for e in p["evidence"]
                         for h in (rows.get(i) or {}).get("hits", [])[:k])) for i, p in ps.items()}
        res[f"hit@{k}"] = sum(by.values()) / len(ps)
        if k == 1:
            res["hit@1_by_prompt"] = by
        res.setdefault("hits_by_prompt", {})
        for i, v in by.items():
            res["hits_by_prompt"].setdefault(i, []).append(v)
    if ids is None:  # the whole split: the official scorer's figures must agree with the per-prompt ones
        args = [sys.executable, str(TOOLS / "ei_eval.py"), "score", "validation", "retrieve", str(out)]
        official = json.loads(run([*args, "--with-abstract"] if with_abstract else args))
        assert all(abs(official[f"hit@{k}"] - res[f"hit@{k}"]) < 1e-12 for k in (1, 3, 5)), official
    return res


def er10_by_item(out: Path) -> dict[str, float]:
    """Each EvidenceBench item's ER@10 (the share of its aspects with a gold sentence in the top 10), by the
    scorer's own rule."""
    ev = shared_tool("evidencebench_eval")
    top = {str(r["id"]): [h["text"] for h in r.get("hits", [])]
           for r in (json.loads(x) for x in out.read_text().splitlines() if x.strip())}
    res = {}
    for it in ev.items():
        t = top.get(it["id"], [])[:10]
        cov = [any(ev.norm(g)[:50] in ev.norm(x) or ev.norm(x)[:50] in ev.norm(g) for g in it["aspects"][a] for x in t)
               for a in it["aspects"]]
        res[it["id"]] = sum(cov) / max(len(cov), 1)
    return res


def add_paired_ei(rows: list[dict[str, Any]]) -> None:
    """Each row with per-prompt hits gets its difference from BM25 (same variant, unit, prompts, no reranker):
    hit@1/3/5 with a 95% paired bootstrap interval and n."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    for r in rows:
        base = next((b for b in rows if b["retriever"] == "bm25" and b["rerank"] == "none" and b["unit"] == r["unit"]
                     and b["variant"] == r["variant"] and b["prompts"] == r["prompts"] and "hits_by_prompt" in b), None)
        if "hits_by_prompt" not in r or base is None or base is r:
            continue
        ids = sorted(r["hits_by_prompt"])
        r["minus_bm25"] = {f"hit@{k}": paired_bootstrap_diff([r["hits_by_prompt"][i][j] for i in ids],
                                                             [base["hits_by_prompt"][i][j] for i in ids]).model_dump()
                           for j, k in enumerate((1, 3, 5))}


def add_paired_evidencebench(rows: list[dict[str, Any]]) -> None:
    """Each row with per-item ER@10 gets its difference from BM25's (95% paired bootstrap interval, n)."""
    from claimtrace.evaluate.uncertainty import paired_bootstrap_diff

    base = next((b for b in rows if b["retriever"] == "bm25" and b["rerank"] == "none" and "ER@10_by_item" in b), None)
    for r in rows:
        if base is None or r is base or "ER@10_by_item" not in r:
            continue
        ids = sorted(r["ER@10_by_item"])
        r["ER@10_minus_bm25"] = paired_bootstrap_diff([r["ER@10_by_item"][i] for i in ids],
                                                      [base["ER@10_by_item"][i] for i in ids]).model_dump()


def _label(retriever: str) -> str:
    """The row's retriever name: a model folder after ``finetuned:`` is recorded apart (``model``)."""
    return retriever.split(":")[0] if retriever.startswith(("finetuned:", "hybrid-finetuned:")) else retriever


def ei(a: argparse.Namespace) -> None:
    """Evidence Inference validation: every variant × retriever × unit."""
    results = RES / "retrieval_ei.json"
    prov = Run(data=[TOOLS / "ei_eval.py", REPO.parent / "shared" / "data" / "evidence-inference" / "validation",
                     MODEL / "model.onnx", MODEL / "heads.npz"])
    rr_label = a.rerank.split(":")[0] + ("-m" + str(a.m) if a.rerank != "none" else "")
    work = Path(a.work or "/tmp/claimtrace-bench-ei")
    work.mkdir(parents=True, exist_ok=True)
    rows = json.loads(results.read_text()) if results.exists() else {"rows": []}
    for variant in a.variants.split(","):
        whole = variant == "whole"
        inp = work / f"inputs-{variant}.jsonl"
        args = [sys.executable, str(TOOLS / "ei_eval.py"), "inputs", "validation", "retrieve"]
        lines = run([*args, "--with-abstract"] if whole else args).splitlines()
        if a.limit:
            lines = lines[: a.limit]
        inp.write_text("\n".join(lines) + "\n")
        for retriever in a.retrievers.split(","):
            for unit in a.units.split(","):
                name = retriever.replace("/", "_").replace(":", "_")[-60:]
                out = work / f"{variant}-{unit}-{name}-{rr_label}-{len(lines)}.jsonl"
                if out.exists() and not a.resume:
                    out.unlink()
                cmd = [*CLI, "retrieve", "--batch", str(inp), "--out", str(out), "--retriever", retriever,
                       "--unit", unit, "-k", "5", "--rerank", a.rerank, "-m", str(a.m)]
                if whole:
                    cmd.append("--include-abstract")
                if a.rerank == "llm":
                    cmd += ["--rerank-log", str(work / f"rerank-log-{unit}.jsonl")]
                t0 = time.time()
                run(cmd)
                secs = time.time() - t0
                s = score_ei(out, whole, [json.loads(x)["id"] for x in lines] if a.limit else None)
                label = _label(retriever)
                row = {"variant": "body spans" if not whole else "whole article", "retriever": label,
                       "rerank": rr_label, "rerank_spec": a.rerank, "unit": unit, "prompts": s["items"],
                       "missing": s["missing_rows"], "hit@1": s["hit@1"], "hit@3": s["hit@3"], "hit@5": s["hit@5"],
                       "seconds": round(secs, 1), "model": retriever if label != retriever else None,
                       "subset": f"first {len(lines)} prompts" if a.limit else None,
                       "hit@1_by_prompt": s["hit@1_by_prompt"], "hits_by_prompt": s["hits_by_prompt"],
                       "provenance": copy.deepcopy(prov.finish())}
                print(json.dumps(row), flush=True)
                rows["rows"] = [r for r in rows["rows"] if not (
                    r["variant"] == row["variant"] and r["retriever"] == label and r["rerank"] == rr_label
                    and r["unit"] == unit and r["prompts"] == row["prompts"])] + [row]
                add_paired_ei(rows["rows"])
                results.write_text(json.dumps(rows, indent=1) + "\n")


def evidencebench(a: argparse.Namespace) -> None:
    """EvidenceBench: every retriever over the 96 items."""
    results = RES / "retrieval_evidencebench.json"
    scorer = TOOLS / "evidencebench_eval.py"
    prov = Run(data=[scorer, TOOLS.parent / "data" / "evidencebench" / "items.jsonl",
                     MODEL / "model.onnx", MODEL / "heads.npz"])
    rr_label = a.rerank.split(":")[0] + ("-m" + str(a.m) if a.rerank != "none" else "")
    work = Path(a.work or "/tmp/claimtrace-bench-eb")
    work.mkdir(parents=True, exist_ok=True)
    inp = work / "inputs.jsonl"
    inp.write_text(run([sys.executable, str(scorer), "inputs"]))
    rows = json.loads(results.read_text()) if results.exists() else {"rows": []}
    for retriever in a.retrievers.split(","):
        label = retriever.split(":")[0]
        out = work / f"{label}-{rr_label}.jsonl"
        if out.exists():
            out.unlink()
        t0 = time.time()
        run([*CLI, "retrieve", "--batch", str(inp), "--out", str(out), "--retriever", retriever, "--unit", "sentence",
             "--include-abstract", "-k", "10", "--rerank", a.rerank, "-m", str(a.m)])
        secs = time.time() - t0
        s = json.loads(run([sys.executable, str(scorer), "score", str(out)]))
        per = er10_by_item(out)
        assert abs(sum(per.values()) / len(per) - s["ER@10"]) < 6e-4, (s, sum(per.values()) / len(per))
        row = {"retriever": label, "rerank": rr_label, "rerank_spec": a.rerank, "papers": s["papers"],
               "missing": s["missing_rows"], "ER@10": s["ER@10"], "results_ER@5": s["results_ER@5"],
               "seconds": round(secs, 1), "model": retriever if label != retriever else None, "ER@10_by_item": per,
               "provenance": copy.deepcopy(prov.finish())}
        print(json.dumps(row), flush=True)
        rows["rows"] = [r for r in rows["rows"] if not (r["retriever"] == label and r["rerank"] == rr_label)] + [row]
        add_paired_evidencebench(rows["rows"])
        results.write_text(json.dumps(rows, indent=1) + "\n")


def main() -> None:
    """Run the configurations on one data set and write its result file."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", choices=["ei", "evidencebench"])
    ap.add_argument("--retrievers", default="bm25,dense,hybrid")
    ap.add_argument("--rerank", default="none")
    ap.add_argument("-m", type=int, default=30, help="candidates before reranking")
    ap.add_argument("--work", default=None, help="folder for the batch inputs and outputs (default under /tmp)")
    ei_only = ap.add_argument_group("ei only")
    ei_only.add_argument("--units", default="paragraph,sentence")
    ei_only.add_argument("--variants", default="body,whole")
    ei_only.add_argument("--limit", type=int, default=None, help="only the first N prompts (e.g. for the LLM row)")
    ei_only.add_argument("--resume", action="store_true", help="keep an earlier output in --work and resume it")
    a = ap.parse_args()
    if not TOOLS.is_dir():
        print(f"error: {TOOLS} is absent (the shared scorers)", file=sys.stderr)
        raise SystemExit(2)
    (ei if a.dataset == "ei" else evidencebench)(a)


if __name__ == "__main__":
    main()
