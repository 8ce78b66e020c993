"""Shared fixtures: paths to the real data in ../shared/data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
SAMPLE = REPO / "examples" / "PMC1821024.nxml"


def shared_path(*parts: str) -> Path:
    """A path under ../shared/data; skips the test with a clear message where the data is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data not available: {p}")
    return p


@pytest.fixture
def shared() -> Path:
    """The ../shared/data folder."""
    if not SHARED.exists():
        pytest.skip(f"shared data not available: {SHARED}")
    return SHARED
