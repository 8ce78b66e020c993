"""``claimtrace extract``: finding -> hypothesis -> statistical evidence for a paper (or a batch manifest)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import BatchOut, batch_progress, fail, print_json, stdout_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.errors import ClaimtraceError
from claimtrace.extract.config import PRESETS
from claimtrace.extract.model import SCHEMA_VERSION, ClaimTrace
from claimtrace.specs import EXTRACTORS, RERANKERS, RETRIEVERS

#: evidence units of the embedded extractor by default (measured on EI validation: docs/tables.md)
DEFAULT_UNITS = "sentences,table-rows"


def _make_extractor(name: str | None, *, max_evidence_sentences: int, similarity: str,
                    retriever: str, reranker: str | None, settings: Any, table_rows: bool = False) -> Any:
    from claimtrace.extract.context import ContextSelector

    selector = ContextSelector(retriever_spec=retriever, reranker_spec=reranker)
    if name is None:
        name = "llm" if settings.configured("extraction") else "embedded"
    if name not in EXTRACTORS:
        raise ClaimtraceError(f"unknown extractor {name!r}; choose {EXTRACTORS.expected()}")
    if name == "llm":
        from claimtrace.extract.llm_extractor import LLMExtractor
        from claimtrace.llm import LLMClient

        lo.announce(settings, task="extraction")
        client = LLMClient(settings)
        if reranker is None:  # the LLM's rerank configurations use RankGPT with the same LLM
            selector.reranker_spec, selector.llm_client = "llm", client
        return LLMExtractor(client, selector=selector, max_evidence_sentences=max_evidence_sentences)
    from claimtrace.extract.embedded import EmbeddedExtractor

    return EmbeddedExtractor(similarity=similarity, max_evidence_sentences=max_evidence_sentences, selector=selector,
                             table_rows=table_rows)


@app.command()
@lo.with_llm_options()
@with_reader_options()
def extract(
    paper: str | None = typer.Argument(None, help="A paper (PDF, JATS XML, TEI, HTML, text, Markdown)."),
    finding: list[str] = typer.Option([], "--finding", help="A finding to trace (repeatable); default: detect them in the abstract."),
    hypothesis: str | None = typer.Option(None, "--hypothesis", help="The hypothesis (skips stage 1; needs exactly one --finding, or uses it as the finding)."),
    config: str | None = typer.Option(None, "--config", help=f"Context configuration: {', '.join(PRESETS)} (default: the settings' extract.config, else the extractor's)."),
    extractor: str | None = typer.Option(None, "--extractor", help=f"{EXTRACTORS.help()} (default: the settings' extract.extractor, else llm when one is configured)."),
    max_evidence_sentences: int | None = typer.Option(None, "--max-evidence-sentences", min=1, help="Longest evidence span in sentences (default: extract.max_evidence_sentences, else 3)."),
    similarity: str | None = typer.Option(None, "--similarity", help="Embedded extractor similarity: bm25, dense or hybrid (default: extract.similarity, else bm25)."),
    units: str = typer.Option(DEFAULT_UNITS, "--units", help="Evidence units of the embedded extractor: sentences, optionally with table-rows (docs/tables.md)."),
    retriever: str | None = typer.Option(None, "--retriever", help=f"Retriever for rag-* configurations: {RETRIEVERS.help()} (default: extract.retriever, else hybrid)."),
    reranker: str | None = typer.Option(None, "--reranker", help=f"Reranker for rag-rerank/finetuned-rerank: {RERANKERS.help()} (the LLM extractor's default: llm; the embedded one's: finetuned:<models dir>/ei-evidence after hybrid; after the fine-tuned retriever, the RRF of BM25 and that retriever over the M candidates)."),
    json_out: bool = typer.Option(False, "--json", help="Print the traces as JSON."),
    batch: Path | None = typer.Option(None, "--batch", help='JSONL manifest: {"id", "doc" or "text", "findings"?, "config"?} per line.'),
    out: BatchOut = None,
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Trace findings to the paper's core hypothesis and the statistical evidence that tests it."""
    from claimtrace.documents import load_document
    from claimtrace.extract.pipeline import FindingInput, extract_traces, parse_findings

    if config is not None and config not in PRESETS:
        fail(f"unknown --config {config!r}; choose one of: {', '.join(PRESETS)}")
    if similarity is not None and similarity not in ("bm25", "dense", "hybrid"):
        fail(f"unknown --similarity {similarity!r}; choose bm25, dense or hybrid")
    try:  # the registry's spellings (claimtrace.specs), checked before any paper is read
        given = {"config": config, "extractor": EXTRACTORS.parse(extractor) if extractor is not None else None,
                 "similarity": similarity,
                 "max_evidence_sentences": max_evidence_sentences,
                 "retriever": RETRIEVERS.parse(retriever) if retriever is not None else None,
                 "reranker": RERANKERS.parse(reranker) if reranker is not None else None}
    except ClaimtraceError as exc:
        fail(str(exc))
    # the options given, over CLAIMTRACE_EXTRACT__*, the settings file's [extract] and the defaults
    section = llm.load(extract=given).extract
    config = section.config
    extractor = str(section.extractor) if section.extractor is not None else None
    similarity, max_evidence_sentences = section.similarity, section.max_evidence_sentences
    retriever = str(section.retriever)
    reranker = str(section.reranker) if section.reranker is not None else None
    from claimtrace.retrieval.units import parse_units

    try:
        kinds = parse_units(units)
    except ClaimtraceError as exc:
        fail(f"--units: {exc}")
    if "sentence" not in kinds or "paragraph" in kinds or "row-group" in kinds or "figure-legend" in kinds:
        fail("--units: the extractor's evidence is sentences, optionally with table-rows (e.g. sentences,table-rows)")
    settings = llm.settings()
    if extractor == "llm" and llm.offline:
        fail("--extractor llm and --offline contradict each other")
    ex = _make_extractor(extractor, max_evidence_sentences=max_evidence_sentences, similarity=similarity,
                         retriever=retriever, reranker=reranker, settings=settings, table_rows="table-row" in kinds)
    if getattr(ex, "name", "") == "llm" and "table-row" in kinds and units != DEFAULT_UNITS:
        fail("--units table-rows applies to the embedded extractor only (the LLM reads paragraphs)")
    if batch is not None:
        if paper is not None:
            fail("give either PAPER or --batch, not both")
        if finding or hypothesis:
            fail("--batch takes the findings from its manifest: give no --finding or --hypothesis")
        from claimtrace.batch import check_out_file, item_paper, read_jsonl, run_batch
        from claimtrace.extract.llm_extractor import unreached_reason

        check_out_file(out)
        items = read_jsonl(batch)

        def one(item: dict[str, Any]) -> dict[str, Any]:
            paper = item_paper(item, batch)
            doc = load_document(paper) if isinstance(paper, str) else paper
            fnds = parse_findings(item.get("findings"), f"item {item['id']} findings")
            traces = extract_traces(doc, fnds or None, extractor=ex, config=item.get("config") or config,
                                    max_evidence_sentences=max_evidence_sentences)
            why = unreached_reason(traces)
            if why:  # the server, not the paper: a failed item, asked again when --out resumes
                raise ClaimtraceError(f"the LLM was not reached ({why}); run again with the same --out to resume")
            return {"schema_version": SCHEMA_VERSION, "doc": paper if isinstance(paper, str) else None,
                    "traces": [t.model_dump(mode="json") for t in traces]}

        counts = run_batch(items, one, out=out, desc="extracting", progress=batch_progress("extracting"))
        if counts["failed"]:
            raise SystemExit(1)
        return
    if paper is None:
        fail("give a PAPER or --batch MANIFEST.jsonl")
    if out is not None:
        fail("--out is for --batch; redirect stdout for a single paper")
    fnds = [FindingInput(text=f) for f in finding if f.strip()]
    if hypothesis:
        if len(fnds) > 1:
            fail("--hypothesis goes with exactly one --finding")
        fnds = [FindingInput(text=fnds[0].text if fnds else hypothesis, hypothesis=hypothesis)]
    doc = load_document(paper)
    traces = extract_traces(doc, fnds or None, extractor=ex, config=config, max_evidence_sentences=max_evidence_sentences)
    if json_out:
        print_json({"schema_version": SCHEMA_VERSION, "doc": paper, "doc_id": doc.id,
                    "traces": [t.model_dump(mode="json") for t in traces]})
    else:
        print_report(doc.title or paper, traces)


