"""``claimtrace parse``: read papers into Documents (outline, JSON, or one JSON per paper)."""

from __future__ import annotations

import glob
import logging
from collections import Counter
from pathlib import Path

import typer

from claimtrace.cli import app
from claimtrace.cli.common import check_out_dir, fail, print_json, stderr_console, stdout_console
from claimtrace.cli.reader_options import with_reader_options
from claimtrace.documents import Document, load_document
from claimtrace.documents.readers import DEFAULT_MAX_BYTES
from claimtrace.errors import ClaimtraceError

log = logging.getLogger(__name__)

_SUFFIXES = {".nxml", ".xml", ".pdf", ".html", ".htm", ".txt", ".md", ".markdown", ".tei", ".docx"}


@app.command()
@with_reader_options()
def parse(
    path: str = typer.Argument(..., help="A paper (PDF, JATS/NLM XML, GROBID TEI, HTML, DOCX, text, Markdown), a folder or a glob."),
    json_out: bool = typer.Option(False, "--json", help="Print the Document as JSON (with --out: a JSON summary)."),
    out: Path | None = typer.Option(None, "--out", help="A folder: one JSON Document per paper (NAME.json) is written there."),
    max_bytes: int = typer.Option(DEFAULT_MAX_BYTES, "--max-bytes", help="Refuse files larger than this."),
) -> None:
    """Parse papers into the Document model and print an outline (or JSON)."""
    files = _expand(path)
    if out is None:
        if len(files) != 1:
            fail(f"{path}: {len(files)} files matched; give --out DIR to parse several")
        doc = load_document(files[0], max_bytes=max_bytes)
        _warn(doc)
        if json_out:
            print_json(doc)
        else:
            print_outline(doc)
        return
    check_out_dir(out)
    failures: list[str] = []
    from rich.progress import Progress

    with Progress(console=stderr_console()) as prog:
        task = prog.add_task("parsing", total=len(files))
        for f in files:
            try:
                doc = load_document(f, max_bytes=max_bytes)
                (out / f"{Path(f).name}.json").write_text(doc.model_dump_json(), encoding="utf-8")
            except ClaimtraceError as exc:
                failures.append(str(exc))
            except Exception as exc:  # record and go on: a batch loses nothing already done
                failures.append(f"{f}: {type(exc).__name__}: {exc}")
            prog.advance(task)
    for msg in failures:
        log.error(f"{msg}")
    log.info(f"parsed {len(files) - len(failures)} of {len(files)} files into {out}; {len(failures)} failed")
    if json_out:
        print_json({"parsed": len(files) - len(failures), "failed": len(failures), "errors": failures})
    if failures:
        raise SystemExit(1)


def _expand(path: str) -> list[str]:
    p = Path(path)
    if p.is_dir():
        files = sorted(str(f) for f in p.iterdir() if f.is_file() and f.suffix.lower() in _SUFFIXES)
        if not files:
            fail(f"{path}: no papers in this folder")
        return files
    if any(ch in path for ch in "*?["):
        files = sorted(f for f in glob.glob(path, recursive=True) if Path(f).is_file())
        if not files:
            fail(f"{path}: no file matches")
        return files
    return [path]


def _warn(doc: Document) -> None:
    for w in doc.warnings:
        log.warning(f"{doc.source.path}: {w}")


def print_outline(doc: Document) -> None:
    """Print a readable outline of a Document."""
    con = stdout_console()
    con.print(f"[bold]{doc.title or '(no title)'}[/bold]")
    con.print(f"source: {doc.source.path} ({doc.source.format}), id {doc.id[:16]}")
    if doc.authors:
        con.print("authors: " + ", ".join(doc.authors[:8]) + (" ..." if len(doc.authors) > 8 else ""))
    n_abs = sum(len(s.sentences) for s in doc.abstract)
    con.print(f"\n[bold]Abstract[/bold] ({len(doc.abstract)} sections, {n_abs} sentences)")
    for sec in doc.abstract:
        con.print(f"  {sec.label or '-':<14} {len(sec.sentences):>3} sentences  {_short(sec.text)}")
    n_sent = sum(len(p.sentences) for p in doc.paragraphs)
    con.print(f"\n[bold]Body[/bold] ({len(doc.paragraphs)} paragraphs, {n_sent} sentences, {len(doc.body_text):,} characters)")
    sections: list[tuple[str, str, int]] = []
    for par in doc.paragraphs:
        name = par.section or "(no heading)"
        if sections and sections[-1][0] == name:
            sections[-1] = (name, par.section_kind, sections[-1][2] + 1)
        else:
            sections.append((name, par.section_kind, 1))
    for name, kind, count in sections:
        con.print(f"  {kind:<12} {count:>3} paragraphs  {_short(name, 70)}")
    if doc.tables:
        con.print(f"\n[bold]Tables[/bold] ({len(doc.tables)})")
        for t in doc.tables:
            con.print(f"  {t.id:<4} {_short(t.label or '-', 14):<14} {t.n_rows:>3}x{t.n_cols:<3} "
                      f"{t.header_rows} header row(s){', stub' if t.stub_column else ''}  {_short(t.caption or '', 50)}")
    counts = Counter(b.kind for b in doc.excluded)
    con.print(f"\n[bold]Excluded[/bold] ({len(doc.excluded)} blocks)")
    for kind, count in sorted(counts.items()):
        con.print(f"  {kind:<16} {count:>3}")


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
