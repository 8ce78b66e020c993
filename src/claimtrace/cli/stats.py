"""``claimtrace stats``: find, parse and check every statistical result in a paper (or stdin text)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from claimtrace.api import analyze_statistics, analyze_text
from claimtrace.cli import app
from claimtrace.cli.common import BatchOut, batch_progress, fail, only_with, print_json, stdout_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.errors import InputError
from claimtrace.stats.model import SCHEMA_VERSION, DocumentStat

RECORD_FIELDS = (
    "scope", "unit_id", "section", "text", "start", "end", "kind", "test", "test_text", "test_detail",
    "df1", "df2", "value", "p_comparison", "p_value", "one_tailed", "ci_level", "ci_low", "ci_high", "se",
    "n", "effects", "descriptives", "computed_p", "consistent", "decision_error", "significant",
    "ci_consistent", "ci_p_consistent", "flags", "repaired", "spans",
)


# the API functions are the code this command runs: ``claimtrace stats`` and the API cannot disagree
stats_for_text = analyze_text
stats_for_file = analyze_statistics


def file_results(path: str, *, alpha: float = 0.05) -> tuple[list[DocumentStat], list[dict[str, Any]]]:
    """Prose results and table results (``source: "table"``, cells named) of a paper, parsed once."""
    from claimtrace.documents import load_document

    doc = load_document(path)
    results = analyze_statistics(doc, alpha=alpha)
    if not doc.tables:  # nothing to read: the table reader (and its patterns) stays unimported
        return results, []
    from claimtrace.stats.tables import document_table_statistics

    return results, [t.model_dump(mode="json") for t in document_table_statistics(doc)]


def table_summary(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Counts over table results: coefficients, checked, inconsistent, model N/R² facts."""
    coef = [r for r in rows if r["kind"] == "coefficient"]
    return {"results": len(coef), "checked": sum(r["consistent"] is not None for r in coef),
            "inconsistent": sum(r["consistent"] is False for r in coef),
            "model_facts": len(rows) - len(coef)}


def records(results: list[DocumentStat]) -> list[dict[str, Any]]:
    """The JSON records of ``--json`` (one per result)."""
    out = []
    for r in results:
        d = r.model_dump(mode="json")
        out.append({k: d.get(k) for k in RECORD_FIELDS})
    return out


def summary(results: list[DocumentStat]) -> dict[str, int]:
    """Counts: results, checked, inconsistencies, decision errors."""
    return {
        "results": len(results),
        "checked": sum(r.consistent is not None for r in results),
        "inconsistent": sum(r.consistent is False for r in results),
        "decision_errors": sum(bool(r.decision_error) for r in results),
        "ci_inconsistent": sum(r.ci_consistent is False or r.ci_p_consistent is False for r in results),
    }


def _span(r: DocumentStat, name: str, fallback: float | None) -> str:
    if name in r.spans:
        return r.spans[name].text
    return f"{fallback:g}" if fallback is not None else "?"


def _groups(r: DocumentStat) -> str:
    """Group descriptives as written: ``40/57 (70%) vs 19/58 (33%)``."""
    groups: list[str] = []
    for d in r.descriptives:
        if d.kind == "percent" and groups and "/" in groups[-1] and "(" not in groups[-1]:
            groups[-1] += f" ({d.text})"
        elif d.kind in ("count", "percent", "mean", "median"):
            groups.append(d.text)
    return " vs ".join(groups[:4])


def compact_result(r: DocumentStat) -> str:
    """The statistic as a short cell: ``t(28) = 2.20, p = .03``; ``40/57 (70%) vs 19/58 (33%), p < .001``."""
    parts: list[str] = []
    if r.test:
        name = r.test_text or r.test
        dfs = ", ".join(f"{d:g}" for d in (r.df1, r.df2) if d is not None)
        head = f"{name}({dfs})" if dfs else name
        parts.append(f"{head} {r.comparison or '='} {_span(r, 'value', r.value)}")
    elif r.descriptives:
        groups = _groups(r)
        if groups:
            parts.append(groups)
    if r.ci_low is not None and r.ci_high is not None:
        level = f"{r.ci_level:g}% " if r.ci_level else ""  # ci_level is a percentage (95.0)
        parts.append(f"{level}CI [{r.ci_low:g}, {r.ci_high:g}]")
    if r.p_comparison == "ns":
        parts.append("ns")
    elif r.p_comparison is not None:
        p_text = r.spans["p"].text if "p" in r.spans else (f"{r.p_value:g}" if r.p_value is not None else "?")
        parts.append(f"p {r.p_comparison} {p_text}")
    if not parts:
        text = " ".join(r.text.split())
        return text if len(text) <= 60 else "…" + text[-59:]
    return ", ".join(parts)


def _flag(r: DocumentStat) -> str:
    if r.decision_error:
        return "[bold red]decision error[/]"
    if r.consistent is False:
        return "[red]inconsistent[/]"
    if r.ci_consistent is False or r.ci_p_consistent is False:
        return "[yellow]CI mismatch[/]"
    if r.consistent:
        return "[green]ok[/]"
    return ""


