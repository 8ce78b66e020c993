"""The reference and open-science checks through ``run_checks``: real papers, a Retraction Watch CSV in the
open data set's format, and online look-ups against a real HTTP server on loopback (never the internet)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from claimtrace.checks._online import Fetcher
from claimtrace.checks.base import CheckContext, CheckOptions, registered_checks, run_checks
from claimtrace.checks.openscience import find_links, read_statements
from claimtrace.checks.references import doi_problem
from claimtrace.documents.readers import load_document, read_bytes
from claimtrace.errors import InputError
from conftest import shared_path

RW_HEADER = ("Record ID,Title,Subject,Institution,Journal,Publisher,Country,Author,URLS,ArticleType,RetractionDate,"
             "RetractionDOI,RetractionPubMedID,OriginalPaperDate,OriginalPaperDOI,OriginalPaperPubMedID,"
             "RetractionNature,Reason,Paywalled,Notes")
REF_IDS = ["reference-unlisted", "reference-uncited", "reference-doi", "reference-retracted", "reference-doi-title"]


def _rw_csv(tmp_path: Path) -> Path:
    path = tmp_path / "retraction_watch.csv"
    path.write_text("\n".join([
        RW_HEADER,
        '44431,"Evil Genius? How Dishonesty Can Lead to Greater Creativity",(SOC) Psychology;,"Harvard",'
        'Psychological Science,SAGE,United States,Francesca Gino;Scott S Wiltermuth,,Research Article;,'
        '6/13/2024 0:00,10.1177/09567976241263286,0,4/1/2014 0:00,10.1177/0956797614520714,24718818,'
        'Retraction,+Concerns/Issues About Data;,No,',
        '9999,"Another paper",(SOC) Psychology;,"X",Journal,Pub,NL,A B,,Research Article;,1/2/2020 0:00,'
        '10.1/notice,0,1/1/2018 0:00,10.1177/2515245918770963,0,Correction,+Error in Table;,No,',
        '9998,"Unrelated",(BLS) Biology;,"Y",J,P,US,C D,,Research Article;,1/2/2020 0:00,10.2/n,0,1/1/2018 0:00,'
        '10.9999/nothing.cited,0,Retraction,+Plagiarism;,No,',
    ]) + "\n")
    return path


def _demo() -> Path:
    return shared_path("documents", "pdf-twins", "to_err_is_human.pdf")


def test_checks_are_registered() -> None:
    ids = {c.id for c in registered_checks()}
    assert set(REF_IDS) <= ids and {"openscience-links", "openscience-statements"} <= ids


@pytest.mark.parametrize("name", ["to_err_is_human.pdf", "to_err_is_human.tei.xml"])
def test_demo_paper_reference_rows(name: str, tmp_path: Path) -> None:
    """metacheck's demo paper: a mismatched citation, uncited entries and a retracted cited work."""
    doc = load_document(shared_path("documents", "pdf-twins", name))
    rows = run_checks(CheckContext(doc, [], CheckOptions(retractions=_rw_csv(tmp_path))), only=REF_IDS)
    got = {(r.check, r.severity, r.message) for r in rows}
    assert ("reference-unlisted", "warn", "Cited 'Smithy, 2020' has no entry in the reference list.") in got
    assert ("reference-uncited", "warn", "Reference entry Smith (2021) is never cited in the text.") in got
    retracted = [r for r in rows if r.check == "reference-retracted" and r.severity == "error"]
    assert len(retracted) == 1 and retracted[0].data["doi"] == "10.1177/0956797614520714"
    assert retracted[0].data["nature"] == "Retraction" and retracted[0].location is not None
    assert retracted[0].location.unit_id  # located at the citation in the text
    assert "10.9999/nothing.cited" not in json.dumps([r.data for r in rows])
    assert not any(r.check == "reference-doi-title" for r in rows)  # online checks are off by default
    for r in rows:
        assert r.message and "\n" not in r.message
        assert r.severity == "ok" or r.guidance
    if name.endswith(".pdf"):  # the PDF keeps all three entries (GROBID's TEI lost Lakens 2018)
        assert ("reference-uncited", "warn", "Reference entry Lakens (2018) is never cited in the text.") in got
        corr = [r for r in rows if r.check == "reference-retracted" and r.data.get("nature") == "Correction"]
        assert len(corr) == 1 and corr[0].severity == "warn"
        unlisted = next(r for r in rows if r.check == "reference-unlisted")
        assert unlisted.location is not None and unlisted.location.page == 1
        assert doc.body_text[unlisted.location.start:unlisted.location.end] == "(Smithy, 2020)"


