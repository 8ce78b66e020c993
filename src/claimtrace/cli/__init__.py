"""The ``claimtrace`` command line. Each command lives in its own module and registers on ``app``.

Start-up stays short: ``COMMANDS`` names every command with its module and its one-line help, so
``claimtrace --help`` lists them without importing any, and ``claimtrace stats ...`` imports only the stats
command's module (the CLI layer is where the lazy loading lives; the library imports at module level).
``load_commands()`` imports them all (the command reference, the tests).
"""

from __future__ import annotations

import atexit
import gc
import importlib
from typing import Any, NamedTuple

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup


class CommandEntry(NamedTuple):
    """A command of the app: the module that registers it and the first paragraph of its help."""

    module: str
    help: str


#: every command, in the order ``--help`` lists them (tests/test_cli_basics.py checks this against the app)
COMMANDS: dict[str, CommandEntry] = {
    "parse": CommandEntry("parse", "Parse papers into the Document model and print an outline (or JSON)."),
    "stats": CommandEntry("stats", "Find, parse and check every statistical result (t, F, chi2, r, z, Q, "
                                   "OR/HR/RR, CIs, p...)."),
    "doctor": CommandEntry("llm", "Check the configured LLM (does it answer?), embedding models and cache; "
                                  "exit 1 if something fails."),
    "retrieve": CommandEntry("retrieve", "Retrieve the units of a paper most relevant to a query."),
    "train-retriever": CommandEntry("train", "Train the fine-tuned multi-task retriever (needs the [torch] extra)."),
    "retriever-data": CommandEntry("train", "Build evidence-task training data for train-retriever from Evidence "
                                            "Inference or EvidenceBench."),
    "extract": CommandEntry("extract", "Trace findings to the paper's core hypothesis and the statistical evidence "
                                       "that tests it."),
    "graph": CommandEntry("graph", "Build a paper's empirical relation graph (variables, typed relations with "
                                   "status)."),
    "experiment": CommandEntry("experiment", "Run context configurations × extractors over a dataset; write "
                                             "per-item results, tables and plots."),
    "experiment-data": CommandEntry("experiment", 'Build an experiment dataset: {"id","doc","finding",'
                                                  '"hypothesis","evidence",...} per line.'),
    "conclude": CommandEntry("conclude", "Conclude what a study (one or more papers) found for an intervention vs "
                                         "comparator on an outcome."),
    "schema": CommandEntry("schema", "Export the JSON Schemas of the output objects (document, statistic, "
                                     "claim-trace, graph, conclusion)."),
    "numbers": CommandEntry("numbers", "Per-arm events/group sizes or means/SDs for an ICO, with provenance, "
                                       "effect sizes (OR, RR, RD, MD, SMD) and flags."),
    "meta": CommandEntry("meta", "Inverse-variance fixed and random effects (DerSimonian–Laird, Paule–Mandel, "
                                 "REML), τ², I², prediction interval."),
    "run": CommandEntry("run", "Run parse, stats, traces (and graphs, conclusions) over a corpus into Parquet "
                               "tables."),
    "query": CommandEntry("query", "Run SQL (DuckDB) over a results folder's tables."),
    "export": CommandEntry("query", "Write the tables as flat files (one row per item) with codebook.csv "
                                    "describing every column."),
    "serve": CommandEntry("serve", "Serve the review app: corpus page, paper pages with highlights, review "
                                   "decisions, quick check."),
    "review-export": CommandEntry("serve", "Write the review decisions: machine value and reviewed value, reviewer "
                                           "and time, one row per decision."),
    "check": CommandEntry("check", "Screen a paper: consistency, imprecise p, marginal wording, effect sizes, "
                                   "GRIM, power, references, links."),
    "report": CommandEntry("report", "Each check's rate across papers, a p-value histogram and a p-curve of a "
                                     "corpus run."),
    "evaluate": CommandEntry("evaluate", "Score predictions against gold (retrieval, hypothesis, evidence, "
                                         "graph...)."),
}

