"""The findings detector on annotated Psychological Science abstracts (bench/data/psychsci-findings.jsonl).

Sentence level: precision and recall of the chosen finding sentences against the gold labels, per split
(dev: looked at while fixing the detector; test: not looked at), with 95% intervals from a bootstrap over
papers (sentences of one abstract are not independent). Paper level: how many papers get at least one
true finding among the chosen ones, and how many chosen sentences end in a page stamp. Gold annotator:
an LLM agent (Claude, 2026-12-01), not checked by a person (see bench/data/README.md).

A side check on another labelling: the biomedical claim set the model was trained on
(``shared/data/findings``, validation split) labels only *claims* (mostly the closing conclusion), not every
reported result, so the choice rule (model threshold, plus the results block of an unstructured abstract) is
scored there beside the model alone: result sentences the block adds count as false positives there.

    .venv/bin/python bench/findings_psychsci.py [--out bench/results/findings_psychsci.json] [--label NAME]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
GOLD = REPO / "bench" / "data" / "psychsci-findings.jsonl"
DATA = REPO.parent / "shared" / "data" / "documents" / "psychsci"
BOOT = 2000
PAGE_STAMP = re.compile(r"\d{5,7}P ?SSXXX10\.")  # GROBID's page stamp in SAGE PDFs (counted, not fixed, here)


def prf(rows: list[dict[str, int]]) -> dict[str, float | int | None]:
    """Precision, recall and F1 from per-paper tp/fp/fn counts."""
    tp, fp, fn = (sum(r[k] for r in rows) for k in ("tp", "fp", "fn"))
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * p * r / (p + r) if p and r else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": _r(p), "recall": _r(r), "f1": _r(f)}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def bootstrap(rows: list[dict[str, int]], seed: int = 13) -> dict[str, list[float | None]]:
    """95% percentile intervals of precision and recall, resampling papers."""
    rng = random.Random(seed)
    ps: list[float] = []
    rs: list[float] = []
    for _ in range(BOOT):
        sample = [rows[rng.randrange(len(rows))] for _ in rows]
        m = prf(sample)
        if m["precision"] is not None:
            ps.append(float(m["precision"]))
        if m["recall"] is not None:
            rs.append(float(m["recall"]))

    def ci(xs: list[float]) -> list[float | None]:
        if not xs:
            return [None, None]
        xs.sort()
        return [round(xs[int(0.025 * len(xs))], 4), round(xs[min(int(0.975 * len(xs)), len(xs) - 1)], 4)]

    return {"precision_ci95": ci(ps), "recall_ci95": ci(rs)}


def claim_set_check(split: str = "validation") -> dict[str, Any] | None:
    """Sentence P/R on the biomedical claim labels: the model alone vs the detector's choice rule."""
    from claimtrace.extract import findings

    results_block: Any = getattr(findings, "results_block", lambda sentences: [])  # absent in code before it
    path = REPO.parent / "shared" / "data" / "findings" / f"{split}_labels.jsonl"
    if not path.is_file():
        return None
    thr = findings.findings_model().threshold
    model_rows: list[dict[str, int]] = []
    rule_rows: list[dict[str, int]] = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        gold = {i for i, v in enumerate(row["labels"]) if int(v)}
        model = {i for i, (p, _) in enumerate(findings.score_sentences(row["sentences"])) if p >= thr}
        rule = model | set(results_block(row["sentences"]))
        for rows, pred in ((model_rows, model), (rule_rows, rule)):
            rows.append({"tp": len(pred & gold), "fp": len(pred - gold), "fn": len(gold - pred)})
    return {"data": f"shared/data/findings/{split}_labels.jsonl", "labels": "claim labels of that data set, not this project's",
            "abstracts": len(model_rows), "model_alone": {**prf(model_rows), **bootstrap(model_rows)},
            "model_plus_results_block": {**prf(rule_rows), **bootstrap(rule_rows)}}


