"""In-process llama.cpp backend (a local GGUF file) — needs the ``[llama]`` extra (llama-cpp-python)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from claimtrace.errors import InputError, MissingExtraError
from claimtrace.llm.backend import (
    SCHEMA_IN_PROMPT_MODES,
    BackendError,
    ChatRequest,
    ChatResponse,
    StructuredMode,
    with_schema_instruction,
)
from claimtrace.llm.settings import EndpointConfig


def _import_llama() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise MissingExtraError("the in-process llama.cpp backend", "llama", "llama-cpp-python") from None
    return llama_cpp


class LlamaCppBackend:
    """A GGUF model loaded in this process; structured output through llama.cpp's JSON-schema grammar."""

    def __init__(self, config: EndpointConfig) -> None:
        llama_cpp = _import_llama()
        if not config.model:
            raise InputError(None, "the llama_cpp backend needs the path of a .gguf file as the model")
        path = Path(config.model).expanduser()
        if not path.is_file():
            raise InputError(path, "GGUF model file not found")
        self.config = config
        self._path = str(path.resolve())
        self._lock = threading.Lock()
        self._llm = llama_cpp.Llama(
            model_path=self._path,
            n_ctx=config.n_ctx,
            n_threads=config.n_threads,
            seed=config.seed if config.seed is not None else 0,
            verbose=False,
        )

    @property
    def endpoint(self) -> str:
        """``llama_cpp://`` plus the GGUF path."""
        return f"llama_cpp://{self._path}"

    @property
    def model(self) -> str | None:
        """The GGUF file name."""
        return Path(self._path).name

    def list_models(self) -> list[str]:
        """The one loaded model."""
        return [Path(self._path).name]

    def close(self) -> None:
        """Free the model."""
        close = getattr(self._llm, "close", None)
        if callable(close):
            close()

    def complete(self, request: ChatRequest) -> ChatResponse:
        """One chat completion (one at a time: a llama.cpp context is not thread-safe)."""
        structured = self.config.structured
        mode: StructuredMode | None = None
        messages = request.messages
        if request.schema is not None:
            # a grammar from the JSON schema unless the settings ask for a weaker mode (the baseline)
            mode = "json_object" if structured == "json_object" else "prompt" if structured == "prompt" \
                else "json_object_schema"
            if mode in SCHEMA_IN_PROMPT_MODES:
                messages = with_schema_instruction(messages, request.schema)
        kwargs: dict[str, Any] = {
            "messages": messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if mode == "json_object_schema":
            kwargs["response_format"] = {"type": "json_object", "schema": request.schema}
        elif mode == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        t0 = time.perf_counter()
        try:
            with self._lock:
                out = self._llm.create_chat_completion(**kwargs)
        except Exception as exc:  # llama.cpp raises ValueError for over-long prompts etc.
            raise BackendError("rejected", f"llama.cpp: {type(exc).__name__}: {exc}") from None
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return ChatResponse(
            text=choice["message"].get("content") or "",
            model=self.model,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            finish_reason=choice.get("finish_reason"),
            mode=mode,
            latency_s=time.perf_counter() - t0,
            raw=dict(out),
        )
