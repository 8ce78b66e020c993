"""The experiment's YAML configuration: schema, validation, and the fingerprint that decides which rows are stale."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from claimtrace.documents.model import StrictModel
from claimtrace.errors import ClaimtraceError, InputError
from claimtrace.evaluate.hypothesis import DEFAULT_TAU
from claimtrace.extract.config import PRESETS
from claimtrace.extract.context import ContextSelector
from claimtrace.jsonl import read_data
from claimtrace.specs import ExtractorSpelling, RerankerSpelling, RetrieverSpelling

Stage = Literal["hypothesis", "evidence"]
ALL_STAGES: tuple[Stage, ...] = ("hypothesis", "evidence")


class ExperimentLLM(StrictModel):
    """The ``llm`` block: the LLM extractor's endpoint overrides (passed to ``claimtrace.llm.settings.load_settings``,
    unset: the project's LLM settings/environment) and what it runs."""

    base_url: str | None = None
    model: str | None = None
    settings_file: str | None = None
    #: seconds a request may take (None: the LLM settings' default); a busy local server needs more
    timeout: float | None = None
    #: run the LLM extractor on the first N items only (LLM calls are slow/costly)
    limit: int | None = 20
    #: presets for the LLM extractor (default: the same as the embedded one)
    presets: list[str] | None = None
    #: reranker of the LLM extractor's rag-rerank / finetuned-rerank (default: RankGPT with the same LLM); a spec
    #: of ``claimtrace.specs.RERANKERS``
    reranker: RerankerSpelling | None = "llm"


class ExtractorOptions(StrictModel):
    """Options passed to the extractors (as `claimtrace extract` takes them)."""

    similarity: str = "bm25"
    max_evidence_sentences: int = 3
    #: the retriever of rag-* configurations: a spec of ``claimtrace.specs.RETRIEVERS``
    retriever: RetrieverSpelling = "hybrid"
    #: rag-rerank / finetuned-rerank reranker: llm, cross-encoder:PATH, finetuned:DIR, dense; None: the
    #: non-LLM default (extract.context.DEFAULT_RERANKERS: the fine-tuned bi-encoder's rescoring after hybrid,
    #: the RRF of BM25 and the fine-tuned retriever over the M candidates after the fine-tuned retriever); a spec of
    #: ``claimtrace.specs.RERANKERS``
    reranker: RerankerSpelling | None = None
    #: the fine-tuned retriever folder for finetuned-rerank (default: <models dir>/ei-evidence)
    finetuned_model: str | None = None


class ExperimentConfig(StrictModel):
    """The YAML experiment file."""

    name: str = "experiment"
    dataset: str
    output: str
    presets: list[str] = Field(default_factory=lambda: ["fulltext-zeroshot", "rag-k5", "rag-k10", "rag-k20",
                                                       "rag-rerank", "finetuned-rerank", "oracle"])
    extractors: list[ExtractorSpelling] = Field(default_factory=lambda: ["embedded"])
    extractor_options: ExtractorOptions = Field(default_factory=ExtractorOptions)
    llm: ExperimentLLM = Field(default_factory=ExperimentLLM)
    limit: int | None = None
    tau: float = DEFAULT_TAU
    embedding_model: str | None = None
    evidence_parser: str = "deterministic"
    workers: int = 1
    #: the configuration every other one is compared against in the transition analysis
    transitions_base: str = "fulltext-zeroshot"
    #: pipeline stages to run: [hypothesis] alone skips stage 2 (a dataset with hypothesis gold only)
    stages: list[Stage] = Field(default_factory=lambda: list(ALL_STAGES), min_length=1)


def presets_for(cfg: ExperimentConfig, extractor: str) -> list[str]:
    """The presets an extractor runs (the LLM's own list when it has one)."""
    return cfg.llm.presets if extractor == "llm" and cfg.llm.presets else cfg.presets


def reranker_for(cfg: ExperimentConfig, extractor: str) -> str | None:
    """The reranker spec of an extractor's rerank configurations."""
    return cfg.llm.reranker if extractor == "llm" else cfg.extractor_options.reranker


