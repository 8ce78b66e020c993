"""The two distribution backends (scipy for batches, mpmath for a few values) agree on real results and give the
same verdicts; the automatic choice keeps scipy out of a one-page run and loads it for a batch."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

from claimtrace.documents import load_document
from claimtrace.stats import analyze_document, compute_p
from claimtrace.stats.distributions import LIGHT_CALLS, use_backend
from conftest import shared_path

REPO = Path(__file__).resolve().parents[1]
VERDICTS = ("consistent", "decision_error", "significant", "ci_consistent", "ci_p_consistent", "flags")
#: real papers: the statcheck test papers and every fifth shared Psychological Science TEI
PAPERS_PER_SET = 10


def _papers() -> list[Path]:
    sc = sorted(shared_path("statistics", "statcheck-test-papers").glob("*.htm"))
    ps = sorted(shared_path("documents", "psychsci").glob("*.xml"))[::5][:PAPERS_PER_SET]
    return sc + ps


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(a), abs(b)) if (a or b) else 0.0


@pytest.fixture(scope="module")
def analysed() -> dict[str, list[list]]:
    """Each backend's results on the real papers (the same parsed documents)."""
    docs = [load_document(p) for p in _papers()]
    out = {}
    for name in ("scipy", "mpmath"):
        with use_backend(name):
            out[name] = [list(analyze_document(d)) for d in docs]
    return out


def test_same_verdicts_on_real_papers(analysed: dict[str, list[list]]) -> None:
    """Every verdict is identical and every recomputed p agrees to 1e-12 relative."""
    n = checked = 0
    for rs_s, rs_m in zip(analysed["scipy"], analysed["mpmath"], strict=True):
        assert len(rs_s) == len(rs_m)
        for a, b in zip(rs_s, rs_m, strict=True):
            n += 1
            assert [getattr(a, f) for f in VERDICTS] == [getattr(b, f) for f in VERDICTS], a.raw
            assert (a.computed_p is None) == (b.computed_p is None)
            if a.computed_p is not None:
                checked += 1
                assert _rel(a.computed_p, b.computed_p) <= 1e-12, (a.raw, a.computed_p, b.computed_p)
    assert n > 300 and checked > 150  # many real results, half of them or more checked


def test_p_agrees_over_rounding_ranges_and_tails(analysed: dict[str, list[list]]) -> None:
    """On the real statistics (t, F, χ², r, z), at the value and the ends of its rounding range, one- and
    two-tailed: both backends agree to 1e-12 relative; tested across every kind of test."""
    seen = set()
    kinds = set()
    for rs in analysed["scipy"]:
        for r in rs:
            if r.test in ("t", "F", "chi2", "Q", "r", "rho", "tau", "z") and r.value is not None:
                seen.add((r.test, r.value, r.df1, r.df2, r.n))
    assert len(seen) > 100
    for test, value, df1, df2, n in sorted(seen, key=str):
        for x in (value, abs(value) * 0.995, abs(value) * 1.005 if test not in ("r", "rho", "tau") else abs(value)):
            for one in (False, True):
                with use_backend("scipy"):
                    ps = compute_p(test, x, df1, df2, n=n, one_tailed=one)
                with use_backend("mpmath"):
                    pm = compute_p(test, x, df1, df2, n=n, one_tailed=one)
                assert (ps is None) == (pm is None)
                if ps is not None and pm is not None:
                    kinds.add(test)
                    assert _rel(ps, pm) <= 1e-12, (test, x, df1, df2, ps, pm)
    assert {"t", "F", "chi2", "r", "z"} <= kinds


#: extreme but reportable results: p down to 1e-280, huge and fractional df, statistics near 0
EXTREME = [("t", 40.0, 28.0, None), ("t", 30.0, 500.0, None), ("t", 0.001, 1e5, None), ("t", 2.0, 45.37, None),
           ("t", 5.0, 1.0, None), ("t", 1e-6, 10.0, None), ("F", 500.0, 1.0, 5000.0), ("F", 0.001, 3.0, 92.0),
           ("F", 80.0, 2.5, 33.3), ("F", 300.0, 1.0, 1e5), ("chi2", 900.0, 1.0, None), ("chi2", 0.0001, 5.0, None),
           ("chi2", 2000.0, 300.0, None), ("z", 35.0, None, None), ("z", 0.0, None, None), ("z", 1e-9, None, None),
           ("r", 0.999, 1000.0, None), ("r", 0.0001, 30.0, None), ("r", 0.95, 3.0, None)]


