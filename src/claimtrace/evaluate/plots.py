"""PNG plots of evaluation results (matplotlib, headless)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from claimtrace.evaluate.hypothesis import CurvePoint
from claimtrace.plots import pyplot as _plt
from claimtrace.plots import save as _save


def plot_tau_curve(points: Sequence[CurvePoint], path: str | Path, *, best_tau: float | None = None,
                   title: str = "F1 against τ") -> Path:
    """Plot precision, recall and F1 against τ; mark ``best_tau``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    taus = [p.tau for p in points]
    ax.plot(taus, [p.f1 for p in points], label="F1", lw=2)
    ax.plot(taus, [p.precision for p in points], label="precision", lw=1, ls="--")
    ax.plot(taus, [p.recall for p in points], label="recall", lw=1, ls=":")
    if best_tau is not None:
        ax.axvline(best_tau, color="grey", lw=1)
        ax.annotate(f"τ = {best_tau:.2f}", (best_tau, 0.02), xytext=(4, 0), textcoords="offset points")
    ax.set_xlabel("τ (cosine threshold)")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.legend()
    return _save(plt, fig, path)


def plot_lines(series: Mapping[str, Sequence[tuple[float, float]]], path: str | Path, *, xlabel: str,
               ylabel: str, title: str, marker: str | None = "o") -> Path:
    """One line per named series of (x, y) points."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, pts in series.items():
        pts = sorted(pts)
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker=marker, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(series) > 4:  # many lines: the legend goes beside the axes, not over the curves
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    else:
        ax.legend()
    return _save(plt, fig, path)


def plot_scatter(points: Mapping[str, Sequence[tuple[float, float]]], path: str | Path, *, xlabel: str,
                 ylabel: str, title: str) -> Path:
    """A scatter plot, one colour per named group."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, pts in points.items():
        ax.scatter([x for x, _ in pts], [y for _, y in pts], label=name, s=14, alpha=0.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def plot_bars(groups: Mapping[str, Mapping[str, float]], path: str | Path, *, ylabel: str, title: str) -> Path:
    """Grouped bars: ``groups[group][bar] = value``."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    names = list(groups)
    bars = sorted({b for g in groups.values() for b in g})
    width = 0.8 / max(len(bars), 1)
    for j, b in enumerate(bars):
        ax.bar([i + j * width for i in range(len(names))], [groups[n].get(b, 0.0) for n in names],
               width=width, label=b)
    ax.set_xticks([i + width * (len(bars) - 1) / 2 for i in range(len(names))])
    ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    return _save(plt, fig, path)
