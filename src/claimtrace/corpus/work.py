"""One paper through the steps: parse once, then stats, traces, graphs, conclusions, as table rows.

A :class:`Worker` is built once per process (local pool) or per Ray actor: it holds the extractor (and
its models) for every paper it processes. :func:`step_keys` says which settings each step depends on,
so a re-run recomputes only the steps whose settings changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import socket
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from claimtrace.corpus.schema import STEP_TABLE, checks_row, statistics_row
from claimtrace.documents import ReaderSettings, load_document
from claimtrace.documents.builder import content_hash
from claimtrace.errors import ClaimtraceError
from claimtrace.extract.context import ContextSelector
from claimtrace.extract.embedded import EmbeddedExtractor
from claimtrace.extract.pipeline import extract_traces
from claimtrace.settings import CorpusSettings, canonical_steps
from claimtrace.stats import analyze_document
from claimtrace.version import __version__

#: bump when a step's output changes meaning, so existing results are recomputed
STEP_VERSIONS = {"parse": "1", "stats": "1", "traces": "1", "graphs": "1", "conclusions": "1", "checks": "1"}


#: the settings of a corpus run that affect results: the ``corpus`` section of :class:`claimtrace.settings.Settings`
RunSettings = CorpusSettings


class CorpusItem(BaseModel):
    """One paper of the corpus: a path, and for the conclusions step an optional question."""

    path: str
    intervention: str | None = None
    comparator: str | None = None
    outcome: str | None = None

    def question(self) -> dict[str, str] | None:
        """The (intervention, comparator, outcome) question, when all three are given."""
        if self.intervention and self.comparator and self.outcome:
            return {"intervention": self.intervention, "comparator": self.comparator, "outcome": self.outcome}
        return None


class PaperTask(BaseModel):
    """What a worker must do for one paper."""

    item: CorpusItem
    paper_id: str
    steps: list[str]
    keys: dict[str, str]


class PaperResult(BaseModel):
    """What a worker returns for one paper: the papers row fields, rows per table, errors, memory."""

    paper_id: str
    path: str
    paper: dict[str, Any] = Field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    row_counts: dict[str, int] = Field(default_factory=dict,
                                       description="rows per table (kept when a local worker wrote the rows itself)")
    done_steps: list[str] = Field(default_factory=list)
    errors: list[dict[str, Any]] = Field(default_factory=list)
    seconds: float = 0.0
    worker: str = ""
    peak_rss_mb: float = 0.0
    cpu_seconds: float = Field(0.0, description="CPU seconds the worker process has used so far (all papers)")


def _h(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def step_keys(settings: RunSettings, item: CorpusItem | None = None) -> dict[str, str]:
    """The key of each step: its version plus the settings it (and the steps it builds on) depends on."""

    parse = _h("parse", STEP_VERSIONS["parse"], __version__, settings.max_bytes,
               *([settings.reader] if settings.reader else []))  # runs without a reader keep their keys
    keys = {"parse": parse,
            "stats": _h("stats", STEP_VERSIONS["stats"], parse, settings.alpha),
            "traces": _h("traces", STEP_VERSIONS["traces"], parse, settings.extractor, settings.config,
                         settings.max_evidence_sentences, settings.similarity,
                         settings.llm_model if settings.extractor == "llm" else None),
            "graphs": _h("graphs", STEP_VERSIONS["graphs"], parse, settings.graph_method,
                         settings.llm_model if settings.graph_method != "offline" else None),
            "conclusions": _h("conclusions", STEP_VERSIONS["conclusions"], parse, settings.conclude_method,
                              item.question() if item else None,
                              settings.llm_model if settings.conclude_method != "offline" else None),
            }
    if "checks" in settings.steps:  # only then import the checks (a traces run starts faster without them)
        keys["checks"] = _h("checks", STEP_VERSIONS["checks"], parse, settings.alpha, _check_ids())
    return {s: keys[s] for s in settings.steps}


def _check_ids() -> list[str]:
    """The ids of the registered checks (a check added or removed changes the checks step's key)."""
    from claimtrace.checks import registered_checks

    return sorted(c.id for c in registered_checks())


def peak_rss_mb() -> float:
    """This process's peak resident memory in MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return round(r.ru_utime + r.ru_stime, 3)


def one_line(exc: BaseException) -> str:
    """An exception as a one-line reason."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + "..."


class Worker:
    """Processes papers with models loaded once (one per pool process or Ray actor)."""

    def __init__(self, settings: RunSettings, limiter: Any = None) -> None:
        """Build the extractor and LLM client the settings ask for (``limiter``: the Ray limiter actor)."""
        self.settings = settings
        self.limiter = limiter
        self.name = f"{socket.gethostname()}:{os.getpid()}"
        self._client: Any = None
        self._extractor: Any = None
        self._stats_of: tuple[str, list[Any]] | None = None
        if "traces" in settings.steps:
            self._extractor = self._make_extractor()

    def _llm_client(self) -> Any:
        if self._client is None:
            from claimtrace.llm import LLMClient
            from claimtrace.llm.settings import LLMSettings

            if self.settings.llm is None:
                raise ClaimtraceError("this step needs an LLM; give the LLM options")
            llm = LLMSettings.model_validate(self.settings.llm)
            if self.limiter is not None:
                from claimtrace.corpus.limits import limited_client

                self._client = limited_client(llm, self.limiter)
            else:
                self._client = LLMClient(llm)
        return self._client

    def _make_extractor(self) -> Any:
        s = self.settings
        if s.extractor == "llm":
            from claimtrace.extract.llm_extractor import LLMExtractor

            client = self._llm_client()
            selector = ContextSelector(retriever_spec="hybrid", reranker_spec="llm")
            selector.llm_client = client
            return LLMExtractor(client, selector=selector, max_evidence_sentences=s.max_evidence_sentences)

        return EmbeddedExtractor(similarity=s.similarity, max_evidence_sentences=s.max_evidence_sentences,
                                 selector=ContextSelector(retriever_spec="hybrid"))

    def process(self, task: PaperTask) -> PaperResult:
        """Parse the paper once and run the task's steps; a failing step is recorded, never raised."""
        t0 = time.perf_counter()
        res = PaperResult(paper_id=task.paper_id, path=task.item.path, worker=self.name)
        before = self._client.summary() if self._client is not None else None
        try:
            doc = self._parse(task.item.path)
        except Exception as exc:  # a bad file is recorded and never stops the run
            res.errors.append(self._error(task, "parse", exc))
        else:
            res.done_steps.append("parse")
            res.paper = {"format": doc.source.format, "size_bytes": doc.source.size, "doc_id": doc.id,
                         "title": doc.title,
                         "n_abstract_sentences": sum(len(a.sentences) for a in doc.abstract),
                         "n_paragraphs": len(doc.paragraphs),
                         "n_sentences": sum(len(p.sentences) for p in doc.paragraphs)}
            for step in task.steps:
                if step == "parse":
                    continue
                try:
                    rows = getattr(self, f"_{step}")(doc, task)
                except Exception as exc:
                    res.errors.append(self._error(task, step, exc))
                    continue
                key = task.keys[step]
                for r in rows:
                    r["paper_id"], r["settings_key"] = task.paper_id, key
                res.rows[STEP_TABLE[step]] = rows
                res.row_counts[STEP_TABLE[step]] = len(rows)
                res.done_steps.append(step)
        if self._client is not None:  # this paper's LLM usage: the run's ledger totals after minus before
            after = self._client.summary()
            res.paper.update({f"llm_{k}": getattr(after, k) - (getattr(before, k) if before is not None else 0)
                              for k in ("calls", "cache_hits", "failures", "prompt_tokens", "completion_tokens")})
        else:
            res.paper.update({"llm_calls": 0, "llm_cache_hits": 0, "llm_failures": 0, "llm_prompt_tokens": 0,
                              "llm_completion_tokens": 0})
        res.seconds = round(time.perf_counter() - t0, 4)
        res.peak_rss_mb = peak_rss_mb()
        res.cpu_seconds = cpu_seconds()
        return res

    def _error(self, task: PaperTask, step: str, exc: BaseException) -> dict[str, Any]:
        return {"paper_id": task.paper_id, "path": task.item.path, "step": step,
                "error_type": type(exc).__name__, "message": one_line(exc)}

    def _parse(self, path: str) -> Any:
        reader = ReaderSettings.model_validate(self.settings.reader) if self.settings.reader else ReaderSettings()
        if self.settings.max_bytes is not None:
            return load_document(path, max_bytes=self.settings.max_bytes, settings=reader)
        return load_document(path, settings=reader)

    def _stats(self, doc: Any, task: PaperTask) -> list[dict[str, Any]]:
        return [statistics_row(i, r.model_dump(mode="json")) for i, r in enumerate(self._analyzed(doc))]

    def _analyzed(self, doc: Any) -> list[Any]:
        """The paper's statistics, computed once for the stats and checks steps."""
        if self._stats_of is None or self._stats_of[0] != doc.id:
            self._stats_of = (doc.id, list(analyze_document(doc, alpha=self.settings.alpha)))
        return self._stats_of[1]

    def _checks(self, doc: Any, task: PaperTask) -> list[dict[str, Any]]:
        from claimtrace.checks import CheckContext, CheckOptions, run_checks

        ctx = CheckContext(document=doc, stats=self._analyzed(doc), options=CheckOptions(alpha=self.settings.alpha))
        return [checks_row(i, r.model_dump(mode="json")) for i, r in enumerate(run_checks(ctx))]

    def _traces(self, doc: Any, task: PaperTask) -> list[dict[str, Any]]:
        traces = extract_traces(doc, extractor=self._extractor, config=self.settings.config,
                                max_evidence_sentences=self.settings.max_evidence_sentences)
        out = []
        for i, tr in enumerate(traces):
            row: dict[str, Any] = {
                "trace_index": i, "trace_id": f"{task.paper_id[:16]}-t{i}",
                "finding_text": tr.finding.text, "finding_sentence_id": tr.finding.sentence_id,
                "finding_source": tr.finding.source, "finding_score": tr.finding.score,
                "finding_how_chosen": tr.finding.how_chosen,
                "flags": [f.code for f in tr.flags],
                "flags_json": json.dumps([f.model_dump(mode="json") for f in tr.flags], ensure_ascii=False),
                "extractor": tr.extractor, "configuration": tr.configuration, "model": tr.model,
                "invocation_ids": tr.invocation_ids,
            }
            for prefix, span in (("hypothesis", tr.hypothesis), ("evidence", tr.evidence)):
                d = span.model_dump(mode="json") if span is not None else {}
                for f in ("text", "sentence_ids", "paragraph_ids", "scope", "start", "end", "page", "section",
                          "section_kind", "score", "located"):
                    row[f"{prefix}_{f}"] = d.get(f)
            ev = tr.evidence
            summ = ev.statistics_summary if ev is not None else None
            row["evidence_n_statistics"] = summ.results if summ else None
            row["evidence_n_checked"] = summ.checked if summ else None
            row["evidence_n_inconsistent"] = summ.inconsistent if summ else None
            row["evidence_n_decision_errors"] = summ.decision_errors if summ else None
            row["evidence_statistics_json"] = (json.dumps(ev.statistics, ensure_ascii=False, default=str)
                                               if ev is not None else None)
            out.append(row)
        return out

    def _graphs(self, doc: Any, task: PaperTask) -> list[dict[str, Any]]:
        text = doc.abstract_text.strip() or doc.body_text.strip()
        if not text:
            raise ClaimtraceError("no text to build a graph from")
        method = self.settings.graph_method
        if method == "offline":
            from claimtrace.graph.offline import extract_offline

            graph = extract_offline(text, doc.id)
        else:
            from claimtrace.graph.pipeline import run_direct, run_staged

            run = run_staged if method == "staged" else run_direct
            graph = run(text, doc.id, client=self._llm_client())
        names = {v.id: v.name for v in graph.variables}
        return [{"edge_index": i, "method": method, "source_id": e.source, "source_name": names.get(e.source),
                 "target_id": e.target, "target_name": names.get(e.target), "type": e.type, "status": e.status,
                 "evidence": list(e.evidence), "justification": e.justification}
                for i, e in enumerate(graph.edges)]

    def _conclusions(self, doc: Any, task: PaperTask) -> list[dict[str, Any]]:
        # imported here: scipy and the numbers layer are slow to load, and a traces run needs neither
        from claimtrace.conclude.pipeline import conclude

        q = task.item.question()
        if q is None:
            return []  # no question for this paper in the manifest: nothing to conclude

        method = self.settings.conclude_method
        client = self._llm_client() if method != "offline" else None
        res = conclude(q, [doc], method=method, client=client)
        return [{**q, "method": res.method, "label": res.label, "conclusion": res.conclusion,
                 "rationale": res.rationale, "result_json": res.model_dump_json()}]


#: the most papers a worker takes at once (a local worker writes its step-table rows as one part per chunk)
MAX_CHUNK = 16


def chunks(tasks: list[PaperTask], workers: int, most: int = MAX_CHUNK) -> list[list[PaperTask]]:
    """Guided chunks: large while much is left (fewer files, less overhead), down to 1 paper at the end
    (so no worker idles while another finishes a long chunk)."""
    out: list[list[PaperTask]] = []
    i = 0
    while i < len(tasks):
        size = max(1, min(most, -(-(len(tasks) - i) // (4 * max(workers, 1)))))
        out.append(tasks[i:i + size])
        i += size
    return out


def all_steps_valid(steps: list[str]) -> list[str]:
    """The steps in canonical order; raises on an unknown one (parse is always included)."""
    return list(canonical_steps(steps))


def sha256_of(path: str | Path) -> str:
    """A paper's identity: the Document id of its bytes (sha256), without parsing it."""

    return content_hash(Path(path).read_bytes())
