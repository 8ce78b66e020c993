"""``claimtrace schema``: export the JSON Schemas of the objects the commands write."""

from __future__ import annotations

import importlib
import json
import logging
from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import check_out_dir, fail, print_json, stdout_console

log = logging.getLogger(__name__)

# name -> (module, class): the output objects of parse, stats, extract, graph and conclude
SCHEMAS: dict[str, tuple[str, str]] = {
    "document": ("claimtrace.documents.model", "Document"),
    "statistic": ("claimtrace.stats.model", "DocumentStat"),  # one record of `stats` output's "results"
    "table-statistic": ("claimtrace.stats.tables", "TableStat"),  # one record of `stats` output's "table_results"
    "claim-trace": ("claimtrace.extract.model", "ClaimTrace"),
    "graph": ("claimtrace.graph.model", "EmpiricalGraph"),
    "conclusion": ("claimtrace.conclude.model", "ConcludeResult"),
    "numbers": ("claimtrace.numbers.model", "NumbersResult"),
    "meta": ("claimtrace.numbers.model", "MetaResult"),
    "corpus-run": ("claimtrace.corpus.runner", "RunSummary"),  # `run --json`; the tables: codebook.json of export
    "corpus-estimate": ("claimtrace.corpus.estimate", "Estimate"),  # `run --dry-run --json`
}


def json_schema(name: str) -> dict[str, object]:
    """The JSON Schema of one output object, by name (see ``SCHEMAS``)."""
    module, cls = SCHEMAS[name]
    model = getattr(importlib.import_module(module), cls)
    schema: dict[str, object] = model.model_json_schema()
    return schema


@app.command()
def schema(
    name: str | None = typer.Argument(None, help=f"One of: {', '.join(SCHEMAS)} (default: all)."),
    out: Path | None = typer.Option(None, "--out", help="A folder: NAME.schema.json files are written there."),
    json_out: bool = typer.Option(False, "--json", help="Print the schema(s) as JSON (default: a list of the schemas)."),
) -> None:
    """Export the JSON Schemas of the output objects (document, statistic, claim-trace, graph, conclusion)."""
    if name is not None and name not in SCHEMAS:
        fail(f"unknown schema {name!r}; choose one of: {', '.join(SCHEMAS)}")
    names = [name] if name else list(SCHEMAS)
    schemas = {n: json_schema(n) for n in names}
    if out is not None:
        if json_out:
            fail("--json prints to stdout; with --out the schemas go to files: give one of them")
        check_out_dir(out)
        for n, s in schemas.items():
            (out / f"{n}.schema.json").write_text(json.dumps(s, indent=2) + "\n", encoding="utf-8")
        log.info(f"wrote {len(schemas)} schema(s) to {out}")
        return
    if json_out:
        print_json(schemas[names[0]] if name else schemas)
        return
    con = stdout_console()
    for n, s in schemas.items():
        props = s.get("properties")
        count = len(props) if isinstance(props, dict) else 0
        con.print(f"{n:<12} {s.get('title', '')} ({count} fields); --json prints it, --out DIR writes it",
                  markup=False)
