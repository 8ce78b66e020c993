"""Per-endpoint LLM limits shared by every worker of a run: concurrent requests and tokens per minute.

:class:`EndpointWindow` does the accounting (pure Python). On Ray it lives in one named actor
(:data:`LIMITER_NAME`) that all worker actors call, so the limits hold across the whole cluster; a
:class:`LimitedBackend` wraps each request of a worker's LLM client between ``acquire`` and ``release``.
A request's tokens are estimated before it is sent (characters / 4 + max_tokens) and replaced by the
usage the endpoint reports when it answers.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from claimtrace.llm import LLMClient

LIMITER_NAME = "claimtrace-llm-limiter"


class EndpointWindow:
    """The limits of one endpoint: requests in flight and tokens used in the last 60 seconds."""

    def __init__(self, max_concurrent: int | None, tokens_per_minute: int | None) -> None:
        """Limits (None: unlimited)."""
        self.max_concurrent = max_concurrent
        self.tokens_per_minute = tokens_per_minute
        self.inflight = 0
        self.peak_inflight = 0
        self.used: deque[tuple[float, int]] = deque()  # (time, tokens)
        self.requests = 0

    def _window(self, now: float) -> int:
        while self.used and now - self.used[0][0] >= 60.0:
            self.used.popleft()
        return sum(t for _, t in self.used)

    def try_acquire(self, tokens: int, now: float | None = None) -> bool:
        """Take a slot and reserve ``tokens`` if both limits allow it now."""
        now = time.monotonic() if now is None else now
        if self.max_concurrent is not None and self.inflight >= self.max_concurrent:
            return False
        if self.tokens_per_minute is not None:
            in_window = self._window(now)
            # a request bigger than the whole budget may go alone, when the window is empty
            if in_window and in_window + tokens > self.tokens_per_minute:
                return False
        self.inflight += 1
        self.peak_inflight = max(self.peak_inflight, self.inflight)
        self.used.append((now, tokens))
        self.requests += 1
        return True

    def release(self, reserved: int, used: int | None, now: float | None = None) -> None:
        """Free the slot; replace the reservation by the tokens the endpoint reported."""
        now = time.monotonic() if now is None else now
        self.inflight = max(0, self.inflight - 1)
        if used is not None and used != reserved:
            self.used.append((now, used - reserved))

    def stats(self) -> dict[str, Any]:
        """Requests, peak concurrency and tokens in the current window."""
        return {"requests": self.requests, "peak_inflight": self.peak_inflight,
                "tokens_last_minute": self._window(time.monotonic())}


class Limiter:
    """Windows per endpoint; the body of the Ray actor (async methods: waiting never blocks the actor)."""

    def __init__(self, max_concurrent: int | None, tokens_per_minute: int | None) -> None:
        """The same limits for every endpoint."""
        self.limits = (max_concurrent, tokens_per_minute)
        self.windows: dict[str, EndpointWindow] = {}

    def _w(self, endpoint: str) -> EndpointWindow:
        if endpoint not in self.windows:
            self.windows[endpoint] = EndpointWindow(*self.limits)
        return self.windows[endpoint]

    async def acquire(self, endpoint: str, tokens: int) -> None:
        """Wait until the endpoint has room for a request of ``tokens``."""
        import asyncio

        while not self._w(endpoint).try_acquire(tokens):
            await asyncio.sleep(0.05)

    async def release(self, endpoint: str, reserved: int, used: int | None) -> None:
        """A request finished."""
        self._w(endpoint).release(reserved, used)

    async def stats(self) -> dict[str, dict[str, Any]]:
        """Per-endpoint counters."""
        return {e: w.stats() for e, w in self.windows.items()}


def estimate_tokens(request: Any) -> int:
    """A request's tokens before sending: its characters / 4 plus the answer's max_tokens."""
    chars = sum(len(m.get("content") or "") for m in request.messages)
    return chars // 4 + int(request.max_tokens or 0)


class LimitedBackend:
    """A backend whose requests go through the cluster-wide limiter (other attributes pass through)."""

    def __init__(self, backend: Any, limiter: Any) -> None:
        """Wrap ``backend``; ``limiter`` is the Ray actor handle."""
        self._backend = backend
        self._limiter = limiter

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def complete(self, request: Any) -> Any:
        """Acquire, send, release with the reported usage."""
        import ray

        endpoint = self._backend.endpoint
        est = estimate_tokens(request)
        ray.get(self._limiter.acquire.remote(endpoint, est))
        used: int | None = None
        try:
            resp = self._backend.complete(request)
            if resp.prompt_tokens is not None or resp.completion_tokens is not None:
                used = (resp.prompt_tokens or 0) + (resp.completion_tokens or 0)
            return resp
        finally:
            self._limiter.release.remote(endpoint, est, used)


def limited_client(settings: Any, limiter: Any) -> Any:
    """An LLMClient whose backends go through the limiter."""

    class _LimitedClient(LLMClient):
        def backend(self, task: str = "default") -> Any:
            return LimitedBackend(super().backend(task), limiter)

    return _LimitedClient(settings)
