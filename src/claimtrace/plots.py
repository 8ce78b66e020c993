"""Plotting, the neutral home (matplotlib, headless, imported on first use): the figure helpers every layer
draws with, and the forest plot (one row per effect estimate with its confidence interval) that both study
conclusions (``claimtrace.conclude``) and meta-analyses (``claimtrace.numbers.meta``) draw."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from claimtrace.errors import ClaimtraceError


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the headless Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(plt: Any, fig: Any, path: str | Path) -> Path:
    """Lay out, write the PNG (creating its folder) and close the figure."""
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return out


class ForestRow(BaseModel):
    """One row: a study (or question) label and its estimate with CI."""

    label: str
    value: float
    ci_low: float
    ci_high: float
    ratio: bool = False


def forest_plot(rows: Sequence[ForestRow], path: str | Path, *, title: str | None = None) -> Path:
    """Draw the rows (ratios on a log axis with the null at 1, differences with the null at 0) to a PNG."""
    if not rows:
        raise ClaimtraceError("forest plot: no effect estimates with confidence intervals were parsed")
    plt = pyplot()
    ratio = all(r.ratio for r in rows)
    usable = [r for r in rows if not ratio or min(r.value, r.ci_low, r.ci_high) > 0]
    if not usable:
        raise ClaimtraceError("forest plot: no estimate can be drawn")
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * len(usable) + 1.4))
    ys = list(range(len(usable)))[::-1]
    for y, r in zip(ys, usable, strict=True):
        ax.plot([r.ci_low, r.ci_high], [y, y], color="black", lw=1.3)
        ax.plot([r.value], [y], marker="s", color="tab:blue", ms=6)
    null = 1.0 if ratio else 0.0
    ax.axvline(null, color="grey", ls="--", lw=1)
    if ratio:
        ax.set_xscale("log")
        ax.set_xlabel("ratio (log scale)")
    else:
        ax.set_xlabel("difference" if all(not r.ratio for r in usable) else "estimate (ratios and differences mixed)")
    ax.set_yticks(ys)
    ax.set_yticklabels([r.label[:60] for r in usable], fontsize=8)
    ax.set_title(title or "Effect estimates (95% CI)", fontsize=10)
    lo = min(r.ci_low for r in usable)
    hi = max(r.ci_high for r in usable)
    if ratio:
        ax.set_xlim(min(lo, null) / 1.3, max(hi, null) * 1.3)
    else:
        pad = 0.08 * (max(hi, null) - min(lo, null) or 1.0)
        ax.set_xlim(min(lo, null) - pad, max(hi, null) + pad)
    fig.tight_layout()
    out = Path(path)
    if out.parent and not out.parent.exists():
        raise ClaimtraceError(f"forest plot: folder {out.parent} does not exist")
    fig.savefig(out, dpi=120)
    plt.close(fig)
    if not math.isfinite(out.stat().st_size) or out.stat().st_size == 0:  # pragma: no cover
        raise ClaimtraceError(f"forest plot: nothing written to {out}")
    return out
