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
