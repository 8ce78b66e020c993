"""Conclusions on Evidence Inference: macro-F1 (3 EI labels) of `claimtrace conclude --batch`, scored by
../shared/tools/ei_eval.py (`--with-abstract`), against the majority-class baseline.

    .venv/bin/python bench/conclude_ei.py [--split validation] [--method offline] [--limit N] [--out-dir DIR]
        [--llm-base-url URL --llm-model NAME]

Runs the real CLI on the batch input that ei_eval.py builds, resumes with --out (the slow local LLM), then
scores with the project's scorer. Adds what the scorer does not report: the majority-class baseline on the
same items, the abstention rate and macro-F1 / accuracy on the items the method answers. Writes
bench/results/conclude_ei_<method>[_<limit>].json with the per-item predictions, a 95% bootstrap interval
for macro-F1 and a paired bootstrap interval for the difference to the majority baseline, and (whole split
only) the score on the body-only prompts (the scorer without `--with-abstract`).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from claimtrace.evaluate.uncertainty import bootstrap_ci, paired_bootstrap_diff
from claimtrace.evaluate.uncertainty import macro_f1 as macro_f1_items
from provenance import Run

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO.parent / "shared" / "tools" / "ei_eval.py"
LABELS = ("significantly increased", "significantly decreased", "no significant difference")


def macro_f1(gold: dict[str, str], pred: dict[str, str | None]) -> tuple[float, dict[str, float]]:
    """Macro-F1 over the three EI labels; anything else counts as wrong (like ei_eval.py)."""
    per = {}
    for c in LABELS:
        tp = sum(pred.get(i) == c and g == c for i, g in gold.items())
        fp = sum(pred.get(i) == c and g != c for i, g in gold.items())
        fn = sum(pred.get(i) != c and g == c for i, g in gold.items())
        per[c] = 2 * tp / max(2 * tp + fp + fn, 1)
    return sum(per.values()) / 3, per


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="validation")
    ap.add_argument("--method", default="offline")
    ap.add_argument("--limit", type=int, default=0, help="first N items only (a subset for slow LLM runs)")
    ap.add_argument("--out-dir", default=str(REPO / "bench" / "results"))
    ap.add_argument("--llm-base-url")
    ap.add_argument("--llm-model")
    args = ap.parse_args()
    if not TOOL.exists():
        sys.exit(f"scorer not found: {TOOL}")
    run = Run(data=[TOOL, REPO.parent / "shared" / "data" / "evidence-inference" / args.split])
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = f"conclude_ei_{args.method}" + (f"_{args.split}" if args.split != "validation" else "") + (f"_{args.limit}" if args.limit else "")
    inputs = out_dir / f"{tag}.inputs.jsonl"
    rows = subprocess.run([sys.executable, str(TOOL), "inputs", args.split, "conclude", "--with-abstract"],
                          check=True, capture_output=True, text=True).stdout.splitlines()
    if args.limit:
        rows = rows[: args.limit]
    inputs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = out_dir / f"{tag}.jsonl"
    cmd = [sys.executable, "-m", "claimtrace", "conclude", "--batch", str(inputs), "--out", str(out),
           "--method", args.method]
    if args.llm_base_url:
        cmd += ["--llm-base-url", args.llm_base_url]
    if args.llm_model:
        cmd += ["--llm-model", args.llm_model]
    if not args.llm_base_url:  # offline runs start afresh; LLM runs resume
        out.unlink(missing_ok=True)
    t0 = time.time()
    subprocess.run(cmd, check=False, env={**os.environ})
    wall = time.time() - t0
    # the official scorer on the same rows (all prompts of the split when no limit)
    scored = subprocess.run([sys.executable, str(TOOL), "score", args.split, "conclude", str(out), "--with-abstract"],
                            check=True, capture_output=True, text=True).stdout
    official = json.loads(scored)
    ids = [json.loads(r)["id"] for r in rows]
    prompts = {}
    with open(REPO.parent / "shared" / "data" / "evidence-inference" / args.split / "prompts.jsonl") as fh:
        for line in fh:
            p = json.loads(line)
            prompts[p["prompt_id"]] = p["label"]
    gold = {i: prompts[i] for i in ids}
    got = {str(r["id"]): r for r in (json.loads(x) for x in out.read_text().splitlines() if x.strip())}
    pred = {i: (got.get(i) or {}).get("label") for i in ids}
    f1, per = macro_f1(gold, pred)
    majority = collections.Counter(gold.values()).most_common(1)[0][0]
    maj_f1, _ = macro_f1(gold, {i: majority for i in ids})
    answered = [i for i in ids if pred[i] in LABELS]
    f1_ans, _ = macro_f1({i: gold[i] for i in answered}, pred)
    res = {
        "split": args.split, "method": args.method, "items": len(ids), "subset": bool(args.limit),
        "macro_f1": round(f1, 4), "per_label_f1": {k: round(v, 4) for k, v in per.items()},
        "majority_label": majority, "majority_macro_f1": round(maj_f1, 4),
        "abstention_rate": round(1 - len(answered) / len(ids), 4), "answered": len(answered),
        "macro_f1_answered": round(f1_ans, 4),
        "accuracy_answered": round(sum(pred[i] == gold[i] for i in answered) / max(1, len(answered)), 4),
        "errors": sum(1 for i in ids if (got.get(i) or {}).get("error")),
        "wall_s": round(wall, 1),
        "official_scorer": official,
        "command": " ".join(os.path.relpath(c, REPO) if c.startswith(str(REPO)) else c for c in cmd[3:]),
    }
    codes = {lab: k for k, lab in enumerate(LABELS)}
    g = [codes[gold[i]] for i in ids]
    pr = [codes.get(pred[i] or "", -1) for i in ids]
    maj = [codes[majority]] * len(ids)

    def f1_stat(x: object, y: object) -> float:
        return macro_f1_items(x, y, range(3))  # type: ignore[arg-type]

    res["macro_f1_ci95"] = bootstrap_ci(pr, f1_stat, others=[g]).model_dump()
    res["vs_majority_ci95"] = paired_bootstrap_diff(pr, maj, f1_stat, others=[g]).model_dump()
    if not args.limit:
        body = subprocess.run([sys.executable, str(TOOL), "score", args.split, "conclude", str(out)],
                              check=True, capture_output=True, text=True).stdout
        res["body_only_scorer"] = json.loads(body)
    res["items_detail"] = [{"id": i, "gold": gold[i], "pred": pred[i]} for i in ids]
    res["schema_version"] = "2"
    res["provenance"] = run.finish()
    (out_dir / f"{tag}.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
