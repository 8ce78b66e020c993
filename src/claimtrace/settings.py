"""One typed settings object for claimtrace: sections ``llm``, ``retrieval``, ``extract``, ``corpus``, ``serve``.

Read, lowest first (a later source overrides an earlier one, field by field; docs/settings.md):

1. the defaults written here;
2. a preset (:meth:`Settings.from_preset`: a context configuration of ``resources/presets.yaml``);
3. a settings file, TOML or YAML (``--settings FILE``, ``--llm-settings FILE`` or ``CLAIMTRACE_SETTINGS``);
4. the environment: the old names (``CLAIMTRACE_LLM_BASE_URL``, ``CLAIMTRACE_LLM_MODEL``,
   ``CLAIMTRACE_LLM_API_KEY``, ``CLAIMTRACE_CACHE_DIR``, ``CLAIMTRACE_OFFLINE``, ``CLAIMTRACE_SERVE_NO_WARM``),
   then every field as ``CLAIMTRACE_<SECTION>__<FIELD>`` (``CLAIMTRACE_LLM__BASE_URL``,
   ``CLAIMTRACE_RETRIEVAL__RERANKER``), which wins over an old name for the same field;
5. explicit values: command-line options, or keyword arguments of :meth:`Settings.load`.

The sources are pydantic-settings' own (``TomlConfigSettingsSource``, ``YamlConfigSettingsSource``,
``EnvSettingsSource``), ordered in :meth:`Settings.settings_customise_sources`. Only these turn an LLM on:
the openai SDK's own variables (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``) are never read.

This module sits low in the layer order (under ``documents``): the sections are plain data, and the layers
that act on them (``llm``, ``retrieval``, ``corpus``, ``serve``) import them from here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
    YamlConfigSettingsSource,
)

from claimtrace import specs
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.presets import preset_data
from claimtrace.specs import ExtractorSpec as _ExtractorSpec
from claimtrace.specs import RerankerSpec as _RerankerSpec
from claimtrace.specs import RetrieverSpec as _RetrieverSpec
from claimtrace.specs import Spec
from claimtrace.types import DEFAULT_STEPS, STEPS, GraphMethod, Step, Task, UnitKind

# a spec in the environment is its spelling (``CLAIMTRACE_RETRIEVAL__RERANKER=rescore:bm25``), not JSON
RetrieverSpec = Annotated[_RetrieverSpec, NoDecode]
RerankerSpec = Annotated[_RerankerSpec, NoDecode]
ExtractorSpec = Annotated[_ExtractorSpec, NoDecode]

ENV_PREFIX = "CLAIMTRACE_"
ENV_SETTINGS = "CLAIMTRACE_SETTINGS"
ENV_BASE_URL = "CLAIMTRACE_LLM_BASE_URL"
ENV_MODEL = "CLAIMTRACE_LLM_MODEL"
ENV_API_KEY = "CLAIMTRACE_LLM_API_KEY"
ENV_CACHE_DIR = "CLAIMTRACE_CACHE_DIR"
ENV_OFFLINE = "CLAIMTRACE_OFFLINE"
ENV_SERVE_NO_WARM = "CLAIMTRACE_SERVE_NO_WARM"
#: the environment names kept from before the one settings object: name -> (section, field, how to read it)
ENV_ALIASES: dict[str, tuple[str, str, Literal["value", "flag", "not-one"]]] = {
    ENV_BASE_URL: ("llm", "base_url", "value"),
    ENV_MODEL: ("llm", "model", "value"),
    ENV_API_KEY: ("llm", "api_key", "value"),
    ENV_CACHE_DIR: ("llm", "cache_dir", "value"),
    ENV_OFFLINE: ("llm", "offline", "flag"),  # a true value turns offline on; anything else is no setting
    ENV_SERVE_NO_WARM: ("serve", "warm_quick", "not-one"),  # "1": do not warm the quick check's models
}

OPENAI_BASE_URL = "https://api.openai.com/v1"
# the tasks that other modules ask for; any other name is allowed too
KNOWN_TASKS = ("default", "extraction", "rerank", "graph", "conclusion", "clustering")
#: the largest quick-check upload the review app accepts by default (bytes)
DEFAULT_MAX_UPLOAD = 20 * 1024 * 1024

BackendKind = Literal["openai", "llama_cpp"]
#: how a backend asks for structured output: ``auto`` negotiates (OpenAI's ``json_schema``, then llama.cpp's
#: ``json_object`` + ``schema``, then JSON mode, then the schema in the prompt); any other value uses that one
#: mode only (``prompt``: the schema in the system prompt, nothing enforced; the unconstrained baseline)
StructuredSetting = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]
Similarity = Literal["bm25", "dense", "hybrid"]


class LLMNotConfiguredError(ClaimtraceError):
    """An LLM call was asked for but no LLM is configured (or --offline is set)."""

    def __init__(self, task: str = "default") -> None:
        super().__init__(
            f"no LLM configured for task '{task}': give --llm-base-url/--llm-model, set "
            f"{ENV_BASE_URL}/{ENV_MODEL}, or a settings file (--settings / {ENV_SETTINGS})"
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


class RetrievalSettings(BaseModel):
    """``claimtrace retrieve`` and :func:`claimtrace.retrieve`: which retriever and reranker, over which units."""

    model_config = ConfigDict(extra="forbid")

    retriever: RetrieverSpec = Field(default_factory=specs.DefaultRetriever,
                                     description="a retriever spec (claimtrace.specs.RETRIEVERS)")
    reranker: RerankerSpec = Field(default_factory=specs.NoReranker,
                                   description="a reranker spec (claimtrace.specs.RERANKERS)")
    units: UnitKind | list[UnitKind] = Field("paragraph", description="a unit kind, or a list of them")
    task: Task = "evidence"
    k: int = Field(5, ge=1, description="units returned")
    m: int = Field(30, ge=1, description="candidates retrieved before reranking to k")
    include_abstract: bool = False


class ExtractSettings(BaseModel):
    """Claim-trace extraction: the extractor, the context configuration and its retriever and reranker."""

    model_config = ConfigDict(extra="forbid")

    extractor: ExtractorSpec | None = Field(None, description="embedded or llm; None: llm when one is configured")
    config: str | None = Field(None, description="a context configuration (resources/presets.yaml, contexts)")
    retriever: RetrieverSpec = Field(default_factory=specs.HybridRetriever,
                                     description="the retriever of rag-* configurations")
    reranker: RerankerSpec | None = Field(None, description="the reranker of rag-rerank configurations; None: "
                                          "the extractor's default")
    similarity: Similarity = "bm25"
    max_evidence_sentences: int = Field(3, ge=1)

    @field_validator("config")
    @classmethod
    def _known_config(cls, value: str | None) -> str | None:
        return known_config(value)


def known_config(value: str | None) -> str | None:
    """``value`` when it names a context configuration of ``resources/presets.yaml`` (or is None), else a
    ValueError that lists them."""
    if value is not None and value not in preset_data()["contexts"]:
        raise ValueError(f"unknown context configuration {value!r}; choose one of: "
                         f"{', '.join(preset_data()['contexts'])}")
    return value


class CorpusSettings(BaseModel):
    """The settings of a corpus run that affect results (they go into the step keys and the manifest)."""

    model_config = ConfigDict(extra="forbid")

    # NoDecode: in the environment the steps are comma-separated (CLAIMTRACE_CORPUS__STEPS=parse,stats)
    steps: Annotated[list[Step], NoDecode] = Field(
        default_factory=lambda: list(DEFAULT_STEPS), description="the steps to run (a list, or "
        "comma-separated: parse,stats,traces,graphs,conclusions,checks)")
    config: str | None = Field(None, description="the context configuration of the traces step")
    extractor: specs.ExtractorSpelling = Field("embedded", description="the traces step's extractor "
                                               "(claimtrace.specs.EXTRACTORS)")
    max_evidence_sentences: int = Field(3, ge=1)
    similarity: Similarity = "bm25"
    alpha: float = Field(0.05, gt=0, lt=1)
    graph_method: GraphMethod = "offline"
    conclude_method: str = Field("offline", description="the conclusions step's method: offline or an LLM method")
    max_bytes: int | None = None
    reader: dict[str, Any] | None = Field(None, description="how PDFs are read (dumped ReaderSettings); None: "
                                          "claimtrace's own reader without OCR")
    llm: dict[str, Any] | None = Field(None, description="LLM settings (dumped LLMSettings) for LLM steps")
    llm_model: str | None = Field(None, description="the model name recorded in the step keys")
    llm_max_concurrent: int | None = Field(None, description="per-endpoint requests in flight, whole run (Ray)")
    llm_tokens_per_minute: int | None = Field(None, description="per-endpoint tokens per minute, whole run (Ray)")

    @field_validator("steps", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        steps = [part.strip() for part in value.split(",") if part.strip()] if isinstance(value, str) else value
        try:
            return canonical_steps(steps) if isinstance(steps, list | tuple) else steps
        except ClaimtraceError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("config")
    @classmethod
    def _known_config(cls, value: str | None) -> str | None:
        return known_config(value)


def canonical_steps(steps: list[str] | tuple[str, ...]) -> list[Step]:
    """The steps in the order they run, ``parse`` always included; an unknown one is a one-line error."""
    bad = [str(s) for s in steps if s not in STEPS]
    if bad:
        raise ClaimtraceError(f"unknown step(s) {', '.join(bad)}; choose from {', '.join(STEPS)}")
    return [s for s in STEPS if s in steps or s == "parse"]


class ServeSettings(BaseModel):
    """What the review app serves and how it is protected (``claimtrace serve``)."""

    model_config = ConfigDict(extra="forbid")

    results_dir: Path | None = Field(None, description="the results folder (claimtrace serve's argument)")
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    token: str | None = None
    cache_dir: Path | None = Field(None, description="page renders and parsed papers; None: RESULTS/.serve-cache")
    max_upload: int = Field(DEFAULT_MAX_UPLOAD, ge=1, description="the quick check's largest upload in bytes")
    warm_quick: bool = Field(True, description="load the quick check's models at start")

    @property
    def root(self) -> Path:
        """The results folder, resolved."""
        if self.results_dir is None:
            raise ClaimtraceError("the review app needs a results folder (serve.results_dir)")
        return Path(self.results_dir).resolve()

    @property
    def cache(self) -> Path:
        """The cache folder, resolved."""
        return Path(self.cache_dir or self.root / ".serve-cache").resolve()


@dataclass
class _Load:
    """What one :meth:`Settings.load` reads: the file, the environment, a preset's values."""

    file: Path | None = None
    env: Mapping[str, str] | None = None
    preset: dict[str, Any] = field(default_factory=dict)


