"""``claimtrace check``: the screening report of a paper (a traffic light per check, then the findings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli.common import BatchOut, fail, only_with, print_json, stdout_console
from claimtrace.errors import InputError

FORMATS = ("text", "md", "html", "json")


def _options(alpha: float, retractions: Path | None, online: bool, cache_dir: Path | None) -> Any:
    from claimtrace.checks import CheckOptions

    if not 0 < alpha < 1:
        raise InputError(None, f"--alpha must be between 0 and 1, got {alpha}")
    if retractions is not None:
        if not retractions.exists():
            raise InputError(str(retractions), "no such file (--retractions)")
        if not retractions.is_file():
            raise InputError(str(retractions), "is a folder, not a Retraction Watch CSV (--retractions)")
    return CheckOptions(alpha=alpha, retractions=retractions, online=online, cache_dir=cache_dir)


def _report(path: str, options: Any, only: list[str] | None) -> tuple[Any, Any]:
    from claimtrace.checks.report import screen
    from claimtrace.documents import load_document

    doc = load_document(path)
    try:
        return screen(doc, options, only, source=path), doc
    except ValueError as exc:  # an unknown check id
        raise InputError(None, str(exc)) from None


def print_summary(report: Any) -> None:
    """The terminal report: a traffic-light line per check, then the findings."""
    from rich.markup import escape
    from rich.table import Table

    con = stdout_console()
    colour = {"green": "green", "yellow": "yellow", "red": "red"}
    table = Table(title=f"Screening report: {escape(report.title or report.source or '')}", show_lines=False)
    for col in ("", "check", "flags", "first finding"):
        table.add_column(col, overflow="fold")
    for s in report.summary:
        table.add_row(f"[{colour[s.light]}]●[/]", escape(s.title), str(s.flags), escape(s.message))
    con.print(table)
    from claimtrace.checks.report import sections

    for s, rows in sections(report):
        con.print(f"\n[bold]{escape(s.title)}[/]")
        for r in rows:
            where = r.location.unit_id if r.location is not None and r.location.unit_id else ""
            sev = {"error": "[red]error[/]", "warn": "[yellow]warn[/]", "info": "[blue]info[/]"}[r.severity]
            con.print(f"  {sev} {escape(r.message)} [dim]{escape(where)}[/]")


def render(report: Any, doc: Any, fmt: str) -> str:
    """The report in one of the file formats (md, html, json)."""
    import json

    from claimtrace.checks.report import markdown, report_dict, to_html

    if fmt == "md":
        return markdown(report, doc)
    if fmt == "html":
        return to_html(report, doc)
    return json.dumps(report_dict(report), ensure_ascii=False, indent=2)


@app.command()
def check(
    paper: str = typer.Argument(None, help="A paper (PDF, JATS, TEI, HTML, text, Markdown)."),
    fmt: str = typer.Option("text", "--format", help="text (traffic lights and findings), md, html (one "
                            "self-contained file) or json."),
    json_out: bool = typer.Option(False, "--json", help="Print the report as JSON (the same as --format json)."),
    batch: Path | None = typer.Option(None, "--batch", help='JSONL manifest: {"id", "doc"} per line.'),
    out: BatchOut = None,
    only: list[str] = typer.Option(None, "--only", help="Run only this check id (repeatable)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level for decision errors."),
    retractions: Path | None = typer.Option(None, "--retractions", help="A Retraction Watch CSV: cited works that "
                                            "were retracted or corrected, matched by DOI."),
    online: bool = typer.Option(False, "--online", help="Also check links' status and DOIs online (rate-limited, "
                                "cached; off by default)."),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Where --online caches its look-ups."),
) -> None:
    """Screen a paper: consistency, imprecise p, marginal wording, effect sizes, GRIM, power, references, links."""
    if fmt not in FORMATS:
        raise InputError(None, f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if json_out and fmt not in ("text", "json"):
        raise InputError(None, f"give --json or --format {fmt}, not both")
    only_with("--out", out is not None, "--batch", batch is not None)
    only_with("--cache-dir", cache_dir is not None, "--online", online)
    options = _options(alpha, retractions, online, cache_dir)
    if batch is not None:
        from claimtrace.batch import check_out_file, item_doc, read_jsonl, run_batch
        from claimtrace.checks.report import report_dict

        if paper is not None:
            fail("give either PAPER or --batch, not both")
        if fmt not in ("text", "json"):
            fail("--batch writes JSON lines; --format applies to one paper")
        check_out_file(out)
        items = read_jsonl(batch)

        def one(item: dict[str, Any]) -> dict[str, Any]:
            doc = item_doc(item, batch)
            report, _ = _report(str(doc), options, only)
            return {"doc": doc, **report_dict(report)}

        counts = run_batch(items, one, out=out, desc="check")
        if counts["failed"]:
            raise SystemExit(1)
        return
    if paper is None:
        raise InputError(None, "give a PAPER or --batch FILE.jsonl")
    report, doc = _report(paper, options, only)
    if json_out or fmt == "json":
        from claimtrace.checks.report import report_dict

        print_json(report_dict(report))
    elif fmt == "text":
        print_summary(report)
    else:
        typer.echo(render(report, doc, fmt))
