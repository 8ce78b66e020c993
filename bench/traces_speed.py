"""Speed of offline claim traces on the Psychological Science papers with the corpus runner, 2 workers.

    .venv/bin/python bench/traces_speed.py [--workers 2] [--repeat 5] [--out bench/results/traces_speed.json]
    .venv/bin/python bench/traces_speed.py --ab /work/main/src [--rounds 3] [--papers 40]   # A/B, interleaved
    .venv/bin/python bench/traces_speed.py --stages-only [--papers 100] [--out FILE]        # the stage profile alone
    .venv/bin/python bench/traces_speed.py --save /tmp/before.jsonl [--papers 100]          # guard, on the old tree
    .venv/bin/python bench/traces_speed.py --compare /tmp/before.jsonl                      # guard, on the new tree

Runs ``claimtrace run PAPERS --steps parse,traces --workers 2`` over the 100 GROBID TEI papers of
``../shared/data/documents/psychsci`` (detected findings, embedded extractor) and records wall seconds per paper
(start-up included), the machine's load average before and after, and the CPU other processes used meanwhile
(``provenance.OthersCpu``); a run where others used more than a quarter core is flagged ``loaded`` (its timing is
an upper bound: re-run it on a quiet machine). ``--repeat N`` makes N such runs and reports their median (each run
is recorded: wall, CPU of the process tree, worker seconds, load before/after, others' cores). A run's worker
seconds (the papers' ``seconds`` in the store: time inside ``Worker.process``) against wall x workers give the
runner's overhead (process start-up, imports, chunk transfer, the driver's commits, idle workers at the end).

Unless ``--no-stages``, the same file gets ``stages``: where one worker's time goes. The worker path of
``claimtrace run PAPERS --steps parse,traces`` runs in this process (``runner._init_worker`` with a results store,
then ``runner._process_chunk`` over the runner's own chunks), twice:

1. timed: the functions of each stage are wrapped with a timer that counts a stage's time exclusive of the
   stages it calls (a stack), so the shares add up to the worker's time: parse (reading the TEI into a
   Document), retrieval index (the per-paper BM25 index, units, studies, boxes), statistics (the statistics
   engine on sentences, table rows and the chosen spans), findings (detecting the abstract's findings),
   hypothesis and evidence (the two ranking stages less what they call above), trace assembly (the rest of
   ``extract_traces``), serialisation (the traces rows, the store parts, the results' JSON), worker bookkeeping;
2. under cProfile: the functions with the most own time (profiling slows Python calls more than C ones, so these
   shares are of a profiled run, for finding hot spots, not for the budget).

``--save``/``--compare`` guard speed work: the offline traces are the same before and after, field for field. They
run the corpus worker (``claimtrace.corpus.work.Worker``, the default settings of ``claimtrace run``) in this
process over the first N papers and write, one JSON line a paper: the sha256 of the parsed Document's JSON, the
worker's traces rows (what a corpus run stores) and every ClaimTrace of ``extract_traces`` as JSON less its
``timings`` (the only field that may change). ``--compare`` recomputes them and prints each paper and field that
differs; exit status 1 when any does.

``--ab SRC`` compares this tree (or ``--this SRC``) with another checkout's ``src`` (e.g. main) on a loaded machine:
the two run the same command in turn (A B B A A B ...: ``--rounds`` pairs), each timed for wall seconds and the CPU
seconds of the whole process tree; the result is the ratio of this tree's median over the other's (below 1: this
tree is faster), and the geometric mean of the pairs' ratios with its 95% t interval (n = rounds).
CPU seconds are far less disturbed by other processes than wall seconds; the absolute figure is for a quiet re-run.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provenance import OthersCpu, Run

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO.parent / "shared" / "data" / "documents" / "psychsci"
OTHERS_LOADED_CORES = 0.25

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


def paper_record(worker: Any, path: Path) -> dict[str, Any]:
    """What must not change for one paper: the Document's hash, the worker's traces rows, the ClaimTraces."""
    from claimtrace.corpus.work import CorpusItem, PaperTask, sha256_of, step_keys
    from claimtrace.extract.pipeline import extract_traces

    s = worker.settings
    task = PaperTask(item=CorpusItem(path=str(path)), paper_id=sha256_of(path), steps=s.steps, keys=step_keys(s))
    res = worker.process(task)
    doc = worker._parse(str(path))
    traces = extract_traces(doc, extractor=worker._extractor, config=s.config,
                            max_evidence_sentences=s.max_evidence_sentences)
    return {"paper": path.name,
            "document_sha256": hashlib.sha256(doc.model_dump_json().encode()).hexdigest(),
            "errors": res.errors, "paper_fields": res.paper, "rows": res.rows,
            "traces": [{k: v for k, v in t.model_dump(mode="json").items() if k != "timings"} for t in traces]}


def diff(a: Any, b: Any, where: str = "") -> list[str]:
    """The paths at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in diff(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in diff(x, y, f"{where}[{i}]")]
    return [] if a == b else [where or "."]


