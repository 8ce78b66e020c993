"""Shared LLM options for every command that can use an LLM (extract, retrieve --rerank llm, graph, conclude).

Use in a command::

    from claimtrace.cli import llm_options as lo

    @app.command()
    def extract(
        ...,
        llm_base_url: str | None = lo.LLM_BASE_URL,
        llm_model: str | None = lo.LLM_MODEL,
        llm_api_key_env: str | None = lo.LLM_API_KEY_ENV,
        llm_settings: Path | None = lo.LLM_SETTINGS,
        offline: bool = lo.OFFLINE,
        no_cache: bool = lo.NO_CACHE,
    ) -> None:
        settings = lo.build_settings(llm_base_url, llm_model, llm_api_key_env, llm_settings, offline, no_cache)
        lo.announce(settings, task="extraction")     # one line on stderr: which LLM, or offline
        if settings.configured("extraction"):
            client = LLMClient(settings)             # ... LLM path
        else:
            ...                                      # embedded offline methods
"""

from __future__ import annotations

import logging
from pathlib import Path

import typer

from claimtrace.llm.settings import LLMSettings, load_settings

log = logging.getLogger(__name__)

LLM_BASE_URL = typer.Option(
    None, "--llm-base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8089/v1 (env CLAIMTRACE_LLM_BASE_URL)."
)
LLM_MODEL = typer.Option(
    None, "--llm-model", help="Model name, or a .gguf path for the in-process llama.cpp backend (env CLAIMTRACE_LLM_MODEL)."
)
LLM_API_KEY_ENV = typer.Option(
    None, "--llm-api-key-env", metavar="NAME",
    help="Name of the environment variable that holds the API key, e.g. OPENAI_API_KEY (or set CLAIMTRACE_LLM_API_KEY).",
)
LLM_SETTINGS = typer.Option(
    None, "--llm-settings", help="LLM settings file (TOML or YAML; env CLAIMTRACE_SETTINGS); may set per-task models."
)
OFFLINE = typer.Option(False, "--offline", help="Never call an LLM: use the embedded offline methods.")
NO_CACHE = typer.Option(False, "--no-cache", help="Bypass the LLM response cache.")


def build_settings(
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    llm_api_key_env: str | None = None,
    llm_settings: Path | str | None = None,
    offline: bool = False,
    no_cache: bool = False,
) -> LLMSettings:
    """LLMSettings from the shared options (flags > CLAIMTRACE_* environment > settings file)."""
    return load_settings(
        base_url=llm_base_url or None,
        model=llm_model or None,
        api_key_env=llm_api_key_env or None,
        settings_file=llm_settings or None,
        offline=True if offline else None,
        cache=False if no_cache else None,
    )


def announce(settings: LLMSettings, task: str = "default") -> None:
    """Say on stderr which LLM a task will use, or that the embedded offline methods are used."""
    log.info(settings.describe(task))
