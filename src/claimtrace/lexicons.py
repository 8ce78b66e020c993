"""Cue lexicons as data: the named phrase patterns a module reads text with, one file each.

``resources/lexicons/NAME.yaml`` holds one module's cue patterns (``NAME`` is the module's path below
``claimtrace``: ``checks.openscience``, ``cues``, ...). Each entry names a pattern, says what it matches, and gives
its regular expression as the pieces it is written in (joined as they stand, no separator) and its flags. A
newcomer looks up "what counts as a data-sharing statement" there, in one place and one shape. The file is read and
validated (``LexiconFile``) once, the first time a module asks; ``patterns`` (``pattern`` for one) compiles what
it is asked for.

Patterns that a module builds from other values (f-strings, joined word lists) stay in the module's code.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

#: the ``re`` flags a lexicon entry may set, by their long names
Flag = Literal["IGNORECASE", "MULTILINE", "DOTALL", "VERBOSE", "ASCII"]


class Cue(BaseModel):
    """One named pattern: what it matches (``note``, required), its regular expression in pieces, and its flags."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    note: str = Field(min_length=1)
    pattern: list[str] = Field(min_length=1)
    flags: list[Flag] = Field(default_factory=list)

    def compile(self) -> re.Pattern[str]:
        """The compiled pattern: its pieces joined as written, with its flags."""
        flags = 0
        for name in self.flags:
            flags |= getattr(re, name)
        return re.compile("".join(self.pattern), flags)


class LexiconFile(BaseModel):
    """A lexicon file: what the module reads with it, and its patterns by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    patterns: dict[str, Cue]


def read_lexicon(path: Path) -> LexiconFile:
    """A lexicon file read and validated (``ValueError`` with the file's name if it does not fit)."""
    try:
        return LexiconFile.model_validate(yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader))
    except (yaml.YAMLError, ValueError) as e:
        raise ValueError(f"{path.name}: not a lexicon file ({e})") from e


def lexicon_names() -> list[str]:
    """The names of the lexicons shipped with the package."""
    root = resources.files("claimtrace").joinpath("resources", "lexicons")
    return sorted(p.name.removesuffix(".yaml") for p in root.iterdir() if p.name.endswith(".yaml"))


@cache
def lexicon(name: str) -> LexiconFile:
    """The shipped lexicon ``name`` (``resources/lexicons/NAME.yaml``), read once."""
    path = Path(str(resources.files("claimtrace").joinpath("resources", "lexicons", f"{name}.yaml")))
    return read_lexicon(path)


def pattern(name: str, key: str) -> re.Pattern[str]:
    """The compiled pattern ``key`` of lexicon ``name`` (``KeyError`` if it has none)."""
    return patterns(name, key)[0]


def patterns(name: str, *keys: str) -> tuple[re.Pattern[str], ...]:
    """The compiled patterns ``keys`` of lexicon ``name``, in the order asked (``KeyError`` for a missing one)."""
    lex = lexicon(name)
    missing = [k for k in keys if k not in lex.patterns]
    if missing:
        raise KeyError(f"lexicon {name}: no pattern {', '.join(missing)}")
    return tuple(lex.patterns[k].compile() for k in keys)


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
