"""``claimtrace run``: a corpus of papers -> a resumable, queryable results folder (local pool or Ray)."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import fail, print_json, stderr_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.documents.readers.options import ReaderSettings, current_settings
from claimtrace.specs import EXTRACTORS
from claimtrace.types import ENGINES, GRAPH_METHODS, STEPS


@app.command("run")
@with_reader_options()
@lo.with_llm_options()
def run_cmd(
    corpus: str = typer.Argument(..., help="A folder (searched recursively), a glob, or a list file (.txt paths, or .jsonl with 'doc' and optional intervention/comparator/outcome)."),
    out: Path | None = typer.Option(None, "--out", help="A folder for the results (created; an existing one is resumed)."),
    steps: str | None = typer.Option(None, "--steps", help=f"Comma-separated: {','.join(STEPS)} (default: the settings' corpus.steps, else parse,stats,traces)."),
    config: str | None = typer.Option(None, "--config", help="Context configuration preset of the traces step (default: corpus.config, else the extractor's)."),
    extractor: str | None = typer.Option(None, "--extractor", help=f"Traces extractor: {EXTRACTORS.help()} (default: corpus.extractor, else embedded)."),
    graph_method: str | None = typer.Option(None, "--graph-method", help=f"graphs step: {', '.join(GRAPH_METHODS[:-1])} or {GRAPH_METHODS[-1]} (default: corpus.graph_method, else offline)."),
    conclude_method: str | None = typer.Option(None, "--conclude-method", help="conclusions step: offline or an LLM method (default: corpus.conclude_method, else offline)."),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Worker processes (default: the cores)."),
    engine: str = typer.Option("local", "--engine", help=f"{' or '.join(ENGINES)}: a local process pool or a Ray cluster."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="Ray cluster address (with --engine ray), e.g. 127.0.0.1:6379."),
    batch_size: int = typer.Option(32, "--batch-size", min=1, help="Papers per committed batch."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate time and LLM tokens from a sample; write nothing."),
    sample: int = typer.Option(10, "--sample", min=1, help="With --dry-run: papers in the sample."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary (or the estimate) as JSON."),
    llm_max_concurrent: int | None = typer.Option(None, "--llm-max-concurrent", min=1, help="With --engine ray: requests in flight per LLM endpoint, across the cluster (default: corpus.llm_max_concurrent)."),
    llm_tokens_per_minute: int | None = typer.Option(None, "--llm-tokens-per-minute", min=1, help="With --engine ray: tokens per minute per LLM endpoint, across the cluster (default: corpus.llm_tokens_per_minute)."),
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Run parse, stats, traces (and graphs, conclusions) over a corpus into Parquet tables."""
    from claimtrace.corpus.runner import check_engine, discover, run_corpus

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s", stream=sys.stderr)
    logging.getLogger("claimtrace.corpus").setLevel(logging.INFO)
    check_engine(engine)
    # the options given, over CLAIMTRACE_CORPUS__*, the settings file's [corpus] and the defaults; the corpus
    # section validates the steps, config, extractor and graph method (as claimtrace.run_corpus does)
    section = llm.load(corpus={"steps": steps, "config": config, "extractor": extractor,
                               "graph_method": graph_method, "conclude_method": conclude_method,
                               "llm_max_concurrent": llm_max_concurrent,
                               "llm_tokens_per_minute": llm_tokens_per_minute}).corpus
    step_list = list(section.steps)
    extractor, graph_method, conclude_method = section.extractor, section.graph_method, section.conclude_method
    if ray_address and engine != "ray":
        fail("--ray-address goes with --engine ray")
    if (section.llm_max_concurrent or section.llm_tokens_per_minute) and engine != "ray":
        fail("--llm-max-concurrent/--llm-tokens-per-minute go with --engine ray")
    items = discover(corpus)  # bad input first: the corpus names the path
    if dry_run and out is not None:
        fail("--dry-run writes nothing; leave out --out")
    if not dry_run:
        if out is None:
            fail("give --out RESULTS_DIR (or --dry-run)")
        from claimtrace.cli.common import check_out_dir

        check_out_dir(out)
    needs_llm = (("traces" in step_list and extractor == "llm") or ("graphs" in step_list and graph_method != "offline")
                 or ("conclusions" in step_list and conclude_method != "offline"))
    llm_config: dict[str, Any] | None = section.llm
    model = section.llm_model
    if needs_llm:
        if llm.offline:
            fail("an LLM step was asked for together with --offline")
        settings = llm.settings()
        if not settings.configured():
            fail("an LLM step needs an LLM: give --llm-base-url/--llm-model or CLAIMTRACE_LLM_*")
        lo.announce(settings, task="extraction")
        llm_config = settings.model_dump(mode="json")
        model = settings.for_task("extraction").model
    reader = current_settings()  # --pdf-reader/--grobid-url/--ocr or the environment, for every worker
    rs = section.model_copy(update={
        "steps": step_list, "llm": llm_config, "llm_model": model,
        "reader": reader.model_dump(mode="json") if reader != ReaderSettings() else section.reader})
    if dry_run:
        from claimtrace.corpus.estimate import estimate

        logging.disable(logging.INFO)  # libraries' debug lines while the sample runs
        est = estimate(items, rs, sample=sample, workers=workers or os.cpu_count() or 1)
        if json_out:
            print_json(est)
        else:
            print(est.report(), file=sys.stderr)
        return
    assert out is not None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    prog = Progress(TextColumn("papers"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[failed]} failed"), TextColumn("{task.fields[rate]}/min"),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=stderr_console(), transient=False, disable=not sys.stderr.isatty())
    state: dict[str, Any] = {}

    def on_progress(done: int, total: int, failed: int) -> None:
        import time

        if "task" not in state:
            state["task"] = prog.add_task("papers", total=total, failed=0, rate="-")
            state["t0"] = time.perf_counter()
        elapsed = max(time.perf_counter() - state["t0"], 1e-9)
        rate = 60 * done / elapsed
        prog.update(state["task"], completed=done, failed=failed, rate=f"{rate:.0f}" if done else "-")
        if done and not sys.stderr.isatty() and (done == total or time.perf_counter() - state.get("logged", 0) > 30):
            state["logged"] = time.perf_counter()  # no live bar in a log file: a line every 30 s instead
            eta = (total - done) * elapsed / done if done else float("nan")
            logging.getLogger("claimtrace.corpus").info(
                "papers %d/%d, %d failed, %.0f/min, ETA %.0f s", done, total, failed, rate, eta)

    with prog:
        summary = run_corpus(items, out, rs, workers=workers, engine=engine, ray_address=ray_address,
                             batch_size=batch_size, corpus_name=corpus, on_progress=on_progress)
    print(f"{summary.papers} papers: {summary.skipped} already done, {summary.computed} processed "
          f"({summary.ok} ok, {summary.failed} failed) in {summary.seconds:.1f} s"
          + (f", {summary.papers_per_minute:.0f} papers/min" if summary.papers_per_minute else "")
          + f"; results in {out}", file=sys.stderr)
    if summary.failed:
        print(f"failures are listed in {out}/errors (claimtrace query {out} \"select * from errors\")", file=sys.stderr)
    if json_out:
        print_json(summary)
