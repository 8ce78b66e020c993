"""The statistics engine on SCORE's coded statistical evidence (social- and behavioural-science styles).

Data: ``../shared/data/statistics/score/`` (``claims_stat_evidence.csv``, ``orig_outcomes.csv``).

Split (fixed before any pattern was written for these files, never changed): a paper is **untouched**
when ``int(sha256("claimtrace-i13-score:" + paper_id).hexdigest()[:8], 16) % 10 < 3`` (about 30% of
the papers), else **development**. Patterns were written looking at development strings only.

Figures, per split (n and a 95% CI from a bootstrap over papers, 2,000 resamples, seed 13; ``wilson95``: the
Wilson interval, strings taken as independent):

- ``found``: share of coded evidence strings in which ``parse`` finds at least one result;
- ``found_inferential``: the same among the strings the coders flagged ``T`` or ``F`` (significance decided),
  leaving out those flagged ``Non-inf``. Read from the data (SCORE's own documentation of the flag is not in
  ../shared): ``Non-inf`` sits beside the significance flag and marks claims whose evidence is not an inferential
  test (descriptive table values, shares, figures, words); on the development split 53 of its 55 strings hold no
  test, p, CI or coefficient with SE, and the 2 found hold descriptive effect sizes ("4.6% of the variance", an
  average d). Both figures are reported; ``found`` is the issue's definition;
- ``significance``: among strings the coders decided (``nonsig`` ``T``/``F``, not ``Non-inf``) and the
  engine decides (the first result of ``analyze`` with ``significant`` set), the share where the engine's
  significance agrees with the coders' flag (``nonsig == "T"`` means not significant), at alpha = .05; the
  share the engine decides is given too (``decided_share``); ``significance_stated_level``: the same where a
  string that itself reports significance at the 10% level (``p < .1``, "significant at the 10 percent
  level") is judged at alpha = .10, the level its authors use (the coders' flag follows the paper);
- ``significance_stated_result`` and ``significance_stated_result_level``: the same two, but judging the first
  result whose significance the string itself states (a reported p, "ns" or a stated level that decides it)
  before any result whose significance is only recomputed (rule "stated"; the rule above is "first"). Why: the
  coders' flag records what the paper reports of the claim's result, and where a string lists several results
  the one with a stated p (or level) is the one the paper reports as the test; a coefficient's significance
  recomputed from its SE is the engine's, not the paper's. Both rules are reported side by side;
- a planned effect size (``planned``: an effect size a power analysis plans) is no result: it counts for none of
  these figures;
- ``found_misses_cue``: the strings with no result found, split by a mechanical test (``CUE``, independent of
  the engine) of whether they hold any statistical cue at all, by the coders' flag; on the untouched split this
  is computed without the strings being read. ``found`` can rise at most by the misses with a cue;
- ``found_among_cue``: ``found`` among the strings where a result is found or ``CUE`` finds a statistical cue (the
  issue 29 figure: found / (found + misses with a cue));
- ``coef_se``: among ``orig_outcomes`` rows with a coded coefficient, its SE and the effect text, the
  share where one parsed result of the text has both the coefficient (``value``) and the SE (``se``)
  equal to the coded ones (to 1e-6).

    PYTHONPATH=src .venv/bin/python bench/stats_score.py [--show-misses dev]
    PYTHONPATH=src .venv/bin/python bench/stats_score.py --made bench/data/score_made_styles_heldout.txt

``--made FILE``: only the share of made strings (the project's own, one a line) in which a result is found,
printed (styles the development strings hold few of: stars, df after the statistic, ratios named in words...;
``score_made_styles_dev.txt`` the rules were written against, ``score_made_styles_heldout.txt`` written after
them and not used to change them). No SCORE split is scored.

Writes bench/results/stats_score.json.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from claimtrace.stats import StatResult, analyze, parse  # noqa: E402
from claimtrace.stats.check import reported_significant  # noqa: E402
from provenance import Run  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "statistics" / "score"
CLAIMS = DATA / "claims_stat_evidence.csv"
OUTCOMES = DATA / "orig_outcomes.csv"
OUT = ROOT / "bench" / "results" / "stats_score.json"
MISS_CATEGORIES = ROOT / "bench" / "data" / "score_dev_found_misses.json"
# A mechanical, engine-independent test of whether a string with no result found holds any statistical cue at
# all: a p, "significant", "ns", stars on a number, SE/CI/OR/HR/RR, "coefficient", a test letter followed by
# "(", "=", "<" or ">", a "percent level". A miss with no cue holds no statistic a parser could read; a miss with
# a cue may (or holds a verdict in words). Used on both splits without reading the untouched strings.
CUE = re.compile(r"(\bp\s*[<>=≤≥]|\bp[- ]values?\b|\bsig\.|signific|\bns\b|n\.s\.|\d\*|"
                 r"\b(?:S\.?E\.?|SE|CI|OR|HR|RR|IRR|AOR)\b|standard error|confidence interval|odds ratio|coefficient|"
                 r"\b(?:t|F|z|r|d|b|B|β|χ2|χ²|chi-?squared?|beta|Wald)\s*(?:\(|=|<|>)|percent level|%\s*level)", re.I)
SALT = "claimtrace-i13-score:"


def split_of(paper_id: str) -> str:
    """``untouched`` or ``dev``: the fixed split of a SCORE paper (see the module docstring)."""
    h = int(hashlib.sha256((SALT + paper_id).encode("utf-8")).hexdigest()[:8], 16)
    return "untouched" if h % 10 < 3 else "dev"


def _num(s: str) -> float | None:
    s = (s or "").strip()
    if s in ("", "NA", "NULL", "NaN"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _engine_significant(results: list[StatResult]) -> bool | None:
    """Rule "first": the significance of the string's first decided result."""
    for r in results:
        if r.significant is not None:
            return r.significant
    return None


