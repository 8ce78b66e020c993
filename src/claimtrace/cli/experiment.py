"""``claimtrace experiment CONFIG.yaml`` (configurations × extractors over a dataset) and
``claimtrace experiment-data`` (build that dataset from Evidence Inference or SCORE-style traces)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import check_out_dir, fail, only_with, print_json
from claimtrace.schema_version import SCHEMA_VERSION

log = logging.getLogger(__name__)


@app.command("experiment")
def experiment_cmd(
    config: Path = typer.Argument(..., help="Experiment YAML (schema: docs/evaluation.md)."),
    limit: int | None = typer.Option(None, "--limit", help="Override the subset size (first N items)."),
    workers: int | None = typer.Option(None, "--workers", help="Override the number of worker processes."),
    output: Path | None = typer.Option(None, "--out", help="A folder: the experiment's output folder (overrides the config's)."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON (default: the Markdown table)."),
    report_only: bool = typer.Option(False, "--report-only", help="Run nothing: rewrite the summary and plots from the items finished so far."),
) -> None:
    """Run context configurations × extractors over a dataset; write per-item results, tables and plots."""
    from claimtrace.evaluate.experiment import load_config, run_experiment

    if output is not None:
        check_out_dir(output)
    cfg = load_config(config)
    if limit is not None:
        if limit < 1:
            fail("--limit must be at least 1")
        cfg.limit = limit
    if workers is not None:
        cfg.workers = max(1, workers)
    if output is not None:
        cfg.output = str(output.resolve())
    command = f"claimtrace experiment {config}" + (f" --limit {limit}" if limit is not None else "")
    summary = run_experiment(cfg, command=command, report_only=report_only)
    if json_out:
        print_json(summary)
    else:
        sys.stdout.write((Path(cfg.output) / "summary.md").read_text(encoding="utf-8"))


@app.command("experiment-data")
def experiment_data_cmd(
    source: Path = typer.Argument(..., help="An Evidence Inference split folder, or a SCORE-style CSV/JSONL."),
    kind: str = typer.Option("evidence-inference", "--from", help="evidence-inference or score."),
    out: Path | None = typer.Option(None, "--out", help="The output JSONL file (default: stdout)."),
    limit: int | None = typer.Option(None, "--limit", help="First N items only."),
    with_abstract: bool = typer.Option(False, "--with-abstract", help="EI: keep gold spans in the abstract."),
    no_units: bool = typer.Option(False, "--no-units", help="EI: skip locating gold paragraphs in the JATS document."),
    docs_dir: Path | None = typer.Option(None, "--docs-dir", help="SCORE: folder that relative document paths are in."),
    json_out: bool = typer.Option(False, "--json", help="With --out: print a JSON summary to stdout."),
) -> None:
    """Build an experiment dataset: {"id","doc","finding","hypothesis","evidence",...} per line."""
    from claimtrace.batch import check_out_file
    from claimtrace.evaluate.datasets import convert_evidence_inference, load_score_traces

    only_with("--json", json_out, "--out", out is not None)
    check_out_file(out)
    if kind == "evidence-inference":
        rows = list(convert_evidence_inference(source, body_only=not with_abstract, with_units=not no_units,
                                               limit=limit))
    elif kind == "score":
        rows = load_score_traces(source, docs_dir=docs_dir)[:limit]
    else:
        fail(f"unknown --from {kind!r}; choose evidence-inference or score")
    if not rows:
        fail(f"{source}: no items")
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out is None:
        sys.stdout.write(text)
        return
    out.write_text(text, encoding="utf-8")
    info = {"schema_version": SCHEMA_VERSION, "items": len(rows), "out": str(out),
            "with_evidence_units": sum(1 for r in rows if r.get("evidence_units"))}
    if json_out:
        print_json(info)
    else:
        log.info(f"{len(rows)} items -> {out} ({info['with_evidence_units']} with gold units)")
