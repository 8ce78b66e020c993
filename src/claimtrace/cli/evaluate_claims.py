"""``claimtrace evaluate hypothesis | evidence | calibrate``: the published claim-trace metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from claimtrace.cli import llm_options as lo
from claimtrace.cli.common import JsonScores, fail, print_json
from claimtrace.cli.evaluate import evaluate_app
from claimtrace.errors import InputError
from claimtrace.schema_version import SCHEMA_VERSION


def _stage_text(value: Any) -> str | None:
    """A stage's text from a string or a span object with ``text``."""
    if isinstance(value, dict):
        value = value.get("text")
    if value is None:
        return None
    return str(value)


def read_texts(path: Path, stage: str) -> dict[str, str | None]:
    """Texts by id from {"id","text"} lines, dataset rows ({"id", stage}) or `claimtrace extract`
    rows ({"id","traces"}: the first trace's ``stage`` is used)."""
    from claimtrace.batch import read_jsonl

    out: dict[str, str | None] = {}
    for row in read_jsonl(path):
        if "text" in row:
            out[row["id"]] = _stage_text(row["text"])
        elif "traces" in row:
            traces = row.get("traces") or []
            first = traces[0] if traces and isinstance(traces[0], dict) else {}
            out[row["id"]] = _stage_text(first.get(stage))
        elif stage in row:
            out[row["id"]] = _stage_text(row[stage])
        else:
            raise InputError(path, f"item {row['id']!r}: needs 'text', '{stage}' or 'traces'")
    return out


def _pairs(pred: Path, gold: Path, stage: str) -> tuple[list[tuple[str, str | None, str | None]], dict[str, int]]:
    p, g = read_texts(pred, stage), read_texts(gold, stage)
    g = {k: v for k, v in g.items() if v and v.strip()}
    if not g:
        raise InputError(gold, f"no gold {stage} texts")
    pairs = [(i, p.get(i), g[i]) for i in g]
    info = {"items": len(g), "missing_predictions": sum(1 for i in g if i not in p),
            "unmatched_predictions": sum(1 for i in p if i not in g)}
    return pairs, info


@evaluate_app.command("hypothesis")
def hypothesis_cmd(
    pred: Path = typer.Option(..., "--pred", help="Predictions: JSONL of {id, text} or `claimtrace extract` rows."),
    gold: Path = typer.Option(..., "--gold", help="Gold: JSONL of {id, text} (or dataset rows with 'hypothesis')."),
    threshold: float | None = typer.Option(None, "--threshold", "-t", help="Cosine threshold τ (default: the local default)."),
    model: str | None = typer.Option(None, "--model", help="Embedding model (default: the local MiniLM)."),
    per_item: bool = typer.Option(False, "--per-item", help="Include each item's counts."),
    json_out: JsonScores = False,
) -> None:
    """Hypothesis P/R/F1: predicted sentences match at cosine ≥ τ to the gold hypothesis/sentences."""
    from claimtrace.evaluate.hypothesis import DEFAULT_TAU, hypothesis_sims
    from claimtrace.metrics import micro
    from claimtrace.retrieval.embeddings import default_embedder

    tau = DEFAULT_TAU if threshold is None else threshold
    if not 0.0 <= tau <= 1.0:
        raise InputError(None, f"--threshold must be within [0, 1], got {tau}")
    pairs, info = _pairs(pred, gold, "hypothesis")
    emb = default_embedder(model)
    scores = [(i, hypothesis_sims(p, g, emb).score(tau)) for i, p, g in pairs]
    total = micro(s for _, s in scores)
    out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "stage": "hypothesis", "threshold": tau,
                           "model": model or "minilm", **info, **total.model_dump()}
    if per_item:
        out["per_item"] = [{"id": i, **s.model_dump()} for i, s in scores]
    _emit(out, json_out)


@evaluate_app.command("evidence")
@lo.with_llm_options(offline=False)
def evidence_cmd(
    pred: Path = typer.Option(..., "--pred", help="Predictions: JSONL of {id, text} or `claimtrace extract` rows."),
    gold: Path = typer.Option(..., "--gold", help="Gold: JSONL of {id, text} (or dataset rows with 'evidence')."),
    parser: str = typer.Option("deterministic", "--parser", help="Component parser: deterministic or llm (takes the LLM options)."),
    per_item: bool = typer.Option(False, "--per-item", help="Include each item's counts."),
    json_out: JsonScores = False,
    llm: lo.LLMOptions = lo.NONE,
) -> None:
    """Evidence P/R/F1 over five component types (variables, relationships, CIs, test family, N/df)."""
    from claimtrace.evaluate.evidence import micro_evidence, score_evidence
    from claimtrace.evaluate.parsers import get_parser

    if llm.given and parser != "llm":
        fail("the LLM options only apply with --parser llm")
    pairs, info = _pairs(pred, gold, "evidence")
    llm_opts: dict[str, Any] = {}
    if parser == "llm":
        llm_opts = {"base_url": llm.base_url, "model": llm.model, "api_key_env": llm.api_key_env,
                    "settings_file": llm.settings_file, "cache": False if llm.no_cache else None}
    cp = get_parser(parser, **llm_opts)
    scores = [(i, score_evidence(p, g, cp)) for i, p, g in pairs]
    total = micro_evidence(s for _, s in scores)
    out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "stage": "evidence", "parser": cp.name, **info,
                           **total.model_dump()}
    if per_item:
        out["per_item"] = [{"id": i, **s.model_dump(exclude={"components"})} for i, s in scores]
    _emit(out, json_out)


@evaluate_app.command("calibrate")
def calibrate_cmd(
    ratings: Path = typer.Option(..., "--ratings", help="Rated pairs (JSONL or CSV: predicted, gold, rating 0-3)."),
    model: str | None = typer.Option(None, "--model", help="Embedding model (default: the local MiniLM)."),
    plot: Path | None = typer.Option(None, "--plot", help="Write the F1-against-τ plot here (PNG)."),
    json_out: JsonScores = False,
) -> None:
    """Grid-search τ over [0.10, 1.00] (step 0.01) on rated pairs; ratings 2-3 count as correct."""
    from claimtrace.evaluate.hypothesis import calibrate, read_ratings
    from claimtrace.retrieval.embeddings import default_embedder

    rated = read_ratings(ratings)
    res = calibrate(rated, default_embedder(model))
    out: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "model": model or "minilm", **res.model_dump()}
    if plot is not None:
        from claimtrace.evaluate.plots import plot_tau_curve

        out["plot"] = str(plot_tau_curve(res.grid, plot, best_tau=res.best_tau,
                                         title=f"τ calibration ({len(rated)} rated pairs)"))
    _emit(out, json_out)


def _emit(out: dict[str, Any], json_out: bool) -> None:
    if json_out:
        print_json(out)
        return
    head: dict[str, Any] = {k: out[k] for k in ("precision", "recall", "f1") if k in out}
    if "best_tau" in out:
        head = {"best_tau": out["best_tau"], **head}
    typer.echo(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in head.items()}))