_LOAD: ContextVar[_Load | None] = ContextVar("claimtrace_settings_load", default=None)


class Settings(BaseSettings):
    """All of claimtrace's settings, one section per layer that has any (see the module docstring)."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="ignore",
                                      case_sensitive=False, validate_default=True)

    llm: LLMSettings = Field(default_factory=LLMSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    corpus: CorpusSettings = Field(default_factory=CorpusSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)

    SECTIONS: ClassVar[tuple[str, ...]] = ("llm", "retrieval", "extract", "corpus", "serve")

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Highest first: explicit values > ``CLAIMTRACE_<SECTION>__<FIELD>`` > the old environment names > the
        settings file > a preset > the defaults."""
        load = _LOAD.get() or _Load()
        environ = os.environ if load.env is None else load.env
        path = load.file or (Path(environ[ENV_SETTINGS]) if environ.get(ENV_SETTINGS) else None)
        sources: list[PydanticBaseSettingsSource] = [
            init_settings, _MappingEnvSource(settings_cls, environ), _AliasEnvSource(settings_cls, environ)]
        if path is not None:
            sources.append(settings_file_source(settings_cls, path))
        if load.preset:
            sources.append(InitSettingsSource(settings_cls, load.preset))
        return tuple(sources)

    @classmethod
    def load(cls, *, settings_file: str | Path | None = None, env: Mapping[str, str] | None = None,
             preset: str | None = None, **explicit: Any) -> Settings:
        """Settings from every source (``explicit``: sections as mappings, e.g. ``llm={"model": "m"}``; values
        that are None are not given); a bad value is a one-line :class:`~claimtrace.errors.InputError`."""
        environ = os.environ if env is None else env
        path = Path(settings_file).expanduser() if settings_file else (
            Path(environ[ENV_SETTINGS]).expanduser() if environ.get(ENV_SETTINGS) else None)
        given: dict[str, Any] = {name: {k: v for k, v in dict(section).items() if v is not None}
                 for name, section in explicit.items() if section is not None}
        load = _Load(file=path, env=environ, preset=_preset_values(preset) if preset else {})
        with _loading(load):
            try:
                llm_source = _llm_source(cls, load, given.get("llm", {}))
                given.setdefault("llm", {})["source"] = llm_source
                return cls(**given)
            except ValidationError as exc:
                raise InputError(path, _error_line(exc)) from None
            except SettingsError as exc:  # a value the environment source cannot decode
                raise InputError(None, f"invalid setting in the environment: {str(exc).splitlines()[0]}") from None

    @classmethod
    def from_preset(cls, name: str, **load: Any) -> Settings:
        """Settings with a context configuration preset (``resources/presets.yaml``) under the other sources:
        ``extract.config`` is the preset, ``retrieval.k`` and ``retrieval.m`` its selector's k and M."""
        return cls.load(preset=name, **load)


