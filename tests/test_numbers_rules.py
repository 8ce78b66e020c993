"""``claimtrace numbers`` offline rules on small fixtures made by the project (tests/data/numbers/): group sizes
from a table's footnote and a "Number of patients" row, zero events from "No X were reported", bare percentages
(two per sentence, "80% vs. 30%", a "respectively" list), stacked sub-tables, a negated column header and the
other arm's column of a two-arm table. Each case also checks an abstention where the rule must not fire."""

from __future__ import annotations

from claimtrace.documents import load_document
from claimtrace.numbers.extract import abbreviations, expand, extract_numbers
from claimtrace.numbers.model import NumbersResult
from conftest import REPO

DATA = REPO / "tests" / "data" / "numbers"


def numbers(fixture: str, intervention: str, comparator: str, outcome: str) -> NumbersResult:
    return extract_numbers(load_document(DATA / fixture), intervention, comparator, outcome)


def values(res: NumbersResult, field: str) -> tuple[float | None, float | None]:
    i, c = (getattr(res.arms[a], field) for a in ("intervention", "comparator"))
    return (i.value if i else None, c.value if c else None)


def test_group_sizes_from_the_chosen_tables_footnote() -> None:
    res = numbers("trial_zero_sizes.xml", "drug Y 50 mg", "placebo", "adverse events - headache")
    assert values(res, "events") == (5, 1)  # the 50 mg column, not the 10 mg one
    # "drug Y (n = 20 per dose) or placebo (n = 40)": each size goes to the arm named before it
    assert values(res, "group_size") == (20, 40)
    size = res.arms["comparator"].group_size
    assert size is not None and size.text == "n = 40" and size.table == "t1"


def test_no_events_reported_gives_zero_in_both_arms() -> None:
    res = numbers("trial_zero_sizes.xml", "drug Y 10 mg", "placebo", "unexpected serious adverse events")
    assert values(res, "events") == (0, 0)
    ev = res.arms["intervention"].events
    assert ev is not None and ev.unit_id == "a1.s1" and ev.text.startswith("No serious adverse events")
    # the same negation does not answer an outcome it does not name
    other = numbers("trial_zero_sizes.xml", "drug Y 10 mg", "placebo", "adverse events - rash")
    assert values(other, "events") == (0, 0) and other.arms["intervention"].events.source == "table"  # type: ignore[union-attr]
    none = numbers("trial_zero_sizes.xml", "drug Y 10 mg", "placebo", "hospital readmission")
    assert values(none, "events") == (None, None)


def test_two_bare_percentages_give_events_with_the_group_sizes() -> None:
    res = numbers("trial_percents.xml", "education programme", "usual information", "readmission within 30 days")
    assert values(res, "group_size") == (50, 40)  # "50 were assigned to the intervention group and 40 to the control group"
    assert values(res, "events") == (22, 24)  # 44% of 50, 60% of 40
    ev = res.arms["intervention"].events
    assert ev is not None and ev.source == "derived" and ev.text == "44%" and "44% × 50" in (ev.derived or "")


def test_percentages_in_the_order_the_arms_are_named() -> None:
    # "more frequent in the intervention group than in the control group (80% vs. 30%)"
    res = numbers("trial_percents.xml", "education programme", "usual information", "response")
    assert values(res, "events") == (40, 12)


def test_percentages_that_no_count_rounds_to_abstain_in_both_arms() -> None:
    res = numbers("trial_percents.xml", "education programme", "usual information", "falls")
    # 33% of 50 is no whole count (16 is 32%, 17 is 34%): neither arm gets events, not just the one that fails
    assert values(res, "events") == (None, None)
    assert "ambiguous_percent" in res.flags


def test_percentages_listed_for_several_outcomes_are_not_read() -> None:
    # "(36 and 40%, respectively)": two outcomes share one % sign; the 40% is not the calm patients' share
    res = numbers("trial_percents.xml", "education programme", "usual information", "patients who were calm")
    assert values(res, "events") == (None, None)


