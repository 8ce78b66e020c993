"""``claimtrace report``: a results store's screening summary (check rates, p-value histogram, p-curve)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import check_out_dir, print_json


@app.command("report")
def report_cmd(
    results: Path = typer.Argument(..., help="A results folder written by claimtrace run --steps stats,checks."),
    out: Path | None = typer.Option(None, "--out", help="A folder for report.md (or report.json) and the PNGs "
                                    "(default: RESULTS/report)."),
    json_out: bool = typer.Option(False, "--json", help="Write report.json and print it, instead of Markdown."),
) -> None:
    """Each check's rate across papers, a p-value histogram and a p-curve of a corpus run."""
    from claimtrace.corpus.report import corpus_report, markdown, write_figures
    from claimtrace.errors import InputError

    if out is not None:  # a bad --out fails before the store is read
        check_out_dir(out)
    report = corpus_report(results)
    folder = out if out is not None else results / "report"
    if folder.exists() and not folder.is_dir():
        raise InputError(str(folder), "exists and is not a folder (--out)")
    report.figures = write_figures(report, folder)
    if json_out:
        (folder / "report.json").write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
        print_json(report.model_dump(mode="json"))
    else:
        text = markdown(report)
        (folder / "report.md").write_text(text, encoding="utf-8")
        typer.echo(text, nl=False)
    print(f"report written to {folder}", file=sys.stderr)