def test_bad_retraction_csv_is_an_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "rw.csv"
    bad.write_text("doi,what\n10.1/x,Retraction\n")
    doc = read_bytes(b"Intro\n\nText (Smith, 2010).\n\nReferences\n\nSmith, A. (2010). T. J, 1, 2.\n", "a.txt")
    with pytest.raises(InputError, match="not a Retraction Watch CSV"):
        run_checks(CheckContext(doc, [], CheckOptions(retractions=bad)), only=["reference-retracted"])
    with pytest.raises(InputError, match="no such"):
        run_checks(CheckContext(doc, [], CheckOptions(retractions=tmp_path / "none.csv")),
                   only=["reference-retracted"])


def test_malformed_dois() -> None:
    assert doi_problem("10.1177/0956797614520714") is None
    assert doi_problem("https://doi.org/10.1037/a0031234.") is None
    assert doi_problem("10.1177/09567 97614520714") == "it holds a space"
    assert doi_problem(".org/10.1186/1472-6963-9-8") == "it does not start with '10.'"
    assert doi_problem("10.12/abc") is not None and doi_problem("10.1037/") is not None
    text = ("Intro\n\nWe cite (Smith, 2010) and (Lee, 2011).\n\nReferences\n\n"
            "Smith, A. (2010). Title. Journal, 1, 2. doi:10.1177-0956797614520714\n"
            "Lee, B. (2011). Other. Journal, 3, 4. doi:10.1037/a0031234\n")
    rows = run_checks(CheckContext(read_bytes(text.encode(), "p.txt"), []), only=["reference-doi"])
    assert [r.severity for r in rows] == ["warn"] and "10.1177-0956797614520714" in rows[0].message


# ---- loopback server ------------------------------------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, str]]] = {}
    hits: ClassVar[list[tuple[str, float]]] = []

    def do_GET(self) -> None:
        type(self).hits.append((self.path, time.monotonic()))
        status, body = type(self).routes.get(self.path, (404, "{}"))
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[tuple[str, type[_Handler]]]:
    handler = type("H", (_Handler,), {"routes": {}, "hits": []})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", handler
    finally:
        srv.shutdown()
        srv.server_close()


def _crossref(title: str) -> str:
    return json.dumps({"status": "ok", "message-type": "work", "message": {"title": [title], "DOI": "x"}})


def test_doi_titles_online_cached_and_rate_limited(server: tuple[str, type[_Handler]], tmp_path: Path) -> None:
    base, handler = server
    handler.routes.update({
        "/works/10.1177/0956797614520714": (200, _crossref("Evil Genius? How Dishonesty Can Lead to Greater "
                                                           "Creativity")),
        "/works/10.1177/2515245918770963": (200, _crossref("Sleep quality in adolescent rats")),
    })  # 10.0000/0123456789 is not registered: 404
    doc = load_document(_demo())
    extra: dict[str, object] = {"crossref_url": base, "rate_limit_s": 0.25}
    fetcher = Fetcher(CheckOptions(online=True, cache_dir=tmp_path / "cache", extra=extra))
    opts = CheckOptions(online=True, cache_dir=tmp_path / "cache", extra={**extra, "fetcher": fetcher})
    rows = run_checks(CheckContext(doc, [], opts), only=["reference-doi-title"])
    by_doi = {r.data["doi"]: r for r in rows}
    assert by_doi["10.1177/2515245918770963"].severity == "warn"
    assert "different title" in by_doi["10.1177/2515245918770963"].message
    assert by_doi["10.0000/0123456789"].severity == "warn" and "not registered" in by_doi["10.0000/0123456789"].message
    assert "10.1177/0956797614520714" not in by_doi  # the title matches: no row
    assert len(handler.hits) == 3 and len(fetcher.sent) == 3  # requests leave at least 0.25 s apart
    assert all(b - a >= 0.25 for a, b in itertools.pairwise(fetcher.sent))
    again = run_checks(CheckContext(doc, [], opts), only=["reference-doi-title"])
    assert len(handler.hits) == 3  # all from the cache
    assert [r.message for r in again] == [r.message for r in rows]
    off = run_checks(CheckContext(doc, [], CheckOptions(extra={"crossref_url": base})), only=["reference-doi-title"])
    assert off == [] and len(handler.hits) == 3