def _stated_significant(results: list[StatResult], alpha: float = 0.05) -> bool | None:
    """Rule "stated": the first result whose significance the string itself states (a reported p, "ns" or a stated
    level that decides it at ``alpha``), else the first decided one (significance recomputed from a statistic, a
    coefficient and its SE, or a CI)."""
    for r in results:
        if r.significant is not None and reported_significant(r, alpha) is not None:
            return r.significant
    return _engine_significant(results)


def _bootstrap(items: list[tuple[str, int]], reps: int = 2000, seed: int = 13) -> dict[str, Any]:
    """Share of hits among (paper, hit) items, with a 95% CI from a bootstrap over papers."""
    n = len(items)
    if not n:
        return {"n": 0, "hits": 0, "share": None, "ci95": None}
    by_paper: dict[str, list[int]] = defaultdict(list)
    for paper, hit in items:
        by_paper[paper].append(hit)
    papers = sorted(by_paper)
    rng = random.Random(seed)
    shares = []
    for _ in range(reps):
        hits = tot = 0
        for _k in range(len(papers)):
            vals = by_paper[papers[rng.randrange(len(papers))]]
            hits += sum(vals)
            tot += len(vals)
        shares.append(hits / tot)
    shares.sort()
    hits = sum(h for _, h in items)
    return {"n": n, "papers": len(papers), "hits": hits, "share": round(hits / n, 4),
            "ci95": [round(shares[int(0.025 * reps)], 4), round(shares[int(0.975 * reps) - 1], 4)],
            "wilson95": _wilson(hits, n)}


def _wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    """The Wilson 95% interval of k/n (strings taken as independent; ``ci95`` resamples papers)."""
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return [round(mid - half, 4), round(mid + half, 4)]


