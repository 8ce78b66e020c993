"""The Ray engine: the same Worker as the local pool, as one Ray actor per worker (models loaded once each).

Work is bounded: each actor has at most two chunks of papers in flight; results come back to the
driver, which alone writes the store (same batches, same rows as the local engine). Ray is the
``claimtrace-sci[ray]`` extra.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from claimtrace.corpus.work import MAX_CHUNK, PaperResult, PaperTask, RunSettings, Worker, chunks
from claimtrace.errors import MissingExtraError


class _RayWorker:
    """The actor: one Worker for its lifetime."""

    def __init__(self, settings_json: str, limiter: Any = None) -> None:
        import logging
        import os

        logging.disable(logging.WARNING)
        settings = RunSettings.model_validate_json(settings_json)
        node_cache = os.environ.get("CLAIMTRACE_CACHE_DIR")
        if settings.llm is not None and node_cache:  # the node's own LLM cache (merged into the run's at the end)
            settings.llm = {**settings.llm, "cache_dir": node_cache}
        self.worker = Worker(settings, limiter=limiter)

    def process(self, tasks_json: list[str]) -> list[str]:
        return [self.worker.process(PaperTask.model_validate_json(t)).model_dump_json() for t in tasks_json]

    def llm_records(self, since: float) -> dict[str, Any]:
        """This node's LLM cache entries since the run started, and this actor's ledger records."""
        client = self.worker._client
        if client is None:
            return {"cache": [], "ledger": []}
        return {"cache": client.cache.rows_since(since) if client.cache is not None else [],
                "ledger": [inv.model_dump_json() for inv in client.ledger.invocations()]}


def merge_llm_records(settings: RunSettings, records: list[dict[str, Any]]) -> dict[str, int]:
    """Merge the workers' LLM cache entries and ledger records into the run's (this process's) cache folder."""
    from claimtrace.llm.cache import ResponseCache
    from claimtrace.llm.ledger import Invocation, Ledger
    from claimtrace.llm.settings import LLMSettings

    out = {"cache_entries": 0, "cache_entries_new": 0, "ledger_records": 0}
    if settings.llm is None:
        return out
    llm = LLMSettings.model_validate(settings.llm)
    folder = llm.resolved_cache_dir()
    if llm.cache:
        cache = ResponseCache.in_dir(folder)
        try:
            for r in records:
                out["cache_entries"] += len(r["cache"])
                out["cache_entries_new"] += cache.merge(r["cache"])
        finally:
            cache.close()
    ledger = Ledger.in_dir(folder)
    try:
        for r in records:
            for inv in r["ledger"]:
                ledger.record(Invocation.model_validate_json(inv))
                out["ledger_records"] += 1
    finally:
        ledger.close()
    return out


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("--engine ray", "ray", "ray") from None
    return ray


def run_ray(tasks: list[PaperTask], settings: RunSettings, workers: int | None, address: str | None,
            chunk: int = MAX_CHUNK, llm_merge: dict[str, int] | None = None) -> Iterator[PaperResult]:
    """Results of the tasks from Ray actors on a cluster (``address``) or a local Ray instance.

    At the end, the LLM cache entries and ledger records the workers made on their nodes are merged into
    this process's cache folder (counts into ``llm_merge``): a node with ``CLAIMTRACE_CACHE_DIR`` set uses
    that folder, any other the run's; on a shared filesystem the merge finds everything already there.
    """
    ray = _ray()
    started = time.time() - 300  # node clocks may differ a little: take a margin (a merge never loses or duplicates)
    src = str(Path(__file__).resolve().parents[2])  # workers import this claimtrace
    init: dict[str, Any] = {"runtime_env": {"env_vars": {"PYTHONPATH": src}}, "include_dashboard": False,
                            "log_to_driver": False, "logging_level": "ERROR"}
    if address:
        ray.init(address=address, **init)
    else:
        ray.init(num_cpus=workers, **init)
    try:
        n = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        actor_cls = ray.remote(num_cpus=1)(_RayWorker)
        sj = settings.model_dump_json()
        limiter = None
        if settings.llm is not None and (settings.llm_max_concurrent or settings.llm_tokens_per_minute):
            from claimtrace.corpus.limits import LIMITER_NAME, Limiter

            limiter = ray.remote(num_cpus=0)(Limiter).options(name=LIMITER_NAME, get_if_exists=True).remote(
                settings.llm_max_concurrent, settings.llm_tokens_per_minute)
        actors = [actor_cls.remote(sj, limiter) for _ in range(n)]
        pending = chunks(tasks, n, chunk)
        pending.reverse()
        inflight: dict[Any, tuple[int, list[PaperTask]]] = {}
        load = [0] * n
        while pending or inflight:
            for depth in (1, 2):  # one chunk to every actor first, then a queued one each
                for a in range(n):
                    if pending and load[a] < depth:
                        c = pending.pop()
                        inflight[actors[a].process.remote([t.model_dump_json() for t in c])] = (a, c)
                        load[a] += 1
            ready, _ = ray.wait(list(inflight), num_returns=1)
            for ref in ready:
                a, c = inflight.pop(ref)
                load[a] -= 1
                try:
                    out = ray.get(ref)
                except Exception as exc:  # the actor died or raised: record, replace it, go on
                    for t in c:
                        yield PaperResult(paper_id=t.paper_id, path=t.item.path, errors=[{
                            "paper_id": t.paper_id, "path": t.item.path, "step": "worker",
                            "error_type": "WorkerCrashed", "message": f"the Ray worker failed: {type(exc).__name__}"}])
                    actors[a] = actor_cls.remote(sj, limiter)
                    continue
                yield from (PaperResult.model_validate_json(o) for o in out)
        if settings.llm is not None:
            records = ray.get([a.llm_records.remote(started) for a in actors])
            counts = merge_llm_records(settings, records)
            if llm_merge is not None:
                llm_merge.update(counts)
        for act in actors:
            ray.kill(act)
    finally:
        ray.shutdown()
