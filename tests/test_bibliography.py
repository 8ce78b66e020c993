"""The reference list and in-text citations in the Document: TEI, JATS and text reference sections."""

from __future__ import annotations

from claimtrace.documents.bibliography import normalize_doi, parse_entry, split_entries
from claimtrace.documents.readers import load_document, read_bytes
from conftest import shared_path

TEI = """<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt><title>T</title></titleStmt>
</fileDesc></teiHeader><text><body><div><head>Introduction</head>
<p>Mirror neurons <ref type="bibr" target="#b0">(Gallese &amp; Keysers, 2004;</ref>
<ref type="bibr">Smith et al., 2010)</ref> fire. Later <ref type="bibr" target="#b1">Doe (2012)</ref> agreed.</p>
</div></body><back><div type="references"><listBibl>
<biblStruct xml:id="b0"><analytic><title level="a">Mirrors</title><author><persName><surname>Gallese</surname>
</persName></author><author><persName><surname>Keysers</surname></persName></author></analytic><monogr>
<title level="j">Brain</title><imprint><date when="2004"/></imprint></monogr></biblStruct>
<biblStruct xml:id="b1"><analytic><title level="a">Agreeing</title><author><persName><surname>Doe</surname>
</persName></author><idno type="DOI">10.1000/XYZ.1</idno></analytic><monogr><title level="j">Mind</title>
<imprint><date when="2012"/></imprint></monogr></biblStruct>
<biblStruct xml:id="b2"><analytic><title level="a">Smiths</title><author><persName><surname>Smith</surname>
</persName></author><author><persName><surname>Jones</surname></persName></author><author><persName>
<surname>Lee</surname></persName></author></analytic><monogr><title level="j">Mind</title><imprint>
<date when="2010"/></imprint></monogr></biblStruct>
</listBibl></div></back></text></TEI>"""


def test_tei_entries_and_citations_with_offsets() -> None:
    doc = read_bytes(TEI.encode(), "t.tei.xml")
    assert [r.id for r in doc.references] == ["b0", "b1", "b2"]
    assert doc.references[1].doi == "10.1000/XYZ.1" and doc.references[0].authors == ["Gallese", "Keysers"]
    assert [c.text for c in doc.citations] == ["(Gallese & Keysers, 2004;", "Smith et al., 2010)", "Doe (2012)"]
    for c in doc.citations:
        assert c.start is not None and c.end is not None
        assert doc.body_text[c.start:c.end] == c.text
        assert c.unit_id and doc.unit(c.unit_id).text.find(c.text) >= 0
    assert doc.citations[0].ref_ids == ["b0"] and doc.citations[0].via == "xml"
    # GROBID left the second unlinked: the author-year fall-back links it to Smith, Jones & Lee 2010
    assert doc.citations[1].ref_ids == ["b2"] and doc.citations[1].via == "text"


def test_psychsci_tei_counts_match_the_xml() -> None:
    path = shared_path("documents", "psychsci", "0956797613520608.xml")
    doc = load_document(path)
    raw = path.read_text()
    assert len(doc.references) == raw.count('<biblStruct xml:id="b') == 41  # the header's has no id
    assert len(doc.citations) == raw.count('<ref type="bibr"')
    for c in doc.citations:
        if c.start is not None and c.scope == "body":
            assert doc.body_text[c.start:c.end] == c.text


def test_jats_xref_ranges_cite_the_entries_between() -> None:
    xml = b"""<article><front><article-meta><title-group><article-title>T</article-title></title-group>
    </article-meta></front><body><sec><title>Intro</title><p>As shown before [<xref ref-type="bibr" rid="B1">1</xref>
    &#8211;<xref ref-type="bibr" rid="B3">3</xref>] and <xref ref-type="bibr" rid="B9">9</xref>.</p></sec></body>
    <back><ref-list><ref id="B1"><label>1</label><element-citation><person-group><name><surname>A</surname>
    </name></person-group><article-title>One</article-title><source>J</source><year>2001</year>
    <pub-id pub-id-type="doi">10.1/one</pub-id></element-citation></ref>
    <ref id="B2"><element-citation><article-title>Two</article-title><year>2002</year></element-citation></ref>
    <ref id="B3"><element-citation><article-title>Three</article-title><year>2003</year></element-citation></ref>
    </ref-list></back></article>"""
    doc = read_bytes(xml, "a.nxml")
    assert [r.id for r in doc.references] == ["B1", "B2", "B3"]
    assert doc.references[0].doi == "10.1/one" and doc.references[0].label == "1"
    assert [c.ref_ids for c in doc.citations] == [["B1"], ["B2", "B3"], []]
    assert [doc.body_text[c.start:c.end] for c in doc.citations if c.start is not None] == ["1", "3", "9"]


