"""``claimtrace conclude``: a study's conclusion for a question (intervention, comparator, outcome)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import BatchOut, JsonResult, batch_progress, fail, print_json, stdout_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.conclude.model import LLM_METHODS, METHODS, ConcludeResult
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.specs import RETRIEVERS

log = logging.getLogger(__name__)


@app.command()
@lo.with_llm_options()
@with_reader_options()
def conclude(
    papers: list[str] = typer.Argument(None, help="The papers of ONE study (PDF, JATS, TEI, HTML, text)."),
    intervention: str | None = typer.Option(None, "--intervention", help="The intervention."),
    comparator: str | None = typer.Option(None, "--comparator", help="The comparator."),
    outcome: str | None = typer.Option(None, "--outcome", help="The outcome."),
    method: str | None = typer.Option(
        None, "--method", help=f"{'|'.join(METHODS)} (default: urca when an LLM is configured, else offline)."),
    higher_is_better: str | None = typer.Option(
        None, "--higher-is-better", help="yes|no: the outcome's polarity (else asked of the LLM; offline: unknown direction)."),
    retriever: str = typer.Option("bm25", "--retriever", help=f"Retriever of the passages: {RETRIEVERS.help()}."),
    k: int | None = typer.Option(None, "--k", min=1, help="Units to retrieve (per-paper quota k_s derives from it)."),
    clustering: str = typer.Option("auto", "--clustering", help="URCA/RAPTOR clustering: auto, none, pca or umap."),
    forest_plot: Path | None = typer.Option(None, "--forest-plot", help="Write a forest-plot PNG of the parsed estimates."),
    json_out: JsonResult = False,
    with_numbers: bool = typer.Option(
        False, "--with-numbers", help="Add the per-arm numbers and effect sizes (claimtrace numbers, offline) to each conclusion."),
    batch: Path | None = typer.Option(
        None, "--batch", help='JSONL manifest: {"id", "doc" (a path or a list), "intervention", "comparator", "outcome", "higher_is_better"?} per line.'),
    out: BatchOut = None,
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Conclude what a study (one or more papers) found for an intervention vs comparator on an outcome."""
    from claimtrace.conclude.pipeline import add_numbers, announce_method, forest_rows, parse_polarity
    from claimtrace.conclude.pipeline import conclude as run
    from claimtrace.plots import forest_plot as draw

    if method is not None and method not in METHODS:
        fail(f"unknown --method {method!r}; choose one of: {', '.join(METHODS)}")
    if clustering not in ("auto", "none", "pca", "umap"):
        fail(f"unknown --clustering {clustering!r}; choose auto, none, pca or umap")
    try:  # the registry's spellings (claimtrace.specs), checked before any paper is read
        RETRIEVERS.parse(retriever)
    except ClaimtraceError as exc:
        fail(f"--retriever: {exc}")
    hib = parse_polarity(higher_is_better)
    items: list[dict[str, Any]] = []
    if batch is not None:  # bad input is reported before any work is announced
        from claimtrace.batch import check_out_file, read_jsonl

        if papers:
            fail("give either PAPER... or --batch, not both")
        check_out_file(out)
        items = read_jsonl(batch)
    settings = llm.settings()
    ready = settings.configured("conclusion")
    if method in LLM_METHODS and not ready:
        fail(f"--method {method} needs an LLM (--llm-base-url/--llm-model or CLAIMTRACE_LLM_*), or use --method offline")
    chosen = announce_method(method, ready)
    client = None
    if chosen in LLM_METHODS:
        from claimtrace.llm import LLMClient

        lo.announce(settings, task="conclusion")
        client = LLMClient(settings)
    opts: dict[str, Any] = {"method": chosen, "client": client, "retriever": retriever, "k": k,
                            "clustering": clustering}

    if batch is not None:
        from claimtrace.batch import item_docs, run_batch

        results: list[tuple[str, ConcludeResult]] = []

        def one(item: dict[str, Any]) -> dict[str, Any]:
            docs = item_docs(item, batch)
            q = {f: item.get(f) for f in ("intervention", "comparator", "outcome")}
            missing = [f for f, v in q.items() if not isinstance(v, str) or not v.strip()]
            if missing:
                raise InputError(batch, f"item {item['id']}: missing {', '.join(missing)}")
            item_hib = parse_polarity(item["higher_is_better"]) if "higher_is_better" in item else hib
            res = run(q, docs, higher_is_better=item_hib, **opts)  # type: ignore[arg-type]
            if with_numbers:
                add_numbers(res, docs)
            results.append((item["id"], res))
            return res.record()

        counts = run_batch(items, one, out=out, desc="concluding", progress=batch_progress("concluding"))
        if forest_plot is not None:
            rows = forest_rows(results)
            if rows:
                draw(rows, forest_plot)
                log.info(f"forest plot: {len(rows)} estimate(s) -> {forest_plot}")
            else:
                log.info("forest plot: no effect estimate with a CI was parsed; nothing drawn")
        if counts["failed"]:
            raise SystemExit(1)
        return

    if not papers:
        fail("give the PAPER(s) of one study, or --batch FILE.jsonl")
    if out is not None:
        fail("--out is for --batch; redirect stdout for a single question")
    missing = [n for n, v in (("--intervention", intervention), ("--comparator", comparator), ("--outcome", outcome))
               if not v or not v.strip()]
    if missing:
        fail(f"missing {', '.join(missing)}")
    res = run({"intervention": intervention or "", "comparator": comparator or "", "outcome": outcome or ""},
              papers, higher_is_better=hib, **opts)
    if with_numbers:
        add_numbers(res, papers)
    if json_out:
        print_json(res)
    else:
        print_report(res)
    if forest_plot is not None:
        rows = forest_rows([(Path(papers[0]).stem, res)])
        if not rows:
            fail("--forest-plot: no effect estimate with a confidence interval was parsed")
        draw(rows, forest_plot)


