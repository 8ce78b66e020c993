"""Shared fixtures: paths to the real data in ../shared/data."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def local_llm() -> Iterator[str]:
    """Base URL of the real local LLM server (scripts/local-llm.sh), started for the session if not running.

    ``make test`` runs ``scripts/local-llm.sh install`` first; here install is a cached no-op (it builds
    only if that was skipped). Port: CLAIMTRACE_TEST_LLM_PORT (default 8089). A server started here is
    stopped at the end of the session; one that was already running is left alone.
    """
    import os
    import subprocess
    import sys

    port = os.environ.get("CLAIMTRACE_TEST_LLM_PORT", "8089")
    env = {**os.environ, "CLAIMTRACE_LLM_PORT": port}
    env.setdefault("CLAIMTRACE_LLM_PYTHON", sys.executable)
    script = str(REPO / "scripts" / "local-llm.sh")
    url = f"http://127.0.0.1:{port}/v1"
    if subprocess.run([script, "status"], env=env, capture_output=True).returncode == 0:
        yield url
        return
    for step in ("install", "start"):
        res = subprocess.run([script, step], env=env, capture_output=True, text=True)
        if res.returncode != 0:
            pytest.fail(f"scripts/local-llm.sh {step} failed:\n{res.stderr[-2000:]}")
    try:
        yield url
    finally:
        subprocess.run([script, "stop"], env=env, capture_output=True)
