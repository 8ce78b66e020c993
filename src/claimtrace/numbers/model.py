"""Pydantic models of ``claimtrace numbers`` and ``claimtrace meta`` (the module boundary)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from claimtrace.documents.model import StrictModel
from claimtrace.schema_version import SCHEMA_VERSION

OutcomeType = Literal["binary", "continuous", "other"]
ValueSource = Literal["text", "table", "caption", "derived", "llm"]
Measure = Literal["OR", "RR", "RD", "MD", "SMD"]
ARM_FIELDS = ("events", "group_size", "mean", "sd")

#: flag names with their meaning (documented in docs/numbers.md)
FLAGS = {
    "percent_mismatch": "a percentage does not match its count and group size",
    "sd_may_be_se": "the dispersion is labelled SE/SEM (or the paper reports mean ± SEM): an SE read as an SD",
    "arms_swapped": "the source lists the comparator before the intervention (read by arm name, not by order)",
    "figure_caption_only": "the numbers come only from a figure caption",
    "llm_number_rejected": "the LLM returned a number that the selected text does not contain (dropped)",
    "ambiguous_percent": "events could not be derived from a percentage exactly (several counts round to it)",
    "pooled_arm": "an arm pools several groups: events and group size summed over its groups, no pooled mean or SD",
}


class Value(StrictModel):
    """One number for one arm, with its provenance and the verbatim text it was read from."""

    value: float
    text: str
    source: ValueSource
    unit_id: str | None = None
    scope: Literal["body", "abstract"] | None = None
    start: int | None = None
    end: int | None = None
    table: str | None = None
    row: int | None = None
    col: int | None = None
    derived: str | None = Field(None, description="the formula, when the value is derived from others")


class Arm(StrictModel):
    """The numbers of one arm; a field left None is not reported."""

    label: str
    events: Value | None = None
    group_size: Value | None = None
    mean: Value | None = None
    sd: Value | None = None


class Effect(StrictModel):
    """An effect size for the intervention vs the comparator with its 95% CI (ratios on their own scale)."""

    measure: Measure
    value: float
    ci_low: float
    ci_high: float
    se: float = Field(description="standard error on the analysis scale (log scale for OR and RR)")
    log_scale: bool = False
    method: str = Field(description="the library function that computed it")


class NumbersResult(StrictModel):
    """The result of ``claimtrace numbers`` for one paper and one ICO."""

    schema_version: str = SCHEMA_VERSION
    doc: str
    intervention: str
    comparator: str
    outcome: str
    extractor: Literal["offline", "llm"] = "offline"
    outcome_type: OutcomeType
    arms: dict[Literal["intervention", "comparator"], Arm]
    not_reported: list[str] = Field(default_factory=list, description="'arm.field' values that are not reported")
    effects: list[Effect] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list, description="ids of the units and table rows used")


class Study(StrictModel):
    """One line of ``claimtrace meta``'s input: a study's effect (yi on the analysis scale, its variance)."""

    id: str
    label: str | None = None
    yi: float
    vi: float


class PooledEstimate(StrictModel):
    """A pooled estimate (analysis scale and, for ratio measures, back-transformed)."""

    model: str
    estimate: float
    se: float
    ci_low: float
    ci_high: float
    pi_low: float | None = None
    pi_high: float | None = None


class MetaResult(StrictModel):
    """The result of ``claimtrace meta``."""

    schema_version: str = SCHEMA_VERSION
    k: int
    measure: str
    ratio: bool
    fixed: PooledEstimate
    random: list[PooledEstimate]
    tau2: dict[str, float]
    q: float
    df: int
    p_q: float
    i2: float
    studies: list[Study]
    method: str
    plots: list[str] = Field(default_factory=list)
