"""Property-based: each PDF-damage form (issue 13, item 5) generated from random results parses back.

Forms (named in ``FORMS``): ``chi2-lost`` ("?2(20) = 17.08"), ``chi2-lost-double`` ("??2(10)"),
``chi2-underscore`` ("chi_2(28)"), ``stray-B`` ("BF(2,56) = 1.203"), ``letters-for-symbols``
("Fs(1, 248)b1.16, psN.28": b for <, N for >), ``x2-p-for-equals`` ("x2 (1, N p 84) p 86.32, p ! .01"),
``control-minus`` (control characters around a minus sign), ``garbled-minus`` ("%^&2.20"), ``named-Q``
(QT, QBetween, QWithin, Qb, Qw, QE, Q-within, Q-between), ``F-subscript-df`` (F's df written as a subscript:
"F_1, 177 = 2.42"), ``macroman-minus`` (a minus or dash sent as UTF-8 and read as Mac Roman: "t(20) = ‚àí2.10").
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from claimtrace.stats import StatResult, parse

FORMS = ("chi2-lost", "chi2-lost-double", "chi2-underscore", "stray-B", "letters-for-symbols", "x2-p-for-equals",
         "control-minus", "garbled-minus", "named-Q", "F-subscript-df", "macroman-minus")
_Q = {"QT": "total", "QBetween": "between", "QWithin": "within", "Qb": "between", "Qw": "within", "QE": "error",
      "Q-within": "within", "Q-between": "between"}
_CONTROL = ["\x02", "\x03", "\x07", "\x1b"]


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, str, dict[str, object]]:
    """(form, damaged text, the values it must parse to)."""
    form = draw(st.sampled_from(FORMS))
    df1 = draw(st.integers(1, 300))
    df2 = draw(st.integers(2, 900))
    value = round(draw(st.floats(0.01, 90.0)), 2)
    p = round(draw(st.floats(0.001, 0.99)), 3)
    pt = f"{p:.3f}".lstrip("0")
    want: dict[str, object] = {"value": value, "df1": float(df1), "p_value": p, "p_comparison": "="}
    if form == "chi2-lost":
        text = f"?2({df1}) = {value:.2f}, p = {pt}"
        want["test"] = "chi2"
    elif form == "chi2-lost-double":
        text = f"??2({df1}) = {value:.2f}, p = {pt}"
        want["test"] = "chi2"
    elif form == "chi2-underscore":
        text = f"chi_2({df1}) = {value:.2f}, p = {pt}"
        want["test"] = "chi2"
    elif form == "stray-B":
        text = f"BF({df1},{df2}) = {value:.3f}, p = {pt}"
        want.update(test="F", df2=float(df2))
    elif form == "letters-for-symbols":
        text = f"Fs({df1}, {df2})b{value:.2f}, psN{pt}"
        want.update(test="F", df2=float(df2), comparison="<", p_comparison=">")
    elif form == "x2-p-for-equals":
        n = draw(st.integers(10, 999))
        text = f"x2 ({df1}, N p {n}) p {value:.2f}, p ! {pt}"
        want.update(test="chi2", n=n, p_comparison="<")
    elif form == "control-minus":
        c = draw(st.sampled_from(_CONTROL))
        shape = draw(st.sampled_from(["{c}", "{c} ", "{c}-", "-{c}"]))
        text = f"t({df1}) = {shape.format(c=c)}{value:.2f}, p = {pt}"
        want.update(test="t", value=-value)
    elif form == "garbled-minus":
        run = draw(st.sampled_from(["%^&", "&^%", "^&", "#@~"]))
        text = f"t({df1}) = {run}{value:.2f}, p = {pt}"
        want.update(test="t", value=-value)
    elif form == "F-subscript-df":
        text = f"F_{df1}, {df2} = {value:.2f}, p = {pt}"
        want.update(test="F", df2=float(df2))
    elif form == "macroman-minus":
        dash = draw(st.sampled_from(["\u201a\u00e0\u00ed", "\u201a\u00c4\u00ec", "\u201a\u00c4\u00ee"]))
        text = f"t({df1}) = {dash}{value:.2f}, p = {pt}"
        want.update(test="t", value=-value)
    else:
        name = draw(st.sampled_from(sorted(_Q)))
        text = f"{name}({df1}) = {value:.2f}, p = {pt}"
        want.update(test="Q", test_detail=_Q[name])
    sentence = draw(st.sampled_from(["{}", "The effect was reliable, {}.", "As predicted ({})."]))
    return form, sentence.format(text), want


def _check(r: StatResult, want: dict[str, object]) -> None:
    for key, val in want.items():
        assert getattr(r, key) == val, (key, getattr(r, key), val)


@settings(max_examples=400, deadline=None)
@given(damaged())
def test_damage_forms_parse_back(case: tuple[str, str, dict[str, object]]) -> None:
    form, text, want = case
    res = [r for r in parse(text) if r.kind == "test"]
    assert len(res) == 1, (form, text, res)
    _check(res[0], want)
    r = res[0]
    assert text[r.start : r.end] == r.text  # offsets index the damaged text as given


def test_never_from_years_pages_or_references() -> None:
    assert parse("Smith, J. (2019). Title. Journal, 12(3), 45-67. doi:10.1000/xyz") == []
    assert parse("Table 2 (1996-2004), pp. 112-118, Model 3 (N p 84)") == []
    assert parse("Bayes factors, BF(10) = 3.2, favoured the null.") == []  # a Bayes factor is not a damaged F
