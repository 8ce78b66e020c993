"""No traceback reaches a user: every command of the typer app × bad paths and conflicting options.

The commands and their parameters are read from the app itself (``claimtrace.cli.app``), so a command
added later is in the matrix without editing this file. Each case runs the real entry point
(``claimtrace.cli.main``) in-process and expects exit status 2 and exactly one line on stderr.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from typer.models import ArgumentInfo, OptionInfo

from claimtrace.cli import load_commands, main
from conftest import REPO, SAMPLE

OUTPUT_PARAMS = {"out", "output", "png", "graphml", "plot", "forest_plot", "rerank_log"}
app = load_commands()  # every command module imported (the CLI loads them lazily)
UNWRITABLE_DIR = Path("/sys")  # no user, root included, can create files in sysfs
# arguments a command needs besides the path under test, so that the path is what gets checked
EXTRA_ARGS: dict[str, list[str]] = {
    "retrieve": ["--query", "x"],
    "conclude": ["--intervention", "a", "--comparator", "b", "--outcome", "c", "--method", "offline"],
    "extract": ["--extractor", "embedded"],
}
FIRST_ARG_VALUE: dict[str, str] = {"retriever-data": "ei", "schema": "document"}  # a choice, not a path


@dataclass
class Param:
    name: str
    decl: str | None  # the option's first flag; None for an argument
    required: bool
    is_path: bool
    is_list: bool
    help: str

    @property
    def argument(self) -> bool:
        return self.decl is None


def _commands(tapp: typer.Typer, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Callable[..., Any]]]:
    for ci in tapp.registered_commands:
        assert ci.callback is not None
        yield (*prefix, ci.name or ci.callback.__name__.replace("_", "-")), ci.callback
    for gi in tapp.registered_groups:
        assert gi.typer_instance is not None and gi.name
        yield from _commands(gi.typer_instance, (*prefix, gi.name))


def _params(callback: Callable[..., Any]) -> list[Param]:
    hints = typing.get_type_hints(callback, include_extras=True)
    out = []
    for name, p in inspect.signature(callback).parameters.items():
        info, ann = p.default, hints[name]
        decls: tuple[Any, ...] = ()
        required = False
        if typing.get_origin(ann) is Annotated:  # a shared option type: Annotated[T, typer.Option("--out", ...)]
            ann, *extras = typing.get_args(ann)
            info = next((x for x in extras if isinstance(x, ArgumentInfo | OptionInfo)), None)
            if info is None:
                continue
            decls = (info.default, *(info.param_decls or ())) if isinstance(info, OptionInfo) else ()
            required = p.default is inspect.Parameter.empty
        elif isinstance(info, ArgumentInfo | OptionInfo):
            decls = tuple(info.param_decls or ())
            required = info.default is ...
        else:
            continue
        args = typing.get_args(ann)
        is_list = typing.get_origin(ann) is list
        is_path = ann is Path or Path in args
        decl = None if isinstance(info, ArgumentInfo) else str((decls or (f"--{name}",))[0])
        is_str_arg = decl is None and name != "name" and (ann is str or str in args or (is_list and str in args))
        out.append(Param(name, decl, required, is_path or is_str_arg, is_list, info.help or ""))
    return out


COMMANDS = {" ".join(path): _params(cb) for path, cb in _commands(app)}


def test_the_matrix_sees_every_command() -> None:
    """The enumeration is the app's: the known commands are all there."""
    for name in ("parse", "stats", "retrieve", "extract", "graph", "conclude", "schema", "evaluate graph",
                 "evaluate retrieval", "experiment", "train-retriever"):
        assert name in COMMANDS, name
    # options declared once as shared types (Annotated) or by a decorator are seen like the others
    for cmd, params in COMMANDS.items():
        decls = {p.decl for p in params}
        if "--batch" in decls:
            assert "--out" in decls, cmd
    assert {"--out", "--json", "--llm-base-url", "--offline", "--no-cache"} <= {p.decl for p in COMMANDS["extract"]}


def _slots(cmd: str) -> list[str]:
    """Ways to hand this command a bad input path: 'args' (its positional arguments) and/or '--batch'/option."""
    params = COMMANDS[cmd]
    slots = []
    if any(p.argument and p.is_path for p in params):
        slots.append("args")
    inputs = [p for p in params if p.decl and p.is_path and p.name not in OUTPUT_PARAMS]
    required = [p for p in inputs if p.required]
    if required and "args" not in slots:
        slots.append(required[0].decl or "")
    for p in inputs:
        if p.decl == "--batch" or (not slots and p.decl):
            slots.append(p.decl or "")
    return slots


