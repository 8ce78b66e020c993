"""Our statistics engine side by side with the Python statcheck (0.0.7) on the EI validation articles.

Texts: the JATS body text (``Document.body_text``) of the 90 Evidence-Inference validation articles,
read with ``claimtrace.documents.load_document``. statcheck runs in its own virtual environment
(GPL; never a claimtrace dependency): ``python3.11 -m venv bench/.venv-statcheck &&
bench/.venv-statcheck/bin/pip install statcheck==0.0.7 'pandas<3'``. Both tools get the same texts;
speed is characters per second of each tool's own call, measured in the same run.

Speed: ``--runs`` runs (default 3), each timing both tools as the best of 3 passes over all texts; the
median of the runs is reported, with every run, the load average at each, and the provenance block
(bench/provenance.py: a run whose load exceeded the cores is flagged ``loaded``).

Writes bench/results/stats_vs_statcheck.json (``--out``: another file).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from claimtrace.documents import load_document  # noqa: E402
from claimtrace.stats import StatResult, analyze  # noqa: E402
from provenance import Run  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "evidence-inference" / "validation" / "articles"
VENV_PY = Path(os.environ.get("STATCHECK_PYTHON", ROOT / "bench" / ".venv-statcheck" / "bin" / "python"))
OUT = ROOT / "bench" / "results" / "stats_vs_statcheck.json"
_SC_TEST = {"t": "t", "F": "F", "Chi2": "chi2", "r": "r", "Z": "z", "Q": "Q"}


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(abs(a) - abs(b)) < 1e-9


def _match(row: dict, ours: list[StatResult]) -> StatResult | None:
    test = _SC_TEST.get(str(row["Statistic"]))
    for r in ours:
        if r.test == test and _close(r.value, row["Value"]) and _close(r.p_value, row["Reported_P_Value"]):
            return r
    return None


def _df_agree(row: dict, r: StatResult) -> bool:
    sc = [x for x in (row["df1"], row["df2"]) if x is not None]
    ours = [x for x in (r.df1, r.df2) if x is not None]
    return [float(x) for x in sc] == ours


def main() -> None:
    """Run both tools, compare, write the JSON report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="timed runs of both tools (median reported)")
    ap.add_argument("--out", type=Path, default=OUT, help="result file (default bench/results/stats_vs_statcheck.json)")
    args = ap.parse_args()
    files = sorted(DATA.glob("*.nxml"))
    run = Run(data=files)
    texts, ids = [], []
    for f in files:
        doc = load_document(f)
        texts.append(doc.body_text)
        ids.append(f.stem)
    n_chars = sum(len(t) for t in texts)
    # ours: parse + check, timed over the same texts (best of 3 to damp noise on a shared machine);
    # wall-clock and CPU time of this process (CPU time is the fairer measure when the machine is busy)
    ours: list[list[StatResult]] = []
    runs: list[dict[str, Any]] = []
    sc: dict = {}
    for _run in range(args.runs):
        ours_time = ours_cpu = float("inf")
        load0 = os.getloadavg()[0]
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            ours = [analyze(t) for t in texts]
            ours_time = min(ours_time, time.perf_counter() - t0)
            ours_cpu = min(ours_cpu, time.process_time() - c0)
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
            src.write_text(json.dumps(texts), encoding="utf-8")
            subprocess.run([str(VENV_PY), str(ROOT / "bench" / "_statcheck_worker.py"), str(src), str(dst)],
                           check=True)
            sc = json.loads(dst.read_text(encoding="utf-8"))
        runs.append({"ours_seconds": round(ours_time, 4), "ours_cpu_seconds": round(ours_cpu, 4),
                     "statcheck_seconds": round(sc["seconds"], 4), "statcheck_cpu_seconds": round(sc["cpu_seconds"], 4),
                     "ratio": round(sc["seconds"] / ours_time, 2), "cpu_ratio": round(sc["cpu_seconds"] / ours_cpu, 2),
                     "load_average_1min": [round(load0, 2), round(os.getloadavg()[0], 2)]})
    ours_time = statistics.median(r["ours_seconds"] for r in runs)
    ours_cpu = statistics.median(r["ours_cpu_seconds"] for r in runs)
    sc_time = statistics.median(r["statcheck_seconds"] for r in runs)
    sc_cpu = statistics.median(r["statcheck_cpu_seconds"] for r in runs)
    found_both, misses, value_agree, df_agree, cmp_agree, err_agree = 0, [], 0, 0, 0, 0
    err_disagree: list[dict[str, object]] = []
    matched_ids: set[tuple[int, int]] = set()
    n_sc = 0
    for i, rows in enumerate(sc["results"]):
        for row in rows:
            n_sc += 1
            r = _match(row, ours[i])
            if r is None:
                misses.append({"article": ids[i], "statcheck_raw": row["Raw"], "statistic": row["Statistic"]})
                continue
            found_both += 1
            matched_ids.add((i, r.start))
            value_agree += 1
            df_agree += _df_agree(row, r)
            cmp_agree += (row["Reported_P_Comparison"] == r.p_comparison)
            if bool(row["Error"]) == (r.consistent is False):
                err_agree += 1
            else:
                err_disagree.append({"article": ids[i], "raw": row["Raw"], "statcheck_error": bool(row["Error"]),
                                     "ours_consistent": r.consistent, "computed_p": r.computed_p})
    n_ours = sum(len(o) for o in ours)
    only_ours = [(ids[i], r) for i, rs in enumerate(ours) for r in rs if (i, r.start) not in matched_ids]
    kinds = Counter(r.kind for _, r in only_ours)
    tests = Counter(r.test or "(p only)" for rs in ours for r in rs)
    examples: dict[str, list[dict[str, object]]] = {}
    for art, r in only_ours:
        key = r.kind if r.kind != "test" else f"test:{r.test}"
        if len(examples.setdefault(key, [])) < 4:
            examples[key].append({"article": art, "text": " ".join(r.text.split())[:200]})
    report = {
        "articles": len(texts),
        "characters": n_chars,
        "text": "JATS body_text via claimtrace.documents.load_document",
        "statcheck_version": "0.0.7",
        "results": {"ours": n_ours, "statcheck": n_sc, "ratio": round(n_ours / max(n_sc, 1), 2)},
        "ours_by_kind": dict(Counter(r.kind for rs in ours for r in rs)),
        "ours_by_test": dict(tests.most_common()),
        "statcheck_found_by_ours": found_both,
        "statcheck_missed_by_ours": misses,
        "agreement_on_matched": {"value_and_p": value_agree, "df": df_agree, "p_comparison": cmp_agree,
                                 "error_flag": err_agree, "of": found_both,
                                 "error_flag_disagreements": err_disagree,
                                 "note": "a disagreement on a negative t is statcheck's port ignoring the rounding "
                                         "rule for negative values (t(46) = -0.11 rounds from up to -0.115: p = .917 "
                                         "-> .92, consistent)"},
        "only_ours": {"count": len(only_ours), "by_kind": dict(kinds), "examples": examples},
        "only_statcheck_count": len(misses),
        "speed": {
            "ours_seconds": round(ours_time, 4),
            "statcheck_seconds": round(sc_time, 4),
            "ours_chars_per_s": round(n_chars / ours_time),
            "statcheck_chars_per_s": round(n_chars / sc_time),
            "ratio": round(sc_time / ours_time, 1),
            "median_run_ratio": statistics.median(r["ratio"] for r in runs),
            "median_run_cpu_ratio": statistics.median(r["cpu_ratio"] for r in runs),
            "runs": runs,
            "ours_cpu_seconds": round(ours_cpu, 4),
            "statcheck_cpu_seconds": round(sc_cpu, 4),
            "cpu_ratio": round(sc_cpu / ours_cpu, 1),
            "load_average_1min": round(os.getloadavg()[0], 2),
            "note": "both: best of 3 passes over all texts (statcheck: each text timed around its own call); "
                    "medians over the runs",
        },
        "provenance": run.finish(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("results", "statcheck_found_by_ours", "only_statcheck_count",
                                              "agreement_on_matched", "speed")}, indent=2))


if __name__ == "__main__":
    main()
