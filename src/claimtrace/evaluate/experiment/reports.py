"""An experiment's summary: per (configuration, extractor) scores, τ curves, transitions, tables and plots."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from claimtrace.evaluate import plots
from claimtrace.evaluate.diagnostics import PaperOutcome, transitions
from claimtrace.evaluate.evidence import EvidenceScore, micro_evidence
from claimtrace.evaluate.experiment.config import (
    ALL_STAGES,
    ExperimentConfig,
    context_selector,
    portable_dump,
)
from claimtrace.evaluate.hypothesis import CurvePoint, HypothesisSims, f1_curve, tau_grid
from claimtrace.extract.config import get_preset
from claimtrace.metrics import micro, prf
from claimtrace.schema_version import SCHEMA_VERSION

if TYPE_CHECKING:
    from claimtrace.extract.config import ContextConfig
    from claimtrace.extract.context import ContextSelector

# ---- summary -----------------------------------------------------------------------------------

#: spec kinds that read a trained model with task heads (stage 1 reads the hypothesis head, stage 2 the evidence one)
_HEADED = ("finetuned", "hybrid-finetuned", "trained", "hybrid-trained", "two-stage", "default")
#: spec kinds that name a model folder after the colon
_FOLDER = ("finetuned", "hybrid-finetuned", "cross-encoder")


def spec_label(spec: str, task: str, *, reranker: bool = False) -> str:
    """A retriever or reranker spec as a run resolved it, in words: a model folder by its name, a trained
    model with the head ``task`` reads, a reranker by how it rescores (``finetuned:DIR`` as a reranker is the
    fine-tuned bi-encoder's rescoring, ``rescore:SPEC`` a retriever re-run over the candidates)."""
    kind, _, rest = spec.partition(":")
    if kind == "rescore":
        return f"{spec_label(rest, task)} rescoring"
    if reranker and spec == "llm":
        return "RankGPT (LLM)"
    if reranker and spec == "dense":
        return "dense (MiniLM) rescoring"
    name = f"{kind}:{Path(rest).name}" if rest and kind in _FOLDER else spec
    if kind in _HEADED:
        name += f" ({task} head)"
    return f"{name} rescoring" if reranker and kind == "finetuned" else name


def _stage_context(selector: ContextSelector, c: ContextConfig, task: str) -> str:
    retr = spec_label(selector.retriever_for(c), task)
    spec = selector.reranker_for(c)
    prior = selector.hypothesis_prior if task == "hypothesis" else selector.evidence_prior
    like = f" + {'hypothesis' if task == 'hypothesis' else 'evidence'}-likeness" if prior else ""
    if not spec:  # each stage fuses the relevance with its paragraph prior (HypothesisReranker) before the cut
        return f"{retr}{like} top-{c.k}"
    rr = spec_label(spec, task, reranker=True) + like
    return f"{retr} M={c.candidates} → {rr} → k={c.k}"


def context_description(cfg: ExperimentConfig, preset: str, extractor: str) -> str:
    """What a configuration reads, in words, from the retriever and reranker the run resolves for it
    (``context_selector``): retriever, M -> reranker -> k, per stage where the stages differ."""

    c = get_preset(preset)
    if c.mode != "rag":
        return {"fulltext": "whole body", "oracle": "gold paragraphs"}[c.mode]
    selector = context_selector(cfg, extractor)
    tasks = [t for t in ALL_STAGES if t in cfg.stages]
    labels = {t: _stage_context(selector, c, t) for t in tasks}
    if len(set(labels.values())) == 1:
        return labels[tasks[0]]
    return "; ".join(f"stage {ALL_STAGES.index(t) + 1}: {labels[t]}" for t in tasks)


def summarise(all_rows: dict[tuple[str, str], list[dict[str, Any]]], cfg: ExperimentConfig) -> dict[str, Any]:
    """Per (configuration, extractor): P/R/F1 per stage, evidence hit rate, RSP, gold-in-context rate."""

    table = []
    for (preset, ex), rows in all_rows.items():
        ok = [r for r in rows if not r.get("error")]
        entry: dict[str, Any] = {"config": preset, "extractor": ex, "context": context_description(cfg, preset, ex),
                                 "items": len(rows), "errors": len(rows) - len(ok)}
        if not ok and rows:
            entry["error_example"] = rows[0].get("error")
        hyp = [r["hypothesis"] for r in ok if "hypothesis" in r]
        if hyp:
            h = micro(prf(x["tp"], x["fp"], x["fn"], x["tp_gold"]) for x in hyp)
            entry.update(hypothesis_precision=h.precision, hypothesis_recall=h.recall, hypothesis_f1=h.f1,
                         hypothesis_items=len(hyp))
            hh = [r["hypothesis_hit"] for r in ok if "hypothesis_hit" in r]
            entry["hypothesis_hit_at_1"] = float(np.mean(hh)) if hh else None
        ev = [EvidenceScore.model_validate(r["evidence"]) for r in ok if "evidence" in r]
        if ev:
            e = micro_evidence(ev)
            entry.update(evidence_precision=e.precision, evidence_recall=e.recall, evidence_f1=e.f1,
                         evidence_items=len(ev),
                         evidence_component_f1={k: (prf(c.tp, c.fp, c.fn).f1 if (c.tp + c.fp + c.fn) else None)
                                                for k, c in e.components.items()})
            hits = [r["evidence_hit"] for r in ok if "evidence_hit" in r]
            entry["evidence_hit_at_1"] = float(np.mean(hits)) if hits else None
        rsp = [r["rsp"] for r in ok if "rsp" in r]
        entry["mean_rsp"] = float(np.mean(rsp)) if rsp else None
        g = [r["has_gold_paragraph"] for r in ok if "has_gold_paragraph" in r]
        entry["gold_in_context"] = float(np.mean(g)) if g else None
        cp = [r["context_paragraphs"] for r in ok if "context_paragraphs" in r]
        entry["mean_context_paragraphs"] = float(np.mean(cp)) if cp else None
        sec = [r["seconds"] for r in ok if "seconds" in r]
        entry["seconds_per_item"] = float(np.mean(sec)) if sec else None
        table.append(entry)
    curves = {}
    for (preset, ex), rows in all_rows.items():
        sims = [HypothesisSims([""] * len(r["hypothesis_sims"]["pred_best"]), [""] * len(r["hypothesis_sims"]["gold_best"]),
                               np.array(r["hypothesis_sims"]["pred_best"]), np.array(r["hypothesis_sims"]["gold_best"]))
                for r in rows if not r.get("error") and "hypothesis_sims" in r]
        if sims:
            curves[f"{preset} / {ex}"] = [c.model_dump() for c in f1_curve(sims, tau_grid(0.60, 0.95, 0.01))]
    return {"schema_version": SCHEMA_VERSION, "name": cfg.name, "dataset": portable_dump(cfg)["dataset"], "tau": cfg.tau,
            "evidence_parser": cfg.evidence_parser, "table": table, "hypothesis_tau_curves": curves,
            "transitions": transition_reports(all_rows, cfg)}


def transition_reports(all_rows: dict[tuple[str, str], list[dict[str, Any]]], cfg: ExperimentConfig) -> list[dict[str, Any]]:
    """Transitions from the base configuration to every other one (per extractor), on evidence F1."""

    out = []
    for (preset, ex), rows in all_rows.items():
        base = all_rows.get((cfg.transitions_base, ex))
        if preset == cfg.transitions_base or base is None:
            continue

        def outcomes(rs: list[dict[str, Any]]) -> dict[str, PaperOutcome]:
            return {r["id"]: PaperOutcome(has_gold=r["has_gold_paragraph"], f1=r["evidence"]["f1"])
                    for r in rs if not r.get("error") and "has_gold_paragraph" in r and "evidence" in r}

        rep = transitions(outcomes(base), outcomes(rows), config_a=cfg.transitions_base, config_b=preset)
        if rep.n:
            d = rep.model_dump()
            d["extractor"] = ex
            for b in d["buckets"].values():
                b.pop("ids")
            out.append(d)
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


COLUMNS = ["config", "extractor", "context", "items", "errors", "hypothesis_precision", "hypothesis_recall", "hypothesis_f1",
           "hypothesis_hit_at_1",
           "evidence_precision", "evidence_recall", "evidence_f1", "evidence_hit_at_1", "mean_rsp", "gold_in_context",
           "mean_context_paragraphs", "seconds_per_item"]


def write_reports(summary: dict[str, Any], all_rows: dict[tuple[str, str], list[dict[str, Any]]],
                  cfg: ExperimentConfig) -> None:
    """summary.json / .csv / .md, and PNG plots (F1 against k, RSP against F1, transition buckets)."""

    out = Path(cfg.output)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    with (out / "summary.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for e in summary["table"]:
            w.writerow([e.get(c) for c in COLUMNS])
    md = [f"# {cfg.name}", "", f"Dataset: `{Path(cfg.dataset).name}`; τ = {cfg.tau}; evidence parser: {cfg.evidence_parser}.", ""]
    if summary.get("command"):
        md += [f"Reproduce: `{summary['command']}` (resumable; per-item rows in `items/`).", ""]
    # columns of the stages that have gold (a stage without gold has no scores to show)
    has_h = any(e.get("hypothesis_f1") is not None for e in summary["table"])
    has_e = any(e.get("evidence_f1") is not None for e in summary["table"]) or not has_h
    cols = [("Configuration", "config"), ("Extractor", "extractor"), ("Context", "context"), ("n", "items"), ("err", "errors")]
    if has_h:
        cols += [("Hyp P", "hypothesis_precision"), ("Hyp R", "hypothesis_recall"), ("Hyp F1", "hypothesis_f1"),
                 ("Hyp hit@1", "hypothesis_hit_at_1")]
    if has_e:
        cols += [("Ev P", "evidence_precision"), ("Ev R", "evidence_recall"), ("Ev F1", "evidence_f1"),
                 ("Ev hit@1", "evidence_hit_at_1"), ("RSP", "mean_rsp")]
    cols.append(("gold in ctx", "gold_in_context"))
    md += ["| " + " | ".join(h for h, _ in cols) + " |", "|" + "---|" * len(cols)]
    for e in summary["table"]:
        md.append("| " + " | ".join(_fmt(e.get(c)) for _, c in cols) + " |")
    failed = [e for e in summary["table"] if e.get("error_example")]
    if failed:
        md += [""] + [f"{e['config']} / {e['extractor']}: every item failed: {e['error_example']}" for e in failed]
    if has_e:
        md += ["", "## Evidence F1 per component", "",
               "| Configuration | Extractor | variables | relationships | intervals | test family | N/df |", "|---|---|---|---|---|---|---|"]
        for e in summary["table"]:
            c = e.get("evidence_component_f1") or {}
            md.append(f"| {e['config']} | {e['extractor']} | " + " | ".join(_fmt(c.get(k)) for k in
                      ("variables", "relationships", "intervals", "test_family", "sample_size")) + " |")
    curves = summary["hypothesis_tau_curves"]
    if curves:
        taus = [0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.89, 0.90, 0.95]
        md += ["", "## Hypothesis F1 against τ", "",
               f"Sentence-match F1 at each threshold (the table above uses τ = {cfg.tau}); "
               "`hypothesis_tau.png` plots the whole curve (0.60–0.95, step 0.01). "
               "Hyp hit@1: the predicted span contains the gold hypothesis or lies inside it.", "",
               "| Configuration / extractor | " + " | ".join(f"{t:.2f}" for t in taus) + " |",
               "|---|" + "---|" * len(taus)]
        for name, curve in curves.items():
            by = {round(c["tau"], 2): c["f1"] for c in curve}
            md.append(f"| {name} | " + " | ".join(_fmt(by.get(round(t, 2))) for t in taus) + " |")
    if summary["transitions"]:
        md += ["", f"## Transitions from {cfg.transitions_base} (gold evidence paragraph in context; mean per-paper ΔF1)", "",
               "| To | Extractor | Gains | Keeps | Loses | Misses |", "|---|---|---|---|---|---|"]
        for t in summary["transitions"]:
            md.append(f"| {t['config_b']} | {t['extractor']} | " + " | ".join(
                f"{b['count']} ({_fmt(b['mean_delta_f1'])})" for b in (t["buckets"][k] for k in ("gains", "keeps", "loses", "misses"))) + " |")
    (out / "summary.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    # plots
    ks = {"rag-k5": 5, "rag-k10": 10, "rag-k20": 20}
    series: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for e in summary["table"]:
        if e["config"] in ks:
            for metric in ("evidence_f1", "evidence_hit_at_1", "hypothesis_f1"):
                if e.get(metric) is not None:
                    series[f"{metric} ({e['extractor']})"].append((ks[e["config"]], e[metric]))
    if series:
        plots.plot_lines(series, out / "f1_vs_k.png", xlabel="k (retrieved paragraphs)", ylabel="score",
                         title="Scores against k")
    pts: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for (preset, ex), rows in all_rows.items():
        for r in rows:
            if not r.get("error") and "rsp" in r and "evidence" in r:
                pts[f"{preset} / {ex}"].append((r["rsp"], r["evidence"]["f1"]))
    if pts:
        plots.plot_scatter(pts, out / "rsp_vs_f1.png", xlabel="RSP of the evidence context",
                           ylabel="per-item evidence F1", title="RSP against evidence F1")
    if summary["transitions"]:
        groups = {f"→ {t['config_b']}": {k: float(t["buckets"][k]["count"]) for k in ("gains", "keeps", "loses", "misses")}
                  for t in summary["transitions"] if t["extractor"] == cfg.extractors[0]}
        plots.plot_bars(groups, out / "transitions.png", ylabel="papers",
                        title=f"Transitions from {cfg.transitions_base}")
    if summary["hypothesis_tau_curves"]:
        plots.plot_lines({name: [(c["tau"], c["f1"]) for c in curve] for name, curve in summary["hypothesis_tau_curves"].items()},
                         out / "hypothesis_tau.png", xlabel="τ (cosine threshold)", ylabel="hypothesis F1",
                         title="Hypothesis F1 against τ", marker=None)
    for name, curve in summary["hypothesis_tau_curves"].items():
        safe = name.replace(" / ", "__")
        plots.plot_tau_curve([CurvePoint(**c) for c in curve], out / f"hypothesis_tau_{safe}.png",
                             best_tau=cfg.tau, title=f"Hypothesis F1 against τ: {name}")

