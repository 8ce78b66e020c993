"""PDF table readers on real typeset tables against a twin made from the authors' LaTeX source.

Writes bench/results/pdf_tables_twin.json. The tables and their twins are made once by
``bench/pdf_twin_make.py`` (pandoc and Debian's r-cran-* packages, bench-time only) and committed: the table pages
(``bench/data/pdfs/twin/``), the twins (``bench/data/pdf-twins/*.xml``: JATS converted by pandoc from the
tabular the authors typed in the vignette's ``.Rnw``, not publisher JATS) and the manifest
(``bench/data/pdf-tables-twin.json``: source, version, sha256, licence, page, how the twin was made). This
script needs neither pandoc nor the packages.

Each reader runs through the whole PDF reader, as the real rows of bench/pdf_tables.py do: ``load_document`` on
the table's page with ``CLAIMTRACE_PDF_TABLES`` set (caption detection, then the table reader); the twin is
paired with the tables the reader labels with the twin's label. Cell precision and recall over the multiset of
non-empty cell texts (bench/pdf_tables.py's ``norm_real``: case-folded, no whitespace or accents, dashes unified),
pooled over the tables, with a 95% interval that resamples tables (bootstrap). The cell multiset does not see where
a cell went, so each table also counts its twin rows read exactly (``rows_matched``: a reader row with the same
non-empty cells in the same order). A twin cell's text is its words; a formula counts by its MathML text (not its
TeX).

    .venv/bin/python bench/pdf_tables_twin.py [--label TEXT] [--out PATH] [--development NOTE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pdf_tables import READERS, TWIN_SEARCH, _summary, load_with_reader, norm_real, score_real
from pdf_twin_make import MANIFEST, cell_text
from provenance import Run

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "results" / "pdf_tables_twin.json"


def twin_cells(path: Path) -> list[str]:
    """The cell texts of a twin's one table (every ``th``/``td``, in document order)."""
    from lxml import etree

    return [cell_text(c) for c in etree.parse(str(path)).iter("th", "td")]


def twin_rows(path: Path) -> list[list[str]]:
    """The twin's rows: each row's cell texts in order (a spanning cell once)."""
    from lxml import etree

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


def score_tables(tables: list[dict[str, Any]]) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, float]]]:
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


def main() -> None:
    """Run every reader on the committed twin tables and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", default="this branch", help="what code the rows measure (recorded)")
    ap.add_argument("--out", type=Path, default=OUT, help="result file (default: %(default)s)")
    ap.add_argument("--development", default=None, metavar="NOTE",
                    help="the readers were changed after seeing these tables: mark the rows development data, saying why")
    args = ap.parse_args()
    manifest = json.loads(MANIFEST.read_text())
    tables = manifest["tables"]
    run = Run(data=[MANIFEST, TWIN_SEARCH, *(REPO / t["pdf"] for t in tables), *(REPO / t["twin"] for t in tables)])
    per, seconds = score_tables(tables)
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
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(result["summary"], indent=1))


if __name__ == "__main__":
    main()
