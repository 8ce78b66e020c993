"""JSON lines, and JSON or YAML files: the one reader of each, with one-line errors that name the file (and the
line)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

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


def read_data(path: str | Path, kind: Literal["json", "yaml"]) -> Any:
    """The value of a JSON or YAML file; a missing file, or one that does not parse, is a one-line InputError."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    text = p.read_text(encoding="utf-8")
    if kind == "json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(p, f"invalid JSON ({exc.msg})") from None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(p, f"invalid YAML ({str(exc).splitlines()[0]})") from None