def cpu_only(files: list[Path]) -> None:
    """Print the CPU and wall seconds of a warm worker pass (what ``--ab --worker-only`` compares)."""
    _worker_pass(files[:1], Path(tempfile.mkdtemp(prefix="ct-warm-")))
    with tempfile.TemporaryDirectory() as tmp:
        c0 = time.process_time()
        wall = _worker_pass(files, Path(tmp))
        cpu = time.process_time() - c0
    sys.stdout.write(json.dumps({"papers": len(files), "cpu_seconds": round(cpu, 3), "wall_seconds": round(wall, 3)})
                     + "\n")


def same(files: list[Path], save: str | None, compare: str | None) -> None:
    """Write (``save``) or compare (``compare``) the guard records of ``files``; exit 1 when any paper differs."""
    from claimtrace.corpus.work import Worker
    from claimtrace.settings import CorpusSettings

    worker = Worker(CorpusSettings(steps=["parse", "traces"]))
    records = [json.loads(json.dumps(paper_record(worker, f), default=str)) for f in files]
    if save:
        Path(save).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
        print(f"{len(records)} papers written to {save}", file=sys.stderr)
        return
    try:
        old = {r["paper"]: r for r in map(json.loads, Path(str(compare)).read_text().splitlines())}
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {compare}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    bad = 0
    for r in records:
        d = diff(old.get(r["paper"]), r)
        if d:
            bad += 1
            print(r["paper"], ", ".join(d[:8]), file=sys.stderr)
    n_traces = sum(len(r["traces"]) for r in records)
    print(f"{len(records) - bad} of {len(records)} papers identical ({n_traces} traces)", file=sys.stderr)
    raise SystemExit(1 if bad else 0)


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


def _ratio_ci(ratios: list[float]) -> list[float]:
    """The geometric mean of paired ratios and its 95% t interval (over the log ratios); n = len(ratios)."""
    import math
    from statistics import mean, stdev

    from scipy.stats import t as student_t

    logs = [math.log(r) for r in ratios]
    m = mean(logs)
    if len(logs) < 2:
        return [round(math.exp(m), 4)] * 3
    h = float(student_t.ppf(0.975, len(logs) - 1)) * stdev(logs) / math.sqrt(len(logs))
    return [round(math.exp(m), 4), round(math.exp(m - h), 4), round(math.exp(m + h), 4)]


