"""Fault tests of the LLM layer against a real HTTP server on loopback that misbehaves on cue."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import socket
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from claimtrace.llm import LLMClient, ResponseCache, cache_key, get_invocation, load_settings
from claimtrace.llm.backend import MODE_MEMORY
from llm_fault_server import FaultServer

GOOD = {"test": "t", "df": "98", "statistic": "2.45", "p": ".016"}
SENTENCE = "Treated animals gained more weight, t(98) = 2.45, p = .016."


class StatFields(BaseModel):
    """The schema the tests ask for."""

    test: str
    df: str
    statistic: str
    p: str


@pytest.fixture(autouse=True)
def _fresh_modes() -> Any:
    MODE_MEMORY.clear()
    yield
    MODE_MEMORY.clear()


def client_for(url: str, cache_dir: Path, **overrides: Any) -> LLMClient:
    """A client on the fault server with an isolated environment and cache."""
    opts: dict[str, Any] = {"backoff_base": 0.05, "backoff_max": 0.2, "max_retries": 3}
    opts.update(overrides)
    settings = load_settings(base_url=url, model="fake-model", cache_dir=cache_dir, env={}, **opts)
    return LLMClient(settings)


def ask(client: LLMClient, sentence: str = SENTENCE) -> Any:
    return client.structured("statistic_fields", {"sentence": sentence}, StatFields, task="extraction")


def test_429_with_retry_after_is_honoured(tmp_path: Path) -> None:
    with FaultServer() as srv, client_for(srv.url, tmp_path) as client:
        srv.push({"status": 429, "headers": {"Retry-After": "1"}})
        res = ask(client)
        assert res.ok, res.error
        assert res.value.model_dump() == GOOD
        chats = srv.chat_requests
        assert [r.status for r in chats] == [429, 200]
        # backoff alone would wait <= 0.2 s here: the 1 s gap comes from Retry-After
        assert chats[1].t - chats[0].t >= 1.0
        inv = client.get_invocation(res.invocation_ids[0])
        assert inv is not None and inv.attempts == 2


def test_500_then_success(tmp_path: Path) -> None:
    with FaultServer() as srv, client_for(srv.url, tmp_path) as client:
        srv.push({"status": 500}, {"status": 503})
        res = ask(client)
        assert res.ok and res.value.model_dump() == GOOD
        assert [r.status for r in srv.chat_requests] == [500, 503, 200]


def test_timeout_then_success(tmp_path: Path) -> None:
    with FaultServer() as srv, client_for(srv.url, tmp_path, timeout=0.5) as client:
        srv.push({"sleep": 2.0})
        res = ask(client)
        assert res.ok, res.error
        assert res.value.model_dump() == GOOD
        assert len(srv.chat_requests) == 2
        assert client.get_invocation(res.invocation_ids[0]).attempts == 2  # type: ignore[union-attr]


def test_connection_dropped_then_success(tmp_path: Path) -> None:
    with FaultServer() as srv, client_for(srv.url, tmp_path) as client:
        srv.push({"drop": True})
        res = ask(client)
        assert res.ok, res.error
        assert len(srv.chat_requests) == 2


def test_malformed_json_is_reasked_once_and_repaired(tmp_path: Path) -> None:
    with FaultServer() as srv, client_for(srv.url, tmp_path) as client:
        srv.push({"content": 'Sure! {"test": "t", "df": 98, "statistic"'})
        res = ask(client)
        assert res.ok and res.value.model_dump() == GOOD
        assert len(res.invocation_ids) == 2
        _first, second = srv.chat_requests
        # the re-ask carries the bad answer and the validation error
        assert second.messages[-2] == {"role": "assistant", "content": 'Sure! {"test": "t", "df": 98, "statistic"'}
        assert "not valid JSON" in second.messages[-1]["content"]
        bad = client.get_invocation(res.invocation_ids[0])
        good = client.get_invocation(res.invocation_ids[1])
        assert bad is not None and bad.error is not None and bad.error.kind == "invalid_output"
        assert good is not None and good.reask_of == bad.id and good.parsed == GOOD


def test_schema_violation_reasked_with_field_error(tmp_path: Path) -> None:
    with FaultServer() as srv, client_for(srv.url, tmp_path) as client:
        srv.push({"content": '{"test": "t", "df": "98", "statistic": "2.45"}'})  # "p" missing
        res = ask(client)
        assert res.ok
        assert "p: Field required" in srv.chat_requests[1].messages[-1]["content"]


def test_invalid_twice_is_a_typed_failure(tmp_path: Path) -> None:
    with FaultServer(default_content="I cannot answer that.") as srv, client_for(srv.url, tmp_path) as client:
        res = ask(client)
        assert not res.ok and res.value is None
        assert res.error is not None and res.error.kind == "invalid_output"
        assert "after one re-ask" in res.error.message
        assert len(srv.chat_requests) == 2  # exactly one re-ask
        assert len(res.invocation_ids) == 2
        # nothing invalid was cached: the next identical call asks again
        ask(client)
        assert len(srv.chat_requests) == 4


def test_truncated_answer_is_length_failure(tmp_path: Path) -> None:
    with FaultServer(responder=lambda body: {"content": '{"test": "t", "df"', "finish_reason": "length"}) as srv, \
            client_for(srv.url, tmp_path) as client:
        res = ask(client)
        assert res.error is not None and res.error.kind == "length"


def test_permanent_server_error_is_typed_and_bounded(tmp_path: Path) -> None:
    with FaultServer(responder=lambda body: {"status": 500, "message": "model crashed"}) as srv, \
            client_for(srv.url, tmp_path, max_retries=2) as client:
        res = ask(client)
        assert res.error is not None
        assert res.error.kind == "server_error" and res.error.status_code == 500
        assert res.error.attempts == 3
        assert "model crashed" in res.error.message
        assert len(srv.chat_requests) == 3  # 1 + max_retries, never more
        inv = get_invocation(res.invocation_ids[0], cache_dir=tmp_path)
        assert inv is not None and inv.error is not None and inv.error.kind == "server_error"


def test_rate_limit_exhausted_is_rate_limited(tmp_path: Path) -> None:
    with FaultServer(responder=lambda body: {"status": 429, "headers": {"Retry-After": "0"}}) as srv, \
            client_for(srv.url, tmp_path, max_retries=2) as client:
        res = ask(client)
        assert res.error is not None and res.error.kind == "rate_limited"
        assert len(srv.chat_requests) == 3


@pytest.mark.parametrize(("status", "kind"), [(400, "rejected"), (404, "rejected"), (401, "auth")])
def test_client_errors_are_not_retried(tmp_path: Path, status: int, kind: str) -> None:
    with FaultServer(responder=lambda body: {"status": status, "message": "no such model"}) as srv, \
            client_for(srv.url, tmp_path) as client:
        res = ask(client)
        assert res.error is not None and res.error.kind == kind and res.error.status_code == status
        assert len(srv.chat_requests) == 1


def test_unreachable_endpoint_is_connection_failure(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = client_for(f"http://127.0.0.1:{port}/v1", tmp_path, max_retries=1)
    res = ask(client)
    client.close()
    assert res.error is not None and res.error.kind == "connection" and res.error.attempts == 2


def _batch_responder(body: dict[str, Any]) -> dict[str, Any]:
    import time

    time.sleep(0.05)  # let requests overlap so the concurrency bound is exercised
    sentence = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if "REJECT" in sentence:
        return {"status": 400, "message": "prompt too long"}
    if "GARBAGE" in sentence:
        return {"content": "no json here"}
    n = sentence.split("t(")[1].split(")")[0]
    return {"content": json.dumps({"test": "t", "df": n, "statistic": "2.0", "p": ".05"})}


def test_batch_with_failures_loses_nothing(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = []
    for i in range(12):
        tag = "REJECT " if i % 5 == 1 else "GARBAGE " if i % 5 == 3 else ""
        items.append({"sentence": f"{tag}Result {i}: t({10 + i}) = 2.0, p = .05."})
    items.append({"sentence": "x", "unexpected": 1})  # a prompt error is a failed item, not a crash
    with FaultServer(responder=_batch_responder) as srv, client_for(srv.url, tmp_path) as client:
        results = client.structured_batch("statistic_fields", items, StatFields, "extraction", concurrency=3)
        assert len(results) == len(items)
        for i, (item, res) in enumerate(zip(items, results, strict=True)):
            if "unexpected" in item:
                assert res.error is not None and res.error.kind == "prompt"
            elif "REJECT" in item["sentence"]:
                assert res.error is not None and res.error.kind == "rejected"
            elif "GARBAGE" in item["sentence"]:
                assert res.error is not None and res.error.kind == "invalid_output"
            else:
                assert res.ok and res.value.df == str(10 + i), (i, res)
        assert srv.max_in_flight <= 3
        assert srv.max_in_flight >= 2
        summary = client.summary()
        # 8 good (1 request each) + 2 rejected (1 each) + 2 garbage (2 each)
        assert summary.calls == 14 and summary.cache_hits == 0


def test_async_batch_in_running_loop(tmp_path: Path) -> None:
    with FaultServer(responder=_batch_responder) as srv, client_for(srv.url, tmp_path) as client:
        items = [{"sentence": f"t({n}) = 1.0, p = .3"} for n in (3, 4, 5)]

        async def go() -> list[Any]:
            return await client.astructured_batch("statistic_fields", items, StatFields, concurrency=2)

        results = asyncio.run(go())
        assert [r.value.df for r in results] == ["3", "4", "5"]
        assert len(srv.chat_requests) == 3


def test_cache_hit_makes_no_http_request(tmp_path: Path) -> None:
    with FaultServer() as srv:
        with client_for(srv.url, tmp_path) as client:
            first = ask(client)
            assert first.ok and not first.cached
            n = len(srv.requests)
            second = ask(client)
            assert second.cached and second.value == first.value
            assert len(srv.requests) == n  # answered from the cache: no HTTP at all
            assert second.invocation_ids != first.invocation_ids
            summary = client.summary()
            assert (summary.calls, summary.cache_hits) == (1, 1)
        # another run (a new client, same cache dir): still from the cache
        with client_for(srv.url, tmp_path) as again:
            assert ask(again).cached
            assert len(srv.requests) == n
        # a different sentence, model or schema misses
        with client_for(srv.url, tmp_path) as again:
            assert not ask(again, SENTENCE.replace(".016", ".017")).cached
        # --no-cache bypasses it
        with client_for(srv.url, tmp_path, cache=False) as nocache:
            assert not ask(nocache).cached
        assert len(srv.chat_requests) == 3


def test_openai_env_vars_do_not_redirect_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FaultServer() as ours, FaultServer() as other:
        monkeypatch.setenv("OPENAI_BASE_URL", other.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-be-used")
        with client_for(ours.url, tmp_path) as client:
            assert ask(client).ok
        assert len(ours.chat_requests) == 1 and other.requests == []


def test_llama_cpp_style_json_schema_rejection_falls_back_and_is_remembered(tmp_path: Path) -> None:
    with FaultServer(reject_json_schema=True) as srv:
        with client_for(srv.url, tmp_path) as client:
            res = ask(client)
            assert res.ok and res.value.model_dump() == GOOD
            kinds = [(r.status, (r.response_format or {}).get("type"), "schema" in (r.response_format or {}))
                     for r in srv.chat_requests]
            # one rejected json_schema request (not retried), then json_object + schema
            assert kinds == [(500, "json_schema", False), (200, "json_object", True)]
            ask(client, "Another result, t(20) = 3.1, p = .005.")
            assert len(srv.chat_requests) == 3  # remembered: no second rejected request
        MODE_MEMORY.clear()  # a new process: the mode comes from the cache database
        with client_for(srv.url, tmp_path) as client:
            ask(client, "A third result, t(21) = 3.0, p = .006.")
        assert len(srv.chat_requests) == 4
        assert srv.chat_requests[-1].response_format == srv.chat_requests[1].response_format or \
            srv.chat_requests[-1].response_format["type"] == "json_object"  # type: ignore[index]


def test_server_without_response_format_gets_schema_in_prompt(tmp_path: Path) -> None:
    with FaultServer(reject_response_format=True) as srv, client_for(srv.url, tmp_path) as client:
        res = ask(client)
        assert res.ok
        formats = [(r.response_format or {}).get("type") for r in srv.chat_requests]
        assert formats == ["json_schema", "json_object", "json_object", None]
        last = srv.chat_requests[-1]
        assert '"statistic"' in last.messages[0]["content"] and "JSON schema" in last.messages[0]["content"]


def _writer(args: tuple[str, int, int]) -> int:
    path, worker, n = args
    cache = ResponseCache(path)
    for i in range(n):
        cache.put(f"k{worker}-{i}", endpoint="e", model="m", text=json.dumps({"w": worker, "i": i}))
        assert cache.get(f"k{worker}-{i}") is not None
    cache.close()
    return n


def test_cache_is_safe_with_several_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "llm-cache.sqlite3")
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        written = pool.map(_writer, [(path, w, 150) for w in range(4)])
    assert written == [150] * 4
    cache = ResponseCache(path)
    assert cache.count() == 600
    hit = cache.get("k3-149")
    assert hit is not None and json.loads(hit.text) == {"w": 3, "i": 149}
    cache.close()


# ---- behaviour that mutation testing found no test pinned -----------------------------------

class StatFieldsDescribed(BaseModel):
    """The same fields, with descriptions: another JSON schema an answer to the first also satisfies."""

    test: str = Field(description="the test's letter")
    df: str = Field(description="degrees of freedom")
    statistic: str = Field(description="the test statistic")
    p: str = Field(description="the p-value as written")


def test_cache_key_changes_with_the_schema_alone() -> None:
    msgs = [{"role": "user", "content": SENTENCE}]
    params = {"temperature": 0.0, "seed": 0, "max_tokens": 64}
    a = cache_key("http://x/v1", "m", msgs, params, StatFields.model_json_schema())
    b = cache_key("http://x/v1", "m", msgs, params, StatFieldsDescribed.model_json_schema())
    none = cache_key("http://x/v1", "m", msgs, params, None)
    assert len({a, b, none}) == 3
    assert a == cache_key("http://x/v1/", "m", msgs, dict(params), StatFields.model_json_schema())


def test_a_cached_answer_is_not_served_for_another_schema(tmp_path: Path) -> None:
    with FaultServer() as srv:
        settings = load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp_path, env={})
        with LLMClient(settings) as client:
            first = client.structured("statistic_fields", {"sentence": SENTENCE}, StatFields, task="extraction")
            assert first.ok and not first.cached
            again = client.structured("statistic_fields", {"sentence": SENTENCE}, StatFields, task="extraction")
            assert again.cached
            other = client.structured("statistic_fields", {"sentence": SENTENCE}, StatFieldsDescribed,
                                      task="extraction")
            assert other.ok and not other.cached
        chats = srv.chat_requests
        assert len(chats) == 2
        sent = chats[1].response_format
        assert sent is not None and "the p-value as written" in str(sent)


def test_fixed_structured_mode_is_used_alone(tmp_path: Path) -> None:
    # structured: prompt (the unconstrained baseline): no response_format at all, the schema in the system prompt,
    # even on a server that would take json_schema; nothing negotiated, nothing remembered
    with FaultServer() as srv, client_for(srv.url, tmp_path, structured="prompt") as client:
        assert ask(client).ok
        (req,) = srv.chat_requests
        assert req.response_format is None and "JSON schema" in req.messages[0]["content"]
        assert MODE_MEMORY.get(srv.url.rstrip("/"), "fake-model") is None
    # structured: json_object_schema against a llama.cpp-like server: no rejected json_schema request first
    with FaultServer(reject_json_schema=True) as srv, client_for(srv.url, tmp_path / "b", structured="json_object_schema") as client:
        assert ask(client).ok
        assert [(r.status, (r.response_format or {}).get("type")) for r in srv.chat_requests] == [(200, "json_object")]
        assert "schema" in (srv.chat_requests[0].response_format or {})
    # a fixed mode the server rejects is a typed failure, not a silent fallback
    with FaultServer(reject_json_schema=True) as srv, client_for(srv.url, tmp_path / "c", structured="json_schema") as client:
        res = ask(client)
        assert not res.ok and res.error is not None and res.error.kind == "rejected"
        assert len(srv.chat_requests) == 1


def test_structured_setting_per_task_and_from_a_file(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("llm:\n  structured: prompt\n  tasks:\n    extraction: {structured: json_object_schema}\n")
    s = load_settings(base_url="http://127.0.0.1:9/v1", settings_file=f, env={})
    assert s.for_task("default").structured == "prompt"
    assert s.for_task("extraction").structured == "json_object_schema"
    f.write_text("llm:\n  structured: grammar\n")
    with pytest.raises(Exception, match="structured"):
        load_settings(base_url="http://127.0.0.1:9/v1", settings_file=f, env={})
