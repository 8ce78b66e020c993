"""The grouping step: component tokens, left to right, into results (``group_tokens``), and which are kept (``is_kept``)."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from claimtrace.patterns import bind_lazy, lazy
from claimtrace.stats.lexicon import _ESTIMATE_TESTS, NUM, _num
from claimtrace.stats.model import (
    EFFECT_SIZES,
    RATIO_TESTS,
)
from claimtrace.stats.scanners import _BREAK_RE, _Tok

_START = attrgetter("start")


@dataclass(slots=True)
class Res:
    """A result while the engine builds it (slotted, internal); the parser turns each kept one into a StatResult."""

    kind: str
    start: int
    end: int
    last: int
    fields: dict[str, Any] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    effects: list[tuple[str, float, int, int]] = field(default_factory=list)
    descs: list[_Tok] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)



# ---------------------------------------------------------------------------------------------
# grouping
def _gap_ok(t: str, a: int, b: int, limit: int) -> bool:
    if b < a:
        return True
    # _BREAK_RE has no anchors, and its look-behinds look at what it matched: searching t between a and b is
    # searching t[a:b]
    n = len(t)
    return (b if b < n else n) - a <= limit and not _BREAK_RE.search(t, a, b)


def group_tokens(t: str, toks: list[_Tok]) -> list[Res]:
    """The component tokens of ``t``, left to right, grouped into results (each still to be kept or not)."""
    primary = [tk for tk in toks if tk.kind in ("test", "p", "ci")]
    primary.sort(key=lambda tk: (tk.start, -tk.end))
    # drop primaries nested inside an earlier one (a CI inside a test's bare CI, a "p" inside a name)
    kept: list[_Tok] = []
    for tk in primary:
        if kept and tk.start < kept[-1].end and tk.kind == kept[-1].kind:
            continue
        if kept and tk.kind == "ci" and kept[-1].kind == "test" and "ci" in kept[-1].data and tk.start < kept[-1].end:
            continue
        if kept and tk.kind == "test" and kept[-1].kind == "p" and tk.start < kept[-1].end:
            continue
        kept.append(tk)
    # a minor token overlaps a kept one iff some kept token starting before its end ends after its start
    # (``kept`` is sorted by start: bisect on the starts, running maximum of the ends)
    starts = [tk.start for tk in kept]
    max_end: list[int] = []
    for tk in kept:
        max_end.append(tk.end if not max_end or tk.end > max_end[-1] else max_end[-1])
    minor = sorted((tk for tk in toks if tk.kind not in ("test", "p", "ci")
                    and not ((k := bisect_left(starts, tk.end)) > 0 and max_end[k - 1] > tk.start)),
                   key=_START)
    # descriptives: drop those overlapping one another (keep the first, longest)
    descs: list[_Tok] = []
    for tk in sorted((tk for tk in minor if tk.kind == "desc"),
                     key=lambda tk: (tk.start, tk.data["kind"] not in ("mean", "sd"), -tk.end)):
        if descs and tk.start < descs[-1].end:
            continue
        descs.append(tk)
    others = [tk for tk in minor if tk.kind != "desc"]
    # by start, primary tokens first where starts tie: every primary token is in ``kept``, which comes first, and
    # the sort is stable
    events = sorted(kept + descs + others, key=_START)

    results: list[Res] = []
    cur: Res | None = None
    pending_desc: list[_Tok] = []
    pending_n: _Tok | None = None

    def open_result(kind: str, tk: _Tok) -> Res:
        nonlocal pending_desc, pending_n
        r = Res(kind, tk.start, tk.end, tk.end)
        if pending_desc and _gap_ok(t, pending_desc[-1].end, tk.start, 120):
            # keep the descriptives of this sentence only
            r.descs = [d for d in pending_desc if _gap_ok(t, d.end, tk.start, 400)]
            if r.descs:
                r.start = min(r.start, r.descs[0].start)
        pending_desc = []
        if pending_n is not None and _gap_ok(t, pending_n.end, tk.start, 60):
            r.fields["n"] = pending_n.data["n"]
            r.fields["n_per_group"] = pending_n.data["per"]
            r.spans["n"] = (pending_n.start, pending_n.end)
            r.start = min(r.start, pending_n.start)
        pending_n = None
        results.append(r)
        return r

    for tk in events:
        # "close" (the gap to the open result: _gap_ok(t, cur.last, tk.start, 45)) is asked last in each test below
        if tk.kind == "test":
            d = tk.data
            if (cur is not None and d["test"] in EFFECT_SIZES and cur.kind == "test"
                    and cur.fields.get("test") not in EFFECT_SIZES and not d.get("has_df")
                    and _gap_ok(t, cur.last, tk.start, 45)):
                cur.effects.append((d["test"], d["value"], tk.start, tk.end))
                cur.last = cur.end = cur.end if cur.end > tk.end else tk.end
                continue
            ratio = d["test"] in ("t", "z") and _coef_ratio(t, cur, tk)
            cur = open_result("estimate" if d["test"] in _ESTIMATE_TESTS else "test", tk)
            if ratio:
                cur.fields["test_detail"] = COEF_RATIO
            for key in ("test", "test_text", "test_detail", "value", "df1", "df2", "n", "comparison", "se",
                        "p_comparison", "p_value", "planned"):
                if key in d:
                    cur.fields[key] = d[key]
            cur.spans.update(d["spans"])
            cur.repaired.extend(d["repaired"])
            if "ci" in d:
                _set_ci(cur, d["ci"])
        elif tk.kind == "p":
            # a p that names its own null hypothesis ("p value (beta_m = beta_c) = .000") tests a comparison of
            # the estimates before it, not the last of them: it stands alone
            if (cur is not None and "p_comparison" not in cur.fields and not tk.data.get("verbal")
                    and not tk.data.get("p_detail", "").startswith("H0:") and _gap_ok(t, cur.last, tk.start, 45)):
                target = cur
            else:
                if tk.data.get("verbal"):  # no numbers of its own: descriptives and N before it are not its
                    pending_desc, pending_n = [], None
                cur = target = open_result("p", tk)
                if tk.data.get("verbal"):  # a test named in words, reported not significant: its own result
                    target.fields["test"] = tk.data["test"]
                    target.fields["test_text"] = tk.data["test_text"]
                    target.spans["test"] = tk.data["spans"]["test"]
            target.fields["p_comparison"] = tk.data["p_comparison"]
            target.fields["p_value"] = tk.data["p_value"]
            if tk.data.get("one_tailed"):
                target.fields["one_tailed"] = True
            if tk.data.get("p_detail") and "test_detail" not in target.fields:
                target.fields["test_detail"] = tk.data["p_detail"]
            target.spans["p"] = tk.data["spans"]["p_value"]
            target.spans["p_full"] = tk.data["spans"]["p"]
            target.repaired.extend(tk.data.get("repaired", []))
            target.last = target.end = target.end if target.end > tk.end else tk.end
        elif tk.kind == "ci":
            if cur is not None and cur.effects and cur.effects[-1][3] == cur.last and _gap_ok(t, cur.last, tk.start, 35):
                # right after the result's effect size ("..., d = 0.66, 95% CI [0.02, 1.30]"): the effect's own CI
                before = cur
                cur = target = open_result("estimate", tk)
                _estimate_before(t, target, tk.start)
                _own_ci_of_effect(before, target)
            elif cur is not None and "ci_low" not in cur.fields and (
                    "p_comparison" not in cur.fields or cur.kind in ("test", "estimate")) and _gap_ok(t, cur.last, tk.start, 35):
                target = cur
            else:
                prev = cur
                cur = target = open_result("estimate", tk)
                _estimate_before(t, target, tk.start)
                _own_ci_of_effect(prev, target)
            _set_ci(target, tk.data["ci"])
            if tk.data.get("swapped"):
                target.repaired.append("CI bounds written high first")
            target.spans["ci_full"] = (tk.start, tk.end)
            target.last = target.end = target.end if target.end > tk.end else tk.end
        elif tk.kind == "n":
            if cur is not None and "n" not in cur.fields and _gap_ok(t, cur.last, tk.start, 45):
                cur.fields["n"] = tk.data["n"]
                cur.fields["n_per_group"] = tk.data["per"]
                cur.spans["n"] = (tk.start, tk.end)
                cur.last = cur.end = cur.end if cur.end > tk.end else tk.end
            else:
                pending_n = tk
        elif tk.kind == "se":
            if cur is not None and cur.kind != "p" and "se" not in cur.fields and _gap_ok(t, cur.last, tk.start, 45):
                cur.fields["se"] = tk.data["se"]
                x, y = tk.data.get("num_at", (0, tk.end - tk.start))
                cur.spans["se"] = (tk.start + x, tk.start + y)
                cur.last = cur.end = cur.end if cur.end > tk.end else tk.end
        elif tk.kind == "desc":
            pending_desc = [d for d in pending_desc if _gap_ok(t, d.end, tk.start, 400)]
            pending_desc.append(tk)
    for r in results:  # a t or z that has its own p or df needs no coefficient to be a result: the detail goes
        if r.fields.get("test_detail") == COEF_RATIO and ("p_comparison" in r.fields or "df1" in r.fields):
            del r.fields["test_detail"]
    return results


def _named(name: str | None) -> bool:
    return name is not None and len(name) > 2 and ("stat" in name or "value" in name or "ratio" in name)


# the test_detail of a t or z without df that follows a coefficient: the coefficient's own ratio to its SE
# ("b = .21, t = 3.10", "coefficient 0.21 (t = 2.45)", "Long-short beta 0.32, t-stat 1.81")
COEF_RATIO = "ratio of the coefficient before it"


def _coef_ratio(t: str, cur: Res | None, tk: _Tok) -> bool:
    """Whether the t or z test token ``tk`` (no df) is the ratio of the coefficient just before it."""
    d = tk.data
    if d["test"] not in ("t", "z") or d.get("has_df") or "p_comparison" in d:
        return False
    if (cur is not None and cur.fields.get("test") in ("b", "beta") and "p_comparison" not in cur.fields
            and "ci_low" not in cur.fields and _gap_ok(t, cur.last, tk.start, 20)):
        return True
    # a bare estimate with its ratio in parentheses, as tables print it: "0.42 (t = 3.10)", "-0.19 [z = -2.2]"
    return tk.start >= 3 and _NUM_PAREN_BEFORE.search(t, tk.start - 24 if tk.start > 24 else 0, tk.start) is not None


_NUM_PAREN_BEFORE = lazy(r"(?<![\w.])[-+]?(?:\d+\.\d+|\.\d+)\*{0,3}\s*[(\[]\s*$")


def _own_ci_of_effect(prev: Res | None, r: Res) -> None:
    """"t(40) = 2.1, p = .04, d = 0.66, 95% CI [0.02, 1.30]": the CI is the effect size's, not a test-less estimate.

    When the point estimate a CI opened with is the last effect size of the result before, that effect leaves
    the result before and becomes this result's test and value.
    """
    if prev is None or not prev.effects or "value" not in r.fields or "test" in r.fields:
        return
    measure, value, e_start, e_end = prev.effects[-1]
    vs, ve = r.spans["value"]
    if not (e_start <= vs and ve <= e_end) or value != r.fields["value"]:
        return
    prev.effects.pop()
    ends = [e for _, e in prev.spans.values()] + [x[3] for x in prev.effects]
    if ends:
        prev.end = prev.last = max(ends)
    r.kind = "test"
    r.fields["test"] = measure
    r.fields["test_text"] = measure
    r.start = min(r.start, e_start)


def _set_ci(r: Res, ci: tuple[float | None, float, float, int, int]) -> None:
    lvl, lo, hi, s, e = ci
    r.fields["ci_level"] = lvl
    r.fields["ci_low"] = lo
    r.fields["ci_high"] = hi
    r.spans["ci"] = (s, e)
    r.end = max(r.end, e)
    r.last = max(r.last, e)


_EST_BEFORE = lazy(
    r"(?P<v>(?:[-+]\s?)?" + NUM + r")(?![\d.])\s*(?:%|[a-zA-Zμµ]{1,10}(?:/[a-zA-Z0-9]+)?)?\s*[,;:(\[]?\s*$"
)


def _estimate_before(t: str, r: Res, ci_start: int) -> None:
    """A CI that opens a result: take the point estimate written just before it, if any."""
    window = t[max(0, ci_start - 30) : ci_start]
    m = _EST_BEFORE.search(window)
    if not m:
        return
    base = ci_start - len(window)
    if window[max(0, m.start("v") - 1) : m.start("v")] in ("/", ":") or re.search(r"\d\s*(?:/|of)\s*$", window[: m.start("v")]):
        return  # the denominator of a count ("20/339; 95% CI ...") is no point estimate
    r.fields["value"] = _num(m.group("v"))
    r.spans["value"] = (base + m.start("v"), base + m.end("v"))
    r.start = min(r.start, base + m.start("v"))
    ctx = t[max(0, ci_start - 80) : ci_start].lower()
    if "mean difference" in ctx:
        r.fields.setdefault("test", "MD")
    elif "risk difference" in ctx:
        r.fields.setdefault("test", "RD")


# ---------------------------------------------------------------------------------------------
def is_kept(r: Res) -> bool:
    """Whether a grouped result is a result (a test with support, an estimate with a CI, a p with a context...)."""
    f = r.fields
    test = f.get("test")
    has_support = "p_comparison" in f or "ci_low" in f or "se" in f or "stars" in r.spans
    v = f.get("value")
    if r.kind == "p":
        return "p_comparison" in f
    if r.kind == "estimate" and test is None:
        return "ci_low" in f
    if test is None or v is None:
        return False
    has_df = "df1" in f
    if test in ("r", "rho", "tau") and abs(v) > 1:
        return False
    if test in ("eta2", "partial_eta2", "omega2", "R2") and not 0 <= v <= 1:
        return False
    if test in ("F", "chi2", "Q", "H", "U", "W", "f", "f2") and v < 0:
        return False
    if test in RATIO_TESTS and not (0 < v < 50):
        return False
    if test in ("d", "g") and abs(v) >= 10:
        return False
    if test in _ESTIMATE_TESTS or test in ("b", "beta"):
        return has_support
    if test in ("t", "F", "z", "chi2") and (_named(f.get("test_text")) or f.get("test_detail") == COEF_RATIO):
        return True  # "t-statistic = -2.49": named in full, a result even without df or p; or a coefficient's t
    if has_df:
        return True
    if test in ("r", "rho", "tau", "d", "g", "eta2", "partial_eta2", "omega2", "R2", "f", "f2"):
        return True
    return has_support


bind_lazy(globals())  # the patterns above compile on first use (claimtrace.patterns)