# command modules (``claimtrace.cli.NAME``); each defines its commands with @app.command() on the app below
COMMAND_MODULES = list(dict.fromkeys(e.module for e in COMMANDS.values()))


class LazyGroup(TyperGroup):
    """The root group: lists ``COMMANDS`` from the table and imports a command's module when it is run."""

    # ctx and formatter are typed Any: typer >= 0.2x brings its own copy of click, older ones use click itself
    def list_commands(self, ctx: Any) -> list[str]:
        """Every command: the table's order, then any registered outside it."""
        return list(dict.fromkeys([*COMMANDS, *super().list_commands(ctx)]))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The command, its module imported on first use."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            register([f"claimtrace.cli.{COMMANDS[cmd_name].module}"])
            self._add_registered()
            _collect_again()
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list of ``--help``, from the table for commands not imported yet."""
        names = [n for n in self.list_commands(ctx) if n in COMMANDS or n in self.commands]
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            cmd = self.commands.get(name)
            if cmd is not None:
                if not cmd.hidden:
                    rows.append((name, cmd.get_short_help_str(limit)))
            else:
                # click's own shortening of the same help text (a stand-in command, never run)
                rows.append((name, TyperCommand(name=name, help=COMMANDS[name].help).get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def _add_registered(self) -> None:
        """Add the commands and groups registered on ``app`` since the group was built."""
        for ci in app.registered_commands:
            assert ci.callback is not None
            name = ci.name or typer.main.get_command_name(ci.callback.__name__)
            if name not in self.commands:
                self.add_command(typer.main.get_command_from_info(
                    ci, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode),
                    name)
        for gi in app.registered_groups:
            if gi.name and gi.name not in self.commands:
                self.add_command(typer.main.get_group_from_info(
                    gi, pretty_exceptions_short=app.pretty_exceptions_short, suggest_commands=app.suggest_commands,
                    rich_markup_mode=app.rich_markup_mode), gi.name)


app = typer.Typer(
    name="claimtrace",
    help="Extract claim traces (finding -> hypothesis -> statistical evidence) from scientific papers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # help texts are plain text: "[torch]" stays "[torch]"
    cls=LazyGroup,
)


def _version(value: bool) -> None:
    if value:
        from claimtrace.version import __version__

        typer.echo(f"claimtrace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """claimtrace: findings, hypotheses and statistical evidence from scientific papers."""


def register(modules: list[str]) -> None:
    """Import command modules (each registers its commands); a module that is absent is passed over."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def load_commands() -> Any:
    """Import every command module, so that ``app`` holds every command (returns ``app``)."""
    register([f"claimtrace.cli.{name}" for name in COMMAND_MODULES])
    return app


# Start-up imports create hundreds of thousands of long-lived objects and almost no garbage. main() turns the
# cyclic garbage collector off until the command's module is imported (``_collect_again``), then moves every
# object alive to the permanent generation (``gc.freeze``): the command's first collections no longer walk the
# start-up objects (all still in the youngest generation, since none was collected), nor do the interpreter's
# last ones (frozen again at exit). Once per process: an in-process caller's later objects stay collectable. A
# command runs with the collector on as before, over its own objects.
_gc_state = {"was_enabled": True, "exit_hook": False, "frozen": False}


def _collect_again() -> None:
    """Start-up is over: its objects frozen, the collector back on (when it was on before ``main``)."""
    if _gc_state["was_enabled"] and not gc.isenabled():
        if not _gc_state["frozen"]:
            gc.freeze()
            _gc_state["frozen"] = True
        gc.enable()


def main() -> None:
    """Console-script entry point: one-line errors (exit 2 on bad input, 1 with a log file on internal errors)."""
    from claimtrace.cli.common import run_app

    _gc_state["was_enabled"] = gc.isenabled()
    if not _gc_state["exit_hook"]:
        atexit.register(gc.freeze)
        _gc_state["exit_hook"] = True
    gc.disable()
    try:
        run_app(app)
    finally:
        _collect_again()