def ab(args: argparse.Namespace, files: list[Path], run: Run) -> None:
    """This tree against ``args.ab`` (another checkout's src), interleaved; writes the ratio of medians."""
    from statistics import median

    trees = {"this": Path(args.this).resolve(), "other": Path(args.ab).resolve()}
    per: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in trees}
    order = [("this", "other") if i % 2 == 0 else ("other", "this") for i in range(args.rounds)]
    load0 = os.getloadavg()
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        lst = Path(tmp) / "papers.txt"
        lst.write_text("\n".join(str(f) for f in files) + "\n")
        for pair in order:
            for name in pair:
                out = Path(tmp) / f"out-{name}"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [sys.executable, "-m", "claimtrace", "run", str(lst), "--out", str(out), "--json",
                       "--steps", "parse,traces", "--workers", str(args.workers)]
                if args.worker_only:
                    cmd = [sys.executable, str(REPO / "bench" / "traces_speed.py"), "--cpu-only",
                           "--papers", str(len(files))]
                loads.append(round(os.getloadavg()[0], 2))
                wall, cpu, s = _timed(cmd, trees[name])
                if args.worker_only:  # the warm pass only: no start-up, no pool
                    wall, cpu = s["wall_seconds"], s["cpu_seconds"]
                elif s["computed"] != len(files):
                    raise SystemExit(f"{name}: {s['computed']} of {len(files)} papers computed")
                per[name]["wall"].append(round(wall, 2))
                per[name]["cpu"].append(round(cpu, 2))
                print(name, f"wall {wall:.1f} s, cpu {cpu:.1f} s", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    med = {k: {m: median(v[m]) for m in ("wall", "cpu")} for k, v in per.items()}
    # each round's pair ran back to back: the ratio of a pair, and a 95% t interval of the pairs' log ratios
    pairs = {m: [t / o for t, o in zip(per["this"][m], per["other"][m], strict=True)] for m in ("wall", "cpu")}
    result = {"schema_version": "1", "papers": len(files), "workers": args.workers, "rounds": args.rounds,
              "this": str(trees["this"]), "other": str(trees["other"]), "runs": per,
              "seconds_per_paper": {k: {m: round(v[m] / len(files), 4) for m in v} for k, v in med.items()},
              "ratio_this_over_other": {m: round(med["this"][m] / med["other"][m], 3) for m in ("wall", "cpu")},
              "pair_ratios": {m: [round(x, 4) for x in v] for m, v in pairs.items()},
              "pair_ratio_mean_ci95": {m: _ratio_ci(v) for m, v in pairs.items()},
              "loadavg_per_run": loads,
              "loadavg_before": [round(x, 2) for x in load0], "loadavg_after": [round(x, 2) for x in load1],
              "loaded": True, "worker_only": bool(args.worker_only),
              "command": ("bench/traces_speed.py --cpu-only (one warm worker in one process)" if args.worker_only
                          else "claimtrace run PAPERS --steps parse,traces --workers " + str(args.workers))}
    result["provenance"] = run.finish(own_processes=args.workers + 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("provenance", "runs")}), file=sys.stderr)


def one_run(files: list[Path], workers: int, src: Path) -> dict[str, Any]:
    """One timed corpus run of ``files`` with ``src`` first on the path: wall, CPU, worker seconds, load, others."""
    import resource

    from claimtrace.corpus.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        lst = Path(tmp) / "papers.txt"
        lst.write_text("\n".join(str(f) for f in files) + "\n")
        out = Path(tmp) / "out"
        cmd = [sys.executable, "-m", "claimtrace", "run", str(lst), "--out", str(out), "--json",
               "--steps", "parse,traces", "--workers", str(workers)]
        load0 = os.getloadavg()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        with OthersCpu() as others:
            t0 = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(src)))
            wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        load1 = os.getloadavg()
        if res.returncode != 0:
            raise SystemExit(f"run failed: {res.stderr[-2000:]}")
        s = json.loads(res.stdout)
        worker_s = sum(float(r["seconds"] or 0.0) for r in Store(out, create=False).papers().values())
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    n = max(s["computed"], 1)
    return {"papers": s["papers"], "computed": s["computed"], "failed": s["failed"], "seconds": round(wall, 2),
            "seconds_per_paper": round(wall / n, 4), "cpu_seconds": round(cpu, 2),
            "cpu_seconds_per_paper": round(cpu / n, 4), "worker_seconds": round(worker_s, 2),
            "runner_overhead_share": round(max(0.0, 1.0 - worker_s / (wall * workers)), 4),
            "loadavg_before": [round(x, 2) for x in load0], "loadavg_after": [round(x, 2) for x in load1],
            "others_cores": round(float(others.cores), 2), "loaded": float(others.cores) > OTHERS_LOADED_CORES}


