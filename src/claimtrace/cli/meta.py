"""``claimtrace meta``: pool per-study effects (fixed, DL and PM random effects), table and forest plot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import app
from claimtrace.cli.common import JsonResult, fail, print_json, stdout_console
from claimtrace.errors import InputError
from claimtrace.numbers.model import MetaResult, Study

MEASURES = ("OR", "RR", "RD", "MD", "SMD")


def study_of(row: dict[str, Any], measure: str, where: str) -> Study:
    """One study from a line: {yi, vi}, or a ``claimtrace numbers`` result (its effect for ``measure``)."""
    sid = str(row["id"])
    label = row.get("label") or sid
    if "yi" in row and "vi" in row:
        try:
            return Study(id=sid, label=str(label), yi=float(row["yi"]), vi=float(row["vi"]))
        except (TypeError, ValueError):
            raise InputError(where, f"item {sid}: yi and vi must be numbers") from None
    effects = row.get("effects")
    if isinstance(effects, list):
        for e in effects:
            if isinstance(e, dict) and e.get("measure") == measure:
                value, se = float(e["value"]), float(e["se"])
                yi = math.log(value) if e.get("log_scale") else value
                return Study(id=sid, label=str(label), yi=yi, vi=se**2)
        raise InputError(where, f"item {sid}: no {measure} effect (the numbers were not all reported?)")
    raise InputError(where, f"item {sid}: needs 'yi' and 'vi', or the 'effects' of a claimtrace numbers result")


@app.command()
def meta(
    studies: Path = typer.Argument(None, help="JSONL: one study per line, {id, yi, vi} or a `claimtrace numbers` result."),
    measure: str = typer.Option("SMD", "--measure", help="OR, RR, RD, MD or SMD (which effect of a numbers result; OR/RR are pooled on the log scale)."),
    plot: Path | None = typer.Option(None, "--plot", help="Write a forest plot here as PATH.png and PATH.svg."),
    reml: bool = typer.Option(False, "--reml", help="Also random effects with τ² by REML (PyMARE; the 'reml' extra)."),
    json_out: JsonResult = False,
) -> None:
    """Inverse-variance fixed and random effects (DerSimonian–Laird, Paule–Mandel, REML), τ², I², prediction interval."""
    from claimtrace.batch import read_jsonl
    from claimtrace.numbers.meta import forest, pool

    if measure not in MEASURES:
        fail(f"unknown --measure {measure!r}; choose one of {', '.join(MEASURES)}")
    if studies is None:
        fail("give a STUDIES.jsonl file")
    rows = read_jsonl(studies)
    items = [study_of(r, measure, str(studies)) for r in rows]
    res = pool(items, measure=measure, reml=reml)
    if plot is not None:
        if plot.parent and not plot.parent.exists():
            fail(f"--plot: folder {plot.parent} does not exist")
        res.plots = [str(p) for p in forest(res, plot)]
    if json_out:
        print_json(res)
    else:
        print_table(res)


def print_table(res: MetaResult) -> None:
    """The studies and pooled estimates as a table (ratios back-transformed), then heterogeneity."""
    from rich.table import Table

    def tr(x: float) -> float:
        return math.exp(x) if res.ratio else x

    con = stdout_console()
    table = Table(title=f"{res.measure}: {res.k} studies")
    for col in ("study / model", res.measure, "95% CI", "weight (fixed)", "prediction interval"):
        table.add_column(col)
    wsum = sum(1 / s.vi for s in res.studies)
    for s in res.studies:
        half = 1.959964 * math.sqrt(s.vi)
        table.add_row(s.label or s.id, f"{tr(s.yi):.4f}", f"{tr(s.yi - half):.4f} to {tr(s.yi + half):.4f}",
                      f"{100 / s.vi / wsum:.1f}%", "")
    for e in [res.fixed, *res.random]:
        pi = f"{tr(e.pi_low):.4f} to {tr(e.pi_high):.4f}" if e.pi_low is not None and e.pi_high is not None else ""
        table.add_row(f"[bold]{e.model}[/]", f"{tr(e.estimate):.4f}", f"{tr(e.ci_low):.4f} to {tr(e.ci_high):.4f}", "", pi)
    con.print(table)
    con.print(f"Q = {res.q:.4f} (df = {res.df}, p = {res.p_q:.4g}), I² = {100 * res.i2:.2f}%, "
              + ", ".join(f"τ² ({k}) = {v:.4f}" for k, v in res.tau2.items()))
    for p in res.plots:
        con.print(f"forest plot: {p}")
