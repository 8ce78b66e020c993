"""Running an experiment: one (configuration, extractor) at a time over the items, resumable, in worker processes."""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from claimtrace.documents import load_document
from claimtrace.errors import ClaimtraceError
from claimtrace.evaluate.datasets import EvalItem, read_dataset, same_statement
from claimtrace.evaluate.diagnostics import relevant_sentence_proportion
from claimtrace.evaluate.evidence import score_evidence
from claimtrace.evaluate.experiment.config import (
    ExperimentConfig,
    config_fingerprint,
    context_selector,
    portable_dump,
    presets_for,
    row_fingerprint,
)
from claimtrace.evaluate.experiment.reports import summarise, write_reports
from claimtrace.evaluate.hypothesis import hypothesis_sims
from claimtrace.evaluate.parsers import get_parser
from claimtrace.extract.config import get_preset
from claimtrace.extract.pipeline import FindingInput, extract_traces
from claimtrace.resume import FINGERPRINT_FIELD, ResumableOutput, read_rows
from claimtrace.retrieval.embeddings import default_embedder

logger = logging.getLogger(__name__)

# ---- one run (configuration × extractor) over items --------------------------------------------

def _paragraph_ids(units: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(u.split(".")[0] for u in units))


class _Runner:
    """Holds the extractor and scorers for one (configuration, extractor) in one process."""

    def __init__(self, cfg: ExperimentConfig, preset: str, extractor: str) -> None:
        self.cfg = cfg
        self.preset = get_preset(preset)
        self.extractor_name = extractor
        o = cfg.extractor_options
        self.selector = context_selector(cfg, extractor)
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
        if self._doc is None or self._doc[0] != path:
            self._doc = (path, load_document(path))
        return self._doc[1]

    def context_paragraphs(self, doc: Any, query: str, gold: list[str], task: str = "evidence") -> list[str]:
        """The paragraphs a stage may read under this configuration (as the extractor selects them)."""
        cfg = self.preset
        if cfg.mode == "fulltext":
            return [p.id for p in doc.paragraphs]
        pids = self.selector.paragraphs(doc, query, cfg, gold or None, task=task)
        return [p.id for p in doc.paragraphs] if pids is None else list(pids)

    def _score_hypothesis(self, row: dict[str, Any], pred: str | None, gold: str) -> None:
        hs = hypothesis_sims(pred, gold, self.embedder)
        row["hypothesis"] = hs.score(self.cfg.tau).model_dump()
        row["hypothesis_sims"] = {"pred_best": [round(float(x), 5) for x in hs.pred_best],
                                  "gold_best": [round(float(x), 5) for x in hs.gold_best]}
        row["hypothesis_hit"] = bool(pred) and same_statement(gold, pred or "")

    def run(self, item: EvalItem) -> dict[str, Any]:
        """Extract, then score every stage that has gold; diagnostics for the evidence context."""

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
                ctx = self.context_paragraphs(doc, item.finding, gold_h, task="hypothesis")
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


def _legacy_rows_current(out: Path, cfg: ExperimentConfig) -> bool:
    """Whether rows written before rows carried a fingerprint belong to this configuration: the folder's
    config.json records the same whole-configuration fingerprint."""
    try:
        old = json.loads((out / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(old, dict) and old.get("fingerprint") == config_fingerprint(cfg)


def _stamp_legacy_rows(path: Path, fingerprint: str) -> None:
    """Give rows without a fingerprint (written by an earlier version, same configuration) this one."""
    rows = list(read_rows(path))
    if any(FINGERPRINT_FIELD not in r for r in rows):
        path.write_text("".join(json.dumps({**r, FINGERPRINT_FIELD: r.get(FINGERPRINT_FIELD, fingerprint)},
                                           ensure_ascii=False, default=str) + "\n" for r in rows), encoding="utf-8")


def run_experiment(cfg: ExperimentConfig, *, log: Callable[[str], None] | None = None,
                   command: str | None = None, report_only: bool = False) -> dict[str, Any]:
    """Run every (configuration, extractor); write items/, summary.{md,csv,json}, transitions and plots
    (``command``: how to reproduce it, printed in summary.md; ``report_only``: run nothing, report the
    items finished so far).

    Resumable: a row is kept when it has no error and its fingerprint (:func:`row_fingerprint`: what
    decides a row of that extractor) matches the configuration; rows of another configuration are
    dropped and redone, and ``report_only`` leaves them out.
    """
    say = log or logger.info
    items = read_dataset(cfg.dataset, cfg.limit)
    out = Path(cfg.output)
    (out / "items").mkdir(parents=True, exist_ok=True)
    legacy_ok = _legacy_rows_current(out, cfg)
    fingerprints = {ex: row_fingerprint(cfg, ex) for ex in cfg.extractors}
    # paths recorded relative to the repository (../shared/..., ~/...), as the fingerprints count them
    (out / "config.json").write_text(json.dumps({**portable_dump(cfg), "fingerprint": config_fingerprint(cfg),
                                                 "row_fingerprints": fingerprints}, indent=2) + "\n")
    runs: list[tuple[str, str, list[EvalItem]]] = []
    for ex in cfg.extractors:
        subset = items[: cfg.llm.limit] if ex == "llm" and cfg.llm.limit else items
        runs.extend((p, ex, subset) for p in presets_for(cfg, ex))
    all_rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for preset, ex, subset in runs:
        path = out / "items" / f"{preset}__{ex}.jsonl"
        fp = fingerprints[ex]
        label = f"{preset} × {ex}"
        ids = {it.id for it in subset}
        if legacy_ok and path.exists():
            _stamp_legacy_rows(path, fp)
        if report_only:
            if path.exists():
                all_rows[(preset, ex)] = [r for r in read_rows(path)
                                          if r["id"] in ids and r.get(FINGERPRINT_FIELD) == fp]
            continue
        store = ResumableOutput(path, fingerprint=fp)
        done = store.start()  # keeps finished rows of this configuration; failed and stale ones are redone
        todo = [it for it in subset if it.id not in done]
        say(f"{label}: {len(subset)} items, {len(done & ids)} already done, {len(todo)} to run"
            + (f" ({store.stale} rows of another configuration dropped)" if store.stale else ""))
        by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for it in todo:
            by_doc[it.doc].append(it.model_dump())
        chunks = list(by_doc.values())
        t0 = time.perf_counter()
        with store:
            cfg_json = cfg.model_dump_json()
            if cfg.workers > 1 and len(chunks) > 1:
                with ProcessPoolExecutor(max_workers=cfg.workers) as pool:
                    futs = [pool.submit(_run_chunk, cfg_json, preset, ex, ch) for ch in chunks]
                    for f in as_completed(futs):
                        _write_rows(store, f.result(), label, say)
            else:
                for ch in chunks:
                    _write_rows(store, _run_chunk(cfg_json, preset, ex, ch), label, say)
        say(f"{label}: finished in {time.perf_counter() - t0:.1f}s")
        all_rows[(preset, ex)] = [r for r in read_rows(path) if r["id"] in ids]
    summary = summarise(all_rows, cfg)
    if command:
        summary["command"] = command
    write_reports(summary, all_rows, cfg)
    return summary


def _write_rows(store: ResumableOutput, rows: list[dict[str, Any]], label: str, say: Callable[[str], None]) -> None:
    for r in rows:
        store.write(r)
        if r.get("error"):
            say(f"error: {label}: {r['id']}: {r['error']}")
