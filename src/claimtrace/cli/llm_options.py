"""Shared LLM options for every command that can use an LLM (extract, retrieve --reranker llm, graph, conclude...).

Use in a command: declare one ``llm`` parameter and decorate the command; the decorator puts the options
(``--llm-base-url``, ``--llm-model``, ``--llm-api-key-env``, ``--settings``/``--llm-settings``, ``--offline``,
``--no-cache``) in its place and hands the command what was given as one :class:`LLMOptions`::

    from claimtrace.cli import llm_options as lo

    @app.command()
    @lo.with_llm_options()                           # offline=False: a command without --offline
    def extract(..., llm: lo.LLMOptions = lo.NONE) -> None:
        settings = llm.settings()                    # flags > CLAIMTRACE_* environment > settings file
        lo.announce(settings, task="extraction")     # one line on stderr: which LLM, or offline
        if settings.configured("extraction"):
            client = LLMClient(settings)             # ... LLM path
        else:
            ...                                      # embedded offline methods
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from claimtrace.cli.common import set_signature
from claimtrace.llm.settings import LLMSettings, load_settings

if TYPE_CHECKING:
    from claimtrace.settings import Settings

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
    None, "--settings", "--llm-settings", metavar="FILE",
    help="Settings file (TOML or YAML; env CLAIMTRACE_SETTINGS): sections llm (may set per-task models), retrieval, "
         "extract, corpus, serve (docs/settings.md).",
)
OFFLINE = typer.Option(False, "--offline", help="Never call an LLM: use the embedded offline methods.")
NO_CACHE = typer.Option(False, "--no-cache", help="Bypass the LLM response cache.")


@dataclass(frozen=True)
class LLMOptions:
    """The shared LLM options as one command run was given them (None/False: not given)."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    settings_file: Path | None = None
    offline: bool = False
    no_cache: bool = False

    @property
    def given(self) -> bool:
        """True when any LLM option other than ``--offline`` was given."""
        return self.no_cache or any(v is not None for v in (self.base_url, self.model, self.api_key_env,
                                                             self.settings_file))

    def settings(self, *, offline: bool | None = None) -> LLMSettings:
        """LLMSettings: flags > CLAIMTRACE_* environment > settings file (``offline`` overrides ``--offline``)."""
        return load_settings(base_url=self.base_url or None, model=self.model or None,
                             api_key_env=self.api_key_env or None, settings_file=self.settings_file or None,
                             offline=True if (self.offline if offline is None else offline) else None,
                             cache=False if self.no_cache else None)

    def load(self, **sections: Any) -> Settings:
        """Every section (:meth:`claimtrace.settings.Settings.load`): the command's other options as
        ``sections`` (``retrieval={"k": 3}``; None: not given) over the environment, the settings file and the
        defaults."""
        from claimtrace.settings import Settings

        explicit = {"base_url": self.base_url or None, "model": self.model or None,
                    "api_key_env": self.api_key_env or None, "offline": True if self.offline else None,
                    "cache": False if self.no_cache else None}
        return Settings.load(settings_file=self.settings_file or None, llm=explicit, **sections)


#: a command's ``llm`` parameter default (no LLM option given); the decorator replaces it
NONE = LLMOptions()

# the command-line parameter of each LLMOptions field: (name, type, typer option)
_PARAMS: dict[str, tuple[str, Any, Any]] = {
    "base_url": ("llm_base_url", str | None, LLM_BASE_URL),
    "model": ("llm_model", str | None, LLM_MODEL),
    "api_key_env": ("llm_api_key_env", str | None, LLM_API_KEY_ENV),
    "settings_file": ("llm_settings", Path | None, LLM_SETTINGS),
    "offline": ("offline", bool, OFFLINE),
    "no_cache": ("no_cache", bool, NO_CACHE),
}

F = TypeVar("F", bound=Callable[..., Any])


def with_llm_options(*, offline: bool = True) -> Callable[[F], F]:
    """Give a command the shared LLM options in place of its ``llm`` parameter (``offline``: with --offline)."""

    def decorate(fn: F) -> F:
        import typing

        hints = typing.get_type_hints(fn, include_extras=True)
        sig = inspect.signature(fn)
        if "llm" not in sig.parameters:
            raise TypeError(f"{fn.__name__}: with_llm_options needs an 'llm' parameter")
        names = [f.name for f in fields(LLMOptions) if offline or f.name != "offline"]
        params: list[inspect.Parameter] = []
        for p in sig.parameters.values():
            if p.name != "llm":
                params.append(p.replace(annotation=hints.get(p.name, p.annotation)))
                continue
            for field in names:
                arg, kind, option = _PARAMS[field]
                params.append(inspect.Parameter(arg, inspect.Parameter.KEYWORD_ONLY if p.kind is p.KEYWORD_ONLY
                                                else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                default=option, annotation=kind))
        args = {field: _PARAMS[field][0] for field in names}

        @functools.wraps(fn)
        def command(*a: Any, **kw: Any) -> Any:
            kw["llm"] = LLMOptions(**{field: kw.pop(arg) for field, arg in args.items()})
            return fn(*a, **kw)

        return set_signature(command, sig, params, hints)

    return decorate


def announce(settings: LLMSettings, task: str = "default") -> None:
    """Say on stderr which LLM a task will use, or that the embedded offline methods are used."""
    log.info(settings.describe(task))
