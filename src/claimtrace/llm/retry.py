"""Retry policy: exponential backoff with jitter, honouring Retry-After."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before retrying a retryable failure (429, 5xx, timeout, connection)."""

    max_retries: int = 4
    base: float = 0.5
    cap: float = 30.0
    max_retry_after: float = 120.0

    def delay(self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based): Retry-After if given, else backoff."""
        r = rng or random
        if retry_after is not None and retry_after >= 0:
            # the server said when: wait that long (bounded), plus a little jitter so clients spread out
            wait = min(retry_after, self.max_retry_after)
            return wait + r.uniform(0, min(0.25, 0.1 * max(wait, 0.1)))
        backoff = min(self.cap, self.base * (2**attempt))
        # "equal jitter": half fixed, half random; never zero, never above the cap
        return backoff / 2 + r.uniform(0, backoff / 2)


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date), or None."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))