def main() -> None:
    """Score the detector and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "findings_psychsci.json"))
    ap.add_argument("--label", default="this branch", help="what code this run measures (recorded)")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"error: {DATA} is absent (the shared psychsci papers)", file=sys.stderr)
        raise SystemExit(2)
    from claimtrace.documents import load_document
    from claimtrace.errors import InputError
    from claimtrace.extract.findings import detect_findings

    gold = [json.loads(line) for line in GOLD.read_text().splitlines() if line.strip()]
    claims = REPO.parent / "shared" / "data" / "findings" / "validation_labels.jsonl"
    run = Run(data=[GOLD, *(DATA / f"{g['paper']}.xml" for g in gold), *([claims] if claims.is_file() else [])])
    per_paper: list[dict[str, Any]] = []
    for g in gold:
        doc = load_document(DATA / f"{g['paper']}.xml")
        sents = {s.id: s for s in doc.sentences("abstract")}
        for gs in g["sentences"]:  # the gold is tied to the parser's sentences: refuse a silent mismatch
            s = sents.get(gs["id"])
            if s is None or hashlib.sha1(s.text.encode()).hexdigest()[:12] != gs["key"]:
                print(f"error: {g['paper']} {gs['id']}: the parsed abstract no longer matches the gold", file=sys.stderr)
                raise SystemExit(2)
        truth = {gs["id"] for gs in g["sentences"] if gs["finding"]}
        try:
            cands = detect_findings(doc)
        except InputError as exc:  # no abstract and no body: nothing chosen (a code error stops the run)
            cands = []
            print(f"{g['paper']}: {exc}", file=sys.stderr)
        chosen = {c.sentence_id for c in cands if c.chosen and c.sentence_id in sents}
        per_paper.append({"paper": g["paper"], "split": g["split"], "abstract_kind": g["abstract_kind"],
                          "gold": sorted(truth), "chosen": sorted(chosen),
                          "chosen_outside_abstract": sum(1 for c in cands if c.chosen and c.sentence_id not in sents),
                          "tp": len(chosen & truth), "fp": len(chosen - truth), "fn": len(truth - chosen),
                          "stamped_chosen": sum(1 for c in cands if c.chosen and PAGE_STAMP.search(c.text))})
    splits: dict[str, Any] = {}
    for name in ("dev", "test", "all"):
        rows = [r for r in per_paper if name == "all" or r["split"] == name]
        with_f = [r for r in rows if r["gold"]]
        without = [r for r in rows if not r["gold"]]
        splits[name] = {
            "papers": len(rows), "sentences": sum(len(g["sentences"]) for g in gold if name == "all" or g["split"] == name),
            **prf(rows), **bootstrap(rows),
            "papers_with_gold_findings": len(with_f),
            "papers_with_a_true_finding_chosen": sum(r["tp"] > 0 for r in with_f),
            "papers_without_gold_findings": len(without),
            "papers_without_gold_findings_where_abstract_sentences_were_chosen": sum(bool(r["chosen"]) for r in without),
            "chosen_sentences_with_page_stamp": sum(r["stamped_chosen"] for r in rows),
        }
    biomedical = claim_set_check()
    result = {
        "schema_version": "1",
        "what": "findings detector (detect_findings, default threshold and max 5) on annotated psychsci abstract sentences",
        "gold": "bench/data/psychsci-findings.jsonl; annotator: an LLM agent (Claude, 2026-12-01), not checked by a person",
        "data_note": "psychsci papers are development data for the project; the test split was not looked at while fixing",
        "label": args.label,
        "splits": splits,
        "biomedical_claim_set": biomedical,
        "papers": per_paper,
        "provenance": run.finish(),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for name, m in splits.items():
        print(f"{name}: P {m['precision']} {m['precision_ci95']}  R {m['recall']} {m['recall_ci95']}  "
              f"(tp {m['tp']} fp {m['fp']} fn {m['fn']})", file=sys.stderr)


if __name__ == "__main__":
    main()
