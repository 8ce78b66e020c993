"""``--extractor llm`` against a real OpenAI-compatible HTTP server on loopback (scripted answers): numbers the
context contains are kept with the unit they occur in; an invented number is rejected and flagged; with the
default ``fill`` policy the LLM is asked only when the rules leave fields open, and only fills those."""

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
FILL = REPO / "tests" / "data" / "numbers" / "fill_fragment.xml"  # events in words the rules do not read


def _answer(events_i: float, events_c: float = 6, n: float = 60) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": json.dumps({
            "outcome_type": "binary",
            "intervention": {"events": events_i, "group_size": n, "mean": None, "sd": None},
            "comparator": {"events": events_c, "group_size": n, "mean": None, "sd": None}})}
    return answer


def _run(tmp: Path, events_i: float, *, doc: Path = FRAG, outcome: str = "nausea", policy: Any = "alone",
         events_c: float = 6, n: float = 60) -> tuple[Any, FaultServer]:
    with FaultServer(responder=_answer(events_i, events_c, n)) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp, env={}))
        res = extract_numbers_llm(load_document(doc), "drug X", "placebo", outcome, client=client, policy=policy)
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


def test_fill_does_not_ask_when_the_rules_read_every_field(tmp_path: Path) -> None:
    res, srv = _run(tmp_path, 23, policy="fill")  # the answer would be rejected, but it is never asked for
    assert srv.chat_requests == []
    assert res.extractor == "llm" and res.arms["intervention"].events.value == 12  # type: ignore[union-attr]
    assert res.arms["intervention"].events.source == "text"  # type: ignore[union-attr]
    assert "llm_number_rejected" not in res.flags


def test_fill_keeps_the_rules_values_and_fills_only_the_open_fields(tmp_path: Path) -> None:
    # the LLM's group size (59) disagrees with the rules' (60): the rules' value stays
    res, srv = _run(tmp_path, 14, doc=FILL, outcome="vomiting", policy="fill", events_c=7, n=59)
    assert len(srv.chat_requests) == 1
    i, c = res.arms["intervention"], res.arms["comparator"]
    assert res.outcome_type == "binary"  # the rules read no events or means, so the LLM decides the type
    assert (i.events.value, i.events.source) == (14, "llm")  # type: ignore[union-attr]
    assert (c.events.value, c.events.source) == (7, "llm")  # type: ignore[union-attr]
    assert i.group_size.value == 60 and i.group_size.source != "llm"  # type: ignore[union-attr]
    assert any(e.measure == "OR" for e in res.effects)


def test_alone_takes_every_field_from_the_llm(tmp_path: Path) -> None:
    res, _ = _run(tmp_path, 14, doc=FILL, outcome="vomiting", policy="alone", events_c=7, n=59)
    assert res.arms["intervention"].group_size is None  # 59 is not in the text: rejected
    assert "llm_number_rejected" in res.flags


def test_fill_drops_an_answer_that_does_not_complete_the_item(tmp_path: Path) -> None:
    # the answer gives the intervention's events only (7 occurs in the text): a partial guess is not used
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": json.dumps({"outcome_type": "binary",
                                       "intervention": {"events": 14, "group_size": None, "mean": None, "sd": None},
                                       "comparator": {"events": None, "group_size": None, "mean": None, "sd": None}})}
    with FaultServer(responder=answer) as srv:
        client = LLMClient(load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp_path, env={}))
        res = extract_numbers_llm(load_document(FILL), "drug X", "placebo", "vomiting", client=client)
        client.close()
    assert len(srv.chat_requests) == 1
    assert res.arms["intervention"].events is None and res.effects == []
    assert any("did not complete" in n for n in res.notes)
