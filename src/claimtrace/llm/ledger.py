"""The ledger: every LLM invocation recorded (SQLite), with per-run totals and an estimated cost.

Each call the client makes — a request to a model or an answer taken from the cache — is one
:class:`Invocation` with a unique id. Results carry these ids (``LLMResult.invocation_ids``), so any
value that came from an LLM can be traced back with :func:`get_invocation` to the prompt name and
version, the messages, the raw response, the parsed value, the tokens and the error.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from claimtrace.llm.cache import SQLiteStore
from claimtrace.llm.settings import ModelPrice, load_settings
from claimtrace.llm.types import LLMFailure
from claimtrace.schema_version import SCHEMA_VERSION

LEDGER_FILENAME = "llm-ledger.sqlite3"


def new_id(prefix: str = "inv") -> str:
    """A fresh unique id such as ``inv_3f2a...``."""
    return f"{prefix}_{uuid.uuid4().hex}"


class Invocation(BaseModel):
    """One LLM invocation as recorded in the ledger."""

    id: str
    run_id: str
    created: float = Field(default_factory=time.time)
    task: str = "default"
    prompt_name: str | None = None
    prompt_version: str | None = None
    endpoint: str = ""
    model: str | None = None
    messages: list[dict[str, str]] = Field(default_factory=list)
    params: dict[str, Any] = Field(default_factory=dict)
    schema_name: str | None = None
    raw_response: str | None = None
    parsed: Any = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    cached: bool = False
    attempts: int = 1
    mode: str | None = None
    error: LLMFailure | None = None
    reask_of: str | None = Field(None, description="the invocation whose invalid answer this one re-asked")
    cost_usd: float = 0.0


class ModelUsage(BaseModel):
    """Totals for one model within a run."""

    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0


class LedgerSummary(ModelUsage):
    """Totals for one run (``calls`` counts requests to a model; ``cache_hits`` answers from the cache)."""

    schema_version: str = SCHEMA_VERSION
    run_id: str
    by_model: dict[str, ModelUsage] = Field(default_factory=dict)


def estimate_cost(price: ModelPrice, prompt_tokens: int | None, completion_tokens: int | None) -> float:
    """US dollars for a call at a model's configured price."""
    return ((prompt_tokens or 0) * price.input_per_million + (completion_tokens or 0) * price.output_per_million) / 1e6


class Ledger(SQLiteStore):
    """Invocation records for one run (``run_id``), persisted in SQLite and shared with other runs."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS invocations (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        created REAL NOT NULL,
        task TEXT,
        model TEXT,
        cached INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        latency_s REAL,
        cost_usd REAL,
        record TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS invocations_run ON invocations (run_id);
    """

    def __init__(self, path: str | Path, run_id: str | None = None, prices: dict[str, ModelPrice] | None = None) -> None:
        super().__init__(path)
        self.run_id = run_id or new_id("run")
        self.prices = dict(prices or {})

    @classmethod
    def in_dir(cls, cache_dir: str | Path, **kwargs: Any) -> Ledger:
        """The ledger file inside a cache directory."""
        return cls(Path(cache_dir) / LEDGER_FILENAME, **kwargs)

    def record(self, inv: Invocation) -> Invocation:
        """Store an invocation (its cost filled in from the configured prices)."""
        if not inv.cached:
            inv.cost_usd = estimate_cost(
                self.prices.get(inv.model or "", ModelPrice()), inv.prompt_tokens, inv.completion_tokens
            )
        args = (
            inv.id, inv.run_id, inv.created, inv.task, inv.model, int(inv.cached), int(inv.error is not None),
            inv.prompt_tokens, inv.completion_tokens, inv.latency_s, inv.cost_usd, inv.model_dump_json(),
        )
        self._retry(
            lambda: self._conn().execute(
                "INSERT OR REPLACE INTO invocations (id, run_id, created, task, model, cached, failed, "
                "prompt_tokens, completion_tokens, latency_s, cost_usd, record) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                args,
            )
        )
        return inv

    def get(self, invocation_id: str) -> Invocation | None:
        """An invocation by id (from any run), or None."""
        row = self._retry(
            lambda: self._conn().execute("SELECT record FROM invocations WHERE id = ?", (invocation_id,)).fetchone()
        )
        return Invocation.model_validate_json(row[0]) if row else None

    def invocations(self, run_id: str | None = None) -> list[Invocation]:
        """All invocations of a run (this run by default), oldest first."""
        rid = run_id or self.run_id
        rows = self._retry(
            lambda: self._conn()
            .execute("SELECT record FROM invocations WHERE run_id = ? ORDER BY created, rowid", (rid,))
            .fetchall()
        )
        return [Invocation.model_validate_json(r[0]) for r in rows]

    def summary(self, run_id: str | None = None) -> LedgerSummary:
        """Calls, cache hits, failures, tokens, latency and estimated cost of a run, overall and per model."""
        rid = run_id or self.run_id
        rows = self._retry(
            lambda: self._conn()
            .execute(
                "SELECT model, cached, failed, prompt_tokens, completion_tokens, latency_s, cost_usd "
                "FROM invocations WHERE run_id = ?",
                (rid,),
            )
            .fetchall()
        )
        total = LedgerSummary(run_id=rid)
        for model, cached, failed, pt, ct, lat, cost in rows:
            per = total.by_model.setdefault(model or "", ModelUsage())
            for u in (total, per):
                if cached:
                    u.cache_hits += 1
                else:
                    u.calls += 1
                    u.prompt_tokens += pt or 0
                    u.completion_tokens += ct or 0
                    u.cost_usd += cost or 0.0
                u.failures += int(bool(failed))
                u.latency_s += lat or 0.0
        return total


def dump_json(value: Any) -> Any:
    """A JSON-ready version of a parsed value (pydantic models dumped)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return json.loads(json.dumps(value, default=str))


def get_invocation(invocation_id: str, cache_dir: str | Path | None = None) -> Invocation | None:
    """Look an invocation up by id in the ledger of ``cache_dir`` (default: the configured cache dir)."""
    directory = Path(cache_dir) if cache_dir is not None else load_settings().resolved_cache_dir()
    path = directory / LEDGER_FILENAME
    if not path.exists():
        return None
    ledger = Ledger(path)
    try:
        return ledger.get(invocation_id)
    finally:
        ledger.close()
