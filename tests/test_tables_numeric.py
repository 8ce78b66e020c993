"""Which table cells count as numbers, and so which rows are column headers and which column is the stub.

A body row of "20.7 ± 25.3", "14/9", "<0.001", "1.2 × 10−3" or "2.1 (1.3 to 3.8)" cells is data, not a second
header row; a first column of "<65", "≥65 <70", "20/200" is still the stub (categories, not values). The made
table below is written for this test (numbers made up); the real tables are the bundled CC BY example article
and ../shared JATS / psychsci TEI files (skipped where absent).
"""

from __future__ import annotations

import pytest
from tests.conftest import ei_article, shared_path

from claimtrace.documents import load_document
from claimtrace.documents.model import Table
from claimtrace.documents.tables import RawCell, RawTable, build_table, is_numeric

NUMERIC = ["20.7 ± 25.3", "20.7±25.3", "45 ± 3 %", "14/9", "12/30 (40%)", "<0.001", "< .001", "≤0.05", ">65",
           "1.2 × 10−3", "1.2e-5", "2.1 (1.3 to 3.8)", "2.1 [1.3 to 3.8]", "20.7 (25.3)", "12 (34%)",
           "−0.009 (0.004)**", "[1.3, 3.8]", "1.11 (1.01–1.21)", "1,204", "0.12a", "1.1 ± 0.4a,b", "3 (6.3)b", "12.",
           "(0.004)", "−0.019", "+0.5", "50–64", "2.3***"]
LABELS = ["p < .001", "n = 12", "t(12) = 2.3", "r = .32", "Model 1", "T1", "12 mg", "12 months", "1st", "95% CI",
          "n (%)", "NS", "Stage I", "18:1", "12:30", "1 to 2", "2019).", "1.2.3", "10.0 (95%CI: 4.5–15.2)", "-", ""]


@pytest.mark.parametrize("text", NUMERIC)
def test_numeric_cells(text: str) -> None:
    assert is_numeric(text)


@pytest.mark.parametrize("text", LABELS)
def test_label_cells(text: str) -> None:
    assert not is_numeric(text)


def _table(rows: list[list[str]], header_rows: int | None = None) -> Table:
    raw = RawTable(rows=[[RawCell(t) for t in row] for row in rows], label="Table 1", header_rows=header_rows)
    return build_table(raw, 0, 0)


def test_body_of_new_forms_is_not_read_as_header_rows() -> None:
    # no thead: the header is found from the cells; every body row holds only the forms the old rule missed
    t = _table([["Outcome", "Drug (n = 30)", "Placebo (n = 29)", "P"],
                ["Age, mean ± SD", "20.7 ± 25.3", "21.1 ± 24.0", "<0.001"],
                ["Responders", "14/30 (47%)", "9/29 (31%)", "≤0.05"],
                ["Serum level", "1.2 × 10−3", "1.5e-3", "< .01"],
                ["Odds ratio", "2.1 (1.3 to 3.8)", "1 [reference]", ">0.2"]])
    assert (t.header_rows, t.stub_column) == (1, True)
    c = t.cell(3, 2)
    assert c is not None and (c.text, c.header, c.row_label, c.column_path) == (
        "14/30 (47%)", False, "Responders", ["Drug (n = 30)"])
    assert [r.header for r in t.rows] == [True, False, False, False, False]
    # the same with a two-row header: the second header row is labels only, the first body row is numbers
    t2 = _table([["", "Drug", ""], ["", "Mean ± SD", "P"], ["Age", "20.7 ± 25.3", "<0.001"]])
    assert t2.header_rows == 2 and t2.cell(3, 2).column_path == ["Drug", "Mean ± SD"]  # type: ignore[union-attr]


def test_category_bins_in_the_first_column_stay_the_stub() -> None:
    t = _table([["Age (years)", "Simvastatin", "Placebo"], ["<65", "4.3", "5.4"], ["≥65 <70", "4.1", "5.4"],
                ["≥70", "4.2", "5.5"]])
    assert (t.header_rows, t.stub_column) == (1, True)
    assert t.cell(3, 3).row_label == "≥65 <70"  # type: ignore[union-attr]
    acuity = _table([["Foot", "Decimal", "LogMAR"], ["20/200", "0.10", "1.00"], ["20/20", "1.00", "0.00"]])
    assert acuity.stub_column and acuity.cell(3, 3).row_label == "20/20"  # type: ignore[union-attr]
    # a first column of plain numbers is no stub
    assert not _table([["x", "y"], ["1.0", "2.0"], ["3.0", "4.0"]]).stub_column


