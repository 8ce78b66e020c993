"""The five-stage LLM graph pipeline and the direct baseline against a real OpenAI-compatible HTTP
server on loopback that answers like a model (scripted per stage), on a real gold abstract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claimtrace.graph import evaluate_graphs, load_labelstudio
from claimtrace.graph.pipeline import STAGES, run_direct, run_staged, with_stage_models
from claimtrace.llm import LLMCallError, LLMClient, load_settings
from conftest import EMPIRIGRAPH_GOLD, REPO
from llm_fault_server import FaultServer

VARS = {"variables": [
    {"name": "performance", "quote": "performance", "role": "IV"},
    {"name": "voluntary turnover", "quote": "voluntary turnover", "role": "DV"},
    {"name": "turnover", "quote": "turnover", "role": "DV"},
    {"name": "pay growth", "quote": "pay growth", "role": "moderator"},
    {"name": "relevant unemployment rate", "quote": "relevant unemployment rate", "role": "moderator"},
    {"name": "employee job satisfaction", "quote": "employee job satisfaction", "role": None},
]}
NORM = {"variables": [
    {"name": "performance", "aliases": []}, {"name": "voluntary turnover", "aliases": ["turnover"]},
    {"name": "pay growth", "aliases": []}, {"name": "relevant unemployment rate", "aliases": []},
    {"name": "employee job satisfaction", "aliases": []}], "hierarchy": []}
EVID = {"sentences": [5]}
RELS = {"relations": [
    {"source": "performance", "target": "voluntary turnover", "type": "directional", "status": "validated", "sentence": 5},
    {"source": "pay growth", "target": "performance", "type": "moderation", "status": "validated", "sentence": 5},
    {"source": "pay growth", "target": "turnover", "type": "moderation", "status": "validated", "sentence": 5},
    {"source": "unemployment rate", "target": "performance", "type": "moderation", "status": "validated", "sentence": 5},
    {"source": "employee job satisfaction", "target": "voluntary turnover", "type": "correlational",
     "status": "validated", "sentence": 5},
    {"source": "performance", "target": "pay growth", "type": "directional", "status": "validated", "sentence": 5},
]}
VERIFY = {"decisions": [
    {"index": 5, "action": "retype", "type": "directional", "status": "validated",
     "justification": "Job satisfaction influences turnover in the sentence."},
    {"index": 6, "action": "remove", "justification": "The sentence does not say performance affects pay growth."},
]}
STAGE_KEYS = [("list its variables", VARS), ("clean a list of variables", NORM), ("select evidence sentences", EVID),
              ("extract empirical relations", RELS), ("verify relations", VERIFY)]


def _responder(body: dict[str, Any]) -> dict[str, Any]:
    system = body["messages"][0]["content"]
    for key, answer in STAGE_KEYS:
        if key in system:
            return {"content": json.dumps(answer)}
    if "turn the abstract" in system:
        return {"content": json.dumps({"variables": ["performance", "voluntary turnover", "pay growth"],
                                       "hierarchy": [], "relations": [
                                           {"source": "performance", "target": "voluntary turnover",
                                            "type": "directional", "status": "validated"},
                                           {"source": "pay growth", "target": "performance",
                                            "type": "moderation", "status": "hypothesized"}]})}
    return {"content": "not json"}


@pytest.fixture(scope="module")
def gold97():
    return next(g for g in load_labelstudio(EMPIRIGRAPH_GOLD) if g.id == "97")


def test_staged_pipeline_per_stage_models_and_verification(gold97, tmp_path: Path) -> None:
    with FaultServer(responder=_responder) as srv:
        settings = load_settings(base_url=srv.url, model="model-b", cache_dir=tmp_path, env={})
        settings = with_stage_models(settings, {"variables": "model-a", "verify": "model-a"})
        client = LLMClient(settings)
        g = run_staged(gold97.text or "", "97", client=client)
        client.close()
        models = [r.body["model"] for r in srv.chat_requests]
    assert models == ["model-a", "model-b", "model-b", "model-b", "model-a"]  # stages 1 and 5 on model-a
    assert list(g.stages) == list(STAGES)
    assert all(g.stages[s]["output"] is not None and g.stages[s]["invocation_ids"] for s in STAGES)
    names = {v.id: v.name for v in g.variables}
    edges = {(names[e.source], names[e.target], e.type, e.status) for e in g.edges}
    assert edges == {
        ("performance", "voluntary turnover", "directional", "validated"),
        ("pay growth", "performance", "moderation", "validated"),
        ("pay growth", "voluntary turnover", "moderation", "validated"),  # "turnover" resolved by alias
        ("relevant unemployment rate", "performance", "moderation", "validated"),  # fuzzy name
        ("employee job satisfaction", "voluntary turnover", "directional", "validated"),  # retyped
    }
    retyped = next(e for e in g.edges if names[e.source] == "employee job satisfaction")
    assert "Job satisfaction" in (retyped.justification or "")
    assert all(e.evidence and e.evidence[0].startswith("Results show") for e in g.edges)
    vt = g.find("voluntary turnover")
    assert vt is not None and g.text is not None
    assert all(g.text[m.start:m.end].lower() == m.text.lower() for m in vt.mentions)
    res = evaluate_graphs({"97": g}, {"97": gold97})
    assert res.precision == 1.0 and res.recall == pytest.approx(5 / 6)


def test_direct_baseline(gold97, tmp_path: Path) -> None:
    with FaultServer(responder=_responder) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="m", cache_dir=tmp_path, env={}))
        g = run_direct(gold97.text or "", "97", client=client)
        client.close()
        assert len(srv.chat_requests) == 1
    assert g.method == "direct" and list(g.stages) == ["direct"]
    res = evaluate_graphs({"97": g}, {"97": gold97})
    assert res.per_type_counts["directional"].tp == 1
    assert res.no_status.per_type_counts["moderation"].tp == 1
    assert res.per_type_counts["moderation"].tp == 0  # hypothesized vs validated


def test_invalid_answers_raise_typed_error(tmp_path: Path) -> None:
    with FaultServer(responder=lambda body: {"content": "no json here"}) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="m", cache_dir=tmp_path, env={}))
        with pytest.raises(LLMCallError):
            run_direct("Stress predicted sleep quality.", "x", client=client)
        client.close()


def test_cli_staged_json(gold97, tmp_path: Path) -> None:
    with FaultServer(responder=_responder) as srv:
        res = subprocess.run(
            [sys.executable, "-m", "claimtrace", "graph", "-", "--method", "staged", "--json", "--llm-base-url", srv.url,
             "--llm-model", "model-b", "--stage-model", "verify=model-a"],
            input=gold97.text, capture_output=True, text=True, cwd=REPO,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAIMTRACE_CACHE_DIR": str(tmp_path)})
        assert [r.body["model"] for r in srv.chat_requests][-1] == "model-a"
    assert res.returncode == 0, res.stderr
    g = json.loads(res.stdout)
    assert g["method"] == "staged" and len(g["edges"]) == 5 and set(g["stages"]) == set(STAGES)
    bad = subprocess.run([sys.executable, "-m", "claimtrace", "graph", "-", "--stage-model", "oops"],
                         input="x", capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 2 and "STAGE=MODEL" in bad.stderr
