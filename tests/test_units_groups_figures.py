"""Row-group units (a sub-table heading with its rows, indented levels, a spanning stub cell) and figure-legend
units (a figure's caption, with offsets into ``Document.figures_text``).

The small JATS article below was written for this test (its numbers are made up); the real articles come from
../shared/data (skipped where absent).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO, shared_path

from claimtrace.documents import Document, DocumentBuilder, Span, load_document
from claimtrace.documents.tables import indented
from claimtrace.retrieval.units import document_units, parse_units

JATS = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>A made-up trial</article-title></title-group>
<abstract><p>Drug A lowered pain.</p></abstract></article-meta></front>
<body><sec><title>Results</title><p>Table 1 shows the baseline; Figure 2 the pain scores.</p>
<table-wrap id="tab1"><label>Table 1</label><caption><title>Baseline characteristics</title></caption>
<table><thead><tr><th>Variable</th><th>Drug A (n=40)</th><th>Placebo (n=41)</th><th>P</th></tr></thead>
<tbody>
<tr><td>Age, years</td><td>54 (9)</td><td>55 (8)</td><td>0.61</td></tr>
<tr><td>Stage</td><td/><td/><td>0.213</td></tr>
<tr><td>&#x02003;&#x02003;I</td><td>20/40 (50.0)</td><td>18/41 (43.9)</td><td/></tr>
<tr><td>&#x02003;&#x02003;II</td><td>20/40 (50.0)</td><td>23/41 (56.1)</td><td/></tr>
<tr><td>Smoker</td><td/><td/><td>0.40</td></tr>
<tr><td>No</td><td>30/40 (75.0)</td><td>28/41 (68.3)</td><td/></tr>
<tr><td>Yes</td><td>10/40 (25.0)</td><td>13/41 (31.7)</td><td/></tr>
<tr><td>Week 12</td><td/><td/><td/></tr>
<tr><td>Pain</td><td>3.1 (1.2)</td><td>4.0 (1.5)</td><td>0.01</td></tr>
<tr><td>Sleep</td><td>6.2 (1.0)</td><td>6.0 (1.1)</td><td>0.52</td></tr>
<tr><td rowspan="2">Dropouts</td><td>2</td><td>3</td><td>0.67</td></tr>
<tr><td>1</td><td>1</td><td/></tr>
</tbody></table></table-wrap>
<fig id="f2"><label>Figure 2</label><caption><title>Pain scores.</title><p>Pain was lower with drug A (P = .01).</p></caption></fig>
</sec></body></article>
"""


@pytest.fixture
def doc(tmp_path: Path) -> Document:
    """The made-up trial as a JATS article."""
    p = tmp_path / "trial.nxml"
    p.write_text(JATS, encoding="utf-8")
    return load_document(p)


def test_row_groups_by_indent_fill_heading_and_span(doc: Document) -> None:
    (t,) = doc.tables
    groups = {g.label: g for g in t.groups}
    assert list(groups) == ["Stage", "Smoker", "Week 12", "Dropouts"]
    stage = groups["Stage"]  # indented levels under a row holding only its p-value
    assert (stage.id, stage.heading, stage.row_ids) == ("t1.g1", "t1.r3", ["t1.r3", "t1.r4", "t1.r5"])
    assert stage.text == ("Table 1 › Stage: P: 0.213 | I: Drug A (n=40): 20/40 (50.0); Placebo (n=41): 18/41 (43.9)"
                          " | II: Drug A (n=40): 20/40 (50.0); Placebo (n=41): 23/41 (56.1)")
    lines = doc.tables_text[stage.start:stage.end].split("\n")
    assert lines[0].startswith("Stage\t") and lines[-1].startswith("II\t") and len(lines) == 3
    assert "t1.r4.c2" in stage.cell_ids and "t1.r3.c4" in stage.cell_ids
    # levels without indentation: the heading fills only the columns its levels leave empty
    assert groups["Smoker"].row_ids == ["t1.r6", "t1.r7", "t1.r8"]
    # a sub-table heading (a label, no data) and the rows under it, up to the next heading (here: the table's end)
    assert groups["Week 12"].row_ids == ["t1.r9", "t1.r10", "t1.r11", "t1.r12", "t1.r13"]
    assert groups["Week 12"].heading == "t1.r9"
    # a stub cell spanning two rows
    assert groups["Dropouts"].heading is None and groups["Dropouts"].row_ids == ["t1.r12", "t1.r13"]
    # the rows under a heading carry its label; a row that is no level does not
    rows = {r.id: r for r in t.rows}
    assert rows["t1.r4"].group == "Stage" and rows["t1.r4"].text.startswith("Table 1 › Stage › I: ")
    assert rows["t1.r2"].group is None and rows["t1.r10"].group == "Week 12"
    units = document_units(doc, parse_units("row-groups"))
    assert [u.id for u in units] == ["t1.g1", "t1.g2", "t1.g3", "t1.g4"]
    assert units[0].scope == "table" and units[0].paragraph_id == "t1" and units[0].text == stage.text


