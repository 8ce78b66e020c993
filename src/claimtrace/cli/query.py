"""``claimtrace query``: SQL over a results folder; ``claimtrace export``: flat files with a codebook."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import print_json, stdout_console


@app.command("query")
def query_cmd(
    results: Path = typer.Argument(..., help="A results folder written by claimtrace run."),
    sql: str = typer.Argument(..., help="SQL over the tables papers, traces, statistics, graph_edges, conclusions, checks, errors."),
    json_out: bool = typer.Option(False, "--json", help="Print the rows as a JSON array."),
    limit: int = typer.Option(50, "--limit", min=1, help="Rows shown in the table view (JSON prints all)."),
) -> None:
    """Run SQL (DuckDB) over a results folder's tables."""
    from claimtrace.corpus.query import query

    table = query(results, sql)
    if json_out:
        print_json({"schema_version": "1.0", "columns": table.column_names, "rows": table.to_pylist()})
        return
    from rich.markup import escape
    from rich.table import Table

    view = Table(show_lines=False)
    for name in table.column_names:
        view.add_column(escape(name), overflow="fold")
    for row in table.slice(0, limit).to_pylist():
        view.add_row(*(escape("" if v is None else str(v)) for v in row.values()))
    stdout_console().print(view)
    print(f"{table.num_rows} row(s)" + (f", {limit} shown" if table.num_rows > limit else ""), file=sys.stderr)


@app.command("export")
def export_cmd(
    results: Path = typer.Argument(..., help="A results folder written by claimtrace run."),
    fmt: str = typer.Option("csv", "--format", help="csv, parquet or jsonl."),
    table: list[str] = typer.Option([], "--table", help="Table(s) to export (default: all)."),
    out: Path | None = typer.Option(None, "--out", help="A folder for the files (default: RESULTS/export-FORMAT)."),
    json_out: bool = typer.Option(False, "--json", help="Print the written files as JSON."),
) -> None:
    """Write the tables as flat files (one row per item) with codebook.csv describing every column."""
    from claimtrace.corpus.query import export

    files = export(results, out or results / f"export-{fmt}", fmt, table or None)
    if json_out:
        print_json({"schema_version": "1.0", "files": [str(f) for f in files]})
    else:
        for f in files:
            print(f, file=sys.stderr)
