"""Provenance for every result file in bench/results: command, commit, data hashes, machine load, date.

Use it in every benchmark script:

    from provenance import Run            # bench/ is on sys.path when a bench script runs
    run = Run(data=[path_a, path_b])      # records the command, commit, data sha256, cores, load at start
    ...                                   # the measurement
    result = {"schema_version": "1", ..., "provenance": run.finish()}   # adds load at end and the flag

`finish()` marks a run whose load average (1 min, at start or end) exceeded the core count as
`"loaded": true`: its timings are upper bounds and are not published as the speed (docs say so).
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

    def finish(self) -> dict[str, Any]:
        """Add the load average at the end and the `loaded` flag; return the provenance block."""
        m = self.block["machine"]
        m["load_average_at_end"] = _load()
        cores = m["cores"] or 1
        m["loaded"] = max(m["load_average_at_start"][0], m["load_average_at_end"][0]) > cores
        return self.block
