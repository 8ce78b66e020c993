"""``claimtrace retrieve``: the top units of a paper for a query (or a batch of queries)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import BatchOut, batch_progress, fail, only_with, print_json, stdout_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.documents import Document
from claimtrace.errors import ClaimtraceError
from claimtrace.schema_version import SCHEMA_VERSION
from claimtrace.specs import RERANKERS, RETRIEVERS
from claimtrace.types import TASKS


@app.command()
@lo.with_llm_options()
@with_reader_options()
def retrieve(
    file: Path | None = typer.Argument(None, help="A paper (PDF, JATS, TEI, HTML, text, Markdown); not with --batch."),
    query: str | None = typer.Option(None, "--query", "-q", help="The query (a finding, hypothesis or ICO prompt)."),
    units: str = typer.Option("paragraphs", "--units", "--unit",
                              help="Unit kinds, comma-separated: paragraphs, sentences, table-rows, row-groups, figure-legends."),
    retriever: str | None = typer.Option(None, "--retriever", help=f"{RETRIEVERS.help()} (default: the settings' retrieval.retriever, else default)."),
    task: str = typer.Option("evidence", "--task", help="hypothesis or evidence (the fine-tuned retriever's head)."),
    rerank: str | None = typer.Option(None, "--reranker", "--rerank", help=f"{RERANKERS.help()} (default: the settings' retrieval.reranker, else none)."),
    k: int | None = typer.Option(None, "-k", "--k", help="How many units to return (default: retrieval.k, else 5)."),
    m: int | None = typer.Option(None, "-m", help="Candidates retrieved before reranking (default: retrieval.m, else 30)."),
    include_abstract: bool = typer.Option(False, "--include-abstract", help="Retrieve from the abstract too."),
    rerank_log: Path | None = typer.Option(None, "--rerank-log", help="JSONL log of every LLM rerank call."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    batch: Path | None = typer.Option(None, "--batch", help='JSONL manifest: {"id", "doc" or "text", "query"} per line.'),
    out: BatchOut = None,
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Retrieve the units of a paper most relevant to a query."""
    from claimtrace.batch import read_jsonl, run_batch
    from claimtrace.retrieval.pipeline import RetrievalPipeline
    from claimtrace.retrieval.units import parse_units

    try:
        kinds = parse_units(units)
    except ClaimtraceError as exc:
        fail(f"--units: {exc}")
    if task not in TASKS:
        fail(f"--task must be {' or '.join(TASKS)}, got {task!r}")
    if k is not None and k < 1:
        fail("-k must be at least 1")
    try:
        given = {"retriever": RETRIEVERS.parse(retriever) if retriever is not None else None,
                 "reranker": RERANKERS.parse(rerank) if rerank is not None else None, "k": k, "m": m}
    except ClaimtraceError as exc:
        fail(str(exc))
    # the options given, over CLAIMTRACE_RETRIEVAL__*, the settings file's [retrieval] and the defaults
    section = llm.load(retrieval=given).retrieval
    retriever, rerank, k, m = str(section.retriever), str(section.reranker), section.k, section.m
    if batch is None and (file is None or not query):
        fail("give a FILE and --query, or --batch QUERIES.jsonl")
    if batch is not None and (file is not None or query):
        fail("--batch takes the documents and queries from its file: give no FILE or --query")
    only_with("--out", out is not None, "--batch", batch is not None)
    only_with("--rerank-log", rerank_log is not None, "--reranker llm", rerank == "llm")
    if batch is not None:
        from claimtrace.batch import check_out_file

        check_out_file(out)
    items = read_jsonl(batch) if batch is not None else []
    opts: dict[str, Any] = {}
    if rerank == "llm":
        settings = llm.settings()
        lo.announce(settings, task="rerank")
        if not settings.configured("rerank"):
            fail("--reranker llm needs an LLM: give --llm-base-url (or CLAIMTRACE_LLM_BASE_URL) or a settings file")
        opts = {"settings": settings, "log_path": rerank_log}
    pipe = RetrievalPipeline(retriever, reranker=rerank, unit=kinds, include_abstract=include_abstract,
                             task=task, m=m, reranker_options=opts)
    info = {"retriever": retriever, "rerank": rerank, "unit": kinds[0] if len(kinds) == 1 else ",".join(kinds),
            "k": k, "include_abstract": include_abstract}

    def one(doc: str | Path | Document, q: str) -> dict[str, Any]:
        hits = pipe.retrieve(doc, q, k)
        path = None if isinstance(doc, Document) else str(doc)
        res = {"schema_version": SCHEMA_VERSION, "doc": path, "query": q, **info,
               "hits": [h.model_dump(mode="json") for h in hits]}
        if rerank == "llm":  # the LLM ledger ids of this query's RankGPT calls (claimtrace llm show ID)
            res["invocation_ids"] = list(getattr(pipe.reranker, "last_invocation_ids", []))
        return res

    if batch is not None:
        def fn(item: dict[str, Any]) -> dict[str, Any]:
            from claimtrace.batch import item_paper

            if not item.get("query"):
                raise ClaimtraceError(f"item {item['id']}: needs a 'query'")
            return one(item_paper(item, batch), str(item["query"]))

        counts = run_batch(items, fn, out=out, desc="retrieve", progress=batch_progress("retrieve"))
        if counts["failed"]:
            raise SystemExit(1)
        return
    assert file is not None and query is not None
    result = one(file, query)
    if json_out:
        print_json(result)
        return
    con = stdout_console()
    for h in result["hits"]:
        text = " ".join(h["text"].split())
        con.print(f"[bold]{h['rank']}.[/bold] {h['unit_id']} ({h['section'] or '-'}, score {h['score']:.4f})")
        con.print(f"   {text[:400]}{'…' if len(text) > 400 else ''}")
