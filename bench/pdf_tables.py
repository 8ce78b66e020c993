"""PDF table readers against JATS twins: cell-level precision and recall. Writes bench/results/pdf_tables.json.

../shared has no publisher PDF whose tables have a JATS/TEI/HTML twin with cells (the statcheck test
papers' HTML has no tables; the s2orc PDFs' GROBID TEI tables are empty or GROBID's own reading). So the
PDFs here are typeset by this script from real JATS tables of the shared, openly licensed PMC articles
(documents/ and EI validation): each table on its own page under a paragraph of the article's text and the
caption, in two styles: ``ruled`` (every cell boxed) and ``booktabs`` (three horizontal rules, no vertical
ones: the usual regression-table style). Text is real PDF text (matplotlib, TrueType fonts). This measures
the readers on known layouts (the *synthetic* rows).

Real PDF tables (the *real* rows): every table in the PDFs of ../shared (8: one in
documents/grobid/Wang-paperAVE2008.pdf, three in documents/s2orc-doc2json/2020.acl-main.207.pdf, four in
documents/s2orc-doc2json/N18-3011.pdf; the statcheck test papers and the other GROBID PDFs hold none), and the one
table of a publisher PDF shipped on PyPI (file2records 0.3.1: MDPI Polymers 2013, CC BY 3.0; its table page is
bench/data/pdfs/polymers-05-01258-p1265.pdf). None has a marked-up twin with cells (the s2orc TEI is GROBID's own
reading of the PDF: one garbled 2x2 table), and a search of PyPI, npm and Debian found no publisher PDF shipped with
its JATS or a person-made TEI (``bench/data/pdf-table-twin-search.json``, copied into the result). So the gold
is ``bench/data/pdf-tables-real.jsonl``: each table transcribed from page images by an LLM agent (Claude,
2026-12-01), not checked by a person. Each reader runs through the whole PDF reader (``load_document`` with
``CLAIMTRACE_PDF_TABLES`` set: caption detection, then the table reader); a gold table is paired with the tables
the reader labels with its label on its page. GROBID's TEI tables (s2orc-doc2json's ``.tei.xml``) are scored the
same way as one more row, paired by best cell overlap (they carry no labels). Cell texts are compared
case-folded, without whitespace or combining marks (small caps, "nDĈG"), dashes unified.

Tables taken: no row/column spans, 3-16 rows, 2-7 columns, cells of at most 28 characters, one header row,
at least 60% of cells filled, at most two per article; the first 14 in path order. Cell precision/recall: the multiset of non-empty cell texts (whitespace and
dashes normalised) a reader returns vs the twin's. Each reader runs through
claimtrace.documents.readers.pdf_tables.read_pdf_tables with the caption given, as in the PDF reader.

    .venv/bin/python bench/pdf_tables.py [--skip-synthetic]
    .venv/bin/python bench/pdf_tables.py --twin [--label TEXT] [--out PATH] [--development NOTE]

``--twin``: real typeset tables against a twin made from the authors' LaTeX source; writes
bench/results/pdf_tables_twin.json. The tables and their twins are made once by
``bench/pdf_twin_make.py`` (pandoc and Debian's r-cran-* packages, bench-time only) and committed: the table pages
(``bench/data/pdfs/twin/``), the twins (``bench/data/pdf-twins/*.xml``: JATS converted by pandoc from the
tabular the authors typed in the vignette's ``.Rnw``, not publisher JATS) and the manifest
(``bench/data/pdf-tables-twin.json``: source, version, sha256, licence, page, how the twin was made). This
script needs neither pandoc nor the packages.

Each reader runs through the whole PDF reader, as for the real rows above: ``load_document`` on
the table's page with ``CLAIMTRACE_PDF_TABLES`` set (caption detection, then the table reader); the twin is
paired with the tables the reader labels with the twin's label. Cell precision and recall over the multiset of
non-empty cell texts (``norm_real``: case-folded, no whitespace or accents, dashes unified),
pooled over the tables, with a 95% interval that resamples tables (bootstrap). The cell multiset does not see where
a cell went, so each table also counts its twin rows read exactly (``rows_matched``: a reader row with the same
non-empty cells in the same order). A twin cell's text is its words; a formula counts by its MathML text (not its
TeX).

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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import Run

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
OUT = REPO / "bench" / "results" / "pdf_tables.json"
TWIN_OUT = REPO / "bench" / "results" / "pdf_tables_twin.json"
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


REAL_GOLD = REPO / "bench" / "data" / "pdf-tables-real.jsonl"
TWIN_SEARCH = REPO / "bench" / "data" / "pdf-table-twin-search.json"


def pdf_path(rel: str) -> Path:
    """A gold table's PDF: ``bench/...`` in this repository, anything else under ../shared/data."""
    return REPO / rel if rel.startswith("bench/") else SHARED / rel


