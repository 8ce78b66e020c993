"""The embedded two-stage pipeline and the extract CLI on real papers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError
from claimtrace.extract.model import ClaimTrace, trace_json_schema
from claimtrace.extract.pipeline import FindingInput, extract_traces
from conftest import REPO, SAMPLE, shared_path

CLI = [sys.executable, "-m", "claimtrace"]


def test_detected_findings_trace_to_hypothesis_and_evidence() -> None:
    doc = load_document(SAMPLE)
    traces = extract_traces(doc)
    assert traces
    for tr in traces:
        assert tr.finding.source == "detected" and tr.finding.sentence_id
        assert tr.hypothesis is not None and tr.hypothesis.start is not None
        assert doc.body_text[tr.hypothesis.start:tr.hypothesis.end] == tr.hypothesis.text
        ev = tr.evidence
        assert ev is not None and 1 <= len(ev.sentence_ids) <= 3
        assert doc.body_text[ev.start:ev.end] == ev.text
        assert ev.section_kind == "results"
        assert ev.statistics and all(ev.start <= r["start"] < r["end"] <= ev.end for r in ev.statistics)
    # the aim sentence closing the introduction is the core hypothesis of this trial
    assert "we set out to compare" in traces[0].hypothesis.text


def test_given_hypothesis_skips_stage_one_and_evidence_has_parsed_p() -> None:
    doc = load_document(SAMPLE)
    hyp = "Hydrotherapy improves self-reported overall well being more than land exercise."
    tr = extract_traces(doc, [FindingInput(text="hydrotherapy vs land: feeling much better", hypothesis=hyp)],
                        max_evidence_sentences=1)[0]
    assert tr.hypothesis is not None and tr.hypothesis.located == "user" and tr.hypothesis.start is None
    assert [f.code for f in tr.flags] == ["hypothesis_not_in_paper"]
    assert tr.evidence is not None and len(tr.evidence.sentence_ids) == 1
    assert "much better" in tr.evidence.text
    assert any(r["p_value"] == 0.001 for r in tr.evidence.statistics)


def test_trace_schema_and_roundtrip() -> None:
    doc = load_document(SAMPLE)
    tr = extract_traces(doc, ["hydrotherapy vs land: pain score"])[0]
    again = ClaimTrace.model_validate_json(tr.model_dump_json())
    assert again == tr
    schema = trace_json_schema()
    assert "finding" in schema["required"] and "Evidence" in json.dumps(schema)


def test_pdf_paper_has_pages() -> None:
    pdf = next(iter(sorted(shared_path("statistics", "statcheck-test-papers").glob("*.pdf"))))
    doc = load_document(pdf)
    tr = extract_traces(doc, ["the effect on the dependent variable"])[0]
    assert tr.evidence is not None and tr.evidence.page is not None and tr.evidence.page >= 1


def test_cli_report_json_and_errors(tmp_path: Path) -> None:
    res = subprocess.run([*CLI, "extract", str(SAMPLE), "--extractor", "embedded"], capture_output=True, text=True,
                         cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "Finding 1" in res.stdout and "Hypothesis" in res.stdout and "p < 0.001" in res.stdout
    res = subprocess.run([*CLI, "extract", str(SAMPLE), "--extractor", "embedded", "--json", "--finding", "hydrotherapy vs land: walk time"],
                         capture_output=True, text=True, cwd=REPO, timeout=120)
    data = json.loads(res.stdout)
    assert data["schema_version"] and data["traces"][0]["finding"]["source"] == "user"
    bad = subprocess.run([*CLI, "extract", str(tmp_path / "missing.pdf")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr
    bad = subprocess.run([*CLI, "extract", str(SAMPLE), "--config", "nope"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "fulltext-zeroshot" in bad.stderr


@pytest.mark.slow
def test_cli_batch_records_failures_and_resumes(tmp_path: Path) -> None:
    man = tmp_path / "m.jsonl"
    man.write_text("\n".join(json.dumps(x) for x in [
        {"id": "a", "doc": str(SAMPLE), "findings": [{"text": "hydrotherapy vs land: pain", "hypothesis": "Hydrotherapy reduces pain."}]},
        {"id": "b", "doc": str(tmp_path / "missing.nxml")},
        {"id": "c", "doc": str(SAMPLE), "findings": [3]},
    ]) + "\n")
    out = tmp_path / "out.jsonl"
    res = subprocess.run([*CLI, "extract", "--batch", str(man), "--out", str(out), "--extractor", "embedded"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["a"]["error"] is None and rows["a"]["traces"][0]["evidence"]["text"]
    assert "no such file" in rows["b"]["error"] and "text" in rows["c"]["error"]
    first = rows["a"]["traces"]
    res = subprocess.run([*CLI, "extract", "--batch", str(man), "--out", str(out), "--extractor", "embedded"],
                         capture_output=True, text=True, timeout=120)
    assert "1 already done" in res.stderr
    rows2 = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows2].count("a") == 1
    assert next(r for r in rows2 if r["id"] == "a")["traces"] == first


def test_abstract_only_article_gives_flagged_traces_not_an_error() -> None:
    doc = load_document(shared_path("evidence-inference", "validation", "articles", "PMC4589005.nxml"))
    assert not doc.paragraphs and doc.abstract
    traces = extract_traces(doc)
    assert traces and all(t.hypothesis is None and t.evidence is None for t in traces)
    assert all([f.code for f in t.flags] == ["no_body"] for t in traces)


def test_oracle_configuration_reads_only_the_gold_paragraphs() -> None:
    doc = load_document(SAMPLE)
    gold = next(p.id for p in doc.paragraphs if p.section_kind == "results" and "p =" in p.text)
    tr = extract_traces(doc, [FindingInput(text="hydrotherapy vs land: outcome", hypothesis="Hydrotherapy helps.",
                                           gold_paragraph_ids=[gold])], config="oracle")[0]
    assert tr.configuration == "oracle" and tr.evidence is not None and tr.evidence.paragraph_ids == [gold]
    with pytest.raises(ClaimtraceError, match="oracle"):
        extract_traces(doc, ["hydrotherapy vs land: outcome"], config="oracle")


def test_oracle_with_separate_hypothesis_and_evidence_gold() -> None:
    doc = load_document(SAMPLE)
    hyp_par = next(p.id for p in doc.paragraphs for s in p.sentences if "we set out to compare" in s.text)
    ev_par = next(p.id for p in doc.paragraphs for s in p.sentences if "(40/46, 87%)" in s.text)
    finding = ("Significantly more patients treated with hydrotherapy (40/46, 87%) were much better or very much better "
               "than the patients treated with land exercise (19/40, 47.5%), p < 0.001 Fisher's exact test.")
    tr = extract_traces(doc, [FindingInput(text=finding, gold_paragraph_ids=[ev_par],
                                           hypothesis_gold_paragraph_ids=[hyp_par])], config="oracle")[0]
    assert tr.hypothesis is not None and tr.hypothesis.paragraph_ids == [hyp_par]
    assert "we set out to compare" in tr.hypothesis.text
    assert tr.evidence is not None and tr.evidence.paragraph_ids == [ev_par]
    # without hypothesis gold, stage 1 reads the evidence gold paragraph (as before)
    tr = extract_traces(doc, [FindingInput(text=finding, gold_paragraph_ids=[ev_par])], config="oracle")[0]
    assert tr.hypothesis is not None and tr.hypothesis.paragraph_ids == [ev_par]
