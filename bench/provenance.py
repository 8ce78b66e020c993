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
from collections.abc import Iterable
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


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """The sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


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


def _proc_tree_cpu(root_pids: Iterable[int]) -> float:
    """CPU seconds (user + system, including reaped children) of processes whose session is one of ``root_pids``."""
    roots = set(root_pids)
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is the state (field 3 of proc(5)); session is field 6, utime..cstime fields 14-17
        if int(fields[3]) in roots:
            total += sum(int(x) for x in fields[11:15])
    return total / tick


def _busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat: everything but idle and iowait)."""
    vals = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(vals[:8]) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")


class OthersCpu:
    """The CPU that OTHER processes used during a timed section, in cores (average over the section).

    ``with OthersCpu(sessions) as oc: ...`` measures the machine's busy CPU time (/proc/stat) minus the CPU
    of the measured processes: this process's own children (reaped: pass ``own_children=True``) and every
    process whose session id is in ``sessions`` (e.g. a cluster started with ``start_new_session``). Linux only.
    """

    def __init__(self, sessions: Iterable[int] = (), own_children: bool = True) -> None:
        self.sessions = list(sessions)
        self.own_children = own_children
        self.cores = 0.0

    def _own(self) -> float:
        import resource

        ch = resource.getrusage(resource.RUSAGE_CHILDREN)
        me = resource.getrusage(resource.RUSAGE_SELF)
        own = me.ru_utime + me.ru_stime + (ch.ru_utime + ch.ru_stime if self.own_children else 0.0)
        return own + (_proc_tree_cpu(self.sessions) if self.sessions else 0.0)

    def __enter__(self) -> OthersCpu:
        import time

        self._t0, self._busy0, self._own0 = time.perf_counter(), _busy_seconds(), self._own()
        return self

    def __exit__(self, *exc: object) -> None:
        import time

        wall = max(time.perf_counter() - self._t0, 1e-9)
        others = (_busy_seconds() - self._busy0) - (self._own() - self._own0)
        self.cores = round(max(others, 0.0) / wall, 3)
