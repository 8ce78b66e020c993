"""Scoring against Yun et al.'s (2024) rct-numeric annotations, with their definitions.

Their evaluation (hyesunyun/llm-meta-analysis, ``evaluation/calculate_metrics.py``, read, not copied):
an empty reference field is "x" (not available); a field is correct when output == reference (so an
abstention is correct exactly when the reference is empty too); an item is correct when all its fields
are (4 for binary: events and group size per arm; 6 for continuous: mean, SD and group size per arm);
the binary task is scored on the items whose reference outcome type is binary, likewise continuous.
Point estimates: log OR (binary) and SMD (continuous) from the output and from the reference, MAE over
items where both exist; "computable" is the share of items whose output gives the estimate.
"""

from __future__ import annotations

import math
from typing import Any

from claimtrace.numbers.effects import continuous_effects, log_odds_ratio
from claimtrace.numbers.model import NumbersResult

BINARY_FIELDS = ("intervention_events", "intervention_group_size", "comparator_events", "comparator_group_size")
CONTINUOUS_FIELDS = ("intervention_mean", "intervention_standard_deviation", "intervention_group_size",
                     "comparator_mean", "comparator_standard_deviation", "comparator_group_size")
_ARM_FIELD = {"events": "events", "group_size": "group_size", "mean": "mean", "standard_deviation": "sd"}


def reference_value(v: Any) -> float | str:
    """A reference field as a number, or "x" when empty."""
    if v is None or (isinstance(v, str) and not v.strip()):
        return "x"
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v).strip()


def output_fields(res: NumbersResult) -> dict[str, float | str]:
    """The result in the dataset's field names ("x" where not reported)."""
    out: dict[str, float | str] = {}
    for arm in ("intervention", "comparator"):
        a = res.arms[arm]
        for name, attr in _ARM_FIELD.items():
            v = getattr(a, attr)
            out[f"{arm}_{name}"] = round(v.value, 6) if v is not None else "x"
    return out


def same(a: float | str, b: float | str) -> bool:
    """Exact match (numbers compared as numbers)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-6)
    return a == b


def point_estimate(fields: dict[str, float | str], kind: str) -> float | None:
    """log OR (binary) or SMD (continuous) from dataset-style fields, None when not computable."""
    def f(k: str) -> float | None:
        v = fields.get(k)
        return v if isinstance(v, float) else None
    if kind == "binary":
        e1, n1, e2, n2 = (f(k) for k in BINARY_FIELDS)
        if None in (e1, n1, e2, n2):
            return None
        assert e1 is not None and n1 is not None and e2 is not None and n2 is not None
        return log_odds_ratio(e1, n1, e2, n2)
    m1, s1, n1, m2, s2, n2 = (f(k) for k in CONTINUOUS_FIELDS)
    if None in (m1, s1, n1, m2, s2, n2):
        return None
    assert m1 is not None and s1 is not None and n1 is not None and m2 is not None and s2 is not None and n2 is not None
    eff = continuous_effects(m1, s1, n1, m2, s2, n2)
    return eff[1].value if eff else None


def score_item(ref: dict[str, Any], res: NumbersResult) -> dict[str, Any]:
    """Per-field correctness, all-fields correctness and both point estimates for one item."""
    kind = ref["outcome_type"]
    fields = BINARY_FIELDS if kind == "binary" else CONTINUOUS_FIELDS
    out = output_fields(res)
    refv = {k: reference_value(ref.get(k)) for k in set(BINARY_FIELDS) | set(CONTINUOUS_FIELDS)}
    correct = {k: same(out[k], refv[k]) for k in fields}
    return {"outcome_type": kind, "predicted_type": res.outcome_type, "correct": correct,
            "all_correct": all(correct.values()), "estimate": point_estimate(out, kind),
            "reference_estimate": point_estimate(refv, kind), "output": out}