def test_bundled_example_table_one_header_row() -> None:
    # examples/PMC1821024.nxml (CC BY): its first body row "Age (mean ± SD, years) | 55.2 ± 13.3 | 56.1 ± 11.9"
    # was read as a second header row, so every cell below carried it in its header path
    d = load_document(ei_article("PMC1821024"))
    t = d.tables[0]
    assert t.header_rows == 1 and t.stub_column
    c = next(c for c in t.cells if c.text == "55.2 ± 13.3")
    assert (c.header, c.row_label, c.column_path) == (False, "Age (mean ± SD, years)", ["Hydrotherapy N = 57"])
    assert t.cell(3, 2).column_path == ["Hydrotherapy N = 57"]  # type: ignore[union-attr]


REAL = [  # (file under ../shared/data, table, header rows, stub, cell text, column header path, row label)
    # every row was a header row (13 of 13): "S-Chol 0 | 4.70 ± 0.21 | ..."
    ("evidence-inference/validation/articles/PMC4681166.nxml", "t4", 1, True, "4.61 ± 0.19",
     ["Protein (n = 22)"], "S-Chol 0"),
    # 14 of 14 header rows; "14:0" (a fatty acid) stays a label, so the first column is the stub
    ("evidence-inference/validation/articles/PMC1783656.nxml", "t3", 3, True, "1.4 ± 0.5a", ["Test diets", "POL1"],
     "14:0"),
    # "13/15 (87%)" counts: 1 header row, not 2
    ("evidence-inference/validation/articles/PMC5732479.nxml", "t2", 1, True, "13/15 (87%)", ["Placebo–Fluenz"],
     "Total % seroconversion"),
    # "Mean ± SD" body rows below "n (%)"-style headers: 1 header row, not 9
    ("evidence-inference/validation/articles/PMC4681166.nxml", "t3", 1, True, "31.4 ± 1.4", ["Protein (n = 22)"],
     "Age (y)"),
    # an estimate ± SE with p "<0.001": 1 header row, not 2
    ("documents/s2orc-doc2json/PMC6398430.nxml", "t2", 1, True, "−0.020 ± 0.006", ["Estimate ± SE"], "Transect Time"),
    # GROBID TEI, rows of "< .00001" p values under a three-row header; "1 to 4" names a comparison
    ("documents/psychsci/09567976241235931.xml", "t3", 3, True, "< .00001",
     ["Risk-factor-adjusted p values", "Mental health", "(external)"], "1 to 4"),
]


@pytest.mark.parametrize(("path", "tid", "n_head", "stub", "text", "col_path", "label"), REAL)
def test_real_tables_header_rows(path: str, tid: str, n_head: int, stub: bool, text: str, col_path: list[str],
                                 label: str) -> None:
    d = load_document(shared_path(*path.split("/")))
    t = next(t for t in d.tables if t.id == tid)
    assert (t.header_rows, t.stub_column) == (n_head, stub)
    c = next(c for c in t.cells if c.text == text and c.row_label == label)
    assert (c.header, c.column_path) == (False, col_path)
    assert d.tables_text[c.start:c.end] == text
    row = next(r for r in t.rows if c.id in r.cell_ids)  # its row is a body row, rendered with the header path
    assert not row.header and row.label == label and f"{' › '.join(col_path)}: {text}" in row.text


def test_real_tei_p_value_rows_are_numbers() -> None:
    d = load_document(shared_path("documents", "psychsci", "09567976241235931.xml"))
    t = next(t for t in d.tables if t.id == "t3")
    body = [c for c in t.cells if not c.header and c.col > 1 and c.text.strip()]
    assert len(body) >= 90 and all(is_numeric(c.text) for c in body)
    assert all(not is_numeric(c.text) for c in t.cells if c.stub)