def test_respectively_list_named_from_an_earlier_in() -> None:
    res = numbers("trial_respectively.xml", "drug Z", "placebo", "discontinued due to lack of efficacy")
    assert values(res, "events") == (15, 40)  # 12.5% of 120, 25.0% of 160
    assert values(res, "group_size") == (120, 160)


def test_stacked_sub_tables_are_read_block_by_block() -> None:
    res = numbers("trial_tables.xml", "drug Y", "placebo", "remission")
    assert values(res, "events") == (20, 12) and values(res, "group_size") == (39, 38)
    ev = res.arms["intervention"].events
    assert ev is not None and ev.table == "t1" and ev.text.startswith("20/39")


def test_negated_header_is_the_other_arm_and_sizes_from_a_number_of_patients_row() -> None:
    res = numbers("trial_tables.xml", "patient empowerment booklet", "standard care", "wound infection")
    assert values(res, "events") == (5, 12)  # "No intervention" is the comparator, not the intervention
    assert values(res, "group_size") == (50, 48)  # from the "Number of patients" row
    size = res.arms["comparator"].group_size
    assert size is not None and size.table == "t2" and size.col == 3


def test_the_other_arm_column_of_a_two_arm_table() -> None:
    res = numbers("trial_tables.xml", "Drug W arm (drug W plus carboplatin)", "Control arm (carboplatin as above)",
                  "objective response rate")
    assert values(res, "events") == (15, 5) and values(res, "group_size") == (30, 15)
    # an arm named by one generic word does not make the rest of the table the other arm
    weak = numbers("trial_tables.xml", "drug Q 10 mg", "placebo", "objective response rate")
    assert values(weak, "events") == (None, None)


def test_a_narrower_negation_does_not_answer_a_broader_outcome() -> None:
    # "No serious adverse events were reported" says nothing of adverse events in general
    res = numbers("trial_zero_sizes.xml", "drug Y 10 mg", "placebo", "adverse events")
    assert res.arms["intervention"].events is None or res.arms["intervention"].events.source == "table"
    assert "a1.s1" not in res.context


def test_one_arm_named_the_other_by_its_role_and_equal_group_sizes() -> None:
    # the comparator ("ropivacaine + saline") shares every word with the intervention: the sentence names it
    # only as "the control group"; "two groups of 30 each" gives both sizes
    res = numbers("trial_equal_groups.xml", "ropivacaine + diluted clonidine with saline", "ropivacaine + saline",
                  "duration of sensory block")
    assert values(res, "mean") == (703.83, 556.38) and values(res, "sd") == (42.90, 37.96)
    assert values(res, "group_size") == (30, 30)
    size = res.arms["intervention"].group_size
    assert size is not None and size.unit_id == "a1.s1" and size.text == "30"
    # a size written for one group only is not copied to the other
    one = extract_numbers(load_document(DATA / "trial_percents.xml"), "education programme", "usual information",
                          "response")
    assert values(one, "group_size") == (50, 40)


def test_a_size_per_arm_next_to_arm_specific_sizes_is_not_one_size_for_all() -> None:
    res = numbers("trial_unequal_groups.xml", "provider training", "control", "knowledge score")
    assert values(res, "mean") == (3.2, 2.9)
    assert values(res, "group_size") != (14, 14)  # "14 per arm" was randomised; 12 of the control's were analysed


def test_an_arm_column_named_by_a_word_beats_one_matched_by_a_number() -> None:
    # "10-week yoga program": the total column's header cell "38 ± 10" holds a 10, the yoga column names yoga
    res = numbers("trial_number_in_header.xml", "10-week yoga program", "Control", "pNN50")
    assert values(res, "mean") == (20.7, 19.4) and values(res, "group_size") == (18, 19)


