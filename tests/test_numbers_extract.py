"""``claimtrace numbers``: a fragment read as a Document, per-arm values from sentences and table cells with
provenance, derived events, flags, effect sizes, batch with resume, bad input, and the rct-numeric files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimtrace.documents import load_document
from claimtrace.numbers.extract import extract_numbers
from conftest import REPO, shared_path

FRAG = REPO / "tests" / "data" / "numbers" / "trial_fragment.xml"
ENV = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMTRACE_LLM")}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claimtrace", *args], capture_output=True, text=True, cwd=REPO, env=ENV)


def test_fragment_is_read_as_a_document_with_abstract_and_body() -> None:
    doc = load_document(FRAG)
    assert doc.source.format == "jats"
    assert "12/60 (20%)" in doc.abstract_text
    assert "3.1 ± 1.2" in doc.body_text
    assert any(b.kind == "table" for b in doc.excluded)
    assert any("fragment" in w for w in doc.warnings)


def test_binary_from_a_sentence_with_offsets() -> None:
    doc = load_document(FRAG)
    res = extract_numbers(doc, "drug X", "placebo", "nausea")
    assert res.outcome_type == "binary"
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert (i.events.value, i.group_size.value, c.events.value, c.group_size.value) == (12, 60, 6, 60)  # type: ignore[union-attr]
    assert i.events is not None and i.events.scope == "abstract" and i.events.start is not None and i.events.end is not None
    assert doc.abstract_text[i.events.start:i.events.end] == "12/60 (20%)"
    assert {e.measure for e in res.effects} == {"OR", "RR", "RD"}
    orr = next(e for e in res.effects if e.measure == "OR")
    assert orr.value == pytest.approx(2.25)
    assert res.not_reported == []


def test_continuous_from_a_sentence_group_sizes_from_the_arm_header() -> None:
    res = extract_numbers(load_document(FRAG), "drug X", "placebo", "pain scores at week 4")
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert res.outcome_type == "continuous"
    assert (i.mean.value, i.sd.value, c.mean.value, c.sd.value) == (3.1, 1.2, 4.0, 1.5)  # type: ignore[union-attr]
    # the sentence gives no group sizes: they come from the arm's column header in Table 2 (Document table t1)
    assert i.group_size is not None and i.group_size.value == 57 and i.group_size.text == "Drug X (n = 57)"
    assert i.group_size.table == "t1" and c.group_size is not None and c.group_size.value == 58
    assert {e.measure for e in res.effects} == {"MD", "SMD"}


def test_table_cells_arms_by_header_not_by_order() -> None:
    res = extract_numbers(load_document(FRAG), "drug X", "placebo", "systolic blood pressure")
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert (i.mean.value, i.sd.value, i.group_size.value) == (131.5, 11.4, 57)  # type: ignore[union-attr]
    assert (c.mean.value, c.sd.value, c.group_size.value) == (138.2, 12.1, 58)  # type: ignore[union-attr]
    assert i.mean is not None and i.mean.source == "table" and i.mean.table == "t1" and i.mean.col == 3 and i.mean.row == 2
    assert "arms_swapped" in res.flags  # the table lists the comparator first


def test_percent_mismatch_is_flagged_and_abstains_when_absent() -> None:
    doc = load_document(FRAG)
    res = extract_numbers(doc, "drug X", "placebo", "dizziness")
    assert "percent_mismatch" in res.flags  # 4/57 is 7.0%, not 8.0%
    ok = extract_numbers(doc, "drug X", "placebo", "headache")
    assert "percent_mismatch" not in ok.flags
    none = extract_numbers(doc, "drug X", "placebo", "hospital readmission")
    assert none.effects == []
    assert all(getattr(a, f) is None for a in none.arms.values() for f in ("events", "mean", "sd"))
    assert len(none.not_reported) >= 2


def test_cli_json_batch_resume_and_bad_input(tmp_path: Path) -> None:
    res = run("numbers", str(FRAG), "--intervention", "drug X", "--comparator", "placebo", "--outcome", "nausea", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["schema_version"] and out["arms"]["intervention"]["events"]["value"] == 12
    text = run("numbers", str(FRAG), "--intervention", "drug X", "--comparator", "placebo", "--outcome", "nausea")
    assert "OR: 2.250" in text.stdout
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(
        json.dumps({"id": "a", "doc": str(FRAG), "intervention": "drug X", "comparator": "placebo", "outcome": "nausea"}) + "\n"
        + json.dumps({"id": "b", "doc": str(tmp_path / "missing.xml"), "intervention": "x", "comparator": "y",
                      "outcome": "z"}) + "\n")
    outf = tmp_path / "out.jsonl"
    res = run("numbers", "--batch", str(manifest), "--out", str(outf))
    assert res.returncode == 1
    rows = [json.loads(x) for x in outf.read_text().splitlines()]
    assert rows[0]["id"] == "a" and rows[0]["error"] is None and rows[1]["error"]
    res = run("numbers", "--batch", str(manifest), "--out", str(outf))
    assert "1 already done" in res.stderr
    bad = run("numbers", str(FRAG), "--intervention", "drug X", "--comparator", "placebo")
    assert bad.returncode == 2 and bad.stderr.startswith("error:")
    bad = run("numbers", str(FRAG), "--intervention", "a", "--comparator", "b", "--outcome", "c", "--llm-model", "m")
    assert bad.returncode == 2 and "only with --extractor llm" in bad.stderr


def test_rct_numeric_fragments_read_and_extract() -> None:
    xml = shared_path("rct-numeric", "xml", "PMC1216327.xml")
    res = run("parse", str(xml), "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["paragraphs"]
    out = extract_numbers(load_document(xml), "Apple Juice", "Water", "Diarrhea Duration")
    i = out.arms["intervention"]
    # Table 2: Apple Juice n = 30, 56.37 (33.90); Water n = 30, 53.47 (33.35)
    assert (i.mean.value, i.sd.value, i.group_size.value) == (56.37, 33.90, 30)  # type: ignore[union-attr]
    assert out.arms["comparator"].mean.value == 53.47  # type: ignore[union-attr]


def test_conclude_with_numbers_adds_the_effect_and_draws_it(tmp_path: Path) -> None:
    png = tmp_path / "forest.png"
    res = run("conclude", str(FRAG), "--intervention", "drug X", "--comparator", "placebo", "--outcome", "nausea",
              "--offline", "--with-numbers", "--json", "--forest-plot", str(png))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["numbers"]["outcome_type"] == "binary"
    assert any(e["measure"] == "OR" and abs(e["value"] - 2.25) < 1e-9 for e in out["numbers"]["effects"])
    assert png.exists() and png.stat().st_size > 1000
    plain = run("conclude", str(FRAG), "--intervention", "drug X", "--comparator", "placebo", "--outcome", "nausea",
                "--offline", "--json")
    assert "numbers" not in json.loads(plain.stdout) or json.loads(plain.stdout)["numbers"] is None


def test_sd_that_behaves_like_an_se_is_flagged_from_the_reported_p(tmp_path: Path) -> None:
    # read as SDs, 10.0 ± 1.0 vs 8.0 ± 1.0 with 25 per arm give p ≈ 6e-9; the paper says p = 0.16, which is
    # what they give as SEs (SD = 5): the SDs are flagged, not changed
    text = ("Results\n\nPain at week 8 was 10.0 ± 1.0 in the drug X group (n = 25) and 8.0 ± 1.0 in the placebo "
            "group (n = 25) (p = 0.16).\n")
    (tmp_path / "se.txt").write_text(text)
    res = extract_numbers(load_document(tmp_path / "se.txt"), "drug X", "placebo", "pain at week 8")
    assert res.arms["intervention"].sd is not None and res.arms["intervention"].sd.value == 1.0
    assert res.arms["intervention"].group_size is not None and res.arms["intervention"].group_size.value == 25
    assert "sd_may_be_se" in res.flags and any("SEs" in n for n in res.notes)
    (tmp_path / "sd.txt").write_text(text.replace("(p = 0.16)", "(p < 0.001)"))
    ok = extract_numbers(load_document(tmp_path / "sd.txt"), "drug X", "placebo", "pain at week 8")
    assert "sd_may_be_se" not in ok.flags


def test_respectively_lists_and_allocation_sentences(tmp_path: Path) -> None:
    text = ("Results\n\nOf 120 patients, 61 were randomised to drug X and 59 to placebo. Fecal losses were "
            "3.94 ± 2.35, 3.59 ± 2.05 and 2.19 ± 1.63 in drug Y, drug X and placebo, respectively.\n")
    (tmp_path / "r.txt").write_text(text)
    res = extract_numbers(load_document(tmp_path / "r.txt"), "drug X", "placebo", "fecal losses")
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert (i.mean.value, i.sd.value, c.mean.value, c.sd.value) == (3.59, 2.05, 2.19, 1.63)  # type: ignore[union-attr]
    assert (i.group_size.value, c.group_size.value) == (61, 59)  # type: ignore[union-attr]