def norm_real(s: str | None) -> str:
    """Cell text of a real PDF table for matching: ``norm`` case-folded, without accents (combining marks or the
    spacing hat of "nDĈG" that a PDF sets as its own glyph)."""
    import unicodedata

    t = unicodedata.normalize("NFKD", norm(s).replace("\u2212", "-").replace("\u02c6", "").replace("^", ""))
    return "".join(ch for ch in t if not unicodedata.combining(ch)).casefold()


def score_real(gold: list[str], got: list[str]) -> tuple[int, int, int]:
    """(matched, returned, gold) over multisets of ``norm_real`` non-empty cell texts."""
    g = Counter(norm_real(x) for x in gold if norm_real(x))
    p = Counter(norm_real(x) for x in got if norm_real(x))
    return sum((g & p).values()), sum(p.values()), sum(g.values())


def _table_bootstrap(rows: list[dict[str, Any]], resamples: int = 5000) -> dict[str, list[float] | None]:
    """95% percentile intervals of pooled cell precision and recall, resampling tables (seeded)."""
    import random

    rng = random.Random(13)
    prec: list[float] = []
    rec: list[float] = []
    for _ in range(resamples if rows else 0):
        pick = [rows[rng.randrange(len(rows))] for _ in rows]
        m, p, g = (sum(int(r[k]) for r in pick) for k in ("matched", "returned", "gold"))
        if p:
            prec.append(m / p)
        if g:
            rec.append(m / g)

    def ci(xs: list[float]) -> list[float] | None:
        xs.sort()
        return [round(xs[int(0.025 * (len(xs) - 1))], 4), round(xs[int(0.975 * (len(xs) - 1))], 4)] if xs else None

    return {"cell_precision_ci95": ci(prec), "cell_recall_ci95": ci(rec)}


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    m, p, g = (sum(int(r[k]) for r in rows) for k in ("matched", "returned", "gold"))
    return {"tables": len(rows), "tables_found": sum(bool(r["tables_found"]) for r in rows),
            "cell_precision": round(m / p, 4) if p else None, "cell_recall": round(m / g, 4) if g else None,
            **_table_bootstrap(rows),
            "gold_cells": g, "returned_cells": p, "matched_cells": m, "errors": sum(r.get("error") is not None for r in rows)}


def load_with_reader(reader: str, path: Path) -> tuple[Any, str | None, float]:
    """A PDF read through the whole PDF reader with one table reader (``CLAIMTRACE_PDF_TABLES``): the document
    (None when the reader fails: recorded, not fatal), the error, and the seconds it took."""
    import os

    from claimtrace.documents import load_document

    before = os.environ.get("CLAIMTRACE_PDF_TABLES")
    os.environ["CLAIMTRACE_PDF_TABLES"] = reader
    t0 = time.perf_counter()
    try:
        return load_document(path), None, round(time.perf_counter() - t0, 3)
    except Exception as exc:  # a reader that fails is recorded, not fatal
        return None, f"{type(exc).__name__}: {exc}", round(time.perf_counter() - t0, 3)
    finally:
        if before is None:
            os.environ.pop("CLAIMTRACE_PDF_TABLES", None)
        else:
            os.environ["CLAIMTRACE_PDF_TABLES"] = before


