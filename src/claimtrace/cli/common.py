"""Shared CLI helpers: stderr console, JSON output, one-line errors."""

from __future__ import annotations

import inspect
import json
import logging
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:  # rich and pydantic load on first use (claimtrace --help needs no pydantic)
    from rich.console import Console

BAD_INPUT_EXIT = 2

# option types shared by several commands (``out: BatchOut = None``); one declaration, one help text
#: ``--out`` of a command with ``--batch``
BatchOut = Annotated[Path | None, typer.Option(
    "--out", help="With --batch: the output JSONL file (resumes); default stdout.")]
#: ``--json`` of a command whose result is one object
JsonResult = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
#: ``--json`` of a scoring command (``evaluate ...``)
JsonScores = Annotated[bool, typer.Option("--json", help="Print the full result as JSON (default: one summary line).")]


def set_signature(command: Any, sig: inspect.Signature, params: list[inspect.Parameter],
                  hints: dict[str, Any]) -> Any:
    """Give a decorator's wrapper the command-line parameters typer reads (signature and annotations)."""
    command.__signature__ = sig.replace(parameters=params)
    command.__annotations__ = {p.name: p.annotation for p in params} | (
        {"return": hints["return"]} if "return" in hints else {})
    return command


@lru_cache(maxsize=1)
def stderr_console() -> Console:
    """A rich console on stderr (progress, logs)."""
    from rich.console import Console

    return Console(stderr=True)


def batch_progress(desc: str) -> Callable[[int, int], None]:
    """A progress bar on stderr for ``claimtrace.batch.run_batch`` (``progress=``): shown from the first call,
    closed when ``done`` reaches ``total``."""
    from rich.progress import Progress

    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if "prog" not in state:
            state["prog"] = Progress(console=stderr_console(), transient=False)
            state["prog"].start()
            state["task"] = state["prog"].add_task(desc, total=total)
        state["prog"].update(state["task"], completed=done)
        if done >= total:
            state.pop("prog").stop()

    return update


@lru_cache(maxsize=1)
def stdout_console() -> Console:
    """A rich console on stdout (human-readable reports)."""
    from rich.console import Console

    return Console(highlight=False, width=None if sys.stdout.isatty() else 120)


def print_json(obj: Any) -> None:
    """Print a pydantic model, list or dict as JSON on stdout."""
    from pydantic import BaseModel

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


LOG_LEVEL_ENV = "CLAIMTRACE_LOG_LEVEL"
LOG_DIR_ENV = "CLAIMTRACE_LOG_DIR"
_LOGGING_READY = False


def setup_logging(level: str | None = None) -> None:
    """Route ``logging`` to stderr through rich's handler, once per process (level: env CLAIMTRACE_LOG_LEVEL)."""
    global _LOGGING_READY
    if _LOGGING_READY:
        return
    import os

    from rich.console import Console
    from rich.logging import RichHandler

    name = (level or os.environ.get(LOG_LEVEL_ENV) or "INFO").upper()
    console = Console(stderr=True, width=None if sys.stderr.isatty() else 200)
    handler = RichHandler(console=console, show_time=False, show_level=False, show_path=False, markup=False,
                          rich_tracebacks=False)
    handler.setFormatter(_LevelPrefix())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(getattr(logging, name, logging.INFO))
    for noisy in ("httpx", "httpcore", "urllib3", "matplotlib", "pdfminer", "PIL", "filelock", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    _LOGGING_READY = True


class _LevelPrefix(logging.Formatter):
    """``warning: ...`` and ``error: ...`` as the CLI's one-line messages; info and debug plain."""

    def format(self, record: Any) -> str:
        msg = super().format(record)
        return msg if record.levelno < 30 else f"{record.levelname.lower()}: {msg}"


def log_dir() -> Path:
    """Where internal-error tracebacks are written (env CLAIMTRACE_LOG_DIR, else the user's log folder)."""
    import os

    env = os.environ.get(LOG_DIR_ENV)
    if env:
        return Path(env)
    from platformdirs import user_log_dir

    return Path(user_log_dir("claimtrace", appauthor=False))


def write_crash_log(exc: BaseException) -> Path:
    """Write the traceback of an unexpected error to a new log file and return its path."""
    import os
    import tempfile
    import time
    import traceback

    text = (f"claimtrace {' '.join(sys.argv[1:])}\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in (log_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"claimtrace-error-{stamp}-{os.getpid()}.log"
            path.write_text(text, encoding="utf-8")
            return path
        except OSError:
            continue
    raise exc


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def run_app(app: Any) -> NoReturn:
    """Run the typer app: bad input -> one line on stderr and exit 2; internal error -> one line naming a
    log file with the traceback, exit 1; Ctrl-C -> exit 130."""
    from claimtrace.errors import ClaimtraceError

    ce = _click_exceptions()
    setup_logging()
    try:
        code = app(standalone_mode=False, prog_name="claimtrace")
    except ClaimtraceError as exc:
        fail(_one_line(str(exc)))
    except ce.UsageError as exc:
        ctx = exc.ctx
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            sys.stdout.write(ctx.get_help() + "\n")
            raise SystemExit(BAD_INPUT_EXIT) from None
        cmd = ctx.command_path if ctx is not None else "claimtrace"
        fail(f"{_one_line(exc.format_message())} (see '{cmd} --help')")
    except ce.ClickException as exc:
        fail(_one_line(exc.format_message()))
    except (typer.Abort, getattr(ce, "Abort", typer.Abort), KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except SystemExit:
        raise
    except UnicodeDecodeError as exc:
        where = _file_in_traceback(exc)
        fail(f"{where + ': ' if where else ''}not valid {exc.encoding} text (byte {exc.start})")
    except OSError as exc:
        if exc.filename is None:
            _internal(exc)
        fail(f"{exc.filename}: {_one_line(exc.strerror or str(exc))}")
    except Exception as exc:
        _internal(exc)
    raise SystemExit(code if isinstance(code, int) else 0)


def _file_in_traceback(exc: BaseException) -> str | None:
    """The file a failed read was reading: a path-valued local of the innermost claimtrace frame."""
    tb = exc.__traceback__
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        if not frame.f_globals.get("__name__", "").startswith("claimtrace"):
            continue
        for value in frame.f_locals.values():
            if isinstance(value, Path) and value.is_file():
                return str(value)
    return None


def _click_exceptions() -> Any:
    """The click exception classes typer raises (typer >= 0.20 vendors click as ``typer._click``)."""
    try:
        from typer._click import exceptions as vendored  # type: ignore[import-not-found,unused-ignore]

        return vendored
    except ImportError:
        from click import exceptions

        return exceptions


def _internal(exc: BaseException) -> NoReturn:
    path = write_crash_log(exc)
    print(f"error: internal error ({type(exc).__name__}: {_one_line(str(exc))[:200]}); "
          f"the traceback is in {path}", file=sys.stderr)
    raise SystemExit(1)


def check_out_dir(out: Path) -> None:
    """Create an ``--out`` folder, or refuse one that is a file or cannot be written (one-line error)."""
    from claimtrace.errors import InputError

    if out.exists() and not out.is_dir():
        raise InputError(out, "is a file; --out takes a folder here")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".claimtrace-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InputError(out, f"cannot write to this folder ({exc.strerror or exc})") from None


def only_with(flag: str, given: bool, needed: str, present: bool) -> None:
    """An option that does not apply is an error: ``flag`` only goes with ``needed``."""
    if given and not present:
        fail(f"{flag} only applies with {needed}")
