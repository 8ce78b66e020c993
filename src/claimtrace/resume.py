"""Resumable JSONL output: one helper for every job that writes one JSON line per item and can restart.

A row is *finished* when it has the key (``id`` by default), no ``error`` and, when the job gives a
configuration fingerprint, the same fingerprint. ``ResumableOutput.start()`` rewrites the file keeping
only finished rows (so failed or stale items are redone and not duplicated) and returns their keys;
``write`` appends one row and flushes, so an interrupted job loses at most the line being written.

Example::

    out = ResumableOutput("rows.jsonl", fingerprint="cfg-3f2a")
    done = out.start()
    with out:
        for item in items:
            if item["id"] not in done:
                out.write({"id": item["id"], **result(item), "error": None})
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from claimtrace.errors import InputError

FINGERPRINT_FIELD = "fingerprint"


def read_rows(path: str | Path) -> Iterator[dict[str, Any]]:
    """The JSON-object lines of an output file; a line cut by an interrupted run is skipped."""
    p = Path(path)
    if not p.exists():
        return
    if p.is_dir():
        raise InputError(p, "is a directory, not an output file")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(p, "output file to resume is not UTF-8 JSON lines") from None
    except OSError as exc:
        raise InputError(p, f"cannot read output file ({exc.strerror or exc})") from None
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            yield row


def is_finished(row: dict[str, Any], key: str = "id", fingerprint: str | None = None) -> bool:
    """A row counts as done: it has the key, no error and (when given) the same fingerprint."""
    if key not in row or row.get("error") not in (None, ""):
        return False
    return fingerprint is None or row.get(FINGERPRINT_FIELD) == fingerprint


def finished_keys(path: str | Path, key: str = "id", fingerprint: str | None = None) -> set[str]:
    """Keys of the rows already written without error (and with the fingerprint, when given)."""
    return {str(r[key]) for r in read_rows(path) if is_finished(r, key, fingerprint)}


class ResumableOutput:
    """An append-only JSONL output file that a job can resume (see the module docstring)."""

    def __init__(self, path: str | Path, *, key: str = "id", fingerprint: str | None = None) -> None:
        self.stale = 0  # rows dropped by ``start`` because their fingerprint differs
        self.path = Path(path)
        self.key = key
        self.fingerprint = fingerprint
        self._fh: TextIO | None = None

    def start(self) -> set[str]:
        """Keep only finished rows in the file (one per key) and return their keys."""
        was_open = self._fh is not None
        self.close()  # the file is replaced below: a handle opened before would write to the old one
        if self.path.parent and not self.path.parent.exists():
            raise InputError(self.path, "the output folder does not exist")
        keep: dict[str, dict[str, Any]] = {}
        stale = 0
        for row in read_rows(self.path):
            if is_finished(row, self.key, self.fingerprint):
                keep[str(row[self.key])] = row
            elif self.fingerprint is not None and row.get(FINGERPRINT_FIELD) not in (None, self.fingerprint):
                stale += 1
        self.stale = stale
        if self.path.exists():
            tmp = self.path.with_name(self.path.name + ".tmp")
            try:
                tmp.write_text("".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in keep.values()),
                               encoding="utf-8")
                os.replace(tmp, self.path)
            except OSError as exc:
                raise InputError(self.path, f"cannot write output file ({exc.strerror or exc})") from None
        if was_open:
            self.open()
        return set(keep)

    def open(self) -> ResumableOutput:
        """Open the file for appending (``start`` first)."""
        try:
            self._fh = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise InputError(self.path, f"cannot write output file ({exc.strerror or exc})") from None
        return self

    def write(self, row: dict[str, Any]) -> None:
        """Append one row (the fingerprint is added when the job has one) and flush."""
        if self._fh is None:
            self.open()
        assert self._fh is not None
        if self.fingerprint is not None:
            row = {**row, FINGERPRINT_FIELD: self.fingerprint}
        self._fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ResumableOutput:
        return self.open() if self._fh is None else self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
