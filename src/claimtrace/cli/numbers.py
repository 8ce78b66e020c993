"""``claimtrace numbers``: per-arm numbers for one ICO in a paper, effect sizes with CIs, flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claimtrace.api import extract_numbers
from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import BatchOut, JsonResult, batch_progress, fail, print_json, stdout_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.documents import Document
from claimtrace.errors import InputError
from claimtrace.llm import LLMClient
from claimtrace.numbers.model import NumbersResult

EXTRACTORS = ("offline", "llm")


def _run(doc_path: str | Document, intervention: str, comparator: str, outcome: str,
         client: LLMClient | None) -> NumbersResult:
    """The API's ``extract_numbers``, the one code path of this command."""
    return extract_numbers(doc_path, intervention=intervention, comparator=comparator, outcome=outcome, llm=client)


@app.command()
@lo.with_llm_options(offline=False)
@with_reader_options()
def numbers(
    paper: str = typer.Argument(None, help="A paper (JATS or rct-numeric fragment, TEI, PDF, HTML, text)."),
    intervention: str | None = typer.Option(None, "--intervention", help="The intervention arm."),
    comparator: str | None = typer.Option(None, "--comparator", help="The comparator arm."),
    outcome: str | None = typer.Option(None, "--outcome", help="The outcome."),
    extractor: str = typer.Option("offline", "--extractor", help="offline (rules, default) or llm (checked numbers)."),
    json_out: JsonResult = False,
    batch: Path | None = typer.Option(
        None, "--batch", help='JSONL: {"id", "doc", "intervention", "comparator", "outcome"} per line.'),
    out: BatchOut = None,
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Per-arm events/group sizes or means/SDs for an ICO, with provenance, effect sizes (OR, RR, RD, MD, SMD) and flags."""
    if extractor not in EXTRACTORS:
        fail(f"unknown --extractor {extractor!r}; choose offline or llm")
    client = None
    if extractor == "llm":
        settings = llm.settings()
        if not settings.configured("extraction"):
            fail("--extractor llm needs an LLM (--llm-base-url/--llm-model or CLAIMTRACE_LLM_*)")
        from claimtrace.llm import LLMClient

        lo.announce(settings, task="extraction")
        client = LLMClient(settings)
    elif llm.given:
        fail("the --llm-* options apply only with --extractor llm")
    if batch is not None:
        if paper or any(v is not None for v in (intervention, comparator, outcome)):
            fail("give either PAPER with --intervention/--comparator/--outcome, or --batch, not both")
        from claimtrace.batch import read_jsonl, run_batch

        items = read_jsonl(batch)

        def one(item: dict[str, Any]) -> dict[str, Any]:
            doc = item.get("doc")
            if not isinstance(doc, str) or not doc:
                raise InputError(batch, f"item {item['id']}: needs a 'doc' path")
            q = {f: item.get(f) for f in ("intervention", "comparator", "outcome")}
            missing = [f for f, v in q.items() if not isinstance(v, str) or not v.strip()]
            if missing:
                raise InputError(batch, f"item {item['id']}: missing {', '.join(missing)}")
            return _run(doc, str(q["intervention"]), str(q["comparator"]), str(q["outcome"]), client).model_dump(mode="json")

        counts = run_batch(items, one, out=out, desc="numbers", progress=batch_progress("numbers"))
        if counts["failed"]:
            raise SystemExit(1)
        return
    if out is not None:
        fail("--out is for --batch")
    if not paper:
        fail("give a PAPER, or --batch FILE.jsonl")
    from claimtrace.documents import load_document

    document = load_document(paper)  # a bad path is reported before the missing options
    missing = [n for n, v in (("--intervention", intervention), ("--comparator", comparator), ("--outcome", outcome))
               if not v or not v.strip()]
    if missing:
        fail(f"missing {', '.join(missing)}")
    res = _run(document, intervention or "", comparator or "", outcome or "", client)
    if json_out:
        print_json(res)
    else:
        print_report(res)


def print_report(res: NumbersResult) -> None:
    """A readable report: outcome type, per-arm values with where they come from, effects, flags."""
    from rich.markup import escape as esc
    from rich.table import Table

    con = stdout_console()
    con.print(f"[bold]{esc(res.intervention)}[/] vs [bold]{esc(res.comparator)}[/] on [bold]{esc(res.outcome)}[/]"
              f" — outcome type: {res.outcome_type} ({res.extractor})")
    fields = ("events", "group_size") if res.outcome_type == "binary" else ("mean", "sd", "group_size")
    table = Table(show_lines=False)
    for col in ("arm", "field", "value", "from", "verbatim"):
        table.add_column(col, overflow="fold")
    for name, arm in res.arms.items():
        for f in fields:
            v = getattr(arm, f)
            if v is None:
                table.add_row(name, f, "[dim]not reported[/]", "", "")
                continue
            where = v.unit_id or (f"{v.table} r{v.row} c{v.col}" if v.table else "")
            src = f"{v.source} {where}" + (f" ({v.derived})" if v.derived else "")
            table.add_row(name, f, f"{v.value:g}", esc(src), esc(v.text[:60]))
    con.print(table)
    for e in res.effects:
        con.print(f"  {e.measure}: {e.value:.3f} (95% CI {e.ci_low:.3f} to {e.ci_high:.3f})  [dim]{esc(e.method)}[/]")
    if not res.effects:
        con.print("  effect size: not computable (values not reported)")
    for f in res.flags:
        con.print(f"  [yellow]flag:[/] {f}")
    for n in res.notes:
        con.print(f"  [dim]{esc(n)}[/]")
