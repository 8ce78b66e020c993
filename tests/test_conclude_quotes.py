"""Quote location for conclusions, and URCA end to end against a real OpenAI-compatible server on loopback.

The server answers like a model: the knowledge step quotes a real results sentence, the final answer
quotes it again with damaged spacing and adds an invented sentence. The invented quote must be flagged
and kept apart, the real one located with offsets in the paper it comes from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claimtrace.conclude import Question, conclude, load_papers
from claimtrace.conclude.llm_methods import locate_quotes
from claimtrace.documents import Paragraph, load_document
from claimtrace.llm import LLMClient, load_settings
from conftest import ei_article
from llm_fault_server import FaultServer

QUESTION = Question(intervention="chloroquine (CQ) and sulphadoxine-pyrimethamine (SP)",
                    comparator="artemether in fixed combination with lumefantrine",
                    outcome="carring gametocytes within the 4 weeks following treatment")
INVENTED = "Gametocyte carriage was 3.4 times higher with CQ/SP (OR 3.4, 95% CI 1.9-6.1) in the per-protocol set."


def _markdown(title: str, pars: list[Paragraph]) -> str:
    return "\n\n".join([f"# {title}", "## Results", *[p.text for p in pars]]) + "\n"


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], str]:
    doc = load_document(ei_article("PMC1087200"))
    d = tmp_path_factory.mktemp("study")
    a, b = d / "methods.md", d / "results.md"
    a.write_text(_markdown("Design", [p for p in doc.paragraphs if p.section_kind == "methods"]), encoding="utf-8")
    b.write_text(_markdown("Results", [p for p in doc.paragraphs if p.section_kind == "results"]), encoding="utf-8")
    real = next(s.text for p in doc.paragraphs for s in p.sentences
                if s.text.startswith("Children treated with co-artemether were significantly less likely"))
    return [a, b], real


def test_locate_quotes_exact_normalised_and_invented(study: tuple[list[Path], str]) -> None:
    paths, real = study
    papers = load_papers(paths)
    damaged = real.replace(" ", "  ").replace("–", "-")
    found, missing = locate_quotes([real, damaged, INVENTED, ""], papers)
    assert len(found) == 1  # the damaged copy is the same span: not duplicated
    q = found[0]
    assert q.paper_index == 1 and q.located and q.match == "exact"
    assert papers[1].doc.body_text[q.start:q.end] == real and q.sentence_ids
    assert [m.text for m in missing] == [INVENTED] and not missing[0].located and missing[0].start is None
    found2, _ = locate_quotes([damaged], papers)
    assert found2[0].match == "normalised" and found2[0].text == real


def _responder(real: str) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        system = body["messages"][0]["content"]
        user = body["messages"][-1]["content"]
        if "extract what they say" in system:  # knowledge from one cluster
            if "significantly less likely to carry gametocytes" in user:
                return {"content": json.dumps({"relevant": True, "quotes": [real], "knowledge":
                        "Gametocyte carriage was higher after CQ/SP than after co-artemether (p < 0.0001)."})}
            return {"content": json.dumps({"relevant": False, "knowledge": "", "quotes": []})}
        return {"content": json.dumps({"label": "significantly increased", "higher_is_better": "no",
                                       "rationale": "More children carried gametocytes after CQ/SP.",
                                       "quotes": [real.replace(" ", "  "), INVENTED]})}
    return answer


def test_urca_end_to_end_over_two_papers(study: tuple[list[Path], str], tmp_path: Path) -> None:
    paths, real = study
    with FaultServer(responder=_responder(real)) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp_path, env={}))
        res = conclude(QUESTION, [str(p) for p in paths], method="urca", client=client, k=10)
        client.close()
        chats = srv.chat_requests
    # uniform retrieval: 6 units from each paper, clustered with the small-sample path
    assert res.retrieval is not None and res.retrieval.units_per_paper == [6, 6]
    assert res.clustering is not None and res.clustering.n_units == 12
    assert res.clustering.method == "pca-gmm" and "PCA" in res.clustering.reason
    knowledge_calls = [c for c in chats if "extract what they say" in c.messages[0]["content"]]
    assert len(knowledge_calls) == res.clustering.n_clusters
    final = chats[-1].messages[-1]["content"]
    assert "Gametocyte carriage was higher after CQ/SP" in final  # the answer reads the extracted knowledge
    assert res.label == "significantly increased"
    assert res.polarity_source == "llm" and res.higher_is_better is False
    assert res.conclusion == "favours comparator"
    assert len(res.quotes) == 1 and res.quotes[0].paper_index == 1 and res.quotes[0].text == real
    assert [q.text for q in res.unlocated_quotes] == [INVENTED]
    assert any("not found in the papers" in w for w in res.warnings)
    assert len(res.llm_invocations) == len(chats)
    rec = res.record()
    assert rec["quotes"][0]["located"] and rec["schema_version"]


def test_user_polarity_wins_and_abstracts_baseline_reads_no_retrieval(study: tuple[list[Path], str],
                                                                        tmp_path: Path) -> None:
    _, real = study
    doc = ei_article("PMC1087200")
    with FaultServer(responder=_responder(real)) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp_path, env={}))
        res = conclude(QUESTION, [str(doc)], method="abstracts", client=client, higher_is_better="yes")
        client.close()
        chats = srv.chat_requests
    assert len(chats) == 1
    user = chats[0].messages[-1]["content"]
    assert "Abstracts:" in user and "significantly less likely to carry gametocytes" in user
    assert "higher_is_better" not in chats[0].messages[0]["content"]  # not asked when the user gave it
    assert res.polarity_source == "user" and res.conclusion == "favours intervention"
    assert res.quotes[0].located and res.quotes[0].paper_index == 0