def real_tables() -> dict[str, Any]:
    """Every reader (and GROBID's TEI) against the transcribed gold of the real tables (../shared's PDFs, bench/data/pdfs)."""
    from claimtrace.documents import load_document

    gold = [json.loads(x) for x in REAL_GOLD.read_text().splitlines() if x.strip()]
    pdfs = sorted({g["pdf"] for g in gold})
    per: dict[str, list[dict[str, Any]]] = {}
    seconds: dict[str, dict[str, float]] = {}
    for reader in READERS:
        per[reader], seconds[reader] = [], {}
        for pdf in pdfs:
            doc, err, seconds[reader][pdf] = load_with_reader(reader, pdf_path(pdf))
            tables = doc.tables if doc is not None else []
            for g in (x for x in gold if x["pdf"] == pdf):
                found = [t for t in tables if t.label == g["label"] and t.page == g["page"]]
                m, p, n = score_real([c for r in g["rows"] for c in r], [c.text for t in found for c in t.cells])
                per[reader].append({"pdf": pdf, "label": g["label"], "tables_found": len(found), "matched": m,
                                    "returned": p, "gold": n, "error": err})
            extra = [t for t in tables if (t.label, t.page) not in {(g["label"], g["page"]) for g in gold if g["pdf"] == pdf}]
            if extra:
                per[reader][-1].setdefault("note", f"{len(extra)} more table(s) on no gold table's page/label")
    grobid: list[dict[str, Any]] = []
    for pdf in pdfs:
        tei = pdf_path(pdf.replace(".pdf", ".tei.xml"))
        if not tei.is_file():
            continue
        tei_tables = [[c.text for c in t.cells] for t in load_document(tei).tables]
        for g in (x for x in gold if x["pdf"] == pdf):
            cells = [c for r in g["rows"] for c in r]
            best = max(range(len(tei_tables)), key=lambda i: score_real(cells, tei_tables[i])[0], default=None)
            got = tei_tables.pop(best) if best is not None and score_real(cells, tei_tables[best])[0] else []
            m, p, n = score_real(cells, got)
            grobid.append({"pdf": pdf, "label": g["label"], "tables_found": int(bool(got)), "matched": m, "returned": p, "gold": n})
    return {"gold": str(REAL_GOLD.relative_to(REPO)),
            "annotator": "an LLM agent (Claude, 2026-12-01), transcribed from page images, not checked by a person",
            "tables": len(gold), "pdfs": pdfs,
            "twin_search": json.loads(TWIN_SEARCH.read_text()),
            "summary": {r: _summary(rows) for r, rows in per.items()},
            "grobid_tei": {"what": "GROBID's TEI tables of the s2orc-doc2json twins (its own reading of the PDF), paired by "
                                   "best cell overlap", "summary": _summary(grobid), "per_table": grobid},
            "per_table": per, "seconds_per_pdf": seconds}


def main() -> None:
    """Render the twins, run every reader, write the result file."""
    import argparse

    from claimtrace.documents.readers.pdf_tables import Caption, read_pdf_tables

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--skip-synthetic", action="store_true", help="only the real tables (keeps the committed synthetic rows)")
    ap.add_argument("--real-out", type=Path, default=None,
                    help="with --skip-synthetic: write only the real rows to this file (e.g. another code version's)")
    ap.add_argument("--label", default="this branch", help="what code the real rows measure (recorded)")
    ap.add_argument("--twin", action="store_true", help="only the real tables with a LaTeX-source twin (see above)")
    ap.add_argument("--out", type=Path, default=None, help="with --twin: result file (default: pdf_tables_twin.json)")
    ap.add_argument("--development", default=None, metavar="NOTE",
                    help="with --twin: the readers were changed after seeing these tables: mark the rows development "
                         "data, saying why")
    args = ap.parse_args()
    if args.twin:
        twin(args)
        return
    picked = [] if args.skip_synthetic else pick_tables()
    run = Run(data=[*(f for f, _, _ in picked), REAL_GOLD, TWIN_SEARCH,
                    *(pdf_path(p) for p in sorted({json.loads(x)["pdf"] for x in REAL_GOLD.read_text().splitlines() if x.strip()}))])
    real = real_tables()
    real["label"] = args.label
    if args.skip_synthetic and args.real_out:
        args.real_out.write_text(json.dumps({"schema_version": "1", "real": real, "provenance": run.finish()}, indent=1) + "\n")
        print(json.dumps(real["summary"], indent=1))
        return
    if args.skip_synthetic:
        old = json.loads(OUT.read_text())
        old["real"] = real
        old.setdefault("synthetic_provenance", old.get("provenance"))
        old["provenance"] = run.finish()
        OUT.write_text(json.dumps(old, indent=1) + "\n")
        print(json.dumps(real["summary"], indent=1))
        return
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
    result = {"schema_version": "2",
              "what": "PDF table readers: synthetic rows vs JATS twins (PDFs typeset by this script from real PMC JATS "
                      "tables); real rows vs a transcribed gold of every table in ../shared's PDFs and of one CC BY publisher PDF shipped on PyPI",
              "tables": len(picked), "summary": summary, "per_table": per, "real": real, "provenance": run.finish()}
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


# ---------------------------------------------- real tables with a twin from the authors' LaTeX source (--twin)


def twin_cells(path: Path) -> list[str]:
    """The cell texts of a twin's one table (every ``th``/``td``, in document order)."""
    from lxml import etree

    from pdf_twin_make import cell_text

    return [cell_text(c) for c in etree.parse(str(path)).iter("th", "td")]


