"""How one-sidedness is read and scoped (issue 27): its sentence, a statement in its paragraph, a statement earlier
in its study; a one-sided p against the direction of the effect (1 - p). Real sentences of Psychological Science
papers (ids in each test) and made Documents for the scope rules."""

from __future__ import annotations

import pytest

from claimtrace.documents import DocumentBuilder, load_document
from claimtrace.stats import analyze, analyze_document, one_tailed_scope
from claimtrace.stats.parser import states_one_tailed
from conftest import shared_path

# 0956797620903716 (Method of a preregistered replication: the power analysis plans a one-sided test)
PLAN = "For a one-sided independent Mann-Whitney U test with an alpha of .05, the minimum sample size is 428."
# 0956797620903716 (its Results; Z = 0.70 gives p = .484 two-tailed, .242 one-tailed)
RESULT = ("Participants in the time-pressure condition (n = 97; M = 3.86, SD = 1.65) did not report significantly "
          "higher die-roll outcomes than participants in the self-paced condition (n = 97; M = 3.68, SD = 1.70), "
          "Z = 0.70, p = .241.")


@pytest.mark.parametrize("sentence", [
    PLAN,
    "Given the near ubiquity of anchoring effects in previous research, these were all onetailed tests.",  # 09567976221089599
    "All reported p values are one-tailed.",
])
def test_statements_of_a_one_tailed_rule(sentence: str) -> None:
    assert states_one_tailed(sentence)


@pytest.mark.parametrize("sentence", [
    # 09567976231173902: a directional hypothesis tested with a Bayes factor is no rule for p
    "This constituted evidence against our one-sided hypothesis (i.e., that \"fast\" cues increase encoding speed), "
    "but our BF tested the presence of an effect, not its direction.",
    # 09567976231218640: two one-sided tests of equivalence
    "As preregistered, we also subjected the central effect of comparing the difference score (White -Black) of "
    "neutral versus angry faces to two one-sided equivalence tests (Lakens et al., 2018) against the smallest effect "
    "size of interest.",
    "This is a one-sided view of the literature.",
])
def test_mentions_that_are_no_rule(sentence: str) -> None:
    assert not states_one_tailed(sentence)


def _doc(*paragraphs: tuple[str, str | None, str]):  # type: ignore[no-untyped-def]
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    for text, heading, kind in paragraphs:
        b.add_paragraph(text, heading, kind=kind)  # type: ignore[arg-type]
    return b.build()


def _z(doc):  # type: ignore[no-untyped-def]
    (r,) = [r for r in analyze_document(doc) if r.test == "z"]
    return r


def test_a_planned_one_sided_test_covers_the_studys_later_result() -> None:
    r = _z(_doc(("Sample size. " + PLAN, "Method", "methods"), (RESULT, "Results", "results")))
    assert r.consistent is True and "consistent only as a one-tailed test" in r.flags
    assert any(f.startswith("one-tailed as stated in its study") for f in r.flags)


def test_the_same_statement_does_not_reach_other_studies_earlier_results_or_musings() -> None:
    later = _z(_doc((RESULT, "Results", "results"), (PLAN, "Method", "methods")))
    assert later.consistent is False  # the statement comes after the result
    other = _doc(("Study 1 tested it.", "Study 1", "other"), (PLAN, "Method", "methods"),
                 ("Study 2 tested it again.", "Study 2", "other"), (RESULT, "Results", "results"))
    assert [p.study for p in other.paragraphs][-1] == "2" and _z(other).consistent is False
    musing = _z(_doc((PLAN, "Introduction", "introduction"), (RESULT, "Results", "results")))
    assert musing.consistent is False  # an introduction sets no rule for the tests


def test_a_statement_in_the_results_paragraph_holds_for_it() -> None:
    r = _z(_doc(("All reported p values are one-tailed. " + RESULT, "Results", "results")))
    assert r.consistent is True and any("its paragraph" in f for f in r.flags)


def test_a_result_sentence_that_says_one_sided_binds_only_its_own_results() -> None:
    text = ("The first effect was small, t(28) = 1.80, p = .041, one-sided. "
            "The second effect was small as well, t(28) = 1.80, p = .041.")
    first, second = analyze_document(_doc((text, "Results", "results")))
    assert first.consistent is True and second.consistent is False


