"""LLM settings: endpoint, model, key, timeouts, sampling, per-task overrides, prices, cache directory.

Precedence (highest first): explicit values (CLI flags) > environment variables
(``CLAIMTRACE_LLM_BASE_URL``, ``CLAIMTRACE_LLM_MODEL``, ``CLAIMTRACE_LLM_API_KEY``,
``CLAIMTRACE_CACHE_DIR``) > a settings file (TOML or YAML; path from ``--llm-settings`` or
``CLAIMTRACE_SETTINGS``) > defaults. Only these turn an LLM on: the openai SDK's own variables
(``OPENAI_API_KEY``, ``OPENAI_BASE_URL``) are never read.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from claimtrace.errors import ClaimtraceError, InputError

ENV_BASE_URL = "CLAIMTRACE_LLM_BASE_URL"
ENV_MODEL = "CLAIMTRACE_LLM_MODEL"
ENV_API_KEY = "CLAIMTRACE_LLM_API_KEY"
ENV_CACHE_DIR = "CLAIMTRACE_CACHE_DIR"
ENV_SETTINGS = "CLAIMTRACE_SETTINGS"
ENV_OFFLINE = "CLAIMTRACE_OFFLINE"

OPENAI_BASE_URL = "https://api.openai.com/v1"
# the tasks that other modules ask for; any other name is allowed too
KNOWN_TASKS = ("default", "extraction", "rerank", "graph", "conclusion", "clustering")

BackendKind = Literal["openai", "llama_cpp"]
#: how a backend asks for structured output: ``auto`` negotiates (OpenAI's ``json_schema``, then llama.cpp's
#: ``json_object`` + ``schema``, then JSON mode, then the schema in the prompt); any other value uses that one
#: mode only (``prompt``: the schema in the system prompt, nothing enforced; the unconstrained baseline)
StructuredSetting = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]


class LLMNotConfiguredError(ClaimtraceError):
    """An LLM call was asked for but no LLM is configured (or --offline is set)."""

    def __init__(self, task: str = "default") -> None:
        super().__init__(
            f"no LLM configured for task '{task}': give --llm-base-url/--llm-model, set "
            f"{ENV_BASE_URL}/{ENV_MODEL}, or a settings file (--llm-settings / {ENV_SETTINGS})"
        )


class ModelPrice(BaseModel):
    """Price of one model in US dollars per million tokens (for the ledger's cost estimate)."""

    model_config = ConfigDict(extra="forbid")

    input_per_million: float = 0.0
    output_per_million: float = 0.0


class TaskOverride(BaseModel):
    """Per-task overrides (e.g. a bigger model for ``extraction``); unset fields inherit the defaults."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    api_key: SecretStr | None = None
    backend: BackendKind | None = None
    timeout: float | None = None
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    structured: StructuredSetting | None = None


class EndpointConfig(BaseModel):
    """The fully resolved settings for one task: what a backend needs to make a call."""

    model_config = ConfigDict(frozen=True)

    backend: BackendKind
    base_url: str | None
    model: str | None
    api_key: SecretStr | None = None
    timeout: float
    connect_timeout: float
    temperature: float
    seed: int | None
    max_tokens: int
    max_retries: int
    backoff_base: float
    backoff_max: float
    n_ctx: int
    n_threads: int | None
    structured: StructuredSetting = "auto"

    @property
    def endpoint(self) -> str:
        """A stable identity for the endpoint (part of the cache key)."""
        if self.backend == "llama_cpp":
            return f"llama_cpp://{self.model}"
        return (self.base_url or OPENAI_BASE_URL).rstrip("/")


class LLMSettings(BaseModel):
    """All LLM settings; build with :func:`load_settings` rather than directly."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = Field(None, description="name of an environment variable holding the key")
    api_key: SecretStr | None = None
    backend: BackendKind | None = Field(
        None, description="'openai' (any OpenAI-compatible server) or 'llama_cpp' (in-process GGUF; "
        "auto when model is a .gguf path and no base_url is given)"
    )
    timeout: float = 120.0
    connect_timeout: float = 10.0
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int = 1024
    structured: StructuredSetting = Field(
        "auto", description="structured output: 'auto' (negotiate the strongest the server accepts) or one fixed "
        "mode: json_schema, json_object_schema (llama.cpp), json_object, prompt (schema in the prompt only)"
    )
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    concurrency: int = 4
    n_ctx: int = 8192
    n_threads: int | None = None
    cache: bool = True
    cache_dir: Path | None = None
    offline: bool = False
    tasks: dict[str, TaskOverride] = Field(default_factory=dict)
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    source: str = Field("defaults", description="where the endpoint came from (flags, env, file)")

    def configured(self, task: str | None = None) -> bool:
        """True when an LLM is configured (for ``task``, or for any task) and --offline is not set."""
        if self.offline:
            return False
        if task is None:
            return self._has_endpoint(self.base_url, self.model) or any(
                self._has_endpoint(t.base_url, t.model) for t in self.tasks.values()
            )
        ov = self.tasks.get(task, TaskOverride())
        return self._has_endpoint(ov.base_url or self.base_url, ov.model or self.model)

    @staticmethod
    def _has_endpoint(base_url: str | None, model: str | None) -> bool:
        return bool(base_url) or bool(model)

    def for_task(self, task: str = "default") -> EndpointConfig:
        """Resolve the settings for one task (its overrides over the defaults); raises when none."""
        if not self.configured(task):
            raise LLMNotConfiguredError(task)
        ov = self.tasks.get(task, TaskOverride())
        base_url = ov.base_url or self.base_url
        model = ov.model or self.model
        backend = ov.backend or self.backend
        if backend is None:
            backend = "llama_cpp" if (not base_url and model and model.endswith(".gguf")) else "openai"
        key = ov.api_key or self.api_key
        key_env = ov.api_key_env or self.api_key_env
        if key is None and key_env:
            value = os.environ.get(key_env)
            key = SecretStr(value) if value else None
        if backend == "openai" and not base_url:
            base_url = OPENAI_BASE_URL
        return EndpointConfig(
            backend=backend,
            base_url=base_url,
            model=model,
            api_key=key,
            timeout=ov.timeout if ov.timeout is not None else self.timeout,
            connect_timeout=self.connect_timeout,
            temperature=ov.temperature if ov.temperature is not None else self.temperature,
            seed=ov.seed if ov.seed is not None else self.seed,
            max_tokens=ov.max_tokens if ov.max_tokens is not None else self.max_tokens,
            max_retries=self.max_retries,
            backoff_base=self.backoff_base,
            backoff_max=self.backoff_max,
            n_ctx=self.n_ctx,
            n_threads=self.n_threads,
            structured=ov.structured or self.structured,
        )

    def api_key_missing(self, task: str = "default") -> str | None:
        """The name of the key variable when one is named but unset, else None (for doctor)."""
        ov = self.tasks.get(task, TaskOverride())
        key_env = ov.api_key_env or self.api_key_env
        if (ov.api_key or self.api_key) is None and key_env and not os.environ.get(key_env):
            return key_env
        return None

    def resolved_cache_dir(self) -> Path:
        """The cache directory (``CLAIMTRACE_CACHE_DIR`` or the user's cache dir + ``/claimtrace``)."""
        if self.cache_dir is not None:
            return Path(self.cache_dir).expanduser()
        import platformdirs

        return Path(platformdirs.user_cache_dir("claimtrace", appauthor=False))

    def price(self, model: str | None) -> ModelPrice:
        """The configured price of a model (zero when unknown)."""
        return self.prices.get(model or "", ModelPrice())

    def describe(self, task: str = "default") -> str:
        """One line for stderr: which LLM a task will use, or that the offline methods are used."""
        if self.offline:
            return "LLM: --offline given; using the embedded offline methods"
        if not self.configured(task):
            return "LLM: none configured; using the embedded offline methods"
        cfg = self.for_task(task)
        where = cfg.base_url if cfg.backend == "openai" else "in-process llama.cpp"
        return f"LLM for {task}: model {cfg.model or '(server default)'} at {where} (from {self.source})"


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def read_settings_file(path: str | Path) -> dict[str, Any]:
    """Read a TOML or YAML settings file; the LLM settings are the ``[llm]`` table (or the top level)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise InputError(p, "settings file not found")
    text = p.read_text(encoding="utf-8")
    try:
        if p.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text)
        elif p.suffix.lower() in {".yaml", ".yml"}:
            data = yaml.safe_load(text) or {}
        else:
            raise InputError(p, "settings file must end in .toml, .yaml or .yml")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise InputError(p, f"cannot parse settings file: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise InputError(p, "settings file must hold a table/mapping")
    section = data.get("llm", data)
    if not isinstance(section, dict):
        raise InputError(p, "'llm' must be a table/mapping")
    section = dict(section)
    if "cache_dir" not in section and isinstance(data.get("cache_dir"), str):
        section["cache_dir"] = data["cache_dir"]
    return section


def load_settings(
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    settings_file: str | Path | None = None,
    offline: bool | None = None,
    cache: bool | None = None,
    cache_dir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> LLMSettings:
    """Build settings from explicit values (CLI flags) > environment > settings file > defaults."""
    environ = os.environ if env is None else env
    data: dict[str, Any] = {}
    source = "defaults"
    path = settings_file or environ.get(ENV_SETTINGS) or None
    if path:
        data.update(read_settings_file(path))
        if data.get("base_url") or data.get("model") or data.get("tasks"):
            source = f"settings file {path}"
    env_map = {ENV_BASE_URL: "base_url", ENV_MODEL: "model", ENV_API_KEY: "api_key", ENV_CACHE_DIR: "cache_dir"}
    for var, field in env_map.items():
        if environ.get(var):
            data[field] = environ[var]
            if field in ("base_url", "model"):
                source = "environment"
    if _truthy(environ.get(ENV_OFFLINE)):
        data["offline"] = True
    explicit = {
        "base_url": base_url, "model": model, "api_key_env": api_key_env,
        "offline": offline, "cache": cache, "cache_dir": cache_dir, **overrides,
    }
    for field, value in explicit.items():
        if value is not None:
            data[field] = value
    if base_url or model:
        source = "command-line flags"
    data["source"] = source
    try:
        return LLMSettings.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise InputError(path, f"invalid LLM setting '{loc}': {err['msg']}") from None


def llm_configured(settings: LLMSettings | None = None, task: str | None = None) -> bool:
    """True when an LLM is configured (by flags, CLAIMTRACE_* variables or a settings file) and not offline."""
    s = settings if settings is not None else load_settings()
    return s.configured(task)
