"""PDF table readers against JATS twins: cell-level precision and recall. Writes bench/results/pdf_tables.json.

../shared has no publisher PDF whose tables have a JATS/TEI/HTML twin with cells (the statcheck test
papers' HTML has no tables; the s2orc PDFs' GROBID TEI tables are empty or GROBID's own reading). So the
PDFs here are typeset by this script from real JATS tables of the shared, openly licensed PMC articles
(documents/ and EI validation): each table on its own page under a paragraph of the article's text and the
caption, in two styles: ``ruled`` (every cell boxed) and ``booktabs`` (three horizontal rules, no vertical
ones: the usual regression-table style). Text is real PDF text (matplotlib, TrueType fonts). This measures
the readers on known layouts; publisher PDFs are harder (and not measured here).

Tables taken: no row/column spans, 3-16 rows, 2-7 columns, cells of at most 28 characters, one header row,
at least 60% of cells filled, at most two per article; the first 14 in path order. Cell precision/recall: the multiset of non-empty cell texts (whitespace and
dashes normalised) a reader returns vs the twin's. Each reader runs through
claimtrace.documents.readers.pdf_tables.read_pdf_tables with the caption given, as in the PDF reader.

    .venv/bin/python bench/pdf_tables.py
"""

from __future__ import annotations

import glob
import io
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import Run

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
OUT = REPO / "bench" / "results" / "pdf_tables.json"
READERS = ("pdfplumber-lines", "pdfplumber-text", "camelot-stream", "camelot-lattice", "auto")
W, H = 612.0, 792.0
FONT = 8.0


def norm(s: str | None) -> str:
    """Cell text for matching: dashes/minus unified, whitespace removed."""
    return re.sub(r"\s+", "", re.sub(r"[\u2212\u2013\u2014]", "-", s or ""))


def pick_tables(limit: int = 14) -> list[tuple[str, object, str]]:
    """(file, table, a body paragraph) for the first simple tables of the shared JATS articles."""
    from claimtrace.documents import load_document

    files = sorted(glob.glob(str(SHARED / "documents/**/*.nxml"), recursive=True)) + \
        sorted(glob.glob(str(SHARED / "evidence-inference/validation/articles/*.nxml")))
    out: list[tuple[str, object, str]] = []
    for f in files:
        d = load_document(f)
        for t in d.tables:
            if any(c.rowspan > 1 or c.colspan > 1 for c in t.cells) or t.header_rows != 1:
                continue
            if not (3 <= t.n_rows <= 16 and 2 <= t.n_cols <= 7) or any(len(c.text) > 28 for c in t.cells):
                continue
            if sum(bool(c.text.strip()) for c in t.cells) < 0.6 * t.n_rows * t.n_cols:
                continue
            para = next((p.text for p in d.paragraphs if len(p.text) > 300), "")
            out.append((f, t, para))
            if sum(x[0] == f for x in out) >= 2:
                break  # at most two tables per article
        if len(out) >= limit:
            break
    return out