@contextmanager
def _loading(load: _Load) -> Iterator[None]:
    token = _LOAD.set(load)
    try:
        yield
    finally:
        _LOAD.reset(token)


def _preset_values(name: str) -> dict[str, Any]:
    """The sections a context configuration preset sets."""
    data = preset_data()
    raw = data["contexts"].get(name)
    if raw is None:
        raise ClaimtraceError(f"unknown context configuration {name!r}; choose one of: {', '.join(data['contexts'])}")
    selector = data["selectors"][raw["selector"]]
    retrieval = {key: selector[key] for key in ("k", "m") if key in selector}
    return {"extract": {"config": name}, **({"retrieval": retrieval} if retrieval else {})}


def section_with(name: str, base: BaseModel | None = None, **given: Any) -> Any:
    """Section ``name`` of :class:`Settings` with the values given (None: not given) over ``base`` (default: the
    section's defaults), validated as :meth:`Settings.load` validates them, with its one-line
    :class:`~claimtrace.errors.InputError` for a bad value (the public API's options over ``settings=``)."""
    cls = Settings.model_fields[name].annotation
    assert isinstance(cls, type) and issubclass(cls, BaseModel)
    values = {**(base.model_dump() if base is not None else {}), **{k: v for k, v in given.items() if v is not None}}
    try:
        return cls.model_validate(values)
    except ValidationError as exc:
        raise InputError(None, _error_line(exc, name)) from None