def test_abbreviations_defined_in_a_footnote_name_the_arms_and_the_outcome() -> None:
    doc = load_document(DATA / "trial_abbreviations.xml")
    assert abbreviations(doc.tables[0])["CZP"] == "certolizumab pegol"
    assert expand("PBO + MTX", abbreviations(doc.tables[0])) == "PBO + MTX (placebo; methotrexate)"
    res = extract_numbers(doc, "certolizumab pegol 200 mg", "placebo", "health assessment questionnaire disability index")
    assert values(res, "mean") == (1.2, 1.5) and values(res, "sd") == (0.6, 0.7)
    assert values(res, "group_size") == (393, 199)


def test_another_measure_of_the_outcome_is_not_read_for_it() -> None:
    # the sentence gives the block's duration; the onset is not written: abstain
    res = numbers("trial_wrong_pairing.xml", "ropivacaine + clonidine", "ropivacaine", "onset of sensory block")
    assert values(res, "mean") == (None, None)
    ok = numbers("trial_wrong_pairing.xml", "ropivacaine + clonidine", "ropivacaine", "duration of sensory block")
    assert values(ok, "mean") == (703.8, 556.4)


def test_three_values_with_respectively_are_not_paired_by_nearest_names() -> None:
    # "−15.58 and −14.88 for drug Q 300 and 600 mg/day, respectively, vs −11.61 for placebo": nearest names would
    # give drug Q the placebo's value; no list matches both arms, so nothing is read
    res = numbers("trial_wrong_pairing.xml", "drug Q 600 mg/day", "placebo", "MADRS total score")
    assert values(res, "mean") in ((None, None), (-14.88, -11.61))


def test_the_statistics_name_does_not_name_the_outcome(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"Mean ± SD of heart rate" is named by "heart rate": a sentence that gives the mean ± SD of another
    measure (fentanyl) is no candidate for it, one that names heart rate is."""
    from claimtrace.numbers.extract import Ico
    from claimtrace.numbers.match import Terms

    assert Ico.of("clonidine", "midazolam", "Mean ± SD of heart rate").outcome.aliases == Terms.of("heart rate").aliases
    doc = tmp_path / "trial.xml"
    doc.write_text("<sec><title>Results</title><p>The mean ± SD of intraoperatively administered fentanyl in the "
                   "clonidine group (105 ± 30.8) was lower than in the midazolam group (165 ± 34.5).</p></sec>",
                   encoding="utf-8")
    res = extract_numbers(load_document(doc), "clonidine", "midazolam", "Mean ± SD of heart rate")
    assert values(res, "mean") == (None, None)
    doc.write_text("<sec><title>Results</title><p>The heart rate in the clonidine group (72 ± 8) was lower than in "
                   "the midazolam group (81 ± 9).</p></sec>", encoding="utf-8")
    res = extract_numbers(load_document(doc), "clonidine", "midazolam", "Mean ± SD of heart rate")
    assert values(res, "mean") == (72, 81)


def test_events_and_percentage_of_a_total(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """"265 [25%] of 1054 participants": the total after the percentage is the arm's size for that outcome
    (not the randomised size in the table header); "of 3.5 mg" is no total."""
    from claimtrace.numbers.extract import _forms

    text = ("Fewer participants had haematoma expansion in the tranexamic acid group (265 [25%] of 1054 participants) "
            "than in the placebo group (304 [29%] of 1058 participants).")
    got = [(g.events, g.total) for g in _forms(text)[0]]
    assert got == [(265, 1054), (304, 1058)]
    assert [(g.events, g.total) for g in _forms("5 (10%) of 3.5 mg and 7 (12%) of 30 mg")[0]] == []
    doc = tmp_path / "trial.xml"
    doc.write_text(f"<sec><title>Results</title><p>{text}</p></sec>", encoding="utf-8")
    res = extract_numbers(load_document(doc), "tranexamic acid", "placebo", "haematoma expansion")
    assert values(res, "events") == (265, 304) and values(res, "group_size") == (1054, 1058)
