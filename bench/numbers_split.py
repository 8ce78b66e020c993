"""Numbers for meta-analysis, development part and untouched part, on every numbers gold set (issue 29).

Split (fixed before any rule or setting of issue 29 was written, never changed): a trial is **untouched**
when ``int(sha256("claimtrace-i29-numbers:" + "PMC<digits>").hexdigest()[:8], 16) % 10 < 3`` (about 30% of
the trials), else **development**. Rules and settings are chosen looking at development items only; the
untouched part is scored here and only its aggregate figures are written (no rows), so that nobody tunes on it
by reading the result file.

Gold sets:

- ``rct-numeric``: ``../shared/data/rct-numeric/dev.json`` (Yun et al. 2024, 40 trials, the dataset's authors);
  documents ``../shared/data/rct-numeric/xml/PMC<id>.xml`` (abstract and results sections);
- ``ei-train``: ``bench/data/numbers-ei/gold.json`` (Evidence-Inference training trials annotated by an LLM
  agent with Yun et al.'s definitions; ``bench/data/numbers-ei/BRIEF.md``); documents
  ``../shared/data/evidence-inference/train/articles/PMC<id>.nxml`` (whole articles).

Metrics as ``bench/numbers_rct.py`` (Yun et al.'s definitions: an empty reference is "x" and an abstention
matches it; an item is right when all its fields are): exact (Clopper-Pearson) intervals and a bootstrap that
resamples whole trials.

    python bench/numbers_split.py            # -> bench/results/numbers_split.json
    python bench/numbers_split.py --show dev # also print the development misses (never the untouched ones)
    python bench/numbers_split.py --dev-only --show dev  # while tuning: the development part alone
    # (--dev-only writes bench/results/numbers_split_dev.json: development items only, Wilson intervals, and
    # the paired difference to the development rows of the committed numbers_split.json, trials resampled;
    # --baseline bench/results/numbers_split_dev_main.json: to main aac4b49's development rows instead, the
    # file written by this script's --dev-only on main before numbers6's changes)
    # the hand-set rules of issue 29 before the ranker (bench/results/numbers_split_rules.json) are main's
    # numbers_split.json at bcf44a5 (extractor cfacb34), kept as written;
    # the extractor before issue 29, on the same gold (its source exported from a commit):
    git archive 9cbd473 src | tar -x -C /tmp/base && PYTHONPATH=/tmp/base/src python bench/numbers_split.py \
        --out bench/results/numbers_split_before.json --label "before issue 29, commit 9cbd473"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from numbers_rct import summarise
from provenance import REPO, Run

SHARED = REPO.parent / "shared" / "data"
SALT = "claimtrace-i29-numbers:"
OUT = REPO / "bench" / "results" / "numbers_split.json"
DEV_OUT = REPO / "bench" / "results" / "numbers_split_dev.json"
GOLD_EI = REPO / "bench" / "data" / "numbers-ei" / "gold.json"


def trial_key(pmcid: Any) -> str:
    """The trial id the split hashes: "PMC" and the digits."""
    s = str(pmcid).strip()
    return s if s.upper().startswith("PMC") else f"PMC{s}"


def split_of(pmcid: Any) -> str:
    """``untouched`` or ``dev``: the fixed split of a trial (module docstring)."""
    h = int(hashlib.sha256((SALT + trial_key(pmcid)).encode("utf-8")).hexdigest()[:8], 16)
    return "untouched" if h % 10 < 3 else "dev"


def gold_sets() -> dict[str, tuple[list[dict[str, Any]], Any]]:
    """Every numbers gold set present: name -> (items, function from an item to its document path)."""
    out: dict[str, tuple[list[dict[str, Any]], Any]] = {}
    dev = SHARED / "rct-numeric" / "dev.json"
    if dev.exists():
        out["rct-numeric"] = (json.loads(dev.read_text()),
                              lambda it: SHARED / "rct-numeric" / "xml" / f"{trial_key(it['pmcid'])}.xml")
    if GOLD_EI.exists() and (SHARED / "evidence-inference").exists():
        out["ei-train"] = (json.loads(GOLD_EI.read_text()),
                           lambda it: SHARED / "evidence-inference" / "train" / "articles" /
                           f"{trial_key(it['pmcid'])}.nxml")
    return out


def score_set(items: list[dict[str, Any]], doc_of: Any, show: str | None = None) -> dict[str, Any]:
    """Score the offline extractor on both parts of one gold set."""
    from claimtrace.documents import load_document
    from claimtrace.numbers.extract import extract_numbers
    from claimtrace.numbers.scoring import error_categories, score_item

    cache: dict[str, Any] = {}
    rows: dict[str, list[dict[str, Any]]] = {"dev": [], "untouched": []}
    for it in items:
        if it.get("outcome_type") not in ("binary", "continuous"):
            continue
        part = split_of(it["pmcid"])
        path = doc_of(it)
        if str(path) not in cache:
            cache[str(path)] = load_document(path)
        doc = cache[str(path)]
        res = extract_numbers(doc, it["intervention"], it["comparator"], it["outcome"])
        scored = score_item(it, res)
        text = "\n".join((doc.abstract_text, doc.body_text, doc.tables_text))
        row = {"id": it["id"], "pmcid": it["pmcid"], **scored, "errors": error_categories(it, scored, text)}
        rows[part].append(row)
        if show == part == "dev" and not scored["all_correct"]:
            print(json.dumps({"id": it["id"], "pmcid": it["pmcid"], "o": it["outcome"], "i": it["intervention"],
                              "c": it["comparator"], "type": it["outcome_type"], "errors": row["errors"],
                              "out": {k: v for k, v in scored["output"].items() if k in scored["correct"]},
                              "ref": {k: it.get(k) for k in scored["correct"]}}), file=sys.stderr)
    out: dict[str, Any] = {}
    for part, rs in rows.items():
        if not rs:
            continue
        out[part] = {"trials": len({r["pmcid"] for r in rs}), "items": len(rs), "metrics": summarise(rs)}
        if part == "dev":
            out[part]["rows"] = [{k: r.get(k) for k in ("id", "pmcid", "outcome_type", "all_correct", "errors")}
                                 for r in rs]
            out[part]["rows_full"] = rs
    return out


def _cell(m: dict[str, Any] | None) -> str:
    if not m:
        return "—"
    em = m["exact_match_all_fields"]
    lo, hi = em["ci95"]
    cl = em.get("ci95_articles_resampled")
    return (f"{em['accuracy']:.3f} [{lo:.3f}, {hi:.3f}] (n {m['n']}, {m['articles']} trials"
            + (f"; trials resampled [{cl[0]:.3f}, {cl[1]:.3f}]" if cl else "") + ")")


def lines() -> list[str]:
    """The development / untouched section of docs/results/numbers.md, from the committed result files."""
    res = REPO / "bench" / "results"
    runs = [json.loads((res / n).read_text())
            for n in ("numbers_split_before.json", "numbers_split_rules.json", "numbers_split.json")
            if (res / n).exists()]
    if not runs:
        return []
    out = ["", "## Development and untouched parts (issue 29)", "",
           f"Split: a trial is `{runs[-1]['split_rule']}` (`bench/numbers_split.py`); rules and "
           "settings of issue 29 were chosen on development items only, the untouched part is scored without its "
           "items being read (its rows are not written). Gold: `rct-numeric` is Yun et al.'s dev.json (40 trials; "
           "the rules before issue 29 were written looking at all of it, its untouched part included); `ei-train` is "
           "`bench/data/numbers-ei/gold.json` (154 items, 55 Evidence-Inference training trials, annotated by "
           "Claude (LLM agent), 2026-12-01, not checked by a person, brief `bench/data/numbers-ei/BRIEF.md`); no "
           "rule was written looking at its articles before issue 29. All fields exact with Yun et al.'s "
           "definitions, exact 95% CI and a bootstrap that resamples trials.", "",
           "| extractor | gold | type | development | untouched |", "|---|---|---|---|---|"]
    for r in runs:
        for name, parts in r["sets"].items():
            for kind in ("binary", "continuous"):
                out.append(f"| {r['extractor']} | {name} | {kind} | {_cell(parts['dev']['metrics'].get(kind))} | "
                           f"{_cell(parts['untouched']['metrics'].get(kind))} |")
    out += ["", "Reproduce: `python bench/numbers_split.py` (this tree) and the command in its docstring for the "
            "extractor before issue 29 (`bench/results/numbers_split_before.json`; the hand-set rules before the ranker: "
            "`bench/results/numbers_split_rules.json`); ranker weights: `python scripts/train_numbers_ranker.py`; "
            "double-annotation "
            "agreement: `python bench/numbers_agreement.py` (`bench/results/numbers_agreement.json`)."]
    out += _dev_lines(res)
    out += _ranker_lines(res)
    from numbers_candidates import lines as candidate_lines
    from numbers_cv import lines as cv_lines
    from numbers_ranker_misses import lines as miss_lines
    from numbers_ranker_variants import lines as variant_lines

    return out + cv_lines() + candidate_lines() + miss_lines() + variant_lines()


def _dev_lines(res: Path) -> list[str]:
    """The development part alone, against the committed development rows (bench/results/numbers_split_dev.json)."""
    f = res / "numbers_split_dev.json"
    if not f.exists():
        return []
    r = json.loads(f.read_text())
    out = ["", "### Development part alone, paired with the extractor before", "",
           f"`python bench/numbers_split.py --dev-only` → `bench/results/numbers_split_dev.json` ({r['extractor']}; "
           "no untouched item read): all fields exact with a Wilson 95% interval, and the paired difference to "
           f"{r['baseline']} on the same items (bootstrap resampling trials, 95%). The development rows of "
           "main aac4b49 (before numbers6) stay in `bench/results/numbers_split_dev_main.json`, for "
           "`--baseline`.", "",
           "| gold | type | all fields exact (k/n, trials) | Wilson 95% | difference (gained / lost) | paired 95% |",
           "|---|---|---|---|---|---|"]
    for name, kinds in r["sets"].items():
        for kind in ("binary", "continuous"):
            m = kinds.get(kind)
            if not m:
                continue
            v = m.get("vs_baseline") or {}
            diff = (f"{v['difference']:+.3f} ({v['gained']} / {v['lost']})" if v else "—")
            ci = (f"[{v['ci95_paired_trials_resampled'][0]:+.3f}, {v['ci95_paired_trials_resampled'][1]:+.3f}]"
                  if v else "—")
            out.append(f"| {name} | {kind} | {m['share']:.3f} ({m['k']}/{m['n']}, {m['trials']}) | "
                       f"[{m['ci95_wilson'][0]:.3f}, {m['ci95_wilson'][1]:.3f}] | {diff} | {ci} |")
    return out


def _ranker_lines(res: Path) -> list[str]:
    """The ranker's development figures and the ceiling its candidates allow (bench/results/numbers_ranker.json)."""
    f = res / "numbers_ranker.json"
    if not f.exists():
        return []
    r = json.loads(f.read_text())

    def cell(m: dict[str, Any], n: int) -> str:
        return f"{m['share']:.3f} [{m['ci95'][0]:.3f}, {m['ci95'][1]:.3f}] ({m['k']}/{n})"

    out = ["", "### The ranker on development items (main numbers only)", "",
           "`python scripts/train_numbers_ranker.py` → `bench/results/numbers_ranker.json`: development items "
           "only; the share whose main numbers (events or means of both arms) are right, an abstention right where "
           "the reference gives none. Ranker: out of fold (grouped 5-fold CV over trials). Hand-set score: its first "
           "candidate, in sample (it was set looking at development items). Ceiling: some candidate is right, or "
           f"the reference is empty. Features kept: {', '.join(r['ranker']['features'])}.", "",
           "| gold / type | n (trials) | ranker (CV) | hand-set score | ceiling of the candidates |", "|---|---|---|---|---|"]
    for name, m in r["parts"].items():
        out.append(f"| {name} | {m['n']} ({m['trials']}) | {cell(m['main_right_ranker_cv'], m['n'])} | "
                   f"{cell(m['main_right_hand_set'], m['n'])} | {cell(m['ceiling_of_candidates'], m['n'])} |")
    return out


