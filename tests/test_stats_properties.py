"""Property-based: APA strings from random test, df, value and p, with random PDF-style damage,
parse back to the same values."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimtrace.stats import parse

_MINUS = ["-", "\u2212", "\u2013", "?", "\x02"]  # ascii, unicode minus, en dash, damaged: "?", control char
_SPACES = [" ", "\u2009", "\u00a0", "\u202f", " "]


@st.composite
def apa(draw: st.DrawFn) -> tuple[str, dict[str, object]]:
    """An APA result string with damage applied, and the values it must parse to."""
    test = draw(st.sampled_from(["t", "F", "chi2", "r", "z", "Q"]))
    df1 = draw(st.integers(1, 400))
    df2 = draw(st.integers(1, 999)) if test == "F" else None
    dec = draw(st.integers(1, 3))
    if test == "r":
        value = round(draw(st.floats(0.0, 0.99)), 2)
        dec = 2
    else:
        value = round(draw(st.floats(0.0, 60.0)), dec)
    negative = test in ("t", "z", "r") and draw(st.booleans())
    p_cmp = draw(st.sampled_from(["=", "<", ">"]))
    p_dec = draw(st.integers(2, 4))
    p = round(draw(st.floats(10 ** -p_dec, 0.99)), p_dec)
    sp = draw(st.sampled_from(_SPACES))
    # the statistic
    name = {"chi2": draw(st.sampled_from(["χ2", "χ²", "chi2", "X2"])), "z": draw(st.sampled_from(["z", "Z"])),
            "Q": draw(st.sampled_from(["Q", "Qb", "Qw"]))}.get(test, test)
    df1_text = str(df1)
    if draw(st.booleans()) and "1" in df1_text:  # "l" for "1" in df
        df1_text = df1_text.replace("1", "l", 1)
    if test == "z":
        head = name
    elif test == "F":
        # flattened subscripts ("F1,38") keep their digits; "l" for "1" only inside brackets
        head = f"F({df1_text},{sp}{df2})" if draw(st.booleans()) else f"F{df1},{df2}"
    else:
        head = f"{name}({df1_text})"
    minus = draw(st.sampled_from(_MINUS)) if negative else ""
    lost_minus = negative and draw(st.integers(0, 5)) == 0
    if lost_minus:
        minus = ""
    vtext = f"{value:.{dec}f}"
    if test == "r" and draw(st.booleans()):
        vtext = vtext.lstrip("0")
    # "=" turned into " p " (seen after a df: "t(42) p 3.19"); a bare "z p 1.2" is too ambiguous to read
    eq = draw(st.sampled_from(["=", "=", " p "])) if draw(st.booleans()) and test != "z" else "="
    stat = f"{head}{sp}{eq.strip() and eq}{sp}{minus}{vtext}" if eq == "=" else f"{head} p {minus}{vtext}"
    # the p-value
    ptext = f"{p:.{p_dec}f}"
    if draw(st.booleans()):
        ptext = ptext.lstrip("0")
    damaged = {"<": ["<", "b", " ! "], "=": ["=", " p "], ">": [">"]}[p_cmp]
    pc = draw(st.sampled_from(damaged))
    pname = draw(st.sampled_from(["p", "p", "P"]))
    if pc == "b":
        pstr = f"{pname}b{ptext}"
    elif pc.strip() in ("!", "p"):
        pstr = f"{pname}{pc}{ptext}"
    else:
        pstr = f"{pname}{sp}{pc}{sp}{ptext}"
    sep = draw(st.sampled_from([", ", "; ", ",\n", ", \x0c"]))
    text = f"{stat}{sep}{pstr}"
    prefix = draw(st.sampled_from(["", "The eﬀect was signiﬁcant, ", "As predicted (", "Results: "]))
    expect = {"test": test, "df1": None if test == "z" else float(df1), "df2": float(df2) if df2 else None,
              "abs_value": value, "negative": negative and not lost_minus,
              "p_comparison": p_cmp, "p_value": p}
    return prefix + text + ".", expect


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(apa())
def test_damaged_apa_parses_back(case: tuple[str, dict[str, object]]) -> None:
    text, exp = case
    res = [r for r in parse(text) if r.kind == "test"]
    assert len(res) == 1, (text, res)
    r = res[0]
    assert r.test == exp["test"], text
    assert r.df1 == exp["df1"] and r.df2 == exp["df2"], text
    assert r.value is not None and abs(r.value) == exp["abs_value"], text
    if exp["abs_value"]:
        assert (r.value < 0) == exp["negative"], text
    assert r.p_comparison == exp["p_comparison"] and r.p_value == exp["p_value"], text
    assert text[r.start : r.end] == r.text
    assert r.text.lstrip("(").startswith(text[r.start : r.start + 1])


@settings(max_examples=150, deadline=None)
@given(
    est=st.floats(0.05, 20.0).map(lambda x: round(x, 2)),
    width=st.floats(0.01, 3.0),
    style=st.sampled_from(["OR {e} (95% CI {l}–{h})", "HR = {e}, 95% CI [{l}, {h}]",
                           "odds ratio {e}; 95% CI, {l} to {h}", "RR {e} (95% confidence interval {l}-{h})"]),
)
def test_ratio_with_ci_parses_back(est: float, width: float, style: str) -> None:
    import math

    lo = round(math.exp(math.log(est) - width), 2)
    hi = round(math.exp(math.log(est) + width), 2)
    if lo <= 0 or not lo <= est <= hi:
        return
    text = "Risk was higher " + style.format(e=f"{est:.2f}", l=f"{lo:.2f}", h=f"{hi:.2f}") + "."
    (r,) = parse(text)
    assert r.test in ("OR", "HR", "RR")
    assert (r.value, r.ci_low, r.ci_high) == (est, lo, hi)
    assert r.ci_level in (95.0, None)
