"""Prompts are versioned files in the package (``claimtrace/prompts/``) with declared variables.

Two formats:

* ``NAME.yaml`` — keys ``name``, ``version``, ``description``, ``variables`` (list), ``engine``
  (``jinja2``, the default, or ``format`` for ``str.format``), and either ``system`` + ``user``
  templates or ``messages`` (a list of ``{role, content}`` templates, e.g. few-shot examples).
* ``NAME.md`` — YAML front matter with the same keys (``system`` optional) between ``---`` lines;
  the Markdown body is the user message template.

Rendering uses Jinja2 with ``StrictUndefined``. A template that uses an undeclared variable is
refused when the prompt is loaded; rendering with a missing or an unexpected variable raises
:class:`PromptError` naming them. The prompt's name and version are stored with each invocation.
"""

from __future__ import annotations

import string
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, Field

from claimtrace.errors import ClaimtraceError

PROMPT_SUFFIXES = (".yaml", ".yml", ".md")


class PromptError(ClaimtraceError):
    """A prompt file is malformed, missing, or rendered with the wrong variables."""


class PromptMessage(BaseModel):
    """One message template."""

    role: Literal["system", "user", "assistant"]
    content: str


class Prompt(BaseModel):
    """A loaded prompt: name, version, declared variables and message templates."""

    name: str
    version: str
    description: str = ""
    variables: list[str] = Field(default_factory=list)
    engine: Literal["jinja2", "format"] = "jinja2"
    messages: list[PromptMessage]
    path: str | None = None

    def model_post_init(self, __context: Any) -> None:
        """Check that the templates use only declared variables."""
        used: set[str] = set()
        for m in self.messages:
            used |= _template_variables(m.content, self.engine, self.name)
        undeclared = sorted(used - set(self.variables))
        if undeclared:
            raise PromptError(
                f"prompt '{self.name}' v{self.version}: templates use undeclared variables: {', '.join(undeclared)}"
            )

    @property
    def ref(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"

    def render(self, variables: dict[str, Any] | None = None) -> list[dict[str, str]]:
        """Chat messages with the variables filled in; missing or unexpected variables raise PromptError."""
        values = dict(variables or {})
        missing = sorted(set(self.variables) - set(values))
        extra = sorted(set(values) - set(self.variables))
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing variables: {', '.join(missing)}")
            if extra:
                parts.append(f"unexpected variables: {', '.join(extra)}")
            raise PromptError(f"prompt '{self.name}' v{self.version}: " + "; ".join(parts))
        out: list[dict[str, str]] = []
        for m in self.messages:
            out.append({"role": m.role, "content": _render(m.content, values, self.engine, self.name)})
        return out


@lru_cache(maxsize=1)
def _jinja_env() -> Any:
    import jinja2

    return jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False, trim_blocks=True
    )


def _template_variables(text: str, engine: str, name: str) -> set[str]:
    if engine == "format":
        try:
            return {f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(text) if f}
        except ValueError as exc:
            raise PromptError(f"prompt '{name}': bad str.format template: {exc}") from None
    import jinja2
    from jinja2 import meta

    try:
        ast = _jinja_env().parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise PromptError(f"prompt '{name}': Jinja2 syntax error line {exc.lineno}: {exc.message}") from None
    return set(meta.find_undeclared_variables(ast))


def _render(text: str, values: dict[str, Any], engine: str, name: str) -> str:
    if engine == "format":
        return text.format(**values).strip()
    import jinja2

    try:
        return str(_jinja_env().from_string(text).render(**values)).strip()
    except jinja2.UndefinedError as exc:
        raise PromptError(f"prompt '{name}': {exc.message}") from None


def parse_prompt(text: str, *, source: str, default_name: str | None = None) -> Prompt:
    """Parse a prompt from YAML (``.yaml``) or Markdown with front matter (``.md``) text."""
    if source.endswith(".md"):
        if not text.startswith("---"):
            raise PromptError(f"{source}: a Markdown prompt must start with YAML front matter between '---' lines")
        try:
            _, front, body = text.split("---", 2)
        except ValueError:
            raise PromptError(f"{source}: unterminated front matter") from None
        meta = _load_yaml(front, source)
        meta.setdefault("user", body.strip())
    else:
        meta = _load_yaml(text, source)
    name = meta.get("name") or default_name
    if not name:
        raise PromptError(f"{source}: prompt has no 'name'")
    if "version" not in meta:
        raise PromptError(f"{source}: prompt '{name}' has no 'version'")
    messages: list[dict[str, str]] = []
    if meta.get("messages"):
        messages = list(meta["messages"])
    else:
        if meta.get("system"):
            messages.append({"role": "system", "content": str(meta["system"])})
        if not meta.get("user"):
            raise PromptError(f"{source}: prompt '{name}' needs a 'user' template (or 'messages')")
        messages.append({"role": "user", "content": str(meta["user"])})
    variables = meta.get("variables") or []
    if isinstance(variables, dict):  # {name: description}
        variables = list(variables)
    try:
        return Prompt(
            name=str(name),
            version=str(meta["version"]),
            description=str(meta.get("description") or ""),
            variables=[str(v) for v in variables],
            engine=meta.get("engine", "jinja2"),
            messages=[PromptMessage.model_validate(m) for m in messages],
            path=source,
        )
    except PromptError:
        raise
    except Exception as exc:
        raise PromptError(f"{source}: invalid prompt: {str(exc).splitlines()[0]}") from None


def _load_yaml(text: str, source: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PromptError(f"{source}: cannot parse YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise PromptError(f"{source}: expected a mapping")
    return data


def load_prompt_file(path: str | Path) -> Prompt:
    """Load a prompt from a file path."""
    p = Path(path)
    if not p.is_file():
        raise PromptError(f"{p}: prompt file not found")
    return parse_prompt(p.read_text(encoding="utf-8"), source=str(p), default_name=p.stem)


@lru_cache(maxsize=256)
def load_prompt(name: str) -> Prompt:
    """A packaged prompt by name (``claimtrace/prompts/NAME.yaml|.yml|.md``; sub-folders as ``a/b``)."""
    root = resources.files("claimtrace").joinpath("prompts")
    for suffix in PROMPT_SUFFIXES:
        res = root.joinpath(*f"{name}{suffix}".split("/"))
        if res.is_file():
            return parse_prompt(res.read_text(encoding="utf-8"), source=f"prompts/{name}{suffix}", default_name=name)
    raise PromptError(f"no packaged prompt named '{name}' (available: {', '.join(list_prompts()) or 'none'})")


def list_prompts() -> list[str]:
    """Names of the packaged prompts."""
    root = Path(str(resources.files("claimtrace").joinpath("prompts")))
    if not root.is_dir():
        return []
    names = []
    for p in sorted(root.rglob("*")):
        if p.suffix in PROMPT_SUFFIXES and p.is_file():
            names.append(p.relative_to(root).with_suffix("").as_posix())
    return names


def resolve_prompt(prompt: str | Path | Prompt) -> Prompt:
    """A Prompt from a Prompt, a packaged prompt name, or a path to a prompt file."""
    if isinstance(prompt, Prompt):
        return prompt
    if isinstance(prompt, Path) or (isinstance(prompt, str) and prompt.endswith(PROMPT_SUFFIXES)):
        return load_prompt_file(prompt)
    return load_prompt(prompt)