def _fmt_stat(r: dict[str, Any]) -> str:
    if r.get("source") == "table" and r.get("kind") in ("coefficient", "model_n", "model_r2"):
        flag = {True: "  [consistent]", False: "  [INCONSISTENT]"}.get(bool(r.get("consistent")), "") \
            if r.get("consistent") is not None else ""
        p = f", p {r['p_comparison']} {r['p_value']:g}" if r.get("p_value") is not None else ""
        cp = f", recomputed p = {r['computed_p']:.3g}" if r.get("computed_p") is not None else ""
        return f"table {','.join(r.get('cell_ids') or [])}: {r.get('text')}{p}{cp}{flag}"
    parts = []
    if r.get("test"):
        df = ", ".join(f"{d:g}" for d in (r.get("df1"), r.get("df2")) if d is not None)
        parts.append(f"{r['test']}" + (f"({df})" if df else "") + (f" {r.get('comparison') or '='} {r['value']:g}" if r.get("value") is not None else ""))
    if r.get("p_value") is not None:
        parts.append(f"p {r.get('p_comparison') or '='} {r['p_value']:g}")
    if r.get("ci_low") is not None and r.get("ci_high") is not None:
        parts.append(f"{(r.get('ci_level') or 0.95) * 100:g}% CI [{r['ci_low']:g}, {r['ci_high']:g}]")
    for e in r.get("effects") or []:
        parts.append(f"{e['measure']} = {e['value']:g}")
    if r.get("n") is not None:
        parts.append(f"N = {r['n']}")
    verdict = ""
    if r.get("consistent") is False:
        verdict = "  [INCONSISTENT" + (": decision error" if r.get("decision_error") else "") + \
            (f", recomputed p = {r['computed_p']:.3g}" if r.get("computed_p") is not None else "") + "]"
    elif r.get("consistent") is True:
        verdict = "  [consistent]"
    return (", ".join(parts) or r.get("text", "")) + verdict


