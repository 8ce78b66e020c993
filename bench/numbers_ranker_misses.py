"""Why the numbers ranker loses items whose right numbers are among its candidates (issue 29, development only).

Development items only (``bench/numbers_split.py``'s hash split; an untouched trial is never loaded). For every
item of both numbers gold sets, the shipped ranker (``src/claimtrace/numbers/weights/ranker.json``) scores the
candidates of :func:`claimtrace.numbers.ranker.candidates`; an item is a **miss** when some candidate gives the
reference's main numbers for both arms (events or means, :func:`train_numbers_ranker.label`) and the ranker's
choice does not, or when the reference gives none (abstaining is right) and the ranker chooses a candidate. Each
miss is put in one class, by comparing the chosen candidate with the best-scored right one:

- ``abstained``: the top score is under the threshold;
- ``tie``: the chosen and the right candidate have the same score (the features cannot tell them apart);
- ``same place, arms swapped`` / ``same place, other reading``: both read one row or sentence (the arms' values
  exchanged; a percentage read as a count or as a mean, SE as SD, another pair of numbers);
- ``other time point`` / ``baseline row`` / ``other outcome row``: another row of the same table (its label
  differs from the right row's by a time word, it is a baseline row, or it names another outcome);
- ``other table`` / ``prose over table`` / ``table over prose`` / ``other sentence``: another source;
- for an empty reference: ``chose a value, reference empty`` with the chosen candidate's origin and kind.

The shipped weights were fitted on these items (3 features, so in-sample and out-of-fold choices hardly differ;
``bench/results/numbers_ranker.json`` holds the cross-validated figures).

    python bench/numbers_ranker_misses.py   # -> bench/results/numbers_ranker_misses.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from train_numbers_ranker import empty, label

from provenance import REPO, Run

OUT = REPO / "bench" / "results" / "numbers_ranker_misses.json"
_TIME = re.compile(r"\b(?:\d+\s*(?:h|hr|hours?|d|days?|wk|weeks?|mo|months?|y|years?)|week|month|day|hour|year|"
                   r"baseline|visit|follow-?up|end|final|post|pre|after|before|discharge)\b", re.I)


def _vals(c: Any) -> dict[str, dict[str, float]]:
    return {a: {f: v.value for f, v in d.items()} for a, d in c.values.items()}


def classify(doc: Any, chosen: Any, right: Any, p_chosen: float, p_right: float) -> str:
    """The class of one miss where a right candidate exists (module docstring)."""
    from claimtrace.numbers import ranker

    if abs(p_chosen - p_right) < 1e-9:
        return "tie"
    if chosen.context == right.context:
        vc, vr = _vals(chosen), _vals(right)
        if vc.get("intervention") == vr.get("comparator") and vc.get("comparator") == vr.get("intervention"):
            return "same place, arms swapped"
        return "same place, other reading"
    rows = {r.id: r for t in doc.tables for r in t.rows}
    c_rows = [u for u in chosen.context if u in rows]
    r_rows = [u for u in right.context if u in rows]
    if c_rows and r_rows:
        if c_rows[0].split(".")[0] != r_rows[0].split(".")[0]:
            return "other table"
        wc, wr = ranker._where(doc, chosen, rows), ranker._where(doc, right, rows)
        if re.search(r"\bbaseline\b", wc, re.I) and not re.search(r"\bbaseline\b", wr, re.I):
            return "baseline row"
        strip = lambda s: set(re.findall(r"[a-z]{3,}", _TIME.sub(" ", s.lower())))  # noqa: E731
        if (_TIME.search(wc) or _TIME.search(wr)) and strip(wc) == strip(wr):
            return "other time point"
        return "other outcome row"
    if r_rows:
        return "prose over table"
    if c_rows:
        return "table over prose"
    return "other sentence"


def analyse() -> dict[str, Any]:
    """Classify every development miss of the shipped ranker."""
    from train_numbers_ranker import dev_items

    from claimtrace.numbers import ranker

    w = ranker.load_weights()
    rows: list[dict[str, Any]] = []
    totals: Counter[str] = Counter()
    for name, it, doc, ico in dev_items():
        key = f"{name}/{it['outcome_type']}"
        cands = ranker.candidates(doc, ico)
        if not cands:
            continue
        probs = ranker.probabilities(ranker.features(doc, ico, cands), w)
        k = max(range(len(cands)), key=lambda j: probs[j])
        labels = [label(c, it) for c in cands]
        abstain = probs[k] < w["threshold"]
        if any(labels):
            totals[f"{key} right candidate"] += 1
            if not abstain and labels[k]:
                continue
            r = max((j for j in range(len(cands)) if labels[j]), key=lambda j: probs[j])
            why = "abstained" if abstain else classify(doc, cands[k], cands[r], probs[k], probs[r])
        elif empty(it):
            totals[f"{key} empty reference"] += 1
            if abstain:
                continue
            r = None
            why = f"chose a value, reference empty ({cands[k].origin}, {cands[k].kind})"
        else:
            continue
        rows.append({"set": name, "type": it["outcome_type"], "id": it["id"], "pmcid": it["pmcid"], "class": why,
                     "p_chosen": round(probs[k], 3), "p_right": round(probs[r], 3) if r is not None else None,
                     "chosen": {"origin": cands[k].origin, "kind": cands[k].kind, "context": cands[k].context[:2]},
                     "right": ({"origin": cands[r].origin, "kind": cands[r].kind, "context": cands[r].context[:2]}
                               if r is not None else None)})
        print(json.dumps(rows[-1]), file=sys.stderr)
    summary = {k: {"items": v, "by_class": dict(Counter(
        r["class"] for r in rows if f"{r['set']}/{r['type']}" == k.rsplit(" ", 2)[0]
        and (r["right"] is not None) == k.endswith("right candidate")).most_common())}
        for k, v in sorted(totals.items())}
    return {"summary": summary, "rows": rows}


def lines() -> list[str]:
    """The ranker-miss section of docs/results/numbers.md, from the committed result file."""
    f = REPO / "bench" / "results" / "numbers_ranker_misses.json"
    if not f.exists():
        return []
    r = json.loads(f.read_text())
    out = ["", "### Why the ranker loses items whose numbers are among its candidates (development items)", "",
           "`python bench/numbers_ranker_misses.py` → `bench/results/numbers_ranker_misses.json`: for the items "
           "where some candidate gives the reference's main numbers, and those where the reference gives none, "
           "the class of each miss of the shipped ranker (the chosen candidate against the best-scored right one; "
           "classes in the script's docstring).", "",
           "| gold / type / items | n | missed | classes (count) |", "|---|---|---|---|"]
    for key, m in r["summary"].items():
        missed = sum(m["by_class"].values())
        classes = "; ".join(f"{k} {v}" for k, v in m["by_class"].items()) or "—"
        out.append(f"| {key} | {m['items']} | {missed} | {classes} |")
    return out


def main() -> None:
    """Run the analysis and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    run = Run(data=[p for p in (REPO.parent / "shared" / "data" / "rct-numeric" / "dev.json",
                                REPO / "bench" / "data" / "numbers-ei" / "gold.json") if p.exists()])
    res = analyse()
    print(json.dumps(res["summary"], indent=1))
    args.out.write_text(json.dumps({"schema_version": "1", "what": __doc__.split("\n\n")[1].replace("\n", " "),
                                    **res, "provenance": run.finish()}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
