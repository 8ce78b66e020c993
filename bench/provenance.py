"""Provenance for every result file in bench/results: command, commit, data hashes, machine load, date.

Use it in every benchmark script:

    from provenance import Run            # bench/ is on sys.path when a bench script runs
    run = Run(data=[path_a, path_b])      # records the command, commit, data sha256, cores, load at start
    ...                                   # the measurement
    result = {"schema_version": "1", ..., "provenance": run.finish()}   # adds load at end and the flag

`finish()` marks a run whose load average (1 min, at start or end) exceeded the core count as
`"loaded": true`: its timings are upper bounds and are not published as the speed (docs say so).
A bench that itself keeps N processes busy passes `finish(own_processes=N)`: the flag then counts only
the load of OTHER processes (rule below, in `finish`), since the bench's own processes raise the 1-min load
by up to N. For a precise figure over a timed section, `OthersCpu` measures the CPU other processes used
during it (from /proc/stat, minus the CPU of the measured processes).
The fields `date`, `machine` and `provenance.commit` name the run, not the result: the reproduction
check ignores them.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

#: fields that name the run rather than the result (timings, machine, where files were written); the
#: reproduction check (bench/reproduce.py --compare) ignores them wherever they occur in a result file
VOLATILE_KEYS = frozenset({
    "provenance", "seconds", "wall_s", "extract_s", "parse_s", "extract_s_per_paper",
    "parse_plus_extract_s_per_paper_mean", "extract_s_per_paper_pass_means",
    "extract_s_per_paper_median_of_pass_means", "peak_rss_mb", "command", "items_file",
})


def sha256_file(path: str | Path) -> str:
    """The sha256 of a file's bytes."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def sha256_files(paths: Iterable[str | Path]) -> str:
    """One sha256 over many files (sorted by path relative to the shared/ or repo root, name + bytes)."""
    h = hashlib.sha256()
    for p in sorted(Path(x) for x in paths):
        h.update(_rel(p).encode())
        h.update(sha256_file(p).encode())
    return h.hexdigest()


def _rel(p: Path) -> str:
    p = p.resolve()
    for root, name in ((SHARED, "shared"), (REPO, "")):
        try:
            rel = p.relative_to(root.resolve())
        except ValueError:
            continue
        return f"{name}/{rel}" if name else str(rel)
    return str(p)


def module_from_file(path: Path, name: str | None = None) -> Any:
    """A Python file that is no package module (a shared scorer, a data loader), imported as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def shared_tool(name: str) -> Any:
    """A scorer of ``../shared/tools`` (``ei_eval``, ``evidencebench_eval``, ...), loaded as a module from its file."""
    return module_from_file(SHARED / "tools" / f"{name}.py", name)


def git_commit() -> str | None:
    """The repository's HEAD commit, with '+dirty' when tracked files differ from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Run:
    """The provenance of one benchmark run; `finish()` returns the block to store in the result file."""

    def __init__(self, data: Iterable[str | Path] = (), command: list[str] | None = None) -> None:
        argv = command if command is not None else [Path(sys.argv[0]).name and _rel(Path(sys.argv[0])),
                                                     *sys.argv[1:]]
        files = [Path(p) for p in data]
        self.block: dict[str, Any] = {
            "command": "python " + shlex.join(argv),
            "commit": git_commit(),
            "date": _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat(),
            "data": {_rel(p): sha256_file(p) for p in files if p.is_file()},
            "data_dirs": {_rel(p): sha256_files(q for q in p.rglob("*") if q.is_file())
                          for p in files if p.is_dir()},
            "machine": {"cores": os.cpu_count(), "platform": platform.platform(),
                        "python": platform.python_version(), "load_average_at_start": _load()},
        }

    def finish(self, own_processes: int = 0) -> dict[str, Any]:
        """Add the load average at the end and the `loaded` flag; return the provenance block.

        Rule: loaded = max(1-min load at start, 1-min load at end - own_processes) > cores. The load at start
        is taken before the bench starts its processes; ``own_processes`` (the processes the bench itself
        keeps busy, 0 by default) is subtracted from the load at the end only.
        """
        m = self.block["machine"]
        m["load_average_at_end"] = _load()
        cores = m["cores"] or 1
        if own_processes:
            m["own_processes"] = own_processes
            m["loaded_rule"] = "max(load_1min_start, load_1min_end - own_processes) > cores"
        m["loaded"] = max(m["load_average_at_start"][0], m["load_average_at_end"][0] - own_processes) > cores
        return self.block