def wilson(k: int, n: int) -> list[float]:
    """Wilson 95% interval of a share."""
    if n == 0:
        return [0.0, 1.0]
    z, p = 1.959964, k / n
    mid, half = (p + z * z / (2 * n)), z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5)
    d = 1 + z * z / n
    return [round((mid - half) / d, 4), round((mid + half) / d, 4)]


def paired(now: list[dict[str, Any]], before: list[dict[str, Any]], reps: int = 4000) -> dict[str, Any] | None:
    """All-fields-exact now minus before on the same items: the difference and a paired bootstrap 95% interval
    that resamples trials."""
    import random

    was = {r["id"]: bool(r["all_correct"]) for r in before}
    pairs = [(r["pmcid"], float(r["all_correct"]) - float(was[r["id"]])) for r in now if r["id"] in was]
    if not pairs:
        return None
    trials: dict[Any, list[float]] = {}
    for t, d in pairs:
        trials.setdefault(t, []).append(d)
    keys = sorted(trials, key=str)
    rng = random.Random(29)
    stats = []
    for _ in range(reps):
        pick = [trials[keys[rng.randrange(len(keys))]] for _ in keys]
        n = sum(len(x) for x in pick)
        stats.append(sum(sum(x) for x in pick) / n)
    stats.sort()
    return {"n": len(pairs), "difference": round(sum(d for _, d in pairs) / len(pairs), 4),
            "ci95_paired_trials_resampled": [round(stats[int(0.025 * reps)], 4), round(stats[int(0.975 * reps)], 4)],
            "gained": sum(1 for _, d in pairs if d > 0), "lost": sum(1 for _, d in pairs if d < 0)}