PAPER = """Method

The study was preregistered at https://osf .io/ab cde/ and the code is on github. com/ lab/ tool.
Materials are at https://osf.io/zzzz9 and the pilot at https://osf.io/qqqq1 (see https://aspredicted.org/blind
.php?x=k7m2p9).

Results

The data are not publicly available because participants did not consent to sharing.
The Bayesian analyses were not preregistered.
"""


def test_links_repaired_and_their_status_online(server: tuple[str, type[_Handler]], tmp_path: Path) -> None:
    base, handler = server
    handler.routes.update({"/osf/v2/guids/abcde/": (200, "{}"), "/osf/v2/guids/zzzz9/": (403, "{}"),
                           "/gh/lab/tool": (200, "<html></html>"), "/ap/blind.php?x=k7m2p9": (401, "")})
    doc = read_bytes(PAPER.encode(), "paper.txt")
    rows = run_checks(CheckContext(doc, []), only=["openscience-links"])
    urls = [r.data["url"] for r in rows]
    assert urls == ["https://osf.io/abcde", "https://github.com/lab/tool", "https://osf.io/zzzz9",
                    "https://osf.io/qqqq1", "https://aspredicted.org/blind.php?x=k7m2p9"]
    assert rows[0].data["repaired"] and rows[1].data["repaired"] and not rows[2].data["repaired"]
    assert all(r.severity == "info" for r in rows) and not handler.hits  # offline: nothing asked
    opts = CheckOptions(online=True, cache_dir=tmp_path, extra={
        "osf_api_url": base + "/osf", "rate_limit_s": 0,
        "url_rewrite": {"https://github.com": base + "/gh", "https://aspredicted.org": base + "/ap"}})
    status = {r.data["url"]: (r.severity, r.data["status"]) for r in
              run_checks(CheckContext(doc, [], opts), only=["openscience-links"])}
    assert status == {"https://osf.io/abcde": ("ok", "open"), "https://github.com/lab/tool": ("ok", "open"),
                      "https://osf.io/zzzz9": ("warn", "private"), "https://osf.io/qqqq1": ("warn", "not found"),
                      "https://aspredicted.org/blind.php?x=k7m2p9": ("warn", "private")}


def test_statements_positive_negative_and_missing() -> None:
    doc = read_bytes(PAPER.encode(), "paper.txt")
    rows = {r.data["topic"]: r for r in run_checks(CheckContext(doc, []), only=["openscience-statements"])}
    assert rows["data"].data["status"] == "not available" and rows["data"].severity == "info"
    assert rows["data"].location is not None and rows["data"].location.unit_id
    # a negative statement about part of the work outranks the positive one, and is quoted as written
    assert rows["preregistration"].data["status"] == "not preregistered"
    assert "Bayesian analyses were not preregistered" in rows["preregistration"].message
    assert rows["code"].data["status"] == "available"
    assert rows["materials"].data["status"] == "available"
    assert read_statements("When these procedures are not pre-registered, they allow flexibility.") == []
    assert read_statements("Specifically, no data were available from individuals older than 97 years.") == []
    assert [s.status for s in read_statements("All code is available from the authors on reasonable request.")] \
        == ["on request"]
    empty = read_bytes(b"Intro\n\nWe measured things (p < .05).\n", "e.txt")
    missing = run_checks(CheckContext(empty, []), only=["openscience-statements"])
    assert {r.data["status"] for r in missing} == {"not stated"} and len(missing) == 4


def test_find_links_pdf_damage() -> None:
    got = [(f.kind, f.url) for f in find_links(
        "at https://osf.io/2f8yn/?view_only=8ac1f586d72f4a33af6f  f84a5c44227b; https://doi.org/10.17605/OSF.IO/4TYM7;"
        " https://dataverse.harvard.edu/dataset .xhtml?persistentId=doi:10.7910/DVN/26910. and 10.5281/zenodo.12345"
        " and https://researchbox.org/801 and figshare.com/articles/x/123")]
    assert got == [("osf", "https://osf.io/2f8yn/?view_only=8ac1f586d72f4a33af6ff84a5c44227b"),
                   ("osf", "https://doi.org/10.17605/OSF.IO/4TYM7"),
                   ("dataverse", "https://dataverse.harvard.edu/dataset.xhtml?persistentId=doi:10.7910/DVN/26910"),
                   ("zenodo", "https://doi.org/10.5281/zenodo.12345"), ("researchbox", "https://researchbox.org/801"),
                   ("figshare", "https://figshare.com/articles/x/123")]


