"""The corpus screening report: each check's rate across papers, a p-value histogram and a p-curve.

Read from a results store's ``checks`` and ``statistics`` tables (``claimtrace run --steps stats,checks``).
The p-curve follows Simonsohn, Nelson & Simmons (2014, J Exp Psychol Gen 143:534): the significant
p-values (p < .05) recomputed from the reported test statistics, as shares of the five bins
.00-.01, .01-.02, .02-.03, .03-.04, .04-.05 (each bin holds its lower edge), against the 20% a true null gives.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from claimtrace.corpus.query import connect
from claimtrace.corpus.store import Store
from claimtrace.errors import InputError
from claimtrace.schema_version import SCHEMA_VERSION

SEVERITIES = ("info", "warn", "error")
P_CURVE_EDGES = (0.0, 0.01, 0.02, 0.03, 0.04, 0.05)
HISTOGRAM_BINS = 20


class Rate(BaseModel):
    """Papers with at least one row of a kind, out of the papers checked, with a 95% Wilson interval."""

    papers: int
    rate: float | None
    ci95: tuple[float, float] | None


class CheckRate(BaseModel):
    """One check across the corpus: papers flagged (warn or error) and papers per severity."""

    check_id: str
    flagged: Rate
    by_severity: dict[str, Rate]


class Bin(BaseModel):
    """One histogram bin: [low, high), its count and share of the values."""

    low: float
    high: float
    count: int
    share: float | None


class CorpusReport(BaseModel):
    """``claimtrace report --json``: check rates, the p-value histogram and the p-curve of one results store."""

    schema_version: str = SCHEMA_VERSION
    results_dir: str
    papers: int = Field(description="papers in the store")
    papers_checked: int = Field(description="papers whose checks step is done (the denominator of the rates)")
    checks: list[CheckRate] = Field(default_factory=list)
    p_values: int = Field(0, description="exactly reported p-values (p = x) in the histogram")
    p_histogram: list[Bin] = Field(default_factory=list)
    p_curve_n: int = Field(0, description="significant p-values recomputed from a test statistic")
    p_curve_papers: int = 0
    p_curve: list[Bin] = Field(default_factory=list)
    figures: dict[str, str] = Field(default_factory=dict, description="PNG files written, relative to --out")


def wilson(k: int, n: int) -> tuple[float, float] | None:
    """The 95% Wilson interval of k successes out of n (None when n is 0)."""
    if n == 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (round(float(ci.low), 4), round(float(ci.high), 4))


def _rate(k: int, n: int) -> Rate:
    return Rate(papers=k, rate=round(k / n, 4) if n else None, ci95=wilson(k, n))


def _bins(values: list[float], edges: list[float]) -> list[Bin]:
    import numpy as np

    counts, _ = np.histogram(np.asarray(values, dtype=float), bins=np.asarray(edges, dtype=float))
    total = int(counts.sum())
    return [Bin(low=round(edges[i], 4), high=round(edges[i + 1], 4), count=int(c),
                share=round(int(c) / total, 4) if total else None) for i, c in enumerate(counts)]


def corpus_report(results_dir: str | Path) -> CorpusReport:
    """Compute the report of a results store (raises InputError when the folder is not one)."""
    root = Path(results_dir)
    if not Store.is_store(root):
        raise InputError(str(root), "not a claimtrace results folder (no manifest; write one with claimtrace run)")
    con = connect(root)
    papers = con.execute("select count(*) from papers").fetchone()[0]
    checked = con.execute("select count(*) from papers where checks_key is not null").fetchone()[0]
    per: dict[str, dict[str, int]] = {}
    for check_id, sev, n in con.execute(
            "select check_id, severity, count(distinct paper_id) from checks group by all").fetchall():
        per.setdefault(check_id, {})[sev] = n
    flagged = dict(con.execute("select check_id, count(distinct paper_id) from checks "
                               "where severity in ('warn', 'error') group by all").fetchall())
    rates = [CheckRate(check_id=c, flagged=_rate(flagged.get(c, 0), checked),
                       by_severity={s: _rate(per[c].get(s, 0), checked) for s in SEVERITIES})
             for c in sorted(per)]
    exact = [r[0] for r in con.execute("select p_value from statistics where p_comparison = '=' and p_value "
                                       "between 0 and 1").fetchall()]
    sig = con.execute("select computed_p, paper_id from statistics where kind = 'test' and computed_p >= 0 "
                      "and computed_p < 0.05").fetchall()
    edges = [i / HISTOGRAM_BINS for i in range(HISTOGRAM_BINS + 1)]
    return CorpusReport(results_dir=str(root), papers=papers, papers_checked=checked, checks=rates,
                        p_values=len(exact), p_histogram=_bins(exact, edges),
                        p_curve_n=len(sig), p_curve_papers=len({p for _, p in sig}),
                        p_curve=_bins([p for p, _ in sig], list(P_CURVE_EDGES)))


def write_figures(report: CorpusReport, out: Path) -> dict[str, str]:
    """Draw the p-value histogram and the p-curve as PNGs in ``out``; returns their file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar([b.low for b in report.p_histogram], [b.count for b in report.p_histogram],
           width=1 / HISTOGRAM_BINS, align="edge", color="#4c72b0", edgecolor="white")
    ax.axvline(0.05, color="#c44e52", linestyle="--", linewidth=1)
    ax.set(xlabel="reported p (exact values)", ylabel="results", xlim=(0, 1),
           title=f"p-values, n = {report.p_values}")
    fig.tight_layout()
    fig.savefig(out / "p_histogram.png", dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    xs = [f"{b.high:.2f}" for b in report.p_curve]
    ax.plot(xs, [100 * (b.share or 0) for b in report.p_curve], marker="o", color="#4c72b0", label="observed")
    ax.plot(xs, [20] * len(xs), linestyle="--", color="#c44e52", label="null of no effect (uniform)")
    ax.set(xlabel="p-value (bin upper edge)", ylabel="share of significant p (%)", ylim=(0, 100),
           title=f"p-curve, {report.p_curve_n} p < .05 from {report.p_curve_papers} papers")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(out / "p_curve.png", dpi=120)
    plt.close(fig)
    return {"p_histogram": "p_histogram.png", "p_curve": "p_curve.png"}


def _pct(r: Rate) -> str:
    if r.rate is None or r.ci95 is None:
        return "–"
    return f"{r.papers} ({100 * r.rate:.0f}%, {100 * r.ci95[0]:.0f}–{100 * r.ci95[1]:.0f})"


def markdown(report: CorpusReport) -> str:
    """The report as Markdown (the figures linked by file name)."""
    lines = [f"# Screening report: {report.results_dir}", "",
             f"{report.papers_checked} of {report.papers} papers checked. Each cell: papers with at least one "
             "row of that kind (share of the papers checked, 95% Wilson interval).", "",
             "| check | flagged (warn or error) | error | warn | info |", "|---|---|---|---|---|"]
    for c in report.checks:
        lines.append(f"| `{c.check_id}` | {_pct(c.flagged)} | " +
                     " | ".join(_pct(c.by_severity[s]) for s in ("error", "warn", "info")) + " |")
    lines += ["", f"## p-values ({report.p_values} reported exactly)", ""]
    if "p_histogram" in report.figures:
        lines += [f"![p-value histogram]({report.figures['p_histogram']})", ""]
    lines += [f"## p-curve ({report.p_curve_n} significant p-values recomputed from test statistics, "
              f"{report.p_curve_papers} papers)", "",
              "| bin | count | share |", "|---|---|---|"]
    lines += [f"| {b.low:.2f}–{b.high:.2f} | {b.count} | {'–' if b.share is None else f'{100 * b.share:.0f}%'} |"
              for b in report.p_curve]
    if "p_curve" in report.figures:
        lines += ["", f"![p-curve]({report.figures['p_curve']})"]
    return "\n".join(lines) + "\n"
