"""Regular expressions compiled on first use, for modules whose patterns a short run mostly never needs.

``lazy(pattern, flags)`` stands in for ``re.compile(pattern, flags)``; a module that holds such patterns calls
``bind_lazy(globals())`` after them. A pattern compiles on its first use and then takes the stand-in's place in
every module that names it, so that module's functions read the compiled pattern from then on, at no cost per
call (the start-up of a one-page ``claimtrace stats`` compiles only the patterns its text reaches). A stand-in
held elsewhere (a tuple, a dict, an attribute) stays one: it forwards each use, a little slower.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _LazyPattern:
    """A pattern compiled on first use (``lazy``), which then takes its own place in the modules that hold it
    under a name (``bind_lazy``): their functions read the compiled pattern from then on, at no cost per call."""

    __slots__ = ("_compiled", "_homes", "flags", "pattern")

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None
        self._homes: list[tuple[dict[str, Any], str]] = []

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if not yet), put in place of this stand-in wherever it is named."""
        rx = self._compiled
        if rx is None:
            rx = self._compiled = re.compile(self.pattern, self.flags)
            for namespace, name in self._homes:
                if namespace.get(name) is self:
                    namespace[name] = rx
        return rx

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.compiled(), attr)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled on first use (``.pattern`` and ``.flags`` are read without
    compiling)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))


def bind_lazy(namespace: dict[str, Any]) -> None:
    """Let the lazy patterns a module names (its own or imported) replace themselves there once compiled."""
    for name, value in namespace.items():
        if isinstance(value, _LazyPattern):
            if value._compiled is not None:
                namespace[name] = value._compiled
            else:
                value._homes.append((namespace, name))
