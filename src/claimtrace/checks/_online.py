"""Look-ups for the online checks (``--online``): one HTTP GET at a time, rate-limited, cached on disk.

Base URLs come from ``CheckOptions.extra`` (``crossref_url``, ``url_rewrite``), so tests point them at a
server on loopback. Nothing here runs unless the user asked for ``--online``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from claimtrace.checks.base import CheckOptions

USER_AGENT = "claimtrace-checks (https://github.com/claimtrace; screening; mailto:none)"


@dataclass(frozen=True)
class Fetched:
    """What a GET returned: the final HTTP status (0: no answer), the body as text, and the URL asked."""

    url: str
    status: int
    body: str = ""
    error: str | None = None


class Fetcher:
    """GETs with at least ``interval_s`` between requests and a JSON cache per URL under ``cache_dir``."""

    def __init__(self, options: CheckOptions) -> None:
        self.interval_s = float(options.extra.get("rate_limit_s", 1.0))
        self.timeout_s = float(options.extra.get("timeout_s", 10.0))
        self.cache_dir = Path(options.cache_dir) / "online" if options.cache_dir else None
        self._last = 0.0
        self._lock = threading.Lock()
        self.sent: list[float] = []  # monotonic times of the requests that went to the network (not the cache)

    def get(self, url: str, accept: str = "application/json") -> Fetched:
        """The cached answer for ``url``, else one rate-limited GET (redirects followed)."""
        cached = self._cache_path(url)
        if cached is not None and cached.is_file():
            data = json.loads(cached.read_text())
            return Fetched(url, int(data["status"]), str(data.get("body", "")), data.get("error"))
        with self._lock:
            wait = self._last + self.interval_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._last = time.monotonic()
            self.sent.append(self._last)
        req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": accept})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                got = Fetched(url, resp.status, resp.read(2_000_000).decode("utf-8", "replace"))
        except urllib.error.HTTPError as exc:
            got = Fetched(url, exc.code, "", None)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            got = Fetched(url, 0, "", str(getattr(exc, "reason", exc)))
        if cached is not None and got.status:  # a network failure is not cached: it may pass next time
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps({"status": got.status, "body": got.body, "error": got.error}))
        return got

    def _cache_path(self, url: str) -> Path | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / (hashlib.sha256(url.encode()).hexdigest()[:32] + ".json")


def rewrite(url: str, options: CheckOptions) -> str:
    """``url`` with a configured prefix swapped (``extra["url_rewrite"] = {"https://osf.io": "http://127..."}``)."""
    for prefix, repl in dict(options.extra.get("url_rewrite", {})).items():
        if url.startswith(prefix):
            return repl + url[len(prefix):]
    return url
