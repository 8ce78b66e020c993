"""The power-analysis record (issue 27): power printed as "p" in a G*Power parameter list, an effect size argued in
the paragraph before, and papers whose subject is statistical power. Real sentences and papers of the development
part of bench/checks_psychsci.py's split."""

from __future__ import annotations

import pytest

from claimtrace.checks import CheckContext, run_checks
from claimtrace.checks.statistics import CHECKS, _power_record
from claimtrace.documents import DocumentBuilder, load_document
from claimtrace.stats import analyze_document
from conftest import shared_path

# 09567976231223410, Method
GPOWER = ("Participants. A G*Power (Version 3.1; Faul et al., 2009) analy sis using pilot data from 20 participants for "
          "a Bonferroni-corrected (for two comparisons) one-sample t test (d = 0.45 , α = .05, p = .95) determined that "
          "we should recruit 67 participants.")


def _power_rows(doc):  # type: ignore[no-untyped-def]
    rows = run_checks(CheckContext(document=doc, stats=analyze_document(doc)), checks=CHECKS, only=["power"])
    return [r for r in rows if r.severity != "ok"]


def test_power_printed_as_p_after_alpha() -> None:
    rec = _power_record(GPOWER)
    assert (rec["effect_size"], rec["alpha"], rec["power"], rec["software"]) == (0.45, 0.05, 0.95, "G*Power")
    assert _power_record("With α = .05, p = .03 was found; power was not computed.")["power"] is None  # below .50


def test_the_real_g_power_paragraph_is_complete() -> None:
    doc = load_document(shared_path("documents", "psychsci", "09567976231223410.xml"))
    (row,) = [r for r in _power_rows(doc) if "G*Power" in (r.text or "")]
    assert row.severity == "info" and row.data["missing"] == []


def test_an_effect_size_argued_in_the_paragraph_before() -> None:
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    b.add_paragraph("Prior work found a small effect of the manipulation on memory (d = 0.26).", "Participants",
                    kind="methods")
    b.add_paragraph("A sensitivity power analysis showed that 130 participants give 80% power at α = .05 for the "
                    "interaction.", "Participants", kind="methods")
    b.add_paragraph("A power analysis for the follow-up test asked for 80% power with 60 participants.", "Procedure",
                    kind="methods")
    rows = _power_rows(b.build())
    assert rows[0].severity == "info" and rows[0].data["effect_size"] == 0.26
    assert rows[0].data["effect_size_from"] == "the paragraph before"
    assert rows[1].severity == "warn" and "effect_size" in rows[1].data["missing"]  # another section: not read


def test_a_paper_about_power_gives_no_power_warnings() -> None:
    # "Researchers' Intuitions About Power in Psychological Research": the designs shown to respondents are no
    # power analyses of the paper
    doc = load_document(shared_path("documents", "psychsci", "0956797616647519.xml"))
    rows = _power_rows(doc)
    assert rows and all(r.severity == "info" for r in rows)
    assert all("about statistical power" in r.message for r in rows)


def test_checks_share_what_they_compute_once() -> None:
    doc = load_document(shared_path("documents", "psychsci", "09567976231223410.xml"))
    ctx = CheckContext(document=doc, stats=analyze_document(doc))
    calls: list[int] = []
    assert ctx.shared("k", lambda: calls.append(1) or len(calls)) == 1
    assert ctx.shared("k", lambda: calls.append(1) or len(calls)) == 1 and calls == [1]
    run_checks(ctx)  # the statistics and reference checks fill their shared indexes
    assert {"statistics.sentences", "references.texts"} <= set(ctx.memo)


