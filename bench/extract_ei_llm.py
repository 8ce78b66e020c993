"""EI validation, stage 2, the local LLM through the OpenAI-compatible backend, on a subset of prompts.

Runs `claimtrace extract --batch --extractor llm` (resumable --out) on the first N prompts that have a
body gold span, then scores that subset with ../shared/tools/ei_eval.py's definitions beside the
embedded extractor and the BM25 baseline on the same prompts (from bench/extract_ei.py's outputs).
Writes bench/results/extract_ei_llm.json.

    scripts/local-llm.sh start
    .venv/bin/python bench/extract_ei_llm.py --n 20 --config rag-k5 --url http://127.0.0.1:8089/v1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO.parent / "shared" / "tools"
WORK = REPO / "bench" / "results" / "ei_runs"


def subset_score(rows_path: Path, ids: list[str], split: str) -> dict[str, float]:
    """hit@1 and mean evidence length over the given prompt ids (missing rows count as misses)."""
    sys.path.insert(0, str(TOOLS))
    import ei_eval

    gold = {p["prompt_id"]: p for p in ei_eval.prompts(split, True)}
    rows = {str(r["id"]): r for r in map(json.loads, rows_path.read_text().splitlines())} if rows_path.exists() else {}
    hits, lens, flags = 0, [], 0
    for i in ids:
        tr = ((rows.get(i) or {}).get("traces") or [{}])[0] or {}
        ev = tr.get("evidence") or {}
        hits += any(ei_eval.overlaps(e["text"], ev.get("text", "")) for e in gold[i]["evidence"])
        if ev:
            lens.append(len(ev.get("sentence_ids") or []) or 1)
        flags += any(f.get("code") == "quote_not_found" for f in tr.get("flags") or [])
    return {"items": len(ids), "evidence_hit@1": round(hits / len(ids), 3),
            "with_evidence": len(lens), "mean_evidence_sentences": round(sum(lens) / max(len(lens), 1), 3),
            "quote_not_found": flags}


def main() -> None:
    """Run the LLM subset and write the table."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--split", default="validation")
    ap.add_argument("--config", default="rag-k5")
    ap.add_argument("--url", default="http://127.0.0.1:8089/v1")
    ap.add_argument("--model", default="qwen2.5-coder-1.5b-instruct-q4_k_m")
    ap.add_argument("--settings", help="LLM settings file (e.g. a longer timeout for a loaded CPU)")
    ap.add_argument("--stage2-only", action="store_true",
                    help="give the finding as the hypothesis too (skips stage 1: one LLM call per prompt)")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    run = Run(data=[TOOLS / "ei_eval.py", REPO.parent / "shared" / "data" / "evidence-inference" / args.split])
    lines = subprocess.run([sys.executable, str(TOOLS / "ei_eval.py"), "inputs", args.split, "extract"], check=True,
                           capture_output=True, text=True).stdout.splitlines()[: args.n]
    if args.stage2_only:
        lines = [json.dumps({**o, "findings": [{"text": o["findings"][0], "hypothesis": o["findings"][0]}]})
                 for o in map(json.loads, lines)]
    manifest = WORK / f"ei_{args.split}_extract_first{args.n}.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    ids = [str(json.loads(x)["id"]) for x in lines]
    tag = "_stage2" if args.stage2_only else ""
    out = WORK / f"llm_{args.config}_{args.split}_first{args.n}{tag}.jsonl"
    cmd = [str(REPO / ".venv" / "bin" / "claimtrace"), "extract", "--batch", str(manifest), "--out", str(out),
           "--extractor", "llm", "--config", args.config, "--llm-base-url", args.url, "--llm-model", args.model]
    if args.settings:
        cmd += ["--llm-settings", args.settings]
    subprocess.run(cmd, check=False)
    rows = [{"system": f"local LLM ({args.model}, {args.config}, zero-shot{', stage 2 only' if args.stage2_only else ''})",
             **subset_score(out, ids, args.split)}]
    for name, path in (("embedded (bm25, fulltext-zeroshot)", WORK / f"embedded_bm25_fulltext-zeroshot_{args.split}.jsonl"),
                       ("BM25 top-1 sentence (baseline)", WORK / f"bm25_top1_{args.split}.jsonl")):
        rows.append({"system": name, **subset_score(path, ids, args.split)})
    result = {"split": args.split, "subset": f"first {len(ids)} EI {args.split} prompts with a body gold span",
              "ids": ids, "rows": rows, "provenance": run.finish()}
    (REPO / "bench" / "results" / "extract_ei_llm.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
