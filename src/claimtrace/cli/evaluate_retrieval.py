"""``claimtrace evaluate retrieval``: recall@k, MRR and nDCG@k of retrieval output against gold units."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from claimtrace.cli.common import fail, print_json, stdout_console
from claimtrace.cli.evaluate import evaluate_app


@evaluate_app.command("retrieval")
def evaluate_retrieval(
    gold: Path = typer.Argument(..., help='JSONL: {"id", "doc", "query", "gold_units": [ids] and/or "gold_texts": [spans]}.'),
    pred: Path | None = typer.Option(None, "--pred", help="Output of `claimtrace retrieve --batch` to score; "
                                     "without it the retriever below is run on the gold file."),
    retriever: str = typer.Option("bm25", "--retriever", help="bm25, dense, hybrid, finetuned:DIR (without --pred)."),
    task: str = typer.Option("evidence", "--task"),
    rerank: str = typer.Option("none", "--rerank", help="none, cross-encoder:PATH or llm (without --pred)."),
    unit: str = typer.Option("paragraph", "--unit", help="paragraph or sentence (without --pred)."),
    include_abstract: bool = typer.Option(False, "--include-abstract"),
    k: list[int] = typer.Option([1, 3, 5, 10], "-k", help="Cut-offs (repeatable)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Score retrieval: recall@k, hit@k, MRR and nDCG@k; gold as unit ids or text spans matched by overlap."""
    from claimtrace.batch import read_jsonl
    from claimtrace.errors import ClaimtraceError, InputError
    from claimtrace.retrieval.metrics import aggregate, scores_for

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
        for lineno, line in enumerate(pred.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise InputError(pred, f"line {lineno}: invalid JSON") from None
            if row.get("error"):
                errors[str(row.get("id"))] = str(row["error"])
            hits_by_id[str(row.get("id"))] = list(row.get("hits") or [])
    else:
        from claimtrace.retrieval.pipeline import RetrievalPipeline

        pipe = RetrievalPipeline(retriever, reranker=rerank, unit=unit, include_abstract=include_abstract,  # type: ignore[arg-type]
                                 task=task)
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
    result: dict[str, Any] = {"schema_version": "1.0", "queries": len(items), "missing": missing, "errors": len(errors),
              "metrics": metrics}
    if json_out:
        print_json(result)
        return
    con = stdout_console()
    con.print(f"{len(items)} queries ({missing} without output, {len(errors)} errors)")
    for name, val in metrics.items():
        con.print(f"  {name:<10} {val:.3f}")
