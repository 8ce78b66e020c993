"""``--extractor llm`` against a real OpenAI-compatible HTTP server on loopback (scripted answers): numbers the
context contains are kept with the unit they occur in; an invented number is rejected and flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claimtrace.documents import load_document
from claimtrace.llm import LLMClient, load_settings
from claimtrace.numbers.llm import extract_numbers_llm, numbers_in
from conftest import REPO
from llm_fault_server import FaultServer

FRAG = REPO / "tests" / "data" / "numbers" / "trial_fragment.xml"


def _answer(events_i: float) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": json.dumps({
            "outcome_type": "binary",
            "intervention": {"events": events_i, "group_size": 60, "mean": None, "sd": None},
            "comparator": {"events": 6, "group_size": 60, "mean": None, "sd": None}})}
    return answer


def _run(tmp: Path, events_i: float) -> tuple[Any, FaultServer]:
    with FaultServer(responder=_answer(events_i)) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp, env={}))
        res = extract_numbers_llm(load_document(FRAG), "drug X", "placebo", "nausea", client=client)
        client.close()
    return res, srv


def test_llm_numbers_in_the_context_are_kept(tmp_path: Path) -> None:
    res, srv = _run(tmp_path, 12)
    i = res.arms["intervention"]
    assert res.extractor == "llm" and res.outcome_type == "binary"
    assert i.events.value == 12 and i.events.source == "llm" and i.events.unit_id  # type: ignore[union-attr]
    assert "llm_number_rejected" not in res.flags
    assert any(e.measure == "OR" for e in res.effects)
    user = srv.chat_requests[0].messages[-1]["content"]
    assert "Outcome: nausea" in user and "12/60" in user


def test_llm_invented_number_is_rejected_and_flagged(tmp_path: Path) -> None:
    res, _ = _run(tmp_path, 23)  # 23 occurs nowhere in the paper
    assert res.arms["intervention"].events is None
    assert "llm_number_rejected" in res.flags
    assert any("23" in n and "rejected" in n for n in res.notes)
    assert res.effects == []  # not computable without the rejected number


def test_numbers_in_reads_decimals_signs_and_thousands() -> None:
    assert numbers_in("12/60 (20%), −1·5 and 1,234") == {12.0, 60.0, 20.0, -1.5, 1234.0}
