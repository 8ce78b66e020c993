"""Tests that kill three deliberate bugs the suite let through (issue 18):

- the LLM cache key ignoring the JSON schema (a cached answer served for another schema);
- the offline conclusion method reading a ratio's direction the wrong way round;
- the statistics engine's check that a CI is centred on its estimate (log scale for ratios).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from claimtrace.conclude.model import Question
from claimtrace.conclude.offline import Arms, read_sentence
from claimtrace.conclude.papers import Passage
from claimtrace.llm import LLMClient, cache_key, load_settings
from claimtrace.retrieval.units import Unit
from claimtrace.stats import analyze
from llm_fault_server import FaultServer

SENTENCE = "Treated animals gained more weight, t(98) = 2.45, p = .016."


class StatFields(BaseModel):
    """The fields of one statistic."""

    test: str
    df: str
    statistic: str
    p: str


class StatFieldsDescribed(BaseModel):
    """The same fields, with descriptions: another JSON schema an answer to the first also satisfies."""

    test: str = Field(description="the test's letter")
    df: str = Field(description="degrees of freedom")
    statistic: str = Field(description="the test statistic")
    p: str = Field(description="the p-value as written")


# ---- the LLM cache key ------------------------------------------------------------------------

def test_cache_key_changes_with_the_schema_alone() -> None:
    msgs = [{"role": "user", "content": SENTENCE}]
    params = {"temperature": 0.0, "seed": 0, "max_tokens": 64}
    a = cache_key("http://x/v1", "m", msgs, params, StatFields.model_json_schema())
    b = cache_key("http://x/v1", "m", msgs, params, StatFieldsDescribed.model_json_schema())
    none = cache_key("http://x/v1", "m", msgs, params, None)
    assert len({a, b, none}) == 3
    assert a == cache_key("http://x/v1/", "m", msgs, dict(params), StatFields.model_json_schema())


def test_a_cached_answer_is_not_served_for_another_schema(tmp_path: Path) -> None:
    with FaultServer() as srv:
        settings = load_settings(base_url=srv.url, model="fake-model", cache_dir=tmp_path, env={})
        with LLMClient(settings) as client:
            first = client.structured("statistic_fields", {"sentence": SENTENCE}, StatFields, task="extraction")
            assert first.ok and not first.cached
            again = client.structured("statistic_fields", {"sentence": SENTENCE}, StatFields, task="extraction")
            assert again.cached
            other = client.structured("statistic_fields", {"sentence": SENTENCE}, StatFieldsDescribed,
                                      task="extraction")
            assert other.ok and not other.cached
        chats = srv.chat_requests
        assert len(chats) == 2
        sent = chats[1].response_format
        assert sent is not None and "the p-value as written" in str(sent)


# ---- the offline conclusion method: a ratio's direction -------------------------------------------

def _reading(text: str) -> tuple[bool | None, int, list[str]]:
    q = Question(intervention="drug X", comparator="placebo", outcome="remission")
    unit = Unit(id="p1.s1", text=text, scope="body", start=0, end=len(text), paragraph_id="p1")
    rd = read_sentence(q, Arms.from_question(q), Passage(paper=0, unit=unit, score=1.0))
    return rd.significant, rd.direction, rd.how


@pytest.mark.parametrize(
    ("text", "direction", "label"),
    [
        ("For remission, drug X compared with placebo gave an odds ratio of 0.45 (95% CI 0.30 to 0.68).", -1,
         "ratio 0.45"),
        ("For remission, drug X compared with placebo gave an odds ratio of 2.10 (95% CI 1.40 to 3.15).", 1,
         "ratio 2.1"),
        ("Remission with drug X versus placebo: HR 0.62 (95% CI 0.48-0.80).", -1, "ratio 0.62"),
    ],
)
def test_a_significant_ratio_gives_the_direction(text: str, direction: int, label: str) -> None:
    sig, d, how = _reading(text)
    assert sig is True
    assert d == direction
    assert any(h.startswith(label) for h in how), how


def test_a_ratio_whose_ci_includes_one_gives_no_direction() -> None:
    sig, d, _ = _reading("For remission, drug X compared with placebo gave an odds ratio of 0.85 (95% CI 0.60 to 1.20).")
    assert sig is False and d == 0


# ---- the statistics engine: is the CI centred on the estimate? -------------------------------------

def _one(text: str):  # type: ignore[no-untyped-def]
    res = [r for r in analyze(text) if r.ci_low is not None]
    assert len(res) == 1, res
    return res[0]


@pytest.mark.parametrize("text", [
    "The mean difference was 2.0 (95% CI 1.0 to 3.0).",
    "OR = 2.00, 95% CI 1.00 to 4.00",  # symmetric on the log scale, not on the linear one
    "HR 0.50 (95% CI 0.25-1.00)",
    "The odds ratio was 3.1 (95% CI 1.6 to 6.0).",
])
def test_a_centred_ci_is_not_flagged(text: str) -> None:
    r = _one(text)
    assert r.ci_consistent is True, r.flags
    assert "CI not centred on the point estimate" not in r.flags


@pytest.mark.parametrize("text", [
    "The mean difference was 2.0 (95% CI 1.8 to 4.0).",
    "OR = 2.00, 95% CI 1.90 to 8.00",
    "OR = 3.00, 95% CI 1.20 to 4.80",  # symmetric on the linear scale only: a ratio is not
])
def test_an_off_centre_ci_is_flagged(text: str) -> None:
    r = _one(text)
    assert r.ci_consistent is False
    assert "CI not centred on the point estimate" in r.flags


def test_a_point_estimate_within_rounding_of_its_ci_is_inside() -> None:
    # 2.0 and 2.05 differ by less than the rounding of "2.0" and "3.0" (± .05 each): inside, only off-centre
    r = _one("The mean difference was 2.0 (95% CI 2.05 to 3.0).")
    assert r.flags == ["CI not centred on the point estimate"]
    # 2.0 lies outside 2.3 to 3.0 even with rounding
    r = _one("The mean difference was 2.0 (95% CI 2.3 to 3.0).")
    assert r.flags == ["point estimate outside its CI"]
