"""The RankGPT reranker against the real local LLM server (marked llm), and its repair of bad answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimtrace.documents import load_document
from claimtrace.retrieval import BM25Retriever, LLMListwiseReranker, document_units, search
from conftest import ei_article


def _hits(n: int):  # type: ignore[no-untyped-def]
    doc = load_document(ei_article("PMC1087200"))
    units = document_units(doc, "sentence")
    return search(BM25Retriever(), units, "co-artemether vs CQ/SP: gametocyte carriage after treatment", n)


def test_windows_and_repair_with_a_scripted_answer(tmp_path: Path) -> None:
    """A reranker given an answer function (not our LLM layer): ids repaired, every window logged."""
    answers = iter(["[5] > [5] > [99] > [1]", "no idea", "[2] > [1]"])
    log = tmp_path / "rr.jsonl"
    rr = LLMListwiseReranker(lambda msgs: next(answers), window=10, step=5, log_path=log)
    hits = _hits(20)
    out = rr.rerank("co-artemether vs CQ/SP: gametocyte carriage", hits, k=20)
    assert sorted(h.unit_id for h in out) == sorted(h.unit_id for h in hits)
    assert [h.rank for h in out] == list(range(1, 21))
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert [r["window"] for r in rows] == [[10, 20], [5, 15], [0, 10]]
    assert rows[0]["permutation"][:2] == [4, 0]  # [5] first, duplicate and 99 dropped, then [1]
    # the middle window ("no idea") keeps its order; the top window swaps the first two
    assert out[0].unit_id == hits[1].unit_id and out[1].unit_id == hits[0].unit_id


@pytest.mark.llm
def test_llm_rerank_with_the_local_model(local_llm: str, tmp_path: Path) -> None:
    from claimtrace.llm import load_settings

    settings = load_settings(base_url=local_llm, cache_dir=tmp_path)
    log = tmp_path / "rr.jsonl"
    rr = LLMListwiseReranker(settings=settings, log_path=log)
    hits = _hits(5)
    out = rr.rerank("co-artemether vs CQ/SP: gametocyte carriage after treatment", hits, k=3)
    assert len(out) == 3 and {h.unit_id for h in out} <= {h.unit_id for h in hits}
    rec = json.loads(log.read_text().splitlines()[0])
    assert rec["error"] is None and rec["invocation_ids"] and sorted(rec["permutation"]) == list(range(5))


def test_kendall_tau_with_the_input_order() -> None:
    from claimtrace.retrieval.rerank import kendall_tau_with_input

    assert kendall_tau_with_input(list(range(20))) == 1.0
    assert kendall_tau_with_input(list(range(19, -1, -1))) == -1.0
    swapped = [1, 0, *range(2, 20)]  # one adjacent swap in 20: tau = 1 - 4 * 1 / (20 * 19)
    assert abs(kendall_tau_with_input(swapped) - (1 - 4 / 380)) < 1e-9


def test_identity_answers_are_detected_and_warned_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A weak model that answers with the input order: each window says so, one warning per call with counts."""
    answers = iter(["[1] > [2] > [3] > [4] > [5] > [6] > [7] > [8] > [9] > [10]",  # identity
                    "[2] > [1] > [3] > [4] > [5] > [6] > [7] > [8] > [9] > [10]",  # one swap: tau 0.91
                    "[10] > [3] > [7] > [1] > [2] > [4] > [5] > [6] > [8] > [9]"])  # a real reordering
    rr = LLMListwiseReranker(lambda msgs: next(answers), window=10, step=5)
    with caplog.at_level("WARNING", logger="claimtrace.retrieval.rerank"):
        rr.rerank("co-artemether vs CQ/SP: gametocyte carriage", _hits(20), k=5)
    ws = rr.last_windows
    assert [w["identity"] for w in ws] == [True, False, False]
    assert ws[1]["kendall_tau"] == pytest.approx(1 - 4 / 90, abs=1e-4) and ws[2]["kendall_tau"] < 0.9
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "1 of 3 windows came back in the input order and 1 more nearly so" in warnings[0]
    # a call whose every window really reorders warns nothing
    caplog.clear()
    rr2 = LLMListwiseReranker(lambda msgs: "[3] > [1] > [2]", window=3, step=3)
    with caplog.at_level("WARNING", logger="claimtrace.retrieval.rerank"):
        rr2.rerank("q", _hits(3), k=3)
    assert not [r for r in caplog.records if r.levelname == "WARNING"] and rr2.last_windows[0]["kendall_tau"] < 0.9


def test_rankgpt_invocation_ids_are_recorded_on_the_trace(tmp_path: Path) -> None:
    """rag-rerank with RankGPT over a real HTTP endpoint: the trace carries the ledger ids of every rerank window."""
    from claimtrace.extract.context import ContextSelector
    from claimtrace.extract.embedded import EmbeddedExtractor
    from claimtrace.extract.pipeline import extract_traces
    from claimtrace.llm import LLMClient, load_settings
    from llm_fault_server import FaultServer

    doc = load_document(ei_article("PMC1087200"))
    with FaultServer(responder=lambda body: {"content": json.dumps({"ranking": [2, 1]})}) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp_path, env={}))
        sel = ContextSelector(reranker_spec="llm", llm_client=client)
        traces = extract_traces(doc, ["Co-artemether reduced gametocyte carriage compared with CQ/SP."],
                                extractor=EmbeddedExtractor(selector=sel), config="rag-rerank")
        client.close()
        n_chats = len(srv.chat_requests)
    # one reranker per (spec, task): stage 1 (hypothesis) first, then stage 2 (evidence), in the order they ran
    rrs = [r for key, r in sel._rerankers.items() if key.split(" ")[0] == "llm"]
    calls = [w for r in rrs for w in r.calls]
    ids = [i for w in calls for i in w["invocation_ids"]]
    assert len(rrs) == 2 and all(r.calls for r in rrs)  # stage 1 and stage 2 each reranked their candidates
    assert n_chats == len(calls) >= 2
    assert ids and len(set(ids)) == len(ids)
    assert traces[0].invocation_ids == ids  # every reranking call, in order, on the trace
    assert all(not w["identity"] for w in calls)  # [2, 1] swaps the first two: not the input order


@pytest.mark.llm
def test_rankgpt_windows_with_the_local_model_record_ids_and_identity(local_llm: str, tmp_path: Path) -> None:
    """Three windows with the real local model: each records its ledger ids, identity flag and Kendall tau."""
    from claimtrace.llm import load_settings

    rr = LLMListwiseReranker(settings=load_settings(base_url=local_llm, cache_dir=tmp_path, timeout=900.0),
                             window=5, step=3, max_chars=200)
    hits = _hits(11)
    out = rr.rerank("co-artemether vs CQ/SP: gametocyte carriage after treatment", hits, k=11)
    assert sorted(h.unit_id for h in out) == sorted(h.unit_id for h in hits)
    assert [w["window"] for w in rr.last_windows] == [[6, 11], [3, 8], [0, 5]]
    for w in rr.last_windows:
        assert w["error"] is None and len(w["invocation_ids"]) >= 1
        assert w["identity"] == (w["permutation"] == list(range(5)))
        assert -1.0 <= w["kendall_tau"] <= 1.0
    assert rr.last_invocation_ids == [i for w in rr.last_windows for i in w["invocation_ids"]]
