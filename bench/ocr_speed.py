"""OCR time per scanned page (--ocr: OCRmyPDF + tesseract), and the whole read of the scan.

    nice -n 10 .venv/bin/python bench/ocr_speed.py [--pages 3] [--repeats 3]

A text PDF of `--pages` pages made by tests/pdf_maker.py is rendered to 300-dpi images (pypdfium2) and
wrapped in a PDF (Pillow), as tests/test_pdf_ocr.py does; then `load_document(scan, settings=
ReaderSettings(ocr=True))` is timed `--repeats` times (median), and the OCR step alone
(`readers.ocr.ocr_pages`). Also the share of the text PDF's words read back. Writes
bench/results/ocr_speed.json (loaded runs are flagged by the provenance block: tesseract's threads
and the machine's other processes share the cores).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from provenance import REPO, Run

sys.path.insert(0, str(REPO / "tests"))

RESULT = REPO / "bench" / "results" / "ocr_speed.json"


def main() -> None:
    """Time OCR per page on a scan made here."""
    from claimtrace.documents import ReaderSettings, load_document
    from claimtrace.documents.readers import ocr
    from pdf_maker import body_paragraph, write_paper_pdf
    from test_pdf_ocr import render_scan

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    run = Run()
    with tempfile.TemporaryDirectory() as tmp:
        paras = [body_paragraph(i) for i in range(1, 6 * a.pages + 1)]
        text_pdf = write_paper_pdf(Path(tmp) / "text.pdf", title="A Scanned Test Paper", abstract="We test OCR.",
                                   paragraphs=paras, abstract_heading=True, pages=a.pages)
        scan = render_scan(text_pdf, Path(tmp) / "scan.pdf")
        data = scan.read_bytes()
        n_pages, empty = ocr.pages_without_text(data, str(scan))
        ocr_s, read_s = [], []
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            ocr.ocr_pages(data, str(scan), empty)
            ocr_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            doc = load_document(scan, settings=ReaderSettings(ocr=True))
            read_s.append(time.perf_counter() - t0)
        truth = load_document(text_pdf)
        want = set(" ".join([truth.abstract_text, truth.body_text]).split())
        got = set(" ".join([doc.title or "", doc.abstract_text, doc.body_text]).split())
    result = {"schema_version": "1", "what": "OCR of scanned pages (300 dpi, pdf_maker text, eng)",
              "pages": n_pages, "ocr_pages": len(empty), "repeats": a.repeats,
              "ocr_s_median": round(statistics.median(ocr_s), 3),
              "ocr_s_per_page_median": round(statistics.median(ocr_s) / max(1, len(empty)), 3),
              "read_with_ocr_s_median": round(statistics.median(read_s), 3),
              "words_read_back": round(len(want & got) / max(1, len(want)), 4), "words": len(want),
              "provenance": run.finish()}
    RESULT.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "provenance"}, indent=1))


if __name__ == "__main__":
    main()
