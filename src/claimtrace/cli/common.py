"""Shared CLI helpers: stderr console, JSON output, one-line errors."""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from typing import Any, NoReturn

from pydantic import BaseModel
from rich.console import Console

BAD_INPUT_EXIT = 2


@lru_cache(maxsize=1)
def stderr_console() -> Console:
    """A rich console on stderr (progress, logs)."""
    return Console(stderr=True)


@lru_cache(maxsize=1)
def stdout_console() -> Console:
    """A rich console on stdout (human-readable reports)."""
    return Console(highlight=False)


def print_json(obj: Any) -> None:
    """Print a pydantic model, list or dict as JSON on stdout."""
    if isinstance(obj, BaseModel):
        text = obj.model_dump_json(indent=2)
    elif isinstance(obj, list) and obj and isinstance(obj[0], BaseModel):
        text = json.dumps([o.model_dump(mode="json") for o in obj], indent=2, ensure_ascii=False)
    else:
        text = json.dumps(obj, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(text + "\n")


def fail(message: str, code: int = BAD_INPUT_EXIT) -> NoReturn:
    """Print a one-line error to stderr and exit."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)
