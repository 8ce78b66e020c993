"""LLM settings: the ``llm`` section of :class:`claimtrace.settings.Settings`, and :func:`load_settings`.

The models (``LLMSettings``, ``TaskOverride``, ``EndpointConfig``, ``ModelPrice``) live in
``claimtrace.settings``; this module keeps the LLM layer's names for them. Precedence (highest first), as for
every section (docs/settings.md): explicit values (CLI flags) > ``CLAIMTRACE_LLM__<FIELD>`` > the old names
(``CLAIMTRACE_LLM_BASE_URL``, ``CLAIMTRACE_LLM_MODEL``, ``CLAIMTRACE_LLM_API_KEY``, ``CLAIMTRACE_CACHE_DIR``,
``CLAIMTRACE_OFFLINE``) > a settings file (TOML or YAML; ``--settings`` / ``--llm-settings`` or
``CLAIMTRACE_SETTINGS``) > defaults. The openai SDK's own variables (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``)
are never read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from claimtrace.settings import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_CACHE_DIR,
    ENV_MODEL,
    ENV_OFFLINE,
    ENV_SETTINGS,
    KNOWN_TASKS,
    OPENAI_BASE_URL,
    BackendKind,
    EndpointConfig,
    LLMNotConfiguredError,
    LLMSettings,
    ModelPrice,
    Settings,
    TaskOverride,
)

__all__ = [
    "ENV_API_KEY", "ENV_BASE_URL", "ENV_CACHE_DIR", "ENV_MODEL", "ENV_OFFLINE", "ENV_SETTINGS", "KNOWN_TASKS",
    "OPENAI_BASE_URL", "BackendKind", "EndpointConfig", "LLMNotConfiguredError", "LLMSettings", "ModelPrice",
    "TaskOverride", "llm_configured", "load_settings",
]


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
    """The ``llm`` section of :meth:`Settings.load`: explicit values (CLI flags) > environment > settings file
    > defaults (``env``: the environment to read, ``os.environ`` by default)."""
    explicit = {"base_url": base_url, "model": model, "api_key_env": api_key_env, "offline": offline,
                "cache": cache, "cache_dir": cache_dir, **overrides}
    return Settings.load(settings_file=settings_file, env=env, llm=explicit).llm


def llm_configured(settings: LLMSettings | None = None, task: str | None = None) -> bool:
    """True when an LLM is configured (by flags, CLAIMTRACE_* variables or a settings file) and not offline."""
    s = settings if settings is not None else load_settings()
    return s.configured(task)