GROUP_TEI = """<?xml version="1.0" encoding="UTF-8"?>
<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt><title>T</title></titleStmt>
</fileDesc></teiHeader><text><body><div><head>Method</head>
<p>Diagnoses followed the manual <ref type="bibr">(APA, 2013)</ref> and a census scheme
<ref type="bibr">(Office of Population Surveys, 1991)</ref>. The painter was <ref type="bibr">Born 1883</ref> in Riga.
A misspelt one <ref type="bibr">(Rijisdijk &amp; Sham, 2002)</ref>.</p>
</div></body><back><div type="references"><listBibl>
<biblStruct xml:id="b0"><monogr><title level="m">Diagnostic and statistical manual of mental disorders</title>
<imprint><publisher>Author</publisher><date when="2013"/></imprint></monogr></biblStruct>
<biblStruct xml:id="b1"><monogr><title level="m">Social classifications</title><imprint><date when="1991"/>
</imprint></monogr></biblStruct>
<biblStruct xml:id="b2"><analytic><title level="a">Twins</title><author><persName><surname>Rijsdijk</surname>
</persName></author><author><persName><surname>Sham</surname></persName></author></analytic><monogr>
<title level="j">Brief Bioinf</title><imprint><date when="2002"/></imprint></monogr></biblStruct>
</listBibl></div></back></text></TEI>"""


def test_group_authors_dates_and_misspelt_citations() -> None:
    """A group author GROBID kept only as "Author" counts as listed; a bare "Born 1883" is no citation."""
    doc = read_bytes(GROUP_TEI.encode(), "g.tei.xml")
    rows = run_checks(CheckContext(doc, []), only=["reference-unlisted"])
    assert [r.message for r in rows] == ["Cited 'Rijisdijk & Sham, 2002' has no entry in the reference list."]


def test_on_request_outranks_not_public() -> None:
    got = read_statements("Data and materials have not been made publicly available but can be requested via email.")
    assert [(s.topic, s.status) for s in got] == [("data", "on request"), ("materials", "on request")]
    got = read_statements("All data, code, and study materials have been made publicly available on OSF.")
    assert {s.topic for s in got} == {"data", "code", "materials"}


def test_numbered_citation_with_no_entry() -> None:
    text = ("Introduction\n\nEarlier work [1, 2] and a review [3-4] disagree with [9].\n\nReferences\n\n"
            "1. Alpha A. One study. J Psych 2001;3:4.\n2. Beta B. Two. J Psych 2002;5:6.\n"
            "3. Gamma C. Three. J Psych 2003;7:8.\n4. Delta D. Four. J Psych 2004;9:10.\n")
    doc = read_bytes(text.encode(), "n.txt")
    assert [r.label for r in doc.references] == ["1", "2", "3", "4"]
    assert [c.ref_ids for c in doc.citations] == [["r1", "r2"], ["r3", "r4"], []]
    rows = run_checks(CheckContext(doc, []), only=["reference-unlisted", "reference-uncited"])
    assert [(r.check, r.severity, r.message) for r in rows] == [
        ("reference-unlisted", "warn", "Cited [9] has no entry in the numbered reference list."),
        ("reference-uncited", "ok", "All 4 reference entries are cited.")]


def _unlisted_at(paper: str, unit: str) -> list[str]:
    doc = load_document(shared_path("documents", "psychsci", f"{paper}.xml"))
    rows = run_checks(CheckContext(document=doc, stats=[]), checks=registered_checks(), only=["reference-unlisted"])
    return [r.message for r in rows if r.severity == "warn" and r.location and r.location.unit_id == unit]


def test_a_group_author_with_in_whose_entry_lost_it_is_listed() -> None:
    # "(Scottish Council for Research in Education, 1949)": GROBID's entry of 1949 has no author left
    assert _unlisted_at("0956797618804501", "p6.s1") == []
    # a group author with no entry at all is still flagged: "(... Neurobehavioral Systems, 2019)"
    assert _unlisted_at("0956797621995197", "p10.s6") == ["Cited 'Systems, 2019' has no entry in the reference list."]