def twin_rows(path: Path) -> list[list[str]]:
    """The twin's rows: each row's cell texts in order (a spanning cell once)."""
    from lxml import etree

    from pdf_twin_make import cell_text

    return [[cell_text(c) for c in tr.iter("th", "td")] for tr in etree.parse(str(path)).iter("tr")]


def rows_matched(gold: list[list[str]], got: list[list[str]]) -> tuple[int, int]:
    """(twin rows read exactly, twin rows): a row is read exactly when a row of the reader's table has the same
    non-empty cells in the same order (``norm_real``); each reader row pairs once. Unlike the cell multiset, this sees
    a cell put on the wrong row or two rows merged."""
    key = lambda r: tuple(norm_real(c) for c in r if norm_real(c))  # noqa: E731
    pool = Counter(key(r) for r in got if key(r))
    want = [key(r) for r in gold if key(r)]
    hit = 0
    for k in want:
        if pool[k]:
            pool[k] -= 1
            hit += 1
    return hit, len(want)


def score_twin_tables(tables: list[dict[str, Any]]) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, float]]]:
    """Every reader on every twin table's page: per-table rows and seconds per page."""
    per: dict[str, list[dict[str, Any]]] = {}
    seconds: dict[str, dict[str, float]] = {}
    for reader in READERS:
        per[reader], seconds[reader] = [], {}
        for t in tables:
            doc, err, seconds[reader][t["pdf"]] = load_with_reader(reader, REPO / t["pdf"])
            found = [x for x in (doc.tables if doc is not None else []) if x.label == t["label"]]
            m, p, n = score_real(twin_cells(REPO / t["twin"]), [c.text for x in found for c in x.cells])
            got = [[c.text for c in sorted((c for c in x.cells if c.row == r), key=lambda c: c.col)]
                   for x in found for r in sorted({c.row for c in x.cells})]
            rm, rg = rows_matched(twin_rows(REPO / t["twin"]), got)
            others = len(doc.tables) - len(found) if doc is not None else 0
            per[reader].append({"source": t["source"], "label": t["label"], "pdf": t["pdf"], "tables_found": len(found),
                                "matched": m, "returned": p, "gold": n, "rows_exact": rm, "gold_rows": rg,
                                "other_tables_on_page": others, "error": err})
    return per, seconds


def twin(args: Any) -> None:
    """Run every reader on the committed twin tables and write the result file (``--twin``)."""
    from pdf_twin_make import MANIFEST

    manifest = json.loads(MANIFEST.read_text())
    tables = manifest["tables"]
    run = Run(data=[MANIFEST, TWIN_SEARCH, *(REPO / t["pdf"] for t in tables), *(REPO / t["twin"] for t in tables)])
    per, seconds = score_twin_tables(tables)
    result = {
        "schema_version": "1",
        "what": "PDF table readers on real typeset tables (R package vignettes that are versions of journal articles, "
                "from Debian's r-cran-* packages) against a twin: the authors' LaTeX source, converted to JATS by pandoc",
        "label": args.label,
        "manifest": str(MANIFEST.relative_to(REPO)),
        "twin": f"the authors' LaTeX source, converted to JATS by {manifest['pandoc']} (bench/pdf_twin_make.py); "
                "not publisher JATS",
        "rule": manifest["rule"],
        "development_data": args.development is not None,
        "development_note": args.development or "the readers' code was not changed after these rows were first seen",
        "tables": len(tables),
        "sources": sorted({t["source"] for t in tables}),
        "table_list": [{k: t[k] for k in ("source", "label", "source_page", "pdf", "twin", "article", "licence",
                                          "package", "deb", "cells", "formula_cells")} for t in tables],
        "skipped": [{k: s.get(k) for k in ("source", "label", "source_page", "reason")} for s in manifest["skipped"]],
        "twin_search": json.loads(TWIN_SEARCH.read_text()),
        "summary": {r: {**_summary(rows), "rows_exact": sum(x["rows_exact"] for x in rows),
                        "gold_rows": sum(x["gold_rows"] for x in rows),
                        "row_recall": round(sum(x["rows_exact"] for x in rows) / max(1, sum(x["gold_rows"] for x in rows)), 4)}
                    for r, rows in per.items()},
        "per_table": per,
        "seconds_per_page": seconds,
        "provenance": run.finish(),
    }
    (args.out or TWIN_OUT).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(result["summary"], indent=1))


if __name__ == "__main__":
    main()
