"""The statistics engine on real text: statcheck's test papers (PDF and HTML) with their manual gold,
Evidence-Inference evidence spans, and reference lists of real JATS articles."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from claimtrace.documents import load_document
from claimtrace.stats import analyze, analyze_document, check, parse
from conftest import ei_article, shared_path

_GOLD_TEST = {"t": "t", "F": "F", "Z": "z", "Qb": "Q", "Q": "Q", "r": "r"}


def _gold_rows() -> list[dict[str, str]]:
    path = shared_path("statistics", "statcheck-test-papers", "manually_extracted_stats_testpapers.csv")
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter=";"))


def _unquote(s: str) -> str:
    return s.replace('"', "").strip()


def _num(s: str) -> float | None:
    return float(s) if s.strip() else None


@pytest.mark.parametrize("fmt", ["pdf", "html"])
def test_statcheck_test_papers_every_gold_result_found(fmt: str) -> None:
    rows = [r for r in _gold_rows() if r["file_type"] == fmt]
    assert len(rows) == 11  # 4 + 4 + 3 results; Paper2 has none
    folder = shared_path("statistics", "statcheck-test-papers")
    by_file: dict[str, list] = {}
    for row in rows:
        name = row["file_name"].replace(".html", ".htm")
        if name not in by_file:
            by_file[name] = analyze_document(load_document(folder / name))
        found = by_file[name]
        # the gold puts a single df in df2 for t and r, in df1 for Q: compare the set of dfs
        gold_dfs = [x for x in (_num(row["df1"]), _num(row["df2"])) if x is not None]
        hits = [
            r for r in found
            if r.test == _GOLD_TEST[row["test_type"]]
            and [x for x in (r.df1, r.df2) if x is not None] == gold_dfs
            and r.comparison == _unquote(row["test_comparison"])
            and r.value == float(row["test_value"])
            and r.p_comparison == _unquote(row["p_comparison"])
            and r.p_value == float(row["p"])
        ]
        assert len(hits) == 1, f"{name}: {row['raw_result']} not found in {[x.text for x in found]}"
        hit = hits[0]
        assert hit.text.rstrip(";") in row["raw_result"].replace("  ", " ") or row["raw_result"].rstrip(";") in hit.text
        if row["test_type"] == "Qb":
            assert hit.test_detail == "between"
        # statcheck's verdict (the gold "error" column) where the paper's one-tailed note does not change it
        if row["error"] == row["error_1tail"]:
            assert hit.consistent is (row["error"] == "0"), row["raw_result"]
    # nothing beyond the gold: no invented results
    assert sum(len(v) for v in by_file.values()) == len(rows)


def test_statcheck_paper_without_results() -> None:
    folder = shared_path("statistics", "statcheck-test-papers")
    for name in ("Paper2.pdf", "Paper2.htm"):
        assert analyze_document(load_document(folder / name)) == []


def _spans(split: str = "validation") -> list[str]:
    path = shared_path("evidence-inference", split, "prompts.jsonl")
    seen: dict[str, None] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        for ev in json.loads(line)["evidence"]:
            seen.setdefault(ev["text"], None)
    return list(seen)


def _span_with(fragment: str) -> str:
    hits = [s for s in _spans() if fragment in s]
    if not hits:
        pytest.skip(f"span not in this copy of the data: {fragment!r}")
    return hits[0]


def test_ei_counts_and_percentages_attach_to_the_p_value() -> None:
    s = _span_with("30 of 378 [7.94%] versus 42 of 86 [48.8%]")
    (r,) = parse(s)
    assert (r.p_comparison, r.p_value) == ("<", 0.0001)
    got = [(d.kind, d.value, d.total) for d in r.descriptives]
    assert got == [("count", 30, 378), ("percent", 7.94, None), ("count", 42, 86), ("percent", 48.8, None)]
    assert s[r.start : r.end] == r.text and r.text.startswith("30 of 378")


def test_ei_negative_ci_with_unicode_minus() -> None:
    s = _span_with("reduction in dietary glycaemic load (33 points, 95% CI")
    rs = parse(s)
    ci = [r for r in rs if r.ci_low is not None]
    assert ci and ci[0].value == 33
    assert (ci[0].ci_level, ci[0].ci_low, ci[0].ci_high) == (95.0, -47.0, -20.0)
    assert ci[0].p_comparison == "<" and ci[0].p_value == 0.001
    assert s[ci[0].spans["ci"].start : ci[0].spans["ci"].end].startswith("−47")


def test_ei_plus_minus_descriptives_and_several_results_in_one_span() -> None:
    s = _span_with("(0.81±0.29 gr and 0.55±0.33 gr, p=0.002)")
    rs = parse(s)
    assert [(r.p_comparison, r.p_value) for r in rs] == [("=", 0.002), ("=", 0.003), ("=", 0.001), ("=", 0.001)]
    assert [(d.kind, d.value) for d in rs[0].descriptives] == [("mean", 0.81), ("sd", 0.29), ("mean", 0.55), ("sd", 0.33)]
    assert [d.value for d in rs[3].descriptives] == [68.4, 31.6]


def test_ei_bracketed_ci_with_signed_bounds_and_point_estimate() -> None:
    s = _span_with("(−7.0 mm, 95% confidence interval (CI) [−20.7 to +6.7])")
    r = parse(s)[0]
    assert (r.value, r.ci_low, r.ci_high) == (-7.0, -20.7, 6.7)
    checked = check(r)
    assert checked.ci_consistent is True
    assert checked.significant is None  # an unnamed estimate: its CI alone does not say "significant"
    (hr,) = analyze("hazard ratio 0.80 (95% CI 0.65 to 0.98)")
    assert hr.test == "HR" and hr.significant is True and hr.ci_consistent is True


def test_ei_persian_slash_decimal_p() -> None:
    s = _span_with("P<0/001")
    assert [(r.p_comparison, r.p_value) for r in parse(s)] == [("<", 0.001)] * 3


def test_ei_ns_without_p() -> None:
    s = _span_with("in the oxytocin group (NS)")
    (r,) = parse(s)
    assert r.p_comparison == "ns" and [d.value for d in r.descriptives] == [2.2, 2.7]
    assert check(r).significant is False


def test_ei_every_plain_p_value_is_found() -> None:
    """Recall on the simplest form: every 'p <|=|> number' in the validation spans is parsed."""
    simple = re.compile(r"(?<![A-Za-z])[pP]\s*([<=>])\s*(0?\.\d+)(?![\d.])")
    n = 0
    for s in _spans():
        got = {(r.p_comparison, r.p_value) for r in parse(s)}
        for m in simple.finditer(s):
            n += 1
            assert (m.group(1), float(m.group(2))) in got, (m.group(0), s)
    assert n > 200


def test_ei_offsets_point_at_the_components() -> None:
    for s in _spans():
        for r in parse(s):
            assert s[r.start : r.end] == r.text
            for comp in r.spans.values():
                assert s[comp.start : comp.end] == comp.text
                assert r.start <= comp.start and comp.end <= r.end
            if r.p_value and "p" in r.spans and "×" not in r.spans["p"].text:
                digits = re.sub(r"\D", "", r.spans["p"].text).lstrip("0")
                assert digits and digits in re.sub(r"\D", "", f"{r.p_value:.10f}")


def test_no_results_invented_from_reference_lists() -> None:
    """References (years, volumes, page ranges, DOIs) of real JATS articles yield nothing."""
    folder = shared_path("evidence-inference", "validation", "articles")
    n_blocks = 0
    for f in sorted(folder.glob("*.nxml"))[:40]:
        for block in load_document(f).excluded:
            if block.kind == "references":
                n_blocks += 1
                assert parse(block.text) == [], block.text[:200]
    assert n_blocks > 500


@pytest.mark.parametrize("text", [
    "In Study 2 (N = 40) we replicated Table 3 of Smith et al. (2005), pp. 238-246.",
    "Patients received 5 mg/kg of drug in 2010-2012; see Figure 2 and Appendix 1.",
    "Smith J, Jones K. Effects of t-tests. Psychol Bull 1990;107(2):238-46. doi:10.1037/0033-2909.107.2.238",
    "A p value < 0.05 was considered statistically significant.",
    "Statistical significance was set at p < .05 (two-tailed).",
])
def test_no_results_from_non_statistics(text: str) -> None:
    assert parse(text) == []


def test_negative_t_is_consistent() -> None:
    (r,) = analyze("t(30) = -2.10, p = .044")
    assert r.value == -2.10 and r.consistent is True and r.decision_error is False
    (r,) = analyze("t(30) = −2.10, p = .44")
    assert r.consistent is False and r.decision_error is True


def test_one_tailed_in_text() -> None:
    (r,) = analyze("a one-tailed test: t(30) = 1.80, p = .041")
    assert r.one_tailed and r.consistent is True
    (r,) = analyze("t(30) = 1.80, p = .041")
    assert r.consistent is False


def test_jats_document_offsets_and_units() -> None:
    path = ei_article("PMC1087200")
    doc = load_document(Path(path))
    res = analyze_document(doc)
    assert len(res) >= 10
    for r in res:
        text = doc.body_text if r.scope == "body" else doc.abstract_text
        assert text[r.start : r.end] == r.text
        unit = doc.unit(r.unit_id)
        assert unit.start <= r.start < unit.end
    rr = [r for r in res if r.test == "RR"]
    assert any(r.value == 6.15 and (r.ci_low, r.ci_high) == (4.10, 9.23) and r.ci_consistent for r in rr)