def _bad_invocation(cmd: str, slot: str, bad: str, tmp: Path) -> list[str]:
    params = COMMANDS[cmd]
    argv = cmd.split()
    for p in params:
        if p.argument and slot == "args":
            argv.append(FIRST_ARG_VALUE[cmd] if p is params[0] and cmd in FIRST_ARG_VALUE else bad if p.is_path else "x")
    for p in params:
        if p.decl and (p.decl == slot or (p.required and p.name not in OUTPUT_PARAMS)):
            argv += [p.decl, bad if p.is_path else "x"]
        elif p.decl and p.required:  # a required output
            argv += [p.decl, str(tmp / "out.jsonl")]
    return argv + (EXTRA_ARGS.get(cmd, []) if slot == "args" else [])


BAD_KINDS = ("missing", "unreadable", "directory", "empty", "wrong-encoding")


def _make_bad(kind: str, tmp: Path) -> Path:
    if kind == "missing":
        return tmp / "missing.txt"
    if kind == "directory":
        d = tmp / "a-folder"
        d.mkdir()
        return d
    if kind == "empty":
        p = tmp / "empty.txt"
        p.write_bytes(b"")
        return p
    if kind == "wrong-encoding":  # UTF-16 without a byte-order mark: neither UTF-8 nor an 8-bit text
        p = tmp / "utf16-no-bom.txt"
        p.write_bytes('{"id": "1", "doc": "Résumé", "text": "t(28) = 2.20"}\n'.encode("utf-16-le"))
        return p
    assert kind == "unreadable"
    p = tmp / "unreadable.txt"
    p.write_text('{"id": "1", "text": "x"}\n')
    p.chmod(0)
    if os.access(p, os.R_OK):  # root reads anything; a write-only sysfs file refuses even root
        rescan = Path("/sys/bus/pci/rescan")
        if not rescan.exists() or (os.access(rescan, os.R_OK) and _readable(rescan)):
            pytest.skip("no unreadable file can be made here (running as root without a write-only sysfs file)")
        return rescan
    return p


def _readable(path: Path) -> bool:
    try:
        path.read_bytes()
        return True
    except OSError:
        return False