@dataclass
class _Proc:
    """One tracked process as last read from /proc/PID/stat (CPU in clock ticks)."""

    pid: int
    start: int  # starttime (ticks after boot): with the pid, the process's identity
    ppid: int
    own0: int  # utime + stime when first seen (0 when it started during the section)
    reaped0: int  # cutime + cstime (the CPU of the children it waited for) when first seen (0 likewise)
    first_at: int = 0  # the scan that first found it
    own: int = 0
    reaped: int = 0
    gone_at: int | None = None  # the scan that found it gone


def _read_stat(pid: int) -> tuple[int, int, int, int, int] | None:
    """(starttime, ppid, session, utime+stime, cutime+cstime) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    # fields[0] is field 3 of proc(5) (state): ppid 4, session 6, utime..cstime 14-17, starttime 22
    return (int(fields[19]), int(fields[1]), int(fields[3]), int(fields[11]) + int(fields[12]),
            int(fields[13]) + int(fields[14]))


class ProcLedger:
    """The CPU that the processes of some sessions, and their descendants, used during a timed section.

    ``with ProcLedger(sessions) as pl: ...; pl.seconds()``. /proc is scanned at the start, every
    ``interval`` seconds (a thread) and at the end, so a process that starts and exits within the section
    is counted even when no one waits for it: a parent that ignores SIGCHLD (Ray's raylet does, for its
    workers) has its children reaped by the kernel, and their CPU reaches no ``cutime``. What a tracked
    process's waited-for children used does reach its ``cutime``; the part of it already counted from the
    children's own scans is subtracted, so nothing is counted twice. A process in a new session is tracked
    when its parent is. Each process loses at most the CPU it used between its last scan and its exit.
    """

    def __init__(self, sessions: Iterable[int], interval: float = 0.2) -> None:
        self.sessions = set(sessions)
        self.interval = interval
        self.procs: list[_Proc] = []
        self._alive: dict[int, _Proc] = {}
        self._untracked: set[int] = set()
        self._scans = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tick = os.sysconf("SC_CLK_TCK")
        self._t0 = int(float(Path("/proc/uptime").read_text().split()[0]) * self._tick)

    def scan(self) -> None:
        """Read the tracked processes' CPU; track the new processes of the sessions and of tracked parents."""
        with self._lock:
            self._scans += 1
            pids = {int(d) for d in os.listdir("/proc") if d.isdigit()}
            self._untracked &= pids
            alive: dict[int, _Proc] = {}
            for pid in sorted(pids - self._untracked):
                st = _read_stat(pid)
                if st is None:
                    continue
                start, ppid, sid, own, reaped = st
                p = self._alive.get(pid)
                if p is None or p.start != start:
                    if sid not in self.sessions and ppid not in self._alive and ppid not in alive:
                        self._untracked.add(pid)
                        continue
                    born = start >= self._t0
                    p = _Proc(pid, start, ppid, 0 if born else own, 0 if born else reaped, self._scans)
                    self.procs.append(p)
                p.ppid, p.own, p.reaped = ppid, own, reaped
                alive[pid] = p
            for pid, p in self._alive.items():
                if alive.get(pid) is not p:
                    p.gone_at = self._scans
            self._alive = alive

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.scan()

    def __enter__(self) -> ProcLedger:
        self.scan()
        self._thread = threading.Thread(target=self._loop, name="proc-ledger", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.scan()

    def seconds(self) -> float:
        """CPU seconds the tracked processes used during the section."""
        with self._lock:
            gone: dict[int, list[_Proc]] = {}  # parent pid -> its children found gone
            for p in self.procs:
                if p.gone_at is not None:
                    gone.setdefault(p.ppid, []).append(p)

            def held(c: _Proc) -> int:
                # what a waiting parent's cutime gets from c: c's totals at its last scan, plus the children
                # found gone in the same scan as c (c may have waited for them after that scan)
                return c.own + c.reaped + sum(held(g) for g in gone.get(c.pid, []) if g.gone_at == c.gone_at)

            total = 0
            for p in self.procs:
                total += p.own - p.own0
                # p's cutime holds the children that went while p was alive, if p waited for them
                counted = sum(held(c) for c in gone.get(p.pid, [])
                              if c.start >= p.start and (p.gone_at is None or (c.gone_at or 0) < p.gone_at))
                total += max(0, (p.reaped - p.reaped0) - counted)
            return total / self._tick

    def seconds_at_ends(self) -> float:
        """What reading the tracked processes at the start and the end only gives (the earlier accounting, which
        misses the processes that exit unreaped within the section): a comparison figure, not the measurement."""
        with self._lock:
            end = sum(p.own + p.reaped - p.own0 - p.reaped0 for p in self.procs if p.gone_at is None)
            return (end - sum(p.own0 + p.reaped0 for p in self.procs
                              if p.gone_at is not None and p.first_at == 1)) / self._tick


def _busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat: everything but idle and iowait)."""
    vals = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(vals[:8]) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")


class OthersCpu:
    """The CPU that OTHER processes used during a timed section, in cores (average over the section).

    ``with OthersCpu(sessions) as oc: ...`` measures the machine's busy CPU time (/proc/stat) minus the CPU
    of the measured processes: this process, its own children (reaped: pass ``own_children=True``), and
    every process of the ``sessions`` and their descendants (e.g. a cluster started with
    ``start_new_session``), counted by a `ProcLedger` (so also those that exit unreaped within the
    section). After the section: ``cores`` (others, average), ``own_seconds`` (the measured processes'
    CPU seconds), ``sessions_seconds`` (the part of it from the sessions) and ``wall``. Linux only.
    """

    def __init__(self, sessions: Iterable[int] = (), own_children: bool = True, interval: float = 0.2) -> None:
        self.sessions = list(sessions)
        self.own_children = own_children
        self.interval = interval
        self.cores = 0.0
        self.own_seconds = 0.0
        self.sessions_seconds = 0.0
        self.sessions_seconds_at_ends = 0.0
        self.wall = 0.0
        self._ledger: ProcLedger | None = None

    def _self(self) -> float:
        import resource

        ch = resource.getrusage(resource.RUSAGE_CHILDREN)
        me = resource.getrusage(resource.RUSAGE_SELF)
        return me.ru_utime + me.ru_stime + (ch.ru_utime + ch.ru_stime if self.own_children else 0.0)

    def __enter__(self) -> OthersCpu:
        import time

        if self.sessions:
            self._ledger = ProcLedger(self.sessions, self.interval).__enter__()
        self._t0, self._busy0, self._self0 = time.perf_counter(), _busy_seconds(), self._self()
        return self

    def __exit__(self, *exc: object) -> None:
        import time

        busy, me = _busy_seconds(), self._self()
        self.wall = max(time.perf_counter() - self._t0, 1e-9)
        if self._ledger is not None:
            self._ledger.__exit__(*exc)
            self.sessions_seconds = round(self._ledger.seconds(), 3)
            self.sessions_seconds_at_ends = round(self._ledger.seconds_at_ends(), 3)
        self.own_seconds = round(me - self._self0 + self.sessions_seconds, 3)
        others = (busy - self._busy0) - self.own_seconds
        self.cores = round(max(others, 0.0) / self.wall, 3)
