"""Group sizes written in words ("eight surviving rats for each group", "twenty-one received ...") and in an arm
row's cell under an "(n)" column ("Exercise (12)"), on a fixture made by the project
(tests/data/numbers/trial_word_sizes.xml); with the cases where no size may be read."""

from __future__ import annotations

from pathlib import Path

from claimtrace.documents import load_document
from claimtrace.numbers.extract import extract_numbers
from claimtrace.numbers.forms import count_of
from claimtrace.numbers.model import NumbersResult
from conftest import REPO

DOC = REPO / "tests" / "data" / "numbers" / "trial_word_sizes.xml"


def numbers(intervention: str, comparator: str, outcome: str) -> NumbersResult:
    return extract_numbers(load_document(DOC), intervention, comparator, outcome)


def sizes(res: NumbersResult) -> tuple[float | None, float | None]:
    i, c = (res.arms[a].group_size for a in ("intervention", "comparator"))
    return (i.value if i else None, c.value if c else None)


def test_count_of_reads_digits_and_words_up_to_ninety_nine() -> None:
    assert [count_of(s) for s in ("8", "1,024", "eight", "Thirty-two", "forty two", "nineteen", "ninety")] == [
        8, 1024, 8, 32, 42, 19, 90]
    assert [count_of(s) for s in ("twenty-x", "a", "eighth", "")] == [None, None, None, None]


def test_one_size_in_words_for_every_group() -> None:
    res = numbers("magnesium", "saline", "dye content of the hemisphere")
    assert (res.arms["intervention"].mean.value, res.arms["comparator"].mean.value) == (0.0022, 0.0047)  # type: ignore[union-attr]
    assert sizes(res) == (8, 8)
    size = res.arms["intervention"].group_size
    assert size is not None and size.text == "eight" and size.unit_id == "a1.s1"


def test_sizes_in_words_before_each_arm_on_allocation() -> None:
    res = numbers("herbal tea", "plain water", "heart rate")
    assert sizes(res) == (21, 19)


def test_sizes_from_an_n_column_of_arm_rows() -> None:
    res = numbers("exercise", "stretching", "grip strength")
    assert (res.arms["intervention"].mean.value, res.arms["comparator"].mean.value) == (31.2, 28.9)  # type: ignore[union-attr]
    assert sizes(res) == (12, 14)


COUNTS = REPO / "tests" / "data" / "numbers" / "trial_sizes_from_counts.xml"


def test_sizes_from_a_group_of_n() -> None:
    res = extract_numbers(load_document(COUNTS), "occupational noise", "control", "hearing threshold")
    assert (res.arms["intervention"].mean.value, res.arms["comparator"].mean.value) == (21.5, 14.1)  # type: ignore[union-attr]
    assert sizes(res) == (19, 10)


def test_sizes_from_events_and_their_percentage_only_when_one_size_fits(tmp_path: Path) -> None:
    doc = tmp_path / "response.xml"
    doc.write_text("<sec><title>Results</title><p>Response to treatment in the group taking melatonin was 90% (18 "
                   "patients) and in the placebo group it was 60% (12 patients).</p></sec>", encoding="utf-8")
    res = extract_numbers(load_document(doc), "melatonin", "placebo", "response to treatment")
    assert (res.arms["intervention"].events.value, res.arms["comparator"].events.value) == (18, 12)  # type: ignore[union-attr]
    assert sizes(res) == (20, 20)
    size = res.arms["intervention"].group_size
    assert size is not None and size.source == "derived" and "18 / 90%" in (size.derived or "")
    # 5 events at 10% fit sizes 48 to 52, 10 at 20% fit 48 to 52 too: no size is derived
    doc = tmp_path / "ambiguous.xml"
    doc.write_text("<sec><title>Results</title><p>Nausea was reported by 10% (5 patients) of the ginger group and by "
                   "20% (10 patients) of the vitamin group.</p></sec>", encoding="utf-8")
    res = extract_numbers(load_document(doc), "ginger", "vitamin", "nausea")
    assert (res.arms["intervention"].events.value, res.arms["comparator"].events.value) == (5, 10)  # type: ignore[union-attr]
    assert sizes(res) == (None, None)

