"""Kinds of table rows that JATS tables of trials hold (issue 29): a heading written across the whole table under
the column headers (one cell spanning every column), and a row whose stub cell is left empty because it continues
the labelled row above it (the markup did not span the stub down). The table below was written for this test (its
numbers are made up); a real one comes from the Evidence-Inference training articles (skipped where absent)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import shared_path

from claimtrace.documents import load_document
from claimtrace.retrieval.units import document_units

JATS = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Knee pain</article-title></title-group>
<abstract><p>Needling helps.</p></abstract></article-meta></front>
<body><sec><title>Results</title><p>Table 3 gives the findings.</p>
<table-wrap id="T3"><label>Table 3</label><caption><p>Findings at entry</p></caption>
<table><thead>
<tr><td/><td colspan="2">Groups</td><td/></tr>
<tr><td>Finding</td><td>Sham (n = 40)</td><td>Needling (n = 41)</td><td>p-value</td></tr>
</thead><tbody>
<tr><td colspan="4">Radiographic grade</td></tr>
<tr><td>Grade 1</td><td>4</td><td>3</td><td>0.40</td></tr>
<tr><td>Grade 2</td><td>19</td><td>25</td><td>0.31</td></tr>
<tr><td colspan="4">Pain score</td></tr>
<tr><td>Baseline</td><td>6.1 (1.2)</td><td>6.3 (1.1)</td><td>0.52</td></tr>
<tr><td>Week 8</td><td>5.2 (1.4)</td><td>3.9 (1.5)</td><td>0.002</td></tr>
<tr><td></td><td>t(79) = 4.01</td><td></td><td></td></tr>
</tbody></table></table-wrap></sec></body></article>
"""


def _doc(tmp_path: Path):  # type: ignore[no-untyped-def]
    p = tmp_path / "t.nxml"
    p.write_text(JATS, encoding="utf-8")
    return load_document(p)


def test_heading_across_the_table_heads_the_rows_under_it(tmp_path: Path) -> None:
    (t,) = _doc(tmp_path).tables
    assert t.header_rows == 2  # the spanning row after thead is no column header
    by_label = {r.label: r for r in t.rows if r.label}
    assert by_label["Grade 1"].group == "Radiographic grade"
    assert by_label["Grade 1"].text.startswith("Table 3 › Radiographic grade › Grade 1: Groups › Sham (n = 40): 4")
    assert "Radiographic grade" not in by_label["Grade 1"].text.split(": ", 1)[1]  # not in the column path
    assert by_label["Week 8"].group == "Pain score"
    assert [g.label for g in t.groups] == ["Radiographic grade", "Pain score"]


def test_row_with_an_empty_stub_continues_the_row_above(tmp_path: Path) -> None:
    doc = _doc(tmp_path)
    (t,) = doc.tables
    last = t.rows[-1]
    assert last.label is None
    assert last.text == "Table 3 › Pain score › Week 8: Groups › Sham (n = 40): t(79) = 4.01"
    units = [u.text for u in document_units(doc, "table-row")]
    assert last.text in units


def test_real_trial_table_rows_carry_their_heading_and_label() -> None:
    # a development-split EI training article: headings across the table, visits under a variable
    d = load_document(shared_path("evidence-inference", "train", "articles", "PMC102323.nxml"))
    t = next(x for x in d.tables if x.label == "Table 3")
    assert t.header_rows == 3
    grade1 = next(r for r in t.rows if r.label == "Grade 1")
    assert grade1.group == "Kellgren and Lawrence X-ray grade [32]"
    d2 = load_document(shared_path("evidence-inference", "train", "articles", "PMC56204.nxml"))
    texts = [r.text for t2 in d2.tables for r in t2.rows]
    assert any(x.startswith("Table 2 › STD duration (min): Visit: 1 month;") for x in texts)


UNMARKED = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Sleep</article-title></title-group>
<abstract><p>Naps help.</p></abstract></article-meta></front>
<body><sec><title>Results</title><p>Table 1 gives the outcomes.</p>
<table-wrap id="T1"><label>Table 1</label><caption><p>Outcomes</p></caption>
<table><tbody>
<tr><td/><td colspan="2">Arm</td><td/></tr>
<tr><td>Outcome</td><td>Nap</td><td>Control</td><td>p</td></tr>
<tr><td colspan="4">Women</td></tr>
<tr><td>Sleep (h)</td><td>7.1</td><td>6.4</td><td>0.01</td></tr>
<tr><td>Naps per week</td><td>4.2</td><td>0.8</td><td>0.001</td></tr>
</tbody></table></table-wrap></sec></body></article>
"""


def test_unmarked_header_stops_at_a_spanning_heading(tmp_path: Path) -> None:
    p = tmp_path / "u.nxml"
    p.write_text(UNMARKED, encoding="utf-8")
    (t,) = load_document(p).tables
    assert t.header_rows == 2  # "Arm" over its arms spans above the labels: a header; "Women" heads the body
    sleep = next(r for r in t.rows if r.label == "Sleep (h)")
    assert sleep.group == "Women"
    assert sleep.text == "Table 1 › Women › Sleep (h): Arm › Nap: 7.1; Arm › Control: 6.4; p: 0.01"