def dev_result(sets: dict[str, Any], label: str, baseline: Path = OUT) -> dict[str, Any]:
    """The development part alone: all fields exact with Wilson intervals, and the paired difference to the
    development rows of a committed result file (``numbers_split.json`` or a ``--dev-only`` one)."""
    before = json.loads(baseline.read_text()) if baseline.exists() else {"sets": {}}
    out: dict[str, Any] = {"schema_version": "1", "extractor": f"offline ({label})",
                           "baseline": f"{before.get('extractor', '')}: development rows of "
                                       f"bench/results/{baseline.name}", "sets": {}}
    for name, parts in sets.items():
        rows = parts["dev"]["rows_full"]
        got = before["sets"].get(name, {})
        base_rows = got.get("dev", {}).get("rows") or got.get("rows", [])
        for kind in ("binary", "continuous"):
            rs = [r for r in rows if r["outcome_type"] == kind]
            if not rs:
                continue
            k = sum(r["all_correct"] for r in rs)
            out["sets"].setdefault(name, {})[kind] = {
                "n": len(rs), "trials": len({r["pmcid"] for r in rs}), "k": k, "share": round(k / len(rs), 4),
                "ci95_wilson": wilson(k, len(rs)),
                "vs_baseline": paired(rs, [r for r in base_rows if r["outcome_type"] == kind])}
        out["sets"][name]["rows"] = [{x: r.get(x) for x in ("id", "pmcid", "outcome_type", "all_correct", "errors")}
                                     for r in rows]
    return out


