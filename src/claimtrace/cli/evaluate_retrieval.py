"""``claimtrace evaluate retrieval``: recall@k, MRR and nDCG@k of retrieval output against gold units."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import fail, print_json, stdout_console
from claimtrace.cli.evaluate import evaluate_app
from claimtrace.schema_version import SCHEMA_VERSION
from claimtrace.specs import RERANKERS, RETRIEVERS


@evaluate_app.command("retrieval")
@lo.with_llm_options(offline=False)
def evaluate_retrieval(
    gold: Path = typer.Argument(..., help='JSONL: {"id", "doc", "query", "gold_units": [ids] and/or "gold_texts": [spans]}.'),
    pred: Path | None = typer.Option(None, "--pred", help="Output of `claimtrace retrieve --batch` to score; "
                                     "without it the retriever below is run on the gold file."),
    retriever: str | None = typer.Option(None, "--retriever", help=f"{RETRIEVERS.help()}; default bm25 (without --pred)."),
    task: str | None = typer.Option(None, "--task", help="hypothesis or evidence (default; without --pred)."),
    rerank: str | None = typer.Option(None, "--reranker", "--rerank", help=f"{RERANKERS.help()}; default none (without --pred)."),
    unit: str | None = typer.Option(None, "--units", "--unit", help="paragraph (default) or sentence (without --pred)."),
    include_abstract: bool = typer.Option(False, "--include-abstract", help="Retrieve from the abstract too (without --pred)."),
    cutoffs: str = typer.Option("1,3,5,10", "--cutoffs", help="Comma-separated cut-offs k for recall@k, hit@k and nDCG@k."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Score retrieval: recall@k, hit@k, MRR and nDCG@k; gold as unit ids or text spans matched by overlap."""
    from claimtrace.batch import read_jsonl
    from claimtrace.errors import ClaimtraceError, InputError
    from claimtrace.metrics import aggregate, scores_for

    run_opts = {"--retriever": retriever, "--task": task, "--reranker": rerank, "--units": unit,
                "--include-abstract": include_abstract or None}
    if pred is not None and any(v is not None for v in run_opts.values()):
        given = next(k for k, v in run_opts.items() if v is not None)
        fail(f"{given} only applies without --pred (it configures the retriever that is run)")
    if llm.given and rerank != "llm":
        fail("the LLM options only apply with --reranker llm")
    try:
        k = [int(x) for x in cutoffs.split(",") if x.strip()]
    except ValueError:
        fail(f"--cutoffs takes comma-separated integers, got {cutoffs!r}")
    items = read_jsonl(gold)
    for it in items:
        if not it.get("gold_units") and not it.get("gold_texts"):
            raise InputError(gold, f"item {it['id']}: no gold_units or gold_texts")
    ks = sorted(set(k))
    if not ks or ks[0] < 1:
        fail("-k must be positive")
    hits_by_id: dict[str, list[dict[str, Any]]] = {}
    errors: dict[str, str] = {}
    if pred is not None:
        if not pred.is_file():
            raise InputError(pred, "no such file")
        from claimtrace.jsonl import json_lines

        for _, row in json_lines(pred, pred.read_text(encoding="utf-8"), objects=True):
            if row.get("error"):
                errors[str(row.get("id"))] = str(row["error"])
            hits_by_id[str(row.get("id"))] = list(row.get("hits") or [])
    else:
        from claimtrace.retrieval.pipeline import RetrievalPipeline

        opts: dict[str, Any] = {}
        if rerank == "llm":
            settings = llm.settings()
            if not settings.configured("rerank"):
                fail("--reranker llm needs an LLM: give --llm-base-url (or CLAIMTRACE_LLM_BASE_URL) or --llm-settings")
            lo.announce(settings, task="rerank")
            opts = {"settings": settings}
        pipe = RetrievalPipeline(retriever or "bm25", reranker=rerank or "none", unit=unit or "paragraph",  # type: ignore[arg-type]
                                 include_abstract=include_abstract, task=task or "evidence", reranker_options=opts)
        for it in items:
            try:
                if not it.get("doc") or not it.get("query"):
                    raise ClaimtraceError("needs 'doc' and 'query' to run retrieval")
                found = pipe.retrieve(it["doc"], str(it["query"]), max(ks))
                hits_by_id[it["id"]] = [h.model_dump(mode="json") for h in found]
            except ClaimtraceError as exc:
                errors[it["id"]] = str(exc)
    rows = []
    for it in items:
        hits = hits_by_id.get(it["id"], [])
        rows.append(scores_for(hits, it.get("gold_units") or [], it.get("gold_texts") or [], ks))
    missing = sum(1 for it in items if it["id"] not in hits_by_id)
    metrics = aggregate(rows)
    result: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "queries": len(items), "missing": missing, "errors": len(errors),
              "metrics": metrics}
    if json_out:
        print_json(result)
        return
    con = stdout_console()
    con.print(f"{len(items)} queries ({missing} without output, {len(errors)} errors)")
    for name, val in metrics.items():
        con.print(f"  {name:<10} {val:.3f}")
