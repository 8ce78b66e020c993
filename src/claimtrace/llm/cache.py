"""Persistent response cache in SQLite (WAL), safe with several threads and processes writing at once.

The key is a SHA-256 over the endpoint, model, messages, sampling parameters and JSON schema, so a
change to any of them (a new prompt version, another model) misses. Only answers that parsed and
validated are stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

R = TypeVar("R")

CACHE_FILENAME = "llm-cache.sqlite3"
KEY_VERSION = 1


def cache_key(
    endpoint: str,
    model: str | None,
    messages: list[dict[str, str]],
    params: dict[str, Any],
    schema: dict[str, Any] | None,
) -> str:
    """SHA-256 hex digest of a canonical JSON of everything that determines an answer."""
    payload = {
        "v": KEY_VERSION,
        "endpoint": endpoint.rstrip("/"),
        "model": model,
        "messages": messages,
        "params": params,
        "schema": schema,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class SQLiteStore:
    """A SQLite file opened once per thread, in WAL mode, with a busy timeout and retries on 'locked'."""

    SCHEMA: str = ""

    def __init__(self, path: str | Path, timeout: float = 60.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._timeout = timeout
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._retry(lambda: self._conn().executescript(self.SCHEMA))

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
            new = conn
            self._retry_raw(lambda: new.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA busy_timeout={int(self._timeout * 1000)}")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @staticmethod
    def _retry_raw(fn: Callable[[], R], tries: int = 50) -> R:
        for i in range(tries):
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if ("locked" not in str(exc) and "busy" not in str(exc)) or i == tries - 1:
                    raise
                time.sleep(min(0.5, 0.01 * (2**i)))
        raise AssertionError("unreachable")

    def _retry(self, fn: Callable[[], R]) -> R:
        return self._retry_raw(fn)

    def close(self) -> None:
        """Close every connection this object opened."""
        with self._lock:
            for c in self._all:
                with contextlib.suppress(sqlite3.Error):
                    c.close()
            self._all.clear()
        self._local = threading.local()

    def size_bytes(self) -> int:
        """Bytes on disk (database plus its WAL file)."""
        total = 0
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total


@dataclass
class CachedResponse:
    """A cached answer."""

    text: str
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    created: float
    invocation_id: str | None = None


class ResponseCache(SQLiteStore):
    """The LLM response cache: ``get(key)`` / ``put(key, ...)``; plus remembered structured-output modes."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS responses (
        key TEXT PRIMARY KEY,
        created REAL NOT NULL,
        endpoint TEXT NOT NULL,
        model TEXT,
        text TEXT NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        invocation_id TEXT
    );
    CREATE TABLE IF NOT EXISTS endpoint_modes (
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,
        updated REAL NOT NULL,
        PRIMARY KEY (endpoint, model)
    );
    """

    @classmethod
    def in_dir(cls, cache_dir: str | Path) -> ResponseCache:
        """The cache file inside a cache directory."""
        return cls(Path(cache_dir) / CACHE_FILENAME)

    def get(self, key: str) -> CachedResponse | None:
        """The cached answer for a key, or None."""
        row = self._retry(
            lambda: self._conn()
            .execute(
                "SELECT text, model, prompt_tokens, completion_tokens, created, invocation_id "
                "FROM responses WHERE key = ?",
                (key,),
            )
            .fetchone()
        )
        if row is None:
            return None
        return CachedResponse(*row)

    def put(
        self,
        key: str,
        *,
        endpoint: str,
        model: str | None,
        text: str,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        invocation_id: str | None = None,
    ) -> None:
        """Store (or replace) an answer."""
        args = (key, time.time(), endpoint, model, text, prompt_tokens, completion_tokens, invocation_id)
        self._retry(
            lambda: self._conn().execute(
                "INSERT OR REPLACE INTO responses (key, created, endpoint, model, text, prompt_tokens, "
                "completion_tokens, invocation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                args,
            )
        )

    def delete(self, key: str) -> None:
        """Forget one answer."""
        self._retry(lambda: self._conn().execute("DELETE FROM responses WHERE key = ?", (key,)))

    def count(self) -> int:
        """Number of cached answers."""
        return int(self._retry(lambda: self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]))

    _COLUMNS = ("key", "created", "endpoint", "model", "text", "prompt_tokens", "completion_tokens", "invocation_id")

    def rows_since(self, created: float) -> list[dict[str, Any]]:
        """Every answer stored at or after ``created`` (seconds since the epoch), as plain rows (for :meth:`merge`)."""
        rows = self._retry(
            lambda: self._conn()
            .execute(f"SELECT {', '.join(self._COLUMNS)} FROM responses WHERE created >= ? ORDER BY created",
                     (created,))
            .fetchall()
        )
        return [dict(zip(self._COLUMNS, r, strict=True)) for r in rows]

    def merge(self, rows: list[dict[str, Any]]) -> int:
        """Add answers from another cache (a key already here keeps its answer); returns how many were new."""
        args = [tuple(r[c] for c in self._COLUMNS) for r in rows]

        def insert() -> int:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                cur = conn.executemany(f"INSERT OR IGNORE INTO responses ({', '.join(self._COLUMNS)}) "
                                       f"VALUES ({', '.join('?' * len(self._COLUMNS))})", args)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return max(cur.rowcount, 0)

        return self._retry(insert)

    def get_mode(self, endpoint: str, model: str) -> str | None:
        """The structured-output mode remembered for an endpoint and model."""
        row = self._retry(
            lambda: self._conn()
            .execute("SELECT mode FROM endpoint_modes WHERE endpoint = ? AND model = ?", (endpoint, model))
            .fetchone()
        )
        return str(row[0]) if row else None

    def set_mode(self, endpoint: str, model: str, mode: str) -> None:
        """Remember the structured-output mode that works for an endpoint and model."""
        self._retry(
            lambda: self._conn().execute(
                "INSERT OR REPLACE INTO endpoint_modes (endpoint, model, mode, updated) VALUES (?, ?, ?, ?)",
                (endpoint, model, mode, time.time()),
            )
        )
