"""The statistics engine before and after a change, timed in the same run on the same texts (A/B).

Texts: the JATS body text of the 90 Evidence-Inference validation articles (as `bench/stats_vs_statcheck.py`).
The "before" engine is the ``src/`` of a git revision (``--base``, extracted with ``git archive``), the "after"
engine this checkout's ``src/``, or that of another revision (``--after``: the cost of one commit range alone).
Each round runs one subprocess per engine, alternating (before, after), each timing ``analyze`` over every text
for ``--passes`` passes after one warm-up pass; a round's figure is the fastest pass (CPU time of the process,
and wall time). Medians over the rounds are reported, with their ratio
(after / before) and every round; the load average is recorded (bench/provenance.py flags a loaded run).

    python bench/stats_speed_ab.py [--base d9fd1a0] [--after REV] [--rounds 5] [--passes 7] [--out FILE]

Writes bench/results/stats_speed_ab.json (``--out``: another file, e.g. the cost of one branch's change with
``--base`` at its fork point: bench/results/stats_speed_ab_score_forms.json).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from provenance import Run  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "evidence-inference" / "validation" / "articles"
OUT = ROOT / "bench" / "results" / "stats_speed_ab.json"
BASE = "d9fd1a0"  # main where i13-stats2 branched off: the engine before its speed work and new forms


def _worker(src: str, texts_file: str, passes: int) -> None:
    """Time ``analyze`` of the engine in ``src`` over the pickled texts; print one JSON line."""
    sys.path.insert(0, src)
    from claimtrace.stats import analyze
    from claimtrace.stats import parser as parser_module

    texts = pickle.loads(Path(texts_file).read_bytes())
    n_results = sum(len(analyze(t)) for t in texts)  # warm-up (imports, compiled patterns, scipy)
    cpu, wall = [], []
    for _ in range(passes):
        c0, w0 = time.process_time(), time.perf_counter()
        for t in texts:
            analyze(t)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    print(json.dumps({"engine": parser_module.__file__, "results": n_results, "cpu_seconds": min(cpu),
                      "wall_seconds": min(wall)}))


def _extract(rev: str, dest: Path) -> Path:
    """``src/`` of git revision ``rev`` under ``dest``."""
    archive = dest / "src.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "src"], check=True, stdout=fh)
    with tarfile.open(archive) as tf:
        tf.extractall(dest, filter="data")
    return dest / "src"


def main() -> None:
    """Run the A/B rounds and write the JSON report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default=BASE, help="git revision of the 'before' engine")
    ap.add_argument("--after", default=None, help="git revision of the 'after' engine (default: this checkout's src)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--out", default=str(OUT), help="result file (default bench/results/stats_speed_ab.json)")
    ap.add_argument("--worker", nargs=3, metavar=("SRC", "TEXTS", "PASSES"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return
    if not DATA.is_dir():
        sys.exit(f"error: {DATA} not found (the shared data must sit beside the repository)")
    files = sorted(DATA.glob("*.nxml"))
    run = Run(data=files)
    sys.path.insert(0, str(ROOT / "src"))
    from claimtrace.documents import load_document

    texts = [load_document(f).body_text for f in files]
    base_rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.base], check=True, capture_output=True,
                              text=True).stdout.strip()
    after_rev = None if args.after is None else subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", args.after], check=True, capture_output=True, text=True).stdout.strip()
    rounds: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        texts_file = tmpd / "texts.pkl"
        texts_file.write_bytes(pickle.dumps(texts))
        after_dir = tmpd / "after"
        if after_rev is not None:
            after_dir.mkdir()
        engines = {"before": str(_extract(base_rev, tmpd)),
                   "after": str(ROOT / "src") if after_rev is None else str(_extract(after_rev, after_dir))}
        env = {**os.environ, "PYTHONPATH": ""}
        for _ in range(args.rounds):
            row: dict[str, object] = {"load_average_1min": round(os.getloadavg()[0], 2)}
            for name, src in engines.items():
                out = subprocess.run([sys.executable, __file__, "--worker", src, str(texts_file), str(args.passes)],
                                     check=True, capture_output=True, text=True, env=env).stdout
                row[name] = json.loads(out.strip().splitlines()[-1])
            rounds.append(row)
    med = {name: {k: statistics.median(r[name][k] for r in rounds)  # type: ignore[index]
                  for k in ("cpu_seconds", "wall_seconds")} for name in ("before", "after")}
    ratios_cpu = [r["after"]["cpu_seconds"] / r["before"]["cpu_seconds"] for r in rounds]  # type: ignore[index]
    report = {
        "schema_version": "1",
        "articles": len(texts),
        "characters": sum(len(t) for t in texts),
        "base_revision": base_rev,
        "after_revision": after_rev or "this checkout (provenance.commit)",
        "results": {name: rounds[0][name]["results"] for name in ("before", "after")},  # type: ignore[index]
        "median": med,
        "cpu_ratio_after_over_before": round(med["after"]["cpu_seconds"] / med["before"]["cpu_seconds"], 3),
        "median_round_cpu_ratio": round(statistics.median(ratios_cpu), 3),
        "cpu_speedup": round(med["before"]["cpu_seconds"] / med["after"]["cpu_seconds"], 2),
        "rounds": rounds,
        "note": "each engine in its own process, alternating; a round's figure is the fastest of --passes passes",
        "provenance": run.finish(),
    }
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("results", "median", "cpu_ratio_after_over_before",
                                              "median_round_cpu_ratio", "cpu_speedup")}, indent=2))


if __name__ == "__main__":
    main()
