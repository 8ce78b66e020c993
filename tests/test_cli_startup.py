"""The CLI's start-up handling of the garbage collector: off while the command's module imports, on while the
command runs, and as it was after ``main`` returns (in-process callers, such as these tests)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

from claimtrace.cli import main

PAGE = str(Path(__file__).resolve().parents[1] / "bench" / "data" / "startup_page.txt")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    old = sys.argv
    sys.argv = ["claimtrace", *argv]
    try:
        with pytest.raises(SystemExit):
            main()
    finally:
        sys.argv = old
    return capsys.readouterr().out


def test_collector_back_on_after_main(capsys: pytest.CaptureFixture[str]) -> None:
    """``main`` leaves the collector on when it was on, after --help and after a command."""
    assert gc.isenabled()
    assert "Commands" in _run(["--help"], capsys)
    assert gc.isenabled()
    assert '"schema_version"' in _run(["stats", PAGE, "--json"], capsys)
    assert gc.isenabled()


def test_collector_left_off_when_it_was_off(capsys: pytest.CaptureFixture[str]) -> None:
    """A caller that turned the collector off keeps it off."""
    gc.disable()
    try:
        _run(["stats", PAGE, "--json"], capsys)
        assert not gc.isenabled()
    finally:
        gc.enable()


def _fresh(code: str) -> str:
    """Run ``code`` in a fresh interpreter on this tree's src/ and return its stdout."""
    import os
    import subprocess

    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return done.stdout


def test_one_page_stats_leaves_unneeded_modules_unimported() -> None:
    """A one-page text without tables or XML: the table reader and lxml are never imported."""
    out = _fresh(
        "import sys\n"
        "from claimtrace.cli import main\n"
        f"sys.argv = ['claimtrace', 'stats', {PAGE!r}, '--json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('claimtrace.stats.tables', 'lxml.etree') if m in sys.modules))\n")
    assert '"schema_version"' in out
    assert out.strip().splitlines()[-1] == "[]"


def test_scanner_patterns_compile_on_first_use() -> None:
    """A pattern stays a stand-in until a text needs it, then the compiled pattern takes its place."""
    out = _fresh(
        "import re\n"
        "import claimtrace.stats.scanners as S\n"
        "from claimtrace.stats import parse\n"
        "print(isinstance(S._VAR_EXPLAINED_RE, re.Pattern))\n"
        "rs = parse('The model explained 12% of the variance, F(2, 97) = 6.61, p = .002.')\n"
        "print(isinstance(S._VAR_EXPLAINED_RE, re.Pattern), sorted({r.test for r in rs if r.test}))\n")
    before, after = out.strip().splitlines()
    assert before == "False"
    assert after.startswith("True") and "'F'" in after
