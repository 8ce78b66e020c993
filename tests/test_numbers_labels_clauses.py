"""Group labels a paper gives its arms, comparison clauses and parallel size lists (``claimtrace.numbers.forms``,
issue 29), on a fixture the project made (tests/data/numbers/trial_labels_clauses.xml). Each case checks an
abstention or a wrong reading it must not make too."""

from __future__ import annotations

from claimtrace.documents import load_document
from claimtrace.numbers.extract import extract_numbers
from claimtrace.numbers.forms import comparison_pairs, group_labels, percent_counts
from claimtrace.numbers.match import Terms
from claimtrace.numbers.model import NumbersResult
from conftest import REPO

DOC = REPO / "tests" / "data" / "numbers" / "trial_labels_clauses.xml"


def numbers(outcome: str, intervention: str = "copper insole", comparator: str = "foam insole") -> NumbersResult:
    return extract_numbers(load_document(DOC), intervention, comparator, outcome)


def arm_values(res: NumbersResult, field: str) -> tuple[float | None, float | None]:
    i, c = (getattr(res.arms[a], field) for a in ("intervention", "comparator"))
    return (i.value if i else None, c.value if c else None)


def test_comparison_pairs_give_each_listed_outcome_its_clause() -> None:
    text = "TST (321.8 minutes vs. 422.7 minutes, p<0.01) and sleep efficiency (72.5% vs. 91.6%, p<0.01) fell"
    pairs = comparison_pairs(text)
    assert [(r1.mean, r2.mean) for _, r1, r2 in pairs[:1]] == [(321.8, 422.7)]
    assert [(r1.percent, r2.percent) for _, r1, r2 in pairs[1:]] == [("72.5", "91.6")]
    assert "sleep efficiency" in text[pairs[1][0]:pairs[1][1].start] and "TST" not in text[pairs[1][0]:]
    assert comparison_pairs("the mean was 4.1 ± 1.0 vs. 3.9 ± 0.8 (t = 2.1 vs. 1.9)")[0][1].sd == 1.0
    assert comparison_pairs("p = 0.04 vs. 0.03 in the second model") == []
    assert comparison_pairs("the median was 4 vs. 7 days") == []


def test_group_labels_go_to_the_arm_named_before_the_brackets() -> None:
    arms = {"intervention": Terms.of("copper insole"), "comparator": Terms.of("foam insole")}
    labels = group_labels("22 wore a copper insole (group A), while 18 wore a foam insole (group B).", arms)
    assert labels["intervention"].search("for groups A and B").group(0) == "groups A"
    assert labels["comparator"].search("for groups A and B") is not None
    assert labels["comparator"].search("in group A") is None
    assert group_labels("the insoles (group A) were given out", arms) == {}


def test_arms_named_by_their_labels_in_sentences_running_on() -> None:
    res = numbers("mean heel pain score")
    assert arm_values(res, "mean") == (3.2, 5.1) and arm_values(res, "sd") == (1.1, 1.3)


def test_a_sentence_listing_outcomes_reads_each_in_its_own_clause() -> None:
    assert arm_values(numbers("walking distance"), "mean") == (812.4, 640.2)
    assert arm_values(numbers("step count"), "mean") == (5120.0, 4410.0)
    assert arm_values(numbers("swelling of the ankle"), "mean") == (None, None)


def test_parallel_size_lists_read_in_the_order_the_arms_are_named() -> None:
    res = numbers("mean heel pain score")
    assert arm_values(res, "group_size") == (20.0, 16.0)
    swapped = numbers("mean heel pain score", intervention="foam insole", comparator="copper insole")
    assert arm_values(swapped, "group_size") == (16.0, 20.0)


def test_percent_counts_read_a_count_of_people_either_way_round() -> None:
    got = percent_counts("the response was 90% (18 patients) vs. 60% (12 patients); 7 children (35%) had none")
    assert [(g.events, g.percent) for g in got] == [(18.0, "90"), (12.0, "60"), (7.0, "35")]
    assert percent_counts("a 90% (18 mg) dose and 60% (12 weeks)") == []
