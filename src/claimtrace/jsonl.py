"""JSON lines: the one reader of JSONL text, with one-line errors that name the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from claimtrace.errors import InputError


def json_lines(path: str | Path, text: str, *, objects: bool = False) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank line of ``text`` (read from ``path``); a line that is not
    JSON, or with ``objects`` not a JSON object, raises an InputError naming the line."""
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"line {lineno}: invalid JSON ({exc.msg})") from None
        if objects and not isinstance(value, dict):
            raise InputError(path, f"line {lineno}: expected a JSON object")
        yield lineno, value