def main() -> None:
    """Time N corpus runs (or an A/B pair of trees), profile the stages of one worker, write the result file."""
    from statistics import median

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    ap.add_argument("--repeat", type=int, default=1, help="timed runs; the result is their median")
    ap.add_argument("--no-stages", action="store_true", help="leave out the per-stage profile of one worker")
    ap.add_argument("--ab", metavar="SRC", help="compare with another checkout's src (e.g. /work/main/src), interleaved")
    ap.add_argument("--rounds", type=int, default=3, help="--ab: pairs of runs")
    ap.add_argument("--worker-only", action="store_true",
                    help="--ab: time a warm worker pass in one process (--cpu-only) instead of "
                         "a corpus run: the papers' compute without start-up, the steadier figure on a loaded machine")
    ap.add_argument("--this", default=str(REPO / "src"), metavar="SRC",
                    help="--ab: the tree measured as this one (default: this checkout's src; give a snapshot, e.g. "
                         "git archive HEAD, to keep editing while it runs)")
    ap.add_argument("--papers", type=int, default=0, help="the first N papers only (default: all)")
    ap.add_argument("--stages-only", action="store_true", help="only the stage profile of one worker (to --out or stdout)")
    ap.add_argument("--cpu-only", action="store_true", help="only the CPU and wall seconds of a warm worker pass")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--save", metavar="FILE", help="guard: write the traces of the papers (on the old tree)")
    g.add_argument("--compare", metavar="FILE", help="guard: compare the traces with a --save file (exit 1 if any differ)")
    args = ap.parse_args()
    files = sorted(DOCS.glob("*.xml"))
    if not files:
        print(f"error: no papers in {DOCS}", file=sys.stderr)
        raise SystemExit(2)
    if args.repeat < 1 or args.workers < 1:
        print("error: --repeat and --workers must be at least 1", file=sys.stderr)
        raise SystemExit(2)
    if args.papers:
        files = files[: args.papers]
    if args.cpu_only:
        cpu_only(files)
        return
    if args.save or args.compare:
        same(files, args.save, args.compare)
        return
    if args.stages_only:
        text = json.dumps(profile(files), indent=1) + "\n"
        if args.out:
            Path(args.out).write_text(text)
        else:
            sys.stdout.write(text)
        return
    run = Run(data=[DOCS])
    if args.ab:
        if not (Path(args.ab) / "claimtrace").is_dir():
            print(f"error: {args.ab} holds no claimtrace package", file=sys.stderr)
            raise SystemExit(2)
        args.out = args.out or str(REPO / "bench" / "results" / "traces_speed_ab.json")
        ab(args, files, run)
        return
    args.out = args.out or str(REPO / "bench" / "results" / "traces_speed.json")
    runs = []
    for i in range(args.repeat):
        r = one_run(files, args.workers, REPO / "src")
        runs.append(r)
        print(f"run {i + 1}/{args.repeat}: {r['seconds_per_paper']:.3f} s per paper, load {r['loadavg_before'][0]:.2f}, "
              f"others {r['others_cores']:.2f} cores", file=sys.stderr, flush=True)
    spp = [r["seconds_per_paper"] for r in runs]
    result: dict[str, Any] = {
        "schema_version": "2", "papers": runs[0]["papers"], "computed": runs[0]["computed"],
        "failed": max(r["failed"] for r in runs), "workers": args.workers, "cores": os.cpu_count(),
        "repeat": args.repeat, "seconds_per_paper": round(median(spp), 4),
        "seconds_per_paper_min": min(spp), "seconds_per_paper_max": max(spp),
        "cpu_seconds_per_paper": round(median(r["cpu_seconds_per_paper"] for r in runs), 4),
        "runner_overhead_share": round(median(r["runner_overhead_share"] for r in runs), 4),
        "seconds": round(median(r["seconds"] for r in runs), 2),
        "loadavg_before": runs[0]["loadavg_before"], "loadavg_after": runs[-1]["loadavg_after"],
        "others_cores": round(max(r["others_cores"] for r in runs), 2), "loaded": any(r["loaded"] for r in runs),
        "runs": runs, "command": "claimtrace run PAPERS --steps parse,traces --workers " + str(args.workers)}
    if not args.no_stages:
        result["stages"] = profile(files)
    result["provenance"] = run.finish(own_processes=args.workers + 1)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("provenance", "runs", "stages")}), file=sys.stderr)


