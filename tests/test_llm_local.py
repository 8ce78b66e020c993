"""Integration tests against the REAL local model (Qwen2.5-Coder-1.5B-Instruct GGUF via llama.cpp's server).

The server comes from the session fixture ``local_llm`` (scripts/local-llm.sh). Every test uses a fresh
temporary cache directory, so no test passes on an answer cached by an earlier run. Requests go
through a counting loopback proxy so the tests can tell what reached the server. About 8 calls in all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from claimtrace.llm import LLMClient, get_invocation, load_settings
from claimtrace.llm.backend import MODE_MEMORY
from llm_fault_server import FaultServer

pytestmark = pytest.mark.llm


class StatFields(BaseModel):
    """The statistics of one sentence."""

    test: str
    df: str
    statistic: str
    p: str


@pytest.fixture
def proxy(local_llm: str) -> Iterator[FaultServer]:
    """A counting HTTP proxy on loopback in front of the real server."""
    MODE_MEMORY.clear()  # negotiate afresh, as a new process would
    with FaultServer(upstream=local_llm) as srv:
        yield srv
    MODE_MEMORY.clear()


def client_for(url: str, cache_dir: Path, **kw: object) -> LLMClient:
    """A client on the real model with an isolated environment (no model name: the server's own)."""
    opts: dict[str, Any] = {"timeout": 300.0, "max_retries": 1, "max_tokens": 96, **kw}
    settings = load_settings(base_url=url, cache_dir=cache_dir, env={}, **opts)
    return LLMClient(settings)


def test_statistics_of_a_sentence_then_cache_without_http(proxy: FaultServer, tmp_path: Path) -> None:
    sentence = "Treated animals gained more weight than controls, t(98) = 2.45, p = .016."
    with client_for(proxy.url, tmp_path) as client:
        res = client.structured("statistic_fields", {"sentence": sentence}, StatFields, task="extraction")
        assert res.ok, res.error
        assert res.value is not None and res.value.model_dump() == {
            "test": "t", "df": "98", "statistic": "2.45", "p": ".016"}
        # llama.cpp's server refuses response_format json_schema (HTTP 500): one rejected request, not
        # retried, then JSON mode with the schema, which the server enforces
        chats = proxy.chat_requests
        assert [(r.status, r.response_format["type"]) for r in chats] == [(500, "json_schema"), (200, "json_object")]
        assert chats[1].response_format["schema"]["required"] == ["test", "df", "statistic", "p"]
        inv = get_invocation(res.invocation_ids[-1], cache_dir=tmp_path)
        assert inv is not None and inv.mode == "json_object_schema"
        assert inv.prompt_tokens and inv.completion_tokens and inv.latency_s > 0

        n = len(proxy.requests)
        again = client.structured("statistic_fields", {"sentence": sentence}, StatFields, task="extraction")
        assert again.cached and again.value == res.value
        assert len(proxy.requests) == n  # zero HTTP requests for the identical second call
        s = client.summary()
        assert (s.calls, s.cache_hits, s.failures) == (1, 1, 0)


SENTENCES = [
    ("Accuracy correlated with age, r(40) = .31, p = .047.", "r", "40", ".31", ".047"),
    ("Reaction times were slower after the drug, t(23) = 3.12, p = .005.", "t", "23", "3.12", ".005"),
    ("The groups differed in error rates, F(1, 46) = 7.85, p = .007.", "F", "1, 46", "7.85", ".007"),
]


def test_batch_of_sentences_real_model(proxy: FaultServer, tmp_path: Path) -> None:
    with client_for(proxy.url, tmp_path) as client:
        results = client.structured_batch(
            "statistic_fields", [{"sentence": s[0]} for s in SENTENCES], StatFields, "extraction", concurrency=2
        )
        assert len(results) == len(SENTENCES)
        for (sentence, test, df, stat, p), res in zip(SENTENCES, results, strict=True):
            assert res.ok, (sentence, res.error)
            v = res.value
            assert v is not None
            # values are copied from the sentence, exactly
            assert (v.test, v.df, v.statistic, v.p) == (test, df, stat, p), (sentence, v)
            assert not res.cached and res.invocation_ids
        assert client.summary().calls >= len(SENTENCES)


def test_doctor_against_the_real_server(local_llm: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from claimtrace.cli import app

    monkeypatch.setenv("CLAIMTRACE_CACHE_DIR", str(tmp_path))
    res = CliRunner().invoke(app, ["doctor", "--json", "--llm-base-url", local_llm])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    (ep,) = rep["llm"]["endpoints"]
    assert ep["answers"] is True and ep["model"].endswith(".gguf")


def test_in_process_llama_cpp_backend(local_llm: str, tmp_path: Path) -> None:
    import subprocess

    from conftest import REPO

    gguf = subprocess.run([str(REPO / "scripts" / "local-llm.sh"), "model-path"], capture_output=True, text=True,
                          check=True).stdout.strip()
    settings = load_settings(model=gguf, cache_dir=tmp_path, env={}, max_tokens=96, n_ctx=2048)
    assert settings.for_task().backend == "llama_cpp"
    with LLMClient(settings) as client:
        res = client.structured("statistic_fields", {"sentence": SENTENCES[1][0]}, StatFields)
        assert res.ok, res.error
        assert res.value is not None and (res.value.df, res.value.statistic, res.value.p) == ("23", "3.12", ".005")


def test_llm_extractor_answers_are_schema_constrained(proxy: FaultServer, tmp_path: Path) -> None:
    # the LLM extractor on a real paper through the real model; oracle context (one paragraph per stage) keeps
    # the prompts short. Every request that reached the model asked llama.cpp to constrain the answer to the
    # stage's JSON schema, and every answer parsed: no re-ask, no llm_error, a located quote or a flag saying why not
    from claimtrace.documents import load_document
    from claimtrace.extract.llm_extractor import LLMExtractor
    from claimtrace.extract.pipeline import FindingInput, extract_traces
    from conftest import SAMPLE

    doc = load_document(SAMPLE)
    aim = doc.paragraphs[2]
    result = next(p for p in doc.paragraphs if any(s.text.startswith("Significantly more patients") for s in p.sentences))
    finding = FindingInput(text="Hydrotherapy patients felt much better more often than land-based exercise patients.",
                           gold_paragraph_ids=[result.id], hypothesis_gold_paragraph_ids=[aim.id])
    # a shared 2-core machine reads a 700-token prompt in minutes: a long timeout
    with client_for(proxy.url, tmp_path, max_tokens=256, timeout=1200.0) as client:
        tr = extract_traces(doc, [finding], extractor=LLMExtractor(client), config="oracle")[0]
        invs = [get_invocation(i, cache_dir=tmp_path) for i in tr.invocation_ids]
    chats = [r for r in proxy.chat_requests if r.status == 200]
    assert len(chats) == 2 and len(invs) == 2  # one answer per stage, none re-asked
    for r in chats:
        fmt = r.response_format or {}
        assert fmt.get("type") == "json_object" and set(fmt["schema"]["required"]) == {"found", "quote"}
    assert all(i is not None and i.error is None and i.mode == "json_object_schema" for i in invs)
    assert not [f for f in tr.flags if f.code == "llm_error"]
    for span, par, stage in ((tr.hypothesis, aim, "hypothesis"), (tr.evidence, result, "evidence")):
        if span is None:  # the model said found = false, or quoted something not in the paper: flagged
            assert any(f.stage == stage and f.code in ("quote_not_found", f"no_{stage}") for f in tr.flags)
        else:
            assert span.paragraph_ids == [par.id] and doc.body_text[span.start:span.end] == span.text