def invoke(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """Run the console-script entry point in-process; (exit status, stdout, stderr)."""
    for var in ("CLAIMTRACE_LLM_BASE_URL", "CLAIMTRACE_LLM_MODEL", "CLAIMTRACE_SETTINGS", "CLAIMTRACE_LLM_API_KEY",
                "CLAIMTRACE_PDF_READER", "CLAIMTRACE_GROBID_URL", "CLAIMTRACE_OCR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "argv", ["claimtrace", *argv])
    code: int | str | None = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return int(code or 0), out, err


def assert_one_line(res: tuple[int, str, str], argv: list[str]) -> str:
    code, _out, err = res
    lines = err.strip().splitlines()
    assert code == 2, (argv, code, err)
    assert len(lines) == 1, (argv, err)
    assert lines[0].startswith("error: ") and "Traceback" not in err, (argv, err)
    return lines[0]


INPUT_CASES = [(cmd, slot, kind) for cmd in COMMANDS for slot in _slots(cmd) for kind in BAD_KINDS]


@pytest.mark.parametrize(("cmd", "slot", "kind"), INPUT_CASES, ids=[f"{c}|{s}|{k}" for c, s, k in INPUT_CASES])
def test_bad_input_path(cmd: str, slot: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        monkeypatch: pytest.MonkeyPatch) -> None:
    bad = _make_bad(kind, tmp_path)
    argv = _bad_invocation(cmd, slot, str(bad), tmp_path)
    line = assert_one_line(invoke(argv, capsys, monkeypatch), argv)
    assert str(bad) in line or bad.name in line, (argv, line)  # the message names the path


def _good_args(cmd: str, manifest: Path) -> list[str]:
    """Valid inputs for the parts of a command that are not under test."""
    params = COMMANDS[cmd]
    argv = cmd.split()
    has_batch = any(p.decl == "--batch" for p in params)
    for p in params:
        if p.argument and not has_batch:
            argv.append(FIRST_ARG_VALUE[cmd] if p is params[0] and cmd in FIRST_ARG_VALUE else str(SAMPLE))
    for p in params:
        if p.decl == "--batch":
            argv += ["--batch", str(manifest)]
        elif p.decl and p.required and p.name not in OUTPUT_PARAMS:
            argv += [p.decl, str(manifest) if p.is_path else "x"]
    return argv + [a for a in EXTRA_ARGS.get(cmd, []) if cmd != "retrieve"]


def _out_param(cmd: str) -> Param | None:
    return next((p for p in COMMANDS[cmd] if p.decl == "--out"), None)


OUT_CASES = [(cmd, kind) for cmd in COMMANDS if _out_param(cmd) for kind in ("wrong-kind", "unwritable")]


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    m = tmp_path / "manifest.jsonl"
    m.write_text(json.dumps({"id": "1", "doc": str(SAMPLE), "query": "q", "findings": ["x"], "intervention": "a",
                             "comparator": "b", "outcome": "c"}) + "\n")
    return m


@pytest.mark.parametrize(("cmd", "kind"), OUT_CASES, ids=[f"{c}|--out|{k}" for c, k in OUT_CASES])
def test_bad_out_path(cmd: str, kind: str, tmp_path: Path, manifest: Path, capsys: pytest.CaptureFixture[str],
                      monkeypatch: pytest.MonkeyPatch) -> None:
    out = _out_param(cmd)
    assert out is not None
    folder = "folder" in out.help.lower()
    assert folder or "file" in out.help.lower(), f"{cmd}: --out's help must say whether it is a file or a folder"
    if kind == "wrong-kind":  # a file where a folder is wanted, a folder where a file is wanted
        target = tmp_path / ("a-file" if folder else "a-folder")
        if folder:
            target.write_text("x")
        else:
            target.mkdir()
    else:
        target = UNWRITABLE_DIR / ("claimtrace-out" if folder else "claimtrace-out.jsonl")
    argv = [*_good_args(cmd, manifest), "--out", str(target)]
    line = assert_one_line(invoke(argv, capsys, monkeypatch), argv)
    assert str(target) in line, (argv, line)


def _conflicts() -> list[list[str]]:
    cases: list[list[str]] = []
    for cmd, params in COMMANDS.items():
        decls = {p.decl for p in params}
        if "--batch" in decls and "--out" in decls:  # --out only goes with --batch
            argv = [*cmd.split(), str(SAMPLE) if any(p.argument for p in params) else "-"]
            cases.append([*argv, "--out", "OUT", *EXTRA_ARGS.get(cmd, [])])
        if "--batch" in decls and any(p.argument for p in params):  # a paper and a manifest
            cases.append([*cmd.split(), str(SAMPLE), "--batch", "MANIFEST", *EXTRA_ARGS.get(cmd, [])])
        if "--pdf-reader" in decls:  # the PDF-reader options (cli/reader_options.py): bad values and combinations
            paper = [str(SAMPLE)] if any(p.argument for p in params) else []
            for bad in (["--grobid-url", "http://127.0.0.1:9"], ["--pdf-reader", "grobid"],
                        ["--pdf-reader", "pdfminer"], ["--pdf-reader", "grobid", "--grobid-url", "localhost:8070"]):
                cases.append([*cmd.split(), *paper, *bad, *EXTRA_ARGS.get(cmd, [])])
    cases += [
        ["schema", "--json", "--out", "OUTDIR"],
        ["graph", "-", "--offline", "--method", "staged"],
        ["graph", "-", "--stage-model", "verify=m"],
        ["extract", str(SAMPLE), "--extractor", "llm", "--offline"],
        ["retrieve", str(SAMPLE), "--query", "q", "--rerank-log", "log.jsonl"],
        ["evaluate", "retrieval", "MANIFEST", "--pred", "MANIFEST", "--retriever", "dense"],
        ["evaluate", "evidence", "--pred", "MANIFEST", "--gold", "MANIFEST", "--llm-model", "m"],
        ["experiment-data", "MANIFEST", "--json"],
    ]
    return cases


CONFLICTS = _conflicts()


@pytest.mark.parametrize("argv", CONFLICTS, ids=[" ".join(a[:4]) for a in CONFLICTS])
def test_conflicting_options(argv: list[str], tmp_path: Path, manifest: Path, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    subs = {"OUT": str(tmp_path / "out.jsonl"), "OUTDIR": str(tmp_path / "schemas"), "MANIFEST": str(manifest),
            "log.jsonl": str(tmp_path / "log.jsonl")}
    argv = [subs.get(a, a) for a in argv]
    assert_one_line(invoke(argv, capsys, monkeypatch), argv)
    assert not (tmp_path / "out.jsonl").exists() and not (tmp_path / "schemas").exists()  # nothing was done


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for argv in (["no-such-command"], ["stats", "--no-such-option"], ["stats", "--alpha", "x"],
                 ["evaluate", "hypothesis"]):
        line = assert_one_line(invoke(argv, capsys, monkeypatch), argv)
        assert "--help" in line


def test_internal_error_names_a_log_file_with_the_traceback(tmp_path: Path) -> None:
    """An unexpected exception: one line naming the log file, exit 1; the file holds the traceback."""
    code = (
        "from claimtrace.cli import app, main\n"
        "@app.command('boom')\n"
        "def boom() -> None:\n"
        "    '''Fail the way a bug would.'''\n"
        "    {}['missing']\n"
        "main()\n"
    )
    env = {**os.environ, "CLAIMTRACE_LOG_DIR": str(tmp_path / "logs"), "PYTHONPATH": str(REPO / "src")}
    res = subprocess.run([sys.executable, "-c", code, "boom"], capture_output=True, text=True, env=env, cwd=REPO)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert "internal error (KeyError" in lines[0]
    logs = list((tmp_path / "logs").glob("claimtrace-error-*.log"))
    assert len(logs) == 1 and str(logs[0]) in lines[0]
    text = logs[0].read_text()
    assert "Traceback (most recent call last)" in text and "KeyError: 'missing'" in text and "boom" in text
