"""Where one corpus worker's time goes on the offline traces path: per-stage shares and the top functions.

    .venv/bin/python bench/traces_speed_stages.py [--papers 100] [--out FILE]     (also run by traces_speed.py)

Runs the worker path of ``claimtrace run PAPERS --steps parse,traces`` in this process (``runner._init_worker``
with a results store, then ``runner._process_chunk`` over the runner's own chunks) on the psychsci papers, twice:

1. timed: the functions of each stage are wrapped with a timer that counts a stage's time exclusive of the
   stages it calls (a stack), so the shares add up to the worker's time: parse (reading the TEI into a
   Document), retrieval index (the per-paper BM25 index, units, studies, boxes), statistics (the statistics
   engine on sentences, table rows and the chosen spans), findings (detecting the abstract's findings),
   hypothesis and evidence (the two ranking stages less what they call above), trace assembly (the rest of
   ``extract_traces``), serialisation (the traces rows, the store parts, the results' JSON), worker bookkeeping;
2. under cProfile: the functions with the most own time (profiling slows Python calls more than C ones, so these
   shares are of a profiled run, for finding hot spots, not for the budget).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO.parent / "shared" / "data" / "documents" / "psychsci"

#: (module, attribute path, stage): the functions timed as each stage (where the caller looks them up)
TARGETS = [
    ("claimtrace.corpus.work", "load_document", "parse"),
    ("claimtrace.extract.embedded", "DocIndex.__init__", "retrieval index"),
    ("claimtrace.extract.embedded", "sentence_statistics", "statistics"),
    ("claimtrace.extract.embedded", "row_statistics_records", "statistics"),
    ("claimtrace.extract.pipeline", "span_statistics", "statistics"),
    ("claimtrace.extract.pipeline", "row_statistics_records", "statistics"),
    ("claimtrace.extract.pipeline", "linked_row_records", "statistics"),
    ("claimtrace.extract.pipeline", "detect_findings", "findings"),
    ("claimtrace.extract.embedded", "EmbeddedExtractor.hypothesis", "hypothesis"),
    ("claimtrace.extract.embedded", "EmbeddedExtractor.evidence", "evidence"),
    ("claimtrace.corpus.work", "extract_traces", "trace assembly"),
    ("claimtrace.corpus.work", "Worker._traces", "serialisation"),
    ("claimtrace.corpus.work", "Worker.process", "worker bookkeeping"),
    ("claimtrace.corpus.runner", "_process_chunk", "serialisation"),
]
STAGE_ORDER = ["parse", "retrieval index", "statistics", "findings", "hypothesis", "evidence", "trace assembly",
               "serialisation", "worker bookkeeping"]


class StageTimer:
    """Exclusive seconds per stage: a stage's time less the time of the stages it calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(STAGE_ORDER, 0.0)
        self._stack: list[list[float]] = []  # [start, time of nested stages]

    def wrap(self, fn: Callable[..., Any], stage: str) -> Callable[..., Any]:
        """``fn`` timed as ``stage``."""
        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [time.perf_counter(), 0.0]
            self._stack.append(frame)
            try:
                return fn(*args, **kwargs)
            finally:
                self._stack.pop()
                total = time.perf_counter() - frame[0]
                self.seconds[stage] += total - frame[1]
                if self._stack:
                    self._stack[-1][1] += total

        return timed


def _patch(timer: StageTimer) -> Callable[[], None]:
    """Wrap every target; returns the function that undoes it."""
    undo = []
    for mod_name, attr, stage in TARGETS:
        owner: Any = importlib.import_module(mod_name)
        *path, name = attr.split(".")
        for p in path:
            owner = getattr(owner, p)
        old = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        setattr(owner, name, timer.wrap(old, stage))
        undo.append((owner, name, old))

    def restore() -> None:
        for owner, name, old in reversed(undo):
            setattr(owner, name, old)

    return restore


def _worker_pass(files: list[Path], store: Path) -> float:
    """The worker path over ``files`` in the runner's chunks; its wall seconds."""
    from claimtrace.corpus import runner
    from claimtrace.corpus.work import CorpusItem, PaperTask, chunks, sha256_of, step_keys
    from claimtrace.settings import CorpusSettings

    settings = CorpusSettings(steps=["parse", "traces"])
    keys = step_keys(settings)
    tasks = [PaperTask(item=CorpusItem(path=str(f)), paper_id=sha256_of(f), steps=settings.steps, keys=keys)
             for f in files]
    t0 = time.perf_counter()
    runner._init_worker(settings.model_dump_json(), str(store))
    for i, c in enumerate(chunks(tasks, 2)):
        runner._process_chunk([t.model_dump_json() for t in c], f"stages-w{i:06d}")
    return time.perf_counter() - t0


def profile(files: list[Path], top: int = 15) -> dict[str, Any]:
    """Stage shares of one worker over ``files`` (timed pass) and its top functions (cProfile pass)."""
    import logging

    _worker_pass(files[:1], Path(tempfile.mkdtemp(prefix="ct-warm-")))  # imports and models loaded once
    timer = StageTimer()
    restore = _patch(timer)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            wall = _worker_pass(files, Path(tmp))
    finally:
        restore()
    prof = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp:
        prof.enable()
        _worker_pass(files, Path(tmp))
        prof.disable()
    logging.disable(logging.NOTSET)
    st = pstats.Stats(prof)
    total = sum(v[2] for v in st.stats.values())  # type: ignore[attr-defined]
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
    funcs = [{"function": f"{Path(fn).name}:{line}({name})" if fn != "~" else name, "share": round(v[2] / total, 4),
              "calls": v[1]} for (fn, line, name), v in rows]
    timed = sum(timer.seconds.values())
    return {"papers": len(files), "seconds_per_paper": round(wall / len(files), 4),
            "timed_share_of_wall": round(timed / wall, 4) if wall else 0.0,
            "seconds": {k: round(v, 3) for k, v in timer.seconds.items()},
            "shares": {k: round(v / timed, 4) for k, v in timer.seconds.items()} if timed else {},
            "top_functions": funcs, "method": "timed pass: stage functions wrapped, exclusive times; "
                                              "top functions: cProfile own time of a second pass"}


def main() -> None:
    """Profile the stages on the first N papers and print (or write) the result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=100)
    ap.add_argument("--out", default=None)
    ap.add_argument("--cpu-only", action="store_true", help="only the CPU and wall seconds of a warm worker pass "
                    "(what traces_speed.py --ab --worker-only compares)")
    args = ap.parse_args()
    files = sorted(DOCS.glob("*.xml"))[: args.papers]
    if not files:
        print(f"error: no papers in {DOCS}", file=sys.stderr)
        raise SystemExit(2)
    if args.cpu_only:
        _worker_pass(files[:1], Path(tempfile.mkdtemp(prefix="ct-warm-")))
        with tempfile.TemporaryDirectory() as tmp:
            c0 = time.process_time()
            wall = _worker_pass(files, Path(tmp))
            cpu = time.process_time() - c0
        sys.stdout.write(json.dumps({"papers": len(files), "cpu_seconds": round(cpu, 3), "wall_seconds": round(wall, 3)})
                         + "\n")
        return
    res = profile(files)
    text = json.dumps(res, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
