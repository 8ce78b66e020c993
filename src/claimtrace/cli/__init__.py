"""The ``claimtrace`` command line. Each command lives in its own module and registers on ``app``."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="claimtrace",
    help="Extract claim traces (finding -> hypothesis -> statistical evidence) from scientific papers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts are plain text: "[torch]" stays "[torch]"
)



def _version(value: bool) -> None:
    if value:
        from claimtrace import __version__

        typer.echo(f"claimtrace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """claimtrace: findings, hypotheses and statistical evidence from scientific papers."""


# command modules; each defines its commands with @app.command() on the app above
COMMAND_MODULES = [
    "parse", "stats", "llm", "retrieve", "train", "extract", "evaluate", "experiment", "graph", "conclude",
    "schema",
    "numbers", "meta",
    "run", "query",  # corpus runs: claimtrace run / query / export
    "serve",  # review in the browser: claimtrace serve / review-export
    "check",  # the screening report: claimtrace check
    "report",  # the corpus screening report: claimtrace report
]


def register(modules: list[str]) -> None:
    """Import command modules (each registers its commands); a module that is absent is passed over."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


register([f"claimtrace.cli.{name}" for name in COMMAND_MODULES])


def main() -> None:
    """Console-script entry point: one-line errors (exit 2 on bad input, 1 with a log file on internal errors)."""
    from claimtrace.cli.common import run_app

    run_app(app)
