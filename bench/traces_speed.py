"""Speed of offline claim traces on the Psychological Science papers with the corpus runner, 2 workers.

    .venv/bin/python bench/traces_speed.py [--workers 2] [--out bench/results/traces_speed.json]
    .venv/bin/python bench/traces_speed.py --ab /work/main/src [--rounds 3] [--papers 40]   # A/B, interleaved

Runs ``claimtrace run PAPERS --steps parse,traces --workers 2`` over the 100 GROBID TEI papers of
``../shared/data/documents/psychsci`` (detected findings, embedded extractor) and records wall seconds per paper
(start-up included), the machine's load average before and after, and the CPU other processes used meanwhile
(``provenance.OthersCpu``); a run where others used more than a quarter core is flagged ``loaded`` (its timing is
an upper bound: re-run it on a quiet machine).

``--ab SRC`` compares this tree with another checkout's ``src`` (e.g. main) on a loaded machine: the two run the
same command in turn (A B B A A B ...: ``--rounds`` pairs), each timed for wall seconds and the CPU seconds of the
whole process tree; the result is the ratio of this tree's median over the other's (below 1: this tree is faster).
CPU seconds are far less disturbed by other processes than wall seconds; the absolute figure is for a quiet re-run.
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
from typing import Any

from provenance import OthersCpu, Run

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO.parent / "shared" / "data" / "documents" / "psychsci"
OTHERS_LOADED_CORES = 0.25


def _timed(cmd: list[str], src: Path) -> tuple[float, float, dict[str, Any]]:
    """Wall and process-tree CPU seconds of one corpus run with ``src`` first on the path, and its summary."""
    import resource

    env = dict(os.environ, PYTHONPATH=str(src))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"run failed ({src}): {res.stderr[-2000:]}")
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    return wall, cpu, json.loads(res.stdout)


def ab(args: argparse.Namespace, files: list[Path], run: Run) -> None:
    """This tree against ``args.ab`` (another checkout's src), interleaved; writes the ratio of medians."""
    from statistics import median

    trees = {"this": REPO / "src", "other": Path(args.ab).resolve()}
    per: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in trees}
    order = [("this", "other") if i % 2 == 0 else ("other", "this") for i in range(args.rounds)]
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        lst = Path(tmp) / "papers.txt"
        lst.write_text("\n".join(str(f) for f in files) + "\n")
        for pair in order:
            for name in pair:
                out = Path(tmp) / f"out-{name}"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [sys.executable, "-m", "claimtrace", "run", str(lst), "--out", str(out), "--json",
                       "--steps", "parse,traces", "--workers", str(args.workers)]
                wall, cpu, s = _timed(cmd, trees[name])
                if s["computed"] != len(files):
                    raise SystemExit(f"{name}: {s['computed']} of {len(files)} papers computed")
                per[name]["wall"].append(round(wall, 2))
                per[name]["cpu"].append(round(cpu, 2))
                print(name, f"wall {wall:.1f} s, cpu {cpu:.1f} s", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    med = {k: {m: median(v[m]) for m in ("wall", "cpu")} for k, v in per.items()}
    result = {"schema_version": "1", "papers": len(files), "workers": args.workers, "rounds": args.rounds,
              "this": str(trees["this"]), "other": str(trees["other"]), "runs": per,
              "seconds_per_paper": {k: {m: round(v[m] / len(files), 4) for m in v} for k, v in med.items()},
              "ratio_this_over_other": {m: round(med["this"][m] / med["other"][m], 3) for m in ("wall", "cpu")},
              "loadavg_before": [round(x, 2) for x in load0], "loadavg_after": [round(x, 2) for x in load1],
              "loaded": True, "command": "claimtrace run PAPERS --steps parse,traces --workers " + str(args.workers)}
    result["provenance"] = run.finish(own_processes=args.workers + 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("provenance", "runs")}), file=sys.stderr)


def main() -> None:
    """Time one corpus run (or an A/B pair of trees) and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("--ab", metavar="SRC", help="compare with another checkout's src (e.g. /work/main/src), interleaved")
    ap.add_argument("--rounds", type=int, default=3, help="--ab: pairs of runs")
    ap.add_argument("--papers", type=int, default=0, help="the first N papers only (default: all)")
    args = ap.parse_args()
    files = sorted(DOCS.glob("*.xml"))
    if not files:
        print(f"error: no papers in {DOCS}", file=sys.stderr)
        raise SystemExit(2)
    if args.papers:
        files = files[: args.papers]
    run = Run(data=[DOCS])
    if args.ab:
        if not (Path(args.ab) / "claimtrace").is_dir():
            print(f"error: {args.ab} holds no claimtrace package", file=sys.stderr)
            raise SystemExit(2)
        args.out = args.out or str(REPO / "bench" / "results" / "traces_speed_ab.json")
        ab(args, files, run)
        return
    args.out = args.out or str(REPO / "bench" / "results" / "traces_speed.json")
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
            res = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO,
                             env=dict(os.environ, PYTHONPATH=str(REPO / "src")))
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
