"""Backends: one interface (:class:`Backend`), implemented over the official ``openai`` SDK.

:class:`OpenAIBackend` serves OpenAI, Azure-style gateways, vLLM, SGLang, Ollama and the llama.cpp
server: anything that speaks ``/v1/chat/completions``. It negotiates structured output per endpoint:

1. ``json_schema``        — OpenAI's ``response_format={"type": "json_schema", ...}`` (OpenAI, vLLM, ...)
2. ``json_object_schema`` — ``{"type": "json_object", "schema": ...}`` (llama.cpp's server constrains to it)
3. ``json_object``        — plain JSON mode, the schema is given in the system prompt
4. ``prompt``             — no response_format at all, the schema is given in the system prompt

A request whose ``response_format`` the server rejects (HTTP 400/422, or llama.cpp's HTTP 500 "only
'text' or 'json_object' allowed") is not retried: the next mode is tried and the mode that works is
remembered per endpoint and model. A configured ``structured`` mode other than ``auto`` is used alone, with
no negotiation (``prompt``: the unconstrained baseline the benchmarks compare against). Retryable failures (429, 5xx, timeouts, connection errors) are
retried with exponential backoff and jitter, honouring Retry-After, at most ``max_retries`` times.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from claimtrace.llm.retry import RetryPolicy, parse_retry_after
from claimtrace.llm.settings import EndpointConfig
from claimtrace.llm.types import FailureKind

StructuredMode = Literal["json_schema", "json_object_schema", "json_object", "prompt"]
MODE_LADDER: tuple[StructuredMode, ...] = ("json_schema", "json_object_schema", "json_object", "prompt")
SCHEMA_IN_PROMPT_MODES = ("json_object", "prompt")


@dataclass
class ChatRequest:
    """One chat completion request; ``schema`` (a JSON schema) asks for structured output."""

    messages: list[dict[str, str]]
    schema: dict[str, Any] | None = None
    schema_name: str = "answer"
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 1024


@dataclass
class ChatResponse:
    """The backend's answer: text plus usage and how it was obtained."""

    text: str
    model: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    mode: StructuredMode | None = None
    attempts: int = 1
    latency_s: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict)


class BackendError(Exception):
    """A call that failed for good (after retries, or not retryable), with a typed kind."""

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        status_code: int | None = None,
        attempts: int = 1,
        retry_after: float | None = None,
        retryable: bool = False,
        format_rejected: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
        self.status_code = status_code
        self.attempts = attempts
        self.retry_after = retry_after
        self.retryable = retryable
        self.format_rejected = format_rejected


