"""Data model of study-level conclusions: the question, the answer, its quotes and how it was reached."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from claimtrace.documents.model import StrictModel
from claimtrace.numbers.model import NumbersResult
from claimtrace.schema_version import SCHEMA_VERSION

EI_LABELS = ("significantly increased", "significantly decreased", "no significant difference")
INSUFFICIENT = "insufficient evidence"
Label = Literal["significantly increased", "significantly decreased", "no significant difference",
                "insufficient evidence"]
Conclusion = Literal["favours intervention", "favours comparator", "no difference", "unknown direction",
                     "insufficient evidence"]
Method = Literal["urca", "rag", "uniform", "raptor", "abstracts", "none", "offline"]
METHODS: tuple[str, ...] = ("urca", "rag", "uniform", "raptor", "abstracts", "none", "offline")
LLM_METHODS: tuple[str, ...] = ("urca", "rag", "uniform", "raptor", "abstracts", "none")
PolaritySource = Literal["user", "llm", "none"]
ClusterMethod = Literal["none", "pca-gmm", "umap-gmm"]


class Question(StrictModel):
    """A clinical question: the intervention's effect on the outcome, relative to the comparator."""

    intervention: str
    comparator: str
    outcome: str

    def query(self) -> str:
        """The retrieval query (outcome first: result sentences name the outcome most)."""
        return f"{self.outcome} {self.intervention} {self.comparator}"


class Quote(StrictModel):
    """A supporting quote; ``located`` quotes carry offsets into a paper's body or abstract text."""

    text: str
    paper: str
    paper_index: int
    located: bool = True
    scope: Literal["body", "abstract"] | None = None
    start: int | None = None
    end: int | None = None
    sentence_ids: list[str] = Field(default_factory=list)
    match: str | None = None  # exact / normalised / fuzzy / retrieved


class Estimate(StrictModel):
    """An effect estimate with its confidence interval, parsed by the statistics engine."""

    paper: str
    text: str
    value: float
    ci_low: float
    ci_high: float
    ratio: bool = False
    p_value: float | None = None


class ClusterInfo(StrictModel):
    """How the retrieved units were clustered (chosen automatically unless forced), and why."""

    method: ClusterMethod
    n_units: int
    n_clusters: int
    reason: str
    sizes: list[int] = Field(default_factory=list)


class RetrievalInfo(StrictModel):
    """What each paper contributed: the per-paper quota k_s (uniform) and the units taken from it."""

    strategy: Literal["uniform", "pooled", "abstracts", "none", "tree"]
    k: int
    per_paper_quota: int | None = None
    units_per_paper: list[int] = Field(default_factory=list)


class ConcludeResult(StrictModel):
    """A study's conclusion for a question: EI label, conclusion, rationale, quotes and provenance."""

    schema_version: str = SCHEMA_VERSION
    method: Method
    question: Question
    papers: list[str]
    label: Label
    conclusion: Conclusion
    rationale: str
    quotes: list[Quote] = Field(default_factory=list)
    unlocated_quotes: list[Quote] = Field(default_factory=list)
    higher_is_better: bool | None = None
    polarity_source: PolaritySource = "none"
    retrieval: RetrievalInfo | None = None
    clustering: ClusterInfo | None = None
    estimates: list[Estimate] = Field(default_factory=list)
    llm_invocations: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    numbers: NumbersResult | None = Field(None, description="conclude --with-numbers: the extracted per-arm numbers and effect")

    def record(self) -> dict[str, Any]:
        """The batch line fields: label, conclusion, rationale, quotes (+ provenance)."""
        data = self.model_dump(mode="json")
        return {
            "schema_version": data["schema_version"],
            "label": data["label"],
            "conclusion": data["conclusion"],
            "rationale": data["rationale"],
            "quotes": data["quotes"],
            "unlocated_quotes": data["unlocated_quotes"],
            "method": data["method"],
            "higher_is_better": data["higher_is_better"],
            "polarity_source": data["polarity_source"],
            "retrieval": data["retrieval"],
            "clustering": data["clustering"],
            "estimates": data["estimates"],
            "warnings": data["warnings"],
        } | ({"numbers": data["numbers"]} if self.numbers is not None else {})


def conclusion_for(label: str, higher_is_better: bool | None) -> Conclusion:
    """The conclusion implied by an EI label and the outcome's polarity (None: unknown direction)."""
    if label == "no significant difference":
        return "no difference"
    if label not in ("significantly increased", "significantly decreased"):
        return "insufficient evidence"
    if higher_is_better is None:
        return "unknown direction"
    up = label == "significantly increased"
    return "favours intervention" if up == higher_is_better else "favours comparator"
