"""``claimtrace graph``: a paper's empirical relation graph; ``claimtrace evaluate graph``: score graphs."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import (
    BatchOut,
    JsonScores,
    batch_progress,
    fail,
    only_with,
    print_json,
    stdout_console,
)
from claimtrace.cli.evaluate import evaluate_app
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.errors import InputError
from claimtrace.types import GRAPH_METHODS

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # the graph package (networkx, scipy) is imported when a graph command runs
    from claimtrace.graph.model import EmpiricalGraph

METHODS = GRAPH_METHODS  # claimtrace.types: the choices build_graph(method=...) takes too


def graph_text(path: str) -> tuple[str, str]:
    """(id, text) of the input: a paper's abstract (its body if it has no abstract) or stdin text."""
    if path == "-":
        text = sys.stdin.read()
        if not text.strip():
            raise InputError("-", "no text on stdin")
        return "stdin", text.strip()
    from claimtrace.documents import load_document

    doc = load_document(path)
    text = doc.abstract_text.strip()
    if not text:
        text = doc.body_text.strip()
        if text:
            log.warning(f"{path}: no abstract found; using the body text")
    if not text:
        raise InputError(path, "no text to build a graph from")
    return Path(path).stem, text


def build_graph(text: str, doc_id: str, method: str, settings: Any | None = None,
                stage_models: dict[str, str] | None = None, client: Any | None = None) -> EmpiricalGraph:
    """Run one extraction method on a text (``client``: a shared LLMClient for the LLM methods)."""
    if method == "offline":
        from claimtrace.graph.offline import extract_offline

        return extract_offline(text, doc_id)
    from claimtrace.graph.pipeline import run_direct, run_staged, with_stage_models

    if settings is not None and stage_models:
        settings = with_stage_models(settings, stage_models)
    if method == "staged":
        return run_staged(text, doc_id, client=client, settings=settings)
    if method == "direct":
        return run_direct(text, doc_id, client=client, settings=settings)
    raise InputError(None, f"unknown method {method!r} (choose from {', '.join(METHODS)})")


