"""A prose evidence span without a checkable test, citing the table whose row holds it, gets that row's results."""

from __future__ import annotations

from pathlib import Path

from claimtrace.documents import load_document
from claimtrace.extract.pipeline import extract_traces
from claimtrace.extract.statistics import cited_table_rows, is_checked

JATS = """<?xml version="1.0"?>
<article><front><article-meta><title-group><article-title>Parties and security</article-title></title-group>
<abstract><p>Dominant parties spent less on security than other parties.</p></abstract></article-meta></front>
<body><sec><title>Introduction</title><p>We expected dominant parties to spend less on security.</p></sec>
<sec><title>Results</title>
<p>Dominant parties spent less on security than other parties (b = -0.092, p &lt; .01; Table 2).
Spending on health did not differ between the parties.</p>
<table-wrap id="tab2"><label>Table 2</label><caption><title>Regression estimates of security spending</title></caption>
<table><thead><tr><th>Variable</th><th>Coefficient</th></tr></thead><tbody>
<tr><td>Dominant party</td><td>&#x2212;0.092 (0.031)**</td></tr>
<tr><td>Health spending</td><td>0.013 (0.020)</td></tr>
<tr><td>Observations</td><td>1,204</td></tr>
</tbody></table>
<table-wrap-foot><fn><p>Standard errors in parentheses. * p &lt; .05, ** p &lt; .01.</p></fn></table-wrap-foot>
</table-wrap></sec></body></article>
"""


def test_prose_evidence_gets_the_results_of_the_row_it_cites(tmp_path: Path) -> None:
    path = tmp_path / "parties.nxml"
    path.write_text(JATS, encoding="utf-8")
    doc = load_document(path)
    claim = next(s for s in doc.sentences("body") if s.text.startswith("Dominant parties spent"))
    rows = cited_table_rows(doc, claim.text)
    assert rows and doc.tables[0].rows[[r.id for r in doc.tables[0].rows].index(rows[0])].text.find("Dominant party") >= 0
    assert cited_table_rows(doc, "Spending on health did not differ (p = .013).") == []  # no citation, and p is no tie
    tr = extract_traces(doc, ["Dominant parties spent less on security than other parties."], config="fulltext-zeroshot")[0]
    ev = tr.evidence
    assert ev is not None and ev.scope == "body" and claim.id in ev.sentence_ids  # the evidence stays the prose
    linked = [r for r in ev.statistics if r.get("linked_from") == "prose"]
    assert linked and linked[0]["row_id"] == rows[0] and linked[0]["table_id"] == doc.tables[0].id
    assert any(is_checked(r) for r in linked) and ev.statistics_summary.checked >= 1
    prose = [r for r in ev.statistics if not r.get("linked_from")]
    assert prose and not any(is_checked(r) for r in prose)  # the prose alone (b and p, no SE) is not checkable
