"""The Ray engine: the same Worker as the local pool, as one Ray actor per worker (models loaded once each).

Work is bounded: each actor has at most two chunks of papers in flight; results come back to the
driver, which alone writes the store (same batches, same rows as the local engine). Ray is the
``claimtrace-sci[ray]`` extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from claimtrace.corpus.work import PaperResult, PaperTask, RunSettings, Worker
from claimtrace.errors import MissingExtraError


class _RayWorker:
    """The actor: one Worker for its lifetime."""

    def __init__(self, settings_json: str, limiter: Any = None) -> None:
        import logging

        logging.disable(logging.WARNING)
        self.worker = Worker(RunSettings.model_validate_json(settings_json), limiter=limiter)

    def process(self, tasks_json: list[str]) -> list[str]:
        return [self.worker.process(PaperTask.model_validate_json(t)).model_dump_json() for t in tasks_json]


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise MissingExtraError("--engine ray", "ray", "ray") from None
    return ray


def run_ray(tasks: list[PaperTask], settings: RunSettings, workers: int | None, address: str | None,
            chunk: int = 4) -> Iterator[PaperResult]:
    """Results of the tasks from Ray actors on a cluster (``address``) or a local Ray instance."""
    ray = _ray()
    import claimtrace

    src = str(Path(claimtrace.__file__).resolve().parents[1])  # workers import this claimtrace
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
        pending = [tasks[i:i + chunk] for i in range(0, len(tasks), chunk)]
        pending.reverse()
        inflight: dict[Any, tuple[int, list[PaperTask]]] = {}
        load = [0] * n
        while pending or inflight:
            for a in range(n):
                while pending and load[a] < 2:
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
        for act in actors:
            ray.kill(act)
    finally:
        ray.shutdown()
