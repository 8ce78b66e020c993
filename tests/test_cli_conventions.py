"""The CLI conventions of docs/cli.md, checked on every command of the typer app, and the generated
command reference (docs/cli-reference.md) is current."""

from __future__ import annotations

import inspect
import typing

import pytest
from typer.models import OptionInfo

from claimtrace.cli import load_commands
from claimtrace.cli.reference import REFERENCE, command_paths, reference
from conftest import REPO

app = load_commands()  # every command module imported (the CLI loads them lazily)
LLM_OPTIONS = {"--llm-base-url", "--llm-model", "--llm-api-key-env", "--llm-settings", "--no-cache"}


def _callbacks() -> dict[str, typing.Callable[..., object]]:
    out: dict[str, typing.Callable[..., object]] = {}

    def walk(tapp: typing.Any, prefix: tuple[str, ...]) -> None:
        for ci in tapp.registered_commands:
            out[" ".join((*prefix, ci.name or ci.callback.__name__.replace("_", "-")))] = ci.callback
        for gi in tapp.registered_groups:
            walk(gi.typer_instance, (*prefix, gi.name))

    walk(app, ())
    return out


CALLBACKS = _callbacks()


def _options(cmd: str) -> dict[str, tuple[OptionInfo, object]]:
    """Every option of a command by each of its flags: (info, annotation)."""
    cb = CALLBACKS[cmd]
    hints = typing.get_type_hints(cb)
    out = {}
    for name, p in inspect.signature(cb).parameters.items():
        if isinstance(p.default, OptionInfo):
            for decl in p.default.param_decls or ():
                for flag in str(decl).split("/"):
                    out[flag.strip()] = (p.default, hints[name])
    return out


def test_reference_is_current() -> None:
    current = (REPO / REFERENCE).read_text(encoding="utf-8")
    assert current == reference(), "docs/cli-reference.md is out of date: run python -m claimtrace.cli.reference"
    for words in command_paths(app):
        assert f"## claimtrace {' '.join(words)}\n" in current


@pytest.mark.parametrize("cmd", sorted(CALLBACKS))
def test_command_follows_the_conventions(cmd: str) -> None:
    opts = _options(cmd)
    if "--json" in opts:
        info, ann = opts["--json"]
        assert ann is bool and info.default is False, f"{cmd}: --json is a flag, off by default"
        assert "--no-json" not in opts and "--text" not in opts, cmd
    if "--out" in opts:
        info, _ = opts["--out"]
        text = (info.help or "").lower()
        kind = "folder" if text.startswith("a folder") else "file"
        assert kind in text, f"{cmd}: --out's help says whether it is a file or a folder"
    for old in ("--output", "--rerank", "--unit"):
        if old in opts:  # kept only as an alias of the shared name
            info, _ = opts[old]
            assert str(info.param_decls[0]) in ("--reranker", "--units"), f"{cmd}: {old} is not the shared name"
    if "--batch" in opts:
        info, _ = opts["--batch"]
        assert '"doc"' in (info.help or ""), f"{cmd}: the manifest uses doc"
    llm = LLM_OPTIONS & set(opts)
    assert not llm or llm == LLM_OPTIONS, f"{cmd}: the shared LLM options come together, missing {LLM_OPTIONS - llm}"
    for flag, (info, _) in opts.items():
        assert info.help, f"{cmd} {flag} has no help"


def test_help_keeps_square_brackets() -> None:
    """Help is plain text: rich markup does not swallow "[torch]"."""
    text = (REPO / REFERENCE).read_text(encoding="utf-8")
    assert "needs the [torch] extra" in text
