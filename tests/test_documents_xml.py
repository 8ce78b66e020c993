"""JATS, TEI and HTML readers on the real documents in ../shared/data, plus small crafted cases."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from claimtrace.documents import Document, load_document, read_bytes, sniff_format
from conftest import SHARED, ei_article, shared_path

_XML_FILES = sorted(
    [*SHARED.glob("documents/*/*.nxml"), *SHARED.glob("documents/*/*.tei.xml"),
     *SHARED.glob("statistics/statcheck-test-papers/*.htm")]
) if SHARED.exists() else []
_EXPECTED_FORMAT = {".nxml": "jats", ".xml": "tei", ".htm": "html"}


def check_consistent(doc: Document) -> None:
    """Offsets, ids and the JSON round trip of a Document."""
    assert doc.paragraphs, "no body paragraphs"
    assert doc.body_text == "\n\n".join(p.text for p in doc.paragraphs)
    assert doc.abstract_text == "\n\n".join(a.text for a in doc.abstract)
    ids: list[str] = []
    for p in doc.paragraphs:
        assert doc.body_text[p.start : p.end] == p.text
        ids.append(p.id)
        for s in p.sentences:
            assert doc.body_text[s.start : s.end] == s.text and s.text.strip() == s.text and s.text
            assert p.start <= s.start < s.end <= p.end
            ids.append(s.id)
    for a in doc.abstract:
        assert doc.abstract_text[a.start : a.end] == a.text
        ids.append(a.id)
        for s in a.sentences:
            assert doc.abstract_text[s.start : s.end] == s.text and s.scope == "abstract"
            ids.append(s.id)
    assert len(ids) == len(set(ids))
    again = Document.model_validate_json(doc.model_dump_json())
    assert again == doc
    assert json.loads(doc.model_dump_json())["schema_version"] == doc.schema_version


@pytest.mark.parametrize("path", _XML_FILES, ids=[p.name for p in _XML_FILES])
def test_every_shared_xml_and_html_document_parses(path: Path) -> None:
    doc = load_document(path)
    assert doc.source.format == _EXPECTED_FORMAT[path.suffix]
    check_consistent(doc)
    refs = {b.text for b in doc.excluded if b.kind == "references"}
    assert not any(p.text in refs for p in doc.paragraphs), "a reference entry leaked into the body"


def test_shared_documents_are_present() -> None:
    shared_path("documents")
    assert len(_XML_FILES) >= 18  # 11 JATS + 3 TEI + 4 HTML


def test_jats_structured_abstract_sections_tables_and_references() -> None:
    path = ei_article("PMC1087200")
    doc = load_document(path)
    assert doc.title and doc.title.startswith("Reduction of Malaria Transmission to Anopheles Mosquitoes")
    assert doc.authors[0] == "Colin J Sutherland" and len(doc.authors) == 10
    assert doc.metadata["pmcid"] == "1087200"
    labels = [a.label for a in doc.abstract]
    assert labels[0] == "BACKGROUND" and labels[-1] == "CONCLUSIONS" and "METHODS AND FINDINGS" in labels
    # the one-line summary (abstract-type="toc") is kept apart, not in the abstract
    summary = [b for b in doc.excluded if b.kind == "front matter"]
    assert summary and summary[0].text.startswith("Do treatment regimens in malaria also affect transmission")
    assert "Do treatment regimens" not in doc.abstract_text
    # inline citations kept in reading order, exactly as in the article
    txt = path.with_suffix(".txt").read_text()
    first = txt.split("BODY.INTRODUCTION:\n", 1)[1].split("\n", 1)[0]
    assert doc.paragraphs[0].text == first
    assert doc.paragraphs[0].section == "Introduction" and doc.paragraphs[0].section_kind == "introduction"
    kinds = {p.section: p.section_kind for p in doc.paragraphs}
    assert kinds["Methods / Data Analysis"] == "methods"
    assert kinds["Results / Gametocyte Prevalence and Density"] == "results"
    assert kinds["Discussion"] == "discussion"
    by_kind = {k: [b for b in doc.excluded if b.kind == k] for k in ("references", "caption", "figure", "footnote")}
    assert len(by_kind["references"]) >= 30
    assert {b.label for b in by_kind["caption"]} >= {"Table 1", "Table 2", "Table 3"}
    assert len(by_kind["figure"]) == 3
    assert not any(re.match(r"^Table \d", p.text) for p in doc.paragraphs)


def test_jats_table_with_rows_is_kept_as_cells() -> None:
    doc = load_document(shared_path("documents", "s2orc-doc2json", "PMC7417471.nxml"))
    tables = [b for b in doc.excluded if b.kind == "table"]
    assert tables and all(b.text for b in tables)
    assert any("\t" in b.text and "\n" in b.text for b in tables)


_JATS = b"""<?xml version="1.0"?>
<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Publishing DTD v1.2 20190208//EN" "JATS-journalpublishing1.dtd">
<article xmlns:mml="http://www.w3.org/1998/Math/MathML"><front><article-meta>
<title-group><article-title>A <italic>small</italic> trial</article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Doe</surname><given-names>Jane</given-names></name></contrib></contrib-group>
<abstract><p>One unstructured abstract.</p></abstract>
<abstract abstract-type="summary"><p>An author summary.</p></abstract>
</article-meta></front>
<body>
<sec><title>Methods</title>
 <sec><title>Participant characteristics</title><p>We enrolled <italic>n</italic> = 40 adults<sup>1</sup> [<xref ref-type="bibr" rid="r1">1</xref>].</p></sec>
 <sec><title>Statistical analysis</title><p>Means were compared with <inline-formula><mml:math><mml:mi>t</mml:mi><mml:mo>-</mml:mo><mml:mtext>tests</mml:mtext></mml:math></inline-formula> and the model
 <disp-formula id="e1"><label>(1)</label><mml:math><mml:mi>y</mml:mi><mml:mo>=</mml:mo><mml:mi>x</mml:mi></mml:math></disp-formula>
 where y is the outcome.</p></sec>
