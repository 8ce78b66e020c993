"""The typed choices of claimtrace's options, one home for each: the public API's parameter types, the
settings sections' field types and the command line's accepted values all read these.

Each choice is a ``Literal`` and, beside it, the tuple of its values (``get_args`` of the ``Literal``), so
a value added here reaches the API, the settings and the CLI together. The names of registered components
(retrievers, rerankers, extractors) are the plain spellings of the registries of :mod:`claimtrace.specs`;
``tests/test_public_api.py`` holds them equal. This module imports only ``typing``: it sits at the bottom
of the layer order, and the API can use it at run time without loading pydantic-settings.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "DEFAULT_STEPS", "ENGINES", "EXTRACTOR_NAMES", "GRAPH_METHODS", "RERANKER_NAMES", "RETRIEVER_NAMES", "STEPS",
    "TASKS", "UNIT_KINDS", "Engine", "Extractor", "GraphMethod", "RerankerName", "RetrieverName", "Step", "Task",
    "UnitKind",
]

#: a retrieval unit kind (``claimtrace retrieve --units``; ``claimtrace.retrieval.units``)
UnitKind = Literal["paragraph", "sentence", "table-row", "row-group", "figure-legend"]
UNIT_KINDS: tuple[UnitKind, ...] = get_args(UnitKind)

#: which head a retriever serves (``--task``)
Task = Literal["evidence", "hypothesis"]
TASKS: tuple[Task, ...] = get_args(Task)

#: how a relation graph is built (``claimtrace graph --method``, ``claimtrace run --graph-method``)
GraphMethod = Literal["offline", "staged", "direct"]
GRAPH_METHODS: tuple[GraphMethod, ...] = get_args(GraphMethod)

#: a step of a corpus run, in the order they run; ``parse`` is always done (every step reuses its Document)
Step = Literal["parse", "stats", "traces", "graphs", "conclusions", "checks"]
STEPS: tuple[Step, ...] = get_args(Step)
DEFAULT_STEPS: tuple[Step, ...] = ("parse", "stats", "traces")

#: where a corpus run's papers are processed (``claimtrace run --engine``): a local process pool, or Ray
Engine = Literal["local", "ray"]
ENGINES: tuple[Engine, ...] = get_args(Engine)

#: an extractor by name (``claimtrace extract --extractor``, ``claimtrace run --extractor``): the kinds of
#: ``claimtrace.specs.EXTRACTORS``
Extractor = Literal["embedded", "llm"]
EXTRACTOR_NAMES: tuple[Extractor, ...] = get_args(Extractor)

#: a retriever by the spellings that take no argument (``claimtrace.specs.RETRIEVERS``; ``finetuned:DIR``
#: and ``hybrid-finetuned:DIR`` are specs or spellings)
RetrieverName = Literal["default", "two-stage", "bm25", "dense", "hybrid", "trained", "hybrid-trained"]
RETRIEVER_NAMES: tuple[RetrieverName, ...] = get_args(RetrieverName)

#: a reranker by the spellings that take no argument (``claimtrace.specs.RERANKERS``; ``cross-encoder:PATH``,
#: ``finetuned:DIR`` and ``rescore:SPEC`` are specs or spellings)
RerankerName = Literal["none", "cross-encoder", "llm", "dense"]
RERANKER_NAMES: tuple[RerankerName, ...] = get_args(RerankerName)