def test_a_named_thing_after_an_article_is_no_author() -> None:
    from claimtrace.documents.bibliography import _split_items

    # "(the Devil Task, Slovic, 1966)": Slovic (1966) is listed
    assert [it.names for it in _split_items("(the Devil Task, Slovic, 1966)")] == [("Slovic",)]
    assert _unlisted_at("09567976241266516", "p3.s3") == []
    assert [it.names for it in _split_items("(Smith & Doe, 2010)")] == [("Smith", "Doe")]


def test_statements_of_some_analyses_and_code_that_we_used() -> None:
    # 09567976221116892: only the exploratory analyses were not preregistered; the plans were
    assert read_statements("Therefore, in further exploratory (not preregistered) analyses, we examined whether "
                           "selection was moderated by gender.") == []
    assert [s.status for s in read_statements("This study was not preregistered.")] == ["not preregistered"]
    # 09567976221145316: "The custom code that we used for the study is available at https://zenodo.org/..."
    doc = load_document(shared_path("documents", "psychsci", "09567976221145316.xml"))
    rows = run_checks(CheckContext(document=doc, stats=[]), checks=registered_checks(),
                      only=["openscience-statements"])
    (code,) = [r for r in rows if r.data.get("topic") == "code"]
    assert code.data["status"] == "available" and "zenodo" in (code.text or "")
    doc = load_document(shared_path("documents", "psychsci", "09567976221116892.xml"))
    rows = run_checks(CheckContext(document=doc, stats=[]), checks=registered_checks(),
                      only=["openscience-statements"])
    (prereg,) = [r for r in rows if r.data.get("topic") == "preregistration"]
    assert prereg.data["status"] == "preregistered"


def _uncited(paper: str) -> list[str]:
    doc = load_document(shared_path("documents", "psychsci", f"{paper}.xml"))
    rows = run_checks(CheckContext(document=doc, stats=[]), checks=registered_checks(), only=["reference-uncited"])
    return [r.message for r in rows if r.severity == "warn"]


def test_a_surname_with_a_letter_beyond_ascii_is_looked_for_whole() -> None:
    # "(Muñoz et al., 2010)" and "(Võ & Wolfe, 2012, 2013)": the surname was cut at the ñ / õ and never found
    assert not [m for m in _uncited("09567976231204035") if "Muñoz" in m]
    assert not [m for m in _uncited("09567976231154804") if "Võ" in m]
    # an entry the text never names is still flagged
    assert "Reference entry Kahneman & Tversky (1984) is never cited in the text." in _uncited("09567976241249183")


def test_an_undated_entry_cited_with_n_d_is_cited() -> None:
    # "(Statista, n.d.)" for the entry "Average monthly wage in The Netherlands in 2021 Statista": no date parsed,
    # the year in its title is no date
    assert not [m for m in _uncited("09567976231185129") if "Average monthly wage" in m]


def _twin_uncited(name: str) -> list[tuple[str, str]]:
    """reference-uncited rows (severity, message) of a pdf-twins file."""
    doc = load_document(shared_path("documents", "pdf-twins", name))
    return [(r.severity, r.message) for r in run_checks(CheckContext(doc, []), only=["reference-uncited"])]


def test_a_download_stamp_is_no_uncited_entry() -> None:
    """debruine-sex's TEI: GROBID made an entry of the page's running head and download stamp ("Facial resemblance
    increases attractiveness L. M. DeBruine 2089 Proc. R. Soc. Lond. B (2004) Downloaded from ..."): no reference."""
    doc = load_document(shared_path("documents", "pdf-twins", "debruine-sex.tei.xml"))
    assert any("Downloaded from" in r.raw for r in doc.references)
    assert not [m for s, m in _twin_uncited("debruine-sex.tei.xml") if "Debruine (2004)" in m]


def test_numbered_tei_entries_not_linked_are_info() -> None:
    """eyecolor's TEI (numbered): GROBID tagged some superscripts ("6, 7" in the abstract, which the reader skips)
    and none of "1", "2,3", "osf.io/he4ty21": an entry not linked is info, not a warning. An author-year TEI keeps
    its warning: incest cites "Lieberman et al., 2007, 2002" and lists 2003."""
    rows = _twin_uncited("eyecolor.tei.xml")
    assert rows and {s for s, _m in rows} == {"info"}
    assert any("Laeng et al. (2007)" in m for _s, m in rows)
    assert [s for s, m in _twin_uncited("incest.tei.xml") if "Lieberman" in m] == ["warn"]
