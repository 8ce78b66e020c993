"""Batch JSONL jobs with the project's conventions.

Input: one JSON object with an ``id`` per line; every command reads the same manifest fields: ``doc``
(a paper's path; ``conclude`` also takes a list of paths) and/or ``text`` (the text itself), plus the
command's own fields (``query``, ``findings``, ``intervention``...). Output: one JSON line per item —
the single-item object plus ``id`` and ``error`` — to stdout or a file. With an output file the job
resumes (``claimtrace.resume``): items already written without error are skipped, failed ones are
retried and their old lines dropped. Errors go to stderr through ``logging``; progress goes to a callback
(the CLI passes a progress bar, ``claimtrace.cli.common.batch_progress``), so this module knows no console.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.jsonl import json_lines
from claimtrace.resume import ResumableOutput, finished_keys

if TYPE_CHECKING:
    from claimtrace.documents import Document

log = logging.getLogger(__name__)

#: ``progress(done, total)``: called before the first item (done = 0) and after each one (failed ones count)
ProgressFn = Callable[[int, int], None]


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a batch manifest; every line must be a JSON object with an ``id``."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    if p.is_dir():
        raise InputError(p, "is a directory, not a JSONL file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(p, f"not UTF-8 text (byte {exc.start}); a manifest is UTF-8 JSON lines") from None
    except OSError as exc:
        raise InputError(p, f"cannot read file ({exc.strerror or exc})") from None
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for lineno, obj in json_lines(p, text):
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
    return finished_keys(out)


def item_doc(item: dict[str, Any], where: object = None) -> str:
    """The ``doc`` path of a manifest item (an error naming the item when it has none)."""
    doc = item.get("doc")
    if not isinstance(doc, str) or not doc.strip():
        raise InputError(where, f"item {item['id']}: needs a 'doc' path (or a 'text')")
    return doc


def item_paper(item: dict[str, Any], where: object = None) -> str | Document:
    """A manifest item's paper: its ``doc`` path, or its ``text`` read as a plain-text paper."""
    if item.get("doc") is None:
        text = item_text(item)
        if text is not None:
            from claimtrace.documents import read_bytes

            return read_bytes(text.encode("utf-8"), f"{item['id']}.txt", fmt="text")
    return item_doc(item, where)


def item_docs(item: dict[str, Any], where: object = None) -> list[str]:
    """One or more paper paths: ``doc`` as a path or a list of paths (``docs`` is read too)."""
    docs = item.get("doc", item.get("docs"))
    if isinstance(docs, str):
        docs = [docs]
    if not isinstance(docs, list) or not docs or not all(isinstance(d, str) and d.strip() for d in docs):
        raise InputError(where, f"item {item['id']}: needs 'doc', a paper path or a list of paths")
    return docs


def item_text(item: dict[str, Any]) -> str | None:
    """The ``text`` of a manifest item, when it has a non-blank one."""
    text = item.get("text")
    return text if isinstance(text, str) and text.strip() else None


def check_out_file(out: Path | None) -> None:
    """Refuse an ``--out`` file that cannot be written, before any work is done."""
    if out is None:
        return
    if out.is_dir():
        raise InputError(out, "is a directory; --out takes a JSONL file here")
    if not out.parent.is_dir():
        raise InputError(out, "the output folder does not exist")
    try:
        with out.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InputError(out, f"cannot write ({exc.strerror or exc})") from None


def run_batch(
    items: list[dict[str, Any]],
    fn: Callable[[dict[str, Any]], dict[str, Any]],
    *,
    out: str | Path | None = None,
    desc: str = "items",
    progress: ProgressFn | None = None,
) -> dict[str, int]:
    """Run ``fn`` on each item, writing ``{**result, "id", "error"}`` lines; returns counts."""
    counts = {"done": 0, "skipped": 0, "failed": 0}
    sink = ResumableOutput(out) if out else None
    done = sink.start() if sink else set()
    todo = [it for it in items if it["id"] not in done]
    counts["skipped"] = len(items) - len(todo)
    if sink:
        sink.open()
    if progress and todo:
        progress(0, len(todo))
    try:
        for n, item in enumerate(todo, 1):
            try:
                row = fn(item)
                row = {"id": item["id"], **row, "error": None}
                counts["done"] += 1
            except ClaimtraceError as exc:
                row = {"id": item["id"], "error": str(exc)}
                counts["failed"] += 1
            except Exception as exc:  # a batch never loses the other items
                log.debug("item %s failed", item["id"], exc_info=True)
                row = {"id": item["id"], "error": f"{type(exc).__name__}: {exc}"}
                counts["failed"] += 1
            if sink:
                sink.write(row)
            else:
                sys.stdout.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
                sys.stdout.flush()
            if row["error"]:
                log.error("%s: %s", item["id"], row["error"])
            if progress:
                progress(n, len(todo))
    finally:
        if sink:
            sink.close()
    log.info("%s: %d done, %d failed, %d already done", desc, counts["done"], counts["failed"], counts["skipped"])
    return counts


def iter_nonempty(values: Iterable[str]) -> Iterator[str]:
    """Non-empty stripped strings."""
    for v in values:
        if v and v.strip():
            yield v.strip()