def test_alpha_as_a_percentage_power_as_beta_and_a_conventional_size_with_its_design() -> None:
    # 0956797615583071: "... to ensure an 80% power to detect this difference at the 5% significance level."
    rec = _power_record("A sample size of 18 per condition was required in order to ensure an 80% power to detect "
                        "this difference at the 5% significance level.")
    assert (rec["alpha"], rec["power"], rec["n"]) == (0.05, 0.8, 18)
    # 09567976221150616: power printed as "β = 0.80" after α
    rec = _power_record("A power analysis demonstrated that 158 participants were needed to detect a small effect "
                        "size (odds ratio = 1.5) in a two-tailed negative binomial regression (α = .05, β = 0.80).")
    assert (rec["alpha"], rec["power"]) == (0.05, 0.8)
    assert _power_record("A power analysis (α = .05, β = .20) gave N = 90.")["power"] == 0.8  # a real β: 1 - β
    # 09567976231158288: "a medium-size between-subjects effect"
    rec = _power_record("Using G*Power (Faul et al., 2007), we predetermined that a sample size of 150 would be "
                        "necessary to detect a medium-size between-subjects effect with an α of .05 and a "
                        "statistical power of .80 in a mixed ANOVA for Studies 1 and 2.")
    assert (rec["effect_size"], rec["alpha"], rec["power"], rec["n"]) == ("medium", 0.05, 0.8, 150)
    assert _power_record("A large number of effects was tested with 80% power.")["effect_size"] is None


# each field from the power analysis's own sentence: the trigger first, then the sentences after it, then the one
# before (its N, effect size, α, power and software only); real paragraphs of the shared psychsci papers
@pytest.mark.parametrize(("paper", "unit", "want"), [
    ("09567976211028978", "p11.s2", {"n": 84}),  # "would need to recruit at least 84 refugees", not the 104 who took part
    ("0956797620929297", "p15.s3", {"effect_size": 0.15}),  # "an effect as small as 0.15", not the conventions before
    ("0956797620927967", "p19.s5", {"effect_size": 0.72, "effect_metric": "d", "n": 32}),  # "R 2 = 52.6%" is no r
    ("0956797617694867", "p13.s11", {"test": None}),  # "correlations between variables" is the sentence before's
    ("0956797621996667", "p7.s2", {"n": 40}),  # "we recruited 40 ... this sample size would yield", not the 41 after
    ("0956797617724435", "p4.s9", {"n": 8458}),  # "this sample size was sufficient": the 8,458 before, not n = 5,720
    ("0956797621996660", "p5.s3", {"n": 32}),  # "approximately 32 participants were needed", not the 35 before
    ("0956797617692000", "p34.s3", {"effect_size": "medium"}),  # "a small to medium effect" is no list of conventions
])
def test_power_fields_come_from_the_analysis_sentence(paper: str, unit: str, want: dict[str, object]) -> None:
    doc = load_document(shared_path("documents", "psychsci", f"{paper}.xml"))
    (row,) = [r for r in _power_rows(doc) if r.location and r.location.unit_id == unit]
    assert {k: row.data[k] for k in want} == want