def context_selector(cfg: ExperimentConfig, extractor: str) -> ContextSelector:
    """The context selector an extractor's rows use (the runner builds it; the summary names what it resolves)."""

    o = cfg.extractor_options
    return ContextSelector(retriever_spec=o.retriever, reranker_spec=reranker_for(cfg, extractor),
                           finetuned_dir=o.finetuned_model)


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate an experiment YAML file (relative paths resolve against it)."""
    p = Path(path)
    raw = read_data(p, "yaml")
    if not isinstance(raw, dict):
        raise InputError(p, "expected a YAML mapping")
    try:
        cfg = ExperimentConfig.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        msg = str(err["msg"]).removeprefix("Value error, ")
        raise InputError(p, f"{'.'.join(str(x) for x in err['loc'])}: {msg}") from None

    for name in [*cfg.presets, *(cfg.llm.presets or [])]:
        if name not in PRESETS:
            raise InputError(p, f"unknown preset {name!r}; choose from {', '.join(PRESETS)}")
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
        reranker = reranker_for(cfg, ex)
        needs += [name for name in presets_for(cfg, ex)
                  if name == "finetuned-rerank" or (name == "rag-rerank" and reranker is None)]
    if needs:
        from claimtrace.extract.context import check_finetuned_dir

        try:
            cfg.extractor_options.finetuned_model = str(check_finetuned_dir(cfg.extractor_options.finetuned_model))
        except ClaimtraceError as exc:
            raise InputError(p, f"{needs[0]}: {exc}") from None
    return cfg


#: the configuration's path fields (config.json and summary.json record them portably: ``portable_dump``)
PATH_FIELDS: tuple[tuple[str, ...], ...] = (("dataset",), ("output",), ("embedding_model",),
                                            ("extractor_options", "finetuned_model"), ("llm", "settings_file"))


def repository_root(start: str | Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds ``.git`` (a clone or a worktree); None outside one."""
    p = Path(start).expanduser().absolute()
    for d in (p, *p.parents):
        if (d / ".git").exists():
            return d
    return None


def portable_path(path: str | None, root: Path | None) -> str | None:
    """A path as result files record it: relative to the repository root ``root``, ``../shared/...`` for the
    shared data beside it, ``~/...`` under the home folder, else as given (a relative path or a model name)."""
    if not path:
        return path
    p = Path(path).expanduser()
    if not p.is_absolute():
        return path
    bases: list[tuple[Path, str]] = []
    if root is not None:
        shared = root.parent / "shared"
        bases += [(root, ""), (root.resolve(), ""), (shared, "../shared"), (shared.resolve(), "../shared")]
    bases.append((Path.home(), "~"))
    for base, prefix in bases:
        if p.is_relative_to(base):
            rel = p.relative_to(base).as_posix()
            return "/".join(x for x in (prefix, "" if rel == "." else rel) if x) or "."
    return path


def portable_dump(cfg: ExperimentConfig, root: Path | None = None) -> dict[str, Any]:
    """The configuration as config.json records it: its path fields portable (``portable_path``) against
    ``root`` (default: the repository holding the output folder), so results name no machine's folders."""
    root = root if root is not None else repository_root(cfg.output)
    data = cfg.model_dump()
    for keys in PATH_FIELDS:
        d = data
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = portable_path(d[keys[-1]], root)
    return data


#: configuration fields that change no row: which items and configurations run, workers, where and how it reports
_NOT_IN_ROWS = {"name", "output", "presets", "extractors", "limit", "workers", "transitions_base", "llm"}


def config_fingerprint(cfg: ExperimentConfig) -> str:
    """The fingerprint of the whole configuration but workers and output (config.json records it), with its
    paths as recorded (``portable_dump``): the same run in another checkout has the same fingerprint."""
    data = {k: v for k, v in portable_dump(cfg).items() if k not in ("workers", "output")}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def row_fingerprint(cfg: ExperimentConfig, extractor: str) -> str:
    """The fingerprint of what decides one row of ``extractor``: the dataset, the extractor options, the
    scoring (τ, embedder, evidence parser), the stages and, for the LLM extractor, its endpoint and reranker.
    Running more items or configurations, or other workers, keeps the rows already written; paths count as
    recorded (``portable_dump``), so rows copied with the repository to another checkout stay current."""
    portable = portable_dump(cfg)
    data = {k: v for k, v in portable.items() if k not in _NOT_IN_ROWS}
    data["extractor"] = extractor
    if extractor == "llm":
        data["llm"] = {k: v for k, v in portable["llm"].items() if k not in ("limit", "presets")}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]