def test_figure_legend_units(doc: Document) -> None:
    (leg,) = doc.figure_legends()
    assert (leg.id, leg.label, leg.text) == ("f1", "Figure 2", "Figure 2. Pain scores. Pain was lower with drug A (P = .01).")
    (u,) = document_units(doc, parse_units("figure-legends"))
    assert (u.id, u.scope, u.section, u.paragraph_id) == ("f1", "figure", "Figure 2", "f1")
    assert doc.text_of(Span(scope="figure", start=u.start, end=u.end)) == u.text
    mixed = document_units(doc, parse_units("sentences,table-rows,row-groups,figure-legends"))
    assert [x.scope for x in mixed][-1] == "figure" and any(x.id == "t1.g1" for x in mixed)


def test_figure_legends_by_source_format() -> None:
    """A PDF's ``figure`` blocks are text inside a chart; its legends are the captions that name a figure."""
    b = DocumentBuilder("x.pdf", "pdf", b"%PDF made up")
    b.add_paragraph("Pain fell.")
    b.add_excluded("figure", "0 2 4 6 8 Week")
    b.add_excluded("caption", "Table 1. Baseline characteristics")
    b.add_excluded("caption", "Fig. 3 Pain by week in the two arms.")
    d = b.build()
    assert [f.text for f in d.figure_legends()] == ["Fig. 3 Pain by week in the two arms."]
    assert d.figures_text == "Fig. 3 Pain by week in the two arms."
    b = DocumentBuilder("x.html", "html", b"<html>made up</html>")
    b.add_paragraph("Pain fell.")
    b.add_excluded("figure", "Pain by week.", label="Figure 1")
    b.add_excluded("figure", "Sleep by week.", label="Figure 2")
    d = b.build()
    legs = d.figure_legends()
    assert [f.text for f in legs] == ["Figure 1. Pain by week.", "Figure 2. Sleep by week."]
    assert d.figures_text[legs[1].start:legs[1].end] == "Figure 2. Sleep by week."


def test_indented() -> None:
    assert indented("\u2003\u2003I") and indented("\n  \u00a0Yes") and indented("Yes", "padding-left: 12px")
    assert not indented("  Yes") and not indented("\n Yes\n") and not indented("Yes", "padding-left: 0")


def test_real_jats_levels_under_a_p_value_row() -> None:
    """A baseline table whose variables hold their p-value and whose levels are indented rows below."""
    d = load_document(shared_path("evidence-inference", "train", "articles", "PMC4393831.nxml"))
    (g,) = [g for t in d.tables for g in t.groups if g.label == "NYHA FC"]
    assert len(g.row_ids) == 4 and g.text.startswith("Table 2 › NYHA FC: P value: 0.213 | 1: ")
    assert "16/47 (34.0)" in g.text and "7/47 (14.9)" in g.text


def test_real_jats_figure_legends() -> None:
    d = load_document(shared_path("evidence-inference", "train", "articles", "PMC3669033.nxml"))
    legs = d.figure_legends()
    assert [f.label for f in legs] == ["Figure 1", "Figure 2", "Figure 3"]
    assert "Salivary cortisol levels were significantly lower" in legs[1].text
    assert all(d.figures_text[f.start:f.end] == f.text for f in legs)


def test_cli_retrieve_figure_legends_and_extract_refuses(tmp_path: Path) -> None:
    p = tmp_path / "trial.nxml"
    p.write_text(JATS, encoding="utf-8")
    run = [sys.executable, "-m", "claimtrace", "retrieve", str(p), "-q", "pain lower with drug A", "--units",
           "figure-legends,row-groups", "--json", "--offline"]
    r = subprocess.run(run, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    assert '"unit_id": "f1"' in r.stdout and '"scope": "figure"' in r.stdout
    r = subprocess.run([sys.executable, "-m", "claimtrace", "extract", str(p), "--finding", "Drug A lowered pain.",
                        "--units", "sentences,figure-legends", "--offline"], capture_output=True, text=True, cwd=REPO,
                       timeout=120)
    assert r.returncode == 2 and "--units" in r.stderr and "Traceback" not in r.stderr
