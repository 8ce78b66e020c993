"""Cohen's f (and f²) as effect sizes: after an F test, planned in power analyses, and never an f in another role.

The sentences are copied from the Psychological Science GROBID TEI in ../shared/data/documents/psychsci/ (file
named with each); the negative cases are f as a function, a frequency, a footnote letter or a list label.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimtrace.stats import analyze, parse

PSYCHSCI = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "documents" / "psychsci"


def test_f_after_an_f_test_is_its_effect_size() -> None:
    # 09567976231172500.xml
    text = ("As confirmed by one-way ANOVAs, the experimental conditions significantly influenced long-term "
            "orientation, F(2, 206) = 4.28, p = .015, f = 0.04, and future orientation, F(2, 206) = 9.55, "
            "p < .001, f = 0.09.")
    a, b = analyze(text)
    assert (a.test, a.df1, a.df2, a.value, a.p_value) == ("F", 2.0, 206.0, 4.28, 0.015)
    assert [(e.measure, e.value, e.text) for e in a.effects] == [("f", 0.04, "f = 0.04")]
    assert [(e.measure, e.value) for e in b.effects] == [("f", 0.09)]
    assert a.consistent is True and b.consistent is True  # the F is checked as before; f is not a test
    assert not a.planned and not b.planned


@pytest.mark.parametrize(("text", "value"), [
    # 0956797615583071.xml
    ("On the basis of the effect size of d = 1.14 from Experiment 1, we assumed a large effect size of f = 0.4.", 0.4),
    # 0956797620958650.xml
    ("The power analysis indicated that a sample of 96 would be sufficient to detect a medium-size effect (f = .20) "
     "in a mixed-design analysis of variance (ANOVA) with a power of .90.", 0.2),
    ("An a priori power analysis (G*Power) showed that 128 participants were needed to detect an effect of "
     "f = .25 with 80% power.", 0.25),
])
def test_planned_f_in_a_power_analysis(text: str, value: float) -> None:
    (r,) = [r for r in analyze(text) if r.test == "f"]
    assert (r.value, r.planned, r.test_text) == (value, True, "f")
    assert (r.computed_p, r.significant, r.consistent) == (None, None, None)
    assert r.flags == ["planned effect size (power analysis): not a result, not checked"]


def test_cohens_f_and_f_squared_written_out() -> None:
    (r,) = analyze("The interaction was small, Cohen's f = 0.10.")
    assert (r.test, r.test_text, r.value, r.planned) == ("f", "Cohen's f", 0.1, False)
    (e,) = analyze("The effect size (Cohen's f) was .31.")
    assert (e.test, e.value) == ("f", 0.31)
    # f² (superscript two, flattened) is f2, as before; planned after "to detect"
    (q,) = analyze("to detect an effect of f² = .15 with a power of .80")
    assert (q.test, q.value, q.planned) == ("f2", 0.15, True)
    # 09567976221116893.xml: f² with a space before the superscript
    (s, _r2) = analyze('defined as a small effect (f ² = .02; i.e., ΔR² = .018)')
    assert (s.test, s.value) == ("f2", 0.02)


def test_bare_f_with_a_p_value_is_a_result() -> None:
    (r,) = analyze("The effect of condition was small, f = 0.30, p = .02.")
    assert (r.test, r.value, r.p_comparison, r.p_value, r.planned) == ("f", 0.3, "=", 0.02, False)


@pytest.mark.parametrize("text", [
    "Let f(x) = 2.5 for every x.",  # a function
    "f(1) = 3.2",  # a function with an argument, not Cohen's f with a df
    "The tone was presented at f = 50 Hz.",  # a frequency
    "sampled at f = 44.1 kHz",
    "with a = 1, b = 2, f = 3",  # a list of labelled values
    "Total scoref = 12.4 and 12.5f, 13.2",  # footnote letters after a word and a number
    "f, 0.25",
    "the focal length f was 35 mm",
])
def test_f_in_other_roles_is_not_read(text: str) -> None:
    assert [r for r in parse(text) if r.test == "f" or any(e.measure == "f" for e in r.effects)] == []


@pytest.mark.parametrize(("text", "test", "value"), [
    ("F(1, 44) = 5.10, p = .03", "F", 5.1),
    ("F = 4.3, p = .04", "F", 4.3),
    ("Fs(1, 248) < 1.16, ps > .28", "F", 1.16),
    ("F-statistic = 4.1", "F", 4.1),
])
def test_f_tests_stay_f_tests(text: str, test: str, value: float) -> None:
    (r,) = parse(text)
    assert (r.test, r.value) == (test, value)


def test_psychsci_paper_f_effect_sizes() -> None:
    path = PSYCHSCI / "09567976231172500.xml"
    if not path.is_file():
        pytest.skip(f"{path} not found (the shared data is not beside the repository)")
    from claimtrace.documents import load_document

    results = analyze(load_document(path).body_text)
    with_f = [(r.test, r.value, [(e.measure, e.value) for e in r.effects]) for r in results
              if any(e.measure == "f" for e in r.effects)]
    assert with_f == [("F", 4.28, [("f", 0.04)]), ("F", 9.55, [("f", 0.09)]), ("F", 1.84, [("f", 0.02)]),
                      ("F", 2.3, [("f", 0.02)])]