def report_lines(sp: dict[str, Any]) -> list[str]:
    """The speed paragraph of the traces page from ``traces_speed.json`` (schema 1 or 2)."""
    n = sp.get("repeat", 1)
    lines = [f"`{sp['command']}` over {sp['computed']} papers: {sp['seconds_per_paper']:.3f} s per paper (wall, "
             f"start-up included" + (f"; median of {n} runs, {sp['seconds_per_paper_min']:.3f} to "
                                     f"{sp['seconds_per_paper_max']:.3f}" if n > 1 else "")
             + f"), load average before {sp['loadavg_before'][0]:.2f}, other processes at most "
             f"{sp['others_cores']:.2f} cores" + (" (LOADED: an upper bound, to be re-run quietly)" if sp["loaded"]
                                                  else "") + ". Result file: `bench/results/traces_speed.json`."]
    st = sp.get("stages")
    if st:
        over = sp.get("runner_overhead_share", 0.0)
        lines += ["", f"Where the time goes (one worker in one process, {st['papers']} papers, "
                  f"{st['seconds_per_paper']:.3f} s per paper inside the worker; the runner's overhead is the share "
                  "of wall x workers outside `Worker.process` in the timed runs):", "",
                  "| stage | share of the run |", "|---|---|"]
        lines += [f"| {k} | {v * (1 - over):.1%} |" for k, v in st["shares"].items()]
        lines += [f"| runner overhead (start-up, imports, transfer, commits, idle tail) | {over:.1%} |", ""]
        lines += ["Top functions by own time (cProfile of the same worker; profiling slows Python calls, so these "
                  "are shares of a profiled run): " + ", ".join(f"`{f['function']}` {f['share']:.1%}"
                                                               for f in st["top_functions"][:8]) + "."]
    return lines


def ab_lines(ab: dict[str, Any]) -> list[str]:
    """The A/B paragraph of the traces page from ``traces_speed_ab.json``."""
    r = ab["ratio_this_over_other"]
    what = ("CPU seconds of a warm worker over the papers (no start-up)" if ab.get("worker_only")
            else "CPU seconds of the whole run")
    line = (f"A/B on a loaded machine (`bench/traces_speed.py --ab {ab['other']} --rounds {ab['rounds']} --papers "
            f"{ab['papers']}" + (" --worker-only" if ab.get("worker_only") else "") + f"`, interleaved, load average "
            f"{ab['loadavg_before'][0]:.1f}): this tree over the other, {what} {r['cpu']:.3f} (ratio of medians), "
            f"wall {r['wall']:.3f}")
    ci = ab.get("pair_ratio_mean_ci95")
    if ci:
        c = ci["cpu"]
        line += f"; CPU ratio of the paired runs {c[0]:.3f} (geometric mean, 95% interval {c[1]:.3f} to {c[2]:.3f}, n = {ab['rounds']} pairs)"
    return [line + ". Result file: `bench/results/traces_speed_ab.json`."]


if __name__ == "__main__":
    main()
