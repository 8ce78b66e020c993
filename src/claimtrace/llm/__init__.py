"""claimtrace's LLM layer: any OpenAI-compatible model (or an in-process GGUF), schema-checked answers,
a persistent cache, retries with backoff, a ledger of every invocation, versioned prompt files.

Public API (see docs/llm.md):

* :func:`load_settings`, :class:`LLMSettings`, :func:`llm_configured` — configuration
* :class:`LLMClient` — ``structured()``, ``text()``, ``astructured()``, ``astructured_batch()``,
  ``structured_batch()``, ``summary()``, ``get_invocation()``
* :class:`LLMResult`, :class:`LLMFailure`, :class:`LLMCallError` — results and typed failures
* :func:`get_invocation`, :class:`Invocation`, :class:`LedgerSummary` — traceability
* :func:`load_prompt`, :class:`Prompt`, :class:`PromptError` — prompt files
* :class:`Backend`, :class:`OpenAIBackend`, :class:`ChatRequest`, :class:`ChatResponse` — backends
"""

from claimtrace.llm.backend import (
    Backend,
    BackendError,
    ChatRequest,
    ChatResponse,
    OpenAIBackend,
    make_backend,
)
from claimtrace.llm.cache import ResponseCache, cache_key
from claimtrace.llm.client import LLMClient, parse_json_answer, validate_answer
from claimtrace.llm.ledger import Invocation, Ledger, LedgerSummary, get_invocation
from claimtrace.llm.prompts import Prompt, PromptError, list_prompts, load_prompt, load_prompt_file
from claimtrace.llm.retry import RetryPolicy
from claimtrace.llm.settings import (
    KNOWN_TASKS,
    EndpointConfig,
    LLMNotConfiguredError,
    LLMSettings,
    ModelPrice,
    TaskOverride,
    llm_configured,
    load_settings,
)
from claimtrace.llm.types import LLMCallError, LLMFailure, LLMResult

__all__ = [
    "KNOWN_TASKS",
    "Backend",
    "BackendError",
    "ChatRequest",
    "ChatResponse",
    "EndpointConfig",
    "Invocation",
    "LLMCallError",
    "LLMClient",
    "LLMFailure",
    "LLMNotConfiguredError",
    "LLMResult",
    "LLMSettings",
    "Ledger",
    "LedgerSummary",
    "ModelPrice",
    "OpenAIBackend",
    "Prompt",
    "PromptError",
    "ResponseCache",
    "RetryPolicy",
    "TaskOverride",
    "cache_key",
    "get_invocation",
    "list_prompts",
    "llm_configured",
    "load_prompt",
    "load_prompt_file",
    "load_settings",
    "make_backend",
    "parse_json_answer",
    "validate_answer",
]
