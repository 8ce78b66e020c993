"""LLM layer benchmark -> bench/results/llm.json.

Measures, on this machine:
* the local model's prompt and generation speed (tokens/s) through llama.cpp's OpenAI-compatible
  server (started with scripts/local-llm.sh if it is not running; stopped again afterwards);
* one structured call end to end (statistic_fields prompt, cache off);
* the response cache's lookup time (hits and misses in a cache of 10,000 answers) and the time of a
  whole ``LLMClient.structured`` call answered from the cache.

    .venv/bin/python bench/llm.py [--port 8089] [--skip-model]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from provenance import Run

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "bench" / "results" / "llm.json"
SCRIPT = REPO / "scripts" / "local-llm.sh"

FILLER = (
    "In a randomised controlled trial, participants in the intervention group reported lower anxiety "
    "scores than those in the control group at twelve weeks, and the effect persisted at follow-up. "
)


class StatFields(BaseModel):
    """Schema of the statistic_fields prompt."""

    test: str
    df: str
    statistic: str
    p: str


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def bench_cache(n_entries: int = 10_000, n_lookups: int = 2_000) -> dict[str, Any]:
    """Lookup time of the SQLite response cache (hits and misses)."""
    from claimtrace.llm.cache import ResponseCache, cache_key

    with tempfile.TemporaryDirectory() as d:
        cache = ResponseCache.in_dir(d)
        keys = []
        t0 = time.perf_counter()
        for i in range(n_entries):
            k = cache_key("http://127.0.0.1:8089/v1", "m", [{"role": "user", "content": f"sentence {i}"}],
                          {"temperature": 0.0, "seed": 0, "max_tokens": 96}, {"type": "object"})
            cache.put(k, endpoint="e", model="m", text=json.dumps({"i": i, "pad": "x" * 200}))
            keys.append(k)
        fill_s = time.perf_counter() - t0
        rng = random.Random(0)
        hits, misses, keying = [], [], []
        for _ in range(n_lookups):
            k = rng.choice(keys)
            t = time.perf_counter()
            assert cache.get(k) is not None
            hits.append(time.perf_counter() - t)
            t = time.perf_counter()
            assert cache.get(uuid.uuid4().hex) is None
            misses.append(time.perf_counter() - t)
            t = time.perf_counter()
            cache_key("http://127.0.0.1:8089/v1", "m", [{"role": "system", "content": FILLER * 4},
                                                        {"role": "user", "content": "x"}],
                      {"temperature": 0.0}, StatFields.model_json_schema())
            keying.append(time.perf_counter() - t)
        size = cache.size_bytes()
        cache.close()
    return {
        "entries": n_entries,
        "lookups": n_lookups,
        "hit_median_us": round(statistics.median(hits) * 1e6, 1),
        "hit_p95_us": round(_pct(hits, 0.95) * 1e6, 1),
        "miss_median_us": round(statistics.median(misses) * 1e6, 1),
        "key_hash_median_us": round(statistics.median(keying) * 1e6, 1),
        "insert_mean_us": round(fill_s / n_entries * 1e6, 1),
        "db_bytes": size,
    }


def bench_cached_call(base_url: str, n: int = 50) -> dict[str, Any]:
    """A whole LLMClient.structured call answered from the cache (render, key, lookup, validate, ledger)."""
    from claimtrace.llm import LLMClient, load_settings

    with tempfile.TemporaryDirectory() as d:
        client = LLMClient(load_settings(base_url=base_url, cache_dir=d, env={}, timeout=600.0, max_tokens=64))
        sentence = "Accuracy correlated with age, r(40) = .31, p = .047."
        t = time.perf_counter()
        first = client.structured("statistic_fields", {"sentence": sentence}, StatFields)
        first_s = time.perf_counter() - t
        times = []
        for _ in range(n):
            t = time.perf_counter()
            res = client.structured("statistic_fields", {"sentence": sentence}, StatFields)
            times.append(time.perf_counter() - t)
            assert res.cached
        summary = client.summary()
        client.close()
    return {
        "uncached_call_s": round(first_s, 2),
        "uncached_value": first.value.model_dump() if first.value else None,
        "uncached_error": str(first.error) if first.error else None,
        "prompt_tokens": summary.prompt_tokens,
        "completion_tokens": summary.completion_tokens,
        "cached_call_median_ms": round(statistics.median(times) * 1e3, 2),
        "cached_call_p95_ms": round(_pct(times, 0.95) * 1e3, 2),
        "cached_calls": n,
    }


def bench_model(base_url: str, repeats: int = 2) -> dict[str, Any]:
    """Prompt tokens/s (long prompt, 1 generated token) and generation tokens/s (streamed)."""
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="not-needed", max_retries=0, timeout=900)
    model = client.models.list().data[0].id
    prompt_rates, prompt_tokens = [], []
    for _ in range(repeats):
        text = f"[{uuid.uuid4().hex}] " + FILLER * 10  # a fresh prefix: no prompt-cache reuse
        t = time.perf_counter()
        r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}],
                                           max_tokens=1, temperature=0)
        dt = time.perf_counter() - t
        assert r.usage is not None
        prompt_tokens.append(r.usage.prompt_tokens)
        prompt_rates.append(r.usage.prompt_tokens / dt)
    gen_rates, gen_tokens = [], []
    for _ in range(repeats):
        msg = f"({uuid.uuid4().hex[:6]}) Write the numbers from 1 to 200 separated by commas."
        stream = client.chat.completions.create(model=model, messages=[{"role": "user", "content": msg}],
                                                max_tokens=64, temperature=0, stream=True)
        first: float | None = None
        chunks = 0
        for ch in stream:
            if ch.choices and ch.choices[0].delta.content:
                chunks += 1
                if first is None:
                    first = time.perf_counter()
        last = time.perf_counter()
        if first is not None and chunks > 1:
            gen_tokens.append(chunks)
            gen_rates.append((chunks - 1) / (last - first))
    return {
        "model": model,
        "prompt_tokens_per_s": round(statistics.median(prompt_rates), 1),
        "prompt_tokens_per_request": prompt_tokens,
        "generation_tokens_per_s": round(statistics.median(gen_rates), 1) if gen_rates else None,
        "generated_tokens_per_request": gen_tokens,
        "repeats": repeats,
    }


def _server(port: str) -> tuple[str, bool]:
    env = {**os.environ, "CLAIMTRACE_LLM_PORT": port}
    url = f"http://127.0.0.1:{port}/v1"
    if subprocess.run([str(SCRIPT), "status"], env=env, capture_output=True).returncode == 0:
        return url, False
    subprocess.run([str(SCRIPT), "install"], env=env, check=True)
    subprocess.run([str(SCRIPT), "start"], env=env, check=True)
    return url, True


def main() -> None:
    """Run the benchmark and write bench/results/llm.json."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", default=os.environ.get("CLAIMTRACE_LLM_PORT", "8089"))
    ap.add_argument("--skip-model", action="store_true", help="only the cache lookup benchmark")
    ap.add_argument("--out", type=Path, default=OUT, help="result file (default bench/results/llm.json)")
    args = ap.parse_args()
    run = Run()
    result: dict[str, Any] = {"schema_version": "1"}
    try:
        result["llama_cpp_python"] = version("llama-cpp-python")
    except PackageNotFoundError:
        result["llama_cpp_python"] = None
    print("cache lookups ...", file=sys.stderr)
    result["cache"] = bench_cache()
    if not args.skip_model:
        url, started = _server(args.port)
        result["server"] = {"started_by_bench": started,
                            "n_threads": int(os.environ.get("CLAIMTRACE_LLM_THREADS") or os.cpu_count() or 2)
                            if started else None}
        try:
            print("model speed ...", file=sys.stderr)
            result["local_model"] = bench_model(url)
            print("structured call and cached call ...", file=sys.stderr)
            result["structured_call"] = bench_cached_call(url)
        finally:
            if started:
                subprocess.run([str(SCRIPT), "stop"], env={**os.environ, "CLAIMTRACE_LLM_PORT": args.port})
    result["provenance"] = run.finish()  # command, commit, date, machine and its load at start and end
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
