"""Speed of offline claim traces on the Psychological Science papers with the corpus runner, 2 workers.

    .venv/bin/python bench/traces_speed.py [--workers 2] [--out bench/results/traces_speed.json]

Runs ``claimtrace run PAPERS --steps parse,traces --workers 2`` over the 100 GROBID TEI papers of
``../shared/data/documents/psychsci`` (detected findings, embedded extractor) and records wall seconds per paper
(start-up included), the machine's load average before and after, and the CPU other processes used meanwhile
(``provenance.OthersCpu``); a run where others used more than a quarter core is flagged ``loaded`` (its timing is
an upper bound: re-run it on a quiet machine).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import OthersCpu, Run

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO.parent / "shared" / "data" / "documents" / "psychsci"
OTHERS_LOADED_CORES = 0.25


def main() -> None:
    """Time one corpus run and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "traces_speed.json"))
    args = ap.parse_args()
    files = sorted(DOCS.glob("*.xml"))
    if not files:
        print(f"error: no papers in {DOCS}", file=sys.stderr)
        raise SystemExit(2)
    run = Run(data=[DOCS])
    with tempfile.TemporaryDirectory() as tmp:
        lst = Path(tmp) / "papers.txt"
        lst.write_text("\n".join(str(f) for f in files) + "\n")
        out = Path(tmp) / "out"
        shutil.rmtree(out, ignore_errors=True)
        cmd = [sys.executable, "-m", "claimtrace", "run", str(lst), "--out", str(out), "--json",
               "--steps", "parse,traces", "--workers", str(args.workers)]
        load0 = os.getloadavg()
        with OthersCpu() as others:
            t0 = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
            wall = time.perf_counter() - t0
        load1 = os.getloadavg()
    if res.returncode != 0:
        raise SystemExit(f"run failed: {res.stderr[-2000:]}")
    s = json.loads(res.stdout)
    others_cores = float(others.cores)
    result = {"schema_version": "1", "papers": s["papers"], "computed": s["computed"], "failed": s["failed"],
              "workers": args.workers, "seconds": round(wall, 2),
              "seconds_per_paper": round(wall / max(s["computed"], 1), 4),
              "loadavg_before": [round(x, 2) for x in load0], "loadavg_after": [round(x, 2) for x in load1],
              "others_cores": round(others_cores, 2), "loaded": others_cores > OTHERS_LOADED_CORES,
              "command": "claimtrace run PAPERS --steps parse,traces --workers " + str(args.workers)}
    result["provenance"] = run.finish(own_processes=args.workers + 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "provenance"}), file=sys.stderr)


if __name__ == "__main__":
    main()
