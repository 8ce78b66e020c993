"""Start-up time of the command line and the package: median wall time of fresh processes, timed by pyperf.

Three commands, each timed by ``pyperf`` (``Runner.bench_command``): ``--runs`` worker processes (default 10),
each running the command once unmeasured (file cache) and once measured, so the figure is the median wall time
of ``--runs`` fresh processes, with min, max and every run kept:

- ``claimtrace --help``;
- ``claimtrace stats PAGE.txt`` on a one-page text (``bench/data/startup_page.txt``: one page of prose with
  six results, written for this measurement);
- ``python -c "import claimtrace"``.

Targets (issue 28): 0.3 s, 0.6 s and 0.3 s on a quiet machine. The 1-minute load average is recorded before
and after (and by pyperf per run); a run whose load average exceeds the core count is marked ``loaded`` and is
no headline, and pyperf prints its stability warnings (``--quiet`` hides them). Run it quietly (nothing else
running) with:

    nice -n 0 .venv/bin/python bench/startup.py

``--compare OTHER/src`` times a second tree in the same run, after this tree's processes (before and after a
change): each row then has the other tree's figures and the ratio of the medians (this / other) with a 95%
bootstrap interval. ``--pyperf FILE`` also keeps pyperf's own JSON (``python -m pyperf compare_to``,
``python -m pyperf stats``). Other pyperf options (``--rigorous``, ``--affinity``, ...) pass through.

Writes bench/results/startup.json (``--out`` to write elsewhere).
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyperf

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "bench" / "data" / "startup_page.txt"
TARGETS = {"help": 0.3, "stats_one_page": 0.6, "import": 0.3}
SHOWN = {"help": "claimtrace --help", "stats_one_page": "claimtrace stats bench/data/startup_page.txt",
         "import": 'python -c "import claimtrace"'}


def commands(python: str, src: Path) -> dict[str, list[str]]:
    """The measured command lines with ``src`` first on the path (the CLI through its entry point, ``main``)."""
    first = f"import sys; sys.path.insert(0, {str(src.resolve())!r}); "
    entry = first + "from claimtrace.cli import main; sys.argv[0] = 'claimtrace'; main()"
    return {
        "help": [python, "-c", entry, "--help"],
        "stats_one_page": [python, "-c", entry, "stats", str(PAGE)],
        "import": [python, "-c", first + "import claimtrace"],
    }


def summary(bench: pyperf.Benchmark) -> dict[str, Any]:
    """Median, min and max wall time and every run of one command in one tree."""
    runs = list(bench.get_values())
    return {"median_s": round(bench.median(), 4), "min_s": round(min(runs), 4), "max_s": round(max(runs), 4),
            "runs_s": [round(r, 4) for r in runs]}


def ratio_interval(a: list[float], b: list[float], *, reps: int = 2000, seed: int = 0) -> list[float]:
    """95% percentile-bootstrap interval of median(a) / median(b) (each resampled on its own)."""
    rng = random.Random(seed)
    ratios = sorted(statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b)))
                    for _ in range(reps))
    return [round(ratios[int(0.025 * reps)], 3), round(ratios[int(0.975 * reps) - 1], 3)]


def _pass_args(cmd: list[str], args: Any) -> None:
    """The options a pyperf worker needs to rebuild the same command lines."""
    cmd += ["--src", str(args.src)] + (["--compare", str(args.compare)] if args.compare else [])


def main() -> None:
    """Time each command (pyperf workers) and write the result file."""
    runner = pyperf.Runner(values=1, warmups=1, loops=1, add_cmdline_args=_pass_args)
    ap = runner.argparser
    ap.add_argument("--runs", type=int, default=10, help="fresh measured processes per command and tree")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "startup.json")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the src/ folder to time (another tree's)")
    ap.add_argument("--compare", type=Path, default=None,
                    help="a second src/ folder timed in the same run, after --src (e.g. main's)")
    ap.add_argument("--pyperf", type=Path, default=None, help="also write pyperf's JSON of the run here")
    args = runner.parse_args()
    if not args.worker:
        args.processes = args.runs
    trees = {"this": args.src} | ({"compare": args.compare} if args.compare else {})
    load_before = os.getloadavg()
    run = None
    if not args.worker:
        from provenance import Run

        run = Run()
    benches: dict[tuple[str, str], pyperf.Benchmark] = {}
    for name in TARGETS:
        for tree, src in trees.items():
            b = runner.bench_command(f"{name}:{tree}", commands(sys.executable, src)[name])
            if b is not None:
                benches[name, tree] = b
    if args.worker or run is None:
        return
    load_after = os.getloadavg()
    cores = os.cpu_count() or 1
    loaded = max(load_before[0], load_after[0]) > cores
    rows: dict[str, Any] = {}
    for name in TARGETS:
        row = summary(benches[name, "this"])
        med = row["median_s"]
        rows[name] = {"command": SHOWN[name], "argv": commands(sys.executable, args.src)[name][1:], **row,
                      "target_s": TARGETS[name], "meets_target": med <= TARGETS[name],
                      "load_avg_1min_runs": [r.get_metadata().get("load_avg_1min")
                                             for r in benches[name, "this"].get_runs() if r.values]}
        if "compare" in trees:
            other = summary(benches[name, "compare"])
            rows[name]["compare"] = other
            rows[name]["median_ratio"] = round(med / other["median_s"], 3)
            rows[name]["median_ratio_ci95"] = ratio_interval(row["runs_s"], other["runs_s"])
    if args.pyperf:
        pyperf.BenchmarkSuite(list(benches.values())).dump(str(args.pyperf), replace=True)
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    result = {
        "what": "start-up wall time, median of fresh processes (bench/startup.py, timed by pyperf)",
        "command": "python bench/startup.py" + (f" --runs {args.runs}" if args.runs != 10 else "")
                   + (f" --compare {args.compare}" if args.compare else ""),
        "commit": commit, "src": str(args.src), "compare_src": str(args.compare) if args.compare else None,
        "runs": args.runs, "warmup": 1, "harness": f"pyperf {pyperf.__version__} (Runner.bench_command)",
        "machine": {"cores": cores, "python": platform.python_version(), "platform": platform.platform()},
        "loadavg_before": [round(x, 2) for x in load_before], "loadavg_after": [round(x, 2) for x in load_after],
        "loaded": loaded,
        "note": ("LOADED machine (1-min load average above the core count): not a headline; re-run quietly"
                 if loaded else "quiet machine"),
        "results": rows,
        "provenance": run.finish(),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for name, r in rows.items():
        print(f"{name:15s} median {r['median_s']:.3f} s (min {r['min_s']:.3f}, max {r['max_s']:.3f}); target "
              f"{TARGETS[name]} s", file=sys.stderr)
    print(f"load average {load_before[0]:.2f} -> {load_after[0]:.2f} on {cores} cores"
          + (" (LOADED)" if loaded else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