def _error_line(exc: ValidationError, section: str | None = None) -> str:
    """One line for the first validation error: ``invalid LLM setting 'timeout': ...`` and the like
    (``section``: the errors are of that section's model, their locations within it)."""
    err = exc.errors()[0]
    # a union's member (``literal[...]``, ``list[...]``) is no part of the setting's name
    loc = ([section] if section else []) + [str(x) for x in err["loc"] if "[" not in str(x)]
    msg = str(err["msg"]).removeprefix("Value error, ")
    if loc and loc[0] == "llm":
        return f"invalid LLM setting '{'.'.join(loc[1:])}': {msg}"
    return f"invalid setting '{'.'.join(loc)}': {msg}"


class _MappingEnvSource(EnvSettingsSource):
    """``CLAIMTRACE_<SECTION>__<FIELD>`` from a given environment (``os.environ`` by default)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {k.lower(): v for k, v in self._environ.items() if k.upper().startswith(ENV_PREFIX) and v != ""}


class _AliasEnvSource(PydanticBaseSettingsSource):
    """The environment names kept from before the one settings object (``ENV_ALIASES``)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self._environ = environ

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        """Unused: :meth:`__call__` reads every alias at once."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        out: dict[str, dict[str, Any]] = {}
        for name, (section, key, how) in ENV_ALIASES.items():
            value = self._environ.get(name)
            if not value:
                continue
            if how == "flag":
                if value.strip().lower() not in {"1", "true", "yes", "on"}:
                    continue
                out.setdefault(section, {})[key] = True
            elif how == "not-one":
                out.setdefault(section, {})[key] = value != "1"
            else:
                out.setdefault(section, {})[key] = value
        return out


def _normalise_file(data: Any, path: Path) -> dict[str, Any]:
    """A settings file's mapping in sections: LLM fields at the top level (the old layout, no ``[llm]``
    table) go to ``llm``, and so does a top-level ``cache_dir``."""
    if not isinstance(data, dict):
        raise InputError(path, "settings file must hold a table/mapping")
    out = {k: v for k, v in data.items() if k in Settings.SECTIONS}
    for name in Settings.SECTIONS:
        if name in out and not isinstance(out[name], dict):
            raise InputError(path, f"'{name}' must be a table/mapping")
    llm_fields = set(LLMSettings.model_fields) - {"source"}
    loose = {k: v for k, v in data.items() if k not in Settings.SECTIONS and k in llm_fields}
    if "llm" not in data:
        out["llm"] = loose
    elif "cache_dir" in loose and "cache_dir" not in out["llm"]:
        out["llm"] = {**out["llm"], "cache_dir": loose["cache_dir"]}
    return out


class _SettingsFile(PydanticBaseSettingsSource):
    """A settings file read by pydantic-settings' own TOML or YAML source, in sections (:func:`_normalise_file`)."""

    def __init__(self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource, path: Path) -> None:
        super().__init__(settings_cls)
        self._values = _normalise_file(inner(), path)

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        """Unused: :meth:`__call__` gives the file's sections at once."""
        return self._values.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._values)


