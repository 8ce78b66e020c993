"""The main API: :class:`LLMClient` — typed, cached, retried, accounted and traceable LLM calls.

Typical use by a pipeline stage::

    from claimtrace.llm import LLMClient, load_settings

    class Stat(BaseModel):
        test: str
        p: str

    client = LLMClient(load_settings())          # raises LLMNotConfiguredError when no LLM is configured
    res = client.structured("statistic_fields", {"sentence": s}, Stat, task="extraction")
    if res.ok:
        use(res.value, provenance=res.invocation_ids)
    else:
        record_failure(res.error)                # a typed LLMFailure; never an exception, never dropped

Every call renders a packaged, versioned prompt, asks for JSON that matches the pydantic model,
validates the answer, re-asks once with the validation error when it is invalid, caches valid answers
and records one ledger invocation per request (or cache hit).
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from pydantic import BaseModel, ValidationError

from claimtrace.llm.backend import MODE_MEMORY, Backend, BackendError, ChatRequest, ChatResponse, make_backend
from claimtrace.llm.cache import ResponseCache, cache_key
from claimtrace.llm.ledger import Invocation, Ledger, LedgerSummary, dump_json, new_id
from claimtrace.llm.prompts import Prompt, PromptError, resolve_prompt
from claimtrace.llm.settings import EndpointConfig, LLMNotConfiguredError, LLMSettings, load_settings
from claimtrace.llm.types import LLMFailure, LLMResult

M = TypeVar("M", bound=BaseModel)
P = ParamSpec("P")
R = TypeVar("R")

REASK_TEMPLATE = (
    "Your answer is not valid: {error}\n"
    "Reply again with only the corrected JSON object, following the required schema."
)
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)


class InvalidAnswer(ValueError):
    """An answer that is not valid JSON for the schema (message suitable for a re-ask)."""


def parse_json_answer(text: str) -> Any:
    """The JSON value in a model's answer (tolerates code fences and prose around one object)."""
    s = text.strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1).strip()
    try:
        return json.loads(s)
    except json.JSONDecodeError as first:
        start, end = s.find("{"), s.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(s[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise InvalidAnswer(f"not valid JSON ({first.msg} at line {first.lineno} column {first.colno})") from None


def validate_answer(text: str, schema: type[M]) -> M:
    """Parse and validate an answer against a pydantic model; raises InvalidAnswer with a short reason."""
    data = parse_json_answer(text)
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        parts = []
        for err in exc.errors()[:5]:
            loc = ".".join(str(x) for x in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        raise InvalidAnswer("does not match the schema: " + "; ".join(parts)) from None


def _in_thread(method: Callable[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    """The async twin of a blocking method: the same parameters, run in a worker thread."""

    @functools.wraps(method)
    async def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(method, *args, **kwargs)

    twin.__doc__ = f"Async :meth:`{method.__name__}` (runs in a worker thread)."
    return twin


def _blocking(method: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, R]:
    """The blocking twin of an async method: the same parameters, run to completion by ``asyncio.run``."""

    @functools.wraps(method)
    def twin(*args: P.args, **kwargs: P.kwargs) -> R:
        return asyncio.run(method(*args, **kwargs))

    twin.__doc__ = f"Blocking :meth:`{method.__name__}` (for code that is not async)."
    return twin


class LLMClient:
    """Typed, cached, retried LLM calls with a ledger; one client per run (thread-safe)."""

    def __init__(
        self,
        settings: LLMSettings | None = None,
        *,
        run_id: str | None = None,
        use_cache: bool | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        """Build a client; raises LLMNotConfiguredError when no LLM is configured or --offline is set."""
        self.settings = settings if settings is not None else load_settings()
        if not self.settings.configured():
            raise LLMNotConfiguredError()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else self.settings.resolved_cache_dir()
        use = self.settings.cache if use_cache is None else use_cache
        self.cache: ResponseCache | None = ResponseCache.in_dir(self.cache_dir) if use else None
        self.ledger = Ledger.in_dir(self.cache_dir, run_id=run_id, prices=self.settings.prices)
        self._backends: dict[EndpointConfig, Backend] = {}
        self._lock = threading.Lock()
        if self.cache is not None:
            MODE_MEMORY.store = self.cache.set_mode

    # ------------------------------------------------------------------ plumbing
    @property
    def run_id(self) -> str:
        """The id of this run in the ledger."""
        return self.ledger.run_id

    def backend(self, task: str = "default") -> Backend:
        """The backend serving a task (created once per distinct endpoint configuration)."""
        cfg = self.settings.for_task(task)
        with self._lock:
            be = self._backends.get(cfg)
            if be is None:
                be = make_backend(cfg, modes=MODE_MEMORY)
                self._backends[cfg] = be
        return be

    def _remembered_mode(self, be: Backend, model: str) -> None:
        if self.cache is not None and MODE_MEMORY.get(be.endpoint, model) is None:
            mode = self.cache.get_mode(be.endpoint, model)
            if mode:
                MODE_MEMORY.set(be.endpoint, model, mode, persist=False)  # type: ignore[arg-type]

    def summary(self) -> LedgerSummary:
        """Calls, cache hits, tokens, latency and estimated cost of this run."""
        return self.ledger.summary()

    def get_invocation(self, invocation_id: str) -> Invocation | None:
        """An invocation recorded in this client's ledger (any run)."""
        return self.ledger.get(invocation_id)

    def close(self) -> None:
        """Close backends and database connections."""
        for be in self._backends.values():
            be.close()
        self._backends.clear()
        if self.cache is not None:
            if MODE_MEMORY.store == self.cache.set_mode:
                MODE_MEMORY.store = None
            self.cache.close()
        self.ledger.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ main API
    def structured(
        self,
        prompt: str | Path | Prompt,
        variables: Mapping[str, Any],
        schema: type[M],
        task: str = "default",
        *,
        max_tokens: int | None = None,
    ) -> LLMResult[M]:
        """Render ``prompt`` with ``variables``, ask for JSON matching ``schema``, validate; never raises on
        model/network failures (returns ``LLMResult.error``). Raises PromptError for wrong variables."""
        p = resolve_prompt(prompt)
        messages = p.render(dict(variables))
        return self._run(p, messages, schema, task, max_tokens)

    def text(
        self,
        prompt: str | Path | Prompt,
        variables: Mapping[str, Any],
        task: str = "default",
        *,
        max_tokens: int | None = None,
    ) -> LLMResult[str]:
        """Free-text completion (cached, retried, recorded); the value is the answer string."""
        p = resolve_prompt(prompt)
        messages = p.render(dict(variables))
        return self._run(p, messages, None, task, max_tokens)

    async def astructured_batch(
        self,
        prompt: str | Path | Prompt,
        items: Sequence[Mapping[str, Any]],
        schema: type[M],
        task: str = "default",
        *,
        concurrency: int | None = None,
        max_tokens: int | None = None,
    ) -> list[LLMResult[M]]:
        """One :meth:`structured` call per variables dict, at most ``concurrency`` at once; results in input
        order. A failing item (even a prompt error) becomes a failed result; it never loses the others."""
        limit = max(1, concurrency or self.settings.concurrency)
        sem = asyncio.Semaphore(limit)
        loop = asyncio.get_running_loop()

        def call(variables: Mapping[str, Any]) -> LLMResult[M]:
            return self.structured(prompt, variables, schema, task, max_tokens=max_tokens)

        with ThreadPoolExecutor(max_workers=limit, thread_name_prefix="claimtrace-llm") as pool:

            async def one(variables: Mapping[str, Any]) -> LLMResult[M]:
                async with sem:
                    try:
                        return await loop.run_in_executor(pool, call, variables)
                    except PromptError as exc:
                        return LLMResult(error=LLMFailure(kind="prompt", message=str(exc)))
                    except Exception as exc:  # a batch loses nothing: turn surprises into typed failures
                        return LLMResult(error=LLMFailure(kind="backend", message=f"{type(exc).__name__}: {exc}"))

            return list(await asyncio.gather(*(one(v) for v in items)))

    #: the async :meth:`structured` (runs in a worker thread)
    astructured = _in_thread(structured)
    #: the blocking :meth:`astructured_batch` (for code that is not async)
    structured_batch = _blocking(astructured_batch)

    # ------------------------------------------------------------------ one call
    def _run(
        self,
        prompt: Prompt,
        messages: list[dict[str, str]],
        schema: type[M] | None,
        task: str,
        max_tokens: int | None,
    ) -> LLMResult[Any]:
        cfg = self.settings.for_task(task)
        base = Invocation(
            id="", run_id=self.run_id, task=task, prompt_name=prompt.name, prompt_version=prompt.version,
            schema_name=schema.__name__ if schema else None,
        )
        try:
            be = self.backend(task)
            model = be.model or ""
        except BackendError as exc:
            return self._failed(base, messages, {}, exc)
        json_schema = schema.model_json_schema() if schema is not None else None
        params: dict[str, Any] = {
            "temperature": cfg.temperature,
            "seed": cfg.seed,
            "max_tokens": max_tokens if max_tokens is not None else cfg.max_tokens,
        }
        base = base.model_copy(update={"endpoint": be.endpoint, "model": model, "params": params})
        key = cache_key(be.endpoint, model, messages, params, json_schema)

        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    cached_value: Any = validate_answer(hit.text, schema) if schema is not None else hit.text
                except InvalidAnswer:
                    self.cache.delete(key)  # should not happen (only valid answers are stored)
                else:
                    inv = self._record(base, messages, raw=hit.text, parsed=cached_value, cached=True,
                                       prompt_tokens=hit.prompt_tokens, completion_tokens=hit.completion_tokens)
                    return LLMResult(value=cached_value, invocation_ids=[inv.id], cached=True, raw=hit.text)

        self._remembered_mode(be, model)
        request = ChatRequest(
            messages=messages,
            schema=json_schema,
            schema_name=schema.__name__ if schema is not None else "answer",
            temperature=float(params["temperature"] or 0.0),
            seed=params["seed"],
            max_tokens=int(params["max_tokens"] or cfg.max_tokens),
        )
        ids: list[str] = []
        reask_of: str | None = None
        last_error = ""
        resp: ChatResponse | None = None
        for round_no in range(2):  # the first answer, then at most one re-ask
            try:
                resp = be.complete(request)
            except BackendError as exc:
                res = self._failed(base, request.messages, {"reask_of": reask_of}, exc)
                res.invocation_ids = [*ids, *res.invocation_ids]
                return res
            try:
                if schema is not None:
                    value: Any = validate_answer(resp.text, schema)
                else:
                    if not resp.text.strip():
                        raise InvalidAnswer("the answer is empty")
                    value = resp.text
            except InvalidAnswer as exc:
                last_error = str(exc)
                if resp.finish_reason == "length":
                    last_error += " (the answer was cut at max_tokens)"
                kind = "length" if resp.finish_reason == "length" else "invalid_output"
                failure = LLMFailure(kind=kind, message=last_error, attempts=resp.attempts, raw=resp.text)
                inv = self._record(base, request.messages, resp=resp, error=failure, reask_of=reask_of)
                ids.append(inv.id)
                if round_no == 0:
                    reask_of = inv.id
                    request = ChatRequest(
                        messages=[
                            *messages,
                            {"role": "assistant", "content": resp.text},
                            {"role": "user", "content": REASK_TEMPLATE.format(error=last_error)},
                        ],
                        schema=request.schema,
                        schema_name=request.schema_name,
                        temperature=request.temperature,
                        seed=request.seed,
                        max_tokens=request.max_tokens,
                    )
                    continue
                failure.message = f"invalid answer after one re-ask: {last_error}"
                return LLMResult(error=failure, invocation_ids=ids, raw=resp.text)
            inv = self._record(base, request.messages, resp=resp, parsed=value, reask_of=reask_of)
            ids.append(inv.id)
            if self.cache is not None:
                self.cache.put(key, endpoint=be.endpoint, model=model, text=resp.text,
                               prompt_tokens=resp.prompt_tokens, completion_tokens=resp.completion_tokens,
                               invocation_id=inv.id)
            return LLMResult(value=value, invocation_ids=ids, raw=resp.text)
        raise AssertionError("unreachable")

    def _record(
        self,
        base: Invocation,
        messages: list[dict[str, str]],
        *,
        resp: ChatResponse | None = None,
        raw: str | None = None,
        parsed: Any = None,
        cached: bool = False,
        error: LLMFailure | None = None,
        reask_of: str | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        latency_s: float = 0.0,
    ) -> Invocation:
        inv = base.model_copy(
            update={
                "id": new_id(),
                "created": time.time(),
                "messages": messages,
                "raw_response": resp.text if resp is not None else raw,
                "parsed": dump_json(parsed) if parsed is not None else None,
                "prompt_tokens": resp.prompt_tokens if resp is not None else prompt_tokens,
                "completion_tokens": resp.completion_tokens if resp is not None else completion_tokens,
                "latency_s": resp.latency_s if resp is not None else latency_s,
                "attempts": resp.attempts if resp is not None else (error.attempts if error else 1),
                "mode": resp.mode if resp is not None else None,
                "cached": cached,
                "error": error,
                "reask_of": reask_of,
            }
        )
        return self.ledger.record(inv)

    def _failed(
        self, base: Invocation, messages: list[dict[str, str]], extra: dict[str, Any], exc: BackendError
    ) -> LLMResult[Any]:
        failure = LLMFailure(kind=exc.kind, message=exc.message, status_code=exc.status_code, attempts=exc.attempts)
        inv = self._record(base, messages, error=failure, reask_of=extra.get("reask_of"))
        return LLMResult(error=failure, invocation_ids=[inv.id])