@runtime_checkable
class Backend(Protocol):
    """What the client needs from a backend; implement this to add another kind of model server."""

    @property
    def endpoint(self) -> str:
        """A stable identity of the endpoint (part of the cache key)."""
        ...

    @property
    def model(self) -> str | None:
        """The model name (part of the cache key)."""
        ...

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Run one chat completion; raise :class:`BackendError` on failure."""
        ...

    def list_models(self) -> list[str]:
        """Model ids the endpoint offers (for ``doctor``)."""
        ...

    def close(self) -> None:
        """Release connections/resources."""
        ...


class ModeMemory:
    """Which structured-output mode works for which (endpoint, model); process-wide, thread-safe."""

    def __init__(self) -> None:
        self._modes: dict[tuple[str, str], StructuredMode] = {}
        self._lock = threading.Lock()
        self.store: Callable[[str, str, StructuredMode], None] | None = None

    def get(self, endpoint: str, model: str) -> StructuredMode | None:
        """The remembered mode, if any."""
        with self._lock:
            return self._modes.get((endpoint, model))

    def set(self, endpoint: str, model: str, mode: StructuredMode, persist: bool = True) -> None:
        """Remember a mode (and persist it through ``store`` when set)."""
        with self._lock:
            changed = self._modes.get((endpoint, model)) != mode
            self._modes[(endpoint, model)] = mode
        if changed and persist and self.store is not None:
            self.store(endpoint, model, mode)

    def clear(self) -> None:
        """Forget everything (tests)."""
        with self._lock:
            self._modes.clear()


MODE_MEMORY = ModeMemory()

_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "schema", "'text'")


def schema_instruction(schema: dict[str, Any]) -> str:
    """The text that tells a model which JSON to write when the server cannot enforce the schema."""
    return (
        "Answer with one JSON object only (no prose, no code fences) that conforms to this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def with_schema_instruction(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """Messages with the schema instruction appended to the system message (or a new one)."""
    out = [dict(m) for m in messages]
    text = schema_instruction(schema)
    for m in out:
        if m.get("role") == "system":
            m["content"] = (m.get("content") or "").rstrip() + "\n\n" + text
            return out
    return [{"role": "system", "content": text}, *out]


class OpenAIBackend:
    """An OpenAI-compatible endpoint through the official ``openai`` SDK (its own retries switched off)."""

    def __init__(
        self,
        config: EndpointConfig,
        *,
        modes: ModeMemory | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        from openai import OpenAI, Timeout

        self.config = config
        self._base_url = (config.base_url or "").rstrip("/")
        self._model = config.model
        self._modes = modes if modes is not None else MODE_MEMORY
        self._sleep = sleep
        self.policy = RetryPolicy(config.max_retries, config.backoff_base, config.backoff_max)
        key = config.api_key.get_secret_value() if config.api_key is not None else "not-needed"
        # everything explicit: the SDK must not pick up OPENAI_BASE_URL / OPENAI_API_KEY by itself
        self._client = OpenAI(
            base_url=self._base_url,
            api_key=key,
            timeout=Timeout(config.timeout, connect=config.connect_timeout),
            max_retries=0,
        )
        self._use_max_completion_tokens = False
        self._lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        """The base URL (part of the cache key)."""
        return self._base_url

    @property
    def model(self) -> str | None:
        """The configured model; when unset, the endpoint's first model."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    models = self.list_models()
                    if not models:
                        raise BackendError("rejected", f"{self._base_url}: no model configured and none listed")
                    self._model = models[0]
        return self._model

    def list_models(self) -> list[str]:
        """Model ids from ``GET /models`` (one attempt, no retries)."""
        try:
            return [m.id for m in self._client.models.list()]
        except Exception as exc:
            raise _map_exception(exc) from None

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One chat completion with structured-output negotiation and retries."""
        model = self.model or ""
        if request.schema is None:
            return self._with_retry(request, None, model)
        if self.config.structured != "auto":
            return self._with_retry(request, self.config.structured, model)
        mode = self._modes.get(self.endpoint, model) or MODE_LADDER[0]
        while True:
            try:
                resp = self._with_retry(request, mode, model)
            except BackendError as exc:
                nxt = _next_mode(mode)
                if exc.format_rejected and nxt is not None:
                    mode = nxt
                    self._modes.set(self.endpoint, model, mode)
                    continue
                raise
            self._modes.set(self.endpoint, model, mode)
            return resp

    def _with_retry(self, request: ChatRequest, mode: StructuredMode | None, model: str) -> ChatResponse:
        attempt = 0
        while True:
            t0 = time.perf_counter()
            try:
                resp = self._create(request, mode, model)
                resp.attempts = attempt + 1
                resp.latency_s = time.perf_counter() - t0
                return resp
            except Exception as exc:
                err = exc if isinstance(exc, BackendError) else _map_exception(exc, mode)
                err.attempts = attempt + 1
                if err.format_rejected or not err.retryable or attempt >= self.policy.max_retries:
                    raise err from None
                self._sleep(self.policy.delay(attempt, err.retry_after))
                attempt += 1

    def _create(self, request: ChatRequest, mode: StructuredMode | None, model: str) -> ChatResponse:
        messages = request.messages
        if request.schema is not None and mode in SCHEMA_IN_PROMPT_MODES:
            messages = with_schema_instruction(messages, request.schema)
        kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": request.temperature}
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if self._use_max_completion_tokens:
            kwargs["max_completion_tokens"] = request.max_tokens
        else:
            kwargs["max_tokens"] = request.max_tokens
        if request.schema is not None:
            if mode == "json_schema":
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": False},
                }
            elif mode == "json_object_schema":
                kwargs["response_format"] = {"type": "json_object", "schema": request.schema}
            elif mode == "json_object":
                kwargs["response_format"] = {"type": "json_object"}
        try:
            completion = self._client.chat.completions.create(**kwargs)
        except Exception as exc:
            err = _map_exception(exc, mode)
            if (
                err.kind == "rejected"
                and not self._use_max_completion_tokens
                and "max_completion_tokens" in err.message
            ):
                self._use_max_completion_tokens = True  # newer OpenAI models refuse max_tokens
                return self._create(request, mode, model)
            raise err from None
        if not completion.choices:
            raise BackendError("server_error", "the server answered without choices", retryable=True)
        choice = completion.choices[0]
        usage = completion.usage
        return ChatResponse(
            text=choice.message.content or "",
            model=completion.model,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            finish_reason=choice.finish_reason,
            mode=mode,
            raw=completion.model_dump(mode="json"),
        )


def _next_mode(mode: StructuredMode | None) -> StructuredMode | None:
    if mode is None:
        return None
    i = MODE_LADDER.index(mode)
    return MODE_LADDER[i + 1] if i + 1 < len(MODE_LADDER) else None


def _map_exception(exc: Exception, mode: StructuredMode | None = None) -> BackendError:
    """Turn an openai/httpx exception into a typed :class:`BackendError`."""
    import openai

    if isinstance(exc, BackendError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return BackendError("timeout", f"request timed out: {exc}", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return BackendError("connection", f"cannot connect: {exc}", retryable=True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        body = exc.body if exc.body is not None else ""
        text = f"{exc.message} {json.dumps(body, default=str) if not isinstance(body, str) else body}"
        message = " ".join(text.split())[:500]
        retry_after = parse_retry_after(dict(exc.response.headers)) if exc.response is not None else None
        lowered = message.lower()
        format_rejected = (
            mode in ("json_schema", "json_object_schema", "json_object")
            and status in (400, 422, 500, 501)
            and any(w in lowered for w in _FORMAT_WORDS)
        )
        if format_rejected:
            return BackendError("rejected", message, status_code=status, format_rejected=True)
        if status == 429:
            return BackendError("rate_limited", message, status_code=status, retry_after=retry_after, retryable=True)
        if status in (401, 403):
            return BackendError("auth", message, status_code=status)
        if status in (408, 409) or status >= 500:
            kind: FailureKind = "timeout" if status == 408 else "server_error"
            return BackendError(kind, message, status_code=status, retry_after=retry_after, retryable=True)
        return BackendError("rejected", message, status_code=status)
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return BackendError("server_error", f"unreadable response: {exc}", retryable=True)
    return BackendError("backend", f"{type(exc).__name__}: {exc}")


def make_backend(config: EndpointConfig, *, modes: ModeMemory | None = None) -> Backend:
    """The backend for a resolved task configuration (OpenAI-compatible, or in-process llama.cpp)."""
    if config.backend == "llama_cpp":
        from claimtrace.llm.llama_cpp import LlamaCppBackend

        return LlamaCppBackend(config)
    return OpenAIBackend(config, modes=modes)
