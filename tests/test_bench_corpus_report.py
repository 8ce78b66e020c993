"""docs/corpus.md's throughput wording follows the result file's ``loaded`` flags (bench/corpus.py)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import corpus  # noqa: E402

RESULT = REPO / "bench" / "results" / "corpus_throughput.json"


def _with_flags(loaded: dict[str, bool]) -> dict[str, Any]:
    tp = copy.deepcopy(json.loads(RESULT.read_text()))
    for k, flag in loaded.items():
        for r in tp["runs"][k]:
            r["loaded"] = flag
    tp["loaded"] = any(loaded.values())
    return tp


def _ratio_lines(tp: dict[str, Any]) -> tuple[str, str, str]:
    text = corpus.throughput_lines(tp)
    speed = next(x for x in text if x.startswith("- 2 workers vs 1"))
    ray = next(x for x in text if x.startswith("- Ray overhead"))
    machine = next(x for x in text if x.startswith("- Machine:"))
    return speed, ray, machine


def test_quiet_runs_make_both_ratios_valid() -> None:
    speed, ray, machine = _ratio_lines(_with_flags({"local_1": False, "local_2": False, "ray_2": False}))
    assert "a valid measurement" in speed and "a valid measurement" in ray
    assert "not a valid" not in speed + ray and "upper bounds" not in machine


def test_a_loaded_ray_run_invalidates_only_the_ray_ratio() -> None:
    speed, ray, machine = _ratio_lines(_with_flags({"local_1": False, "local_2": False, "ray_2": True}))
    assert "a valid measurement" in speed and "not a valid measurement" in ray
    assert "ray_2 runs" in machine and "upper bounds" in machine


def test_a_loaded_local_run_invalidates_both_ratios_it_enters() -> None:
    speed, ray, _ = _ratio_lines(_with_flags({"local_1": False, "local_2": True, "ray_2": False}))
    assert "not a valid measurement" in speed and "not a valid measurement" in ray


def test_the_verdict_says_whether_the_target_is_met() -> None:
    tp = _with_flags({"local_1": False, "local_2": False, "ray_2": False})
    tp["speedup_2_vs_1"], tp["ray_overhead_ratio"] = 1.5, 1.1
    speed, ray, _ = _ratio_lines(tp)
    assert "target **NOT met**" in speed and "target **met**" in ray


def test_the_ray_accounting_line_comes_from_the_file() -> None:
    tp = _with_flags({"local_1": False, "local_2": False, "ray_2": False})
    tp.pop("ray_cpu_accounting", None)
    assert not any("The Ray runs' own CPU" in x for x in corpus.throughput_lines(tp))
    tp["ray_cpu_accounting"] = {"cluster_cpu_over_workers_cpu": [1.07, 1.09], "median": 1.08,
                                "at_ends_over_workers_cpu": [0.01, 0.02], "at_ends_median": 0.015}
    line = next(x for x in corpus.throughput_lines(tp) if "The Ray runs' own CPU" in x)
    assert "**1.08x**" in line and "median of 2 runs" in line and "only gives 0.015x" in line
