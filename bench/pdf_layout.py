"""PDF layouts: for every PDF in ../shared/data, pages, abstract length and body paragraphs per page, next to
GROBID's TEI of the same PDF where one exists (``NAME.tei.xml`` beside ``NAME.pdf``).

GROBID paragraphs: the ``<p>`` elements under ``text/body//div`` of the TEI. A page "without body" is a page
of the PDF on which no body paragraph starts (title pages, reference lists and figure pages are such pages
legitimately; a paper whose every page is one of them has lost its body).

Usage: ``python bench/pdf_layout.py [--src SRC]`` -> ``bench/results/pdf_layout.json`` and a Markdown table
on stdout (``--src``: read with another checkout's ``src`` folder, e.g. to measure before a change).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from lxml import etree

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
TEI_NS = {"tei": "http://www.tei-c.org/ns/1.0"}


def grobid_paragraphs(tei: Path) -> int:
    """Body paragraphs in a GROBID TEI file."""
    root = etree.parse(str(tei)).getroot()
    return len(root.findall(".//tei:text/tei:body//tei:div/tei:p", TEI_NS))


def measure(pdf: Path) -> dict[str, Any]:
    """One PDF's layout figures."""
    import pypdfium2

    from claimtrace.documents import load_document

    pages = len(pypdfium2.PdfDocument(str(pdf)))
    doc = load_document(pdf)
    per_page = Counter(p.page for p in doc.paragraphs if p.page is not None)
    tei = pdf.with_suffix(".tei.xml")
    return {
        "pdf": str(pdf.relative_to(SHARED.parent)),
        "pages": pages,
        "abstract_chars": len(doc.abstract_text),
        "body_paragraphs": len(doc.paragraphs),
        "paragraphs_per_page": round(len(doc.paragraphs) / pages, 2),
        "per_page": [per_page.get(i, 0) for i in range(1, pages + 1)],
        "pages_without_body": sum(1 for i in range(1, pages + 1) if not per_page.get(i)),
        "grobid_tei_paragraphs": grobid_paragraphs(tei) if tei.exists() else None,
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table of the result file."""
    out = ["| PDF | pages | abstract chars | body paragraphs | per page | pages without body | GROBID TEI paragraphs |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        g = r["grobid_tei_paragraphs"]
        out.append(f"| {r['pdf'].removeprefix('shared/data/')} | {r['pages']} | {r['abstract_chars']:,} | "
                   f"{r['body_paragraphs']} | {r['paragraphs_per_page']} | {r['pages_without_body']} | "
                   f"{'–' if g is None else g} |")
    return "\n".join(out)


def main() -> None:
    """Measure every shared PDF and write the result file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the src folder to read PDFs with")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "pdf_layout.json")
    a = ap.parse_args()
    sys.path.insert(0, str(a.src.resolve()))
    sys.path.insert(0, str(REPO / "bench"))
    from provenance import Run

    pdfs = sorted(SHARED.rglob("*.pdf"))
    if not pdfs:
        sys.exit(f"error: no PDF under {SHARED}")
    run = Run(data=pdfs)
    rows = [measure(p) for p in pdfs]
    result = {
        "schema_version": "1",
        "what": "pages, abstract length and body paragraphs per page of every shared PDF; GROBID TEI paragraphs "
                "where a TEI of the same PDF exists",
        "src": str(a.src.resolve().relative_to(a.src.resolve().parents[1])),
        "n_pdfs": len(rows),
        "max_abstract_chars": max(r["abstract_chars"] for r in rows),
        "pdfs_without_body": sum(1 for r in rows if r["body_paragraphs"] == 0),
        "rows": rows,
        "provenance": run.finish(),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(table(rows))


if __name__ == "__main__":
    main()
