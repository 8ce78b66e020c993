"""Issue 29's table re-measured: every component on its development part and its untouched part, with n,
95% intervals, the gap between the two and the share of the issue's gap that is left (issue 29, job 2).

Components and where each figure comes from (each part is fixed by a hash of the paper id; the untouched part
is scored without its items being read: only counts are written for it):

- ``numbers_binary`` / ``numbers_continuous``: all fields exact on the ``ei-train`` gold
  (``bench/results/numbers_split.json``, written by ``bench/numbers_split.py``; split
  ``sha256("claimtrace-i29-numbers:" + PMCid) % 10 < 3``), exact and trial-bootstrap intervals there;
- ``score_coef_se``: SCORE rows whose coded coefficient and SE a parsed result both equals
  (``bench/stats_score.py``'s ``coef_se``, split ``claimtrace-i13-score:``, bootstrap over papers);
- ``score_found_with_cue``: SCORE strings with a result found among those with a statistical cue
  (``found`` hits over hits plus the misses with a ``CUE``; Clopper-Pearson over strings);
- ``ei_table_rows``: Evidence-Inference gold evidence spans (body) that no sentence or paragraph holds (nor only a
  figure-legend unit: figure legends are their own line, ``figure_legends_found``), held by one ``table-row`` or
  ``row-group`` unit (``issue_definition``: one ``table-row`` unit, every span counted) (``bench/tables_ei.py``'s definition with the shared scorer's ``overlaps``), on the EI
  validation and training articles: read from ``bench/results/tables_ei_rows.json`` (``bench/tables_ei.py --rows``,
  split ``claimtrace-i29-eirows:``), development misses by its mechanical reason;
- ``psychsci_checked``: Psychological Science papers (GROBID TEI, ``../shared/data/documents/psychsci``) with a
  claim trace whose evidence carries a checked statistic (``bench/psychsci_traces.py``'s definition), split
  as ``bench/traces_psychsci.py`` splits them (``claimtrace-i25-traces:``, ``% 3 == 0``). Caveat: the rules
  behind this figure were written looking at all 100 papers before that split existed, so its untouched part
  is not untouched by the earlier work.

Gap: development minus untouched, now; ``gap_left_share`` is that gap over the issue's gap (its development
figure minus its held-out figure; the issue's table is in ``ISSUE_TABLE``). A negative gap means the
untouched part scores higher.

    python bench/i29_remeasure.py            # -> bench/results/i29_remeasure.json
    python bench/i29_remeasure.py --only ei_table_rows,psychsci_checked
    python bench/i29_remeasure.py --dev-only --only score_found_with_cue   # development part only

``--dev-only``: the components asked for are measured on their development part only, their untouched part
left unscored (``untouched`` says so, with no counts): what an engineer runs while writing rules. The
untouched figures come from a run without it (``ei_table_rows`` reads ``bench/results/tables_ei_rows.json``, so
run ``bench/tables_ei.py --rows`` first, with ``--dev-only`` likewise).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import REPO, Run

SHARED = REPO.parent / "shared"
OUT = REPO / "bench" / "results" / "i29_remeasure.json"

#: issue 29's table: development and held-out figures as the issue gives them
ISSUE_TABLE = {
    "numbers_binary": {"dev": 0.639, "held_out": 0.132},
    "numbers_continuous": {"dev": 0.530, "held_out": 0.121},
    "score_coef_se": {"dev": 0.874, "held_out": 0.781},
    "score_found_with_cue": {"dev": 0.987, "held_out": 0.868},
    "ei_table_rows": {"dev": 1.0, "held_out": 12 / 22},
    "psychsci_checked": {"dev": 0.85, "held_out": 0.807},
}


def clopper_pearson(k: int, n: int) -> list[float] | None:
    """Exact binomial 95% interval of k in n."""
    from scipy.stats import beta

    if n == 0:
        return None
    lo = 0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k))
    return [round(lo, 4), round(hi, 4)]


def part(k: int, n: int, **extra: Any) -> dict[str, Any]:
    """One part's figure: hits, n, share and its exact interval (plus any other interval given)."""
    return {"hits": k, "n": n, "share": round(k / n, 4) if n else None, "ci95_exact": clopper_pearson(k, n), **extra}


