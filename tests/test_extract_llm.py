"""The LLM extractor against a real OpenAI-compatible HTTP server on loopback (scripted answers).

The server answers like a model would: a verbatim quote, a quote with changed dashes and spacing,
and an invented quote. The extractor must locate the first two in the paper and flag the third.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claimtrace.documents import load_document
from claimtrace.extract.config import get_preset
from claimtrace.extract.llm_extractor import LLMExtractor
from claimtrace.extract.pipeline import FindingInput, extract_traces
from claimtrace.llm import LLMClient, load_settings
from conftest import SAMPLE
from llm_fault_server import FaultServer

DOC = load_document(SAMPLE)
AIM = DOC.paragraphs[2].sentences[0].text
RESULT = next(s.text for p in DOC.paragraphs for s in p.sentences if s.text.startswith("Significantly more patients"))


def _client(url: str, tmp: Path) -> LLMClient:
    return LLMClient(load_settings(base_url=url, model="fake-model", cache_dir=tmp, env={}))


def _responder(invented: bool) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        system = body["messages"][0]["content"]
        lead = {"reasoning": "The results paragraph reports it."} if '"reasoning"' in system else {}
        if "core hypothesis" in system:
            return {"content": json.dumps({**lead, "found": True, "quote": AIM})}
        if invented:
            quote = "Hydrotherapy patients were 3.2 times more likely to improve (OR 3.2, 95% CI 1.1-9.0)."
        else:
            quote = RESULT.replace(" ", "  ").replace("(", "( ")
        return {"content": json.dumps({**lead, "found": True, "quote": quote})}
    return answer


def test_llm_quotes_are_located_with_offsets_and_invocation_ids(tmp_path: Path) -> None:
    with FaultServer(responder=_responder(False)) as srv:
        client = _client(srv.url, tmp_path)
        ex = LLMExtractor(client)
        tr = extract_traces(DOC, ["hydrotherapy vs land: feeling much better"], extractor=ex, config="rag-k5")[0]
        client.close()
    assert tr.extractor == "llm" and tr.model == "fake-model" and len(tr.invocation_ids) == 2
    assert tr.hypothesis is not None and tr.hypothesis.located == "exact" and tr.hypothesis.text == AIM
    ev = tr.evidence
    assert ev is not None and ev.located in ("normalised", "fuzzy") and ev.text == RESULT
    assert DOC.body_text[ev.start:ev.end] == RESULT
    assert any(r["p_value"] == 0.001 for r in ev.statistics)
    # the evidence prompt got the composite query and only the retrieved paragraphs
    user = srv.chat_requests[-1].messages[-1]["content"]
    assert "Hypothesis: " + AIM in user and user.count("\n[p") <= 5


def test_invented_quote_is_flagged_not_kept(tmp_path: Path) -> None:
    with FaultServer(responder=_responder(True)) as srv:
        client = _client(srv.url, tmp_path)
        ex = LLMExtractor(client)
        tr = extract_traces(DOC, [FindingInput(text="hydrotherapy vs land: improvement", hypothesis=AIM)],
                            extractor=ex, config=get_preset("fulltext-cot"))[0]
        client.close()
    assert tr.evidence is None
    flag = next(f for f in tr.flags if f.code == "quote_not_found")
    assert flag.stage == "evidence" and "OR 3.2" in (flag.quote or "")
    # stage 1 was skipped: only one call, and the CoT prompt asked for reasoning
    assert len(srv.chat_requests) == 1
    assert '"reasoning"' in srv.chat_requests[0].messages[0]["content"]


def test_cli_llm_extractor_and_missing_llm(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "CLAIMTRACE_CACHE_DIR": str(tmp_path)}
    for k in ("CLAIMTRACE_LLM_BASE_URL", "CLAIMTRACE_LLM_MODEL", "CLAIMTRACE_SETTINGS"):
        env.pop(k, None)
    with FaultServer(responder=_responder(True)) as srv:
        res = subprocess.run([sys.executable, "-m", "claimtrace", "extract", str(SAMPLE), "--extractor", "llm", "--json",
                              "--llm-base-url", srv.url, "--llm-model", "fake-model", "--config", "rag-k5",
                              "--finding", "hydrotherapy vs land: improvement"], capture_output=True, text=True, env=env,
                             timeout=180)
    assert res.returncode == 0, res.stderr
    tr = json.loads(res.stdout)["traces"][0]
    assert tr["extractor"] == "llm" and tr["hypothesis"]["text"] == AIM and tr["evidence"] is None
    assert [f["code"] for f in tr["flags"]] == ["quote_not_found"] and len(tr["invocation_ids"]) == 2
    res = subprocess.run([sys.executable, "-m", "claimtrace", "extract", str(SAMPLE), "--extractor", "llm"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 2 and "no LLM configured" in res.stderr and "Traceback" not in res.stderr


def test_batch_records_an_unreached_llm_as_a_failure_and_resume_asks_again(tmp_path: Path) -> None:
    """A closed loopback port: every LLM call fails to connect, so the item is failed (with why), not done."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "CLAIMTRACE_CACHE_DIR": str(tmp_path), "CLAIMTRACE_LLM__MAX_RETRIES": "0"}
    for k in ("CLAIMTRACE_LLM_BASE_URL", "CLAIMTRACE_LLM_MODEL", "CLAIMTRACE_SETTINGS"):
        env.pop(k, None)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"id": "a", "doc": str(SAMPLE), "findings": ["hydrotherapy vs land: improvement"]})
                        + "\n")
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "claimtrace", "extract", "--batch", str(manifest), "--out", str(out), "--extractor",
           "llm", "--llm-base-url", f"http://127.0.0.1:{port}/v1", "--llm-model", "fake-model", "--config", "rag-k5"]
    for _ in range(2):  # the second run resumes: the failed item is asked again, and fails again the same way
        res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=180)
        assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
        rows = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
        assert [r["id"] for r in rows][-1] == "a"
        assert "the LLM was not reached (LLM connection" in rows[-1]["error"]
