"""The offline (no-LLM) graph extractor on the real EmpiriGraph-Psy abstracts."""

from __future__ import annotations

import pytest

from claimtrace.graph import evaluate_graphs, extract_offline, load_labelstudio
from claimtrace.graph.offline import clause_status
from conftest import EMPIRIGRAPH_GOLD


@pytest.fixture(scope="module")
def gold():
    return {g.id: g for g in load_labelstudio(EMPIRIGRAPH_GOLD)}


def test_status_from_statistics_and_cues() -> None:
    assert clause_status("Anxiety predicted sleep quality, r = .31, p = .03") == "validated"
    assert clause_status("Anxiety predicted sleep quality, t(98) = 1.20, p = .23") == "null"
    assert clause_status("found no support for trait resiliency as a buffer of these effects") == "null"
    assert clause_status("Long-term effectiveness was independent of response-pattern.") == "null"
    assert clause_status("We hypothesized that stress would predict burnout.") == "hypothesized"
    assert clause_status("Results showed that stress predicted burnout.") == "validated"


def test_moderation_from_interaction_sentence(gold) -> None:
    g = extract_offline(gold["97"].text or "", "97")
    names = {v.id: v.name for v in g.variables}
    mods = {(names[e.source], names[e.target]) for e in g.edges if e.type == "moderation"}
    assert ("pay growth", "performance") in mods
    assert ("relevant unemployment rate", "voluntary turnover") in mods
    assert all(e.status == "validated" for e in g.edges if e.type == "moderation")
    for v in g.variables:  # every mention points into the abstract
        for m in v.mentions:
            assert g.text is not None and g.text[m.start:m.end].lower() == m.text.lower()


def test_hierarchy_null_moderation_and_correlation(gold) -> None:
    g = extract_offline(gold["100"].text or "", "100")
    names = {v.id: v.name for v in g.variables}
    hier = {(names[e.source], names[e.target]) for e in g.edges if e.type == "hierarchy"}
    assert ("workplace microaggression toward black employees", "interactional injustice") in hier
    null_mods = [e for e in g.edges if e.type == "moderation"]
    assert null_mods and all(e.status == "null" for e in null_mods)
    corr = [({names[e.source], names[e.target]}, e.status) for e in g.edges if e.type == "correlational"]
    assert ({"job satisfaction", "resourcing efforts"}, "validated") in corr
    assert all(e.evidence for e in g.edges)


def test_offline_scores_on_gold(gold) -> None:
    preds = {k: extract_offline(g.text or "", k) for k, g in gold.items()}
    res = evaluate_graphs(preds, gold)
    assert 0.3 < res.micro_f1 < 1.0
    assert res.no_status.micro_f1 >= res.micro_f1
    assert res.per_type["moderation"] > 0.5


def test_no_relations_in_plain_prose() -> None:
    g = extract_offline("The weather was pleasant. Participants were recruited online.")
    assert g.edges == [] and g.variables == []


def test_modal_verbs_are_not_part_of_a_variable_name() -> None:
    g = extract_offline("We hypothesized that stress would predict burnout.", "h1")
    names = sorted(v.name for v in g.variables)
    assert names == ["burnout", "stress"]