def test_text_reference_section_author_year_and_numbered() -> None:
    text = ("Introduction\n\nCreativity rises with dishonesty (Gino & Wiltermuth, 2014; see also Lee et al., 2019) "
            "and Smith (2021) disagrees, as does (Smithy, 2020).\n\nReferences\n\n"
            "Gino, F., & Wiltermuth, S. S. (2014). Evil genius? How dishonesty can lead to greater creativity. "
            "Psychological Science, 25(4), 973-981. https://doi.org/10.1177/0956797614520714\n"
            "Lee, A., Park, B., & Kim, C. (2019). A title. Journal, 1, 2.\n"
            "Smith, F. (2021). Human error. Journal of Journals, 0(0), 0.\n"
            "Lakens, D. (2018). Equivalence testing. AMPPS, 1, 259-270.\n")
    doc = read_bytes(text.encode(), "paper.txt")
    assert [r.authors[0] for r in doc.references] == ["Gino", "Lee", "Smith", "Lakens"]
    assert doc.references[0].doi == "10.1177/0956797614520714" and doc.references[0].year == "2014"
    by_text = {c.text: c.ref_ids for c in doc.citations}
    assert by_text["(Gino & Wiltermuth, 2014; see also Lee et al., 2019)"] == ["r1", "r2"]
    assert by_text["Smith (2021)"] == ["r3"]
    assert by_text["(Smithy, 2020)"] == []
    for c in doc.citations:
        assert doc.body_text[c.start:c.end] == c.text


def test_numbered_entries_split_in_sequence() -> None:
    entries = split_entries("1. Alpha A. A study of 2 things. J 2001;3:4.\n2. Beta B. More. J 2002.\n"
                            "[3] Gamma C. Last 12. thing. J 2003.")
    assert [lab for lab, _ in entries] == ["1", "2", "3"]
    assert entries[0][1].startswith("Alpha A. A study of 2 things")
    ref = parse_entry(entries[1][1], "r2", "2")
    assert ref.year == "2002" and ref.authors[0] == "Beta"


def test_normalize_doi() -> None:
    assert normalize_doi("https://doi.org/10.1177/ABC.") == "10.1177/abc"
    assert normalize_doi("doi: 10.1/x);") == "10.1/x"
    assert normalize_doi("") is None


def test_pdf_line_breaks_inside_dois_and_particles() -> None:
    raw = ("Teneggi, C., Canzoneri, E., di Pellegrino, G., & Serino, A. (2013). Social modulation. Current Biology, "
           "23, 406-411. doi:10.1016/j .cub.2013.01.043")
    ref = parse_entry(raw, "r1")
    assert ref.doi == "10.1016/j.cub.2013.01.043" and ref.authors == ["Teneggi", "Canzoneri", "di Pellegrino", "Serino"]
    assert parse_entry("Freud, E. (2017). T. Cortex, 27, 4. doi:10.1093/ cercor/bhv229", "r2").doi == "10.1093/cercor/bhv229"
    assert parse_entry("Alberts, S. C. 1999 Kin. Proc. R. Soc. B 266, 1. (DOI 10. 1098/rspb.1999.0807.)", "r3").doi \
        == "10.1098/rspb.1999.0807"
    entries = split_entries("Serino, A. (2011). One. J, 1, 2. " + raw)
    assert [e[1][:7] for e in entries] == ["Serino,", "Teneggi"]


def test_sentence_adverbs_and_possessives_are_not_authors() -> None:
    text = ("Intro\n\nSimilarly, Dubey (1991) agreed, and Simonsohn\u2019s (2015) method too.\n\nReferences\n\n"
            "Dubey, P. (1991). A. J, 1, 2.\nSimonsohn, U. (2015). B. J, 3, 4.\n")
    doc = read_bytes(text.encode(), "a.txt")
    assert [c.ref_ids for c in doc.citations] == [["r1"], ["r2"]]