def main() -> None:
    """Score every gold set on both parts and write the JSON result."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--show", choices=["dev"], help="print the development misses to stderr")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--dev-only", action="store_true",
                    help="score the development part only (for tuning: no untouched item is read; writes nothing)")
    ap.add_argument("--out", type=Path, default=OUT, help="the result file (default bench/results/numbers_split.json)")
    ap.add_argument("--label", default="this tree", help="what extractor this run measures (written in the file)")
    ap.add_argument("--baseline", type=Path, default=OUT,
                    help="--dev-only: the result file whose development rows the paired difference is taken to")
    ap.add_argument("--dev-out", type=Path, default=DEV_OUT, help="--dev-only: the result file to write")
    args = ap.parse_args()
    sets = gold_sets()
    if args.dev_only:
        sets = {name: ([it for it in items if split_of(it["pmcid"]) == "dev"], doc_of)
                for name, (items, doc_of) in sets.items()}
        args.no_write = True
    if not sets:
        sys.exit("error: no numbers gold found (../shared/data/rct-numeric is needed)")
    run = Run(data=[p for p in (SHARED / "rct-numeric" / "dev.json", GOLD_EI) if p.exists()])
    result: dict[str, Any] = {
        "schema_version": "1",
        "split_rule": f'untouched iff int(sha256("{SALT}" + "PMC<digits>")[:8], 16) % 10 < 3',
        "extractor": f"offline ({args.label})",
        "sets": {name: score_set(items, doc_of, args.show) for name, (items, doc_of) in sets.items()},
    }
    result["provenance"] = run.finish()
    for parts in result["sets"].values():
        rows_full = parts.get("dev", {}).pop("rows_full", None)
        if rows_full is not None:
            parts["dev"]["rows_full_kept"] = rows_full
    if args.dev_only:
        dev = dev_result({n: {"dev": {"rows_full": p["dev"].pop("rows_full_kept")}} for n, p in result["sets"].items()},
                         args.label, args.baseline)
        dev["provenance"] = result["provenance"]
        args.dev_out.write_text(json.dumps(dev, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({n: {k: v for k, v in s.items() if k != "rows"} for n, s in dev["sets"].items()}, indent=1))
        return
    for parts in result["sets"].values():
        parts.get("dev", {}).pop("rows_full_kept", None)
    brief = {name: {part: {kind: {"n": m["n"], "trials": m["articles"],
                                  "all_fields_exact": m["exact_match_all_fields"]}
                           for kind, m in v["metrics"].items()}
                    for part, v in s.items()} for name, s in result["sets"].items()}
    print(json.dumps(brief, indent=1))
    if not args.no_write:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
