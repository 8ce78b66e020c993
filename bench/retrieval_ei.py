"""Evidence-Inference validation: paragraph recall@1/3/5 and sentence hit@1/3 per retriever (and reranker).

Runs `claimtrace retrieve --batch` on the inputs of ../shared/tools/ei_eval.py and scores the output
with the same tool (body spans only; `--with-abstract` for the whole-article variant).

    .venv/bin/python bench/retrieval_ei.py [--retrievers bm25,dense,hybrid,finetuned:DIR] [--limit N]
Writes bench/results/retrieval_ei.json (merging with earlier rows; each row keeps its per-prompt hit@1 and
its own provenance block) and prints the table.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
CLI = [sys.executable, "-m", "claimtrace"]
RESULTS = REPO / "bench" / "results" / "retrieval_ei.json"


def run(cmd: list[str], **kw: object) -> str:
    """Run a command, fail loudly."""
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return str(res.stdout)


def score(out: Path, with_abstract: bool, ids: list[str] | None = None) -> dict:
    """ei_eval.py score on a retrieve batch output (with `ids`, only those prompts; the scorer's own definitions),
    plus the per-prompt hit@1 (`hit@1_by_prompt`) for paired comparisons."""
    spec = importlib.util.spec_from_file_location("ei_eval", TOOLS / "ei_eval.py")
    ev = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(ev)  # type: ignore[union-attr]
    want = set(ids) if ids is not None else None
    ps = {p["prompt_id"]: p for p in ev.prompts("validation", not with_abstract) if want is None or p["prompt_id"] in want}
    rows = {str(r["id"]): r for r in (json.loads(x) for x in out.read_text().splitlines() if x.strip())}
    res: dict = {"items": len(ps), "missing_rows": len(set(ps) - set(rows))}
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


def main() -> None:
    """Run the configurations and write the results."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--retrievers", default="bm25,dense,hybrid")
    ap.add_argument("--rerank", default="none")
    ap.add_argument("-m", type=int, default=30, help="candidates before reranking")
    ap.add_argument("--units", default="paragraph,sentence")
    ap.add_argument("--variants", default="body,whole")
    ap.add_argument("--limit", type=int, default=None, help="only the first N prompts (e.g. for the LLM row)")
    ap.add_argument("--work", default="/tmp/claimtrace-bench-ei")
    ap.add_argument("--resume", action="store_true", help="keep an earlier output in --work and resume it")
    a = ap.parse_args()
    model = REPO / "src" / "claimtrace" / "resources" / "retriever"
    prov = Run(data=[TOOLS / "ei_eval.py", REPO.parent / "shared" / "data" / "evidence-inference" / "validation",
                     model / "model.onnx", model / "heads.npz"])
    rr_label = a.rerank.split(":")[0] + ("-m" + str(a.m) if a.rerank != "none" else "")
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"rows": []}
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
                run(cmd, env={**os.environ})
                secs = time.time() - t0
                s = score(out, whole, [json.loads(x)["id"] for x in lines] if a.limit else None)
                label = retriever if not retriever.startswith(("finetuned:", "hybrid-finetuned:")) else \
                    retriever.split(":")[0]
                row = {"variant": "body spans" if not whole else "whole article", "retriever": label,
                       "rerank": rr_label, "rerank_spec": a.rerank, "unit": unit, "prompts": s["items"], "missing": s["missing_rows"],
                       "hit@1": s["hit@1"], "hit@3": s["hit@3"], "hit@5": s["hit@5"], "seconds": round(secs, 1),
                       "model": retriever if label != retriever else None,
                       "subset": f"first {len(lines)} prompts" if a.limit else None,
                       "hit@1_by_prompt": s["hit@1_by_prompt"], "hits_by_prompt": s["hits_by_prompt"],
                       "provenance": copy.deepcopy(prov.finish())}
                print(json.dumps(row), flush=True)
                rows["rows"] = [r for r in rows["rows"] if not (
                    r["variant"] == row["variant"] and r["retriever"] == label and r["rerank"] == rr_label
                    and r["unit"] == unit and r["prompts"] == row["prompts"])] + [row]
                add_paired(rows["rows"])
                RESULTS.write_text(json.dumps(rows, indent=1) + "\n")


def add_paired(rows: list[dict]) -> None:
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


if __name__ == "__main__":
    main()
