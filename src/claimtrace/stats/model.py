"""Data model of the statistics engine: one ``StatResult`` per reported result, with component spans.

Offsets (``start``/``end`` of the result and of every component) index the text given to
``claimtrace.stats.parse`` (module ``claimtrace.stats.parser``) exactly as given (before any
PDF-damage repair). Fields filled by
``check`` (``computed_p``, ``consistent``, ``decision_error``, ``significant``...) are ``None``
until the result is checked, and stay ``None`` where the check does not apply.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from claimtrace.documents.model import StrictModel
from claimtrace.schema_version import SCHEMA_VERSION as SCHEMA_VERSION  # re-exported: the one schema version

PComparison = Literal["=", "<", ">", "<=", ">=", "ns"]
ResultKind = Literal["test", "estimate", "p", "descriptives"]
DescriptiveKind = Literal["mean", "sd", "se", "median", "percent", "count"]
Scope = Literal["body", "abstract", "text"]

# canonical test vocabulary (see docs/statistics.md)
TESTS = (
    "t", "F", "chi2", "r", "rho", "tau", "z", "Q", "U", "W", "H", "b", "beta", "OR", "RR", "HR", "IRR",
    "d", "g", "eta2", "partial_eta2", "omega2", "R2", "f", "f2", "MD", "SMD", "RD",
)
RATIO_TESTS = frozenset({"OR", "RR", "HR", "IRR"})
EFFECT_SIZES = frozenset({"d", "g", "eta2", "partial_eta2", "omega2", "R2", "f", "f2"})


_M = TypeVar("_M", bound=BaseModel)

# The engine's one door to pydantic's instance layout. Results are built from values that are already typed
# (the parser's internal ``Res`` dataclasses), so validating them again would cost several times the parse.
# ``built`` and ``field_values`` fill a model's slots directly only while pydantic's layout is the one they
# were written for (checked here, at import, and by tests/test_stats_model.py); under any other layout they
# use pydantic's public API (``model_construct`` and ``setattr``): slower, never wrong.
PYDANTIC_LAYOUT = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
FAST_LAYOUT: bool = tuple(getattr(BaseModel, "__slots__", ())) == PYDANTIC_LAYOUT
_set = object.__setattr__
_new = object.__new__  # what cls.__new__ is for a pydantic model (BaseModel defines no __new__)


def built(cls: type[_M], values: dict[str, Any], fields_set: set[str]) -> _M:
    """An instance of ``cls`` from values already of the right types, without validation (parser hot path).

    ``values`` must hold every field of ``cls`` (defaults included), in field order; ``fields_set`` names
    those a validating constructor call would have been given explicitly.
    """
    if not FAST_LAYOUT:
        return cls.model_construct(fields_set, **values)
    m = _new(cls)
    _set(m, "__dict__", values)
    _set(m, "__pydantic_fields_set__", fields_set)
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m


class _Assign(dict[str, Any]):
    """``field_values`` under an unknown pydantic layout: each item set is a plain ``setattr``."""

    def __init__(self, model: BaseModel) -> None:
        super().__init__()
        self.model = model

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(self.model, key, value)


def field_values(m: BaseModel) -> dict[str, Any]:
    """A mapping whose item assignment sets a field of ``m`` without validation (``check``'s hot path).

    The fields written must already be in ``m``'s fields set (``check`` puts its fields there first).
    """
    return m.__dict__ if FAST_LAYOUT else _Assign(m)


class ComponentSpan(StrictModel):
    """Where one component (test, df, value, p, CI, SE, n...) was written: offsets and the text."""

    start: int
    end: int
    text: str


class Descriptive(StrictModel):
    """A group descriptive: a mean, SD, SE, median, percentage, or a count ``value`` of ``total``."""

    kind: DescriptiveKind
    value: float
    total: int | None = None
    start: int
    end: int
    text: str


class EffectSize(StrictModel):
    """An effect size reported alongside a test (``t(30) = 2.1, p = .04, d = 0.77``)."""

    measure: str
    value: float
    start: int
    end: int
    text: str


class StatResult(StrictModel):
    """One reported statistical result with its components and (after ``check``) its verdict."""

    kind: ResultKind
    text: str
    start: int
    end: int
    test: str | None = None
    test_text: str | None = None
    test_detail: str | None = None
    df1: float | None = None
    df2: float | None = None
    comparison: str | None = None  # how the statistic was reported: "=", "<", ">"
    value: float | None = None
    p_comparison: PComparison | None = None
    p_value: float | None = None
    one_tailed: bool = False
    ci_level: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    se: float | None = None
    n: int | None = None
    n_per_group: bool = False
    effects: list[EffectSize] = Field(default_factory=list)
    descriptives: list[Descriptive] = Field(default_factory=list)
    spans: dict[str, ComponentSpan] = Field(default_factory=dict)
    repaired: list[str] = Field(default_factory=list)
    # an effect size planned in a power analysis ("80% power to detect d = 0.5"), not a result: never checked
    planned: bool = False
    # set by check()
    computed_p: float | None = None
    consistent: bool | None = None
    decision_error: bool | None = None
    significant: bool | None = None
    ci_consistent: bool | None = None
    ci_p_consistent: bool | None = None
    flags: list[str] = Field(default_factory=list)

    def shifted(self, delta: int) -> StatResult:
        """A copy with every offset moved by ``delta`` (to index a larger text)."""
        data = self.model_dump()
        data["start"] += delta
        data["end"] += delta
        for comp in data["spans"].values():
            comp["start"] += delta
            comp["end"] += delta
        for item in (*data["effects"], *data["descriptives"]):
            item["start"] += delta
            item["end"] += delta
        return StatResult.model_validate(data)


class DocumentStat(StatResult):
    """A result found in a Document: offsets index ``body_text`` or ``abstract_text`` (``scope``)."""

    scope: Scope = "body"
    unit_id: str | None = None
    paragraph_id: str | None = None
    section: str | None = None

    def record(self) -> dict[str, object]:
        """The flat JSON record of the CLI (``--json``)."""
        return self.model_dump(mode="json")
