"""The installed version, the one home of ``__version__``: read from the package metadata of the
``claimtrace-sci`` distribution (``pyproject.toml`` is the one place it is written)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "claimtrace-sci"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # a source tree on sys.path without an install
    __version__ = "0+unknown"
