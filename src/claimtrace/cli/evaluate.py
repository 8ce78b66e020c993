"""``claimtrace evaluate ...``: a command group; each metric module adds its sub-command here."""

from __future__ import annotations

import importlib

import typer

from claimtrace.cli import app

evaluate_app = typer.Typer(help="Score predictions against gold (retrieval, hypothesis, evidence, graph...).",
                           no_args_is_help=True)
app.add_typer(evaluate_app, name="evaluate")

# modules that add sub-commands to ``evaluate_app`` (registered after the group exists)
EVALUATE_MODULES = ["claimtrace.cli.evaluate_retrieval", "claimtrace.cli.evaluate_claims", "claimtrace.cli.graph"]


def _register() -> None:
    for module in EVALUATE_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


_register()
