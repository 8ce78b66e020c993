"""The check plug-in interface: a check reads a Document and its statistics and returns typed rows.

A check is any object with an ``id``, a ``title`` and a ``run(context)`` method (the ``Check`` protocol).
Built-in checks and a user's own are found through the entry-point group ``claimtrace.checks``: each
entry point names a ``Check`` or an iterable of them (``mypkg.checks:CHECKS``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, cast, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from claimtrace.documents.model import AbstractSection, Document, Paragraph, Scope, Sentence
from claimtrace.stats.model import DocumentStat

T = TypeVar("T")

ENTRY_POINT_GROUP = "claimtrace.checks"

Severity = Literal["ok", "info", "warn", "error"]
SEVERITY_ORDER: dict[str, int] = {"ok": 0, "info": 1, "warn": 2, "error": 3}


class Location(BaseModel):
    """Where a check row points: the sentence (or paragraph) id, character offsets into ``scope``'s text, page."""

    model_config = ConfigDict(extra="forbid")

    scope: Scope = "body"
    unit_id: str | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = None
    section: str | None = None


class CheckRow(BaseModel):
    """One finding of one check: severity, a one-line message, guidance for the author, and where it is."""

    model_config = ConfigDict(extra="forbid")

    check: str
    severity: Severity
    message: str
    guidance: str = ""
    location: Location | None = None
    text: str | None = None  # the sentence or snippet the row is about, as read
    data: dict[str, Any] = Field(default_factory=dict)  # check-specific typed fields (JSON-able)


def sentence_location(s: Sentence, section: str | None = None, *, body_only: bool = False) -> Location:
    """A row's location at a sentence: its scope (``body_only``: a table sentence counts as body), offsets, page."""
    scope: Scope = ("abstract" if s.scope == "abstract" else "body") if body_only else s.scope
    return Location(scope=scope, unit_id=s.id, start=s.start, end=s.end, page=s.page, section=section)


def section_of(doc: Document, unit_id: str | None) -> str | None:
    """The section (or an abstract part's label) of the paragraph ``unit_id`` is or is in; None if none."""
    if not unit_id:
        return None
    try:
        par = doc.paragraph_of(unit_id)
    except KeyError:
        return None
    return getattr(par, "section", None) or getattr(par, "label", None)


def ok_row(check: str, message: str) -> CheckRow:
    """The one ``ok`` row a check returns when it found nothing."""
    return CheckRow(check=check, severity="ok", message=message)


def rows_or_ok(rows: list[CheckRow], check: str, message: str) -> list[CheckRow]:
    """The rows a check found, or its one ``ok`` row when it found none."""
    return rows or [ok_row(check, message)]


@dataclass(frozen=True)
class CheckOptions:
    """What the user configured for a run of the checks."""

    alpha: float = 0.05
    retractions: Path | None = None  # a Retraction Watch CSV (``--retractions FILE``)
    online: bool = False  # link status and DOI look-ups (``--online``); off by default
    cache_dir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class CheckContext:
    """What a check reads: the Document, its statistics (from ``analyze_document``) and the options."""

    document: Document
    stats: Sequence[DocumentStat]
    options: CheckOptions = field(default_factory=CheckOptions)
    #: what the checks of one paper compute once and share (indexes of its sentences, references...), by key
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def shared(self, key: str, make: Callable[[], T]) -> T:
        """The value ``make()`` gives, computed once per paper and shared by every check under ``key``."""
        if key not in self.memo:
            self.memo[key] = make()
        return cast(T, self.memo[key])


def lowered(context: CheckContext) -> dict[str, str]:
    """Each paragraph's and abstract section's text lower-cased by unit id, once per paper for every check (the
    quick word filters before the slower patterns)."""
    doc = context.document
    units: list[AbstractSection | Paragraph] = [*doc.abstract, *doc.paragraphs]
    return context.shared("lowered", lambda: {u.id: u.text.lower() for u in units})


@runtime_checkable
class Check(Protocol):
    """A check: a stable ``id``, a human ``title``, and ``run`` returning its rows for one paper."""

    id: str
    title: str

    def run(self, context: CheckContext) -> list[CheckRow]:
        """The rows of this check for one paper (an ``ok`` row when nothing is wrong)."""
        ...


class NamedCheck:
    """A built-in check's base: the class names its ``id`` and ``title`` as class keywords
    (``class MarginalCheck(NamedCheck, id="marginal", title="Marginal-significance wording")``)."""

    id: str
    title: str

    def __init_subclass__(cls, *, id: str | None = None, title: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if id is not None:
            cls.id = id
        if title is not None:
            cls.title = title


def _as_checks(obj: object, name: str) -> list[Check]:
    if isinstance(obj, Check):
        return [obj]
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes):
        items = list(obj)
        if all(isinstance(c, Check) for c in items):
            return items
    raise TypeError(f"entry point {name!r} of {ENTRY_POINT_GROUP!r} is not a check or a list of checks")


def registered_checks() -> list[Check]:
    """Every check registered under the ``claimtrace.checks`` entry-point group, built-ins first, ids unique."""
    found: dict[str, Check] = {}
    eps = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: (not ep.value.startswith("claimtrace."),
                                                                     ep.name))
    for ep in eps:
        for chk in _as_checks(ep.load(), ep.name):
            found.setdefault(chk.id, chk)
    return list(found.values())


def run_checks(context: CheckContext, checks: Sequence[Check] | None = None,
               only: Sequence[str] | None = None) -> list[CheckRow]:
    """Run the given (default: all registered) checks on one paper; ``only`` keeps the named check ids."""
    selected = list(checks) if checks is not None else registered_checks()
    if only:
        unknown = sorted(set(only) - {c.id for c in selected})
        if unknown:
            raise ValueError(f"unknown check id(s): {', '.join(unknown)}")
        selected = [c for c in selected if c.id in set(only)]
    rows: list[CheckRow] = []
    for chk in selected:
        rows.extend(chk.run(context))
    return rows