def print_report(res: ConcludeResult) -> None:
    """A readable report: label, conclusion, rationale, quotes with where they are."""
    from rich.markup import escape as esc

    con = stdout_console()
    q = res.question
    con.print(f"[bold]{esc(q.intervention)}[/bold] vs [bold]{esc(q.comparator)}[/bold] on [bold]{esc(q.outcome)}[/bold]")
    con.print(f"  label:      {res.label}")
    con.print(f"  conclusion: {res.conclusion}" + (f" (polarity from {res.polarity_source})" if res.polarity_source != "none" else ""))
    con.print(f"  method:     {res.method}")
    if res.retrieval is not None:
        r = res.retrieval
        quota = f", k_s = {r.per_paper_quota}" if r.per_paper_quota is not None else ""
        con.print(f"  retrieval:  {r.strategy}, k = {r.k}{quota}, units per paper {r.units_per_paper}")
    if res.clustering is not None:
        c = res.clustering
        con.print(f"  clustering: {c.method}, {c.n_clusters} cluster(s) of {c.n_units} units ({esc(c.reason)})")
    con.print(f"  rationale:  {esc(res.rationale)}")
    for i, qt in enumerate(res.quotes, 1):
        where = f"paper {qt.paper_index + 1}, {qt.scope} {','.join(qt.sentence_ids[:3])}"
        con.print(f"  quote {i} ({esc(where)}): {esc(qt.text)}")
    for qt in res.unlocated_quotes:
        con.print(f"  [yellow]not found in the papers (not used):[/yellow] {esc(qt.text)}")
    if res.numbers is not None:
        n = res.numbers
        effects = "; ".join(f"{e.measure} {e.value:.3g} ({e.ci_low:.3g} to {e.ci_high:.3g})" for e in n.effects)
        con.print(f"  numbers:    {n.outcome_type}; " + (effects or "effect not computable (" + ", ".join(n.not_reported) + " not reported)"))
    for w in res.warnings:
        con.print(f"  [dim]warning: {esc(w)}[/dim]")