def print_table(results: list[DocumentStat], source: str) -> None:
    """A readable table of results and a summary line."""
    from rich.markup import escape
    from rich.table import Table

    con = stdout_console()
    table = Table(title=f"Statistical results in {source}", show_lines=False)
    for col in ("section", "sentence", "result (as reported)", "recomputed p", "flag"):
        table.add_column(col, overflow="fold")
    for r in results:
        section = r.section or r.scope
        table.add_row(escape(section[:30]), r.unit_id or "", escape(compact_result(r)),
                      f"{r.computed_p:.4g}" if r.computed_p is not None else "", _flag(r))
    con.print(table)
    s = summary(results)
    con.print(f"{s['results']} results found, {s['checked']} checked, {s['inconsistent']} inconsistent, "
              f"{s['decision_errors']} decision errors, {s['ci_inconsistent']} CI mismatches")


def _run(source: str, alpha: float) -> list[DocumentStat]:
    if source == "-":
        text = sys.stdin.read()
        if not text.strip():
            raise InputError("-", "empty input on stdin")
        return stats_for_text(text, alpha=alpha)
    return stats_for_file(source, alpha=alpha)


@app.command()
@with_reader_options()
def stats(
    source: str = typer.Argument(None, help="A paper (PDF, JATS, TEI, HTML, text, Markdown) or '-' for text on stdin."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON record per result."),
    batch: Path | None = typer.Option(None, "--batch", help='JSONL manifest: {"id", "doc"} or {"id", "text"} per line.'),
    out: BatchOut = None,
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level for decision errors."),
) -> None:
    """Find, parse and check every statistical result (t, F, chi2, r, z, Q, OR/HR/RR, CIs, p...)."""
    if not 0 < alpha < 1:
        raise InputError(None, f"--alpha must be between 0 and 1, got {alpha}")
    only_with("--out", out is not None, "--batch", batch is not None)
    if batch is not None:
        from claimtrace.batch import check_out_file, item_doc, item_text, read_jsonl, run_batch

        if source is not None:
            fail("give either FILE or --batch, not both")
        check_out_file(out)
        items = read_jsonl(batch)

        def one(item: dict[str, Any]) -> dict[str, Any]:
            text = item_text(item)
            if text is not None and item.get("doc") is None:
                res = stats_for_text(text, alpha=alpha)
                return {"schema_version": SCHEMA_VERSION, "doc": None, "summary": summary(res),
                        "results": records(res), "table_summary": table_summary([]), "table_results": []}
            doc = item_doc(item, batch)
            res, tab = file_results(str(doc), alpha=alpha)
            return {"schema_version": SCHEMA_VERSION, "doc": doc, "summary": summary(res),
                    "results": records(res), "table_summary": table_summary(tab), "table_results": tab}

        counts = run_batch(items, one, out=out, desc="stats", progress=batch_progress("stats"))
        if counts["failed"]:
            raise SystemExit(1)
        return
    if source is None:
        raise InputError(None, "give a FILE, '-' for stdin, or --batch FILE.jsonl")
    tab: list[dict[str, Any]] = []
    if source == "-":
        results = _run(source, alpha)
    else:
        results, tab = file_results(source, alpha=alpha)
    if json_out:
        print_json({"schema_version": SCHEMA_VERSION, "source": source, "alpha": alpha,
                    "summary": summary(results), "results": records(results),
                    "table_summary": table_summary(tab), "table_results": tab})
    else:
        print_table(results, "stdin" if source == "-" else Path(source).name)
        if tab:
            print_table_results(tab)


def _fmt_p(cmp: str | None, p: float | None) -> str:
    if cmp is None:
        return ""
    if cmp == "ns":
        return "ns"
    return f"{cmp} {p:.4g}" if p is not None else cmp


def print_table_results(rows: list[dict[str, Any]]) -> None:
    """The results read from tables (marked as such), with their cells."""
    from rich.markup import escape
    from rich.table import Table

    con = stdout_console()
    table = Table(title="Results from tables", show_lines=False)
    for col in ("cells", "row", "column", "cell text", "p (stars/column)", "recomputed p", "flag"):
        table.add_column(col, overflow="fold")
    for r in rows:
        if r["kind"] != "coefficient":
            continue
        flag = {True: "[green]ok[/]", False: "[red]inconsistent[/]"}.get(r["consistent"], "")
        table.add_row(",".join(r["cell_ids"]), escape((r["row_label"] or "")[:30]), escape((r["column"] or "")[:30]),
                      escape(r["text"]), _fmt_p(r["p_comparison"], r["p_value"]),
                      f"{r['computed_p']:.4g}" if r["computed_p"] is not None else "", flag)
    con.print(table)
    s = table_summary(rows)
    con.print(f"{s['results']} table results, {s['checked']} checked, {s['inconsistent']} inconsistent, "
              f"{s['model_facts']} model facts (N, R²)")
