"""LLM configuration: precedence, per-task overrides, what turns an LLM on, settings files, retry policy."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pydantic import BaseModel

from claimtrace.errors import InputError
from claimtrace.llm import LLMClient, LLMNotConfiguredError, RetryPolicy, llm_configured, load_settings
from claimtrace.llm.retry import parse_retry_after

TOML = """
[llm]
base_url = "http://file-host:1/v1"
model = "file-model"
timeout = 33
concurrency = 2

[llm.tasks.extraction]
model = "big-model"
max_tokens = 2048

[llm.tasks.rerank]
base_url = "http://rerank-host:2/v1"
model = "rerank-model"
api_key_env = "RERANK_KEY"

[llm.prices.big-model]
input_per_million = 2.5
output_per_million = 10.0
"""


def test_nothing_set_means_offline_even_with_openai_variables(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "http://evil:1/v1", "OPENAI_MODEL": "gpt-4o"}
    s = load_settings(env=env)
    assert not s.configured() and not llm_configured(s)
    assert "offline" in s.describe()
    with pytest.raises(LLMNotConfiguredError):
        LLMClient(s, cache_dir=tmp_path)


def test_environment_turns_it_on() -> None:
    s = load_settings(env={"CLAIMTRACE_LLM_BASE_URL": "http://h:1/v1", "CLAIMTRACE_LLM_MODEL": "m",
                           "CLAIMTRACE_LLM_API_KEY": "secret"})
    cfg = s.for_task("extraction")
    assert (cfg.base_url, cfg.model, cfg.temperature, cfg.seed) == ("http://h:1/v1", "m", 0.0, 0)
    assert cfg.api_key is not None and cfg.api_key.get_secret_value() == "secret"
    assert "secret" not in repr(s)  # the key never shows in logs
    assert s.source == "environment"


def test_model_alone_means_openai() -> None:
    s = load_settings(model="gpt-4o-mini", env={})
    assert s.for_task().base_url == "https://api.openai.com/v1"


def test_gguf_path_selects_in_process_backend() -> None:
    s = load_settings(model="/models/q.gguf", env={})
    assert s.for_task().backend == "llama_cpp"


def test_precedence_flags_over_env_over_file(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(TOML)
    s = load_settings(env={"CLAIMTRACE_SETTINGS": str(f)})
    assert (s.base_url, s.model, s.timeout, s.concurrency) == ("http://file-host:1/v1", "file-model", 33, 2)
    s = load_settings(env={"CLAIMTRACE_SETTINGS": str(f), "CLAIMTRACE_LLM_MODEL": "env-model"})
    assert (s.base_url, s.model) == ("http://file-host:1/v1", "env-model")
    s = load_settings(settings_file=f, model="flag-model", env={"CLAIMTRACE_LLM_MODEL": "env-model"})
    assert s.model == "flag-model" and s.source == "command-line flags"


def test_per_task_overrides_and_key_variable(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(TOML)
    s = load_settings(settings_file=f, env={})
    ext = s.for_task("extraction")
    assert (ext.base_url, ext.model, ext.max_tokens, ext.timeout) == ("http://file-host:1/v1", "big-model", 2048, 33)
    graph = s.for_task("graph")  # no override: the defaults
    assert graph.model == "file-model"
    monkey_env = "RERANK_KEY"
    assert s.api_key_missing("rerank") == monkey_env
    import os

    os.environ[monkey_env] = "rk"
    try:
        rr = s.for_task("rerank")
        assert rr.base_url == "http://rerank-host:2/v1" and rr.api_key is not None
        assert rr.api_key.get_secret_value() == "rk"
    finally:
        del os.environ[monkey_env]
    assert s.price("big-model").output_per_million == 10.0


def test_yaml_settings_and_offline(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("llm:\n  base_url: http://y:1/v1\n  tasks:\n    graph:\n      model: g\n")
    s = load_settings(settings_file=f, env={})
    assert s.configured("graph") and s.for_task("graph").model == "g"
    assert not load_settings(settings_file=f, offline=True, env={}).configured()
    assert not load_settings(settings_file=f, env={"CLAIMTRACE_OFFLINE": "1"}).configured()


def test_only_a_task_configured(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("tasks:\n  conclusion:\n    base_url: http://c:1/v1\n    model: c\n")
    s = load_settings(settings_file=f, env={})
    assert s.configured() and s.configured("conclusion") and not s.configured("extraction")
    with pytest.raises(LLMNotConfiguredError, match="extraction"):
        s.for_task("extraction")


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("bad.toml", "[llm\nmodel = 1", "cannot parse"),
        ("bad.yaml", "llm: [1, 2", "cannot parse"),
        ("typo.toml", "[llm]\nmodle = 'x'", "invalid LLM setting 'modle'"),
        ("neg.toml", "[llm]\ntimeout = 'soon'", "invalid LLM setting 'timeout'"),
        ("s.json", "{}", "must end in .toml"),
    ],
)
def test_bad_settings_files_are_input_errors(tmp_path: Path, name: str, text: str, reason: str) -> None:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError, match=reason):
        load_settings(settings_file=f, env={})


def test_missing_settings_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="settings file not found"):
        load_settings(env={"CLAIMTRACE_SETTINGS": str(tmp_path / "nope.toml")})


def test_cache_dir_from_environment(tmp_path: Path) -> None:
    s = load_settings(env={"CLAIMTRACE_CACHE_DIR": str(tmp_path / "c")})
    assert s.resolved_cache_dir() == tmp_path / "c"
    assert "claimtrace" in str(load_settings(env={}).resolved_cache_dir())


def test_backoff_is_exponential_jittered_and_capped() -> None:
    p = RetryPolicy(max_retries=5, base=0.5, cap=4.0)
    rng = random.Random(1)
    for attempt, full in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (6, 4.0)]:
        delays = [p.delay(attempt, rng=rng) for _ in range(200)]
        assert min(delays) >= full / 2 and max(delays) <= full
        assert max(delays) - min(delays) > full / 10  # jittered
    assert 3.0 <= p.delay(0, retry_after=3.0, rng=rng) <= 3.25
    assert p.delay(0, retry_after=1e6, rng=rng) <= p.max_retry_after + 0.25


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "7"}) == 7.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0) == 10.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None


class OneField(BaseModel):
    """A minimal schema."""

    p: str


def test_in_process_backend_without_the_extra_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from claimtrace.errors import MissingExtraError

    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if llama-cpp-python were not installed
    with LLMClient(load_settings(model=str(gguf), cache_dir=tmp_path, env={})) as client, \
            pytest.raises(MissingExtraError, match=r"pip install 'claimtrace-sci\[llama\]'"):
        client.structured("statistic_fields", {"sentence": "t(1) = 2, p = .3"}, OneField)
