"""Graph model, exports and the EmpiriGraph-Psy Label Studio loader on the real gold."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from claimtrace.errors import InputError
from claimtrace.graph import EmpiricalGraph, load_graphs, load_labelstudio, parse_relation_label
from claimtrace.graph.labelstudio import annotator_graphs
from claimtrace.graph.scores import annotator_agreement
from conftest import EMPIRIGRAPH_GOLD


@pytest.fixture(scope="module")
def gold() -> dict[str, EmpiricalGraph]:
    return {g.id: g for g in load_labelstudio(EMPIRIGRAPH_GOLD)}


def test_loader_reads_every_task(gold: dict[str, EmpiricalGraph]) -> None:
    raw = json.loads(EMPIRIGRAPH_GOLD.read_text())
    assert set(gold) == {str(t["id"]) for t in raw}
    for task in raw:
        g = gold[str(task["id"])]
        res = task["annotations"][0]["result"]
        n_labels = sum(len(r["labels"]) for r in res if r["type"] == "relation")
        assert len(g.edges) == n_labels  # one typed edge per relation label (no duplicates in this gold)
        # every mention's offsets index the abstract
        for v in g.variables:
            for m in v.mentions:
                assert g.text is not None and g.text[m.start:m.end] == m.text


def test_pair_with_two_typed_edges(gold: dict[str, EmpiricalGraph]) -> None:
    g = gold["7"]
    modes = g.find("different modes")
    target = g.find("answer inferential questions")
    assert modes is not None and target is not None
    types = {e.type for e in g.edges if (e.source, e.target) == (modes.id, target.id)}
    assert types == {"directional", "moderation"}
    assert modes.role == "moderator"


def test_normalised_name_and_hierarchy(gold: dict[str, EmpiricalGraph]) -> None:
    g = gold["112"]
    # the var_name textarea gives the normalised name of the long span
    tm = g.find("treatment method")
    assert tm is not None and "social skills training" in tm.mentions[0].text
    eff = g.find("treatment effectiveness")
    assert eff is not None
    kids = {g.variable(e.target).name for e in g.edges if e.type == "hierarchy" and e.source == eff.id}
    assert kids == {"long-term effectiveness", "ss who needed additional treatment",
                    "relapse after relatively successful treatment"}
    assert all(g.variable(e.target).level == 1 for e in g.edges if e.type == "hierarchy")
    corr = [e for e in g.edges if e.type == "correlational"]
    assert len(corr) == 1 and corr[0].status == "null"
    assert gold["100"].find("trait resiliency") is not None
    statuses = {e.status for e in gold["100"].edges if e.type == "moderation"}
    assert statuses == {"null"}


def test_relation_labels() -> None:
    assert parse_relation_label("direction__validated") == ("directional", "validated")
    assert parse_relation_label("correlation__null") == ("correlational", "null")
    assert parse_relation_label("moderation__hypothesized") == ("moderation", "hypothesized")
    assert parse_relation_label("hierarchy") == ("hierarchy", "validated")
    with pytest.raises(ValueError):
        parse_relation_label("mediation__validated")
    with pytest.raises(ValueError):
        parse_relation_label("direction__maybe")


def test_agreement_mode_on_two_annotations(tmp_path) -> None:
    raw = json.loads(EMPIRIGRAPH_GOLD.read_text())
    task = raw[1]  # 97: six relations
    second = json.loads(json.dumps(task["annotations"][0]))
    rels = [r for r in second["result"] if r["type"] == "relation"]
    second["result"].remove(rels[0])  # the second annotator missed one relation
    task["annotations"].append(second)
    res = annotator_agreement(annotator_graphs([task]))
    assert res.mode == "agreement"
    # annotation 1 is scored against annotation 2: one of its six edges has no counterpart
    assert res.recall == 1.0
    assert res.precision == pytest.approx(5 / 6)
    with pytest.raises(InputError):
        annotator_agreement(annotator_graphs(raw[:1]))


def test_exports(gold: dict[str, EmpiricalGraph], tmp_path) -> None:
    g = gold["100"]
    again = EmpiricalGraph.model_validate_json(g.to_json())
    assert again == g
    path = tmp_path / "g.graphml"
    path.write_text(g.to_graphml())
    h = nx.read_graphml(path, force_multigraph=True)
    assert h.number_of_nodes() == len(g.variables) and h.number_of_edges() == len(g.edges)
    mer = g.to_mermaid()
    assert mer.startswith("flowchart LR")
    assert mer.count("-- hierarchy ---") == sum(e.type == "hierarchy" for e in g.edges)
    png = g.render_png(tmp_path / "g.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_model_rules() -> None:
    g = EmpiricalGraph(id="x")
    a = g.add_variable("The Stress")
    b = g.add_variable("sleep quality")
    assert a.name == "stress" and g.add_variable("stress").id == a.id
    assert g.add_edge(a.id, a.id, "directional") is None
    e = g.add_edge(b.id, a.id, "correlational", "null")
    assert e is not None and (e.source, e.target) == (a.id, b.id)  # canonical order
    g.add_edge(a.id, b.id, "correlational", "validated")
    assert len(g.edges) == 1 and g.edges[0].status == "validated"
    g.add_edge(a.id, b.id, "directional", "hypothesized")
    assert len(g.edges) == 2  # a pair may carry several typed edges
    with pytest.raises(ValueError):
        EmpiricalGraph.model_validate({"variables": [{"id": "v1", "name": "a"}],
                                       "edges": [{"source": "v1", "target": "v9", "type": "directional"}]})


def test_load_graphs_formats_and_errors(gold: dict[str, EmpiricalGraph], tmp_path) -> None:
    jl = tmp_path / "pred.jsonl"
    jl.write_text("\n".join(json.dumps({"id": k, **g.model_dump(mode="json", exclude={"id"})})
                            for k, g in gold.items()))
    assert set(load_graphs(jl)) == set(gold)
    lst = tmp_path / "pred.json"
    lst.write_text(json.dumps([g.model_dump(mode="json") for g in gold.values()]))
    assert set(load_graphs(lst)) == set(gold)
    one = tmp_path / "one.json"
    one.write_text(gold["7"].to_json())
    assert list(load_graphs(one)) == ["7"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"variables": [{"id": "v1", "name": "a"}], "edges": [{"source": "v1", "target": "v2", "type": "directional"}]}')
    with pytest.raises(InputError, match="invalid graph"):
        load_graphs(bad)
    notgraph = tmp_path / "x.json"
    notgraph.write_text('{"foo": 1}')
    with pytest.raises(InputError, match="not a graph"):
        load_graphs(notgraph)
    with pytest.raises(InputError, match="no such file"):
        load_graphs(tmp_path / "missing.json")
