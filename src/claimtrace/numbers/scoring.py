"""Scoring against Yun et al.'s (2024) rct-numeric annotations, with their definitions.

Their evaluation (hyesunyun/llm-meta-analysis, ``evaluation/calculate_metrics.py``, read, not copied):
an empty reference field is "x" (not available); a field is correct when output == reference (so an
abstention is correct exactly when the reference is empty too); an item is correct when all its fields
are (4 for binary: events and group size per arm; 6 for continuous: mean, SD and group size per arm);
the binary task is scored on the items whose reference outcome type is binary, likewise continuous.
Point estimates, as their code computes them (``evaluation/utils.py``): the log OR with 0.5 added to
every cell when one is zero (Haldane–Anscombe), undefined when both arms have no events or both have
only events, or when events exceed the group size; the SMD as (m1 − m2) / √((sd1² + sd2²) / 2), from the
means and SDs alone (no group sizes, no small-sample correction; this differs from the Hedges' g that
``claimtrace numbers`` reports). MAE over items where both the output's and the reference's estimate
exist; "computable" is the share of items whose output gives the estimate. Their MAE interval is
mean ± 1.96 SE; the bench reports a bootstrap interval instead.
"""

from __future__ import annotations

import math
import re
from typing import Any

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


def yun_log_odds_ratio(e1: float, n1: float, e2: float, n2: float) -> float | None:
    """Yun et al.'s log OR: Haldane–Anscombe 0.5 when a cell is zero; None when undefined."""
    if e1 > n1 or e2 > n2 or min(e1, e2) < 0:
        return None
    a, b, c, d = e1, n1 - e1, e2, n2 - e2
    if (a == 0 and c == 0) or (b == 0 and d == 0):
        return None
    if 0 in (a, b, c, d):
        a, b, c, d = a + 0.5, b + 0.5, c + 0.5, d + 0.5
    return math.log((a * d) / (c * b))


def yun_smd(m1: float, sd1: float, m2: float, sd2: float) -> float | None:
    """Yun et al.'s SMD: (m1 − m2) / √((sd1² + sd2²) / 2); None when both SDs are zero."""
    pooled = math.sqrt((sd1**2 + sd2**2) / 2)
    return (m1 - m2) / pooled if pooled > 0 else None


def point_estimate(fields: dict[str, float | str], kind: str) -> float | None:
    """log OR (binary) or SMD (continuous) from dataset-style fields as Yun et al. compute them, None when not computable."""
    def f(k: str) -> float | None:
        v = fields.get(k)
        return v if isinstance(v, float) else None
    if kind == "binary":
        e1, n1, e2, n2 = (f(k) for k in BINARY_FIELDS)
        if e1 is None or n1 is None or e2 is None or n2 is None:
            return None
        return yun_log_odds_ratio(e1, n1, e2, n2)
    m1, s1, _, m2, s2, _ = (f(k) for k in CONTINUOUS_FIELDS)
    if m1 is None or s1 is None or m2 is None or s2 is None:
        return None
    return yun_smd(m1, s1, m2, s2)


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


def _written(v: float, text: str) -> bool:
    s = f"{v:g}"
    return bool(re.search(r"(?<![\d.])" + re.escape(s) + r"(?![\d])", text))


def error_category(field: str, out: float | str, ref: float | str, other_arm_ref: float | str, text: str) -> str:
    """Why a field is wrong: a value where the reference has none, an abstention (the reference written in
    the text or not), the other arm's value, or another value."""
    if ref == "x":
        return "value where the reference is not reported"
    if out == "x":
        return "abstained, reference written in the text" if isinstance(ref, float) and _written(ref, text) \
            else "abstained, reference not written as such (derived by the annotators)"
    if same(out, other_arm_ref):
        return "the other arm's value"
    return "another value (wrong row, outcome or source)"


def error_categories(ref: dict[str, Any], scored: dict[str, Any], text: str) -> dict[str, str]:
    """The error category of each wrong field of a scored item (``text``: the paper's text and tables)."""
    out: dict[str, str] = {}
    for f, ok in scored["correct"].items():
        if ok:
            continue
        other = f.replace("intervention", "@").replace("comparator", "intervention").replace("@", "comparator")
        out[f] = error_category(f, scored["output"][f], reference_value(ref.get(f)), reference_value(ref.get(other)),
                                text)
    return out