def _stage_models(stage_model: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in stage_model:
        stage, sep, name = item.partition("=")
        if not sep or not name:
            raise InputError(None, f"--stage-model expects STAGE=MODEL, got {item!r}")
        out[stage.strip()] = name.strip()
    return out


@app.command("graph")
@lo.with_llm_options()
@with_reader_options()
def graph_cmd(
    path: str | None = typer.Argument(None, help="A paper (its abstract is used) or '-' for text on stdin."),
    json_out: bool = typer.Option(False, "--json", help="Print the graph as JSON."),
    png: Path | None = typer.Option(None, "--png", help="Also draw the graph into this PNG file."),
    graphml: Path | None = typer.Option(None, "--graphml", help="Also write GraphML to this file."),
    mermaid: bool = typer.Option(False, "--mermaid", help="Print a Mermaid flowchart instead of the summary."),
    method: str = typer.Option("offline", "--method", help="offline (patterns, no LLM), staged (five LLM stages) or direct (one LLM prompt)."),
    stage_model: list[str] = typer.Option([], "--stage-model", help="STAGE=MODEL: the model of one stage (variables, normalise, evidence, relations, verify, direct)."),
    llm: lo.LLMOptions = lo.NONE,
    batch: Path | None = typer.Option(None, "--batch", help='JSONL manifest: {"id", "doc"} or {"id", "text"} per line.'),
    out: BatchOut = None,
) -> None:
    """Build a paper's empirical relation graph (variables, typed relations with status)."""
    if method not in METHODS:
        raise InputError(None, f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if llm.offline and method != "offline":
        fail(f"--method {method} uses an LLM and --offline forbids one: use --method offline")
    models = _stage_models(stage_model)
    only_with("--out", out is not None, "--batch", batch is not None)
    only_with("--stage-model", bool(stage_model), "--method staged or direct", method != "offline")
    if batch is not None:
        from claimtrace.batch import check_out_file

        if path is not None or png is not None or graphml is not None or mermaid:
            fail("--batch takes its papers from the manifest: give no PATH, --png, --graphml or --mermaid")
        check_out_file(out)
    settings = None
    client = None
    if method != "offline":
        from claimtrace.graph.pipeline import with_stage_models
        from claimtrace.llm import LLMClient, LLMNotConfiguredError

        settings = llm.settings(offline=False)
        if models:
            settings = with_stage_models(settings, models)
        if not settings.configured("graph"):
            raise LLMNotConfiguredError("graph")
        lo.announce(settings, task="graph")
        client = LLMClient(settings)
    if batch is not None:
        from claimtrace.batch import read_jsonl, run_batch

        def one(item: dict[str, Any]) -> dict[str, Any]:
            doc = item.get("doc", item.get("path"))  # "path": the manifest field of earlier versions
            if isinstance(item.get("text"), str) and item["text"].strip():
                text = item["text"]
            elif isinstance(doc, str) and doc:
                _, text = graph_text(doc)
            else:
                raise InputError(None, f"item {item['id']}: needs 'doc' or 'text'")
            g = build_graph(text, item["id"], method, settings, client=client)
            return g.model_dump(mode="json", exclude={"id"})

        counts = run_batch(read_jsonl(batch), one, out=out, desc="graphs", progress=batch_progress("graphs"))
        if counts["failed"]:
            raise SystemExit(1)
        return
    if path is None:
        raise InputError(None, "give a paper, '-' for stdin, or --batch FILE.jsonl")
    doc_id, text = graph_text(path)
    g = build_graph(text, doc_id, method, settings, client=client)
    if not g.edges:
        log.warning(f"{path}: no relations found ({method})")
    if png is not None:
        g.render_png(png)
        log.info(f"wrote {png}")
    if graphml is not None:
        graphml.write_text(g.to_graphml(), encoding="utf-8")
        log.info(f"wrote {graphml}")
    if json_out:
        print_json(g)
    elif mermaid:
        sys.stdout.write(g.to_mermaid())
    else:
        print_summary(g)


def print_summary(g: EmpiricalGraph) -> None:
    """A readable listing of variables and edges."""
    con = stdout_console()
    con.print(f"[bold]{len(g.variables)} variables, {len(g.edges)} relations[/bold] ({g.method})")
    names = {v.id: v.name for v in g.variables}
    for v in g.variables:
        con.print(f"  {v.id:<4} {v.name}" + (f"  ({v.role})" if v.role else "") + (f"  level {v.level}" if v.level else ""),
                  markup=False, soft_wrap=True)
    for e in g.edges:
        arrow = "<->" if e.type == "correlational" else "->"
        status = "" if e.type == "hierarchy" else f" [{e.status}]"
        con.print(f"  {names[e.source]} {arrow} {names[e.target]}  ({e.type}){status}", markup=False, soft_wrap=True)


@evaluate_app.command("graph")
def evaluate_graph_cmd(
    pred: Path = typer.Option(..., "--pred", help="Predicted graphs: graph JSON, JSONL/list keyed by id, or a Label Studio export."),
    gold: Path = typer.Option(..., "--gold", help="Gold graphs (same formats), e.g. ../shared/data/empirigraph/gold_dev.json."),
    agreement: bool = typer.Option(False, "--agreement", help="Inter-annotator mode: report as agreement (gold vs gold)."),
    json_out: JsonScores = False,
    details: bool = typer.Option(False, "--details", help="Include per-document scores and node mappings."),
    time_limit: float = typer.Option(60.0, "--time-limit", help="Seconds per alignment before the best found is used."),
) -> None:
    """Score predicted graphs against gold by structure-first alignment (micro/macro F1, per type)."""
    from claimtrace.graph.model import load_graphs
    from claimtrace.graph.scores import evaluate_graphs

    golds = load_graphs(gold)
    preds = load_graphs(pred)
    res = evaluate_graphs(preds, golds, mode="agreement" if agreement else "evaluate", time_limit=time_limit)
    for gid in res.missing_pred:
        log.warning(f"no prediction for {gid}; scored as an empty graph")
    if not all(d.optimal for d in res.documents):
        log.warning("some alignments hit the time limit; scores use the best mapping found")
    data = res.model_dump(mode="json")
    if not details:
        data.pop("documents")
    if json_out:
        print_json(data)
    else:
        sys.stdout.write(json.dumps({k: data[k] for k in ("micro_f1", "macro_f1", "per_type")}) + "\n")
