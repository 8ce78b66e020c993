"""Correctness of the APA checks (issue 13, item 7): one fault, one test."""

from __future__ import annotations

from claimtrace.stats import analyze, one_tailed_scope


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
