"""Runs the Python statcheck (GPL, its own venv) on texts; called by stats_vs_statcheck.py.

Reads a JSON list of texts (argv[1]), writes {"seconds": ..., "cpu_seconds": ..., "results": [[row, ...] per text]}
to argv[2]. Only statcheck's own call is timed. Never imported by claimtrace.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import time
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

PASSES = 3


def main() -> None:
    """Run statcheck on each text and dump its rows."""
    from statcheck.st import statcheck

    texts = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    out: list[list[dict[str, object]]] = []
    best_total = best_cpu = math.inf
    for rep in range(PASSES):  # best of PASSES, like our engine's timing
        total = cpu = 0.0
        for text in texts:
            t0, c0 = time.perf_counter(), time.process_time()
            with contextlib.redirect_stderr(io.StringIO()):
                res, _ = statcheck([text], messages=False)
            total += time.perf_counter() - t0
            cpu += time.process_time() - c0
            if rep:
                continue
            rows = []
            if res is not None and len(res):
                for rec in res.to_dict("records"):
                    rows.append({k: (None if isinstance(v, float) and math.isnan(v) else v)
                                 for k, v in rec.items()})
            out.append(rows)
        best_total, best_cpu = min(best_total, total), min(best_cpu, cpu)
    total, cpu = best_total, best_cpu
    Path(sys.argv[2]).write_text(json.dumps({"seconds": total, "cpu_seconds": cpu, "results": out}, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
