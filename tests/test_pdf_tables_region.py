"""PDF tables on two-column pages: the text-alignment readers read the caption's table region, not the page.

The two-column page below is made here (matplotlib, real PDF text; its numbers are made up); the real tables
come from ../shared/data (skipped where absent; gold in bench/data/pdf-tables-real.jsonl).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import REPO, shared_path

from claimtrace.documents import load_document
from claimtrace.documents.readers.pdf_tables import Caption, table_region

LEFT = "Participants rated each item twice and the ratings were averaged across the two"
RIGHT = "The models were fitted again without the covariates and the estimates held"
ROWS = [["Model", "b", "SE", "p"], ["Condition", "0.42", "0.10", ".001"], ["Age", "-0.05", "0.03", ".094"],
        ["Income", "0.12", "0.04", ".003"]]


def _two_column_pdf(path: Path) -> tuple[float, float]:
    """A page of two columns of running text; a booktabs table tops the right column, its caption below it.
    Returns the caption's (top, bottom)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig = plt.figure(figsize=(8.5, 11))

    def text(x: float, y: float, s: str, size: float = 8.0) -> None:
        fig.text(x / 612, 1 - y / 792, s, fontsize=size, va="baseline", family="DejaVu Sans")

    def rule(y: float) -> None:
        fig.add_artist(Line2D([320 / 612, 560 / 612], [1 - y / 792] * 2, lw=0.8, color="black"))

    for i in range(50):  # the left column: running text, page high
        text(50, 70 + 12 * i, LEFT[: 52 + i % 3], 7.5)
    rule(62)
    for r, row in enumerate(ROWS):
        for c, cell in enumerate(row):
            text(325 + 70 * c if c == 0 else 400 + 52 * c, 76 + 14 * r, cell)
        if r == 0:
            rule(80)
    rule(124)
    text(320, 142, "Table 1: Regression of ratings on condition.", 8.5)
    for i in range(40):  # the right column under the caption
        text(320, 166 + 12 * i, RIGHT[: 50 + i % 3], 7.5)
    fig.savefig(path, format="pdf")
    plt.close(fig)
    return 134.0, 146.0


def _cells(path: Path) -> list[str]:
    (t,) = load_document(path).tables
    assert t.label == "Table 1"
    return [c.text for c in t.cells]


@pytest.mark.parametrize("reader", ["pdfplumber-text", "camelot-stream", "auto"])
def test_two_column_table_is_read_from_its_region(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str) -> None:
    if reader != "pdfplumber-text":
        pytest.importorskip("camelot", reason="camelot is the pdf-tables extra")
    path = tmp_path / "two.pdf"
    _two_column_pdf(path)
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", reader)
    cells = _cells(path)
    gold = [c for row in ROWS for c in row]
    assert sum(c in cells for c in gold) >= len(gold) - 1  # the table, cell by cell
    assert not any("Participants" in c or "covariates" in c for c in cells)  # and none of the running text


def test_table_region_is_the_right_column_above_the_caption(tmp_path: Path) -> None:
    import pdfplumber

    path = tmp_path / "two.pdf"
    top, bottom = _two_column_pdf(path)
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        words = page.extract_words()
        cap_top = min(float(w["top"]) for w in words if w["text"] == "Table")
        cap = Caption(page=1, label="Table 1", text="Regression of ratings on condition.", top=cap_top, bottom=cap_top + 10)
        box = table_region(words, float(page.width), float(page.height), cap)
    assert box is not None
    assert box.x0 > 306 and box.bottom <= cap_top and 60 < box.top < 80  # right half, over the caption, from the header
    assert top < bottom


def test_real_two_column_tables() -> None:
    """The four tables of a NAACL paper (two columns, captions under the tables) read cell for cell."""
    pytest.importorskip("camelot", reason="camelot is the pdf-tables extra")
    gold = [json.loads(x) for x in (REPO / "bench" / "data" / "pdf-tables-real.jsonl").read_text().splitlines()]
    pdf = shared_path("documents", "s2orc-doc2json") / "N18-3011.pdf"
    doc = load_document(pdf)
    by_label = {t.label: [c.text.replace(" ", "") for c in t.cells if c.text.strip()] for t in doc.tables}
    for g in (x for x in gold if x["pdf"].endswith("N18-3011.pdf")):
        want = [c.replace(" ", "") for row in g["rows"] for c in row if c]
        assert sorted(by_label[g["label"]]) == sorted(want), g["label"]


def test_real_publisher_booktabs_table() -> None:
    """A publisher's booktabs table (MDPI Polymers 2013, CC BY 3.0; its page is in bench/data/pdfs): the default
    reader finds it under its caption and reads every cell, subscripts ("[Bmim]ZnCl3") and footnote markers kept."""
    pytest.importorskip("camelot", reason="camelot is the pdf-tables extra")
    gold = [json.loads(x) for x in (REPO / "bench" / "data" / "pdf-tables-real.jsonl").read_text().splitlines()]
    g = next(x for x in gold if x["pdf"].startswith("bench/data/pdfs/polymers"))
    doc = load_document(REPO / g["pdf"])
    [table] = doc.tables
    assert (table.label, table.page, table.n_rows, table.n_cols) == ("Table 1", 1, 14, 6)
    assert table.caption and table.caption.startswith("Effect of catalysts on the glycolysis reaction of PET")
    got = [[c.text for c in table.cells if c.row == r] for r in range(1, table.n_rows + 1)]
    assert got == g["rows"]


def test_real_tight_columns_not_glued() -> None:
    """SPECTER's Table 3 (ACL 2020, CC BY 4.0) has five tight numeric columns. camelot's stream mode glues them
    into one cell, out of order ("91.5 36.9 80.0 84.2 88.4" under "CLS USR CITE REC All"); the default reader then
    takes pdfplumber-text's reading of the region, with each number under its own header and the row labels joined."""
    pytest.importorskip("camelot", reason="camelot is the pdf-tables extra")
    from claimtrace.documents.readers.pdf_tables import merged_cells

    gold = [json.loads(x) for x in (REPO / "bench" / "data" / "pdf-tables-real.jsonl").read_text().splitlines()]
    g = next(x for x in gold if x["pdf"].endswith("2020.acl-main.207.pdf") and x["label"] == "Table 3")
    doc = load_document(shared_path("documents", "s2orc-doc2json") / "2020.acl-main.207.pdf")
    [table] = [t for t in doc.tables if t.label == "Table 3"]
    got = [[c.text for c in table.cells if c.row == r] for r in range(1, table.n_rows + 1)]
    assert merged_cells(got) == 0
    assert got[1:] == g["rows"][1:]  # every row label and number in its column
    assert got[0][1:] == g["rows"][0][1:]  # the headers over the numbers
    assert got[0][0].replace(" ", "") == g["rows"][0][0].replace(" ", "")  # "Training signal", cut at a column edge
