"""Shared fixtures: paths to the real data in the shared-data folder, and the small fixtures in tests/.

The shared-data root is configured in one place: ``CLAIMTRACE_SHARED`` (default ``../shared`` next to
the repository); its ``data/`` folder holds the corpora. A test that needs it asks :func:`shared_path`,
which skips with a clear message where the data is absent, except in CI (``CI=true``): there a missing
shared-data folder is an error, so a broken mount cannot turn a red suite green by skipping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_ROOT = Path(os.environ.get("CLAIMTRACE_SHARED") or REPO.parent / "shared").expanduser()
SHARED = SHARED_ROOT / "data"
SAMPLE = REPO / "examples" / "PMC1821024.nxml"
FIXTURES = REPO / "tests" / "fixtures"
# openly licensed copies in tests/fixtures (attribution: tests/fixtures/README.md), so the core suite runs
# without the shared data
EMPIRIGRAPH_GOLD = FIXTURES / "empirigraph_gold_dev.json"
EI_ARTICLE = FIXTURES / "PMC1087200.nxml"
EI_PROMPTS = FIXTURES / "ei_prompts.jsonl"


def in_ci() -> bool:
    """True when running in CI (``CI`` set to true/1/yes, as CI services do)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require_shared(p: Path) -> Path:
    """``p`` when it exists; otherwise skip the test (an error in CI) with a clear message."""
    if not p.exists():
        msg = f"shared data not available: {p} (set CLAIMTRACE_SHARED to the shared-data root)"
        if in_ci():
            pytest.fail(f"CI=true and {msg}", pytrace=False)
        pytest.skip(msg)
    return p


def shared_path(*parts: str) -> Path:
    """A path under the shared data folder (``$CLAIMTRACE_SHARED/data``); see :func:`require_shared`."""
    return require_shared(SHARED.joinpath(*parts))


def ei_article(pmcid: str) -> Path:
    """An Evidence Inference validation article: the bundled copy (tests/fixtures or examples/) where there is
    one, else the shared one (see :func:`require_shared`)."""
    for folder in (FIXTURES, REPO / "examples"):
        if (folder / f"{pmcid}.nxml").is_file():
            return folder / f"{pmcid}.nxml"
    return shared_path("evidence-inference", "validation", "articles", f"{pmcid}.nxml")


def ei_prompts() -> list[dict[str, Any]]:
    """The bundled Evidence Inference validation prompts (those of the CC BY articles; tests/fixtures)."""
    import json

    return [json.loads(line) for line in EI_PROMPTS.read_text(encoding="utf-8").splitlines() if line.strip()]


def ei_prompt(prompt_id: str) -> dict[str, Any]:
    """One validation prompt: from the bundled subset, else from the shared split."""
    import json

    for row in ei_prompts():
        if row["prompt_id"] == prompt_id:
            return row
    path = shared_path("evidence-inference", "validation", "prompts.jsonl")
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["prompt_id"] == prompt_id:
            return row
    raise KeyError(prompt_id)


@pytest.fixture
def shared() -> Path:
    """The shared data folder (``$CLAIMTRACE_SHARED/data``)."""
    return require_shared(SHARED)


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
