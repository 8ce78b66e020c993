"""Real typeset tables against their twins from the authors' LaTeX source (bench/data/pdf-twins, bench/pdf_tables.py --twin).

The table pages are real PDFs (pages of R package vignettes that are versions of journal articles) and the twins are
JATS that pandoc made from the tabular the authors typed; both are committed, so these tests need neither pandoc nor R.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from lxml import etree

from claimtrace.documents import load_document
from claimtrace.documents.model import Table

REPO = Path(__file__).resolve().parents[1]
MANIFEST = REPO / "bench" / "data" / "pdf-tables-twin.json"


def _text(el: etree._Element) -> str:
    """A twin cell's words, whitespace removed; a formula by its MathML text, not its TeX."""
    out: list[str] = []

    def walk(e: etree._Element) -> None:
        if e.tag != "tex-math":
            out.append(e.text or "")
            for ch in e:
                walk(ch)
        if e is not el:
            out.append(e.tail or "")

    walk(el)
    return re.sub(r"\s+", "", "".join(out))


def twin_grid(path: Path) -> list[list[str]]:
    """The twin's rows, a cell that spans columns repeated in each (whitespace removed)."""
    rows = []
    for tr in etree.parse(str(path)).iter("tr"):
        row: list[str] = []
        for c in tr:
            row += [_text(c)] * int(c.get("colspan", "1"))
        rows.append(row)
    return rows


def entry(source: str, label: str) -> dict[str, str]:
    """The manifest entry of one twin table."""
    tables = json.loads(MANIFEST.read_text())["tables"]
    return next(t for t in tables if t["source"] == source and t["label"] == label)


def pdf_table(pdf: Path, label: str, monkeypatch: pytest.MonkeyPatch) -> Table:
    """The table a PDF's reader (pdfplumber's text finder: no extra needed) labels ``label``."""
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", "pdfplumber-text")
    (t,) = [x for x in load_document(pdf).tables if x.label == label]
    return t


def _n(s: str | None) -> str:
    return re.sub(r"\s+", "", s or "")


def _at(t: Table, row: int, col: int) -> str:
    """A read table's cell text at (row, col), whitespace removed ("" where there is no cell)."""
    c = t.cell(row, col)
    return _n(c.text) if c is not None else ""


def test_manifest_names_committed_pages_and_twins() -> None:
    m = json.loads(MANIFEST.read_text())
    assert len(m["tables"]) >= 10 and len({t["source"] for t in m["tables"]}) >= 3
    for t in m["tables"]:
        assert (REPO / t["pdf"]).is_file() and (REPO / t["twin"]).is_file()
        assert "converted to JATS by pandoc" in t["twin_made"] and t["licence"]
        assert (REPO / t["pdf"]).stat().st_size < 300_000  # one page, not the article


def test_power_table_of_the_maxtest_paper(monkeypatch: pytest.MonkeyPatch) -> None:
    """coin's MAXtest vignette, Table 8 (page 10): simulated power, a typed tabular with bold/italic cells."""
    e = entry("coin-maxtest", "Table 8")
    twin = twin_grid(REPO / e["twin"])
    assert twin[0][:4] == ["Model", "R", "S", "πglobal"] and twin[2][0] == "dominant" and twin[2][9] == "0.91"
    t = pdf_table(REPO / e["pdf"], "Table 8", monkeypatch)
    assert [_at(t, 1, c) for c in range(1, 5)] == twin[0][:4]  # header, as in the twin
    cell = t.cell(3, 10)
    assert cell is not None and _n(cell.text) == twin[2][9]  # "dominant" row, π_dom column
    assert cell.row_label == twin[2][0] and [_n(x) for x in cell.column_path] == [twin[0][9]]


def test_key_methods_table_of_the_clm_article(monkeypatch: pytest.MonkeyPatch) -> None:
    """ordinal's clm article, Table 2 (page 4): a two-column spanning header over function names."""
    e = entry("ordinal-clm", "Table 2")
    twin = twin_grid(REPO / e["twin"])
    assert twin[0] == ["ExtractorandPrint", "ExtractorandPrint", "Inference", "Checking"]
    t = pdf_table(REPO / e["pdf"], "Table 2", monkeypatch)
    assert _at(t, 1, 3) == twin[0][2]
    assert [_at(t, 3, c) for c in range(1, 5)] == twin[2] == ["fitted", "summary", "drop1", "convergence"]


def test_stacked_rows_counts_body_rows_of_several_multi_line_cells() -> None:
    from claimtrace.documents.readers.pdf_tables import stacked_rows

    # the line finder's reading of pscl's Table 1 (ruled only vertically): one body cell per column
    stacked = [["Type", "Distribution", "Method", "Description"],
               ["GLM", "Poisson\nNB", "ML\nquasi\nadjusted\nML", "Poisson regression: classical GLM"]]
    assert stacked_rows(stacked) == 1
    # a wrapped header (GROBID's Wang-paperAVE2008.pdf, fully ruled) and one wrapped body cell are not stacked rows
    ruled = [["Submission\nRuns", "Recall", "Estimated QA\nPerformance"], ["100% VALIDATED (EN)", "1", "N/A"],
             ["Best QA System (EN)", "N/A", "a long note\nwrapped"]]
    assert stacked_rows(ruled) == 0


@pytest.mark.parametrize("camelot", [True, False], ids=["camelot-if-installed", "without-camelot"])
def test_auto_reads_the_rows_of_a_table_ruled_only_vertically(monkeypatch: pytest.MonkeyPatch, camelot: bool) -> None:
    """pscl's countreg vignette, Table 1 (page 2): |l|l|l|p{7.4cm}| with rules only under the header and at the end.
    The line finder reads one cell per column for the whole body; ``auto`` takes the unruled reading instead (camelot
    stream mode, or pdfplumber's text finder without camelot)."""
    if not camelot:
        monkeypatch.setitem(sys.modules, "camelot", None)  # `import camelot` raises ImportError
    e = entry("pscl-countreg", "Table 1")
    twin = twin_grid(REPO / e["twin"])
    assert twin[1][:3] == ["GLM", "Poisson", "ML"] and twin[2][2] == "quasi"
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", "pdfplumber-lines")
    (lines,) = [x for x in load_document(REPO / e["pdf"]).tables if x.label == "Table 1"]
    assert lines.n_rows < len(twin)  # the stacked reading
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", "auto")
    (t,) = [x for x in load_document(REPO / e["pdf"]).tables if x.label == "Table 1"]
    assert t.n_rows >= len(twin)
    assert [_at(t, 2, c) for c in range(1, 4)] == twin[1][:3]
    assert any(_n(c.text) == "quasi" for c in t.cells)


def test_the_running_head_is_not_read_into_a_table_at_the_top_of_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """seriation's Table 2 (page 13) starts under the running head "Michael Hahsler, Kurt Hornik, Christian Buchta 13";
    the text-alignment readers' region stops before it, so the table's first row is the twin's header."""
    e = entry("seriation", "Table 2")
    twin = twin_grid(REPO / e["twin"])
    assert twin[0] == ["Name", "method", "merit/loss", "Inputdata"]
    t = pdf_table(REPO / e["pdf"], "Table 2", monkeypatch)
    assert not any("Hahsler" in c.text for c in t.cells)
    assert [_at(t, 1, c) for c in range(1, 4)] == twin[0][:3]
    assert [_at(t, 2, c) for c in range(2, 5)] == twin[1][1:] == ['"AR_events"', "loss", "dist"]
