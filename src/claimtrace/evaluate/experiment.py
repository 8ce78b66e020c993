"""The experiment runner: context configurations × extractors over an evaluation dataset.

``claimtrace experiment CONFIG.yaml`` (schema in docs/evaluation.md) runs the claim-trace pipeline
(``claimtrace.extract``) for every item under every configuration and extractor, scores each stage,
and writes per-item results (resumable: finished items are skipped), a summary in the layout of the
published Table 1 (Markdown + CSV), transition reports and PNG plots.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.evaluate.datasets import EvalItem, read_dataset, same_statement
from claimtrace.evaluate.hypothesis import DEFAULT_TAU, HypothesisSims, f1_curve, hypothesis_sims, tau_grid
from claimtrace.evaluate.metrics import micro, prf

SCHEMA_VERSION = "1.0"

Stage = Literal["hypothesis", "evidence"]
ALL_STAGES: tuple[Stage, ...] = ("hypothesis", "evidence")


class LLMSettings(BaseModel):
    """LLM settings for the ``llm`` extractor (unset: the project's LLM settings/environment)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str | None = None
    settings_file: str | None = None
    #: seconds a request may take (None: the LLM settings' default); a busy local server needs more
    timeout: float | None = None
    #: run the LLM extractor on the first N items only (LLM calls are slow/costly)
    limit: int | None = 20
    #: presets for the LLM extractor (default: the same as the embedded one)
    presets: list[str] | None = None
    #: reranker of the LLM extractor's rag-rerank / finetuned-rerank (default: RankGPT with the same LLM)
    reranker: str | None = "llm"


class ExtractorOptions(BaseModel):
    """Options passed to the extractors (as `claimtrace extract` takes them)."""

    model_config = ConfigDict(extra="forbid")

    similarity: str = "bm25"
    max_evidence_sentences: int = 3
    retriever: str = "hybrid"
    #: rag-rerank / finetuned-rerank reranker: llm, cross-encoder:PATH, finetuned:DIR, dense; None: the
    #: non-LLM default (extract.context.DEFAULT_RERANKERS: the fine-tuned bi-encoder's rescoring after hybrid,
    #: the RRF of BM25 and the fine-tuned retriever over the M candidates after the fine-tuned retriever)
    reranker: str | None = None
    #: the fine-tuned retriever folder for finetuned-rerank (default: <models dir>/ei-evidence)
    finetuned_model: str | None = None


class ExperimentConfig(BaseModel):
    """The YAML experiment file."""

    model_config = ConfigDict(extra="forbid")

    name: str = "experiment"
    dataset: str
    output: str
    presets: list[str] = Field(default_factory=lambda: ["fulltext-zeroshot", "rag-k5", "rag-k10", "rag-k20",
                                                       "rag-rerank", "finetuned-rerank", "oracle"])
    extractors: list[str] = Field(default_factory=lambda: ["embedded"])
    extractor_options: ExtractorOptions = Field(default_factory=ExtractorOptions)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    limit: int | None = None
    tau: float = DEFAULT_TAU
    embedding_model: str | None = None
    evidence_parser: str = "deterministic"
    workers: int = 1
    #: the configuration every other one is compared against in the transition analysis
    transitions_base: str = "fulltext-zeroshot"
    #: pipeline stages to run: [hypothesis] alone skips stage 2 (a dataset with hypothesis gold only)
    stages: list[Stage] = Field(default_factory=lambda: list(ALL_STAGES), min_length=1)


def _presets_for(cfg: ExperimentConfig, extractor: str) -> list[str]:
    """The presets an extractor runs (the LLM's own list when it has one)."""
    return cfg.llm.presets if extractor == "llm" and cfg.llm.presets else cfg.presets


def _reranker_for(cfg: ExperimentConfig, extractor: str) -> str | None:
    """The reranker spec of an extractor's rerank configurations."""
    return cfg.llm.reranker if extractor == "llm" else cfg.extractor_options.reranker


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment YAML file (relative paths resolve against it)."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InputError(p, f"invalid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise InputError(p, "expected a YAML mapping")
    try:
        cfg = ExperimentConfig.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(p, f"{'.'.join(str(x) for x in err['loc'])}: {err['msg']}") from None
    from claimtrace.extract.config import PRESETS

    for name in [*cfg.presets, *(cfg.llm.presets or [])]:
        if name not in PRESETS:
            raise InputError(p, f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
    for ex in cfg.extractors:
        if ex not in ("embedded", "llm"):
            raise InputError(p, f"unknown extractor {ex!r}; choose embedded or llm")
    for key in ("dataset", "output"):
        v = Path(getattr(cfg, key))
        if not v.is_absolute():
            setattr(cfg, key, str((p.parent / v).resolve()))
    ft = cfg.extractor_options.finetuned_model
    if ft and not Path(ft).expanduser().is_absolute():
        cfg.extractor_options.finetuned_model = str((p.parent / ft).resolve())
    # which presets read the fine-tuned retriever: finetuned-rerank always; rag-rerank when its reranker is
    # the non-LLM default (fine-tuned rescoring) for the extractor that runs it
    needs = []
    for ex in cfg.extractors:
        reranker = _reranker_for(cfg, ex)
        needs += [name for name in _presets_for(cfg, ex)
                  if name == "finetuned-rerank" or (name == "rag-rerank" and reranker in (None, "finetuned"))]
    if needs:
        from claimtrace.extract.context import check_finetuned_dir

        try:
            cfg.extractor_options.finetuned_model = str(check_finetuned_dir(cfg.extractor_options.finetuned_model))
        except ClaimtraceError as exc:
            raise InputError(p, f"{needs[0]}: {exc}") from None
    return cfg


# ---- one run (configuration × extractor) over items --------------------------------------------

def _paragraph_ids(units: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(u.split(".")[0] for u in units))


class _Runner:
    """Holds the extractor and scorers for one (configuration, extractor) in one process."""

    def __init__(self, cfg: ExperimentConfig, preset: str, extractor: str) -> None:
        from claimtrace.evaluate.embedder import default_embedder
        from claimtrace.evaluate.parsers import get_parser
        from claimtrace.extract.config import get_preset
        from claimtrace.extract.context import ContextSelector

        self.cfg = cfg
        self.preset = get_preset(preset)
        self.extractor_name = extractor
        o = cfg.extractor_options
        reranker = _reranker_for(cfg, extractor)
        self.selector = ContextSelector(retriever_spec=o.retriever, reranker_spec=reranker, finetuned_dir=o.finetuned_model)
        if extractor == "llm":
            from claimtrace.extract.llm_extractor import LLMExtractor
            from claimtrace.llm import LLMClient
            from claimtrace.llm.settings import load_settings

            settings = load_settings(base_url=cfg.llm.base_url, model=cfg.llm.model, settings_file=cfg.llm.settings_file)
            if cfg.llm.timeout:
                settings = settings.model_copy(update={"timeout": cfg.llm.timeout})
            client = LLMClient(settings=settings)
            self.selector.llm_client = client
            self.extractor: Any = LLMExtractor(client, selector=self.selector, max_evidence_sentences=o.max_evidence_sentences)
        else:
            from claimtrace.extract.embedded import EmbeddedExtractor

            self.extractor = EmbeddedExtractor(similarity=o.similarity, max_evidence_sentences=o.max_evidence_sentences,
                                               selector=self.selector)
        self.embedder = default_embedder(cfg.embedding_model)
        self.parser = get_parser(cfg.evidence_parser)
        self._doc: Any = None

    def _document(self, path: str) -> Any:
        from claimtrace.documents import load_document

        if self._doc is None or self._doc[0] != path:
            self._doc = (path, load_document(path))
        return self._doc[1]

    def context_paragraphs(self, doc: Any, query: str, gold: list[str]) -> list[str]:
        """The paragraphs the evidence stage may read under this configuration (as the extractor selects them)."""
        cfg = self.preset
        if cfg.mode == "fulltext":
            return [p.id for p in doc.paragraphs]
        pids = self.selector.paragraphs(doc, query, cfg, gold or None)
        return [p.id for p in doc.paragraphs] if pids is None else list(pids)

    def _score_hypothesis(self, row: dict[str, Any], pred: str | None, gold: str) -> None:
        hs = hypothesis_sims(pred, gold, self.embedder)
        row["hypothesis"] = hs.score(self.cfg.tau).model_dump()
        row["hypothesis_sims"] = {"pred_best": [round(float(x), 5) for x in hs.pred_best],
                                  "gold_best": [round(float(x), 5) for x in hs.gold_best]}
        row["hypothesis_hit"] = bool(pred) and same_statement(gold, pred or "")

    def run(self, item: EvalItem) -> dict[str, Any]:
        """Extract, then score every stage that has gold; diagnostics for the evidence context."""
        from claimtrace.evaluate.diagnostics import relevant_sentence_proportion
        from claimtrace.evaluate.evidence import score_evidence
        from claimtrace.extract.pipeline import FindingInput, extract_traces

        t0 = time.perf_counter()
        doc = self._document(item.doc)
        gold_pars = _paragraph_ids(item.evidence_units)
        gold_h = _paragraph_ids(item.hypothesis_units)
        if "evidence" not in self.cfg.stages:  # stage 1 only
            out1 = self.extractor.hypothesis(doc, item.finding, self.preset, gold_h or gold_pars or None)
            pred_h = out1.span.text if out1.span else None
            row: dict[str, Any] = {"config": self.preset.name, "extractor": self.extractor_name,
                                   "pred_hypothesis": pred_h, "pred_evidence": None,
                                   "flags": [f.code for f in out1.flags], "model": out1.model}
            if item.hypothesis:
                self._score_hypothesis(row, pred_h, item.hypothesis)
            if gold_h:
                ctx = self.context_paragraphs(doc, item.finding, gold_h)
                row["context_paragraphs"] = len(ctx)
                row["has_gold_paragraph"] = bool(set(ctx) & set(gold_h))
            row["seconds"] = round(time.perf_counter() - t0, 3)
            return row
        fi = FindingInput(text=item.finding, hypothesis=None, gold_paragraph_ids=gold_pars or None,
                          hypothesis_gold_paragraph_ids=gold_h or None)
        traces = extract_traces(doc, [fi], extractor=self.extractor, config=self.preset,
                                max_evidence_sentences=self.cfg.extractor_options.max_evidence_sentences)
        tr = traces[0]
        pred_h = tr.hypothesis.text if tr.hypothesis else None
        pred_e = tr.evidence.text if tr.evidence else None
        row = {"config": self.preset.name, "extractor": self.extractor_name,
               "pred_hypothesis": pred_h, "pred_evidence": pred_e,
               "flags": [f.code for f in tr.flags], "model": tr.model}
        if item.hypothesis:
            self._score_hypothesis(row, pred_h, item.hypothesis)
        if item.evidence:
            es = score_evidence(pred_e, item.evidence, self.parser)
            row["evidence"] = es.model_dump()
            golds = getattr(item, "evidence_all", None) or [item.evidence]
            row["evidence_hit"] = bool(pred_e) and any(same_statement(g, pred_e or "") for g in golds)
        # diagnostics of the evidence-stage context
        query = item.finding if not pred_h else f"{item.finding} {pred_h}"
        try:
            ctx = self.context_paragraphs(doc, query, gold_pars)
        except ClaimtraceError:
            ctx = []
        row["context_paragraphs"] = len(ctx)
        if gold_pars:
            row["has_gold_paragraph"] = bool(set(ctx) & set(gold_pars))
        ref = item.hypothesis or item.evidence
        if ref:
            keep = set(ctx)
            sents = [s.text for p in doc.paragraphs if p.id in keep for s in p.sentences]
            row["rsp"] = relevant_sentence_proportion(sents, ref, self.embedder, self.cfg.tau)
        row["seconds"] = round(time.perf_counter() - t0, 3)
        return row


_WORKER: dict[tuple[str, str], _Runner] = {}


def _run_chunk(cfg_json: str, preset: str, extractor: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Process-pool entry: run a chunk of items (one document's) and return their rows."""
    cfg = ExperimentConfig.model_validate_json(cfg_json)
    key = (preset, extractor)
    if key not in _WORKER:
        _WORKER[key] = _Runner(cfg, preset, extractor)
    runner = _WORKER[key]
    out = []
    for raw in items:
        item = EvalItem.model_validate(raw)
        try:
            row = {"id": item.id, **runner.run(item), "error": None}
        except ClaimtraceError as exc:
            row = {"id": item.id, "config": preset, "extractor": extractor, "error": str(exc)}
        except Exception as exc:  # one failure never loses the other items
            row = {"id": item.id, "config": preset, "extractor": extractor, "error": f"{type(exc).__name__}: {exc}"}
        out.append(row)
    return out


def _done_ids(path: Path) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(r, dict) and not r.get("error"):
                rows[str(r["id"])] = r
    return rows


def run_experiment(cfg: ExperimentConfig, *, log: Callable[[str], None] | None = None,
                   command: str | None = None, report_only: bool = False) -> dict[str, Any]:
    """Run every (configuration, extractor); write items/, summary.{md,csv,json}, transitions and plots
    (``command``: how to reproduce it, printed in summary.md; ``report_only``: run nothing, report the
    items finished so far)."""
    say = log or (lambda m: print(m, file=sys.stderr))
    items = read_dataset(cfg.dataset, cfg.limit)
    out = Path(cfg.output)
    (out / "items").mkdir(parents=True, exist_ok=True)
    fingerprint = hashlib.sha256(cfg.model_dump_json(exclude={"workers", "output"}).encode()).hexdigest()[:16]
    (out / "config.json").write_text(json.dumps({**cfg.model_dump(), "fingerprint": fingerprint}, indent=2) + "\n")
    runs: list[tuple[str, str, list[EvalItem]]] = []
    for ex in cfg.extractors:
        subset = items[: cfg.llm.limit] if ex == "llm" and cfg.llm.limit else items
        runs.extend((p, ex, subset) for p in _presets_for(cfg, ex))
    all_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for preset, ex, subset in runs:
        path = out / "items" / f"{preset}__{ex}.jsonl"
        done = _done_ids(path)
        todo = [] if report_only else [it for it in subset if it.id not in done]
        say(f"{preset} × {ex}: {len(subset)} items, {len(done)} already done, {len(todo)} to run")
        if report_only:
            if path.exists():
                ids = {it.id for it in subset}
                all_rows[(preset, ex)] = [r for r in _read_rows(path) if r["id"] in ids]
            continue
        # rewrite without failed/stale lines, then append as items finish (resumable)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in done.values()), encoding="utf-8")
        by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for it in todo:
            by_doc[it.doc].append(it.model_dump())
        chunks = list(by_doc.values())
        t0 = time.perf_counter()
        label = f"{preset} × {ex}"
        with path.open("a", encoding="utf-8") as fh:
            cfg_json = cfg.model_dump_json()
            if cfg.workers > 1 and len(chunks) > 1:
                with ProcessPoolExecutor(max_workers=cfg.workers) as pool:
                    futs = [pool.submit(_run_chunk, cfg_json, preset, ex, ch) for ch in chunks]
                    for f in as_completed(futs):
                        _write_rows(fh, f.result(), label, say)
            else:
                for ch in chunks:
                    _write_rows(fh, _run_chunk(cfg_json, preset, ex, ch), label, say)
        say(f"{preset} × {ex}: finished in {time.perf_counter() - t0:.1f}s")
        ids = {it.id for it in subset}
        rows = [r for r in _read_rows(path) if r["id"] in ids]
        all_rows[(preset, ex)] = rows
    summary = summarise(all_rows, cfg)
    if command:
        summary["command"] = command
    write_reports(summary, all_rows, cfg)
    return summary


def _write_rows(fh: Any, rows: list[dict[str, Any]], label: str, say: Callable[[str], None]) -> None:
    for r in rows:
        fh.write(json.dumps(r, ensure_ascii=False, default=str) + "\n")
        if r.get("error"):
            say(f"error: {label}: {r['id']}: {r['error']}")
    fh.flush()


def _read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---- summary -----------------------------------------------------------------------------------

def _short(spec: str) -> str:
    kind, _, rest = spec.partition(":")
    if kind == "rescore":
        return f"{_short(rest)} rescoring"
    return f"{kind}:{Path(rest).name}" if rest else spec


def context_description(cfg: ExperimentConfig, preset: str, extractor: str) -> str:
    """What a configuration reads, in words: retriever, M -> reranker -> k (for the summary table)."""
    from claimtrace.extract.config import get_preset

    c = get_preset(preset)
    if c.mode != "rag":
        return {"fulltext": "whole body", "oracle": "gold paragraphs"}[c.mode]
    o = cfg.extractor_options
    retr = "finetuned (evidence head)" if c.retriever == "finetuned" else o.retriever
    if not c.reranker:
        return f"{retr} top-{c.k}"
    spec = cfg.llm.reranker if extractor == "llm" else o.reranker
    if not spec:
        spec = "finetuned bi-encoder rescoring" if c.retriever is None else "BM25 + finetuned RRF rescoring"
    elif spec == "llm":
        spec = "RankGPT (LLM)"
    return f"{retr} M={c.candidates} → {_short(spec)} → k={c.k}"


def summarise(all_rows: dict[tuple[str, str], list[dict[str, Any]]], cfg: ExperimentConfig) -> dict[str, Any]:
    """Per (configuration, extractor): P/R/F1 per stage, evidence hit rate, RSP, gold-in-context rate."""
    from claimtrace.evaluate.evidence import EvidenceScore, micro_evidence

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
                         evidence_component_f1={k: (2 * c.tp / (2 * c.tp + c.fp + c.fn) if (2 * c.tp + c.fp + c.fn) else None)
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
    return {"schema_version": SCHEMA_VERSION, "name": cfg.name, "dataset": cfg.dataset, "tau": cfg.tau,
            "evidence_parser": cfg.evidence_parser, "table": table, "hypothesis_tau_curves": curves,
            "transitions": transition_reports(all_rows, cfg)}


def transition_reports(all_rows: dict[tuple[str, str], list[dict[str, Any]]], cfg: ExperimentConfig) -> list[dict[str, Any]]:
    """Transitions from the base configuration to every other one (per extractor), on evidence F1."""
    from claimtrace.evaluate.diagnostics import PaperOutcome, transitions

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
    from claimtrace.evaluate import plots
    from claimtrace.evaluate.hypothesis import CurvePoint

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