def render(t: object, para: str, style: str) -> tuple[bytes, tuple[float, float]]:
    """A one-page PDF: a paragraph, the caption, and the table in ``ruled`` or ``booktabs`` style."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    grid = [[""] * t.n_cols for _ in range(t.n_rows)]  # type: ignore[attr-defined]
    for c in t.cells:  # type: ignore[attr-defined]
        grid[c.row - 1][c.col - 1] = c.text
    widths = [max(30.0, max(len(grid[r][c]) for r in range(len(grid))) * FONT * 0.55 + 14) for c in range(len(grid[0]))]
    scale = min(1.0, (W - 100) / sum(widths))
    widths = [w * scale for w in widths]
    fig = plt.figure(figsize=(W / 72, H / 72))

    def text(x: float, y: float, s: str, size: float = FONT, weight: str = "normal") -> None:
        fig.text(x / W, 1 - y / H, s, fontsize=size, family="DejaVu Sans", weight=weight, va="baseline")

    def hline(x0: float, x1: float, y: float, lw: float = 0.6) -> None:
        fig.add_artist(Line2D([x0 / W, x1 / W], [1 - y / H, 1 - y / H], lw=lw, color="black"))

    def vline(x: float, y0: float, y1: float) -> None:
        fig.add_artist(Line2D([x / W, x / W], [1 - y0 / H, 1 - y1 / H], lw=0.6, color="black"))

    y = 60.0
    for line in textwrap.wrap(para, 105)[:8]:
        text(50, y, line, 9)
        y += 12
    y += 14
    cap_top = y - 9
    text(50, y, f"{t.label or 'Table'}. {(t.caption or '')[:90]}", 9, "bold")  # type: ignore[attr-defined]
    cap_bottom = y + 3
    y += 16
    row_h = 14.0
    x0, x1 = 50.0, 50.0 + sum(widths)
    top = y
    hline(x0, x1, top, 1.0 if style == "booktabs" else 0.6)
    for r, row in enumerate(grid):
        base = top + (r + 1) * row_h - 4
        x = x0
        for c, cell in enumerate(row):
            text(x + 5, base, cell, FONT, "bold" if r == 0 else "normal")
            x += widths[c]
        if style == "ruled" or r == 0:
            hline(x0, x1, top + (r + 1) * row_h)
    bottom = top + len(grid) * row_h
    hline(x0, x1, bottom, 1.0 if style == "booktabs" else 0.6)
    if style == "ruled":
        x = x0
        for w in [0.0, *widths]:
            x += w
            vline(x, top, bottom)
    buf = io.BytesIO()
    fig.savefig(buf, format="pdf")
    plt.close(fig)
    return buf.getvalue(), (cap_top, cap_bottom)


def score(gold: list[str], got: list[str]) -> tuple[int, int, int]:
    """(matched, returned, gold) over multisets of normalised non-empty cell texts."""
    g = Counter(norm(x) for x in gold if norm(x))
    p = Counter(norm(x) for x in got if norm(x))
    return sum((g & p).values()), sum(p.values()), sum(g.values())


def main() -> None:
    """Render the twins, run every reader, write the result file."""
    from claimtrace.documents.readers.pdf_tables import Caption, read_pdf_tables

    picked = pick_tables()
    run = Run(data=[f for f, _, _ in picked])
    per: dict[str, dict[str, list[dict[str, object]]]] = {r: {"ruled": [], "booktabs": []} for r in READERS}
    for f, t, para in picked:
        gold = [c.text for c in t.cells]  # type: ignore[attr-defined]
        for style in ("ruled", "booktabs"):
            data, (ct, cb) = render(t, para, style)
            cap = Caption(page=1, label=t.label or "Table 1", text=t.caption or "", top=ct, bottom=cb)  # type: ignore[attr-defined]
            for reader in READERS:
                t0 = time.perf_counter()
                try:
                    found = read_pdf_tables(data, [cap], reader)
                    err = None
                except Exception as exc:  # a reader that fails is recorded, not fatal
                    found, err = [], f"{type(exc).__name__}: {exc}"
                secs = time.perf_counter() - t0
                got = \
                    [c.text for row in (found[0].rows if found else []) for c in row]
                m, p, g = score(gold, got)
                per[reader][style].append({"file": str(Path(f).relative_to(SHARED)), "table": t.id,  # type: ignore[attr-defined]
                                           "tables_found": len(found), "matched": m, "returned": p, "gold": g,
                                           "seconds": round(secs, 3), "error": err})
    summary: dict[str, dict[str, object]] = {}
    for reader in READERS:
        summary[reader] = {}
        for style in ("ruled", "booktabs"):
            rows = per[reader][style]
            m = sum(int(r["matched"]) for r in rows)  # type: ignore[call-overload]
            p = sum(int(r["returned"]) for r in rows)  # type: ignore[call-overload]
            g = sum(int(r["gold"]) for r in rows)  # type: ignore[call-overload]
            summary[reader][style] = {
                "tables": len(rows), "tables_found": sum(bool(r["tables_found"]) for r in rows),
                "cell_precision": round(m / p, 4) if p else None, "cell_recall": round(m / g, 4) if g else None,
                "gold_cells": g, "median_seconds": round(statistics.median(float(r["seconds"]) for r in rows), 3),  # type: ignore[arg-type]
                "errors": sum(r["error"] is not None for r in rows)}
    result = {"schema_version": "1",
              "what": "PDF table readers vs JATS twins (PDFs typeset by this script from real PMC JATS tables)",
              "tables": len(picked), "summary": summary, "per_table": per, "provenance": run.finish()}
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
