"""``claimtrace evaluate ...``: a command group; each metric module adds its sub-command here."""

from __future__ import annotations

import typer

from claimtrace.cli import app, register

evaluate_app = typer.Typer(help="Score predictions against gold (retrieval, hypothesis, evidence, graph...).",
                           no_args_is_help=True)
app.add_typer(evaluate_app, name="evaluate")

# modules that add sub-commands to ``evaluate_app`` (registered after the group exists)
EVALUATE_MODULES = ["claimtrace.cli.evaluate_retrieval", "claimtrace.cli.evaluate_claims", "claimtrace.cli.graph"]
register(EVALUATE_MODULES)
