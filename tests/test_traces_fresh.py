"""The fresh social-science traces (``bench/data/traces-fresh``) and the scoring of ``bench/traces_fresh.py``: the
offsets rebuild verbatim strings of the shared TEI renderings, no paper is a development paper, the gold is found
in our PDF reader's Document of the same paper, and the TEI-right/PDF-wrong classes follow that lookup."""

from __future__ import annotations

import sys
from typing import Any

from conftest import REPO, shared_path

sys.path.insert(0, str(REPO / "bench"))

import traces_fresh


def test_fresh_gold_rebuilds_outside_development_papers() -> None:
    """Nine traces, every string in its paper's rendering, none in documents/psychsci; the statcheck files skipped."""
    data = shared_path("documents", "pdf-twins")
    mod = traces_fresh.loader()
    recs = mod.load_fresh(data.parents[1])
    assert len(recs) == 9
    dev = {p.name.removesuffix(".xml") for p in (data.parent / "psychsci").glob("*.xml")}
    for r in recs:
        assert r["paper"].removeprefix("psychsci-") not in dev
        text = "\n".join(mod.blocks(data.parents[1], r["paper"]).values())
        for s in [r["finding"], *r["hypothesis"], *r["evidence"]]:
            assert s and s in text
    assert {r["paper"] for r in mod.skipped()} == {"Paper1", "Paper2", "Paper3", "Paper4_multiplepages"}


def test_gold_evidence_is_found_in_the_pdf_document() -> None:
    """``located`` finds the gold evidence of a real PDF read by claimtrace, and not a sentence the paper lacks."""
    from claimtrace.documents import load_document

    pdf = shared_path("documents", "pdf-twins", "incest.pdf")
    g = next(r for r in traces_fresh.loader().load_fresh(shared_path()) if r["paper"] == "incest")
    doc = load_document(pdf)
    assert traces_fresh.located(doc, g["evidence"])
    assert not traces_fresh.located(doc, ["Umpires called fewer strikes after being criticized by the home team."])


def _row(paper: str, finding: bool, hyp: bool, ev: bool) -> dict[str, Any]:
    return {"paper": paper, "finding_hit": finding, "hypothesis_hit": hyp, "evidence_hit": ev}


def test_reading_failures_class_by_the_pdf_document() -> None:
    """TEI right and PDF wrong is a reading failure only where the PDF Document lacks the gold; PDF finding misses
    leave its stages unjudged; PDF right and TEI wrong is not listed."""
    tei = [_row("a", True, True, True), _row("b", True, True, False), _row("c", True, False, True)]
    pdf = [_row("a", True, False, False), _row("b", False, False, False), _row("c", True, True, True)]
    in_pdf = {("a", "hypothesis"): False, ("a", "evidence"): True, ("b", "finding"): True}
    out = traces_fresh.reading_failures(tei, pdf, in_pdf)
    assert [(f["paper"], f["stage"], f["pdf_reading_failure"]) for f in out] == [
        ("a", "hypothesis", True), ("a", "evidence", False), ("b", "finding", False)]
