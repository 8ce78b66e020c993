"""Paired comparison inside an experiment output folder: every extractor scored on the items the
slowest one finished (e.g. the local LLM's subset), so the rows compare like with like (evidence and,
where the dataset has hypothesis gold, hypothesis scores).

    python bench/experiment_paired.py docs/results/ei-validation --out bench/results/ei_validation_paired.json

Each row gives an exact 95% interval for hit@1; each extractor after the first of a configuration is
compared with the first on the same items (paired bootstrap interval of the hit@1 difference, exact
McNemar test). Needs the folder's `items/` (not committed: they quote the articles; the experiment
runner regenerates them).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from claimtrace.evaluate.evidence import EvidenceScore, micro_evidence
from claimtrace.evaluate.metrics import micro, prf
from claimtrace.evaluate.uncertainty import mcnemar_exact, paired_bootstrap_diff, proportion_ci
from provenance import Run


def main() -> None:
    """Print and write evidence P/R/F1 and hit@1 per (configuration, extractor) on the shared item ids."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folder", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    run = Run(data=[args.folder / "items"])
    rows: dict[tuple[str, str], dict[str, dict]] = {}
    for f in sorted((args.folder / "items").glob("*__*.jsonl")):
        preset, ex = f.stem.split("__")
        ok = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        rows[(preset, ex)] = {r["id"]: r for r in ok if not r.get("error") and ("evidence" in r or "hypothesis" in r)}
    by_preset: dict[str, list[str]] = defaultdict(list)
    for preset, ex in rows:
        by_preset[preset].append(ex)
    out = []
    for preset, exs in by_preset.items():
        if len(exs) < 2:
            continue
        common = set.intersection(*(set(rows[(preset, e)]) for e in exs))
        first: list[bool] | None = None
        for ex in sorted(exs):
            rs = [rows[(preset, ex)][i] for i in sorted(common)]
            evs = [EvidenceScore.model_validate(r["evidence"]) for r in rs if "evidence" in r]
            e = micro_evidence(evs) if evs else None
            hit = sum(bool(r.get("evidence_hit")) for r in rs) / len(rs) if evs else None
            hyp = [r["hypothesis"] for r in rs if "hypothesis" in r]
            h = micro(prf(x["tp"], x["fp"], x["fn"], x["tp_gold"]) for x in hyp) if hyp else None
            hhit = sum(bool(r.get("hypothesis_hit")) for r in rs) / len(rs) if hyp else None
            extra: dict[str, object] = {}
            if evs and rs:
                hits = [bool(r.get("evidence_hit")) for r in rs]
                extra["evidence_hit_at_1_ci95"] = proportion_ci(sum(hits), len(hits)).model_dump()
                if first is None:
                    first = hits
                else:
                    extra["vs_first_extractor"] = {
                        "extractor": sorted(exs)[0],
                        "difference_ci95": paired_bootstrap_diff(hits, first).model_dump(),
                        "mcnemar": mcnemar_exact(hits, first).model_dump()}
            out.append({"config": preset, "extractor": ex, "items": len(rs), **extra,
                        "hypothesis_f1": h.f1 if h else None, "hypothesis_hit_at_1": hhit,
                        "evidence_precision": e.precision if e else None, "evidence_recall": e.recall if e else None,
                        "evidence_f1": e.f1 if e else None, "evidence_hit_at_1": hit,
                        "seconds_per_item": sum(r["seconds"] for r in rs) / len(rs) if rs else None})
    print("| Configuration | Extractor | n (shared items) | Hyp F1 | Hyp hit@1 | Ev P | Ev R | Ev F1 | Ev hit@1 | s/item |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for o in out:
        cells: list[str] = [str(o["config"]), str(o["extractor"]), str(o["items"])] + [
            "–" if o[k] is None else f"{o[k]:.3f}" for k in ("hypothesis_f1", "hypothesis_hit_at_1", "evidence_precision",
                                                             "evidence_recall", "evidence_f1", "evidence_hit_at_1")] + [
            "–" if o["seconds_per_item"] is None else f"{o['seconds_per_item']:.1f}"]
        print("| " + " | ".join(cells) + " |")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"schema_version": "2", "folder": str(args.folder), "rows": out,
                                             "provenance": run.finish()}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