def test_a_one_sided_p_against_the_effect_is_one_minus_p() -> None:
    # 09567976241279291: the sphere was predicted to be slower; it was faster; t(19) = 1.1 gives one-sided .143
    # in the effect's direction, so .857 against it
    sentence = ("Neither the reaction time nor the proportion of bird's-eye-view strategy use was larger for the "
                "sphere-mean time on sphere = 6.4 ± 2.5 s versus on plane = 7.0 ± 2.4 s, t(19) = 1.1, p = .85, "
                "one-sided; proportion of bird's-eye-view perspective on sphere = 7 out of 20 vs. on plane = 5 out "
                "of 20, McNemara test, p = .31.")
    (r,) = [r for r in analyze(sentence) if r.test == "t"]
    assert r.one_tailed and r.consistent is True
    assert "one-tailed p against the direction of the effect (1 - p)" in r.flags
    (two,) = [r for r in analyze("The times differed, t(19) = 1.1, p = .85.") if r.test == "t"]
    assert two.consistent is False  # two-tailed it is .285: still flagged
    (wrong,) = [r for r in analyze("The times differed, t(19) = 1.1, p = .75, one-sided.") if r.test == "t"]
    assert wrong.consistent is False  # neither .143 nor .857


def test_the_real_papers() -> None:
    doc = load_document(shared_path("documents", "psychsci", "0956797620903716.xml"))
    (z,) = [r for r in analyze_document(doc) if r.test == "z" and r.value == 0.70 and r.p_value == 0.241]
    assert z.consistent is True and any("its study" in f for f in z.flags)
    doc = load_document(shared_path("documents", "psychsci", "09567976231173902.xml"))
    (t,) = [r for r in analyze_document(doc) if r.test == "t" and r.value == 0.957]
    assert t.consistent is False  # "our one-sided hypothesis" (a Bayes factor's) excuses no p


@pytest.mark.parametrize("sentence", [
    "Given the near ubiquity of anchoring effects in previous research, these were all onetailed tests.",
    "All reported tests were onesided.",
])
def test_onetailed_without_hyphen_sets_the_scope(sentence: str) -> None:
    assert one_tailed_scope(sentence)


def test_onetailed_in_the_sentence_makes_a_half_p_consistent() -> None:
    # t(29) = 1.80 gives two-tailed p = .082, one-tailed .041
    (r,) = [x for x in analyze("A onetailed t test showed t(29) = 1.80, p = .041.") if x.test == "t"]
    assert r.one_tailed and r.consistent is True and not r.decision_error


def test_onetailed_scope_on_the_real_paper() -> None:
    from claimtrace.documents import load_document

    doc = load_document(shared_path("documents", "psychsci", "09567976221089599.xml"))
    assert "onetailed" in doc.body_text
    assert one_tailed_scope(doc.body_text)
    long = doc.body_text + " " * 10  # the long-text path of mentions_one_tailed (over 2,000 characters)
    assert len(long) > 2000 and one_tailed_scope(long)


def test_one_tailed_is_scoped_to_its_sentence() -> None:
    # t(28) = 1.80 gives p = .083 two-tailed, .041 one-tailed
    text = ("We tested the prediction with a one-tailed test, t(28) = 1.80, p = .041. "
            "The control comparison was not predicted, t(28) = 1.80, p = .041.")
    first, second = analyze(text)
    assert first.one_tailed is True and first.consistent is True
    assert second.one_tailed is False and second.consistent is False  # no longer excused by the other sentence


def test_stated_scope_and_directional() -> None:
    text = "All tests reported below were one-tailed. The effect was reliable, t(28) = 1.80, p = .041."
    assert one_tailed_scope(text)
    (r,) = analyze(text)
    assert r.consistent is True and "consistent only as a one-tailed test" in r.flags
    (d,) = analyze("A directional test confirmed it, t(28) = 1.80, p = .041.")
    assert d.one_tailed is True and d.consistent is True
    assert not one_tailed_scope("One participant took a one-tailed test home.")
