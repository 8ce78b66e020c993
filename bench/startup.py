"""Start-up time of the command line and the package: median wall time of fresh processes.

Three commands, each run ``--warmup`` times unmeasured (file cache), then ``--runs`` times (default 10), as
hyperfine does; the figure is the median wall time, with min, max and every run kept:

- ``claimtrace --help``;
- ``claimtrace stats PAGE.txt`` on a one-page text (``bench/data/startup_page.txt``: one page of prose with
  six results, written for this measurement);
- ``python -c "import claimtrace"``.

Targets (issue 28): 0.3 s, 0.6 s and 0.3 s on a quiet machine. The 1-minute load average is recorded before
and after; a run whose load average exceeds the core count is marked ``loaded`` and is no headline. Run
it quietly (nothing else running) with:

    nice -n 0 .venv/bin/python bench/startup.py

``--compare OTHER/src`` times a second tree in the same run, its fresh processes alternating with this
tree's (before and after a change, under the same load): each row then has the other tree's figures and
the ratio of the medians (this / other) with a 95% bootstrap interval.

Writes bench/results/startup.json (``--out`` to write elsewhere).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from provenance import Run

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "bench" / "data" / "startup_page.txt"
TARGETS = {"help": 0.3, "stats_one_page": 0.6, "import": 0.3}
SHOWN = {"help": "claimtrace --help", "stats_one_page": "claimtrace stats bench/data/startup_page.txt",
         "import": 'python -c "import claimtrace"'}


def commands(python: str) -> dict[str, list[str]]:
    """The measured command lines (the CLI through the console script's entry point, ``main``)."""
    entry = "import sys; from claimtrace.cli import main; sys.argv[0] = 'claimtrace'; main()"
    return {
        "help": [python, "-c", entry, "--help"],
        "stats_one_page": [python, "-c", entry, "stats", str(PAGE)],
        "import": [python, "-c", "import claimtrace"],
    }


def time_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one fresh process (output discarded; a failure stops
    the measurement). CPU time moves less than wall time on a loaded machine: it is kept beside it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summary(timed: list[tuple[float, float]]) -> dict[str, Any]:
    """Median, min and max wall time, median CPU time and every run of one command in one tree."""
    runs = [w for w, _ in timed]
    return {"median_s": round(statistics.median(runs), 4), "min_s": round(min(runs), 4), "max_s": round(max(runs), 4),
            "cpu_median_s": round(statistics.median(c for _, c in timed), 4), "runs_s": [round(r, 4) for r in runs],
            "cpu_runs_s": [round(c, 4) for _, c in timed]}


def ratio_interval(a: list[float], b: list[float], *, reps: int = 2000, seed: int = 0) -> list[float]:
    """95% percentile-bootstrap interval of median(a) / median(b) (each resampled on its own)."""
    rng = random.Random(seed)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b)))
                    for _ in range(reps))
    return [round(ratios[int(0.025 * reps)], 3), round(ratios[int(0.975 * reps) - 1], 3)]


def main() -> None:
    """Measure each command and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "startup.json")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the src/ folder to time (another tree's)")
    ap.add_argument("--compare", type=Path, default=None,
                    help="a second src/ folder timed in the same run, alternating with --src (e.g. main's)")
    args = ap.parse_args()
    run = Run()
    trees = {"this": args.src} | ({"compare": args.compare} if args.compare else {})
    envs = {k: {**os.environ, "PYTHONPATH": str(src.resolve())} for k, src in trees.items()}
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()
    rows: dict[str, Any] = {}
    for name, cmd in commands(sys.executable).items():
        for _ in range(args.warmup):
            for env in envs.values():
                time_once(cmd, env)
        timed: dict[str, list[tuple[float, float]]] = {k: [] for k in envs}
        for _ in range(args.runs):
            for k, env in envs.items():
                timed[k].append(time_once(cmd, env))
        row = summary(timed["this"])
        med = row["median_s"]
        rows[name] = {"command": SHOWN[name], "argv": cmd[1:], **row,
                      "target_s": TARGETS[name], "meets_target": med <= TARGETS[name]}
        note = ""
        if "compare" in timed:
            other = summary(timed["compare"])
            rows[name]["compare"] = other
            rows[name]["median_ratio"] = round(med / other["median_s"], 3)
            rows[name]["median_ratio_ci95"] = ratio_interval(row["runs_s"], other["runs_s"])
            rows[name]["cpu_median_ratio"] = round(row["cpu_median_s"] / other["cpu_median_s"], 3)
            rows[name]["cpu_median_ratio_ci95"] = ratio_interval(row["cpu_runs_s"], other["cpu_runs_s"])
            note = f"; compare {other['median_s']:.3f} s (CPU {other['cpu_median_s']:.3f} s)"
        print(f"{name:15s} median {med:.3f} s (min {row['min_s']:.3f}, max {row['max_s']:.3f}; CPU "
              f"{row['cpu_median_s']:.3f} s){note}; target {TARGETS[name]} s", file=sys.stderr)
    load_after = os.getloadavg()
    loaded = max(load_before[0], load_after[0]) > cores
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    result = {
        "what": "start-up wall time, median of fresh processes (bench/startup.py)",
        "command": "python bench/startup.py" + (f" --runs {args.runs}" if args.runs != 10 else "")
                   + (f" --compare {args.compare}" if args.compare else ""),
        "commit": commit, "src": str(args.src), "compare_src": str(args.compare) if args.compare else None,
        "runs": args.runs, "warmup": args.warmup,
        "machine": {"cores": cores, "python": platform.python_version(), "platform": platform.platform(),
                    "hyperfine": bool(shutil.which("hyperfine"))},
        "loadavg_before": [round(x, 2) for x in load_before], "loadavg_after": [round(x, 2) for x in load_after],
        "loaded": loaded,
        "note": ("LOADED machine (1-min load average above the core count): not a headline; re-run quietly"
                 if loaded else "quiet machine"),
        "results": rows,
        "provenance": run.finish(),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"load average {load_before[0]:.2f} -> {load_after[0]:.2f} on {cores} cores"
          + (" (LOADED)" if loaded else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