def numbers() -> dict[str, Any]:
    """The numbers figures from the committed numbers_split result (ei-train gold; rct-numeric beside it)."""
    res = json.loads((REPO / "bench" / "results" / "numbers_split.json").read_text())
    out: dict[str, Any] = {}
    for kind in ("binary", "continuous"):
        comp: dict[str, Any] = {"source": "bench/results/numbers_split.json", "gold": "ei-train"}
        for name in ("dev", "untouched"):
            m = res["sets"]["ei-train"][name]["metrics"][kind]
            em = m["exact_match_all_fields"]
            k = round(em["accuracy"] * m["n"])
            comp[name] = part(k, m["n"], trials=m["articles"], ci95_trials_resampled=em.get("ci95_articles_resampled"))
        rn = res["sets"].get("rct-numeric")
        if rn:
            comp["rct_numeric_beside"] = {
                name: {"n": rn[name]["metrics"][kind]["n"],
                       "share": rn[name]["metrics"][kind]["exact_match_all_fields"]["accuracy"]}
                for name in ("dev", "untouched")}
        errs: Counter[str] = Counter()
        for r in res["sets"]["ei-train"]["dev"].get("rows", []):
            if r.get("outcome_type") == kind and not r.get("all_correct"):
                for why in (r.get("errors") or {}).values():
                    errs[why] += 1
        comp["dev_miss_reasons_by_field"] = dict(errs.most_common())
        out[f"numbers_{kind}"] = comp
    return out


#: the untouched part of a component in a ``--dev-only`` run: not scored
NOT_SCORED = {"hits": None, "n": None, "share": None, "ci95_exact": None,
              "note": "not scored in this run (--dev-only): the untouched figure comes from a run without it"}


def parts_wanted(dev_only: bool) -> tuple[str, ...]:
    """The parts a run scores."""
    return ("dev",) if dev_only else ("dev", "untouched")


def score(dev_only: bool = False) -> dict[str, Any]:
    """SCORE coefficient+SE and found-with-cue, both parts (bench/stats_score.py's evaluate)."""
    import stats_score

    parts = {name: stats_score.evaluate(name) for name in parts_wanted(dev_only)}
    coef: dict[str, Any] = {"source": "bench/stats_score.py (coef_se)"}
    cue: dict[str, Any] = {"source": "bench/stats_score.py (found, found_misses_cue)"}
    for name, ev in parts.items():
        c = ev["coef_se"]
        coef[name] = part(c["hits"], c["n"], papers=c.get("papers"), ci95_papers_resampled=c["ci95"])
        hits = ev["found"]["hits"]
        with_cue = sum(ev["found_misses_cue"]["with_cue"].values())
        cue[name] = part(hits, hits + with_cue, papers=ev["found"].get("papers"),
                         misses_with_cue_by_flag=ev["found_misses_cue"]["with_cue"])
    if dev_only:
        coef["untouched"] = cue["untouched"] = dict(NOT_SCORED)
    cue["dev_miss_reasons"] = parts["dev"].get("found_misses", {}).get("by_category")
    coef["dev_miss_reasons"] = _coef_misses()
    return {"score_coef_se": coef, "score_found_with_cue": cue}


def _coef_misses() -> dict[str, int]:
    """The development rows whose coefficient and SE no parsed result gives, by a mechanical reason: is the
    coded SE (to its written digits) in the text at all, or the coefficient?"""
    import csv

    import stats_score
    from claimtrace.stats import parse

    why: Counter[str] = Counter()
    with stats_score.OUTCOMES.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if stats_score.split_of(row["paper_id"]) != "dev":
                continue
            c, se = stats_score._num(row["orig_coef_value"]), stats_score._num(row["orig_coef_se"])
            text = (row["orig_effect_size_text"] or "").strip()
            if c is None or se is None or text in ("", "NULL", "NA"):
                continue
            if any(stats_score._close(r.value, c) and stats_score._close(r.se, se) for r in parse(text)
                   if not r.planned):
                continue
            se_txt = f"{se:g}".lstrip("0").lstrip("-").lstrip("0") or "0"
            c_txt = f"{abs(c):g}".lstrip("0")
            if se_txt not in text:
                why["SE not written in the text (coders derived it, or it is in a table)"
                    + ("" if c_txt in text else "; coefficient not written either")] += 1
            else:
                why["SE written in the text, not parsed with its coefficient"] += 1
    return dict(why.most_common())


