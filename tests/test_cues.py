"""The one home of significance, direction and negation cues, and the layers that read it agreeing."""

from __future__ import annotations

import pytest

from claimtrace import cues
from claimtrace.conclude.offline import _stat_significance
from claimtrace.evaluate.components import DeterministicParser
from claimtrace.graph.offline import clause_status
from claimtrace.stats import analyze


@pytest.mark.parametrize(
    ("comparator", "p", "expected"),
    [
        ("<", 0.001, True), ("<", 0.05, True), ("<", 0.10, None), ("<=", 0.05, True), ("≤", 0.01, True),
        ("=", 0.049, True), ("=", 0.05, True), ("=", 0.051, False), (">", 0.05, False), (">", 0.01, None),
        ("≥", 0.2, False), ("ns", None, False), (None, 0.01, None), ("=", None, None),
    ],
)
def test_p_significance_is_one_rule(comparator: str | None, p: float | None, expected: bool | None) -> None:
    assert cues.p_significance(comparator, p) is expected


def test_p_significance_follows_alpha() -> None:
    assert cues.p_significance("=", 0.03, alpha=0.01) is False
    assert cues.p_significance("<", 0.01, alpha=0.01) is True


def test_written_p_values_reads_scientific_notation() -> None:
    assert cues.written_p_values("p = 2 x 10-5 and P<.001, p-value = 0.3") == [("=", 2e-5), ("<", 0.001), ("=", 0.3)]


def test_stated_significance_and_direction_of_real_wording() -> None:
    assert cues.stated_significance("Pain was significantly lower in the active group (p < .001).") is True
    assert cues.stated_significance("There was no significant difference between groups.") is False
    assert cues.stated_significance("Scores rose, t(28) = 1.10, p = .28.") is False
    assert cues.stated_significance("The patients were followed for a year.") is None
    assert cues.stated_direction("Mortality was reduced with treatment.") == "decrease"
    assert cues.stated_direction("Higher doses led to lower pressure.") == "increase"
    assert cues.stated_direction("Outcomes were similar in both arms.") == "none"
    assert cues.stated_direction("Participants completed the survey.") is None


@pytest.mark.parametrize("text", [
    "The difference between the groups was n.s. after adjustment.",
    "Weight did not change over the trial (n.s.).",
    "Blood pressure changed, ns, in the placebo arm.",
])
def test_ns_abbreviation_is_a_null_result_in_every_layer(text: str) -> None:
    # the component parser used to miss "n.s." followed by a space or a bracket (its pattern wanted a word
    # boundary after the final dot); the graph extractor's form of the cue, now shared, reads it
    rels = DeterministicParser().parse(text).relationships
    assert rels and all(r.significant is False for r in rels)
    assert clause_status(text) == "null"
    assert cues.NULL_STATEMENT.search(text) or cues.NS_ABBREV.search(text)


def test_p_at_exactly_alpha_reads_the_same_in_every_layer() -> None:
    # "p = .05" was significant to the conclusion method and the statistics engine, but not to the graph
    # extractor and the component parser (p < alpha there): one rule now
    text = "Anxiety predicted sleep quality, r(98) = .20, p = .05."
    assert clause_status(text) == "validated"
    assert DeterministicParser().parse(text).relationships[0].significant is True
    sig, _, how = _stat_significance(analyze(text), text)
    assert sig is True and how == ["p = 0.05"]


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("The difference was NS.", True),
        ("Group differences (NS) in age.", True),
        ("n.s. for all contrasts", True),
        ("p < .05 in both arms", True),
        ("INJECTIONS WERE GIVEN TWICE DAILY", False),
        ("SYMPTOMS AND SIGNS OF INFECTIONS", False),
        ("GENES AND PROTEINS", False),
    ],
)
def test_p_mention_reads_ns_as_a_word_only(text: str, mentions: bool) -> None:
    assert bool(cues.P_MENTION.search(text)) is mentions
