"""Component parsers behind one interface: the deterministic default and an optional LLM parser,
plus the agreement report between the two."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from claimtrace.documents.model import StrictModel
from claimtrace.errors import ClaimtraceError
from claimtrace.evaluate.components import DeterministicParser
from claimtrace.evaluate.evidence import (
    BINARY_COMPONENTS,
    ComponentParser,
    EvidenceComponents,
    Interval,
    Relationship,
    compare_components,
    micro_evidence,
)
from claimtrace.llm import LLMClient, load_settings

COMPONENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "variables": {"type": "array", "items": {"type": "string"}},
        "relationships": {"type": "array", "items": {
            "type": "object",
            "properties": {"direction": {"type": "string", "enum": ["increase", "decrease", "none", "unknown"]},
                           "significant": {"type": "string", "enum": ["yes", "no", "unstated"]},
                           "variables": {"type": "array", "items": {"type": "string"}}},
            "required": ["direction", "significant", "variables"]}},
        "intervals": {"type": "array", "items": {
            "type": "object",
            "properties": {"level": {"type": "number"}, "low": {"type": "number"}, "high": {"type": "number"}},
            "required": ["low", "high"]}},
        "test_family": {"type": "string"},
        "sample_size": {"type": "string"},
    },
    "required": ["variables", "relationships", "intervals", "test_family", "sample_size"],
}

SYSTEM_PROMPT = (
    "You parse one piece of statistical evidence from a scientific paper into components. Return JSON with: "
    "variables (the measured/manipulated variables, short noun phrases copied from the text); relationships "
    "(one per reported effect: direction increase/decrease/none, significant yes/no/unstated, the variables "
    "involved); intervals (confidence intervals: level in percent, low, high); test_family (one of t, anova, "
    "chi2, fisher, correlation, z, nonparametric, regression, odds ratio, survival, risk ratio, mixed model, "
    "or empty); sample_size (\"N=<n>\" or \"df=<df>\", or empty). Use only what the text states.\n"
    "Example: 'Pain was lower with drug A than placebo (mean difference -1.2, 95% CI -2.0 to -0.4; "
    "t(98) = 2.9, p = .004).' -> {\"variables\": [\"pain\", \"drug A\", \"placebo\"], \"relationships\": "
    "[{\"direction\": \"decrease\", \"significant\": \"yes\", \"variables\": [\"pain\", \"drug A\"]}], "
    "\"intervals\": [{\"level\": 95, \"low\": -2.0, \"high\": -0.4}], \"test_family\": \"t\", "
    "\"sample_size\": \"df=98\"}"
)

FAMILIES = ("t", "anova", "chi2", "fisher", "correlation", "z", "nonparametric", "regression", "odds ratio",
            "survival", "risk ratio", "mixed model")

#: ``complete(system, user, schema) -> parsed JSON object``
JsonCall = Callable[[str, str, dict[str, Any]], dict[str, Any]]


def components_from_json(obj: dict[str, Any], text: str, parser: str = "llm") -> EvidenceComponents:
    """Validate an LLM answer against the source text and turn it into components."""
    low = text.lower()
    variables = [str(v).strip() for v in obj.get("variables") or [] if str(v).strip()]
    variables = [v for v in variables if v.lower() in low or all(w in low for w in v.lower().split())]
    rels = []
    for r in obj.get("relationships") or []:
        if not isinstance(r, dict):
            continue
        d = r.get("direction")
        sig = {"yes": True, "no": False}.get(str(r.get("significant")).lower())
        rels.append(Relationship(direction=d if d in ("increase", "decrease", "none") else None, significant=sig,
                                 variables=[str(v) for v in r.get("variables") or []]))
    rels = [r for r in rels if r.direction is not None or r.significant is not None]
    ivs = []
    for iv in obj.get("intervals") or []:
        try:
            ivs.append(Interval(level=float(iv["level"]) if iv.get("level") is not None else None,
                                low=float(iv["low"]), high=float(iv["high"])))
        except (KeyError, TypeError, ValueError):
            continue
    fam = str(obj.get("test_family") or "").strip().lower()
    size = str(obj.get("sample_size") or "").replace(" ", "")
    size = size if size[:2].lower() in ("n=", "df") and any(ch.isdigit() for ch in size) else ""
    if size.lower().startswith("n="):
        size = "N=" + size[2:]
    return EvidenceComponents(variables=variables, relationships=rels, intervals=ivs,
                              test_family=[fam] if fam in FAMILIES else [], sample_size=[size] if size else [],
                              parser=parser)


class LLMParser:
    """Parses components with an LLM through a JSON-returning call (schema-constrained)."""

    name = "llm"

    def __init__(self, call: JsonCall) -> None:
        self.call = call

    def parse(self, text: str) -> EvidenceComponents:
        """The five component types of ``text`` as the LLM reads them (validated against the text)."""
        if not text or not text.strip():
            return EvidenceComponents(parser=self.name)
        obj = self.call(SYSTEM_PROMPT, f"Evidence:\n{text.strip()}", COMPONENT_SCHEMA)
        return components_from_json(obj if isinstance(obj, dict) else {}, text, self.name)


class _LLMRelationship(BaseModel):
    direction: str = "unknown"
    significant: str = "unstated"
    variables: list[str] = []


class _LLMInterval(BaseModel):
    level: float | None = None
    low: float
    high: float


class LLMComponents(BaseModel):
    """The JSON the LLM parser asks for."""

    variables: list[str] = []
    relationships: list[_LLMRelationship] = []
    intervals: list[_LLMInterval] = []
    test_family: str = ""
    sample_size: str = ""


PROMPT_NAME = "evaluate_evidence_components"


def llm_json_call(**settings: Any) -> JsonCall:
    """A JSON call over the project's LLM layer (``LLMClient.structured`` with the packaged prompt
    ``evaluate_evidence_components``); settings as ``claimtrace.llm.load_settings`` takes them."""

    client = LLMClient(load_settings(**settings))  # raises LLMNotConfiguredError without an LLM

    def call(system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
        text = user.split("\n", 1)[-1]
        res = client.structured(PROMPT_NAME, {"evidence": text}, LLMComponents, task="evaluation")
        if not res.ok or res.value is None:
            raise ClaimtraceError(f"LLM component parse failed: {res.error}")
        return res.value.model_dump()

    return call


def get_parser(name: str = "deterministic", **llm_settings: Any) -> ComponentParser:
    """A component parser by name: ``deterministic`` (default) or ``llm``."""
    if name == "deterministic":
        return DeterministicParser()
    if name == "llm":
        return LLMParser(llm_json_call(**llm_settings))
    raise ClaimtraceError(f"unknown component parser {name!r}; choose deterministic or llm")


class AgreementReport(StrictModel):
    """How often two parsers agree, per component type, on a sample of evidence texts."""

    n: int
    parser_a: str
    parser_b: str
    #: per component type: micro F1 of parser A's items against parser B's (1.0 = identical sets)
    component_f1: dict[str, float]
    #: per binary component type: share of texts where both give the same verdict (both absent, or match)
    binary_agreement: dict[str, float]
    overall_f1: float


def agreement(texts: Sequence[str], a: ComponentParser, b: ComponentParser) -> AgreementReport:
    """Compare two parsers on the same texts (B is treated as the reference)."""

    scores = []
    same = dict.fromkeys(BINARY_COMPONENTS, 0)
    for t in texts:
        s = compare_components(a.parse(t), b.parse(t))
        scores.append(s)
        for c in BINARY_COMPONENTS:
            cc = s.components[c]
            same[c] += int(cc.fp == 0 and cc.fn == 0)
    tot = micro_evidence(scores)
    comp_f1 = {}
    for name, cnt in tot.components.items():
        denom = 2 * cnt.tp + cnt.fp + cnt.fn
        comp_f1[name] = 2 * cnt.tp / denom if denom else 1.0
    n = len(texts)
    return AgreementReport(n=n, parser_a=a.name, parser_b=b.name, component_f1=comp_f1,
                           binary_agreement={c: same[c] / n if n else 0.0 for c in BINARY_COMPONENTS},
                           overall_f1=tot.f1)