def table_rows(limit: int = 0, dev_only: bool = False) -> dict[str, Any]:
    """EI table rows, read from ``bench/tables_ei.py --rows``'s result file (one script per measurement)."""
    del limit  # the measurement itself is bench/tables_ei.py --rows
    src = REPO / "bench" / "results" / "tables_ei_rows.json"
    d = json.loads(src.read_text())
    comp: dict[str, Any] = {"source": "bench/tables_ei.py --rows (EI validation + train articles; "
                            "bench/results/tables_ei_rows.json)", "split_rule": d["split_rule"]}
    reasons: Counter[str] = Counter()
    if dev_only or d.get("untouched") is None:
        comp["untouched"] = dict(NOT_SCORED)
    for name in parts_wanted(dev_only or d.get("untouched") is None):
        k = sum(d[name][s]["k"] for s in ("validation", "train"))
        n = sum(d[name][s]["n"] for s in ("validation", "train"))
        arts = sum(d[name][s]["papers"] for s in ("validation", "train"))
        al = d[name]["all"]
        comp[name] = part(k, n, articles=arts, gold_spans=sum(d[name][s]["gold_spans"] for s in ("validation", "train")),
                          figure_legends_found=al["figure_legends"]["found_in_one_figure_legend_unit"],
                          issue_definition=al["issue_definition"], any_unit=al["any_unit"])
    for s in ("validation", "train"):
        reasons.update(d["dev"][s]["misses_by_reason"])
    comp["dev_miss_reasons"] = dict(reasons.most_common())
    return {"ei_table_rows": comp}


def psychsci(dev_only: bool = False) -> dict[str, Any]:
    """Papers with a trace whose evidence carries a checked statistic, by part (i25's split of the papers)."""
    from claimtrace.documents import load_document
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.pipeline import extract_traces
    from psychsci_traces import _default_units, paper_reason, trace_reason
    from traces_psychsci import SALT as PSY_SALT
    from traces_psychsci import split_of as psy_split

    units = _default_units()
    ex = EmbeddedExtractor(table_rows="table-row" in units) if "table" in units else EmbeddedExtractor()
    got: dict[str, list[str]] = {name: [] for name in parts_wanted(dev_only)}
    for f in sorted((SHARED / "data" / "documents" / "psychsci").glob("*.xml")):
        if psy_split(f.stem) not in got:
            continue  # (--dev-only: an untouched paper is not read)
        try:
            traces = [t.model_dump(mode="json") for t in extract_traces(load_document(f), extractor=ex)]
            reason = paper_reason([trace_reason(t) for t in traces] or ["no_traces"])
            if reason == "evidence_without_statistic" and any(
                    _POINTS_TO_TABLE.search((t.get("evidence") or {}).get("text") or "") for t in traces):
                reason += ":the evidence sentence points to a table or figure"
        except Exception as exc:  # recorded, the run goes on
            reason = f"error:{type(exc).__name__}"
        got[psy_split(f.stem)].append(reason)
    comp: dict[str, Any] = {"source": "bench/i29_remeasure.py (bench/psychsci_traces.py's definition)",
                            "units": units, "split_rule": f'untouched iff sha256("{PSY_SALT}" + paper)[:8] % 3 == 0',
                            "caveat": "the rules were written looking at all 100 papers before this split existed"}
    for name, rs in got.items():
        comp[name] = part(rs.count("checked"), len(rs))
    if dev_only:
        comp["untouched"] = dict(NOT_SCORED)
    # the reason of a paper without a checked trace: its first part, with the part after it where it says where the
    # statistic is ("the evidence sentence points to a table or figure") or which form was parsed ("parsed_not_checked:p")
    comp["dev_miss_reasons"] = dict(Counter(r for r in got["dev"] if r != "checked").most_common())
    return {"psychsci_checked": comp}


#: an evidence sentence that sends the reader to a table or figure for its numbers ("see Table 1", "Fig. 2b")
_POINTS_TO_TABLE = re.compile(r"\b(?:Tables?|Fig(?:ure)?s?\.?)\s*S?\d")


def gaps(comps: dict[str, Any]) -> None:
    """Add the gap now (development minus untouched) and the share of the issue's gap it is."""
    for name, comp in comps.items():
        d, u = comp["dev"]["share"], comp["untouched"]["share"]
        issue = ISSUE_TABLE[name]
        comp["issue_table"] = issue
        if d is None or u is None:
            continue
        gap, was = d - u, issue["dev"] - issue["held_out"]
        comp["gap_now"] = round(gap, 4)
        comp["gap_left_share"] = round(gap / was, 3) if was else None