def evaluate(split: str, show: bool = False) -> dict[str, Any]:
    """Every figure on one split (module docstring)."""
    found: list[tuple[str, int]] = []
    found_inf: list[tuple[str, int]] = []
    found_cue: list[tuple[str, int]] = []
    missed_keys: list[str] = []
    cue: dict[str, dict[str, int]] = {"with_cue": defaultdict(int), "without_cue": defaultdict(int)}
    stated10: dict[str, int] = defaultdict(int)
    sig: list[tuple[str, int]] = []
    sig10: list[tuple[str, int]] = []
    sig_st: list[tuple[str, int]] = []
    sig_st10: list[tuple[str, int]] = []
    decided: list[tuple[str, int]] = []
    misses: dict[str, list[str]] = defaultdict(list)
    with CLAIMS.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            pid = row["paper_id"]
            if split_of(pid) != split:
                continue
            text = row["coded_stat_evidence"] or ""
            res = [r for r in analyze(text) if not r.planned]  # a planned effect size (power analysis) is no result
            found.append((pid, int(bool(res))))
            flag = row["nonsig"]
            if flag in ("T", "F"):
                found_inf.append((pid, int(bool(res))))
            has_cue = CUE.search(text) is not None
            if res or has_cue:
                found_cue.append((pid, int(bool(res))))
            if not res:
                misses["found"].append(f"[nonsig={flag}] {text}")
                missed_keys.append(f"{pid}/{row['claim4_id']}")
                cue["with_cue" if has_cue else "without_cue"][f"nonsig={flag}"] += 1
            if flag in ("T", "F"):
                eng = _engine_significant(res)
                decided.append((pid, int(eng is not None)))
                if eng is None:
                    misses["undecided"].append(f"[{flag}] {text}")
                else:
                    ok = eng == (flag == "F")
                    sig.append((pid, int(ok)))
                    at10 = any(r.p_comparison == "<" and r.p_value is not None and abs(r.p_value - 0.1) < 1e-9
                               for r in res)
                    if at10:
                        stated10[f"nonsig={flag}"] += 1
                    res10 = [r for r in analyze(text, alpha=0.1) if not r.planned] if at10 else res
                    eng10 = _engine_significant(res10)
                    sig10.append((pid, int(eng10 == (flag == "F"))))
                    st = _stated_significant(res)
                    sig_st.append((pid, int(st == (flag == "F"))))
                    st10 = _stated_significant(res10, 0.1 if at10 else 0.05)
                    sig_st10.append((pid, int(st10 == (flag == "F"))))
                    if not ok:
                        misses["significance"].append(f"[nonsig={flag}] {text}")
                    if st != (flag == "F"):
                        misses["significance_stated_result"].append(f"[nonsig={flag}] {text}")
    coef: list[tuple[str, int]] = []
    with OUTCOMES.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            pid = row["paper_id"]
            if split_of(pid) != split:
                continue
            c, se = _num(row["orig_coef_value"]), _num(row["orig_coef_se"])
            text = (row["orig_effect_size_text"] or "").strip()
            if c is None or se is None or text in ("", "NULL", "NA"):
                continue
            ok = any(_close(r.value, c) and _close(r.se, se) for r in parse(text) if not r.planned)
            coef.append((pid, int(ok)))
            if not ok:
                misses["coef_se"].append(f"[{c} / {se}] {text}")
    if show:
        for k, v in misses.items():
            print(f"== {k}: {len(v)}", file=sys.stderr)
            for s in v:
                print("  " + s[:300].replace("\n", " "), file=sys.stderr)
    out: dict[str, Any] = {}
    if split == "dev":  # what the strings with no result hold (annotated on the development split only)
        ann = json.loads(MISS_CATEGORIES.read_text(encoding="utf-8"))
        cat_of = {k: c for c, keys in ann["categories"].items() for k in keys}
        counts: dict[str, int] = defaultdict(int)
        for k in missed_keys:
            counts[cat_of.get(k, "not annotated")] += 1
        out["found_misses"] = {"annotator": ann["annotator"], "by_category": dict(counts),
                               "annotated_now_found": sorted(set(cat_of) - set(missed_keys))}
    out["p_below_10_percent_stated_flags"] = dict(stated10)
    out["found_misses_cue"] = {k: dict(sorted(v.items())) for k, v in cue.items()}
    return {**out, "found": _bootstrap(found), "found_inferential": _bootstrap(found_inf),
            "found_among_cue": _bootstrap(found_cue),
            "significance": _bootstrap(sig), "decided_share": _bootstrap(decided),
            "significance_stated_level": _bootstrap(sig10),
            "significance_stated_result": _bootstrap(sig_st),
            "significance_stated_result_level": _bootstrap(sig_st10),
            "coef_se": _bootstrap(coef)}


def made_styles(path: Path) -> dict[str, Any]:
    """The share of made strings (one a line, ``#`` lines aside) in which ``parse`` finds a result (not planned):
    styles the development strings hold few of (``bench/data/score_made_styles_*.txt``), no SCORE string read."""
    lines = [x.strip() for x in path.read_text(encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]
    hit = [bool([r for r in parse(x) if not r.planned]) for x in lines]
    k = sum(hit)
    return {"file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path), "n": len(lines),
            "found": k, "share": round(k / len(lines), 4) if lines else None,
            "wilson95": _wilson(k, len(lines)) if lines else None,
            "missed": [x for x, h in zip(lines, hit, strict=True) if not h]}


def main() -> None:
    """Compute the figures on both splits and write the JSON report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--show-misses", choices=["dev"], help="print the development misses to stderr")
    ap.add_argument("--no-write", action="store_true", help="print only, do not write the result file")
    ap.add_argument("--made", type=Path, help="only print made_styles of this file (no SCORE split is scored)")
    args = ap.parse_args()
    if args.made:
        print(json.dumps(made_styles(args.made.resolve()), indent=1, ensure_ascii=False))
        return
    run = Run(data=[CLAIMS, OUTCOMES])
    result = {
        "schema_version": "1",
        "split_rule": f'untouched iff int(sha256("{SALT}" + paper_id)[:8], 16) % 10 < 3',
        "annotation": "SCORE coders (the dataset's own coding); no annotation by this project",
        "dev": evaluate("dev", show=args.show_misses == "dev"),
        "untouched": evaluate("untouched"),
        "provenance": run.finish(),
    }
    print(json.dumps({k: result[k] for k in ("dev", "untouched")}, indent=1))
    if not args.no_write:
        OUT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
