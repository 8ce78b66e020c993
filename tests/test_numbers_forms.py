"""Forms of ICO phrases and sentences that hold across trials (``claimtrace.numbers.forms``, issue 29): lists of
outcomes, arms that pool groups, abbreviations a paper defines, "from X to Y" and bare "X vs Y" means, on a
fixture made by the project (tests/data/numbers/trial_forms.xml). Each case checks an abstention too."""

from __future__ import annotations

from claimtrace.documents import load_document
from claimtrace.numbers.extract import extract_numbers
from claimtrace.numbers.forms import bare_means, doc_abbreviations, outcome_parts, pooled_parts
from claimtrace.numbers.model import NumbersResult
from conftest import REPO

DATA = REPO / "tests" / "data" / "numbers"


def numbers(intervention: str, comparator: str, outcome: str) -> NumbersResult:
    return extract_numbers(load_document(DATA / "trial_forms.xml"), intervention, comparator, outcome)


def values(res: NumbersResult, field: str) -> tuple[float | None, float | None]:
    i, c = (getattr(res.arms[a], field) for a in ("intervention", "comparator"))
    return (i.value if i else None, c.value if c else None)


def test_outcome_parts_split_a_list_outside_brackets() -> None:
    assert outcome_parts("Total sleep time and sleep efficiency") == ["Total sleep time", "sleep efficiency"]
    assert outcome_parts("the mean blood pressure, heart rate, or SpO2")[0] == "the mean blood pressure"
    assert outcome_parts("pain (at rest or on movement)") == ["pain (at rest or on movement)"]


def test_pooled_parts_need_two_group_labels_or_an_or_outside_brackets() -> None:
    assert pooled_parts("50 µg fentanyl in group 2, and 0.5 mg/kg ketamine in group 3") == [
        "50 µg fentanyl in group 2", "0.5 mg/kg ketamine in group 3"]
    assert pooled_parts("metformin or pioglitazone") == ["metformin", "pioglitazone"]
    assert pooled_parts("injection (filler or neurotoxin) plus vapocoolant") == []
    assert pooled_parts("control group, which received standard care") == []


def test_doc_abbreviations_spell_their_words_initials() -> None:
    got = doc_abbreviations("the Experimental group (EG) or the Control Group (CG); high-fat diet [HFD]; data (DATA)")
    assert got == {"EG": "Experimental group", "CG": "Control Group", "HFD": "high-fat diet"}


def test_bare_means_leave_out_counts_doses_and_medians() -> None:
    got = bare_means("Mean time was 9.8 min for drug A and 14.3 min for drug B (95% CI 2.8 to 5.7; p < 0.001).")
    assert [g.mean for g in got] == [9.8, 14.3]
    assert bare_means("A total of 165 participants enrolled: 79 in arm A and 86 in arm B.") == []
    assert bare_means("The median time was 12 days in arm A and 20 days in arm B.") == []
    assert bare_means("The dose of 600 mg increased levels 2.2-fold compared with placebo.") == []
    assert [g.mean for g in bare_means("Pain fell from 6.4 to 2.4 in arm A and from 6.3 to 2.2 in arm B.")] == [2.4, 2.2]


def test_bare_means_in_a_sentence_are_the_arms_means() -> None:
    res = numbers("telephone consultation", "clinic consultation", "mean consultation time")
    assert values(res, "mean") == (9.8, 14.3) and values(res, "sd") == (None, None)
    m = res.arms["intervention"].mean
    assert m is not None and m.source == "text" and m.text == "9.8"
    # medians are not means: the same shape with "median" abstains
    assert values(numbers("telephone consultation", "clinic consultation", "waiting"), "mean") == (None, None)


def test_from_to_in_two_sentences_gives_the_final_values() -> None:
    res = numbers("telephone consultation", "clinic consultation", "mean pain score")
    assert values(res, "mean") == (2.4, 4.2) and values(res, "sd") == (0.9, 1.0)


def test_abbreviated_arm_columns_and_a_section_row_in_the_header() -> None:
    res = numbers("experimental programme", "control condition", "HbA1c")
    assert values(res, "mean") == (7.1, 7.9) and values(res, "group_size") == (30, 30)


def test_a_pooled_arm_sums_counts_and_abstains_on_means() -> None:
    res = numbers("drug in group 1", "drug in group 2 or group 3", "nausea")
    assert values(res, "events") == (4, 8) and values(res, "group_size") == (20, 40)
    assert "pooled_arm" in res.flags and res.arms["comparator"].events.source == "derived"  # type: ignore[union-attr]
    cont = numbers("drug in group 1", "drug in group 2 or group 3", "heart rate")
    assert values(cont, "mean") == (72, None) and values(cont, "group_size") == (20, 40)


def test_bare_means_leave_out_times_ordinals_p_values_and_differences() -> None:
    got = bare_means("The mean scores at 1-hour post-operatively for the experimental group and control group are "
                     "1.86 and 2.16, respectively, with P-value of 0.099.")
    assert [g.mean for g in got] == [1.86, 2.16]
    got = bare_means("Scores on the 6th day for 3 days were 1.6 in arm A and 3.6 in arm B, P value of 0.001.")
    assert [g.mean for g in got] == [1.6, 3.6]
    got = bare_means("Costs were £35.41 for arm A compared with £51.12 for arm B, difference £15.71.")
    assert [g.mean for g in got] == [35.41, 51.12]


def test_from_to_lists_give_each_arms_final_value() -> None:
    # a unit of two words between "from X" and "to Y"; a second pair that continues the list without "from"
    assert [r.mean for r in bare_means("Pain scores decreased from 6.4 to 2.4 in the closed capsule group and "
                                       "6.3 to 2.2 in the control group.")] == [2.4, 2.2]
    got = extract_numbers(load_document(DATA / "trial_forms.xml"), "telephone", "clinic", "mean pain score")
    assert values(got, "mean") == (2.4, 4.2)
    # a difference is still not an arm's value
    assert bare_means("The reduction was 4.3 in group A, vs 2.1 in group B.") == []