LABELS = {"numbers_binary": "numbers, all fields exact, binary (ei-train gold)",
          "numbers_continuous": "numbers, all fields exact, continuous (ei-train gold)",
          "score_coef_se": "SCORE: coefficient and SE both parsed right",
          "score_found_with_cue": "SCORE: a result found, among strings with a statistical cue",
          "ei_table_rows": "EI gold evidence that is a table row, held by one table-row unit",
          "psychsci_checked": "Psychological Science papers with a trace carrying a checked statistic"}


def lines() -> list[str]:
    """The issue 29 table section of docs/results/numbers.md, from the committed result file."""
    if not OUT.exists():
        return []
    comps = json.loads(OUT.read_text())["components"]

    def cell(p: dict[str, Any]) -> str:
        lo, hi = p["ci95_exact"] or (None, None)
        return f"{p['share']:.3f} ({p['hits']}/{p['n']}) [{lo:.3f}, {hi:.3f}]" if p["n"] else "—"

    out = ["", "## Issue 29's table: development and untouched parts", "",
           "Each part fixed by a hash of the paper id (`bench/i29_remeasure.py` names the rule of each); exact 95% "
           "intervals. Gap left: (development − untouched) now over the issue's (development − held-out). The "
           "Psychological Science split is not untouched by the earlier rules (written on all 100 papers).", "",
           "| measure | development | untouched | gap now | issue: dev / held-out | gap left |",
           "|---|---|---|---|---|---|"]
    for name, label in LABELS.items():
        c = comps.get(name)
        if not c:
            continue
        it = c["issue_table"]
        out.append(f"| {label} | {cell(c['dev'])} | {cell(c['untouched'])} | {c.get('gap_now', '—')} | "
                   f"{it['dev']:.3f} / {it['held_out']:.3f} | {c.get('gap_left_share', '—')} |")
    out += ["", "Development misses by reason (mechanical; the untouched part is counted, not read):", ""]
    for name, label in LABELS.items():
        c = comps.get(name) or {}
        why = c.get("dev_miss_reasons") or c.get("dev_miss_reasons_by_field")
        if why:
            out.append(f"- {label}: " + "; ".join(f"{k} {v}" for k, v in why.items()))
    out += ["", "Reproduce: `python bench/i29_remeasure.py` (`bench/results/i29_remeasure.json`)."]
    return out


def main() -> None:
    """Measure the components asked for and write (or update) the result file."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated components to re-measure (others kept)")
    ap.add_argument("--limit", type=int, default=0, help="EI prompts to read for the table rows (0: all)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--dev-only", action="store_true", help="score the development parts only (module docstring)")
    args = ap.parse_args()
    run = Run(data=[SHARED / "data" / "evidence-inference", SHARED / "data" / "documents" / "psychsci",
                    REPO / "bench" / "results" / "numbers_split.json"])
    old = json.loads(args.out.read_text())["components"] if args.out.exists() else {}
    want = set(filter(None, args.only.split(","))) or set(ISSUE_TABLE)
    comps: dict[str, Any] = {k: v for k, v in old.items() if k not in want}
    seconds: dict[str, float] = {}
    steps: list[tuple[str, Any, tuple[str, ...]]] = [
        ("numbers", numbers, ("numbers_binary", "numbers_continuous")),
        ("score", lambda: score(args.dev_only), ("score_coef_se", "score_found_with_cue")),
        ("table_rows", lambda: table_rows(args.limit, args.dev_only), ("ei_table_rows",)),
        ("psychsci", lambda: psychsci(args.dev_only), ("psychsci_checked",))]
    for group, fn, names in steps:
        if want & set(names):
            t0 = time.perf_counter()
            comps.update(fn())
            seconds[group] = round(time.perf_counter() - t0, 1)
            print(f"{group}: {seconds[group]} s", file=sys.stderr)
    gaps(comps)
    result: dict[str, Any] = {"schema_version": "1", "what": "issue 29's table, development and untouched parts",
              "components": dict(sorted(comps.items())), "seconds": seconds, "provenance": run.finish()}
    for name, comp in result["components"].items():
        print(f"{name}: dev {comp['dev']['hits']}/{comp['dev']['n']}, untouched {comp['untouched']['hits']}/"
              f"{comp['untouched']['n']}, gap left {comp.get('gap_left_share')}", file=sys.stderr)
    args.out.write_text(json.dumps(result, indent=1, default=sorted) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