def _reference(test: str, x: float, df1: float | None, df2: float | None) -> float:
    """p at 200 bits with mpmath's incomplete beta/gamma functions (the truth both backends are held to)."""
    with mpmath.workprec(200):
        x_ = mpmath.mpf(x)
        if test == "z":
            return float(mpmath.erfc(x_ / mpmath.sqrt(2)))
        if test == "chi2":
            return float(mpmath.gammainc(mpmath.mpf(df1) / 2, x_ / 2, mpmath.inf, regularized=True))
        if test == "F":
            d1, d2 = mpmath.mpf(df1), mpmath.mpf(df2)
            return float(mpmath.betainc(d2 / 2, d1 / 2, 0, d2 / (d2 + d1 * x_), regularized=True))
        df = mpmath.mpf(df1)
        if test == "r":
            x_ = x_ * mpmath.sqrt(df / (1 - x_ * x_))
        return float(mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + x_ * x_), regularized=True))


@pytest.mark.parametrize(("test", "x", "df1", "df2"), EXTREME)
def test_extreme_p_both_backends_near_the_truth(test: str, x: float, df1: float | None, df2: float | None) -> None:
    """Far tails and edge values: each backend within 1e-11 relative of a 200-bit reference."""
    truth = _reference(test, x, df1, df2)
    for name in ("scipy", "mpmath"):
        with use_backend(name):
            p = compute_p(test, x, df1, df2)
        assert p is not None
        assert _rel(p, truth) <= 1e-11 or abs(p - truth) < 1e-300, (name, p, truth)


def _run(code: str) -> str:
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                          cwd=REPO).stdout.strip()


def test_auto_choice_few_values_then_a_batch() -> None:
    """A fresh process computes its first values with mpmath, without importing scipy; after ``LIGHT_CALLS``
    values (lowered to 20 here) it moves to scipy, whose p agrees."""
    assert LIGHT_CALLS >= 100
    out = _run("import sys; import claimtrace.stats.distributions as d\nd.LIGHT_CALLS = 20\n"
               "a = d.t_sf(2.41, 46.0); first = d.backend().name; sc = 'scipy' in sys.modules\n"
               "[d.t_sf(1.0 + i / 1000, 46.0) for i in range(20)]\n"
               "b = d.t_sf(2.41, 46.0)\n"
               "print(first, sc, d.backend().name, repr(a), repr(b))")
    first, sc, later, a, b = out.split()
    assert (first, sc, later) == ("mpmath", "False", "scipy")
    assert _rel(float(a), float(b)) <= 1e-12


def test_auto_choice_takes_scipy_once_any_of_it_is_loaded() -> None:
    """A process that has loaded part of scipy (a traces run: the text classifiers' scipy.sparse) takes scipy
    from its first value: the rest of it costs little then."""
    out = _run("import scipy.sparse; import claimtrace.stats.distributions as d\n"
               "d.t_sf(2.41, 46.0); print(d.backend().name)")
    assert out == "scipy"


def test_one_page_stats_run_does_not_import_scipy() -> None:
    """``claimtrace stats`` on a one-page text checks its results without loading scipy (start-up)."""
    out = _run("import sys, io, contextlib\nfrom claimtrace.cli import main\n"
               "sys.argv = ['claimtrace', 'stats', 'bench/data/startup_page.txt', '--json']\n"
               "buf = io.StringIO()\n"
               "with contextlib.redirect_stdout(buf):\n"
               "    try:\n        main()\n    except SystemExit:\n        pass\n"
               "import json; d = json.loads(buf.getvalue())\n"
               "print('scipy' in sys.modules, sum(r['computed_p'] is not None for r in d['results']))")
    assert out.split() == ["False", "6"]


def test_unknown_backend_is_refused() -> None:
    """Pinning a backend that does not exist is a clear error."""
    with pytest.raises(ValueError, match="unknown distributions backend"), use_backend("boost"):  # type: ignore[arg-type]
        pass
    assert math.isfinite(compute_p("t", 2.0, 10.0, None) or math.nan)
