"""The check step (stats/check.py): results that carry no df (r/ρ/τ with a stated sample size, t by its df
bounds), t(1, df), p from the CI of d and g, χ² written "c 2 (df)", and whether a CI is centred on its
estimate (log scale for ratios); statcheck's rules (an inexact statistic bounds p, "ns", p = .000, p equal to
alpha, its options). Made-up sentences, then real Psychological Science papers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scipy import stats as sps

from claimtrace.documents import Document, load_document
from claimtrace.extract.statistics import row_statistics_records
from claimtrace.stats import analyze, analyze_document, check, parse, stated_samples
from conftest import shared_path


def _one(text: str, test: str, **kw: object) -> object:
    found = [r for r in analyze(text, **kw) if r.test == test]  # type: ignore[arg-type]
    assert len(found) == 1, found
    return found[0]


def _r_p(r: float, n: int) -> float:
    t = abs(r) * math.sqrt((n - 2) / (1 - r * r))
    return float(2 * sps.t.sf(t, n - 2))


LONG = "Among the 250 adolescents who completed both waves (N = 250), the change in usage of the apps of one " \
       "kind was highly correlated with the change in usage of the apps of the other kind"


def test_r_without_df_takes_the_sentences_n() -> None:
    r = _one(f"{LONG} (r = .50, p < .001).", "r")
    assert r.n is None and r.df1 is None  # the N is too far for the result's own parentheses
    assert r.consistent is True
    assert r.computed_p == pytest.approx(_r_p(0.50, 250), rel=1e-9)
    assert any("N = 250" in f and "derived from N" in f for f in r.flags)


def test_r_without_df_below_what_n_allows_is_inconsistent() -> None:
    r = _one(f"{LONG} (r = .05, p < .001).", "r")
    assert r.consistent is False and r.decision_error is True
    assert r.computed_p == pytest.approx(_r_p(0.05, 250), rel=1e-9)


def test_r_whose_p_fits_a_subsample_is_left_unchecked() -> None:
    # p = .04 is too large for df = 248 but fits a smaller subsample: no verdict
    r = _one(f"{LONG} (r = .15, p = .04).", "r")
    assert r.consistent is None and r.computed_p is None
    assert any("left unchecked" in f for f in r.flags)


def test_r_without_any_n_stays_unchecked() -> None:
    r = _one("The two scores correlated, r = .30, p = .04.", "r")
    assert r.consistent is None and r.computed_p is None and r.flags == []


def test_r_sentence_with_two_sample_sizes_is_ambiguous() -> None:
    text = ("In group A (n = 40) and group B (n = 60) together, the long list of scores and the other long list "
            "of scores correlated, r = .30, p = .04.")
    r = _one(text, "r", paper_ns=())
    assert r.consistent is None and r.computed_p is None


def test_r_takes_the_papers_stated_sample_and_is_never_inconsistent_from_it() -> None:
    method = "Participants. We recruited N = 120 adults online. "
    ok = _one(method + "Later, the two scores correlated, r = .30, p = .001.", "r")
    assert ok.consistent is True
    assert ok.computed_p == pytest.approx(_r_p(0.30, 120), rel=1e-9)
    assert any("paper's stated sample size (N = 120)" in f for f in ok.flags)
    # p far too small for N = 120 (the correlation may be over trials): no verdict from the paper's N
    low = _one(method + "Later, the two scores correlated, r = .05, p < .001.", "r")
    assert low.consistent is None and low.computed_p is None
    # no p reported: nothing recomputed from the paper's N
    bare = _one(method + "Later, the two scores correlated, r = .30.", "r")
    assert bare.computed_p is None


def test_r_with_several_stated_samples_needs_agreement_with_all() -> None:
    text = "Study 1 had N = 80 and Study 2 had N = 300 people. The two scores correlated, r = .50, p < .001."
    assert stated_samples(text) == (80, 300)
    r = _one(text, "r")
    assert r.consistent is True and r.computed_p is None
    assert any("N = 80 to 300" in f for f in r.flags)
    weak = _one(text.replace("r = .50", "r = .20"), "r")  # p < .001 holds with N = 300, not with N = 80
    assert weak.consistent is None


def test_n_per_group_is_no_sample_size() -> None:
    assert stated_samples("We had N = 20 per group and n = 5.") == ()
    assert stated_samples("N = 1,234 adults; N = 1,234 again") == (1234,)


def test_t_without_df_is_checked_by_its_df_bounds() -> None:
    ok = _one("The effect was significant (β = 0.149, t = 3.76, p < .001).", "t")
    assert ok.consistent is True and ok.computed_p is None
    assert any("consistent for some df" in f for f in ok.flags)
    # t = 1.50 gives p >= .13 whatever the df: p = .01 is impossible
    bad = _one("The effect was significant (β = 0.149, t = 1.50, p = .01).", "t")
    assert bad.consistent is False
    # t = 82.76 with p < .001 needs df >= 2, which some df gives
    assert _one("Calls rose, t = 82.76, p < .001.", "t").consistent is True


def test_t_without_df_one_tailed_only_where_the_text_says_so() -> None:
    two = _one("Scores rose (t = 1.76, p = .044).", "t")
    assert two.consistent is False
    one = _one("Scores rose (t = 1.76, p = .044, one-tailed test).", "t")
    assert one.consistent is True


def test_t_with_one_and_df_in_parentheses_is_t_df() -> None:
    r = _one("age, β = 0.004, 95% CI = [-0.018, 0.026], t(1, 66) = 0.33, p = .74; gender", "t")
    assert r.df1 == 66 and r.df2 is None
    assert r.computed_p == pytest.approx(float(2 * sps.t.sf(0.33, 66)), rel=1e-9)
    assert r.consistent is True
    assert "t(1, df) read as t(df) (F(1, df) = t²)" in r.flags
    two = _one("We found t(2, 28) = 2.10, p = .04.", "t")
    assert two.computed_p is None and two.consistent is None


def test_d_with_a_ci_gets_a_p_from_the_ci() -> None:
    r = _one("The effect was moderate, d = 0.45, 95% CI = [0.20, 0.70].", "d")
    se = (0.70 - 0.20) / (2 * sps.norm.ppf(0.975))
    assert r.computed_p == pytest.approx(float(2 * sps.norm.sf(0.45 / se)), rel=1e-9)
    assert r.ci_consistent is True
    off = _one("The effect was moderate, d = 0.95, 95% CI = [0.20, 0.70].", "d")
    assert off.ci_consistent is False
    assert _one("The effect was moderate, d = 0.45.", "d").computed_p is None


def test_chi2_whose_chi_became_c() -> None:
    r = _one("Adding species improved model fit, c 2 (4) = 14.56, p = .006 (see Fig. 2a).", "chi2")
    assert r.df1 == 4 and r.value == 14.56 and r.consistent is True
    assert [x.test for x in parse("We had c 2 participants, and c2 = 5 of them left.")] == []


def test_check_takes_the_sample_sizes_explicitly() -> None:
    (res,) = parse("The two scores correlated, r = .30, p = .001.")
    assert check(res).consistent is None
    assert check(res, sentence_n=120).consistent is True
    assert check(res, paper_ns=(120,)).consistent is True
    assert check(res, sentence_n=30).consistent is False  # p(r=.30, df=28) = .11: .001 is impossible


# ---- real papers (Psychological Science, GROBID TEI; development data)


def _doc(name: str) -> Document:
    return load_document(shared_path("documents", "psychsci", f"{name}.xml"))


def test_real_paper_r_without_df_checked_against_every_stated_n() -> None:
    doc = _doc("0956797616671712")
    rs = [r for r in analyze_document(doc, scope="body") if r.test == "r" and r.text.startswith("r = .500")]
    assert len(rs) == 1
    assert rs[0].consistent is True
    assert any("every sample size the paper states" in f for f in rs[0].flags)


def test_real_paper_t_with_one_and_df() -> None:
    doc = _doc("09567976231190546")
    ts = [r for r in analyze_document(doc, scope="body") if r.test == "t" and "t(1, 67) = 0.74" in r.text]
    assert ts and all(r.df1 == 67 and r.computed_p is not None for r in ts)


def test_real_paper_regression_t_without_df() -> None:
    doc = _doc("09567976231173902")
    ts = [r for r in analyze_document(doc, scope="body") if r.test == "t" and r.df1 is None]
    assert ts and all(r.consistent is not None for r in ts if r.p_comparison is not None)
    assert sum(r.consistent is True for r in ts) >= len(ts) // 2


def test_table_row_estimate_takes_the_rows_ci_column(tmp_path: Path) -> None:
    html = ("<html><head><meta charset=\"utf-8\"></head><body><h1>T</h1><p>Body text here that is long enough.</p>"
            "<table><caption>Table 2. Association with the score</caption>"
            "<thead><tr><th>Variable</th><th>Association</th><th>95% CI</th></tr></thead><tbody>"
            "<tr><td>Gender</td><td>d = 0.05</td><td>[-0.06, 0.16]</td></tr>"
            "<tr><td>Diagnosis</td><td>d = -0.55</td><td>[-0.70, -0.20]</td></tr>"
            "<tr><td>Age</td><td>d = 0.30, g = 0.29</td><td>[0.10, 0.50]</td></tr>"
            "</tbody></table></body></html>")
    p = tmp_path / "a.html"
    p.write_text(html, encoding="utf-8")
    doc = load_document(p)
    rows = [r.id for r in doc.tables[0].rows]
    (gender,) = row_statistics_records(doc, rows[1])[0]
    assert (gender["ci_low"], gender["ci_high"], gender["ci_consistent"]) == (-0.06, 0.16, True)
    assert gender["computed_p"] is not None and len(gender["cell_ids"]) == 2
    assert doc.tables_text[gender["spans"]["ci"]["start"]:gender["spans"]["ci"]["end"]] == "[-0.06, 0.16]"
    (dx,) = row_statistics_records(doc, rows[2])[0]
    assert dx["ci_consistent"] is False  # -0.55 is not in the middle of [-0.70, -0.20]
    # two estimates in one row: which one the CI belongs to is ambiguous, so neither takes it
    assert all(r["ci_low"] is None for r in row_statistics_records(doc, rows[3])[0])


def test_real_paper_table_row_d_with_its_ci_column() -> None:
    doc = _doc("0956797620985832")
    (d,) = row_statistics_records(doc, "t2.r3")[0]
    assert d["test"] == "d" and (d["ci_low"], d["ci_high"]) == (-0.06, 0.16) and d["ci_consistent"] is True


def test_bayesian_hpd_and_hdi_intervals_read_as_credible_intervals() -> None:
    r = _one("The effect was small, b = -0.005, 95% HPD = [-0.01, 0.00], BF = 1.21.", "b")
    assert (r.ci_low, r.ci_high, r.ci_level, r.ci_consistent) == (-0.01, 0.0, 95.0, True)
    md = _one("The mean difference = 0.3, 95% HDI [0.1, 0.5].", "MD")
    assert (md.ci_low, md.ci_high) == (0.1, 0.5)
    assert parse("We used HPD 3 = 4 and HDI software.") == []


def test_a_ci_right_after_an_effect_size_is_the_effect_sizes() -> None:
    res = analyze("The groups differed, t(40) = 2.10, p = .04, d = 0.66, 95% CI [0.02, 1.30].")
    t, d = res
    assert (t.test, t.ci_low, t.ci_consistent, t.effects) == ("t", None, None, [])
    assert t.text == "t(40) = 2.10, p = .04"
    assert (d.test, d.value, d.ci_low, d.ci_high, d.ci_consistent) == ("d", 0.66, 0.02, 1.30, True)
    # before: the CI was the t's, and 2.10 "outside its CI" an invented inconsistency
    assert not any("outside" in f for r in res for f in r.flags)
    b, d2 = analyze("The effect was small, b = -0.005, 95% HPD = [-0.01, 0.00], BF = 1.21, d = -0.08, "
                    "95% HPD = [-0.15, -0.01] (low-demand condition).")
    assert (b.test, d2.test, d2.value, d2.ci_low) == ("b", "d", -0.08, -0.15)


# ---- behaviour that mutation testing found no test pinned -----------------------------------

def _ci_result(text: str):  # type: ignore[no-untyped-def]
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
    r = _ci_result(text)
    assert r.ci_consistent is True, r.flags
    assert "CI not centred on the point estimate" not in r.flags


@pytest.mark.parametrize("text", [
    "The mean difference was 2.0 (95% CI 1.8 to 4.0).",
    "OR = 2.00, 95% CI 1.90 to 8.00",
    "OR = 3.00, 95% CI 1.20 to 4.80",  # symmetric on the linear scale only: a ratio is not
])
def test_an_off_centre_ci_is_flagged(text: str) -> None:
    r = _ci_result(text)
    assert r.ci_consistent is False
    assert "CI not centred on the point estimate" in r.flags


def test_a_point_estimate_within_rounding_of_its_ci_is_inside() -> None:
    # 2.0 and 2.05 differ by less than the rounding of "2.0" and "3.0" (± .05 each): inside, only off-centre
    r = _ci_result("The mean difference was 2.0 (95% CI 2.05 to 3.0).")
    assert r.flags == ["CI not centred on the point estimate"]
    # 2.0 lies outside 2.3 to 3.0 even with rounding
    r = _ci_result("The mean difference was 2.0 (95% CI 2.3 to 3.0).")
    assert r.flags == ["point estimate outside its CI"]


def test_inexact_statistics_bound_p_like_statcheck() -> None:
    (r,) = analyze("t(28) < 2.2, p = .02")  # t < 2.2 means p > .036: p = .02 cannot be
    assert r.comparison == "<" and r.consistent is False
    (ok,) = analyze("t(28) < 2.2, p = .06")
    assert ok.consistent is True
    for cmp in ("≥", ">="):
        (g,) = analyze(f"F(1, 30) {cmp} 4.50, p < .05")  # F >= 4.5 means p <= .042
        assert g.comparison == ">=" and g.consistent is True
    (bad,) = analyze("F(1, 30) > 4.50, p > .05")
    assert bad.consistent is False


def test_ns_is_kept() -> None:
    (r,) = analyze("t(28) = 2.20, ns")
    assert r.p_comparison == "ns" and r.consistent is False and r.decision_error is True
    (r2,) = analyze("The groups did not differ, t(28) = 0.40, ns.")
    assert r2.p_comparison == "ns" and r2.consistent is True


def test_t_with_two_numbers_is_not_t_df() -> None:
    (r,) = analyze("t(2,28) = 2.20, p = .04")
    assert (r.df1, r.df2) == (2, 28)
    assert r.computed_p is None and r.consistent is None and r.decision_error is None
    assert any("not t(df)" in f for f in r.flags)


def test_misses_now_found() -> None:
    (c,) = analyze("chi_2(28) = 41.34, p = .05")
    assert (c.test, c.df1, c.value, c.consistent) == ("chi2", 28, 41.34, True)
    (w,) = analyze("Q-within(2) = 3.10, p = .21")
    assert (w.test, w.test_detail, w.df1, w.consistent) == ("Q", "within", 2, True)
    (b,) = analyze("Q-between(2) = 8.10, p = .02")
    assert (b.test, b.test_detail, b.consistent) == ("Q", "between", True)
    (g,) = analyze("t(30) = %^&2.20, p = .04")
    assert g.value == -2.2 and g.consistent is True and any("garbled" in x for x in g.repaired)


def test_z_with_df_is_read_as_z() -> None:
    (r,) = analyze("z(28) = 2.20, p = .03")
    assert r.test == "z" and r.df1 == 28  # kept as written
    assert abs(r.computed_p - 0.0278) < 1e-3  # the standard normal: the number is ignored
    assert r.consistent is True and any("z has no df" in f for f in r.flags)


def test_p_000_is_below_0005_and_p_equal_alpha_is_significant() -> None:
    (r,) = analyze("t(100) = 4.00, p = .000")
    assert r.consistent is True and r.significant is True
    (a,) = analyze("t(30) = 2.04, p = .05")
    assert a.significant is True


def test_statcheck_options() -> None:
    (z,) = analyze("t(100) = 4.00, p = .000", p_zero_error=True)
    assert z.consistent is False  # statcheck's pZeroError
    (a,) = analyze("t(30) = 2.04, p = .05", p_equal_alpha_significant=False)
    assert a.significant is False
