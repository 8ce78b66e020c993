"""The default install (issue 28, item 7): every dependency is one ``src/`` imports, the majors the code relies
on are bounded, and the version is written once (``pyproject.toml``) and read from the installed metadata."""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions

from conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
#: the packages whose internals or API the code leans on (pydantic's fields, typer.main, the openai SDK)
BOUNDED = ("pydantic", "pydantic-settings", "typer", "openai")


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _imported_distributions() -> set[str]:
    """The distributions of every top-level module that a file under ``src/`` imports (at any depth)."""
    modules: set[str] = set()
    for path in (REPO / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    dists = packages_distributions()
    return {_name(d) for m in modules for d in dists.get(m, [])}


def test_every_default_dependency_is_imported_by_src() -> None:
    imported = _imported_distributions()
    unused = [r for r in PYPROJECT["project"]["dependencies"] if _name(r) not in imported]
    assert not unused, f"dependencies that src/ never imports: {unused}"
    assert "httpx" not in {_name(r) for r in PYPROJECT["project"]["dependencies"]}


def test_the_majors_the_code_relies_on_are_bounded() -> None:
    specs = {_name(r): r for r in PYPROJECT["project"]["dependencies"]}
    for name in BOUNDED:
        assert re.search(r"<\s*\d", specs[name]), f"{specs[name]!r} has no upper bound"


def test_the_version_is_written_once() -> None:
    from importlib.metadata import version

    import claimtrace

    assert "version" in PYPROJECT["project"] and "version" not in PYPROJECT["project"].get("dynamic", [])
    assert claimtrace.__version__ == version("claimtrace-sci")
    literal = re.compile(rf"['\"]{re.escape(PYPROJECT['project']['version'])}['\"]")
    written = [p for p in (REPO / "src").rglob("*.py") if literal.search(p.read_text(encoding="utf-8"))]
    assert not written, f"the version is written in {written}"
