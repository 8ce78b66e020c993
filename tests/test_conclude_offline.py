"""The offline method (no LLM) on real Evidence-Inference prompts and articles."""

from __future__ import annotations

import json

import pytest

from claimtrace.conclude import EI_LABELS, conclude, load_papers
from conftest import ei_article, ei_prompt, shared_path


def _prompts() -> dict[str, dict[str, str]]:
    path = shared_path("evidence-inference", "validation", "prompts.jsonl")
    return {p["prompt_id"]: p for p in (json.loads(line) for line in path.read_text().splitlines())}


def _question(p: dict[str, str]) -> dict[str, str]:
    return {k: p[k] for k in ("intervention", "comparator", "outcome")}


def _article(pmcid: str) -> str:
    return str(ei_article(pmcid))


@pytest.mark.parametrize(("prompt_id", "why"), [
    ("12833", "comparator is the subject"),    # "co-artemether ... significantly less likely ... than CQ/SP"
    ("11581", "comparator is the subject"),    # a direction word about the comparator flips the label
    ("11827", "comparator is the reference"),  # "... greater ... than <comparator>"
    ("11319", "includes 0"),                   # a CI that includes the null
    ("11528", "no significant"),               # wording and p = 0.934
])
def test_offline_labels_match_the_gold(prompt_id: str, why: str) -> None:
    p = ei_prompt(prompt_id)
    res = conclude(_question(p), [_article(p["pmcid"])], method="offline")
    assert res.label == p["label"], res.rationale
    assert why in res.rationale
    assert res.quotes and all(q.located for q in res.quotes)
    assert res.conclusion in ("no difference", "unknown direction")  # no polarity given
    if res.label != "no significant difference":
        assert any("polarity unknown" in w for w in res.warnings)


def test_offline_abstains_explicitly_when_the_paper_does_not_report_the_outcome() -> None:
    q = {"intervention": "co-artemether", "comparator": "CQ/SP", "outcome": "incidence of hip fracture in adults"}
    res = conclude(q, [_article("PMC1087200")], method="offline")
    assert res.label == "insufficient evidence" and res.conclusion == "insufficient evidence"
    assert res.rationale.startswith("Abstained")


def test_offline_on_forty_validation_prompts() -> None:
    ps = list(_prompts().values())[:40]
    cache: dict[str, list] = {}
    answered = correct = 0
    for p in ps:
        papers = cache.setdefault(p["pmcid"], load_papers([_article(p["pmcid"])]))
        res = conclude(_question(p), papers, method="offline")
        if res.label in EI_LABELS:
            answered += 1
            correct += res.label == p["label"]
            assert res.quotes, res.rationale
        else:
            assert res.label == "insufficient evidence" and res.rationale.startswith("Abstained")
    # the majority class is right on 41% of the split; the method must do much better where it answers
    assert answered >= 0.6 * len(ps)
    assert correct / answered >= 0.6