def settings_file_source(settings_cls: type[BaseSettings], path: str | Path) -> PydanticBaseSettingsSource:
    """The source of one settings file (``.toml``, ``.yaml`` or ``.yml``); a missing or unreadable one is a
    one-line :class:`~claimtrace.errors.InputError`."""
    import tomllib

    import yaml

    p = Path(path).expanduser()
    if not p.is_file():
        raise InputError(p, "settings file not found")
    suffix = p.suffix.lower()
    try:
        if suffix == ".toml":
            inner: PydanticBaseSettingsSource = TomlConfigSettingsSource(settings_cls, toml_file=p)
        elif suffix in {".yaml", ".yml"}:
            inner = YamlConfigSettingsSource(settings_cls, yaml_file=p)
        else:
            raise InputError(p, "settings file must end in .toml, .yaml or .yml")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise InputError(p, f"cannot parse settings file: {str(exc).splitlines()[0]}") from None
    return _SettingsFile(settings_cls, inner, p)


def _llm_source(cls: type[Settings], load: _Load, given: Mapping[str, Any]) -> str:
    """Where the LLM endpoint comes from: command-line flags, the environment, the settings file or defaults."""
    if given.get("base_url") or given.get("model"):
        return "command-line flags"
    environ = os.environ if load.env is None else load.env
    env = deep_llm(_MappingEnvSource(cls, environ)()) | deep_llm(_AliasEnvSource(cls, environ)())
    if env.get("base_url") or env.get("model"):
        return "environment"
    if load.file is not None:
        data = deep_llm(settings_file_source(cls, load.file)())
        if data.get("base_url") or data.get("model") or data.get("tasks"):
            return f"settings file {load.file}"
    return "defaults"


def deep_llm(values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``llm`` section of a source's values (empty when it has none)."""
    section = values.get("llm")
    return dict(section) if isinstance(section, Mapping) else {}


__all__ = [
    "DEFAULT_MAX_UPLOAD", "ENV_ALIASES", "ENV_SETTINGS", "KNOWN_TASKS", "OPENAI_BASE_URL", "CorpusSettings",
    "EndpointConfig", "ExtractSettings", "LLMNotConfiguredError", "LLMSettings", "ModelPrice",
    "RetrievalSettings", "ServeSettings", "Settings", "Spec", "TaskOverride",
]