</sec>
<sec><title>Results</title>
 <sec><title>Primary outcome</title><p>Pain fell by 2&#x02009;points
 <table-wrap id="t1"><label>Table 1</label><caption><p>Outcomes</p></caption><table><tr><th>Arm</th><th>Pain</th></tr><tr><td>A</td><td>3.1</td></tr></table></table-wrap>
 (p&#x0003c;0.05).</p>
 <p>Two aims:<list><list-item><p>first aim;</p></list-item><list-item><p>second aim.</p></list-item></list></p></sec>
</sec>
<sec><title>Discussion</title><p>It worked.</p><p><bold>Conflicts of interest</bold></p><p>None declared.</p></sec>
<sec><title>Abbreviations</title><p>CI, confidence interval</p></sec>
</body>
<back><ack><p>We thank all.</p></ack><ref-list><ref id="r1"><label>1</label><mixed-citation>Roe R. A paper. J Med. 2001;1:1-2.</mixed-citation></ref></ref-list>
<fn-group><fn id="fn1"><p>A footnote.</p></fn></fn-group></back>
</article>
"""


def test_jats_crafted_inline_order_nesting_and_excluded_blocks() -> None:
    doc = read_bytes(_JATS, "crafted.nxml")
    assert doc.source.format == "jats"
    check_consistent(doc)
    assert doc.title == "A small trial" and doc.authors == ["Jane Doe"]
    assert doc.abstract_text == "One unstructured abstract."
    texts = [p.text for p in doc.paragraphs]
    assert texts[0] == "We enrolled n = 40 adults1 [1]."
    assert texts[1] == "Means were compared with t-tests and the model where y is the outcome."
    assert texts[2] == "Pain fell by 2 points (p<0.05)."
    assert texts[3:6] == ["Two aims:", "first aim;", "second aim."]
    assert texts[-1] == "It worked."  # the conflicts-of-interest pseudo-heading and its text are end matter
    sections = [(p.section, p.section_kind) for p in doc.paragraphs]
    assert sections[0] == ("Methods / Participant characteristics", "methods")
    assert sections[1] == ("Methods / Statistical analysis", "methods")
    assert sections[2] == ("Results / Primary outcome", "results")
    kinds = [(b.kind, b.text) for b in doc.excluded]
    assert ("front matter", "An author summary.") in kinds
    assert ("equation", "y=x", "(1)") in [(b.kind, b.text, b.label) for b in doc.excluded]
    assert ("caption", "Outcomes") in kinds and ("table", "Arm\tPain\nA\t3.1") in kinds
    assert ("acknowledgements", "We thank all.") in kinds
    assert ("references", "Roe R. A paper. J Med. 2001;1:1-2.") in kinds
    assert ("footnote", "A footnote.") in kinds
    assert any(k == "acknowledgements" and t == "None declared." for k, t in kinds)
    assert any(t.startswith("CI, confidence interval") for _, t in kinds)


def test_jats_without_body_keeps_abstract_and_warns() -> None:
    doc = load_document(shared_path("evidence-inference", "validation", "articles", "PMC4589005.nxml"))
    assert not doc.paragraphs and doc.abstract
    assert any("no body" in w for w in doc.warnings)


def test_tei_grobid_header_sections_and_back_matter() -> None:
    doc = load_document(shared_path("documents", "s2orc-doc2json", "2020.acl-main.207.tei.xml"))
    assert doc.source.format == "tei"
    assert doc.title == "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
    assert doc.authors[:2] == ["Arman Cohan", "Sergey Feldman"]
    assert doc.abstract_text.startswith("Representation learning is a critical ingredient")
    assert doc.paragraphs[0].section == "1 Introduction" and doc.paragraphs[0].section_kind == "introduction"
    assert any(p.section == "5 Results" and p.section_kind == "results" for p in doc.paragraphs)
    # GROBID's flat divs: "2.3 ..." takes the kind of its numbered parent
    kinds = {p.section: p.section_kind for p in doc.paragraphs}
    assert kinds["2.3 Citation-Based Pretraining Objective"] == kinds["2 Model 2.1 Overview"]
    counts = {k: sum(b.kind == k for b in doc.excluded) for k in ("references", "equation", "acknowledgements")}
    assert counts["references"] >= 40 and counts["equation"] >= 3 and counts["acknowledgements"] == 1
    assert not any("Triplet loss =max" in p.text for p in doc.paragraphs)
    assert not any("We thank Kyle Lo" in p.text for p in doc.paragraphs)


def test_tei_patent_sample_text_without_paragraphs() -> None:
    doc = load_document(shared_path("documents", "grobid", "service-sample1.tei.xml"))
    assert doc.body_text.startswith("The present invention relates to a cap for a container")
    assert sum(b.kind == "references" for b in doc.excluded) == 8
    assert len(doc.sentences()) > 100


def test_html_statcheck_paper_keeps_statistics_verbatim() -> None:
    doc = load_document(shared_path("statistics", "statcheck-test-papers", "Paper1.htm"))
    texts = [p.text for p in doc.paragraphs]
    assert "Qb(1) = 3.78, p < .05" in texts and "t(37) = -4.93, p <.001" in texts
    assert not any("font-family" in t for t in texts)  # the <style> is dropped


_HTML = b"""<!DOCTYPE html><html><head><title>Coffee and memory</title><style>p {color: red}</style>
<script>var x = "not text";</script></head><body><nav><a href="/">Home</a></nav><article>
<h1>Coffee and memory</h1>
<h2>Abstract</h2><p>Background: Coffee may help. Results: It did, p &lt; .05.</p>
<h2>Method</h2><h3>Statistical analysis</h3><p>We ran t(98) = 2.45, p = .016.</p>
<table><caption>Table 1. Means</caption><tr><th>Group</th><th>M</th></tr><tr><td>A</td><td>3.2</td></tr></table>
<h2>Results</h2><div>Loose text in a div.<p>A paragraph in the div.</p></div>
<p><b>References</b></p><ul><li>Doe, J. (2001). A paper. Journal, 1, 1-2.</li></ul>
</article></body></html>"""


def test_html_crafted_headings_abstract_tables_and_references() -> None:
    assert sniff_format(_HTML, "x.html") == "html"
    doc = read_bytes(_HTML, "crafted.html")
    check_consistent(doc)
    assert doc.title == "Coffee and memory"
    assert [(a.label, a.text) for a in doc.abstract] == [("BACKGROUND", "Coffee may help. Results: It did, p < .05.")]
    got = [(p.section, p.section_kind, p.text) for p in doc.paragraphs]
    assert got == [
        ("Method / Statistical analysis", "methods", "We ran t(98) = 2.45, p = .016."),
        ("Results", "results", "Loose text in a div."),
        ("Results", "results", "A paragraph in the div."),
    ]
    kinds = [(b.kind, b.text) for b in doc.excluded]
    assert ("caption", "Table 1. Means") in kinds and ("table", "Group\tM\nA\t3.2") in kinds
    assert ("references", "Doe, J. (2001). A paper. Journal, 1, 1-2.") in kinds
    assert "not text" not in doc.body_text and "Home" not in doc.body_text


def test_evidence_inference_gold_spans_lie_in_single_body_paragraphs() -> None:
    """Quality gate on real data: >= 98% of EI validation body spans inside one body paragraph."""
    import importlib.util

    shared_path("evidence-inference", "validation", "articles")
    spec = importlib.util.spec_from_file_location("ei_coverage", Path(__file__).parents[1] / "bench" / "ei_coverage.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.measure("validation")
    assert res["articles"] == 90
    counts = res["counts"]
    assert counts["body"] >= 200
    assert res["body_paragraph_coverage"] >= 0.98, res["missed"]
    assert res["abstract_coverage"] >= 0.95
    assert counts["abstract_missed"] == 0
    assert res["reference_entries_in_body"] == 0
