"""The cluster-wide LLM limits: the accounting, and a real Ray run against a real HTTP endpoint."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from claimtrace.corpus.limits import EndpointWindow
from conftest import REPO


def test_window_limits_concurrency_and_tokens_per_minute() -> None:
    w = EndpointWindow(max_concurrent=2, tokens_per_minute=1000)
    assert w.try_acquire(300, now=0) and w.try_acquire(300, now=0)
    assert not w.try_acquire(10, now=0)  # two in flight
    w.release(300, 250, now=1)
    assert w.try_acquire(400, now=1)  # 300 + 250 + 400 = 950 <= 1000
    w.release(400, 400, now=2)
    assert not w.try_acquire(100, now=2)  # 1050 > 1000 in the last minute
    w.release(300, 300, now=3)
    assert w.try_acquire(100, now=61)  # the first two reservations left the window
    assert w.peak_inflight == 2
    big = EndpointWindow(max_concurrent=None, tokens_per_minute=100)
    assert big.try_acquire(500, now=0)  # a request larger than the budget goes alone
    assert not big.try_acquire(1, now=1)


def _calls_through_ray(url: str, tmp: Path, limit: int | None) -> None:
    """Six concurrent requests from three Ray tasks (the server counts how many it saw at once)."""
    import ray

    from claimtrace.corpus.limits import Limiter

    ray.init(num_cpus=3, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO / 'tests'}"}})
    try:
        limiter = ray.remote(num_cpus=0)(Limiter).remote(limit, None) if limit else None

        @ray.remote(num_cpus=1)
        def two_calls(i: int) -> list[bool]:
            from pydantic import BaseModel

            from claimtrace.corpus.limits import limited_client
            from claimtrace.llm import LLMClient
            from claimtrace.llm.settings import load_settings

            class StatFields(BaseModel):
                test: str
                df: str
                statistic: str
                p: str

            settings = load_settings(base_url=url, model="fake-model", cache_dir=tmp / f"c{i}", env={}, cache=False)
            client: Any = limited_client(settings, limiter) if limiter is not None else LLMClient(settings)
            out = []
            for j in range(2):
                res = client.structured("statistic_fields", {"sentence": f"t(9{i}) = 2.{j}, p = .01"}, StatFields,
                                        task="extraction")
                out.append(res.ok)
            return out

        results = ray.get([two_calls.remote(i) for i in range(3)])
        assert all(all(r) for r in results)
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_ray_workers_share_one_concurrency_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    from llm_fault_server import FaultServer

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a throwaway local instance
    with FaultServer(responder=lambda body: {"sleep": 0.4}) as srv:
        _calls_through_ray(srv.url, tmp_path, limit=1)
        assert len(srv.chat_requests) == 6
        assert srv.max_in_flight == 1  # three workers, one request at a time across them
    with FaultServer(responder=lambda body: {"sleep": 0.4}) as srv:
        _calls_through_ray(srv.url, tmp_path, limit=None)
        assert srv.max_in_flight > 1  # without the limiter the workers overlap (the check can fail)
