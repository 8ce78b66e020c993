"""Batch JSONL jobs with the project's conventions.

Input: one JSON object with an ``id`` per line. Output: one JSON line per item — the single-item
object plus ``id`` and ``error`` — to stdout or a file. With an output file the job resumes: items
already written without error are skipped, failed ones are retried (their old lines are dropped when
the file is rewritten at the end). Progress and errors go to stderr.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from claimtrace.errors import ClaimtraceError, InputError


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a batch manifest; every line must be a JSON object with an ``id``."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(p, f"line {lineno}: invalid JSON ({exc.msg})") from None
            if not isinstance(obj, dict) or "id" not in obj:
                raise InputError(p, f"line {lineno}: each line must be a JSON object with an 'id'")
            obj["id"] = str(obj["id"])
            if obj["id"] in seen:
                raise InputError(p, f"line {lineno}: duplicate id {obj['id']!r}")
            seen.add(obj["id"])
            items.append(obj)
    if not items:
        raise InputError(p, "no items in batch file")
    return items


def finished_ids(out: str | Path) -> set[str]:
    """Ids already written without error to an output file (for resuming)."""
    p = Path(out)
    done: set[str] = set()
    if not p.exists():
        return done
    for line in p.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interrupted run
        if isinstance(row, dict) and row.get("error") in (None, "") and "id" in row:
            done.add(str(row["id"]))
    return done


def run_batch(
    items: list[dict[str, Any]],
    fn: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    out: str | Path | None = None,
    desc: str = "items",
    progress: bool = True,
) -> dict[str, int]:
    """Run ``fn`` on each item, writing ``{**result, "id", "error"}`` lines; returns counts."""
    counts = {"done": 0, "skipped": 0, "failed": 0}
    done = finished_ids(out) if out else set()
    todo = [it for it in items if it["id"] not in done]
    counts["skipped"] = len(items) - len(todo)
    fh: TextIO
    if out:
        _drop_failed_lines(Path(out), done)
        fh = open(out, "a", encoding="utf-8")  # noqa: SIM115
    else:
        fh = sys.stdout
    try:
        for item in _progress(todo, desc, progress and bool(todo)):
            try:
                row = fn(item)
                row = {"id": item["id"], **row, "error": None}
                counts["done"] += 1
            except ClaimtraceError as exc:
                row = {"id": item["id"], "error": str(exc)}
                counts["failed"] += 1
            except Exception as exc:  # a batch never loses the other items
                row = {"id": item["id"], "error": f"{type(exc).__name__}: {exc}"}
                counts["failed"] += 1
            fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            fh.flush()
            if row["error"]:
                print(f"error: {item['id']}: {row['error']}", file=sys.stderr)
    finally:
        if out:
            fh.close()
    print(f"{desc}: {counts['done']} done, {counts['failed']} failed, {counts['skipped']} already done",
          file=sys.stderr)
    return counts


def _drop_failed_lines(path: Path, done: set[str]) -> None:
    """Rewrite an output file keeping only successful rows, so retried items are not duplicated."""
    if not path.exists():
        return
    keep: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict) and str(row.get("id")) in done and not row.get("error"):
            keep.append(line)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(k + "\n" for k in keep), encoding="utf-8")
    os.replace(tmp, path)


def _progress(items: list[dict[str, Any]], desc: str, show: bool) -> Iterator[dict[str, Any]]:
    if not show:
        yield from items
        return
    from rich.progress import Progress

    from claimtrace.cli.common import stderr_console

    with Progress(console=stderr_console(), transient=False) as prog:
        task = prog.add_task(desc, total=len(items))
        for it in items:
            yield it
            prog.advance(task)


def iter_nonempty(values: Iterable[str]) -> Iterator[str]:
    """Non-empty stripped strings."""
    for v in values:
        if v and v.strip():
            yield v.strip()