# how clinical trials state a power analysis: α as a type I error or a level of significance, the effect in raw
# units or as two rates, N per arm (sentences of Evidence-Inference articles read while fixing: the round-1 sample
# and the development half of bench/checks_fresh.py)
@pytest.mark.parametrize(("text", "want"), [
    ("To detect a difference of 4 cmH2O in OLP between the groups with a type I error of 0.05 and a power of 80%, a "
     "sample size of 25 patients in each groups was required.", {"effect_size": 4.0, "alpha": 0.05, "n": 25}),
    ("A sample size of 76 in each group was estimated to give 90% power (5% two-sided significance) to detect a "
     "difference in mean score of five points", {"effect_size": 5.0, "alpha": 0.05, "power": 0.9}),
    ("Sixty patients were needed in each treatment group to detect a 28% difference between the two groups",
     {"effect_size": 28.0, "n": 60}),
    ("We assumed 80% power, 5% level of significance, design effect of two", {"alpha": 0.05}),
    ("This provided an 80% power (two-sided p value of 0.05) to detect a 30% relative increase", {"alpha": 0.05}),
    ("to detect a relative reduction by 60% (from 25% to 10%) with a 2-sided 5% significance level",
     {"effect_size": 60.0, "alpha": 0.05}),
    ("With projected clearance rates of 70% for treatment and 8% for placebo", {"effect_size": 62.0}),
    ("a hazard ratio (HR; sunitinib/capecitabine) of 0.75", {"effect_size": 0.75}),
    ("A type I error of 5% and 80% power were assumed.", {"alpha": 0.05, "effect_size": None}),  # no rates
    # round 2's sample (bench/checks_fresh.py): judged, then these forms read
    ("a mean difference of 0.2 mm with SD of 0.2 (95% CI and 80% power)", {"alpha": 0.05, "effect_size": 0.2}),
    ("To detect a difference of 30 mmHg, the power was calculated as 0.925.", {"power": 0.925}),
    ("The sample size was computed for α value equal to 0.05 and a power of 80%.", {"alpha": 0.05}),
    ("To achieve type-I error rate of less than 5 % (2 tailed)", {"alpha": 0.05}),
    ("80% power, p = 0.05", {"alpha": 0.05}),
    ("to detect a 2% or greater difference in the mean saturated fat content", {"effect_size": 2.0}),
    ("cTnI of 0.60 ng/mL for the postconditioning group and of 0.75 ng/mL for the control group",
     {"effect_size": 0.15}),
    ("We recruited 40 participants for each group and 20 for the control.", {"effect_size": None, "n": 40}),
    # round 3: the power before a level is no alpha ("Assuming a power of 80%, significance level of 5%, ...")
    ("Assuming a power of 80%, significance level of 5%, and a response rate of 60%", {"alpha": 0.05, "power": 0.8}),
    ("would have 80% power (0.05, 2-sided significance level).", {"alpha": 0.05}),
    # round 3's wrong flags, their forms then read: two rates named apart, a list of differences, an SD-unit effect,
    # a change between two values, a precision, N per group after "or", power as a beta error, alpha in other words
    ("80% power to detect the difference between the clinical practice persistence rate (62%) calculated from the "
     "record database, and a hypothetically elevated persistence rate of 70% in the alendronate group.",
     {"effect_size": 8.0, "effect_metric": "difference of rates", "power": 0.8}),
    ("30 patients per arm were needed to detect relevant differences between treatment groups with 80% power (38.1 "
     "for ER; 21.5 for PgR; and 64.4 for Ki67), using a two-sided significance level of 5%.",
     {"effect_size": 38.1, "alpha": 0.05, "n": 30}),
    ("to detect a clinically important difference [0.5 standard deviation (SD) effect size]",
     {"effect_size": 0.5, "effect_metric": "SD units"}),
    ("A reduction in CAT score from 3 to 2 was assumed to be clinically meaningful, requiring 8 patients",
     {"effect_size": 1.0, "n": 8}),
    ("the proportion of AR in the mentioned clinic which approximately estimated as 12% and the error level of 0.1.",
     {"effect_size": 0.1, "effect_metric": "precision"}),
    ("the estimated sample size required to detect a 15% difference was 340 or 170 in each group.", {"n": 170}),
    ("power calculation, assuming an alpha error of 5 % and a beta error of 20 %, indicated that 19 patients per "
     "group were required", {"alpha": 0.05, "power": 0.8, "n": 19}),
    ("(α = .05, β = 0.80)", {"power": 0.8}),  # β printed for the power after α: not a type II error of .80
    ("a false positive error rate of 0.05 and statistical power of 0.8", {"alpha": 0.05, "power": 0.8}),
    ("to ensure 80% power, 0.50 effect size (PCS), 0.05 (two\u2010sided) alpha, and 20% attrition.", {"alpha": 0.05}),
])
def test_power_fields_as_trials_write_them(text: str, want: dict[str, object]) -> None:
    rec = _power_record(text)
    assert {k: rec[k] for k in want} == want


def test_a_measured_power_is_no_power_analysis() -> None:
    # "a generated peak power of 0.28 ± 0.07 arbitrary units": a measurement (Evidence-Inference, development half)
    assert _power_record("a generated peak power of 0.28 ± 0.07 arbitrary units")["power"] is None
    # SPSS's observed power printed with a test result is part of the result
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    b.add_paragraph("We found an interaction, F(1, 114) = 13.63; p < .001; η p 2 = .107; observed power = .955.",
                    "Results")
    b.add_paragraph("A power analysis showed that 40 participants give 80% power to detect d = 0.5.", "Method")
    rows = [r for r in _power_rows(b.build()) if r.severity != "ok"]
    assert [r.location.unit_id for r in rows if r.location] == ["p2.s1"]


