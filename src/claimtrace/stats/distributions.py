"""The distribution functions the statistics engine needs: survival functions of t, z, F and χ², and the normal
quantile of a CI level, from one of two backends chosen automatically.

- ``scipy`` (``scipy.special``: stdtr, ndtr, fdtrc, chdtrc, ndtri): fast per call (about a microsecond), but
  importing it takes about half a second, more than a one-page ``claimtrace stats`` run needs in all.
- ``mpmath`` (BSD; the regularised incomplete beta and gamma functions at double precision, inputs formed at
  higher precision) and the standard library (``math.erfc``, ``statistics.NormalDist``): imported in a fifth of
  the time, but about a millisecond per value; where its series do not converge (a huge statistic with a huge
  df, p far below the smallest double) the value comes from scipy.

The choice (``backend()``): scipy once any part of it is imported (numpy and scipy's base paid for, as in a
traces run, where the text classifiers load scipy.sparse: scipy.special then costs about 0.1 s more), or after
``LIGHT_CALLS`` values (a batch: the half-second import then pays for itself); mpmath before. Both agree with each other to 1e-12 relative on real
results, extreme p included (``tests/test_distributions.py``), and so give the same verdicts.
``use_backend(name)`` pins one (tests, benchmarks).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, NamedTuple

BackendName = Literal["scipy", "mpmath"]

#: values computed with mpmath before the batch backend (scipy) is loaded: about its import time over the
#: cost of one mpmath value (0.5 s / ~1 ms), so a batch never pays more than twice the better choice
LIGHT_CALLS = 500


class Backend(NamedTuple):
    """One implementation of the distribution functions (x >= 0, df > 0 for the survival functions)."""

    name: BackendName
    t_sf: Callable[[float, float], float]
    norm_sf: Callable[[float], float]
    f_sf: Callable[[float, float, float], float]
    chi2_sf: Callable[[float, float], float]
    norm_isf: Callable[[float], float]


def _scipy_backend() -> Backend:
    from scipy import special

    def t_sf(x: float, df: float) -> float:
        return float(special.stdtr(df, -x))

    def norm_sf(x: float) -> float:
        return float(special.ndtr(-x))

    def f_sf(x: float, df1: float, df2: float) -> float:
        return 1.0 if x <= 0 else float(special.fdtrc(df1, df2, x))

    def chi2_sf(x: float, df: float) -> float:
        return 1.0 if x <= 0 else float(special.chdtrc(df, x))

    def norm_isf(q: float) -> float:
        return float(special.ndtri(1.0 - q))

    return Backend("scipy", t_sf, norm_sf, f_sf, chi2_sf, norm_isf)


def _mpmath_backend() -> Backend:
    import mpmath

    mpf, betainc, gammainc, workprec = mpmath.mpf, mpmath.betainc, mpmath.gammainc, mpmath.workprec
    # the argument of the incomplete beta function, df / (df + x^2), is formed exactly (at 160 bits) from the
    # double inputs: near 1 (small t, large df) a double would lose the digits that p depends on
    extra = 160

    def t_sf(x: float, df: float) -> float:
        if x == 0:
            return 0.5
        if x < 0:
            return 1.0 - t_sf(-x, df)
        with workprec(extra):
            z = mpf(df) / (mpf(df) + mpf(x) * mpf(x))
            a = mpf(df) / 2
        return float(betainc(a, 0.5, 0, z, regularized=True)) / 2

    def norm_sf(x: float) -> float:
        return 0.5 * math.erfc(x / math.sqrt(2.0))

    def f_sf(x: float, df1: float, df2: float) -> float:
        if x <= 0:
            return 1.0
        with workprec(extra):
            z = mpf(df2) / (mpf(df2) + mpf(df1) * mpf(x))
            a, b = mpf(df2) / 2, mpf(df1) / 2
        return float(betainc(a, b, 0, z, regularized=True))

    def chi2_sf(x: float, df: float) -> float:
        if x <= 0:
            return 1.0
        return float(gammainc(mpf(df) / 2, mpf(x) / 2, mpmath.inf, regularized=True))

    def norm_isf(q: float) -> float:
        from statistics import NormalDist

        return NormalDist().inv_cdf(1.0 - q)

    def or_scipy(f: Callable[..., float], name: str) -> Callable[..., float]:
        """``f``, or scipy's value where mpmath's series do not converge (a huge statistic with a huge df, whose
        p lies far below the smallest double)."""
        def value(*args: float) -> float:
            try:
                return f(*args)
            except (mpmath.libmp.NoConvergence, ValueError):  # mpmath: "failed to converge"
                return float(getattr(_get("scipy"), name)(*args))

        return value

    return Backend("mpmath", or_scipy(t_sf, "t_sf"), norm_sf, or_scipy(f_sf, "f_sf"), or_scipy(chi2_sf, "chi2_sf"),
                   norm_isf)


_LOADERS: dict[str, Callable[[], Backend]] = {"scipy": _scipy_backend, "mpmath": _mpmath_backend}
_loaded: dict[str, Backend] = {}
_state: dict[str, Any] = {"pinned": None, "light_calls": 0}


def _get(name: str) -> Backend:
    b = _loaded.get(name)
    if b is None:
        b = _loaded[name] = _LOADERS[name]()
    return b


def backend() -> Backend:
    """The backend for the next value: a pinned one, else scipy once any of scipy is imported or a batch is under
    way, else mpmath."""
    pinned = _state["pinned"]
    if pinned is not None:
        return _get(pinned)
    b = _loaded.get("scipy")
    if b is not None:
        return b
    if _state["light_calls"] >= LIGHT_CALLS or "scipy" in sys.modules:
        return _get("scipy")
    _state["light_calls"] += 1
    return _get("mpmath")


@contextmanager
def use_backend(name: BackendName) -> Iterator[Backend]:
    """Pin the backend inside a ``with`` block (tests and benchmarks)."""
    if name not in _LOADERS:
        raise ValueError(f"unknown distributions backend {name!r} (choose from {', '.join(_LOADERS)})")
    before = _state["pinned"]
    _state["pinned"] = name
    try:
        yield _get(name)
    finally:
        _state["pinned"] = before


def t_sf(x: float, df: float) -> float:
    """P(T > x) of Student's t with ``df`` degrees of freedom."""
    return backend().t_sf(x, df)


def norm_sf(x: float) -> float:
    """P(Z > x) of the standard normal."""
    return backend().norm_sf(x)


def f_sf(x: float, df1: float, df2: float) -> float:
    """P(F > x) of the F distribution with (``df1``, ``df2``) degrees of freedom."""
    return backend().f_sf(x, df1, df2)


def chi2_sf(x: float, df: float) -> float:
    """P(χ² > x) of the χ² distribution with ``df`` degrees of freedom."""
    return backend().chi2_sf(x, df)


def norm_isf(q: float) -> float:
    """The standard normal's upper quantile: z with P(Z > z) = q."""
    return backend().norm_isf(q)
