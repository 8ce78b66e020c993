"""Exceptions shared by every layer; the CLI turns them into one-line errors (exit status 2)."""

from __future__ import annotations

import importlib
from typing import Any


class ClaimtraceError(Exception):
    """Base class for errors that the CLI reports as one line, without a traceback."""


class InputError(ClaimtraceError):
    """The user's input cannot be used (missing, empty, corrupt, unsupported, too large...)."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path) if path is not None else None
        self.reason = reason
        super().__init__(f"{self.path}: {reason}" if self.path else reason)


class MissingExtraError(ClaimtraceError):
    """An optional dependency (an extra) is needed for this feature."""

    def __init__(self, feature: str, extra: str, package: str) -> None:
        super().__init__(
            f"{feature} needs the optional dependency '{package}': pip install 'claimtrace-sci[{extra}]'"
        )


def import_extra(module: str, feature: str, extra: str, package: str | None = None) -> Any:
    """The module, or a MissingExtraError naming the extra (and package) that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(feature, extra, package or module) from None
