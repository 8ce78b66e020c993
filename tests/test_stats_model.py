"""The statistics engine's one door to pydantic's instance layout (claimtrace.stats.model.built / field_values)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from claimtrace.stats import model as sm
from claimtrace.stats import parse

SENTENCE = "Treated animals gained more weight, t(98) = 2.45, p = .016, d = 0.49 (M = 12.1, SD = 3.2)."


def test_the_fast_layout_is_the_installed_pydantic_layout() -> None:
    """The direct fill is used only where pydantic's slots are the four it was written for."""
    assert (tuple(BaseModel.__slots__) == sm.PYDANTIC_LAYOUT) is sm.FAST_LAYOUT
    assert sm.FAST_LAYOUT, "pydantic changed its instance layout: the engine runs on model_construct (slower)"


def _dumps() -> list[dict[str, object]]:
    return [r.model_dump(mode="json") | {"fields_set": sorted(r.model_fields_set)} for r in parse(SENTENCE)]


def test_built_results_equal_validated_ones() -> None:
    """A result the parser builds without validation is what pydantic's validating constructor makes of it."""
    for r in parse(SENTENCE, descriptives=True):
        again = sm.StatResult.model_validate(r.model_dump())
        assert again == r and again.model_dump_json() == r.model_dump_json()
        for span in r.spans.values():
            assert sm.ComponentSpan.model_validate(span.model_dump()) == span


def test_the_public_api_fallback_gives_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under an unknown layout (FAST_LAYOUT off) the engine's output is unchanged, fields set included."""
    from claimtrace.stats import analyze

    fast = [r.model_dump_json() for r in analyze(SENTENCE)] + [str(_dumps())]
    monkeypatch.setattr(sm, "FAST_LAYOUT", False)
    slow = [r.model_dump_json() for r in analyze(SENTENCE)] + [str(_dumps())]
    assert slow == fast
    assert analyze(SENTENCE)[0].consistent is True
