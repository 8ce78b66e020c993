"""Result and failure types of the LLM layer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from claimtrace.errors import ClaimtraceError

T = TypeVar("T")

FailureKind = Literal[
    "invalid_output",  # the answer was not valid JSON / did not match the schema, even after one re-ask
    "rate_limited",  # 429 after all retries
    "timeout",  # the request timed out after all retries
    "connection",  # the endpoint could not be reached after all retries
    "server_error",  # 5xx after all retries
    "rejected",  # a 4xx that retrying cannot fix (bad request, unknown model, context too long...)
    "auth",  # 401/403: missing or wrong API key
    "length",  # the answer was cut at max_tokens and is incomplete
    "prompt",  # the prompt could not be rendered (missing/unexpected variables), only in batches
    "backend",  # anything else the backend raised
]


class LLMFailure(BaseModel):
    """A typed failure of one LLM call: what went wrong, after how many attempts."""

    kind: FailureKind
    message: str
    status_code: int | None = None
    attempts: int = 1
    raw: str | None = None

    def __str__(self) -> str:
        code = f" (HTTP {self.status_code})" if self.status_code else ""
        return f"LLM {self.kind}{code}: {self.message}"


class LLMCallError(ClaimtraceError):
    """Raised by :meth:`LLMResult.unwrap` when the call failed."""

    def __init__(self, failure: LLMFailure) -> None:
        self.failure = failure
        super().__init__(str(failure))


@dataclass
class LLMResult(Generic[T]):
    """The outcome of one LLM call: ``value`` or ``error``, plus the invocation ids that produced it."""

    value: T | None = None
    error: LLMFailure | None = None
    invocation_ids: list[str] = field(default_factory=list)
    cached: bool = False
    raw: str | None = None

    @property
    def ok(self) -> bool:
        """True when the call produced a valid value."""
        return self.error is None and self.value is not None

    def unwrap(self) -> T:
        """The value, or raise :class:`LLMCallError` with the typed failure."""
        if self.error is not None or self.value is None:
            raise LLMCallError(self.error or LLMFailure(kind="backend", message="no value"))
        return self.value

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (value dumped when it is a pydantic model)."""
        value: Any = self.value.model_dump(mode="json") if isinstance(self.value, BaseModel) else self.value
        return {
            "value": value,
            "error": self.error.model_dump(mode="json") if self.error else None,
            "invocation_ids": list(self.invocation_ids),
            "cached": self.cached,
        }