def _where(span: Any) -> str:
    ids = span.sentence_ids
    loc = f"{ids[0]}" + (f"-{ids[-1]}" if len(ids) > 1 else "") if ids else "not located"
    if span.start is not None:
        loc += f", chars {span.start}-{span.end}"
    if span.page:
        loc += f", page {span.page}"
    if span.section:
        loc += f", {span.section}"
    if getattr(span, "cell_ids", None):
        loc += f", cells {', '.join(span.cell_ids)}"
    return loc


def print_report(title: str, traces: list[ClaimTrace]) -> None:
    """Print traces as a readable report: finding -> hypothesis -> evidence, numbers and flags."""
    from rich.markup import escape as esc

    con = stdout_console()
    title = esc(title)
    con.print(f"[bold]{title}[/bold]")
    if not traces:
        con.print("no findings to trace")
    for i, tr in enumerate(traces, 1):
        con.print(f"\n[bold]Finding {i}[/bold] ({tr.finding.sentence_id or tr.finding.source}): {esc(tr.finding.text)}")
        if tr.finding.how_chosen:
            con.print(f"  [dim]how chosen: {esc(tr.finding.how_chosen)}[/dim]")
        if tr.hypothesis is not None:
            h = tr.hypothesis
            con.print(f"  [bold]Hypothesis[/bold] ({esc(_where(h))}{f'; score {h.score:.2f}' if h.score is not None else ''}):")
            con.print(f"    {esc(h.text)}")
        else:
            con.print("  [bold]Hypothesis[/bold]: none found")
        if tr.evidence is not None:
            e = tr.evidence
            con.print(f"  [bold]Evidence[/bold] ({esc(_where(e))}; {len(e.sentence_ids)} sentence(s)):")
            con.print(f"    {esc(e.text)}")
            for r in e.statistics:
                con.print(f"    - {esc(_fmt_stat(r))}")
        else:
            con.print("  [bold]Evidence[/bold]: none found")
        for f in tr.flags:
            con.print(f"  [yellow]flag {f.code}[/yellow] ({f.stage}): {esc(f.message)}" + (f" quote: {esc(repr(f.quote))}" if f.quote else ""))
        con.print(f"  [dim]{tr.extractor} / {tr.configuration}" + (f" / {tr.model}" if tr.model else "") +
                  f"; {sum(tr.timings.values()):.2f} s[/dim]")