def test_a_field_stated_in_an_unread_form_gives_info_not_warn() -> None:
    # a field the trigger sentence states in a form not parsed ("significance ... .05" after "p-values of") is no
    # missing field: an info row saying so; a field the text truly lacks (no N) keeps the warning
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    b.add_paragraph("A power analysis showed that 40 participants give 80% power to detect d = 0.5, with "
                    "significance judged by two-sided tests below .05 throughout.", "Method")
    b.add_paragraph("A power analysis gave 80% power to detect d = 0.5 at alpha = .05.", "Method")
    rows = {r.location.unit_id: r for r in _power_rows(b.build()) if r.location and r.severity != "ok"}
    assert rows["p1.s1"].severity == "info" and rows["p1.s1"].data["unread"] == ["alpha"]
    assert "stated but not read: alpha" in rows["p1.s1"].message
    assert rows["p2.s1"].severity == "warn" and rows["p2.s1"].data["missing"] == ["n"]
    assert rows["p2.s1"].message.endswith("missing n")


@pytest.mark.parametrize(("text", "field"), [
    # round 4's unread forms (Evidence-Inference trial articles, judged flags)
    ("with Alfa=0.05 and a power of 80%", "alpha"),
    ("to detect this difference with an a of 0.05", "alpha"),
    ("using a two-sided P = 0.05", "alpha"),
    ("at the 95% level of significance", "alpha"),
    ("a type I error of 5%", "alpha"),
    ("a false positive rate of 0.05", "alpha"),
    ("a total of 120 patients would be required", "n"),
    ("we needed 34 subjects in each group", "n"),
    ("a sample size of 60 was calculated", "n"),
    ("with 1 − β = 0.9", "power"),
    ("a type II error of 0.2", "power"),
    ("a 30% reduction in the infection rate", "effect_size"),
    ("a difference of 1.5 points (SD 3)", "effect_size"),
    ("an odds ratio of 2", "effect_size"),
])
def test_the_broad_field_detectors_find_real_forms(text: str, field: str) -> None:
    from claimtrace.checks.statistics import field_traces

    assert field in field_traces(text)


def test_no_trace_no_field() -> None:
    from claimtrace.checks.statistics import field_traces

    # a bare mention of power with no values: none of the four fields is traced
    assert field_traces("The power analysis was performed with standard software.") == set()


def test_a_field_stated_elsewhere_in_the_paragraph_is_info_and_a_pointer_is_no_record() -> None:
    b = DocumentBuilder(source_path="mem.txt", source_format="text", source_bytes=b"x")
    # alpha in a sentence two after the trigger, in a form not parsed: traced, so info, not warn
    b.add_paragraph("A power analysis gave 80% power to detect d = 0.5 with 40 participants. Recruitment took a year. "
                    "All tests were two-sided with Alfa=0.05.", "Methods")
    # a pointer to the analysis in Methods is no record of its own
    b.add_paragraph("The sample size was based on the power calculation described in the Methods, with 80% power.",
                    "Results")
    # a discussion remark on power is no record
    b.add_paragraph("Our study may have lacked power: 80% power needs larger samples of patients.", "Discussion")
    rows = [r for r in _power_rows(b.build()) if r.location]
    assert [(r.location.unit_id, r.severity) for r in rows] == [("p1.s1", "info")]
    assert rows[0].data["unread"] == ["alpha"] and rows[0].data["missing"] == []


def test_a_result_p_or_a_ci_is_no_alpha_trace() -> None:
    from claimtrace.checks.statistics import field_traces

    # psychsci 09567976231172500 and 0956797620985832: a test result's p and a 95% CI are no significance level
    assert "alpha" not in field_traces("the stable job ad, t(84) = 11.38, p < .001, d = 1.24")
    assert "alpha" not in field_traces("reported a g of 0.8 (95% confidence interval, or CI = [0.54, 1.06])")
    # an unvalued share is no planned effect: "(~13% in Experiments 1 and 2)"
    assert "effect_size" not in field_traces("that participants encountered (~13% in Experiments 1 and 2).")


def test_a_confidence_level_called_the_level_of_significance_is_alpha_05() -> None:
    """PMC3590687 (Evidence Inference, Methods): "... considering a 95% level of significance and a power of 80%":
    a confidence level, so alpha is .05, never .95."""
    doc = load_document(shared_path("evidence-inference", "train", "articles", "PMC3590687.nxml"))
    (row,) = [r for r in _power_rows(doc) if "95% level of significance" in (r.text or "")]
    assert row.data["alpha"] == 0.05 and row.data["power"] == 0.8 and row.data["n"] == 30
    assert "alpha" not in row.data["missing"] and "alpha" not in row.data["unread"]
    assert _power_record("A power of 80% at the 5% level of significance.")["alpha"] == 0.05
